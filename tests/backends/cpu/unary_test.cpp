// CPU backend: every unary op on hand-computed values.
#include <cmath>

#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace unary_test {

using backend::UnaryOp;
using backend::UnaryParams;

std::vector<double> run(UnaryOp op, ScalarType dt, const std::vector<double>& in, UnaryParams p = {}) {
  int64_t n = static_cast<int64_t>(in.size());
  HostTensor x = make(dt, {n}, in), y = make(dt, {n});
  be().unary(0, nullptr, op, y, x, p);
  return y.values();
}

const double kNaN = NAN, kInf = INFINITY;

TEST(CpuUnary, FloatOps) {
  std::vector<double> x = {-2.0, -0.5, 0.0, 0.5, 3.0};
  auto map = [&](double (*f)(double)) {
    std::vector<double> r;
    for (double v : x) r.push_back(f(v));
    return r;
  };
  expect_near(run(UnaryOp::Neg, kFloat, x), {2, 0.5, 0, -0.5, -3});
  expect_near(run(UnaryOp::Abs, kFloat, x), {2, 0.5, 0, 0.5, 3});
  expect_near(run(UnaryOp::Exp, kFloat, x), map([](double v) { return std::exp(v); }));
  expect_near(run(UnaryOp::Sin, kFloat, x), map([](double v) { return std::sin(v); }));
  expect_near(run(UnaryOp::Cos, kFloat, x), map([](double v) { return std::cos(v); }));
  expect_near(run(UnaryOp::Tanh, kFloat, x), map([](double v) { return std::tanh(v); }));
  expect_near(run(UnaryOp::Expm1, kFloat, x), map([](double v) { return std::expm1(v); }));
  expect_near(run(UnaryOp::Square, kFloat, x), {4, 0.25, 0, 0.25, 9});
  expect_near(run(UnaryOp::Relu, kFloat, x), {0, 0, 0, 0.5, 3});
  expect_near(run(UnaryOp::Sign, kFloat, x), {-1, -1, 0, 1, 1});
  expect_near(run(UnaryOp::Reciprocal, kFloat, x), {-0.5, -2, kInf, 2, 1.0 / 3});
  expect_near(run(UnaryOp::Sigmoid, kFloat, x), map([](double v) { return 1 / (1 + std::exp(-v)); }));
  expect_near(run(UnaryOp::Gelu, kFloat, x), map([](double v) { return v * 0.5 * (1 + std::erf(v / std::sqrt(2.0))); }));
  expect_near(run(UnaryOp::GeluTanh, kFloat, x), map([](double v) {
                return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
              }));
  std::vector<double> pos = {0.25, 1, 4, 9};
  expect_near(run(UnaryOp::Log, kFloat, pos), {std::log(0.25), 0, std::log(4.0), std::log(9.0)});
  expect_near(run(UnaryOp::Log1p, kFloat, pos), {std::log1p(0.25), std::log1p(1.0), std::log1p(4.0), std::log1p(9.0)});
  expect_near(run(UnaryOp::Sqrt, kFloat, pos), {0.5, 1, 2, 3});
  expect_near(run(UnaryOp::Rsqrt, kFloat, pos), {2, 1, 0.5, 1.0 / 3});
  expect_near(run(UnaryOp::Log, kFloat, {0, -1}), {-kInf, kNaN});
}

TEST(CpuUnary, RoundingOps) {
  std::vector<double> x = {-2.5, -1.5, -0.4, 0.5, 1.5, 2.7};
  expect_near(run(UnaryOp::Floor, kFloat, x), {-3, -2, -1, 0, 1, 2});
  expect_near(run(UnaryOp::Ceil, kFloat, x), {-2, -1, -0.0, 1, 2, 3});
  expect_near(run(UnaryOp::Round, kFloat, x), {-2, -2, -0.0, 0, 2, 3});  // half to even
}

TEST(CpuUnary, NaNAndExtremes) {
  expect_near(run(UnaryOp::Relu, kFloat, {kNaN, -kInf, kInf}), {kNaN, 0, kInf});
  // numerically stable sigmoid: no inf/inf for large |x|
  expect_near(run(UnaryOp::Sigmoid, kFloat, {-1000, 1000, -100}), {0, 1, std::exp(-100.0)}, 1e-6);
  expect_near(run(UnaryOp::Sigmoid, kDouble, {-800, 800}), {0, 1});
  expect_near(run(UnaryOp::Exp, kFloat, {1000, -1000}), {kInf, 0});
}

