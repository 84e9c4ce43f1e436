// CPU backend: binary ops (tensor-tensor, tensor-scalar, broadcast, strided) and where.
#include <cmath>
#include <csignal>
#include <limits>

#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace binary_test {

using backend::BinaryOp;

const double kNaN = NAN, kInf = INFINITY;

std::vector<double> run(BinaryOp op, ScalarType dt, const std::vector<double>& a, const std::vector<double>& b) {
  int64_t n = static_cast<int64_t>(a.size());
  HostTensor x = make(dt, {n}, a), y = make(dt, {n}, b);
  HostTensor o = make(backend::binary_is_comparison(op) ? kBool : dt, {n});
  be().binary(0, nullptr, op, o, x, y);
  return o.values();
}

std::vector<double> run_scalar(BinaryOp op, ScalarType dt, const std::vector<double>& a, double s, bool first) {
  int64_t n = static_cast<int64_t>(a.size());
  HostTensor x = make(dt, {n}, a);
  HostTensor o = make(backend::binary_is_comparison(op) ? kBool : dt, {n});
  be().binary_scalar(0, nullptr, op, o, x, s, first);
  return o.values();
}

TEST(CpuBinary, Arithmetic) {
  std::vector<double> a = {1, -2, 3.5, 0}, b = {2, 4, -0.5, 3};
  for (ScalarType dt : {kFloat, kDouble}) {
    expect_near(run(BinaryOp::Add, dt, a, b), {3, 2, 3, 3});
    expect_near(run(BinaryOp::Sub, dt, a, b), {-1, -6, 4, -3});
    expect_near(run(BinaryOp::Mul, dt, a, b), {2, -8, -1.75, 0});
    expect_near(run(BinaryOp::Div, dt, a, b), {0.5, -0.5, -7, 0});
    expect_near(run(BinaryOp::Pow, dt, {2, 4, 9}, {3, 0.5, -1}), {8, 2, 1.0 / 9});
  }
  expect_near(run(BinaryOp::Add, kHalf, {1, 2.5}, {0.5, 0.25}), {1.5, 2.75});
  expect_near(run(BinaryOp::Mul, kBFloat16, {3, -2}, {2, 4}), {6, -8});
  EXPECT_EQ(run(BinaryOp::Add, kInt, {1, -2}, {5, 7}), (std::vector<double>{6, 5}));
  EXPECT_EQ(run(BinaryOp::Mul, kByte, {16, 3}, {16, 5}), (std::vector<double>{0, 15}));  // uint8 wraps
  EXPECT_EQ(run(BinaryOp::Add, kBool, {0, 1, 1}, {0, 0, 1}), (std::vector<double>{0, 1, 1}));  // or
  EXPECT_EQ(run(BinaryOp::Mul, kBool, {0, 1, 1}, {1, 0, 1}), (std::vector<double>{0, 0, 1}));  // and
}

TEST(CpuBinary, MaximumMinimumPropagateNaN) {
  expect_near(run(BinaryOp::Maximum, kFloat, {1, kNaN, 3, -kInf}, {2, 0, kNaN, 5}), {2, kNaN, kNaN, 5});
  expect_near(run(BinaryOp::Minimum, kFloat, {1, kNaN, 3, -kInf}, {2, 0, kNaN, 5}), {1, kNaN, kNaN, -kInf});
  EXPECT_EQ(run(BinaryOp::Maximum, kLong, {1, -5}, {-1, 7}), (std::vector<double>{1, 7}));
}

TEST(CpuBinary, FloorDivideAndRemainderFollowPython) {
  std::vector<double> a = {7, -7, 7, -7, 0}, b = {2, 2, -2, -2, 3};
  EXPECT_EQ(run(BinaryOp::FloorDivide, kLong, a, b), (std::vector<double>{3, -4, -4, 3, 0}));
  EXPECT_EQ(run(BinaryOp::Remainder, kLong, a, b), (std::vector<double>{1, 1, -1, -1, 0}));
  EXPECT_EQ(run(BinaryOp::FloorDivide, kInt, a, b), (std::vector<double>{3, -4, -4, 3, 0}));
  EXPECT_EQ(run(BinaryOp::Remainder, kInt, a, b), (std::vector<double>{1, 1, -1, -1, 0}));
  expect_near(run(BinaryOp::FloorDivide, kFloat, a, b), {3, -4, -4, 3, 0});
  expect_near(run(BinaryOp::Remainder, kFloat, a, b), {1, 1, -1, -1, 0});
  expect_near(run(BinaryOp::Remainder, kDouble, {5.5, -5.5}, {2, 2}), {1.5, 0.5});
  expect_near(run(BinaryOp::FloorDivide, kDouble, {5.5, -5.5, 1}, {2, 2, 0}), {2, -3, kInf});
  EXPECT_EQ(run(BinaryOp::FloorDivide, kByte, {7, 200}, {2, 3}), (std::vector<double>{3, 66}));
}

