#include <cmath>
#include <limits>

#include "testing.h"

using namespace locus;

namespace reduce_test {

using V = std::vector<double>;

class Reduce : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
};

TEST_P(Reduce, SumMeanMaxMinWithDimAndKeepdim) {
  Tensor a = tensor({{1.0, 5.0, 3.0}, {4.0, 2.0, 6.0}}, o());
  EXPECT_EQ(a.sum().item<double>(), 21);
  EXPECT_EQ(a.sum().dim(), 0);
  EXPECT_EQ(values(a.sum({0})), (V{5, 7, 9}));
  EXPECT_EQ(values(a.sum({1})), (V{9, 12}));
  EXPECT_EQ(a.sum({1}, true).sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(values(a.sum({-1, 0})), (V{21}));
  EXPECT_EQ(a.mean().item<double>(), 3.5);
  EXPECT_EQ(values(a.mean({0})), (V{2.5, 3.5, 4.5}));
  EXPECT_EQ(a.max().item<double>(), 6);
  EXPECT_EQ(a.min().item<double>(), 1);
  auto [mx, imx] = a.max(1);
  EXPECT_EQ(values(mx), (V{5, 6}));
  EXPECT_EQ(values(imx), (V{1, 2}));
  EXPECT_EQ(imx.dtype(), kLong);
  auto [mn, imn] = a.min(0, true);
  EXPECT_EQ(mn.sizes(), IntArrayRef({1, 3}));
  EXPECT_EQ(values(imn), (V{0, 1, 0}));
  EXPECT_EQ(values(a.argmax(1)), (V{1, 2}));
  EXPECT_EQ(values(a.argmin(0)), (V{0, 1, 0}));
  EXPECT_EQ(a.argmax().item<int64_t>(), 5);
  EXPECT_EQ(values(a.t().sum({1})), (V{5, 7, 9}));  // non-contiguous input
}

TEST_P(Reduce, MiddleAndStridedLayoutsMatchNaiveLoops) {
  // The layouts that convolutions produce: a bias gradient sums [N, C, L] over N and L (runs of
  // L contiguous elements), max pooling reduces a middle dim; checked against plain loops.
  manual_seed(8);
  const int64_t n = 3, c = 4, l = 37;
  Tensor x = randn({n, c, l});
  std::vector<double> xv = values(x);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return xv[static_cast<size_t>((i * c + j) * l + k)]; };
  Tensor xd = x.to(GetParam());
  std::vector<double> sum02 = values(xd.sum({0, 2})), max1 = values(std::get<0>(xd.max(1)));
  std::vector<double> arg1 = values(std::get<1>(xd.max(1))), min02 = values(xd.amin({0, 2}));
  for (int64_t j = 0; j < c; ++j) {
    double s = 0, m = std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < l; ++k) s += at(i, j, k), m = std::min(m, at(i, j, k));
    EXPECT_NEAR(sum02[static_cast<size_t>(j)], s, 1e-4) << j;
    EXPECT_EQ(min02[static_cast<size_t>(j)], m) << j;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < l; ++k) {
      int64_t best = 0;
      for (int64_t j = 1; j < c; ++j)
        if (at(i, j, k) > at(i, best, k)) best = j;
      EXPECT_EQ(max1[static_cast<size_t>(i * l + k)], at(i, best, k));
      EXPECT_EQ(arg1[static_cast<size_t>(i * l + k)], static_cast<double>(best));
    }
}

