// Composed ops (src/ops/composite.cpp) and the in-place unary forms, on every device: values
// against hand-computed ones, gradients against central differences, PyTorch's dtype rules and
// every error message.
#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace composite_test {

using V = std::vector<double>;
using Vs = std::vector<Tensor>;

class Composite : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
};

TEST_P(Composite, AddcmulAndAddcdiv) {
  Tensor s = tensor({1.0, 2.0, 3.0}, o()), a = tensor({2.0, 4.0, 6.0}, o()), b = tensor({0.5, 0.25, 2.0}, o());
  EXPECT_EQ(values(s.addcmul(a, b)), (V{2, 3, 15}));
  EXPECT_EQ(values(s.addcmul(a, b, 2)), (V{3, 4, 27}));
  EXPECT_EQ(values(addcmul(s, a, b, -0.5)), (V{0.5, 1.5, -3}));
  EXPECT_EQ(values(s.addcdiv(a, b)), (V{5, 18, 6}));
  EXPECT_EQ(values(addcdiv(s, a, b, 0.5)), (V{3, 10, 4.5}));
  // broadcasting over all three: [2, 1] x [3] x [] -> [2, 3]
  Tensor col = tensor({{1.0}, {10.0}}, o());
  Tensor r = col.addcmul(a, tensor(3.0, o()));
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(values(r), (V{7, 13, 19, 16, 22, 28}));
  // in place, into self; the result must keep self's shape and fit its dtype
  Tensor t = s.clone();
  EXPECT_TRUE(t.addcmul_(a, b, 2).is_same(t));
  EXPECT_EQ(values(t), (V{3, 4, 27}));
  t.addcdiv_(a, b, -1);
  EXPECT_EQ(values(t), (V{-1, -12, 24}));
  EXPECT_THROW_MSG(tensor({1.0}, o()).addcmul_(a, b), Error,
                   "[addcmul_] output with shape [1] doesn't match the broadcast shape [3].");
  // dtypes: PyTorch's promotion over the three tensors
  Tensor i = tensor({1, 2, 3}, o());
  EXPECT_EQ(i.addcmul(i, i).dtype(), kLong);
  EXPECT_EQ(values(i.addcmul(i, i, 2)), (V{3, 10, 21}));
  EXPECT_EQ(i.addcmul(a, i).dtype(), kFloat);
  EXPECT_EQ(values(i.addcdiv(a, i)), (V{3, 4, 5}));
  EXPECT_THROW_MSG(i.addcmul(i, i, 0.5), Error,
                   "[addcmul] for integral input tensors, argument value must not be a floating point number "
                   "(got 0.5).");
  EXPECT_THROW_MSG(s.addcdiv(i, i), Error,
                   "[addcdiv] integer division of tensor1 (int64) by tensor2 (int64) is not supported (PyTorch "
                   "removed it); convert one of them to a floating dtype first (tensor1.to(kFloat)).");
  Tensor li = i.clone();
  EXPECT_THROW_MSG(li.addcmul_(a, b), Error,
                   "[addcmul_] result type Float can't be cast to the desired output type Long.");
  EXPECT_EQ(values(li), (V{1, 2, 3}));  // untouched
}

TEST_P(Composite, Lerp) {
  Tensor s = tensor({0.0, 10.0, -4.0}, o()), e = tensor({1.0, 20.0, 4.0}, o());
  EXPECT_EQ(values(s.lerp(e, 0.25)), (V{0.25, 12.5, -2}));
  EXPECT_EQ(values(s.lerp(e, 0.75)), (V{0.75, 17.5, 2}));  // the end - (end - self)(1 - w) branch
  EXPECT_EQ(values(s.lerp(e, 1.0)), (V{1, 20, 4}));        // exactly the end
  EXPECT_EQ(values(lerp(s, e, 0.0)), (V{0, 10, -4}));      // exactly self
  Tensor w = tensor({0.0, 0.5, 1.0}, o());
  EXPECT_EQ(values(s.lerp(e, w)), (V{0, 15, 4}));
  EXPECT_EQ(values(lerp(s, e, tensor(0.25, o()))), (V{0.25, 12.5, -2}));
  Tensor t = s.clone();
  t.lerp_(e, 0.5);
  EXPECT_EQ(values(t), (V{0.5, 15, 0}));
  t.lerp_(e, w);
  EXPECT_EQ(values(t), (V{0.5, 17.5, 4}));
  EXPECT_THROW_MSG(tensor({1, 2}, o()).lerp(tensor({1, 2}, o()), 0.5), Error,
                   "[lerp] expected a floating-point self, got int64; convert it with .to(kFloat) first.");
  EXPECT_THROW_MSG(s.lerp(e.to(kDouble), 0.5), Error, "[lerp] expected dtype float32 for `end` but got dtype float64.");
  EXPECT_THROW_MSG(s.lerp(e, w.to(kDouble)), Error,
                   "[lerp] expected dtype float32 for `weight` but got dtype float64.");
}