TEST(CpuBinary, IntegerDivisionByZeroWritesZeroInsteadOfTrapping) {
  std::vector<double> a = {7, -7, 0}, z = {0, 0, 0};
  for (ScalarType dt : {kByte, kChar, kShort, kInt, kLong}) {
    std::vector<double> aa = dt == kByte ? std::vector<double>{7, 9, 0} : a;
    EXPECT_EQ(run(BinaryOp::FloorDivide, dt, aa, z), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(run(BinaryOp::Remainder, dt, aa, z), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(run_scalar(BinaryOp::FloorDivide, dt, aa, 0, false), (std::vector<double>{0, 0, 0}));
    EXPECT_EQ(run_scalar(BinaryOp::Remainder, dt, aa, 0, false), (std::vector<double>{0, 0, 0}));
  }
  // INT_MIN / -1 overflows (SIGFPE on x86) unless handled: it wraps
  HostTensor x = make(kInt, {1}), y = make(kInt, {1}, {-1}), o = make(kInt, {1});
  *static_cast<int32_t*>(x.ref.buf.base) = std::numeric_limits<int32_t>::min();
  be().binary(0, nullptr, BinaryOp::FloorDivide, o, x, y);
  EXPECT_EQ(*static_cast<int32_t*>(o.ref.buf.base), std::numeric_limits<int32_t>::min());
  // the same for int8 and int16, whose minima negate to themselves
  EXPECT_EQ(run(BinaryOp::FloorDivide, kChar, {-128, -128}, {-1, 1}), (std::vector<double>{-128, -128}));
  EXPECT_EQ(run(BinaryOp::FloorDivide, kShort, {-32768, 7}, {-1, -2}), (std::vector<double>{-32768, -4}));
  // int16 products wrap (-3 * -7 in 16-bit unsigned arithmetic would overflow a promoted int)
  EXPECT_EQ(run(BinaryOp::Mul, kShort, {-3, 300, -1}, {-7, 300, -1}), (std::vector<double>{21, 24464, 1}));
  be().binary(0, nullptr, BinaryOp::Remainder, o, x, y);
  EXPECT_EQ(*static_cast<int32_t*>(o.ref.buf.base), 0);
}

TEST(CpuBinary, IntegerPower) {
  EXPECT_EQ(run(BinaryOp::Pow, kLong, {2, 3, -2, 5, 0}, {10, 3, 3, 0, 0}), (std::vector<double>{1024, 27, -8, 1, 1}));
  // negative exponents: 0 except for bases 1 and -1
  EXPECT_EQ(run(BinaryOp::Pow, kLong, {2, 1, -1, -1, 0}, {-1, -5, -3, -2, -1}), (std::vector<double>{0, 1, -1, 1, 0}));
  EXPECT_EQ(run(BinaryOp::Pow, kInt, {3}, {4}), (std::vector<double>{81}));
  EXPECT_EQ(run(BinaryOp::Pow, kByte, {2}, {9}), (std::vector<double>{0}));  // 512 wraps to 0
  EXPECT_EQ(run_scalar(BinaryOp::Pow, kLong, {2, 3}, 2, false), (std::vector<double>{4, 9}));
  EXPECT_EQ(run_scalar(BinaryOp::Pow, kLong, {2, 3}, 2, true), (std::vector<double>{4, 8}));
}

TEST(CpuBinary, ComparisonsWriteBool) {
  std::vector<double> a = {1, 2, 3, kNaN}, b = {2, 2, 2, kNaN};
  EXPECT_EQ(run(BinaryOp::Eq, kFloat, a, b), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(run(BinaryOp::Ne, kFloat, a, b), (std::vector<double>{1, 0, 1, 1}));
  EXPECT_EQ(run(BinaryOp::Lt, kFloat, a, b), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(run(BinaryOp::Le, kFloat, a, b), (std::vector<double>{1, 1, 0, 0}));
  EXPECT_EQ(run(BinaryOp::Gt, kFloat, a, b), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(run(BinaryOp::Ge, kFloat, a, b), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(run(BinaryOp::Lt, kLong, {-1, 5}, {0, 5}), (std::vector<double>{1, 0}));
  EXPECT_EQ(run(BinaryOp::Eq, kHalf, {0.5, 1}, {0.5, 2}), (std::vector<double>{1, 0}));
  EXPECT_EQ(run(BinaryOp::LogicalAnd, kFloat, {0, 1, 2, kNaN}, {1, 0, 3, 1}), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(run(BinaryOp::LogicalOr, kBool, {0, 1, 0}, {0, 0, 1}), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(run_scalar(BinaryOp::Gt, kInt, {1, 5, 9}, 5, false), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(run_scalar(BinaryOp::Gt, kInt, {1, 5, 9}, 5, true), (std::vector<double>{1, 0, 0}));
  // the output bytes are exactly 0 or 1
  HostTensor x = make(kFloat, {3}, {1, 2, 3}), o = make(kBool, {3});
  be().binary_scalar(0, nullptr, BinaryOp::Ge, o, x, 2, false);
  const uint8_t* p = static_cast<const uint8_t*>(o.ref.buf.base);
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
}

TEST(CpuBinary, ThresholdBackward) {
  expect_near(run(BinaryOp::ThresholdBackward, kFloat, {10, 20, 30, 40}, {-1, 0, 0.5, kNaN}), {0, 0, 30, 40});
}

// gelu's backward in one pass: a * gelu'(b), against the derivative in double (erf form: Phi(b) +
// b phi(b); tanh form: of 0.5 b (1 + tanh(k (b + c b^3)))), for float, double and the 16-bit
// dtypes; far in the negative tail (erfc, not 1 - erf, keeps the float result nonzero), at 0, NaN.
TEST(CpuBinary, GeluBackward) {
  const std::vector<double> g = {1, 2, -1, 0.5, 3, 1, 1, 1}, x = {0, 1, -2, 3.5, -0.3, -9, 6, kNaN};
  std::vector<double> erf_form, tanh_form;
  for (size_t i = 0; i < x.size(); ++i) {
    const double b = x[i], k = std::sqrt(2.0 / M_PI), c = 0.044715, t = std::tanh(k * (b + c * b * b * b));
    erf_form.push_back(g[i] * (0.5 * std::erfc(-b / std::sqrt(2.0)) + b * std::exp(-0.5 * b * b) / std::sqrt(2 * M_PI)));
    tanh_form.push_back(g[i] * (0.5 * (1 + t) + 0.5 * k * b * (1 - t * t) * (1 + 3 * c * b * b)));
  }
  for (ScalarType dt : {kFloat, kDouble}) {
    expect_near(run(BinaryOp::GeluBackward, dt, g, x), erf_form);
    expect_near(run(BinaryOp::GeluTanhBackward, dt, g, x), tanh_form);
  }
  // gelu'(-9) = -9 phi(-9) + Phi(-9): about -9.3e-18, still nonzero in float
  const double tail = run(BinaryOp::GeluBackward, kFloat, {1}, {-9})[0];
  EXPECT_LT(tail, 0);
  EXPECT_NEAR(tail, erf_form[5], 1e-3 * std::fabs(erf_form[5]));
  // the 16-bit dtypes: gelu'(0.5) = 0.86750, 2 gelu'(-1) = -0.16663; tanh form: gelu'(1) = 1.08296
  expect_near(run(BinaryOp::GeluBackward, kHalf, {1, 2}, {0.5, -1}), {0.86750, -0.16663}, 2e-3);
  expect_near(run(BinaryOp::GeluTanhBackward, kBFloat16, {1}, {1}), {1.08296}, 1e-2);
}

TEST(CpuBinary, ScalarBothSides) {
  expect_near(run_scalar(BinaryOp::Sub, kFloat, {1, 2, 3}, 10, false), {-9, -8, -7});
  expect_near(run_scalar(BinaryOp::Sub, kFloat, {1, 2, 3}, 10, true), {9, 8, 7});
  expect_near(run_scalar(BinaryOp::Div, kDouble, {1, 2, 4}, 8, true), {8, 4, 2});
  // a half tensor times a scalar keeps the scalar in float: 1.0004 would round to 1 as a half
  expect_near(run_scalar(BinaryOp::Mul, kHalf, {1000}, 1.0004, false), {1000.5});
  EXPECT_EQ(run_scalar(BinaryOp::Add, kLong, {1, 2}, 3, false), (std::vector<double>{4, 5}));
}

TEST(CpuBinary, BroadcastWithStrideZero) {
  // [2,3] + [3] (row broadcast) and [2,3] + [2,1] (column broadcast) and [2,3] + scalar tensor
  HostTensor a = make(kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor row = make(kFloat, {3}, {10, 20, 30}), col = make(kFloat, {2, 1}, {100, 200}), one = make(kFloat, {1}, {7});
  HostTensor o = make(kFloat, {2, 3});
  be().binary(0, nullptr, BinaryOp::Add, o, a, broadcast(row, {2, 3}));
  EXPECT_EQ(o.values(), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  be().binary(0, nullptr, BinaryOp::Sub, o, broadcast(col, {2, 3}), a);
  EXPECT_EQ(o.values(), (std::vector<double>{99, 98, 97, 196, 195, 194}));
  be().binary(0, nullptr, BinaryOp::Mul, o, a, broadcast(one, {2, 3}));
  EXPECT_EQ(o.values(), (std::vector<double>{7, 14, 21, 28, 35, 42}));
  // outer product: both operands broadcast
  HostTensor u = make(kLong, {3}, {1, 2, 3}), v = make(kLong, {2}, {10, 100}), oo = make(kLong, {2, 3});
  TensorRef vb = make_ref(v.ref.buf.base, kLong, {2, 3}, {1, 0});
  be().binary(0, nullptr, BinaryOp::Mul, oo, vb, broadcast(u, {2, 3}));
  EXPECT_EQ(oo.values(), (std::vector<double>{10, 20, 30, 100, 200, 300}));
}

TEST(CpuBinary, NonContiguousOperandsAndOutput) {
  HostTensor a = make(kDouble, {2, 3}, {1, 2, 3, 4, 5, 6}), b = make(kDouble, {3, 2}, {10, 20, 30, 40, 50, 60});
  HostTensor o = make(kDouble, {3, 2});
  be().binary(0, nullptr, BinaryOp::Add, o, transposed(a), b);  // a^T + b
  EXPECT_EQ(o.values(), (std::vector<double>{11, 24, 32, 45, 53, 66}));
  // transposed output, with a byte offset into the buffers
  HostTensor big = make(kDouble, {8}, {0, 1, 2, 3, 4, 5, 6, 7}), o2 = make(kDouble, {2, 3});
  TensorRef x = make_ref(big.ref.buf.base, kDouble, {3, 2}, {1, 3});  // skip element 0: offset 8 bytes
  x.buf.offset = 8;
  be().binary_scalar(0, nullptr, BinaryOp::Mul, transposed(o2), x, 2, false);
  // x[i][j] = big[1 + i + 3j]; o2^T = 2x -> o2[j][i] = 2 * big[1 + i + 3j]
  EXPECT_EQ(o2.values(), (std::vector<double>{2, 4, 6, 8, 10, 12}));
}

TEST(CpuBinary, InPlaceAndLarge) {
  const int64_t n = (1 << 20) + 3;
  HostTensor a = make(kFloat, {n}), b = make(kFloat, {n});
  float* pa = static_cast<float*>(a.ref.buf.base);
  float* pb = static_cast<float*>(b.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) {
    pa[i] = static_cast<float>(i);
    pb[i] = 0.5f;
  }
  be().binary(0, nullptr, BinaryOp::Add, a, a, b);  // out aliases a
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(pa[i], static_cast<float>(i) + 0.5f) << i;
  // broadcast row over many rows, in parallel
  const int64_t rows = 4096, cols = 300;
  HostTensor m = make(kFloat, {rows, cols}, {1}), r = make(kFloat, {cols}), o = make(kFloat, {rows, cols});
  float* pr = static_cast<float*>(r.ref.buf.base);
  for (int64_t j = 0; j < cols; ++j) pr[j] = static_cast<float>(j);
  be().binary(0, nullptr, BinaryOp::Add, o, m, broadcast(r, {rows, cols}));
  const float* po = static_cast<const float*>(o.ref.buf.base);
  for (int64_t i = 0; i < rows * cols; ++i) ASSERT_EQ(po[i], 1.0f + static_cast<float>(i % cols)) << i;
}

TEST(CpuBinary, Where) {
  HostTensor c = make(kBool, {2, 3}, {1, 0, 1, 0, 0, 1});
  HostTensor a = make(kFloat, {2, 3}, {1, 2, 3, 4, 5, 6}), b = make(kFloat, {1}, {-1}), o = make(kFloat, {2, 3});
  be().where(0, nullptr, o, c, a, broadcast(b, {2, 3}));
  EXPECT_EQ(o.values(), (std::vector<double>{1, -1, 3, -1, -1, 6}));
  HostTensor c2 = make(kBool, {3}, {0, 1, 1}), ha = make(kHalf, {2, 3}, {1, 2, 3, 4, 5, 6}), hb = make(kHalf, {2, 3}, {9});
  HostTensor ho = make(kHalf, {3, 2});
  be().where(0, nullptr, ho, make_ref(c2.ref.buf.base, kBool, {3, 2}, {1, 0}), transposed(ha), transposed(hb));
  // cond[i][j] = c2[i]; a^T[i][j] = ha[j][i]
  EXPECT_EQ(ho.values(), (std::vector<double>{9, 9, 2, 5, 3, 6}));
  HostTensor li = make(kLong, {4}, {1, 2, 3, 4}), lj = make(kLong, {4}, {-1, -2, -3, -4}), lc = make(kBool, {4}, {1, 0, 0, 1});
  HostTensor lo = make(kLong, {4});
  be().where(0, nullptr, lo, lc, li, lj);
  EXPECT_EQ(lo.values(), (std::vector<double>{1, -2, -3, 4}));
}

}  // namespace binary_test
}  // namespace
}  // namespace cpu_test
