// Elementwise families on opencl:0 against the same computation on the host: unary, binary
// (tensor and scalar operands), where, copy/cast, fill, fill_linear, over every dtype, with
// strided, broadcast and offset operands.
#include <cmath>
#include <functional>

#include <locus/locus.h>

#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace elementwise_test {

using backend::BinaryOp;
using backend::UnaryOp;

const ScalarType kAll[] = {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kShort, kChar, kByte, kBool};

double py_floordiv(double a, double b) { return std::floor(a / b); }
double py_rem(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double host_binary(BinaryOp op, double x, double y, bool integral) {
  switch (op) {
    case BinaryOp::Add: return x + y;
    case BinaryOp::Sub: return x - y;
    case BinaryOp::Mul: return x * y;
    case BinaryOp::Div: return integral ? (y == 0 ? 0 : std::trunc(x / y)) : x / y;
    case BinaryOp::Pow: return std::pow(x, y);
    case BinaryOp::Maximum: return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
    case BinaryOp::Minimum: return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
    case BinaryOp::Remainder: return integral && y == 0 ? 0 : py_rem(x, y);
    case BinaryOp::FloorDivide: return integral && y == 0 ? 0 : py_floordiv(x, y);
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    case BinaryOp::Ge: return x >= y;
    case BinaryOp::LogicalAnd: return x != 0 && y != 0;
    case BinaryOp::LogicalOr: return x != 0 || y != 0;
    case BinaryOp::ThresholdBackward: return y <= 0 ? 0 : x;
  }
  return 0;
}

// Runs op on a [3, 5] `a` (strided: a transposed [5, 3] buffer, at a byte offset) and a
// broadcast b of shape [1, 5]; checks against host_binary.
void check_binary(ScalarType dt, BinaryOp op, std::vector<double> av, std::vector<double> bv) {
  ASSERT_EQ(av.size(), 15u);
  ASSERT_EQ(bv.size(), 5u);
  bool integral = !is_floating_point(dt);
  for (double& x : av) x = round_to(dt, x);
  for (double& x : bv) x = round_to(dt, x);
  // a stored transposed: a[i][j] at j*3 + i
  std::vector<double> at(15);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) at[static_cast<size_t>(j * 3 + i)] = av[static_cast<size_t>(i * 5 + j)];
  size_t es = element_size(dt);
  auto A = upload_as(0, dt, at, 16 * es);
  auto B = upload_as(0, dt, bv, 8 * es);
  ScalarType odt = backend::binary_is_comparison(op) ? kBool : dt;
  DevMem O(0, 64 * element_size(odt));
  TensorRef a = ref(A->at(16 * es), dt, {3, 5}, {1, 3});
  TensorRef b = ref(B->at(8 * es), dt, {3, 5}, {0, 1});
  TensorRef o = ref(O.at(element_size(odt) * 4), odt, {3, 5});
  be().binary(0, nullptr, op, o, a, b);
  std::vector<double> want(15);
  for (size_t i = 0; i < 15; ++i) want[i] = round_to(odt, host_binary(op, av[i], bv[i % 5], integral));
  expect_close(odt, download_as(0, odt, O.at(element_size(odt) * 4), 15), want,
               std::string("binary op ") + std::to_string(static_cast<int>(op)));
}

TEST(OpenCLElementwise, BinaryFloatAllOps) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> a = {1.5, -2.25, 3, 0, -0.5, 7, 8.5, -9, 10, 2, NAN, 4, -5, 6.75, 1};
  std::vector<double> b = {2, -0.75, 3, 0.5, NAN};
  for (int op = 0; op <= static_cast<int>(BinaryOp::ThresholdBackward); ++op) {
    if (op == static_cast<int>(BinaryOp::Pow)) continue;  // checked below on positive bases
    check_binary(kFloat, static_cast<BinaryOp>(op), a, b);
  }
  check_binary(kFloat, BinaryOp::Pow, {1, 2, 3, 4, 5, 0.5, 1.5, 2.5, 3.5, 9, 1, 1, 2, 2, 3},
               {2, 0.5, -1, 3, 0});
}