TEST_P(Reduce, DtypesOfResults) {
  Tensor i = tensor({1, 2, 3}, TensorOptions().device(GetParam()).dtype(kInt));
  EXPECT_EQ(i.sum().dtype(), kLong);
  EXPECT_EQ(i.sum().item<int64_t>(), 6);
  EXPECT_EQ(tensor({true, true, false}, o()).sum().item<int64_t>(), 2);
  EXPECT_THROW_MSG(i.mean(), Error, "Input dtype must be either a floating point or complex dtype. Got: Int");
  EXPECT_EQ(i.mean(kFloat).item<double>(), 2.0);
  Tensor h = ones({1000}, TensorOptions().device(GetParam()).dtype(kHalf));
  EXPECT_EQ(h.sum().item<double>(), 1000);  // accumulates in float
  EXPECT_EQ(tensor({true, false}, o()).any().item<bool>(), true);
  EXPECT_EQ(tensor({true, false}, o()).all().item<bool>(), false);
}

TEST_P(Reduce, EdgeCases) {
  Tensor e = zeros({0, 3}, o());
  EXPECT_EQ(values(e.sum({0})), (V{0, 0, 0}));
  EXPECT_EQ(e.sum().item<double>(), 0);
  EXPECT_THROW_MSG(e.max(), Error, "cannot reduce over a dimension of size 0");
  EXPECT_THROW_MSG(e.argmax(0), Error, "cannot reduce over a dimension of size 0");
  Tensor n = tensor({1.0, std::nan(""), 3.0}, o());
  EXPECT_TRUE(std::isnan(n.max().item<double>()));
  EXPECT_EQ(n.argmax().item<int64_t>(), 1);
  EXPECT_EQ(tensor({2.0, 7.0, 7.0}, o()).argmax().item<int64_t>(), 1);  // first occurrence
  EXPECT_EQ(full({}, 4.0, o()).sum().item<double>(), 4);
  EXPECT_THROW_MSG(ones({2, 2}, o()).sum({0, 0}), Error, "appears multiple times");
  // a large sum stays accurate
  EXPECT_NEAR(ones({1 << 20}, o()).sum().item<double>(), 1 << 20, 0);
}

TEST_P(Reduce, SoftmaxAndLogSoftmax) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {1000.0, 1000.0, 1000.0}}, o());
  V s = values(a.softmax(1));
  double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(s[0], std::exp(1.0) / z, 1e-6);
  EXPECT_NEAR(s[2], std::exp(3.0) / z, 1e-6);
  EXPECT_NEAR(s[4], 1.0 / 3.0, 1e-6);  // stable for large inputs
  V l = values(a.log_softmax(1));
  EXPECT_NEAR(l[0], 1.0 - std::log(z), 1e-5);
  EXPECT_NEAR(l[5], -std::log(3.0), 1e-5);
  V c = values(a.softmax(0));
  EXPECT_NEAR(c[0], 0.0, 1e-12);
  EXPECT_NEAR(c[3], 1.0, 1e-6);
  EXPECT_THROW_MSG(tensor({1, 2}, o()).softmax(0), Error, "expected a floating point input");
}

TEST_P(Reduce, FloatSoftmaxRowsMatchDoubleMasksAndNaN) {
  // float rows may take a vectorised exp: within float precision of float64 softmax, a -inf
  // (masked) entry exactly 0, and a NaN row NaN.
  manual_seed(9);
  Tensor x = randn({7, 300}) * 8;
  Tensor ref = x.to(kDouble).softmax(1), lref = x.to(kDouble).log_softmax(1);
  V got = values(x.to(GetParam()).softmax(1)), want = values(ref);
  V lgot = values(x.to(GetParam()).log_softmax(1)), lwant = values(lref);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 2e-6 * std::max(want[i], 1e-3)) << i;
    EXPECT_NEAR(lgot[i], lwant[i], 1e-5 * std::max(1.0, std::abs(lwant[i]))) << i;
  }
  const double inf = std::numeric_limits<double>::infinity();
  Tensor m = tensor({{0.5, -inf, 1.5, -inf}, {0.0, std::nan(""), 1.0, 2.0}}, o());
  V ms = values(m.softmax(1));
  EXPECT_EQ(ms[1], 0.0);
  EXPECT_EQ(ms[3], 0.0);
  EXPECT_NEAR(ms[0] + ms[2], 1.0, 1e-6);
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(ms[static_cast<size_t>(i)])) << i;
  // rows long enough for the vector paths (8 and 16 lanes) and a tail: masks and a NaN inside them
  std::vector<float> wv(2 * 37, 0.25f);
  for (size_t i : {3, 20, 36}) wv[i] = -std::numeric_limits<float>::infinity();
  wv[37 + 9] = std::nanf("");
  V ws = values(from_blob(wv.data(), {2, 37}, TensorOptions().dtype(kFloat)).clone().to(GetParam()).softmax(1));
  for (size_t i : {3, 20, 36}) EXPECT_EQ(ws[i], 0.0) << i;
  EXPECT_NEAR(ws[0], 1.0 / 34, 1e-7);
  for (size_t i = 37; i < 74; ++i) EXPECT_TRUE(std::isnan(ws[i])) << i;
}

