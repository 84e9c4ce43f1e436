// scatter_reduce, index_reduce and scatter with reduce (src/ops/index.cpp) on every device:
// values and gradients of every reduction, with and without self, against PyTorch 1.13's (printed
// by /usr/bin/python3 with Debian's torch 1.13), integer dtypes, in-place forms, and every error.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "testing.h"

using namespace locus;

namespace scatter_reduce_test {
using V = std::vector<double>;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  const char* reduce;
  bool include_self;
  V out, grad_self, grad_src;
};
}  // namespace

class ScatterReduce : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
  TensorOptions l() const { return device(GetParam()).dtype(kLong); }
};

TEST_P(ScatterReduce, EveryReductionAndItsGradient) {
  const std::vector<Case> cases = {
      {"sum", true, V{-0.5, 6.0, 3.0, 16.0, 5.0, 13.0, 12.0, 8.0, 0.0, -1.0, 2.0, kNaN}, V{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0}, V{1.0, 2.0, 1.0, 4.0, 4.0, 7.0, 7.0, 7.0, 5.0, 6.0, 10.0, 10.0, 12.0, 12.0, 9.0}},
      {"sum", false, V{-1.5, 4.0, 3.0, 12.0, 0.0, 7.0, 5.0, 8.0, 1.0, -1.0, 2.0, 6.0}, V{0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 11.0, 0.0}, V{1.0, 2.0, 1.0, 4.0, 4.0, 7.0, 7.0, 7.0, 5.0, 6.0, 10.0, 10.0, 12.0, 12.0, 9.0}},
      {"prod", true, V{-1.0, 8.0, 3.0, 108.0, 0.0, 42.0, 28.0, 8.0, -1.0, -0.0, 2.0, kNaN}, V{-1.0, 8.0, 3.0, 108.0, 0.0, 42.0, 28.0, 8.0, 9.0, -120.0, 11.0, kNaN}, V{-2.0, 4.0, 0.5, 144.0, 48.0, 98.0, 98.0, 196.0, 25.0, 36.0, -0.0, 0.0, kNaN, kNaN, -9.0}},
      {"prod", false, V{-1.0, 4.0, 3.0, 27.0, 0.0, 7.0, 4.0, 8.0, 1.0, -12.0, 2.0, 5.0}, V{0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 11.0, 0.0}, V{-2.0, 2.0, 0.5, 36.0, 12.0, 14.0, 14.0, 28.0, 5.0, 6.0, -40.0, 30.0, 12.0, 60.0, 9.0}},
      {"mean", true, V{-0.1666666716337204, 3.0, 3.0, 5.333333492279053, 2.5, 6.5, 3.0, 8.0, 0.0, -0.3333333432674408, 2.0, kNaN}, V{0.3333333432674408, 1.0, 3.0, 1.3333333730697632, 2.5, 3.0, 1.75, 8.0, 4.5, 3.3333332538604736, 11.0, 4.0}, V{0.3333333432674408, 1.0, 0.3333333432674408, 1.3333333730697632, 1.3333333730697632, 1.75, 1.75, 1.75, 2.5, 3.0, 3.3333332538604736, 3.3333332538604736, 4.0, 4.0, 4.5}},
      {"mean", false, V{-0.75, 4.0, 3.0, 6.0, 0.0, 7.0, 1.6666666269302368, 8.0, 1.0, -0.5, 2.0, 3.0}, V{0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 11.0, 0.0}, V{0.5, 2.0, 0.5, 2.0, 2.0, 2.3333332538604736, 2.3333332538604736, 2.3333332538604736, 5.0, 6.0, 5.0, 5.0, 6.0, 6.0, 9.0}},
      {"amax", true, V{1.0, 4.0, 3.0, 9.0, 5.0, 7.0, 7.0, 8.0, 1.0, 3.0, 2.0, kNaN}, V{1.0, 0.0, 3.0, 0.0, 5.0, 0.0, 7.0, 8.0, 0.0, 0.0, 11.0, kNaN}, V{0.0, 2.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 6.0, 10.0, 0.0, kNaN, kNaN, 9.0}},
      {"amax", false, V{0.5, 4.0, 3.0, 9.0, 0.0, 7.0, 2.0, 8.0, 1.0, 3.0, 2.0, 5.0}, V{0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 11.0, 0.0}, V{1.0, 2.0, 0.0, 0.0, 4.0, 3.5, 3.5, 0.0, 5.0, 6.0, 10.0, 0.0, 12.0, 0.0, 9.0}},
      {"amin", true, V{-2.0, 2.0, 3.0, 3.0, 0.0, 6.0, 1.0, 8.0, -1.0, -4.0, 2.0, kNaN}, V{0.0, 2.0, 3.0, 0.0, 0.0, 6.0, 0.0, 8.0, 9.0, 0.0, 11.0, kNaN}, V{0.0, 0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 7.0, 5.0, 0.0, 0.0, 10.0, kNaN, kNaN, 0.0}},
      {"amin", false, V{-2.0, 4.0, 3.0, 3.0, 0.0, 7.0, 1.0, 8.0, 1.0, -4.0, 2.0, 1.0}, V{0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 11.0, 0.0}, V{0.0, 2.0, 1.0, 4.0, 0.0, 0.0, 0.0, 7.0, 5.0, 6.0, 0.0, 10.0, 0.0, 12.0, 9.0}},
  };
  Tensor self0 = tensor({1., 2., 3., 4., 5., 6., 7., 8., -1., 0., 2., kNaN}, o()).view({3, 4});
  Tensor src0 = tensor({0.5, 4., -2., 3., 9., 2., 2., 1., 0., 7., 3., -4., 5., 1., 1.}, o()).view({3, 5});
  Tensor idx = tensor({0, 1, 0, 3, 3, 2, 2, 2, 0, 1, 1, 1, 3, 3, 0}, l()).view({3, 5});
  Tensor w = arange(1, 13, o()).view({3, 4});
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.reduce) + (c.include_self ? ", include_self" : ", without self"));
    Tensor s = self0.clone().requires_grad_(), x = src0.clone().requires_grad_();
    Tensor out = s.scatter_reduce(1, idx, x, c.reduce, c.include_self);
    EXPECT_STREQ(out.grad_fn()->name().c_str(), "ScatterReduceBackward0");
    EXPECT_EQ(out.device(), GetParam());
    EXPECT_VALUES(out, {3, 4}, c.out);
    (out * w).sum().backward();
    EXPECT_VALUES(s.grad(), {3, 4}, c.grad_self);
    EXPECT_VALUES(x.grad(), {3, 5}, c.grad_src);
    // the free function and the in-place form agree
    NoGradGuard no_grad;
    EXPECT_VALUES(scatter_reduce(self0, 1, idx, src0, c.reduce, c.include_self), {3, 4}, c.out);
    Tensor inplace = self0.clone();
    EXPECT_EQ(&inplace.scatter_reduce_(1, idx, src0, c.reduce, c.include_self), &inplace);
    EXPECT_VALUES(inplace, {3, 4}, c.out);
  }
}

