// Stop 53 probe: creation api, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
int main() {
  std::cout << torch::ones(5, torch::dtype(torch::kInt32)) << "\n";
  std::cout << torch::zeros({2, 2}, torch::kFloat64) << "\n";
  std::cout << torch::full({2, 3}, 7) << torch::full({2}, 2.5, torch::kFloat32) << "\n";
  std::cout << torch::arange(5) << torch::arange(1, 4) << torch::arange(1, 2.5, 0.5) << "\n";
  std::cout << torch::eye(3) << torch::eye(2, 3) << "\n";
  std::cout << torch::linspace(0, 1, 5) << torch::logspace(0, 2, 3) << "\n";
  float data[] = {1, 2, 3, 4, 5, 6};
  auto fb = torch::from_blob(data, {2, 3});
  std::cout << fb << fb.dtype() << "\n";
  auto fb2 = torch::from_blob(data, {3}, {2});
  std::cout << fb2 << "\n";
  std::cout << torch::tensor({{1, 2}, {3, 4}}) << torch::tensor({1.5, 2.5}, torch::kFloat64) << torch::tensor(3.5) << "\n";
  std::cout << torch::tensor({true, false}) << torch::tensor({1.f, 2.f}).options() << "\n";
  auto x = torch::tensor({1.f, -2.f, 3.f});
  std::cout << torch::zeros_like(x, torch::kInt) << torch::ones_like(x) << torch::full_like(x, 4) << "\n";
  std::cout << x.new_zeros({2}) << x.new_ones({2}) << x.new_full({2}, 3) << x.new_empty({2}).sizes() << "\n";
  auto opts = torch::TensorOptions().dtype(torch::kFloat32).layout(torch::kStrided).device(torch::kCPU).requires_grad(true);
  auto r = torch::zeros({2}, opts);
  std::cout << r.requires_grad() << r.options() << opts << "\n";
  std::cout << torch::empty({0}).numel() << torch::empty({2, 0, 3}).sizes() << "\n";
  std::cout << x.abs() << x.neg() << x.exp() << x.sqrt() << x.clamp(-1, 1) << x.clamp_min(0) << x.sign() << "\n";
  std::cout << x.pow(2) << torch::pow(2, x) << x.reciprocal() << x.sigmoid() << x.tanh() << "\n";
  std::cout << x.sum() << x.mean() << x.prod() << x.std() << x.var() << x.norm() << x.max() << x.argmax() << "\n";
  auto m = torch::arange(6, torch::kFloat).view({2, 3});
  std::cout << m.sum(0) << m.sum(1, true) << m.mean() << m.cumsum(1) << m.cumprod(0) << "\n";
  std::cout << m.matmul(m.t()) << torch::mm(m, m.t()) << torch::bmm(m.unsqueeze(0), m.t().unsqueeze(0)) << "\n";
  std::cout << torch::softmax(m, 1) << torch::log_softmax(m, 0) << "\n";
  std::cout << m.to(torch::kInt) / 4 << m.to(torch::kInt).div(4, "floor") << m.remainder(4) << torch::fmod(m, 4) << "\n";
  std::cout << (m > 2) << (m == 3).any() << (m >= 0).all() << m.eq(1).sum() << "\n";
  std::cout << m.to(torch::kHalf) << m.to(torch::kBFloat16) << m.to(torch::kByte) << m.to(torch::kInt64) << "\n";
  std::cout << torch::allclose(m, m + 1e-9) << torch::equal(m, m) << m.isnan().any() << "\n";
}