TEST(OpenCLElementwise, BinaryIntegerSemantics) {
  LOCUS_REQUIRE_OPENCL(1);
  // Python floor division and remainder, division by zero writes 0
  std::vector<double> a = {7, -7, 7, -7, 0, 9, -9, 5, 6, -6, 100, -100, 3, 1, -1};
  std::vector<double> b = {2, -3, 0, 5, -1};
  for (ScalarType dt : {kInt, kLong}) {
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div, BinaryOp::FloorDivide,
                        BinaryOp::Remainder, BinaryOp::Maximum, BinaryOp::Minimum, BinaryOp::Lt, BinaryOp::Eq,
                        BinaryOp::LogicalAnd})
      check_binary(dt, op, a, b);
  }
  check_binary(kInt, BinaryOp::Pow, {2, 3, -2, 5, 1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {3, 2, 1, 0, 1});
  std::vector<double> ua = {7, 200, 0, 255, 13, 1, 2, 3, 4, 5, 250, 6, 9, 10, 11}, ub = {2, 3, 0, 7, 100};
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::FloorDivide, BinaryOp::Remainder,
                      BinaryOp::Maximum, BinaryOp::Ge})
    check_binary(kByte, op, ua, ub);
  std::vector<double> ba = {1, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1}, bb = {1, 0, 0, 1, 1};
  for (BinaryOp op : {BinaryOp::LogicalAnd, BinaryOp::LogicalOr, BinaryOp::Eq, BinaryOp::Add, BinaryOp::Mul})
    check_binary(kBool, op, ba, bb);
}

TEST(OpenCLElementwise, BinaryOtherFloatDtypes) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> a = {1.5, -2.25, 3, 0, -0.5, 7, 8.5, -9, 10, 2, NAN, 4, -5, 6.75, 1};
  std::vector<double> b = {2, -0.75, 3, 0.5, 1};
  for (ScalarType dt : {kDouble, kHalf, kBFloat16})
    for (BinaryOp op : {BinaryOp::Add, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Maximum, BinaryOp::Remainder,
                        BinaryOp::FloorDivide, BinaryOp::Gt})
      check_binary(dt, op, a, b);
}

TEST(OpenCLElementwise, BinaryScalarBothOrders) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> v = {1, -2, 3.5, 4, -5.25, 6};
  for (ScalarType dt : {kFloat, kInt}) {
    auto A = upload_as(0, dt, v);
    DevMem O(0, 64);
    TensorRef a = ref(A->at(), dt, {2, 3}), o = ref(O.at(), dt, {2, 3});
    for (bool first : {false, true}) {
      be().binary_scalar(0, nullptr, BinaryOp::Sub, o, a, 2.0, first);
      std::vector<double> want;
      for (double x : v) {
        double r = round_to(dt, x);
        want.push_back(first ? 2.0 - r : r - 2.0);
      }
      expect_close(dt, download_as(0, dt, O.at(), 6), want, "sub scalar");
    }
    TensorRef ob = ref(O.at(), kBool, {2, 3});
    be().binary_scalar(0, nullptr, BinaryOp::Gt, ob, a, 3.0, false);
    std::vector<double> want;
    for (double x : v) want.push_back(round_to(dt, x) > 3.0);
    expect_close(kBool, download_as(0, kBool, O.at(), 6), want, "gt scalar");
  }
}

double host_unary(UnaryOp op, double x, const backend::UnaryParams& p) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Relu: return x < 0 ? 0 : x;
    case UnaryOp::Sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Clamp: return std::min(std::max(x, p.a), p.b);
    case UnaryOp::PowScalar: return std::pow(x, p.a);
    case UnaryOp::Sin: return std::sin(x);
    case UnaryOp::Cos: return std::cos(x);
    case UnaryOp::Rsqrt: return 1 / std::sqrt(x);
    case UnaryOp::Reciprocal: return 1 / x;
    case UnaryOp::Gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryOp::GeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case UnaryOp::Sign: return (x > 0) - (x < 0);
    case UnaryOp::Square: return x * x;
    case UnaryOp::Log1p: return std::log1p(x);
    case UnaryOp::Expm1: return std::expm1(x);
    case UnaryOp::Floor: return std::floor(x);
    case UnaryOp::Ceil: return std::ceil(x);
    case UnaryOp::Round: return std::nearbyint(x);
    case UnaryOp::LogicalNot: return x == 0;
    case UnaryOp::ReluBackward: return x > 0;
    case UnaryOp::Erf: return std::erf(x);
    case UnaryOp::Log2: return std::log2(x);
    case UnaryOp::Exp2: return std::exp2(x);
    // ---- math batch (stop 45) ----
    case UnaryOp::Tan: return std::tan(x);
    case UnaryOp::Asin: return std::asin(x);
    case UnaryOp::Acos: return std::acos(x);
    case UnaryOp::Atan: return std::atan(x);
    case UnaryOp::Sinh: return std::sinh(x);
    case UnaryOp::Cosh: return std::cosh(x);
    case UnaryOp::Asinh: return std::asinh(x);
    case UnaryOp::Acosh: return std::acosh(x);
    case UnaryOp::Atanh: return std::atanh(x);
    case UnaryOp::Log10: return std::log10(x);
    case UnaryOp::Trunc: return std::trunc(x);
    case UnaryOp::Erfc: return std::erfc(x);
    case UnaryOp::Lgamma: return std::lgamma(x);
    case UnaryOp::Erfinv:  // no std:: reference: tests/ops/math_test.cpp checks these against PyTorch
    case UnaryOp::Digamma:
    case UnaryOp::Trigamma: return 0;
  }
  return 0;
}

