// Stop 53 probe: indexing api, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
using namespace torch::indexing;

int main() {
  auto t = torch::arange(24, torch::kFloat).reshape({2, 3, 4});
  std::cout << t.index({None}).sizes() << "\n";
  std::cout << t.index({Ellipsis, None}).sizes() << "\n";
  std::cout << t.index({"...", None}).sizes() << "\n";
  std::cout << t.index({1, 2}) << "\n";
  std::cout << t.index({true}).sizes() << " " << t.index({false}).sizes() << "\n";
  std::cout << t.index({Slice(1, None, 2)}) << "\n";
  std::cout << t.index({Slice(), Slice(None, 2)}) << "\n";
  std::cout << t.index({Slice(), Slice(), Slice(None, None, 3)}) << "\n";
  std::cout << t.index({0, torch::tensor({2, 0})}) << "\n";
  std::cout << t.index({"...", 0, true, Slice(1, None, 2), torch::tensor({1, 2})}) << "\n";
  std::cout << t.index({Slice(-1, None)}).sizes() << "\n";
  std::cout << t.index({-1, -1, -1}).item<float>() << "\n";
  auto m = t.clone();
  m.index_put_({None}, 1);
  std::cout << m.sum() << "\n";
  m = t.clone();
  m.index_put_({Slice(1, None, 2)}, 7);
  std::cout << m << "\n";
  m = t.clone();
  m.index_put_({0, torch::tensor({1, 2})}, -1);
  std::cout << m[0] << "\n";
  m = t.clone();
  m.index_put_({"...", 0, true, Slice(1, None, 2), torch::tensor({1, 2})}, 1);
  std::cout << m << "\n";
  m = t.clone();
  m.index_put_({Slice(), 1}, torch::ones({4}) * 5);
  std::cout << m << "\n";
  auto mask = t > 10;
  std::cout << t.index({mask}) << "\n";
  m = t.clone();
  m.index_put_({mask}, 0);
  std::cout << m << "\n";
  m.index_put_({t < 3}, torch::tensor({9.f, 8.f, 7.f}));
  std::cout << m[0][0] << "\n";
  // Slice values printed
  std::cout << Slice(1, None, 2) << " " << Slice() << "\n";
  auto sel = t.select(1, 0).narrow(1, 1, 2);
  std::cout << sel << sel.is_contiguous() << "\n";
  std::cout << t.index_select(2, torch::tensor({3, 1})) << "\n";
  std::cout << t.masked_select(mask).numel() << "\n";
  std::cout << t.gather(2, torch::zeros({2, 3, 1}, torch::kLong)) << "\n";
  auto z = torch::zeros({3, 5});
  z.scatter_(1, torch::tensor({{0}, {2}, {4}}), 1.5);
  std::cout << z << "\n";
  z.index_fill_(1, torch::tensor({1}), -2);
  std::cout << z << "\n";
  z.masked_fill_(z < 0, 3);
  std::cout << z << "\n";
  std::cout << torch::index_select(z, 0, torch::tensor({2})) << "\n";
  z.index_add_(0, torch::tensor({0, 0}), torch::ones({2, 5}));
  std::cout << z << "\n";
  auto w = torch::arange(6).view({2, 3});
  std::cout << w.flip({1}) << w.roll(1, 1) << w.t() << w.transpose(0, 1).contiguous() << "\n";
  std::cout << torch::stack({w, w}, 0).sizes() << torch::cat({w, w}, 1) << "\n";
  auto parts = w.chunk(3, 1);
  std::cout << parts.size() << parts[2] << "\n";
  auto sp = torch::split(torch::arange(7), 3);
  for (auto& s : sp) std::cout << s.sizes() << " ";
  std::cout << "\n" << torch::arange(10).unfold(0, 3, 2) << "\n";
  std::cout << w.repeat({2, 1}) << w.expand({2, 2, 3}).sizes() << "\n";
  std::cout << torch::tril(torch::ones({3, 3})) << torch::triu(torch::ones({3, 3}), 1) << "\n";
  std::cout << w.unsqueeze(0).squeeze().sizes() << w.permute({1, 0}).sizes() << "\n";
  std::cout << torch::where(w > 2, w, torch::zeros_like(w)) << "\n";
  std::cout << std::get<0>(w.max(1)) << std::get<1>(w.min(0)) << "\n";
  std::cout << std::get<0>(torch::sort(torch::tensor({3, 1, 2}), 0, true)) << "\n";
  std::cout << std::get<1>(torch::topk(torch::tensor({3., 1., 2., 5.}), 2)) << "\n";
  std::cout << torch::argsort(torch::tensor({3, 1, 2})) << "\n";
  std::cout << std::get<0>(torch::unique_consecutive(torch::tensor({1, 1, 2, 2, 3, 1}))) << "\n";
  // printing of indices, and bools among tensor indices (advanced, as libtorch's)
  std::cout << TensorIndex(None) << "|" << TensorIndex("...") << "|" << TensorIndex(3) << "|" << TensorIndex(true) << "|"
            << TensorIndex(false) << "|" << TensorIndex(Slice(1, None, 2)) << "|" << TensorIndex(torch::tensor({1, 2})) << "\n";
  std::vector<TensorIndex> iv{0, Slice()};
  std::cout << iv << "\n";
  auto T = torch::tensor({0, 1});
  std::cout << t.index({true, T}).sizes() << t.index({"...", true, T}).sizes() << t.index({0, true, Slice(), T}).sizes()
            << t.index({"...", 0, true, Slice(1, None, 2), T}).sizes() << t.index({0, true, Slice(1, None, 2), T}).sizes()
            << t.index({"...", true, Slice(), true}).sizes() << t.index({true, Slice(), true}).sizes()
            << t.index({true, 0, T}).sizes() << t.index({Slice(), true, Slice(), T}).sizes() << t.index({T, true}).sizes()
            << t.index({T, Slice(), true}).sizes() << t.index({"...", T}).sizes() << t.index({"...", true}).sizes()
            << t.index({None, Slice(), T}).sizes() << t.index({"...", None, T}).sizes()
            << t.index({"...", 0, None, Slice(1, None, 2), T}).sizes() << "\n";
  auto m2 = t.clone();
  m2.index_put_({true, 1, true}, -1);
  std::cout << m2.sum() << "\n";
}