TEST_P(ScatterReduce, IntegersSmallIndexAndZeroDim) {
  Tensor self = tensor({10, 20, 30}, l()), src = tensor({3, 4, 7, -5}, l()), idx = tensor({0, 0, 2, 2}, l());
  const std::vector<std::pair<const char*, std::pair<V, V>>> want = {
      {"sum", {V{17, 20, 32}, V{7, 20, 2}}},      {"prod", {V{120, 20, -1050}, V{12, 20, -35}}},
      {"mean", {V{5, 20, 10}, V{3, 20, 1}}},      {"amax", {V{10, 20, 30}, V{4, 20, 7}}},
      {"amin", {V{3, 20, -5}, V{3, 20, -5}}},
  };
  for (const auto& [reduce, outs] : want) {
    SCOPED_TRACE(reduce);
    Tensor with = self.scatter_reduce(0, idx, src, reduce);
    EXPECT_EQ(with.scalar_type(), kLong);
    EXPECT_VALUES(with, {3}, outs.first);
    EXPECT_VALUES(self.scatter_reduce(0, idx, src, reduce, false), {3}, outs.second);
  }
  // integer mean rounds down (floor), as PyTorch's
  EXPECT_VALUES(tensor({1, 1}, l()).scatter_reduce(0, tensor({0, 0}, l()), tensor({-8, 0}, l()), "mean"), {2}, V{-3, 1});
  // an index smaller than src uses src's leading part; the rest of src gets no gradient
  Tensor x = tensor({7., 9.}, o()).requires_grad_();
  Tensor r = tensor({1., 2.}, o()).scatter_reduce(0, tensor({0}, l()), x, "prod");
  EXPECT_VALUES(r, {2}, V{7, 2});
  r.sum().backward();
  EXPECT_VALUES(x.grad(), {2}, V{1, 0});
  // 0-dim self, index and src; float16 through float32; bool amax
  EXPECT_VALUES(tensor(5., o()).scatter_reduce(0, tensor(int64_t{0}, l()), tensor(7., o()), "amax"), {}, V{7});
  Tensor h = tensor({1., 2.}, o().dtype(kHalf)).scatter_reduce(0, tensor({0, 0}, l()), tensor({7., 9.}, o().dtype(kHalf)), "prod");
  EXPECT_EQ(h.scalar_type(), kHalf);
  EXPECT_VALUES(h, {2}, V{63, 2});
  Tensor b = tensor({true, false}, o()).scatter_reduce(0, tensor({0, 1}, l()), tensor({false, true}, o()), "amax");
  EXPECT_VALUES(b, {2}, V{1, 1});
}