TEST(OpenCLElementwise, UnaryAllOpsStrided) {
  LOCUS_REQUIRE_OPENCL(1);
  backend::UnaryParams p;
  p.a = -1;
  p.b = 2.5;
  p.has_a = p.has_b = true;
  // every other element of a 12-element buffer: strided input
  std::vector<double> buf = {0.5, 99, 1.25, 99, 2.5, 99, 3.5, 99, 0.1, 99, 4, 99, -0.75, 99, -2.5, 99, 0, 99, 1.5, 99};
  std::vector<double> pos = {0.5, 1.25, 2.5, 3.5, 0.1, 4, 0.75, 2.5, 0.01, 1.5};
  std::vector<double> mixed = {0.5, 1.25, 2.5, 3.5, 0.1, 4, -0.75, -2.5, 0, 1.5};
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    std::vector<int> all_ops;  // all but ReluBackward (done through binary) and those with no host reference
    for (int op = 0; op <= static_cast<int>(UnaryOp::Trigamma); ++op) {
      auto u = static_cast<UnaryOp>(op);
      if (u != UnaryOp::ReluBackward && u != UnaryOp::Erfinv && u != UnaryOp::Digamma && u != UnaryOp::Trigamma)
        all_ops.push_back(op);
    }
    for (int op : all_ops) {
      auto u = static_cast<UnaryOp>(op);
      bool needs_pos = u == UnaryOp::Log || u == UnaryOp::Sqrt || u == UnaryOp::Rsqrt || u == UnaryOp::PowScalar ||
                       u == UnaryOp::Log2;
      p.a = u == UnaryOp::PowScalar ? 1.5 : -1;
      const std::vector<double>& vals = needs_pos ? pos : mixed;
      std::vector<double> sb(20, 99);
      for (size_t i = 0; i < 10; ++i) sb[i * 2] = round_to(dt, vals[i]);
      auto I = upload_as(0, dt, sb);
      DevMem O(0, 256);
      be().unary(0, nullptr, u, ref(O.at(0), dt, {2, 5}), ref(I->at(0), dt, {2, 5}, {10, 2}), p);
      std::vector<double> want;
      for (size_t i = 0; i < 10; ++i) want.push_back(round_to(dt, host_unary(u, sb[i * 2], p)));
      std::vector<double> got = download_as(0, dt, O.at(0), 10);
      if (dt == kFloat || dt == kDouble) {
        for (size_t i = 0; i < 10; ++i) {
          if (std::isnan(want[i]) || std::isinf(want[i])) {
            EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]) << op << " " << got[i];
            continue;
          }
          EXPECT_NEAR(got[i], want[i], (dt == kFloat ? 3e-6 : 1e-12) * std::max(1.0, std::fabs(want[i])))
              << "unary op " << op << " " << dtype_name(dt) << " [" << i << "] of " << sb[i * 2];
        }
      } else {
        expect_close(dt, got, want, "unary op " + std::to_string(op));
      }
    }
  }
  (void)buf;
}

TEST(OpenCLElementwise, UnaryIntegers) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> v = {-3, 0, 5, 7, -1, 2};
  backend::UnaryParams p;
  p.a = 0;
  p.b = 4;
  p.has_a = p.has_b = true;
  for (ScalarType dt : {kInt, kLong}) {
    auto I = upload_as(0, dt, v);
    DevMem O(0, 64);
    for (UnaryOp u : {UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Relu, UnaryOp::Clamp, UnaryOp::Sign, UnaryOp::Square,
                      UnaryOp::LogicalNot, UnaryOp::Floor}) {
      be().unary(0, nullptr, u, ref(O.at(), dt, {6}), ref(I->at(), dt, {6}), p);
      std::vector<double> want;
      for (double x : v) want.push_back(host_unary(u, x, p));
      expect_close(dt, download_as(0, dt, O.at(), 6), want, "int unary " + std::to_string(static_cast<int>(u)));
    }
    p.a = 3;
    be().unary(0, nullptr, UnaryOp::PowScalar, ref(O.at(), dt, {6}), ref(I->at(), dt, {6}), p);
    std::vector<double> want;
    for (double x : v) want.push_back(x * x * x);
    expect_close(dt, download_as(0, dt, O.at(), 6), want, "int pow");
    p.a = 0;
  }
}

