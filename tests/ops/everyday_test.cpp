// libtorch's everyday ops of src/ops/everyday.cpp (and logaddexp in composite_more.cpp) on every
// device: values, dtypes and gradients against PyTorch 1.13's (the figures below were printed by
// /usr/bin/python3 with Debian's torch 1.13), and every error message.
#include <cmath>
#include <limits>
#include <sstream>

#include "testing.h"

using namespace locus;

namespace everyday_test {
using V = std::vector<double>;

namespace {

const double inf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class Everyday : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
  TensorOptions l() const { return device(GetParam()).dtype(kLong); }
};

TEST_P(Everyday, LogAddExp) {
  Tensor a = tensor({1.5, -2.0, 0.0, 3.0, inf, -1.0}, o()).view({2, 3});
  Tensor b = tensor({0.5, 1.0, 2.0, -3.0, inf, -1.0}, o()).view({2, 3});
  EXPECT_VALUES(logaddexp(a, b), {2, 3}, V{1.81326162815094, 1.0485873222351074, 2.1269280910491943, 3.0024757385253906, inf, -0.3068528175354004});
  EXPECT_VALUES(a.logaddexp2(b), {2, 3}, V{2.0849623680114746, 1.1699249744415283, 2.321928024291992, 3.0223677158355713, inf, 0.0});
  Tensor x = a.narrow(1, 0, 1).detach().requires_grad_(), y = b.narrow(1, 0, 1).detach().requires_grad_();
  logaddexp(x, y).sum().backward();
  EXPECT_VALUES(x.grad(), {2, 1}, V{0.7310585975646973, 0.9975274205207825});
  EXPECT_VALUES(y.grad(), {2, 1}, V{0.2689414322376251, 0.0024726230185478926});
  x.mutable_grad() = Tensor();
  y.mutable_grad() = Tensor();
  logaddexp2(x, y).sum().backward();
  EXPECT_VALUES(x.grad(), {2, 1}, V{0.6666666865348816, 0.9846153855323792});
  EXPECT_VALUES(y.grad(), {2, 1}, V{0.3333333432674408, 0.015384615398943424});
  // float and int64 promote to float; float and double to double
  EXPECT_EQ(logaddexp(tensor({1.0f}, o()), tensor({int64_t(2)}, l())).scalar_type(), kFloat);
  EXPECT_EQ(logaddexp(tensor({1.0f}, o()), tensor({2.0}, o().dtype(kDouble))).scalar_type(), kDouble);
  EXPECT_THROW_MSG(logaddexp(tensor({int64_t(1)}, l()), tensor({int64_t(2)}, l())), Error,
                   "\"logaddexp\" not implemented for 'Long'");
}

TEST_P(Everyday, HeavisideGcdLcm) {
  EXPECT_VALUES(heaviside(tensor({-1.5f, 0.0f, 2.0f}, o()), tensor({0.5f}, o())), {3}, V{0, 0.5, 1});
  Tensor hi = tensor({int64_t(-2), 0, 3}, l());
  EXPECT_VALUES(hi.heaviside(tensor({int64_t(7)}, l())), {3}, V{0, 7, 1});
  EXPECT_EQ(hi.heaviside(tensor({int64_t(7)}, l())).scalar_type(), kLong);
  Tensor h = tensor({-1.0f, 0.0f}, o());
  h.heaviside_(tensor({0.25f}, o()));
  EXPECT_VALUES(h, {2}, V{0, 0.25});
  EXPECT_THROW_MSG(heaviside(tensor({1.0f}, o()), tensor({1.0}, o().dtype(kDouble))), Error,
                   "[heaviside] is not yet implemented for tensors with different dtypes (self Float, values Double)");

  Tensor g1 = tensor({int64_t(12), -18, 0, 7, 0, -48}, l()), g2 = tensor({int64_t(8), 24, 5, 0, 0, 36}, l());
  EXPECT_VALUES(gcd(g1, g2), {6}, V{4, 6, 5, 7, 0, 12});
  EXPECT_VALUES(g1.lcm(g2), {6}, V{24, 72, 0, 0, 0, 144});
  EXPECT_EQ(gcd(g1, g2).scalar_type(), kLong);
  // broadcasting, int32, and the in-place forms
  Tensor i32 = tensor({int32_t(9), 15}, o().dtype(kInt));
  EXPECT_VALUES(i32.gcd(tensor({int32_t(6)}, o().dtype(kInt))), {2}, V{3, 3});
  EXPECT_EQ(i32.gcd(tensor({int32_t(6)}, o().dtype(kInt))).scalar_type(), kInt);
  Tensor m = tensor({int64_t(4), 6}, l());
  m.lcm_(tensor({int64_t(6)}, l()));
  EXPECT_VALUES(m, {2}, V{12, 6});
  m.gcd_(tensor({int64_t(8)}, l()));
  EXPECT_VALUES(m, {2}, V{4, 2});
  EXPECT_THROW_MSG(gcd(tensor({1.0f}, o()), tensor({2.0f}, o())), Error, "\"gcd\" not implemented for 'Float'");
  EXPECT_THROW_MSG(lcm(tensor({int64_t(1)}, l()), tensor({2.5f}, o())), Error, "\"lcm\" not implemented for 'Float'");
}

TEST_P(Everyday, TakeAlongDimAndArgwhere) {
  Tensor t = tensor({10.f, 30.f, 20.f, 60.f, 40.f, 50.f}, o()).view({2, 3});
  EXPECT_VALUES(take_along_dim(t, tensor({int64_t(0), 2, 1, 0}, l()).view({2, 2}), 1), {2, 2}, V{10, 20, 40, 60});
  EXPECT_VALUES(t.take_along_dim(tensor({int64_t(5), 0}, l())), {2}, V{50, 10});
  // the other dims broadcast
  EXPECT_VALUES(t.take_along_dim(tensor({int64_t(1), 0}, l()).view({2, 1}), 1), {2, 1}, V{30, 60});
  EXPECT_VALUES(t.take_along_dim(tensor({int64_t(1), 0, 1}, l()).view({1, 3}), 0), {1, 3}, V{60, 30, 50});
  // argsort's indices pick the sorted values, and the gradient goes back to where they came from
  Tensor x = t.detach().requires_grad_();
  Tensor picked = x.take_along_dim(x.argsort(1), 1);
  EXPECT_VALUES(picked, {2, 3}, V{10, 20, 30, 40, 50, 60});
  (picked * tensor({1.f, 2.f, 3.f}, o())).sum().backward();
  EXPECT_VALUES(x.grad(), {2, 3}, V{1, 3, 2, 3, 1, 2});
  EXPECT_THROW_MSG(t.take_along_dim(tensor({int64_t(0)}, l()), 1), Error,
                   "[take_along_dim] input and indices should have the same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices");
  EXPECT_THROW_MSG(t.take_along_dim(tensor({int32_t(0)}, o().dtype(kInt)).view({1, 1}), 1), Error,
                   "[take_along_dim] dtype of indices should be Long but got Int");
  EXPECT_THROW_MSG(t.take_along_dim(tensor({int64_t(3)}, l()).view({1, 1}), 1), Error, "out of bounds");

  Tensor nz = tensor({int64_t(0), 1, 2, 0}, l()).view({2, 2});
  EXPECT_VALUES(argwhere(nz), {2, 2}, V{0, 1, 1, 0});
  EXPECT_EQ(nz.argwhere().scalar_type(), kLong);
  EXPECT_EQ(scalar_tensor(3, o()).argwhere().sizes(), (std::vector<int64_t>{1, 0}));
}

TEST_P(Everyday, IndexCopy) {
  Tensor x = zeros({3, 4}, o());
  Tensor src = tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, o()).view({3, 2});
  Tensor idx = tensor({int64_t(3), 0}, l());
  EXPECT_VALUES(x.index_copy(1, idx, src), {3, 4}, V{2, 0, 0, 1, 4, 0, 0, 3, 6, 0, 0, 5});
  EXPECT_VALUES(x, {3, 4}, V(12, 0.0));  // out of place
  x.index_copy_(1, idx, src);
  EXPECT_VALUES(x, {3, 4}, V{2, 0, 0, 1, 4, 0, 0, 3, 6, 0, 0, 5});
  EXPECT_VALUES(index_copy(zeros({3}, o()), 0, tensor({int64_t(1)}, l()), tensor({7.f}, o())), {3}, V{0, 7, 0});
  // gradients: self's where nothing was copied, source's from the places it went
  Tensor xs = zeros({3, 4}, o()).requires_grad_(), s = ones({3, 2}, o()).requires_grad_();
  (xs.index_copy(1, idx, s) * arange(12, o()).view({3, 4})).sum().backward();
  EXPECT_VALUES(xs.grad(), {3, 4}, V{0, 1, 2, 0, 0, 5, 6, 0, 0, 9, 10, 0});
  EXPECT_VALUES(s.grad(), {3, 2}, V{3, 0, 7, 4, 11, 8});
  EXPECT_THROW_MSG(x.index_copy(1, idx, ones({3, 3}, o())), Error,
                   "[index_copy] number of indices (2) should be equal to source.size(dim) (3)");
  EXPECT_THROW_MSG(x.index_copy(1, idx.view({1, 2}), ones({3, 2}, o())), Error,
                   "[index_copy] index should have dimension 1 or 0 (got 2)");
  EXPECT_THROW_MSG(x.index_copy(1, tensor({int64_t(4), 0}, l()), ones({3, 2}, o())), Error,
                   "[index_copy] index 4 is out of bounds for dimension 1 with size 4");
  EXPECT_THROW_MSG(x.index_copy(1, tensor({int64_t(-1)}, l()), ones({3, 1}, o())), Error,
                   "[index_copy] index -1 is out of bounds for dimension 1 with size 4");
  EXPECT_THROW_MSG(x.index_copy(1, idx.to(kInt), ones({3, 2}, o())), Error,
                   "[index_copy] expected a long tensor for index, but got Int");
  EXPECT_THROW_MSG(x.index_copy(1, idx, ones({3, 2}, o().dtype(kDouble))), Error,
                   "[index_copy] self and source expected to have the same dtype, but got (self) Float and (source) Double");
  EXPECT_THROW_MSG(x.index_copy(1, idx, ones({2, 2}, o())), Error, "must have the same slice shapes");
  EXPECT_VALUES(x, {3, 4}, V{2, 0, 0, 1, 4, 0, 0, 3, 6, 0, 0, 5});  // untouched by the refusals
}