// Few outputs over a long extent (a full reduction of a million elements): OpenCL splits each
// output's extent over many work-groups, then combines the parts in order. Exact values (small
// integers in float), first-occurrence ties and NaN across part boundaries, every op.
TEST_P(Reduce, LongReductionsWithFewOutputs) {
  const int64_t n = (int64_t{1} << 20) + 12345;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>((i * 7) % 13 - 6);
  v[777777] = v[900000] = 100;  // the maximum twice: the first one is argmax
  v[123456] = v[1000001] = -100;
  Tensor cpu = from_blob(v.data(), {n}, TensorOptions().dtype(kFloat)).clone();
  const double sum = cpu.to(kDouble).sum().item<double>();  // every partial sum is exact, in any order
  Tensor x = cpu.to(GetParam());
  EXPECT_EQ(x.sum().item<double>(), sum);
  EXPECT_NEAR(x.mean().item<double>(), sum / static_cast<double>(n), 1e-6);
  EXPECT_EQ(x.max().item<double>(), 100);
  EXPECT_EQ(x.min().item<double>(), -100);
  EXPECT_EQ(x.argmax().item<int64_t>(), 777777);
  EXPECT_EQ(x.argmin().item<int64_t>(), 123456);
  // two outputs over halves, and a transposed (strided) input
  const int64_t half = int64_t{1} << 19;
  Tensor y = x.narrow(0, 0, 2 * half).view({2, half});
  Tensor yc = cpu.narrow(0, 0, 2 * half).view({2, half}).to(kDouble);
  EXPECT_EQ(values(y.sum(1)), values(yc.sum(1)));
  // row 0's maximum is 6, first at 11 ((11 * 7) % 13 == 12); row 1 holds both 100s
  EXPECT_EQ(values(y.argmax(1)), (V{11, static_cast<double>(777777 - half)}));
  EXPECT_EQ(y.view({1024, 1024}).t().sum().item<double>(), yc.sum().item<double>());
  // NaN wins max and argmax (its first occurrence)
  Tensor z = x.clone();
  z.narrow(0, 500000, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  z.narrow(0, 600000, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(std::isnan(z.max().item<double>()));
  EXPECT_EQ(z.argmax().item<int64_t>(), 500000);
  // integers, products, any / all
  EXPECT_EQ(arange(n, o()).sum().item<int64_t>(), n * (n - 1) / 2);
  Tensor p = ones({n}, o());
  p.narrow(0, 3, 1).fill_(2);
  p.narrow(0, n - 2, 1).fill_(-4);
  EXPECT_EQ(p.prod().item<double>(), -8);
  Tensor b = ones({n}, o().dtype(kBool));
  EXPECT_TRUE(b.all().item<bool>());
  b.narrow(0, n - 1, 1).fill_(false);
  EXPECT_FALSE(b.all().item<bool>());
  EXPECT_TRUE(b.any().item<bool>());
  EXPECT_FALSE(zeros({n}, o().dtype(kBool)).any().item<bool>());
}

TEST_P(Reduce, VarAndStd) {
  // expected values from PyTorch 1.13
  Tensor x = tensor({{1.0, 2.0, 3.0, 4.0}, {2.0, 4.0, 6.0, 9.0}}, o());
  EXPECT_NEAR(x.var().item<double>(), 6.6964287757873535, 1e-5);
  EXPECT_NEAR(x.var(false).item<double>(), 5.859375, 1e-5);
  EXPECT_NEAR(locus::std(x).item<double>(), 2.5877459049224854, 1e-5);
  auto near = [](const Tensor& t, V want) {
    V got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  };
  near(x.var({1}), {1.6666666269302368, 8.916666984558105});
  near(x.var(1), {1.6666666269302368, 8.916666984558105});  // a dim, not unbiased
  near(x.std({0}, false, true), {0.5, 1.0, 1.5, 2.5});
  EXPECT_EQ(x.std({0}, false, true).sizes(), IntArrayRef({1, 4}));
  near(var(x, {1}, Scalar(0), false), {1.25, 6.6875});
  Tensor w = x.clone().requires_grad_();
  w.var().backward();
  near(w.grad(), {-0.8214285969734192, -0.535714328289032, -0.25, 0.0357142873108387, -0.535714328289032,
                  0.0357142873108387, 0.6071428656578064, 1.4642857313156128});
  Tensor u = x.clone().requires_grad_();
  u.std({1}).sum().backward();
  near(u.grad(), {-0.3872983753681183, -0.12909945845603943, 0.12909945845603943, 0.3872983753681183,
                  -0.3627946376800537, -0.13953639566898346, 0.0837218388915062, 0.4186092019081116});
  EXPECT_THROW_MSG(ones({3}, o().dtype(kLong)).var(), Error,
                   "[var] expected a floating point input, got int64; convert with .to(locus::kFloat).");
}

TEST_P(Reduce, NormLogsumexpIsnan) {
  // expected values from PyTorch 1.13
  Tensor x = tensor({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}, o());
  EXPECT_NEAR(x.norm().item<double>(), 9.539392471313477, 1e-5);
  EXPECT_NEAR(norm(x, 1).item<double>(), 21.0, 1e-5);
  EXPECT_NEAR(x.norm(3).item<double>(), 7.611662864685059, 1e-5);
  V n = values(x.norm(2, {1}));
  EXPECT_NEAR(n[0], 3.7416574954986572, 1e-5);
  EXPECT_NEAR(n[1], 8.774964332580566, 1e-5);
  V l = values(logsumexp(x, {1}));
  EXPECT_NEAR(l[0], 3.132845163345337, 1e-5);
  EXPECT_NEAR(l[1], 5.000140190124512, 1e-5);
  EXPECT_EQ(x.logsumexp({1}, true).sizes(), IntArrayRef({2, 1}));
  double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(values(tensor({{-inf, -inf}}, o()).logsumexp({1})), (V{-inf}));
  EXPECT_EQ(values(isnan(tensor({1.0, nan, inf}, o()))), (V{0, 1, 0}));
  EXPECT_EQ(values(ones({2}, o().dtype(kLong)).isnan()), (V{0, 0}));
  const Tensor special = tensor({1.0, nan, inf, -inf, -2.5, 0.0}, o());
  EXPECT_EQ(values(isinf(special)), (V{0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(values(isfinite(special)), (V{1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(special.isfinite().scalar_type(), kBool);
  EXPECT_EQ(values(special.to(kBFloat16).isinf()), (V{0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(values(ones({2}, o().dtype(kLong)).isinf()), (V{0, 0}));
  EXPECT_EQ(values(ones({2}, o().dtype(kLong)).isfinite()), (V{1, 1}));
  EXPECT_EQ(values(max(x, zeros_like(x))), (V{1, 0, 3, 0, 5, 0}));
  EXPECT_TRUE(all(x != 0).item<bool>());
  EXPECT_FALSE(any(x == 0).item<bool>());
}

TEST_P(Reduce, CumsumIsRunningSums) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  EXPECT_EQ(values(a.cumsum(1)), (V{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(a.cumsum(-1)), (V{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(cumsum(a, 0)), (V{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(values(a.t().cumsum(1)), (V{1, 5, 2, 7, 3, 9}));  // non-contiguous input
  EXPECT_EQ(a.cumsum(1).sizes(), a.sizes());
  EXPECT_EQ(a.cumsum(1).device(), GetParam());
  // integers and bools sum to int64 (as PyTorch); dtype picks the result's
  Tensor i = tensor({3, 1, 4, 1, 5}, o().dtype(kInt));
  EXPECT_EQ(i.cumsum(0).dtype(), kLong);
  EXPECT_EQ(values(i.cumsum(0)), (V{3, 4, 8, 9, 14}));
  Tensor b = tensor({1.0, 0.0, 1.0}, o()) > 0.5;
  EXPECT_EQ(b.cumsum(0).dtype(), kLong);
  EXPECT_EQ(values(b.cumsum(0)), (V{1, 1, 2}));
  EXPECT_EQ(i.cumsum(0, kDouble).dtype(), kDouble);
  EXPECT_EQ(a.cumsum(0, kDouble).dtype(), kDouble);
  // lengths that are not powers of two, along each dim of a 3-D tensor, against a loop
  Tensor r = randn({3, 37, 5}, o().dtype(kDouble));
  std::vector<double> rv = values(r);
  for (int64_t d = 0; d < 3; ++d) {
    std::vector<double> got = values(r.cumsum(d)), want(rv.size());
    const int64_t sizes[3] = {3, 37, 5}, strides[3] = {185, 5, 1};
    for (size_t e = 0; e < rv.size(); ++e) {
      const int64_t at = static_cast<int64_t>(e), k = at / strides[d] % sizes[d];
      double s = 0;
      for (int64_t j = 0; j <= k; ++j) s += rv[static_cast<size_t>(at - (k - j) * strides[d])];
      want[e] = s;
    }
    for (size_t e = 0; e < rv.size(); ++e) EXPECT_NEAR(got[e], want[e], 1e-12) << "dim " << d << " element " << e;
  }
  // float: every prefix of 1..1000 is exact (PyTorch accumulates in double on the CPU)
  Tensor n = arange(1, 1001, o());
  std::vector<double> sums = values(n.cumsum(0));
  for (size_t k = 0; k < sums.size(); ++k) ASSERT_EQ(sums[k], double(k + 1) * double(k + 2) / 2) << k;
  // edge cases: 0-d, empty, a length of one (a new tensor, not the input)
  EXPECT_EQ(tensor(5.0, o()).cumsum(0).item<double>(), 5);
  EXPECT_EQ(tensor(5.0, o()).cumsum(-1).dim(), 0);
  EXPECT_EQ(zeros({2, 0}, o()).cumsum(1).sizes(), IntArrayRef({2, 0}));
  Tensor one = tensor({{7.0}}, o());
  Tensor c = one.cumsum(1);
  EXPECT_FALSE(c.is_same(one));
  c.fill_(1);
  EXPECT_EQ(one.item<double>(), 7);
  EXPECT_THROW_MSG(a.cumsum(2), Error, "[cumsum] dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST_P(Reduce, CumprodIsRunningProducts) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  EXPECT_EQ(values(a.cumprod(1)), (V{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(values(cumprod(a, 0)), (V{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(values(a.t().cumprod(-1)), (V{1, 4, 2, 10, 3, 18}));  // non-contiguous input
  EXPECT_EQ(a.cumprod(1).device(), GetParam());
  Tensor i = tensor({3, 1, 4, 1, 5}, o().dtype(kInt));  // integers multiply in int64, as PyTorch
  EXPECT_EQ(i.cumprod(0).dtype(), kLong);
  EXPECT_EQ(values(i.cumprod(0)), (V{3, 3, 12, 12, 60}));
  EXPECT_EQ(i.cumprod(0, kDouble).dtype(), kDouble);
  // a length that is not a power of two, against a loop
  Tensor r = (randn({4, 37}, o().dtype(kDouble)) * 0.2 + 1);
  std::vector<double> rv = values(r), got = values(r.cumprod(1));
  for (size_t row = 0; row < 4; ++row) {
    double p = 1;
    for (size_t k = 0; k < 37; ++k) {
      p *= rv[row * 37 + k];
      EXPECT_NEAR(got[row * 37 + k], p, 1e-12 * std::abs(p));
    }
  }
  EXPECT_EQ(tensor(5.0, o()).cumprod(0).item<double>(), 5);
  EXPECT_EQ(zeros({2, 0}, o()).cumprod(1).sizes(), IntArrayRef({2, 0}));
  EXPECT_THROW_MSG(a.cumprod(2), Error, "[cumprod] dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST_P(Reduce, CumprodGradientWithZeros) {
  // PyTorch 1.13's values: zeros first, in the middle, twice, and none
  Tensor x = tensor({{2.0, 0.0, 3.0, 0.0, 5.0}, {0.0, 1.5, -2.0, 4.0, 0.5}}, o().dtype(kDouble)).requires_grad_();
  Tensor w = tensor({{1.0, 2.0, 3.0, 4.0, 5.0}, {-1.0, 0.5, 2.0, -3.0, 1.0}}, o().dtype(kDouble));
  Tensor y = x.cumprod(1);
  EXPECT_EQ(y.grad_fn()->name(), "CumprodBackward0");
  EXPECT_EQ(values(y), (V{2, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  Tensor g = autograd::grad({(y * w).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(values(g), (V{1, 22, 0, 0, 0, 23.75, 0, 0, 0, 0}));
  // and again: the backward is made of ops
  Tensor h = autograd::grad({(g * g).sum()}, {x})[0];
  EXPECT_EQ(values(h), (V{484, 22, 264, 7656, 0, 0, 783.75, -570, 356.25, -570}));
  Tensor n = tensor({1.5, -0.5, 2.0, 0.25}, o().dtype(kDouble)).requires_grad_();
  (n.cumprod(0) * tensor({1.0, 2.0, 3.0, 4.0}, o().dtype(kDouble))).sum().backward();
  EXPECT_EQ(values(n.grad()), (V{-4, 15, -3, -6}));
}

TEST_P(Reduce, CumsumGradient) {
  // d/dx_j of sum_i w_i * cumsum(x)_i = sum_{i >= j} w_i
  Tensor x = tensor({{1.0, 2.0, 3.0, 4.0}, {5.0, 6.0, 7.0, 8.0}}, o().dtype(kDouble)).requires_grad_();
  Tensor w = tensor({{1.0, 10.0, 100.0, 1000.0}, {2.0, 20.0, 200.0, 2000.0}}, o().dtype(kDouble));
  Tensor y = x.cumsum(1);
  EXPECT_EQ(y.grad_fn()->name(), "CumsumBackward0");
  (y * w).sum().backward();
  EXPECT_EQ(values(x.grad()), (V{1111, 1110, 1100, 1000, 2222, 2220, 2200, 2000}));
  // into another dtype: the gradient comes back in the input's
  Tensor f = tensor({1.0, 2.0, 3.0}, o()).requires_grad_();
  f.cumsum(0, kDouble).sum().backward();
  EXPECT_EQ(f.grad().dtype(), kFloat);
  EXPECT_EQ(values(f.grad()), (V{3, 2, 1}));
}

LOCUS_INSTANTIATE_DEVICES(Reduce);

}  // namespace reduce_test