TEST(OpenCLElementwise, WhereBroadcast) {
  LOCUS_REQUIRE_OPENCL(1);
  auto C = upload_as(0, kBool, {1, 0, 1});
  auto A = upload_as(0, kFloat, {1, 2, 3, 4, 5, 6});
  auto B = upload_as(0, kFloat, {-1});
  DevMem O(0, 64);
  be().where(0, nullptr, ref(O.at(), kFloat, {2, 3}), ref(C->at(), kBool, {2, 3}, {0, 1}),
             ref(A->at(), kFloat, {2, 3}), ref(B->at(), kFloat, {2, 3}, {0, 0}));
  expect_close(kFloat, download_as(0, kFloat, O.at(), 6), {1, -1, 3, 4, -1, 6}, "where");
}

TEST(OpenCLElementwise, CopyCastsBetweenEveryDtype) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> v = {0, 1, -2, 3.75, 100, -0.5, 1e3, 7};
  for (ScalarType from : kAll) {
    std::vector<double> src;
    for (double x : v) src.push_back(round_to(from, (from == kByte && x < 0) ? -x : x));
    auto I = upload_as(0, from, src, 24);
    for (ScalarType to : kAll) {
      DevMem O(0, 256);
      // transposed read of a [2, 4] source into a contiguous [4, 2]
      be().copy(0, nullptr, ref(O.at(8), to, {4, 2}), ref(I->at(24), from, {4, 2}, {1, 4}));
      std::vector<double> want;
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
          double x = src[static_cast<size_t>(j * 4 + i)];
          if (to == kBool) x = x != 0;
          else if (!is_floating_point(to)) x = std::trunc(x);
          want.push_back(round_to(to, x));
        }
      expect_close(to, download_as(0, to, O.at(8), 8), want,
                   std::string("copy ") + dtype_name(from) + " -> " + dtype_name(to));
    }
  }
}

TEST(OpenCLElementwise, FillStridedAndLinear) {
  LOCUS_REQUIRE_OPENCL(1);
  auto M = upload_as(0, kFloat, std::vector<double>(12, 0));
  be().fill(0, nullptr, ref(M->at(4), kFloat, {2, 2}, {6, 2}), 3.5);  // rows 0,1 cols 0,2 of a [2,6] view
  expect_close(kFloat, download_as(0, kFloat, M->at(), 12), {0, 3.5, 0, 3.5, 0, 0, 0, 3.5, 0, 3.5, 0, 0}, "fill");
  for (ScalarType dt : {kFloat, kLong, kBool}) {
    DevMem O(0, 256);
    be().fill(0, nullptr, ref(O.at(), dt, {3}), 0.5);
    expect_close(dt, download_as(0, dt, O.at(), 3), std::vector<double>(3, round_to(dt, 0.5)), "fill 0.5");
  }
  for (ScalarType dt : {kFloat, kLong}) {
    DevMem O(0, 256);
    be().fill_linear(0, nullptr, ref(O.at(16), dt, {5}), -2, 3);
    expect_close(dt, download_as(0, dt, O.at(16), 5), {-2, 1, 4, 7, 10}, "fill_linear");
  }
}

}  // namespace elementwise_test
}  // namespace
}  // namespace locus::opencl::test