TEST_P(Everyday, Isin) {
  Tensor e = tensor({int64_t(1), 2, 3, 4}, l()).view({2, 2});
  EXPECT_VALUES(isin(e, tensor({int64_t(2), 3, 9}, l())), {2, 2}, V{0, 1, 1, 0});
  EXPECT_EQ(isin(e, tensor({int64_t(2)}, l())).scalar_type(), kBool);
  EXPECT_VALUES(isin(tensor({1.0f, float(kNaN), 2.5f}, o()), tensor({2.5f, float(kNaN)}, o())), {3}, V{0, 0, 1});
  EXPECT_VALUES(isin(tensor({int64_t(1), 2, 3}, l()), tensor({2.0f, 3.5f}, o())), {3}, V{0, 1, 0});
  EXPECT_VALUES(isin(tensor({int64_t(1), 2, 3}, l()), tensor({int64_t(2)}, l()), false, true), {3}, V{1, 0, 1});
  EXPECT_VALUES(isin(tensor({int64_t(1), 2}, l()), 2), {2}, V{0, 1});
  EXPECT_VALUES(isin(2, tensor({int64_t(1), 2}, l())), {}, V{1});
  EXPECT_VALUES(isin(tensor({int64_t(1), 2}, l()), empty({0}, l())), {2}, V{0, 0});
  EXPECT_THROW_MSG(isin(tensor({1.0f}, o()), tensor({true}, o().dtype(kBool))), Error,
                   "[isin] unsupported input type encountered for isin(): Bool");
}