TEST_P(Composite, DotMvOuter) {
  Tensor a = tensor({1.0, 2.0, 3.0}, o()), b = tensor({4.0, -5.0, 6.0}, o());
  Tensor d = a.dot(b);
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.dtype(), kFloat);
  EXPECT_EQ(d.item<double>(), 12.0);
  EXPECT_EQ(dot(tensor({2, 3}, o()).to(kInt), tensor({4, 5}, o()).to(kInt)).dtype(), kInt);  // keeps the dtype
  EXPECT_EQ(dot(tensor({2, 3}, o()), tensor({4, 5}, o())).item<int64_t>(), 23);
  Tensor m = tensor({{1.0, 0.0, 2.0}, {0.0, -1.0, 1.0}}, o());
  EXPECT_EQ(m.mv(a).sizes(), IntArrayRef({2}));
  EXPECT_EQ(values(mv(m, a)), (V{7, 1}));
  EXPECT_EQ(values(m.t().mv(tensor({1.0, 2.0}, o()))), (V{1, -2, 4}));  // a transposed matrix
  Tensor op = a.outer(tensor({1.0, -1.0}, o()));
  EXPECT_EQ(op.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(values(op), (V{1, -1, 2, -2, 3, -3}));
  EXPECT_EQ(values(ger(tensor({2.0}, o()), b)), (V{8, -10, 12}));
  EXPECT_EQ(outer(tensor({1, 2}, o()), tensor({0.5}, o())).dtype(), kFloat);  // promotes as mul
  EXPECT_THROW_MSG(m.dot(a), Error,
                   "[dot] 1D tensors expected, but got 2D and 1D tensors; for matrices use mm() or matmul().");
  EXPECT_THROW_MSG(a.dot(tensor({1.0}, o())), Error,
                   "[dot] the two vectors must have the same number of elements, but got 3 and 1.");
  EXPECT_THROW_MSG(a.dot(b.to(kDouble)), Error,
                   "[dot] expected both vectors to have the same dtype, but found float32 and float64; convert "
                   "one with .to().");
  EXPECT_THROW_MSG(a.mv(a), Error, "[mv] expected a 2-D matrix and a 1-D vector, got 1-D [3] and 1-D [3].");
  EXPECT_THROW_MSG(m.mv(tensor({1.0, 2.0}, o())), Error,
                   "[mv] size mismatch: the matrix [2, 3] has 3 columns but the vector [2] has 2 elements.");
  EXPECT_THROW_MSG(m.outer(a), Error, "[outer] expected two 1-D tensors, got 2-D and 1-D; flatten() them first.");
}