TEST_P(ScatterReduce, IndexReduce) {
  Tensor src0 = tensor({1., 2., 3., 4., 5., 6., 7., 8.}, o()).view({4, 2});
  Tensor idx = tensor({0, 2, 0, 2}, l());
  Tensor w = arange(1, 7, o()).view({3, 2});
  struct IR {
    const char* reduce;
    bool include_self;
    V out, gs, gx;
  };
  const std::vector<IR> cases = {
      {"prod", true, V{10, 24, 2, 2, 42, 64}, V{5, 24, 3, 4, 105, 192}, V{10, 24, 70, 96, 2, 8, 30, 48}},
      {"prod", false, V{5, 12, 2, 2, 21, 32}, V{0, 0, 3, 4, 0, 0}, V{5, 12, 35, 48, 1, 4, 15, 24}},
      {"mean", true, V{2.6666667461395264, 3.3333332538604736, 2, 2, 4, 4.666666507720947},
       V{0.3333333432674408, 0.6666666865348816, 3, 4, 1.6666666269302368, 2},
       V{0.3333333432674408, 0.6666666865348816, 1.6666666269302368, 2, 0.3333333432674408, 0.6666666865348816,
         1.6666666269302368, 2}},
      {"mean", false, V{3, 4, 2, 2, 5, 6}, V{0, 0, 3, 4, 0, 0}, V{0.5, 1, 2.5, 3, 0.5, 1, 2.5, 3}},
      {"amax", true, V{5, 6, 2, 2, 7, 8}, V{0, 0, 3, 4, 0, 0}, V{0, 0, 0, 0, 1, 2, 5, 6}},
      {"amax", false, V{5, 6, 2, 2, 7, 8}, V{0, 0, 3, 4, 0, 0}, V{0, 0, 0, 0, 1, 2, 5, 6}},
      {"amin", true, V{1, 2, 2, 2, 2, 2}, V{0, 1, 3, 4, 5, 6}, V{1, 1, 0, 0, 0, 0, 0, 0}},
      {"amin", false, V{1, 2, 2, 2, 3, 4}, V{0, 0, 3, 4, 0, 0}, V{1, 1, 5, 6, 0, 0, 0, 0}},
  };
  for (const IR& c : cases) {
    SCOPED_TRACE(std::string(c.reduce) + (c.include_self ? ", include_self" : ", without self"));
    Tensor s = full({3, 2}, 2.0, o()).requires_grad_(), x = src0.clone().requires_grad_();
    Tensor out = s.index_reduce(0, idx, x, c.reduce, c.include_self);
    EXPECT_STREQ(out.grad_fn()->name().c_str(), "IndexReduceBackward0");
    EXPECT_VALUES(out, {3, 2}, c.out);
    (out * w).sum().backward();
    EXPECT_VALUES(s.grad(), {3, 2}, c.gs);
    EXPECT_VALUES(x.grad(), {4, 2}, c.gx);
    NoGradGuard no_grad;
    Tensor inplace = full({3, 2}, 2.0, o());
    inplace.index_reduce_(0, idx, src0, c.reduce, c.include_self);
    EXPECT_VALUES(inplace, {3, 2}, c.out);
    EXPECT_VALUES(index_reduce(full({3, 2}, 2.0, o()), 0, idx, src0, c.reduce, c.include_self), {3, 2}, c.out);
  }
}

TEST_P(ScatterReduce, ScatterWithReduce) {
  Tensor idx = tensor({0, 0, 2}, l());
  EXPECT_VALUES(zeros({3}, o()).scatter(0, idx, tensor({1., 2., 3.}, o()), "add"), {3}, V{3, 0, 3});
  EXPECT_VALUES(ones({3}, o()).scatter(0, idx, tensor({2., 5., 3.}, o()), "multiply"), {3}, V{10, 1, 3});
  EXPECT_VALUES(ones({3}, o()).scatter(0, idx, 4.0, "multiply"), {3}, V{16, 1, 4});
  EXPECT_VALUES(scatter(ones({3}, o()), 0, idx, 4.0, "add"), {3}, V{9, 1, 5});
  EXPECT_VALUES(scatter(zeros({3}, o()), 0, idx, tensor({1., 2., 3.}, o()), "add"), {3}, V{3, 0, 3});
  Tensor t = ones({3}, o());
  t.scatter_(0, idx, tensor({2., 5., 3.}, o()), "multiply");
  EXPECT_VALUES(t, {3}, V{10, 1, 3});
  t.scatter_(0, idx, 1.0, "add");
  EXPECT_VALUES(t, {3}, V{12, 1, 4});
}