namespace locus::opencl::test {
namespace {
namespace elementwise_test {

// Large launches use op-specialized programs (-DFIXED_OP) and the one-element-per-item path.
TEST(OpenCLElementwise, LargeContiguousSpecializedPath) {
  LOCUS_REQUIRE_OPENCL(1);
  const int64_t n = 70001;
  std::vector<double> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i)] = static_cast<double>(i % 1000) * 0.25, b[static_cast<size_t>(i)] = static_cast<double>(i % 7) - 3;
  auto A = upload_as(0, kFloat, a, 4), B = upload_as(0, kFloat, b);
  DevMem O(0, static_cast<size_t>(n) * 4 + 8);
  be().binary(0, nullptr, backend::BinaryOp::Mul, ref(O.at(4), kFloat, {n}), ref(A->at(4), kFloat, {n}), ref(B->at(), kFloat, {n}));
  std::vector<double> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = a[i] * b[i];
  expect_close(kFloat, download_as(0, kFloat, O.at(4), static_cast<size_t>(n)), want, "large mul");
  be().unary(0, nullptr, backend::UnaryOp::Relu, ref(O.at(4), kFloat, {n}), ref(O.at(4), kFloat, {n}), {});
  for (double& w : want) w = w < 0 ? 0 : w;
  expect_close(kFloat, download_as(0, kFloat, O.at(4), static_cast<size_t>(n)), want, "large relu in place");
  be().fill(0, nullptr, ref(O.at(4), kFloat, {n}), 2.5);
  expect_close(kFloat, download_as(0, kFloat, O.at(4), static_cast<size_t>(n)), std::vector<double>(want.size(), 2.5), "large fill");
}

// On a CPU driver (PoCL: Caps::row_items) strided launches whose last dim has 8 or more
// elements take a row per work-item (GEOM_FOR_EACH); every family that uses it, against the cpu
// device: a bias-style broadcast, a scalar op, a unary op, where, a copy with and without a dtype
// change and a fill, each on strided or broadcast operands, with rows of 8, 19 and 37.
TEST(OpenCLElementwise, StridedRowsMatchTheHost) {
  LOCUS_REQUIRE_OPENCL(1);
  const Device cl(kOpenCL, 0);
  for (int64_t row : {8, 19, 37}) {
    SCOPED_TRACE("row " + std::to_string(row));
    Tensor x = locus::randn({5, 3, row}), bias = locus::randn({3, 1}), big = locus::randn({row, 3, 5});
    Tensor xc = x.to(cl), bc = bias.to(cl), gc = big.to(cl);
    auto same = [](const Tensor& host, const Tensor& dev, const char* what) {
      Tensor d = dev.to(kCPU);
      ASSERT_EQ(d.sizes().vec(), host.sizes().vec()) << what;
      EXPECT_TRUE(locus::equal(d, host)) << what << ": max difference "
                                         << (d.to(kDouble) - host.to(kDouble)).abs().max().item<double>();
    };
    same(x + bias, xc + bc, "broadcast add");
    same(big.permute({2, 1, 0}) * 3.5, gc.permute({2, 1, 0}) * 3.5, "scalar mul, permuted");
    same(big.permute({2, 1, 0}).relu(), gc.permute({2, 1, 0}).relu(), "relu, permuted");
    same(locus::where(x > 0, x, bias), locus::where(xc > 0, xc, bc), "where, broadcast");
    same(big.permute({2, 1, 0}).contiguous(), gc.permute({2, 1, 0}).contiguous(), "copy");
    same(big.permute({2, 1, 0}).to(kHalf), gc.permute({2, 1, 0}).to(kHalf), "copy to float16");
    Tensor f = locus::zeros({row, 3, 5}), fc = f.to(cl);
    for (Tensor* t : {&f, &fc}) {
      t->permute({2, 1, 0}).fill_(1.25);
      t->permute({2, 1, 0}).select(0, 1).fill_(-2);
    }
    same(f, fc, "fill, permuted");
  }
}

// gpu::launch_counts(): one kernel for an add; a float32 matmul is one vendor-BLAS call (CLBlast)
// or, in a build without it, one launch of the tiled kernel.
TEST(OpenCLElementwise, LaunchCountsCountKernelsAndGemmCalls) {
  LOCUS_REQUIRE_OPENCL(1);
  const Device cl(kOpenCL, 0);
  Tensor a = locus::ones({64, 64}, locus::device(cl)), b = locus::ones({64, 64}, locus::device(cl));
  locus::synchronize(cl);
  gpu::LaunchCounts before = gpu::launch_counts();
  Tensor c = a + b;
  gpu::LaunchCounts after = gpu::launch_counts();
  EXPECT_EQ(after.kernels - before.kernels, 1u);
  EXPECT_EQ(after.gemms, before.gemms);
  before = gpu::launch_counts();
  Tensor m = a.matmul(b);
  after = gpu::launch_counts();
  if (after.gemms != before.gemms) {  // CLBlast: one call, no kernel of ours
    EXPECT_EQ(after.gemms - before.gemms, 1u);
    EXPECT_EQ(after.kernels, before.kernels);
  } else {  // a build without CLBlast: the tiled kernel
    EXPECT_EQ(after.kernels - before.kernels, 1u);
  }
  EXPECT_EQ(m.to(kCPU)[0][0].item<float>(), 64.0f);
  EXPECT_EQ(c.to(kCPU)[0][0].item<float>(), 2.0f);
}

}  // namespace elementwise_test
}  // namespace
}  // namespace locus::opencl::test