TEST_P(Composite, TrilAndTriu) {
  Tensor x = arange(1, 13, o().dtype(kFloat)).reshape({3, 4});
  EXPECT_EQ(values(x.tril()), (V{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  EXPECT_EQ(values(x.tril(1)), (V{1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}));
  EXPECT_EQ(values(x.tril(-1)), (V{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  EXPECT_EQ(values(x.triu()), (V{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  EXPECT_EQ(values(triu(x, 2)), (V{0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}));
  EXPECT_EQ(values(tril(x, -5)), V(12, 0.0));
  EXPECT_EQ(values(x.triu(-3)), values(x));
  // batched over leading dims, a transposed view, other dtypes kept
  Tensor batch = stack({x, -x});
  EXPECT_EQ(values(batch.tril()[1]), values(-x.tril()));
  EXPECT_EQ(values(x.t().triu()), values(x.tril().t()));
  Tensor bools = ones({2, 2}, o().dtype(kBool));
  EXPECT_EQ(bools.tril().dtype(), kBool);
  EXPECT_EQ(values(bools.tril()), (V{1, 0, 1, 1}));
  EXPECT_EQ(tensor({{1, 2}, {3, 4}}, o()).triu().dtype(), kLong);
  EXPECT_EQ(empty({0, 3}, o()).tril().sizes(), IntArrayRef({0, 3}));
  Tensor y = x.clone();
  EXPECT_TRUE(y.triu_(1).is_same(y));
  EXPECT_EQ(values(y), (V{0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}));
  y.tril_();
  EXPECT_EQ(values(y), V(12, 0.0));
  EXPECT_THROW_MSG(tensor({1.0, 2.0}, o()).tril(), Error,
                   "[tril] input tensor must have at least 2 dimensions, got 1-D (shape [2]).");
  EXPECT_THROW_MSG(tensor(1.0, o()).triu(), Error, "[triu] input tensor must have at least 2 dimensions, got 0-D");
}

TEST_P(Composite, Gradients) {
  const Device d = GetParam();
  gradcheck([](const Vs& x) { return x[0].addcmul(x[1], x[2], 0.7); },
            {sample({2, 3}), sample({3}, 1.), sample({2, 1}, 2.)}, d);
  gradcheck([](const Vs& x) { return x[0].addcdiv(x[1], x[2] * x[2] + 1, -1.5); }, {sample({2, 3}), sample({2, 3}, 1.),
            sample({3}, 2.)}, d);
  gradcheck([](const Vs& x) { return x[0].lerp(x[1], 0.3) + x[0].lerp(x[1], 0.8); }, {sample({4}), sample({4}, 1.)}, d);
  // a weight on both sides of 0.5 (sample's values lie in [-1.3, 1.3]; none at exactly +-0.5)
  gradcheck([](const Vs& x) { return x[0].lerp(x[1], x[2]); }, {sample({6}), sample({6}, 1.), sample({6}, 2.)}, d);
  gradcheck([](const Vs& x) { return x[0].dot(x[1]).reshape({1}); }, {sample({5}), sample({5}, 1.)}, d);
  gradcheck([](const Vs& x) { return x[0].mv(x[1]); }, {sample({3, 4}), sample({4}, 1.)}, d);
  gradcheck([](const Vs& x) { return x[0].outer(x[1]); }, {sample({3}), sample({2}, 1.)}, d);
  gradcheck([](const Vs& x) { return x[0].tril(1) + x[0].triu(-1) * 2; }, {sample({2, 3, 4})}, d);
}

TEST_P(Composite, InPlaceUnaryMatchesOutOfPlace) {
  const Tensor x = tensor({0.25, 1.5, 2.0, 0.75}, o());
  using Op = Tensor (Tensor::*)() const;
  using InPlace = Tensor& (Tensor::*)() const;
  struct Case {
    const char* name;
    Op op;
    InPlace inplace;
  };
  const Case cases[] = {
      {"neg", &Tensor::neg, &Tensor::neg_},
      {"abs", &Tensor::abs, &Tensor::abs_},
      {"exp", &Tensor::exp, &Tensor::exp_},
      {"log", &Tensor::log, &Tensor::log_},
      {"sqrt", &Tensor::sqrt, &Tensor::sqrt_},
      {"rsqrt", &Tensor::rsqrt, &Tensor::rsqrt_},
      {"sin", &Tensor::sin, &Tensor::sin_},
      {"cos", &Tensor::cos, &Tensor::cos_},
      {"square", &Tensor::square, &Tensor::square_},
      {"reciprocal", &Tensor::reciprocal, &Tensor::reciprocal_},
      {"sigmoid", &Tensor::sigmoid, &Tensor::sigmoid_},
      {"tanh", &Tensor::tanh, &Tensor::tanh_},
      {"sign", &Tensor::sign, &Tensor::sign_},
      {"floor", &Tensor::floor, &Tensor::floor_},
      {"ceil", &Tensor::ceil, &Tensor::ceil_},
      {"round", &Tensor::round, &Tensor::round_}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor y = (-x).clone();  // negative values for neg/abs/sign; sqrt/log give NaN on both sides alike
    Tensor want = (y.*c.op)();
    Tensor& got = (y.*c.inplace)();
    EXPECT_TRUE(got.is_same(y));
    EXPECT_TRUE(y.allclose(want, 0, 0, /*equal_nan=*/true)) << y << " vs " << want;
  }
  Tensor p = x.clone();
  p.pow_(2);
  EXPECT_EQ(values(p), (V{0.0625, 2.25, 4, 0.5625}));
  p.pow_(tensor({0.5, 0.5, 0.5, 1.0}, o()));
  EXPECT_EQ(values(p), (V{0.25, 1.5, 2, 0.5625}));
  // an integer tensor keeps the ops that stay integral and refuses the others, unchanged
  Tensor i = tensor({-2, 3}, o());
  i.abs_();
  EXPECT_EQ(values(i), (V{2, 3}));
  EXPECT_EQ(i.dtype(), kLong);
  EXPECT_THROW_MSG(i.sqrt_(), Error, "[sqrt_] result type Float can't be cast to the desired output type Long.");
  EXPECT_THROW_MSG(i.pow_(0.5), Error, "[pow_] result type Float can't be cast to the desired output type Long.");
  EXPECT_EQ(values(i), (V{2, 3}));
  // a leaf that requires grad is refused while grad mode is on, and allowed under NoGradGuard
  Tensor w = x.clone().requires_grad_(true);
  EXPECT_THROW_MSG(w.exp_(), Error,
                   "[exp_] a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_THROW_MSG(w.addcmul_(x, x), Error, "[addcmul_] a leaf Variable that requires grad");
  // an expand()ed view has elements sharing memory: refused before anything is computed
  Tensor e = ones({2}, o()).expand({3, 2});
  EXPECT_THROW_MSG(e.sqrt_(), Error, "[sqrt_] unsupported operation: more than one element of the written-to tensor");
  EXPECT_THROW_MSG(e.lerp_(e, 0.5), Error, "[lerp_] unsupported operation: more than one element");
  {
    NoGradGuard no_grad;
    w.exp_();
  }
  EXPECT_TRUE(w.allclose(x.exp()));
}

TEST_P(Composite, NewFactoriesAndTypeAs) {
  Tensor h = ones({2}, o().dtype(kDouble));
  Tensor z = h.new_zeros({3, 2});
  EXPECT_EQ(z.dtype(), kDouble);
  EXPECT_EQ(z.device(), GetParam());
  EXPECT_EQ(values(z), V(6, 0.0));
  EXPECT_EQ(values(h.new_ones({2})), (V{1, 1}));
  Tensor f = h.new_full({2, 2}, 7);
  EXPECT_EQ(f.dtype(), kDouble);
  EXPECT_EQ(values(f), V(4, 7.0));
  EXPECT_EQ(h.new_empty({4}).sizes(), IntArrayRef({4}));
  Tensor l = h.new_zeros({1}, TensorOptions().dtype(kLong));  // options override, the rest inherited
  EXPECT_EQ(l.dtype(), kLong);
  EXPECT_EQ(l.device(), GetParam());
  EXPECT_EQ(h.new_ones({1}, device(Device("cpu"))).device(), Device("cpu"));
  EXPECT_FALSE(h.requires_grad_(true).new_zeros({1}).requires_grad());
  Tensor i = tensor({1, 2}, o());
  Tensor c = i.type_as(h);
  EXPECT_EQ(c.dtype(), kDouble);
  EXPECT_EQ(c.device(), h.device());
  EXPECT_TRUE(h.type_as(h).is_same(h));  // nothing to change: the same tensor
  if (!GetParam().is_cpu()) {
    Tensor moved = tensor({1.0}).type_as(h);  // type_as takes other's device as well (libtorch)
    EXPECT_EQ(moved.device(), GetParam());
  }
}

TEST_P(Composite, RollMovedimUnflattenRepeatInterleave) {  // expected values from PyTorch 1.13
  Tensor x = arange(1, 7, o().dtype(kFloat)).reshape({2, 3});
  EXPECT_EQ(values(x.roll({1})), (V{6, 1, 2, 3, 4, 5}));
  EXPECT_EQ(x.roll({1}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(values(x.roll({-1}, {1})), (V{2, 3, 1, 5, 6, 4}));
  EXPECT_EQ(values(roll(x, {1, 2}, {0, 1})), (V{5, 6, 4, 2, 3, 1}));
  EXPECT_EQ(values(x.roll({7}, {1})), values(x.roll({1}, {1})));  // shifts wrap
  Tensor same = x.roll({3}, {1});
  EXPECT_FALSE(same.is_same(x));  // a new tensor even when nothing moves
  EXPECT_EQ(values(same), values(x));
  EXPECT_THROW_MSG(x.roll({1, 2}, {0}), Error, "[roll] shifts and dims must align: got 2 shift(s) and 1 dim(s)");
  EXPECT_THROW_MSG(x.roll({1}, {2}), Error, "[roll] dimension out of range");

  Tensor y = zeros({2, 3, 4, 5}, o());
  EXPECT_EQ(y.movedim(1, -1).sizes(), IntArrayRef({2, 4, 5, 3}));
  EXPECT_EQ(movedim(y, {0, 1}, {2, 0}).sizes(), IntArrayRef({3, 4, 2, 5}));
  EXPECT_EQ(y.moveaxis({3, 0}, {0, 3}).sizes(), IntArrayRef({5, 3, 4, 2}));
  EXPECT_EQ(values(x.movedim(0, 1)), values(x.t()));
  EXPECT_THROW_MSG(y.movedim({0, 1}, {2}), Error,
                   "[movedim] source [0, 1] and destination [2] must contain the same number of dims.");
  EXPECT_THROW_MSG(y.movedim({0, -4}, {1, 2}), Error, "[movedim] repeated dim in `source` [0, -4].");
  EXPECT_THROW_MSG(y.movedim({0, 1}, {2, 2}), Error, "[movedim] repeated dim in `destination` [2, 2].");

  EXPECT_EQ(arange(6, o()).unflatten(0, {2, -1}).sizes(), IntArrayRef({2, 3}));
  Tensor u = unflatten(arange(12, o()).reshape({2, 6}), 1, {3, 2});
  EXPECT_EQ(u.sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_EQ(values(u), values(arange(12, o())));
  EXPECT_THROW_MSG(zeros({2, 5}, o()).unflatten(1, {2, 2}), Error,
                   "[unflatten] provided sizes [2, 2] don't multiply up to the size of dim 1 (5) in the input tensor "
                   "[2, 5].");
  EXPECT_THROW_MSG(zeros({6}, o()).unflatten(0, {-1, -1}), Error, "[unflatten] only one dimension can be inferred");
  EXPECT_THROW_MSG(zeros({6}, o()).unflatten(0, {-2, -3}), Error,
                   "[unflatten] sizes must be non-negative or -1 (inferred), got [-2, -3].");

  EXPECT_EQ(values(x.repeat_interleave(2)), (V{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
  EXPECT_EQ(values(x.repeat_interleave(2, 0)), (V{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  Tensor r = repeat_interleave(x, 2, -1);
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 6}));
  EXPECT_EQ(values(r), (V{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
  EXPECT_EQ(x.repeat_interleave(0, 1).sizes(), IntArrayRef({2, 0}));
  EXPECT_THROW_MSG(x.repeat_interleave(-1), Error, "[repeat_interleave] repeats can not be negative, got -1.");
}

TEST_P(Composite, DiagCountNonzeroNanToNum) {  // expected values from PyTorch 1.13
  Tensor v = tensor({1.0, 2.0}, o());
  EXPECT_EQ(values(v.diag()), (V{1, 0, 0, 2}));
  EXPECT_EQ(values(v.diag(1)), (V{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(values(diag(v, -1)), (V{0, 0, 0, 1, 0, 0, 0, 2, 0}));
  Tensor x = arange(1, 7, o().dtype(kFloat)).reshape({2, 3});
  EXPECT_EQ(values(x.diag()), (V{1, 5}));
  EXPECT_EQ(values(x.diag(1)), (V{2, 6}));
  EXPECT_EQ(values(x.diag(-1)), (V{4}));
  EXPECT_EQ(x.diag(3).sizes(), IntArrayRef({0}));
  EXPECT_EQ(x.diag(-2).sizes(), IntArrayRef({0}));
  EXPECT_EQ(values(x.t().diag(1)), (V{4}));  // a transposed view
  EXPECT_THROW_MSG(zeros({2, 2, 2}, o()).diag(), Error,
                   "[diag] expected a 1-D or 2-D tensor, got 3-D (shape [2, 2, 2]).");

  Tensor c = tensor({{0, 1, 2}, {3, 0, 0}}, o());
  EXPECT_EQ(c.count_nonzero().item<int64_t>(), 3);
  EXPECT_EQ(c.count_nonzero().dtype(), kLong);
  EXPECT_EQ(values(count_nonzero(c, 0)), (V{1, 1, 1}));
  EXPECT_EQ(values(c.count_nonzero(IntArrayRef{0, 1})), (V{3}));
  EXPECT_EQ(values(tensor({0.0, -0.0, 0.5}, o()).count_nonzero()), (V{1}));

  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor z = tensor({nan, inf, -inf, 1.5}, o());
  EXPECT_EQ(values(z.nan_to_num()), (V{0, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 1.5}));
  EXPECT_EQ(values(nan_to_num(z, 1., 2., -3.)), (V{1, 2, -3, 1.5}));
  const double dmax = std::numeric_limits<double>::max();
  EXPECT_EQ(values(z.to(kDouble).nan_to_num()), (V{0, dmax, -dmax, 1.5}));
  EXPECT_EQ(values(z.to(kHalf).nan_to_num()), (V{0, 65504, -65504, 1.5}));
  EXPECT_EQ(values(z.to(kBFloat16).nan_to_num()), (V{0, 3.3895313892515355e38, -3.3895313892515355e38, 1.5}));
  Tensor i = tensor({1, 2}, o());
  Tensor ic = i.nan_to_num();
  EXPECT_FALSE(ic.is_same(i));
  EXPECT_EQ(values(ic), (V{1, 2}));
  Tensor zz = z.clone();
  EXPECT_TRUE(zz.nan_to_num_(std::nullopt, 7.0).is_same(zz));
  EXPECT_EQ(values(zz), (V{0, 7, -std::numeric_limits<float>::max(), 1.5}));
}

TEST_P(Composite, ShapeOpGradients) {
  const Device d = GetParam();
  gradcheck([](const Vs& x) { return x[0].roll({1, -2}, {0, 1}) * x[0]; }, {sample({3, 4})}, d);
  gradcheck([](const Vs& x) { return x[0].roll({2}); }, {sample({2, 3})}, d);
  gradcheck([](const Vs& x) { return x[0].movedim({0, 2}, {2, 0}).contiguous(); }, {sample({2, 3, 4})}, d);
  gradcheck([](const Vs& x) { return x[0].unflatten(1, {2, -1}); }, {sample({2, 6})}, d);
  gradcheck([](const Vs& x) { return x[0].repeat_interleave(3, 1); }, {sample({2, 3})}, d);
  gradcheck([](const Vs& x) { return x[0].diag(1) + x[1].diag(-1).sum(); }, {sample({3}), sample({4, 3}, 1.)}, d);
  gradcheck([](const Vs& x) { return x[0].nan_to_num(); }, {sample({5})}, d);
}

LOCUS_INSTANTIATE_DEVICES(Composite);

// Each accelerator against cpu (CI has two OpenCL devices, so this runs there).
TEST(CompositeDevices, MismatchNamesTheArgument) {
  int checked = 0;
  for (const Device& d : test_devices()) {
    if (d.is_cpu()) continue;
    SCOPED_TRACE(d.str());
    Tensor s = ones({2}, device(d)), c = ones({2});
    EXPECT_THROW_MSG(s.addcmul(s, c), DeviceMismatchError, "[addcmul] Expected all tensors to be on the same device");
    EXPECT_THROW_MSG(s.addcdiv(c, s), DeviceMismatchError,
                     "Argument 'tensor1' is on cpu; move it with .to(" + d.str() + ").");
    EXPECT_THROW_MSG(s.lerp(s, c), DeviceMismatchError, "Argument 'weight' is on cpu");
    EXPECT_THROW_MSG(s.dot(c), DeviceMismatchError, "[dot] Expected all tensors");
    EXPECT_THROW_MSG(ones({2, 2}, device(d)).mv(c), DeviceMismatchError, "Argument 'vec' is on cpu");
    EXPECT_THROW_MSG(s.outer(c), DeviceMismatchError, "Argument 'vec2' is on cpu");
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "needs a device besides cpu (CI exposes two OpenCL devices)";
}

}  // namespace composite_test
