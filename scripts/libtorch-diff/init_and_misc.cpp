// Stop 53 probe: init and misc, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
int main() {
  auto w = torch::empty({4, 3});
  std::cout << torch::nn::init::calculate_gain(torch::kReLU) << " " << torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2) << " " << torch::nn::init::calculate_gain(torch::kTanh) << "\n";
  torch::nn::init::constant_(w, 0.3);
  std::cout << w.sum() << "\n";
  torch::nn::init::eye_(w);
  std::cout << w << "\n";
  torch::nn::init::ones_(w);
  torch::nn::init::dirac_(torch::empty({2, 2, 3}));
  torch::nn::init::xavier_normal_(w, 1.0);
  torch::nn::init::xavier_uniform_(w, torch::nn::init::calculate_gain(torch::kReLU));
  torch::nn::init::kaiming_uniform_(w, std::sqrt(5));
  torch::nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
  torch::nn::init::orthogonal_(w);
  std::cout << torch::allclose(w.t().mm(w), torch::eye(3), 1e-4, 1e-5) << "\n";
  torch::nn::init::sparse_(w, 0.5);
  torch::nn::init::uniform_(w, -1, 1);
  torch::nn::init::normal_(w, 0, 0.02);
  w.clamp_(-2, 2);
  std::cout << (w.abs() <= 2).all().item<bool>() << "\n";
  auto fans = torch::nn::init::_calculate_fan_in_and_fan_out(torch::empty({8, 4, 3, 3}));
  std::cout << std::get<0>(fans) << " " << std::get<1>(fans) << "\n";
  auto t = torch::arange(4.);
  std::cout << 2 * t << 1 - t << t / 2.0 << -t << 10 / (t + 1) << t.add(t, 2) << "\n";
  auto s = torch::ones({2, 2});
  s.add_(torch::ones({2, 2}), -3).sub_(1).mul_(2).div_(4);
  std::cout << s << "\n";
  auto scores = torch::arange(4.).view({2, 2});
  std::cout << scores.masked_fill(torch::triu(torch::ones({2, 2}), 1).to(torch::kBool), -1e9).softmax(-1) << "\n";
  std::cout << (t > 1) * 1.0 << (t > 1).logical_and(t < 3) << (~(t > 1)) << ((t > 1) | (t < 1)) << "\n";
  std::cout << t.lt(2).sum().item<int64_t>() << t.type_as(torch::ones(1, torch::kInt)) << "\n";
  std::cout << torch::addcmul(t, t, t, 0.5) << torch::lerp(t, t * 2, 0.25) << torch::hypot(t, t) << "\n";
  std::cout << t.index_put({torch::tensor({0})}, torch::tensor(9.)) << "\n";
  std::cout << torch::bucketize(torch::tensor({0.5, 2.5}), torch::tensor({1.0, 2.0, 3.0})) << torch::searchsorted(torch::tensor({1.0, 2.0, 3.0}), torch::tensor({2.0})) << "\n";
  std::cout << torch::histc(t, 2) << torch::bincount(torch::tensor({0, 1, 1, 3})) << "\n";
  std::cout << torch::cumsum(t, 0, torch::kDouble) << torch::diff(t) << torch::nan_to_num(torch::tensor({NAN, INFINITY}), 0.0, 1.0) << "\n";
  std::cout << torch::isclose(t, t + 1e-9).all() << torch::count_nonzero(t) << torch::flatten(scores) << "\n";
  std::cout << torch::stack({t, t}).amax(0) << torch::logsumexp(t, 0) << torch::median(t) << std::get<0>(torch::mode(torch::tensor({1, 2, 2}))) << "\n";
}