TEST_P(Everyday, ClampWithTensorBounds) {
  Tensor c = tensor({-3.f, 0.5f, 4.f, float(kNaN), 2.f, -1.f}, o()).view({2, 3});
  Tensor lo = tensor({-1.f, 0.f, 1.f}, o()), hi = tensor({2.f, 0.5f}, o()).view({2, 1});
  EXPECT_VALUES(clamp(c, lo, hi), {2, 3}, V{-1, 0.5, 2, kNaN, 0.5, 0.5});
  EXPECT_VALUES(c.clamp(lo), {2, 3}, V{-1, 0.5, 4, kNaN, 2, 1});
  EXPECT_VALUES(c.clamp(std::nullopt, hi), {2, 3}, V{-3, 0.5, 2, kNaN, 0.5, -1});
  EXPECT_VALUES(c.clamp_min(lo), {2, 3}, V{-1, 0.5, 4, kNaN, 2, 1});
  EXPECT_VALUES(clamp_max(c, hi), {2, 3}, V{-3, 0.5, 2, kNaN, 0.5, -1});
  // the scalar forms still resolve as before
  EXPECT_VALUES(c.clamp(0, 1), {2, 3}, V{0, 0.5, 1, kNaN, 1, 0});
  EXPECT_VALUES(c.clamp_min(0), {2, 3}, V{0, 0.5, 4, kNaN, 2, 0});
  Tensor cx = c.detach().requires_grad_(), l2 = lo.detach().requires_grad_(), h2 = hi.detach().requires_grad_();
  clamp(cx, l2, h2).sum().backward();
  EXPECT_VALUES(cx.grad(), {2, 3}, V{0, 1, 0, 0, 0, 0});
  EXPECT_VALUES(l2.grad(), {3}, V{1, 0, 0});
  EXPECT_VALUES(h2.grad(), {2, 1}, V{1, 2});
  // an integer tensor with a float bound is float (PyTorch's result dtype)
  Tensor ci = clamp(tensor({int64_t(1), 5, 9}, l()), tensor({int64_t(2)}, l()), tensor({7.5f}, o()));
  EXPECT_EQ(ci.scalar_type(), kFloat);
  EXPECT_VALUES(ci, {3}, V{2, 5, 7.5});
  Tensor in = tensor({-2.f, 3.f}, o());
  in.clamp_(tensor({0.f}, o()), tensor({1.f}, o()));
  EXPECT_VALUES(in, {2}, V{0, 1});
  in.clamp_max_(tensor({0.5f}, o()));
  EXPECT_VALUES(in, {2}, V{0, 0.5});
  in.clamp_min_(0.25);
  EXPECT_VALUES(in, {2}, V{0.25, 0.5});
  EXPECT_THROW_MSG(c.clamp(std::optional<Tensor>(), std::optional<Tensor>()), Error,
                   "[clamp] at least one of 'min' or 'max' must not be None");
}