TEST_P(ScatterReduce, Errors) {
  Tensor z = zeros({3}, o()), one = ones({1}, o()), i0 = tensor({0}, l());
  EXPECT_THROW_MSG(z.scatter_reduce(0, i0, one, "max"), Error,
                   "[scatter_reduce] reduce argument must be either sum, prod, mean, amax or amin, got 'max' (PyTorch "
                   "spells it amax).");
  EXPECT_THROW_MSG(z.scatter_reduce(0, i0, one.to(kDouble), "sum"), Error,
                   "[scatter_reduce] expected self.dtype to be equal to src.dtype, got float32 and float64; convert src "
                   "with .to(self.scalar_type()).");
  EXPECT_THROW_MSG(z.scatter_reduce(0, i0.to(kInt), one, "sum"), Error,
                   "[scatter_reduce] expected dtype int64 for index, got int32; convert it with .to(locus::kLong).");
  EXPECT_THROW_MSG(z.scatter_reduce(0, tensor({5}, l()), one, "amax"), Error,
                   "[scatter_reduce] index 5 is out of bounds for the scattered dimension with size 3");
  EXPECT_THROW_MSG(z.scatter_reduce(0, tensor({0, 1, 1}, l()), tensor({7., 9.}, o()), "prod"), Error,
                   "[scatter_reduce] expected index [3] to be no larger than src [2]");
  EXPECT_THROW_MSG(z.scatter_reduce(0, i0, Tensor(), "sum"), Error,
                   "[scatter_reduce] self, index and src must be defined tensors.");
  EXPECT_THROW_MSG(z.index_reduce(0, i0, one, "sum"), Error,
                   "[index_reduce] expected reduce to be one of prod, mean, amax or amin but got 'sum'; index_add() sums.");
  EXPECT_THROW_MSG(zeros({3, 2}, o()).index_reduce(0, tensor({{0}}, l()), ones({1, 2}, o()), "prod"), Error,
                   "[index_reduce] index must be a vector (0-D or 1-D), got shape [1, 1].");
  EXPECT_THROW_MSG(zeros({3, 2}, o()).index_reduce(0, tensor({0, 1}, l()), ones({1, 2}, o()), "prod"), Error,
                   "[index_reduce] source [1, 2] must have self's shape [3, 2] but with 2 (the number of indices) along dim 0.");
  EXPECT_THROW_MSG(z.index_reduce(0, i0, one.to(kDouble), "amin"), Error,
                   "[index_reduce] expected self.dtype to be equal to source.dtype, got float32 and float64");
  EXPECT_THROW_MSG(z.scatter(0, i0, one, "mean"), Error,
                   "[scatter] reduce argument must be either add or multiply, got 'mean'; scatter_reduce() also takes "
                   "sum, prod, mean, amax and amin.");
  // a leaf that requires grad cannot be written in place; nothing was written
  Tensor leaf = zeros({3}, o()).requires_grad_();
  EXPECT_THROW(leaf.scatter_reduce_(0, i0, one, "sum"), Error);
  EXPECT_VALUES(leaf.detach(), {3}, V{0, 0, 0});
}

TEST_P(ScatterReduce, MixedDevicesRefused) {
  const std::vector<Device> all = all_devices();
  Device other = GetParam();
  for (const Device& d : all)
    if (d != GetParam()) other = d;
  if (other == GetParam()) GTEST_SKIP() << "one device only: no second device to stage a DeviceMismatchError";
  EXPECT_THROW_MSG(zeros({3}, o()).scatter_reduce(0, tensor({0}, l()), ones({1}, device(other)), "amax"),
                   DeviceMismatchError, "[scatter_reduce]");
  EXPECT_THROW_MSG(zeros({3}, o()).index_reduce(0, tensor({0}, device(other).dtype(kLong)), ones({1}, o()), "amax"),
                   DeviceMismatchError, "[index_reduce]");
}

LOCUS_INSTANTIATE_DEVICES(ScatterReduce);

}  // namespace scatter_reduce_test