TEST(CpuUnary, Clamp) {
  std::vector<double> x = {-3, -1, 0, 2, 5, kNaN};
  UnaryParams both{-1, 2, true, true}, lo{0, 0, true, false}, hi{0, 1, false, true};
  expect_near(run(UnaryOp::Clamp, kFloat, x, both), {-1, -1, 0, 2, 2, kNaN});
  expect_near(run(UnaryOp::Clamp, kFloat, x, lo), {0, 0, 0, 2, 5, kNaN});
  expect_near(run(UnaryOp::Clamp, kFloat, x, hi), {-3, -1, 0, 1, 1, kNaN});
  EXPECT_EQ(run(UnaryOp::Clamp, kLong, {-3, -1, 0, 2, 5}, both), (std::vector<double>{-1, -1, 0, 2, 2}));
  UnaryParams inverted{3, 1, true, true};  // min > max: everything becomes max, as in PyTorch
  EXPECT_EQ(run(UnaryOp::Clamp, kInt, {0, 2, 5}, inverted), (std::vector<double>{1, 1, 1}));
}

TEST(CpuUnary, PowScalar) {
  std::vector<double> x = {1, 2, 4};
  for (double e : {2.0, 3.0, 0.5, -1.0, -0.5, -2.0, 1.0, 1.5, 0.0}) {
    UnaryParams p;
    p.a = e;
    std::vector<double> want;
    for (double v : x) want.push_back(std::pow(v, e));
    expect_near(run(UnaryOp::PowScalar, kFloat, x, p), want);
    expect_near(run(UnaryOp::PowScalar, kDouble, x, p), want, 1e-12);
  }
}

TEST(CpuUnary, IntegerOps) {
  std::vector<double> x = {-7, -1, 0, 3};
  EXPECT_EQ(run(UnaryOp::Neg, kLong, x), (std::vector<double>{7, 1, 0, -3}));
  EXPECT_EQ(run(UnaryOp::Abs, kInt, x), (std::vector<double>{7, 1, 0, 3}));
  EXPECT_EQ(run(UnaryOp::Relu, kInt, x), (std::vector<double>{0, 0, 0, 3}));
  EXPECT_EQ(run(UnaryOp::Sign, kLong, x), (std::vector<double>{-1, -1, 0, 1}));
  EXPECT_EQ(run(UnaryOp::Square, kInt, x), (std::vector<double>{49, 1, 0, 9}));
  EXPECT_EQ(run(UnaryOp::Floor, kLong, x), x);
  EXPECT_EQ(run(UnaryOp::Abs, kByte, {0, 200}), (std::vector<double>{0, 200}));
  EXPECT_EQ(run(UnaryOp::Neg, kByte, {1, 0}), (std::vector<double>{255, 0}));  // wraps as uint8
  // INT64_MIN negates to itself without UB
  HostTensor a = make(kLong, {1}), o = make(kLong, {1});
  *static_cast<int64_t*>(a.ref.buf.base) = INT64_MIN;
  be().unary(0, nullptr, UnaryOp::Neg, o, a, {});
  EXPECT_EQ(*static_cast<int64_t*>(o.ref.buf.base), INT64_MIN);
}

TEST(CpuUnary, LogicalNot) {
  EXPECT_EQ(run(UnaryOp::LogicalNot, kBool, {0, 1, 1, 0}), (std::vector<double>{1, 0, 0, 1}));
}

TEST(CpuUnary, HalfAndBFloat16ComputeInFloat) {
  expect_near(run(UnaryOp::Exp, kHalf, {0, 1, -1}), {1, std::exp(1.0), std::exp(-1.0)}, 1e-3);
  expect_near(run(UnaryOp::Tanh, kBFloat16, {0, 0.5, -2}), {0, std::tanh(0.5), std::tanh(-2.0)}, 1e-2);
  expect_near(run(UnaryOp::Sigmoid, kHalf, {-20, 0, 20}), {0, 0.5, 1}, 1e-3);
}

TEST(CpuUnary, IntegerOnlyFloatOpIsAnError) {
  HostTensor x = make(kLong, {2}, {1, 2}), y = make(kLong, {2});
  EXPECT_THROW(be().unary(0, nullptr, UnaryOp::Exp, y, x, {}), BackendError);
}

TEST(CpuUnary, StridedAndLarge) {
  // transposed input into a contiguous output
  HostTensor x = make(kFloat, {2, 3}, {1, -2, 3, -4, 5, -6}), y = make(kFloat, {3, 2});
  be().unary(0, nullptr, UnaryOp::Abs, y, transposed(x), {});
  EXPECT_EQ(y.values(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  // above the parallel threshold, with an odd length
  const int64_t n = 300001;
  HostTensor a = make(kFloat, {n}), b = make(kFloat, {n});
  float* pa = static_cast<float*>(a.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) pa[i] = static_cast<float>(i % 1000) - 500.0f;
  be().unary(0, nullptr, UnaryOp::Relu, b, a, {});
  const float* pb = static_cast<const float*>(b.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(pb[i], std::max(pa[i], 0.0f)) << i;
  be().unary(0, nullptr, UnaryOp::Exp, b, a, {});
  for (int64_t i = 0; i < n; i += 997) ASSERT_EQ(pb[i], std::exp(pa[i])) << i;
}

}  // namespace unary_test
}  // namespace
}  // namespace cpu_test
