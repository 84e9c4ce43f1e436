// scripts/libtorch-diff: stop 54's probe of libtorch's everyday ops: logaddexp, heaviside, gcd/lcm,
// take_along_dim, index_copy, argwhere, isin, clamp with tensor bounds, Tensor::where,
// fill_diagonal_, is_nonzero, dist, msort, masked_fill with a tensor value, inner, vdot,
// isposinf/isneginf/isreal, hardshrink, sum_to_size, amax/amin, the __and__-style operators and
// the channels-last memory format; with gradients where PyTorch has them.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
template <class... T> void show(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (show(x), ...); }, t); }
template <class T> void show(const std::vector<T>& v) { for (auto& x : v) show(x); }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
int main() {
  torch::manual_seed(0);
  auto a = torch::tensor({1.5, -2.0, 0.0, 3.0, -1.0, 0.25}).reshape({2, 3}).to(torch::kFloat);
  auto b = torch::tensor({0.5, 1.0, 2.0, -3.0, -1.0, 4.0}).reshape({2, 3}).to(torch::kFloat);
  auto i = torch::tensor({12, -18, 0, 7, 0, -48});
  auto j = torch::tensor({8, 24, 5, 0, 0, 36});
  P(torch::logaddexp(a, b)); P(a.logaddexp2(b)); P(torch::logaddexp(a, b.to(torch::kDouble)).dtype());
  P(torch::heaviside(a, torch::tensor({0.5f}))); P(i.heaviside(torch::tensor({7})));
  P(torch::gcd(i, j)); P(i.lcm(j)); P(i.gcd(torch::tensor({6})));
  auto idx = torch::tensor({{0, 2}, {1, 0}});
  P(torch::take_along_dim(a, idx, 1)); P(a.take_along_dim(torch::tensor({5, 0}))); P(a.take_along_dim(a.argsort(int64_t(1)), 1));
  P(a.take_along_dim(torch::tensor({{1, 0, 1}}), 0));
  P(torch::zeros({3, 4}).index_copy(1, torch::tensor({3, 0}), torch::arange(6).reshape({3, 2}).to(torch::kFloat)));
  P(torch::argwhere(a)); P((a > 0).argwhere());
  P(torch::isin(i, j)); P(torch::isin(i, torch::tensor({0.0, 7.5, 12.0}))); P(torch::isin(i, j, false, true)); P(torch::isin(i, 7));
  P(torch::isin(7, j));
  auto lo = torch::tensor({-1.0f, 0.0f, 1.0f}), hi = torch::tensor({2.0f, 0.5f}).reshape({2, 1});
  P(torch::clamp(a, lo, hi)); P(a.clamp(lo)); P(a.clamp({}, hi)); P(a.clamp_min(lo)); P(torch::clamp_max(a, hi));
  P(torch::clamp(torch::tensor({1, 5, 9}), torch::tensor({2}), torch::tensor({7.5f})));
  P(a.where(a > 0, b)); P(a.where(a > 0, torch::zeros({})));
  P(torch::zeros({3, 3}).fill_diagonal_(5)); P(torch::zeros({7, 3}).fill_diagonal_(5, true)); P(torch::zeros({2, 2, 2}).fill_diagonal_(1));
  P(torch::tensor({2.0}).is_nonzero()); P(torch::is_nonzero(torch::tensor(0)));
  P(torch::dist(a, b)); P(a.dist(b, 1)); P(a.dist(b, INFINITY)); P(a.dist(b, 0));
  P(torch::msort(a)); P(a.masked_fill(a > 0, torch::tensor(-7.0)));
  P(torch::inner(a, b)); P(torch::inner(torch::tensor(2.0), b)); P(torch::vdot(a.reshape({-1}), b.reshape({-1})));
  auto z = torch::tensor({INFINITY, -INFINITY, 1.0f, NAN});
  P(z.isposinf()); P(torch::isneginf(z)); P(torch::isreal(z)); P(i.isposinf());
  P(a.hardshrink()); P(a.hardshrink(1.5)); P(torch::arange(24).reshape({2, 3, 4}).sum_to_size({3, 1})); P(a.sum_to_size({1, 3}));
  P(torch::amax(a)); P(torch::amax(a, 1)); P(torch::amin(a, {0, 1}, true)); P(a.amin());
  P(torch::tensor({1, 2}).__lshift__(2)); P(torch::tensor({8, -8}).__rshift__(1)); P(torch::tensor({6, 3}).__and__(torch::tensor({3, 1})));
  P(torch::tensor({true, false}).__or__(true)); P(torch::tensor({6}).__xor__(3));
  auto x = torch::arange(2 * 3 * 2 * 2).reshape({2, 3, 2, 2}).to(torch::kFloat);
  auto cl = x.contiguous(torch::MemoryFormat::ChannelsLast);
  P(cl.strides()); P(cl.is_contiguous()); P(cl.is_contiguous(torch::MemoryFormat::ChannelsLast)); P(cl.suggest_memory_format());
  P(x.suggest_memory_format()); P(torch::equal(cl, x)); P(cl.contiguous().strides());
  P(torch::arange(2 * 3 * 2 * 2 * 2).reshape({2, 3, 2, 2, 2}).contiguous(torch::MemoryFormat::ChannelsLast3d).strides());
  // gradients
  auto ga = a.detach().requires_grad_(), gb = b.detach().requires_grad_();
  torch::logaddexp(ga, gb).sum().backward(); P(ga.grad()); P(gb.grad());
  auto gc = a.detach().requires_grad_(), gl = lo.detach().requires_grad_(), gh = hi.detach().requires_grad_();
  torch::clamp(gc, gl, gh).sum().backward(); P(gc.grad()); P(gl.grad()); P(gh.grad());
  auto gx = torch::zeros({3, 4}, torch::requires_grad()), gs = torch::ones({3, 2}, torch::requires_grad());
  (gx.index_copy(1, torch::tensor({3, 0}), gs) * torch::arange(12).reshape({3, 4})).sum().backward(); P(gx.grad()); P(gs.grad());
  auto gt = a.detach().requires_grad_();
  (gt.take_along_dim(idx, 1) * torch::tensor({1.0f, 2.0f})).sum().backward(); P(gt.grad());
  auto gv = torch::tensor(2.0, torch::requires_grad()), gm = torch::ones({2, 3}, torch::requires_grad());
  (gm.masked_fill(a > 0, gv) * b).sum().backward(); P(gm.grad()); P(gv.grad());
  auto gd = a.detach().requires_grad_();
  torch::dist(gd, b).backward(); P(gd.grad());
  auto gi = a.detach().requires_grad_();
  torch::inner(gi, b).sum().backward(); P(gi.grad());
  auto gcl = x.contiguous(torch::MemoryFormat::ChannelsLast).detach().requires_grad_();
  auto w = torch::arange(4 * 3 * 3 * 3).reshape({4, 3, 3, 3}).to(torch::kFloat) / 50;
  auto y = torch::conv2d(gcl, w, {}, 1, 1);
  P(y); (y * 0.5).sum().backward(); P(gcl.grad());
  // errors: both libraries refuse these (the messages differ in wording)
  auto refuses = [](const char* what, auto f) {
    try { f(); std::cout << what << ": no error\n"; } catch (const std::exception&) { std::cout << what << ": refused\n"; }
  };
  refuses("logaddexp int", [&] { torch::logaddexp(i, j); });
  refuses("heaviside dtypes", [&] { torch::heaviside(a, torch::tensor({1.0})); });
  refuses("gcd float", [&] { torch::gcd(a, b); });
  refuses("take_along_dim dims", [&] { a.take_along_dim(torch::tensor({0}), 1); });
  refuses("take_along_dim int32", [&] { a.take_along_dim(idx.to(torch::kInt), 1); });
  refuses("index_copy bounds", [&] { torch::zeros({3, 4}).index_copy(1, torch::tensor({4}), torch::ones({3, 1})); });
  refuses("index_copy count", [&] { torch::zeros({3, 4}).index_copy(1, torch::tensor({1, 2}), torch::ones({3, 1})); });
  refuses("isin bool", [&] { torch::isin(a, torch::tensor({true})); });
  refuses("clamp none", [&] { a.clamp(c10::optional<torch::Tensor>(), c10::optional<torch::Tensor>()); });
  refuses("fill_diagonal_ 1-D", [&] { torch::zeros({3}).fill_diagonal_(1); });
  refuses("fill_diagonal_ unequal", [&] { torch::zeros({2, 3, 2}).fill_diagonal_(1); });
  refuses("is_nonzero two", [&] { torch::ones({2}).is_nonzero(); });
  refuses("masked_fill 1-D value", [&] { a.masked_fill(a > 0, torch::ones({2})); });
  refuses("inner shapes", [&] { torch::inner(torch::ones({2, 3}), torch::ones({2, 4})); });
  refuses("vdot 2-D", [&] { torch::vdot(a, b); });
  refuses("sum_to_size", [&] { a.sum_to_size({4}); });
  refuses("channels_last 3-D", [&] { torch::ones({2, 3, 4}).contiguous(torch::MemoryFormat::ChannelsLast); });
  return 0;
}