TEST_P(Everyday, WhereFillDiagonalIsNonzero) {
  Tensor w = tensor({1.f, 2.f, 3.f}, o()).where(tensor({true, false, true}, o().dtype(kBool)), scalar_tensor(0, o()));
  EXPECT_VALUES(w, {3}, V{1, 0, 3});
  EXPECT_VALUES(tensor({1.f, 2.f}, o()).where(tensor({false, true}, o().dtype(kBool)), 9), {2}, V{9, 2});

  EXPECT_VALUES(zeros({3, 3}, o()).fill_diagonal_(5), {3, 3}, V{5, 0, 0, 0, 5, 0, 0, 0, 5});
  EXPECT_VALUES(zeros({7, 3}, o()).fill_diagonal_(5, true), {7, 3},
                V{5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5});
  EXPECT_VALUES(zeros({7, 3}, o()).fill_diagonal_(5), {7, 3},
                V{5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_VALUES(zeros({2, 4}, o()).fill_diagonal_(1), {2, 4}, V{1, 0, 0, 0, 0, 1, 0, 0});
  EXPECT_VALUES(zeros({2, 2, 2}, o()).fill_diagonal_(1), {2, 2, 2}, V{1, 0, 0, 0, 0, 0, 0, 1});
  Tensor big = zeros({4, 4}, o());
  big.t().fill_diagonal_(2);  // a transposed view: the same diagonal, written through the view
  EXPECT_VALUES(big.diagonal(), {4}, V{2, 2, 2, 2});
  EXPECT_THROW_MSG(zeros({2, 3, 2}, o()).fill_diagonal_(1), Error, "[fill_diagonal_] all dimensions of input must be of equal length");
  EXPECT_THROW_MSG(zeros({3}, o()).fill_diagonal_(1), Error, "[fill_diagonal_] dimensions must larger than 1");

  EXPECT_TRUE(tensor({2.f}, o()).is_nonzero());
  EXPECT_FALSE(is_nonzero(scalar_tensor(0, o())));
  EXPECT_THROW_MSG(empty({0}, o()).is_nonzero(), Error, "Boolean value of Tensor with no values is ambiguous");
  EXPECT_THROW_MSG(ones({2}, o()).is_nonzero(), Error, "Boolean value of Tensor with more than one value is ambiguous");
}

TEST_P(Everyday, DistMsortMaskedFillInnerVdot) {
  EXPECT_VALUES(dist(tensor({1.5f, 3.f}, o()), tensor({0.5f, -3.f}, o())), {}, V{6.082762718200684});
  EXPECT_VALUES(tensor({1.f, 2.f}, o()).dist(tensor({4.f, 6.f}, o()), 1), {}, V{7});
  EXPECT_VALUES(tensor({1.f, 2.f}, o()).dist(tensor({4.f, 6.f}, o()), inf), {}, V{4});
  EXPECT_VALUES(tensor({1.f, 2.f}, o()).dist(tensor({4.f, 2.f}, o()), 0), {}, V{1});

  EXPECT_VALUES(msort(tensor({3.f, 1.f, 1.f, 2.f, 2.f, 0.f}, o()).view({3, 2})), {3, 2}, V{1, 0, 2, 1, 3, 2});

  Tensor m = tensor({true, false, false, true}, o().dtype(kBool)).view({2, 2});
  Tensor base = tensor({1.f, 2.f, 3.f, 4.f}, o()).view({2, 2});
  EXPECT_VALUES(base.masked_fill(m, scalar_tensor(-7.0, o())), {2, 2}, V{-7, 2, 3, -7});
  EXPECT_VALUES(masked_fill(base, m, scalar_tensor(int64_t(5), l())), {2, 2}, V{5, 2, 3, 5});  // cast to self's dtype
  Tensor val = scalar_tensor(2.0, o()).requires_grad_(), xx = ones({2, 2}, o()).requires_grad_();
  (xx.masked_fill(m, val) * base).sum().backward();
  EXPECT_VALUES(xx.grad(), {2, 2}, V{0, 2, 3, 0});
  EXPECT_VALUES(val.grad(), {}, V{5});
  Tensor mf = base.clone();
  mf.masked_fill_(m, scalar_tensor(0.0, o()));
  EXPECT_VALUES(mf, {2, 2}, V{0, 2, 3, 0});
  EXPECT_THROW_MSG(base.masked_fill(m, tensor({1.f, 2.f}, o())), Error,
                   "[masked_fill] only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)");

  Tensor p = tensor({1.f, 2.f, 3.f, 4.f}, o()).view({2, 2}), q = tensor({1.f, 0.f, 0.f, 1.f, 1.f, 1.f}, o()).view({3, 2});
  EXPECT_VALUES(inner(p, q), {2, 3}, V{1, 2, 3, 3, 4, 7});
  EXPECT_VALUES(scalar_tensor(2.0, o()).inner(tensor({1.f, 3.f}, o())), {2}, V{2, 6});
  EXPECT_THROW_MSG(inner(ones({2, 3}, o()), ones({2, 4}, o())), Error,
                   "[inner] the last dimension must match on both input tensors but got shapes [2, 3] and [2, 4]");

  EXPECT_VALUES(vdot(tensor({1.f, 2.f}, o()), tensor({3.f, 4.f}, o())), {}, V{11});
  EXPECT_THROW_MSG(vdot(ones({2, 2}, o()), ones({2}, o())), Error, "[vdot] 1D tensors expected, but got 2D and 1D tensors");
  EXPECT_THROW_MSG(ones({2}, o()).vdot(ones({3}, o())), Error,
                   "[vdot] inconsistent tensor size, expected tensor [2] and src [3] to have the same number of elements");
  EXPECT_THROW_MSG(ones({2}, o()).vdot(ones({2}, o().dtype(kDouble))), Error,
                   "[vdot] expected both vectors to have same dtype, but found Float and Double");
}

TEST_P(Everyday, PredicatesShrinkSumToSizeAmax) {
  Tensor z = tensor({inf, -inf, 1.0, kNaN}, o().dtype(kFloat));
  EXPECT_VALUES(z.isposinf(), {4}, V{1, 0, 0, 0});
  EXPECT_VALUES(isneginf(z), {4}, V{0, 1, 0, 0});
  EXPECT_VALUES(isreal(z), {4}, V{1, 1, 1, 1});
  EXPECT_VALUES(tensor({int64_t(1), 2}, l()).isposinf(), {2}, V{0, 0});
  EXPECT_EQ(z.isneginf().scalar_type(), kBool);

  EXPECT_VALUES(tensor({-1.f, 0.3f, 0.6f}, o()).hardshrink(), {3}, V{-1, 0, 0.6000000238418579});
  EXPECT_VALUES(tensor({-1.f, 0.3f, 0.6f}, o()).hardshrink(0.8), {3}, V{-1, 0, 0});

  EXPECT_VALUES(arange(24, o()).view({2, 3, 4}).sum_to_size({3, 1}), {3, 1}, V{60, 92, 124});
  EXPECT_VALUES(arange(6, o()).view({2, 3}).sum_to_size({1, 3}), {1, 3}, V{3, 5, 7});
  EXPECT_VALUES(arange(6, o()).view({2, 3}).sum_to_size({2, 3}), {2, 3}, V{0, 1, 2, 3, 4, 5});
  EXPECT_THROW_MSG(ones({2, 4}, o()).sum_to_size({3}), Error, "[sum_to_size] size [3] is not expandable to size [2, 4]");

  Tensor am = tensor({1.f, 5.f, 7.f, 2.f}, o()).view({2, 2});
  EXPECT_VALUES(amax(am), {}, V{7});
  EXPECT_VALUES(amax(am, 1), {2}, V{5, 7});
  EXPECT_VALUES(amin(am, {0, 1}, true), {1, 1}, V{1});
  EXPECT_VALUES(am.amin(), {}, V{1});

  // libtorch's operator spellings of the bitwise ops
  EXPECT_VALUES(tensor({int64_t(1), 2}, l()).__lshift__(2), {2}, V{4, 8});
  EXPECT_VALUES(tensor({int64_t(8), -8}, l()).__rshift__(1), {2}, V{4, -4});
  EXPECT_VALUES(tensor({int64_t(6), 3}, l()).__and__(tensor({int64_t(3), 1}, l())), {2}, V{2, 1});
  EXPECT_VALUES(tensor({true, false}, o().dtype(kBool)).__or__(true), {2}, V{1, 1});
  EXPECT_VALUES(tensor({int64_t(6)}, l()).__xor__(3), {1}, V{5});
  Tensor acc = tensor({int64_t(12)}, l());
  acc.__iand__(10);
  acc.__ilshift__(1);
  EXPECT_VALUES(acc, {1}, V{16});
}

TEST_P(Everyday, AddmmInPlace) {
  Tensor c = tensor({1.f, 2.f, 3.f, 4.f}, o()).view({2, 2});
  Tensor m1 = tensor({1.f, 0.f, 2.f, 1.f}, o()).view({2, 2}), m2 = tensor({1.f, 1.f, 0.f, 3.f}, o()).view({2, 2});
  Tensor& r = c.addmm_(m1, m2, 0.5, 2);  // 0.5 c + 2 m1 m2
  EXPECT_TRUE(r.is_same(c));
  EXPECT_VALUES(c, {2, 2}, V{2.5, 3, 5.5, 12});
  Tensor leaf = ones({2, 2}, o()).requires_grad_();
  EXPECT_THROW_MSG(leaf.addmm_(m1, m2), Error, "addmm_");
  EXPECT_VALUES(tensor({1.f, 2.f}, o()).dist(tensor({4.f, 6.f}, o()), -inf), {}, V{3});
}

TEST_P(Everyday, ChannelsLast) {
  Tensor x = arange(2 * 3 * 4 * 5, o().dtype(kFloat)).view({2, 3, 4, 5});
  EXPECT_TRUE(x.is_contiguous(MemoryFormat::Contiguous));
  EXPECT_FALSE(x.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(x.suggest_memory_format(), MemoryFormat::Contiguous);
  Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.sizes(), x.sizes());
  EXPECT_EQ(cl.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_TRUE(cl.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_FALSE(cl.is_contiguous());
  EXPECT_EQ(cl.suggest_memory_format(), MemoryFormat::ChannelsLast);
  EXPECT_TRUE(cl.equal(x));
  EXPECT_TRUE(cl.contiguous(MemoryFormat::ChannelsLast).is_same(cl));  // already so: the same tensor
  EXPECT_TRUE(cl.contiguous().equal(x));
  EXPECT_TRUE(cl.contiguous().is_contiguous());
  // ops take it as any strided tensor: a convolution and its gradient match the NCHW ones
  Tensor w = randn({4, 3, 3, 3}, o());
  Tensor a = x.detach().requires_grad_(), b = cl.detach().requires_grad_();
  Tensor ya = conv2d(a, w, {}, 1, 1), yb = conv2d(b, w, {}, 1, 1);
  EXPECT_TRUE(allclose(ya, yb, 1e-4, 1e-4));
  ya.sum().backward();
  yb.sum().backward();
  EXPECT_TRUE(allclose(a.grad(), b.grad(), 1e-4, 1e-4));
  Tensor v = arange(2 * 3 * 2 * 2 * 2, o()).view({2, 3, 2, 2, 2});
  Tensor cl3 = v.contiguous(MemoryFormat::ChannelsLast3d);
  EXPECT_TRUE(cl3.is_contiguous(MemoryFormat::ChannelsLast3d));
  EXPECT_EQ(cl3.suggest_memory_format(), MemoryFormat::ChannelsLast3d);
  EXPECT_TRUE(cl3.equal(v));
  EXPECT_FALSE(v.is_contiguous(MemoryFormat::ChannelsLast));  // needs 4 dims
  EXPECT_THROW_MSG(v.contiguous(MemoryFormat::ChannelsLast), Error,
                   "[contiguous] required rank 4 tensor to use channels_last format, got 5 dims");
  EXPECT_THROW_MSG(x.contiguous(MemoryFormat::ChannelsLast3d), Error,
                   "[contiguous] required rank 5 tensor to use channels_last_3d format, got 4 dims");
  EXPECT_THROW_MSG(x.contiguous(MemoryFormat::Preserve), Error,
                   "preserve memory format is unsupported by the contiguous operator");
  std::ostringstream os;
  os << MemoryFormat::ChannelsLast << " " << MemoryFormat::Contiguous;
  EXPECT_EQ(os.str(), "ChannelsLast Contiguous");
  EXPECT_FALSE(x.is_meta() || x.is_quantized() || x.is_mkldnn());
}

TEST_P(Everyday, MixedDevicesRefused) {
  const Device d = GetParam();
  if (d.is_cpu()) {
    // every op above takes its operands on one device; cpu against itself cannot mismatch
    EXPECT_VALUES(logaddexp(zeros({1}), zeros({1})), {1}, V{0.6931471805599453});
    return;
  }
  Tensor s = ones({2}, o()), c = ones({2});
  EXPECT_THROW_MSG(logaddexp(s, c), DeviceMismatchError, "Argument 'other' is on cpu");
  EXPECT_THROW_MSG(s.take_along_dim(zeros({2}, TensorOptions().dtype(kLong)), 0), DeviceMismatchError,
                   "Argument 'indices' is on cpu");
  EXPECT_THROW_MSG(s.clamp(c, std::nullopt), DeviceMismatchError, "Argument 'min' is on cpu");
  EXPECT_THROW_MSG(s.index_copy(0, zeros({1}, TensorOptions().dtype(kLong)), ones({1}, o())), DeviceMismatchError,
                   "Argument 'index' is on cpu");
  EXPECT_THROW_MSG(isin(s, c), DeviceMismatchError, "Argument 'test_elements' is on cpu");
  EXPECT_THROW_MSG(s.inner(c), DeviceMismatchError, "Argument 'other' is on cpu");
}

LOCUS_INSTANTIATE_DEVICES(Everyday);

}  // namespace everyday_test
