// scripts/libtorch-diff: Autograd: grad_fn names, leaves, backward with gradients, autograd::grad with create_graph, retain_grad, retain_graph, gradients of many ops.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
int main() {
  auto x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto y = x * x + 2 * x;
  P(y.grad_fn()->name()); P(y.requires_grad()); P(y.is_leaf()); P(x.is_leaf());
  y.backward(torch::ones_like(y));
  P(x.grad());
  auto z = (x.exp() * x.sin()).sum();
  auto g = torch::autograd::grad({z}, {x}, {}, true, true)[0];
  P(g); P(g.grad_fn() != nullptr);
  auto h = torch::autograd::grad({g.sum()}, {x})[0]; P(h);
  x.grad().zero_();
  auto w = torch::randn({3}).abs().requires_grad_();
  { torch::NoGradGuard ng; auto q = x * 2; P(q.requires_grad()); }
  auto d = x.detach(); P(d.requires_grad());
  auto m = torch::tensor({{1.0, 2.0}, {3.0, 4.0}}, torch::requires_grad());
  auto out = torch::mm(m, m.t()).trace(); out.backward(); P(m.grad());
  auto s = torch::tensor({0.5, -0.5}, torch::requires_grad());
  auto r = torch::relu(s).sum() + torch::sigmoid(s).prod() + torch::tanh(s).norm(); r.backward(); P(s.grad());
  auto v = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::requires_grad());
  auto vv = v.view({2, 2}).t().reshape({4}).index_select(0, torch::tensor({0, 0, 3})).cumsum(0).sum(); vv.backward(); P(v.grad());
  auto a = torch::tensor({2.0, 0.0, -1.0}, torch::requires_grad());
  auto b = (a.abs() + a.clamp(-0.5, 0.5) + a.pow(3) + torch::sqrt(a * a + 1) + a.max() + a.norm(1)).sum(); b.backward(); P(a.grad());
  auto c = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto cc = c * 3; cc.retain_grad(); (cc * cc).sum().backward(); P(cc.grad()); P(c.grad());
  auto e = torch::tensor({3.0}, torch::requires_grad());
  auto f = e * e; f.backward({}, true); f.backward(); P(e.grad());
  auto k = torch::tensor({{1.0, -1.0}, {2.0, 0.5}}, torch::requires_grad());
  auto lsm = torch::log_softmax(k, 1).gather(1, torch::tensor({{0}, {1}})).sum(); lsm.backward(); P(k.grad());
  auto p = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::requires_grad());
  auto pm = std::get<0>(p.view({2, 2}).max(1)).sum() + p.var() + p.std(); pm.backward(); P(p.grad());
}
