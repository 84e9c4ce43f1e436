// scripts/libtorch-diff: stop 55's probe: scatter_reduce (every reduction, with and without self,
// values and gradients), index_reduce, scatter with "add" / "multiply", the LU family
// (linalg::lu_factor, lu, lu_solve, lu_unpack, solve_ex, inv_ex, with gradients), Embedding's
// scale_grad_by_freq, and generator objects
// (make_generator, at::detail::createCPUGenerator, the default generator under its mutex,
// get_state / set_state, clone, and every draw that takes a generator). Random numbers differ
// between the libraries (mt19937 against Philox), so the generator part prints only what a seed
// must make equal, never the numbers.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#include <mutex>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
int main() {
  auto self0 = torch::tensor({1., 2., 3., 4., 5., 6., 7., 8., -1., 0., 2., 5.}).view({3, 4}).to(torch::kFloat);
  auto src0 = torch::tensor({0.5, 4., -2., 3., 9., 2., 2., 1., 0., 7., 3., -4., 5., 1., 1.}).view({3, 5}).to(torch::kFloat);
  auto idx = torch::tensor({0, 1, 0, 3, 3, 2, 2, 2, 0, 1, 1, 1, 3, 3, 0}).view({3, 5});
  auto w = torch::arange(1, 13).view({3, 4}).to(torch::kFloat);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      std::cout << "=== scatter_reduce " << reduce << " include_self=" << include_self << "\n";
      auto s = self0.clone().requires_grad_(), x = src0.clone().requires_grad_();
      auto out = s.scatter_reduce(1, idx, x, reduce, include_self);
      P(out); P(out.grad_fn()->name());
      (out * w).sum().backward();
      P(s.grad()); P(x.grad());
    }
  }
  auto si = torch::tensor({10, 20, 30}), xi = torch::tensor({3, 4, 7, -5}), ii = torch::tensor({0, 0, 2, 2});
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    P(si.scatter_reduce(0, ii, xi, reduce)); P(torch::scatter_reduce(si, 0, ii, xi, reduce, false));
  }
  auto src2 = torch::tensor({1., 2., 3., 4., 5., 6., 7., 8.}).view({4, 2}).to(torch::kFloat);
  auto i2 = torch::tensor({0, 2, 0, 2});
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      std::cout << "=== index_reduce " << reduce << " include_self=" << include_self << "\n";
      auto a = torch::full({3, 2}, 2.0).requires_grad_(), b = src2.clone().requires_grad_();
      auto o = a.index_reduce(0, i2, b, reduce, include_self);
      P(o); P(o.grad_fn()->name());
      (o * torch::arange(1, 7).view({3, 2})).sum().backward();
      P(a.grad()); P(b.grad());
    }
  }
  auto t = torch::ones({3});
  P(torch::zeros({3}).scatter(0, torch::tensor({0, 0, 2}), torch::tensor({1.f, 2.f, 3.f}), "add"));
  P(t.scatter(0, torch::tensor({0, 0, 2}), 4.0, "multiply"));
  t.scatter_(0, torch::tensor({0, 2}), torch::tensor({5.f, 6.f}), "multiply");
  P(t);
  auto m = torch::zeros({2, 3});
  m.index_reduce_(1, torch::tensor({2, 2, 0}), torch::tensor({{1.f, 5.f, 3.f}, {4.f, -2.f, 6.f}}), "amax", false);
  P(m);

  // the LU family
  auto A = torch::tensor({2., 1., 3., 4., -1., 0.5, -2., 5., 1.}, torch::kDouble).view({3, 3});
  auto W = torch::tensor({1., 2., 3., 4., 2., 0., 1., -1., 0.5, 3., -2., 1.}, torch::kDouble).view({3, 4});
  for (auto M : {A, W, W.t().contiguous()}) {
    auto X = M.clone().requires_grad_();
    auto [Pm, L, U] = torch::linalg::lu(X);
    P(Pm); P(L); P(U);
    ((L * torch::arange(L.numel(), torch::kDouble).view(L.sizes())).sum() + (U * U).sum()).backward();
    P(X.grad());
    auto Y = M.clone().requires_grad_();
    auto [LU, piv] = torch::linalg::lu_factor(Y);
    P(LU); P(piv);
    (LU * LU).sum().backward();
    P(Y.grad());
    auto [P2, L2, U2] = torch::lu_unpack(LU.detach(), piv);
    P(P2); P(L2); P(U2);
  }
  auto B = torch::tensor({1., 0., 2., 1., 0., 3.}, torch::kDouble).view({3, 2});
  auto [LU, piv] = torch::linalg::lu_factor(A);
  P(torch::linalg_lu_solve(LU, piv, B)); P(torch::linalg_lu_solve(LU, piv, B, true, true));
  P(torch::linalg_lu_solve(LU, piv, B.t(), false));
  auto S = torch::tensor({1., 2., 2., 4.}).view({2, 2});
  auto [SLU, Spiv, Sinfo] = torch::linalg_lu_factor_ex(S);
  P(SLU); P(Spiv); P(Sinfo);
  P(std::get<1>(torch::linalg::solve_ex(S, torch::ones({2}), true, false))); P(std::get<0>(torch::linalg::solve_ex(A, B, true, false)));
  P(std::get<1>(torch::linalg_inv_ex(S))); P(std::get<0>(torch::linalg_inv_ex(A)));

  // Embedding's scale_grad_by_freq
  namespace F = torch::nn::functional;
  auto ew = torch::arange(12, torch::kDouble).view({4, 3}).requires_grad_();
  auto ei = torch::tensor({1, 2, 1, 0, 1, 3}).view({2, 3});
  auto eo = F::embedding(ei, ew, F::EmbeddingFuncOptions().padding_idx(3).scale_grad_by_freq(true));
  P(eo.grad_fn()->name());
  (eo * torch::arange(18, torch::kDouble).view({2, 3, 3})).sum().backward();
  P(ew.grad());
  auto emb = torch::nn::Embedding(torch::nn::EmbeddingOptions(4, 3).scale_grad_by_freq(true));
  emb->forward(torch::tensor({2, 2, 0})).sum().backward();
  P(emb->weight.grad());

  // generators: what a seed makes equal
  auto g = torch::make_generator<torch::CPUGeneratorImpl>(42);
  P(g.current_seed()); P(g.device());
  auto g2 = at::detail::createCPUGenerator(42);
  P(torch::randn({5}, g).equal(torch::randn({5}, g2)));
  auto state = g.get_state();
  P(state.dtype()); P(state.dim());
  auto next = torch::rand({4}, g);
  g.set_state(state);
  P(torch::rand({4}, g).equal(next));
  auto c = g.clone();
  P(torch::randint(0, 100, {6}, c).equal(torch::randint(0, 100, {6}, g)));
  g.set_current_seed(7);
  g2.set_current_seed(7);
  P(torch::randperm(9, g).equal(torch::randperm(9, g2)));
  P(std::get<0>(torch::randperm(9, g).sort()).equal(torch::arange(9)));
  g2.set_current_seed(7);  // g drew once more than g2: both start again from the seed
  g.set_current_seed(7);
  P(torch::normal(2.0, 3.0, {4}, g).equal(torch::normal(2.0, 3.0, {4}, g2)));
  P(torch::empty({4}).uniform_(-1, 1, g).equal(torch::empty({4}).uniform_(-1, 1, g2)));
  P(torch::empty({4}).normal_(0, 2, g).equal(torch::empty({4}).normal_(0, 2, g2)));
  P(torch::empty({4}).exponential_(1.5, g).equal(torch::empty({4}).exponential_(1.5, g2)));
  P(torch::empty({4}, torch::kLong).random_(0, 10, g).equal(torch::empty({4}, torch::kLong).random_(0, 10, g2)));
  auto p = torch::tensor({0.2, 0.5, 0.9});
  P(torch::bernoulli(p, g).equal(torch::bernoulli(p, g2)));
  P(torch::multinomial(p, 2, false, g).equal(torch::multinomial(p, 2, false, g2)));
  P(torch::empty({3}).bernoulli_(0.5, g).equal(torch::empty({3}).bernoulli_(0.5, g2)));
  auto def = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(def.mutex());
    def.set_current_seed(123);
  }
  P(at::detail::getDefaultCPUGenerator().current_seed());
  P(at::globalContext().defaultGenerator(torch::kCPU).current_seed());
  auto a1 = torch::rand({3});
  torch::manual_seed(123);
  P(torch::rand({3}).equal(a1));
  torch::manual_seed(5);
  auto d1 = torch::rand({3});
  torch::manual_seed(5);
  (void)torch::rand({3}, g);
  P(torch::rand({3}).equal(d1));
  P(torch::Generator().defined());
  return 0;
}
