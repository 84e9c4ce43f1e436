// CPU backend: reductions over trailing dims, and softmax / log_softmax.
#include <cmath>
#include <limits>
#include <random>

#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace reduce_test {

using backend::ReduceOp;

const double kNaN = NAN, kInf = INFINITY;

// Reduces the trailing dims of a contiguous tensor `in_sizes` down to `out_sizes`.
std::vector<double> red(ReduceOp op, ScalarType dt, std::vector<int64_t> in_sizes, std::vector<double> v,
                        std::vector<int64_t> out_sizes, ScalarType out_dt = ScalarType::Undefined) {
  if (out_dt == ScalarType::Undefined)
    out_dt = (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) ? kLong : dt;
  HostTensor x = make(dt, in_sizes, v), o = make(out_dt, out_sizes);
  be().reduce(0, nullptr, op, o, x);
  return o.values();
}

TEST(CpuReduce, TrailingDims) {
  std::vector<double> v = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(red(ReduceOp::Sum, kFloat, {2, 3}, v, {2}), (std::vector<double>{6, 15}));
  EXPECT_EQ(red(ReduceOp::Sum, kFloat, {2, 3}, v, {}), (std::vector<double>{21}));
  EXPECT_EQ(red(ReduceOp::Mean, kDouble, {2, 3}, v, {2}), (std::vector<double>{2, 5}));
  EXPECT_EQ(red(ReduceOp::Prod, kFloat, {2, 3}, v, {2}), (std::vector<double>{6, 120}));
  EXPECT_EQ(red(ReduceOp::Max, kFloat, {2, 3}, {1, 9, 3, -4, -5, -6}, {2}), (std::vector<double>{9, -4}));
  EXPECT_EQ(red(ReduceOp::Min, kInt, {2, 3}, {1, 9, 3, -4, -5, -6}, {2}), (std::vector<double>{1, -6}));
  EXPECT_EQ(red(ReduceOp::ArgMax, kFloat, {2, 3}, {1, 9, 3, -4, -5, -6}, {2}), (std::vector<double>{1, 0}));
  EXPECT_EQ(red(ReduceOp::ArgMin, kFloat, {2, 3}, {1, 9, 3, -4, -5, -6}, {2}), (std::vector<double>{0, 2}));
  // two trailing dims of a 3-D tensor
  EXPECT_EQ(red(ReduceOp::Sum, kLong, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {2}), (std::vector<double>{10, 26}));
  // nothing reduced: a copy
  EXPECT_EQ(red(ReduceOp::Sum, kFloat, {3}, {1, 2, 3}, {3}), (std::vector<double>{1, 2, 3}));
}

TEST(CpuReduce, IntegerSumsAccumulateInInt64) {
  // int32 values whose sum overflows int32 but not int64, written to a kLong output
  EXPECT_EQ(red(ReduceOp::Sum, kInt, {3}, {2e9, 2e9, 2e9}, {}, kLong), (std::vector<double>{6e9}));
  EXPECT_EQ(red(ReduceOp::Sum, kByte, {4}, {200, 200, 200, 1}, {}, kLong), (std::vector<double>{601}));
  EXPECT_EQ(red(ReduceOp::Sum, kBool, {5}, {1, 0, 1, 1, 0}, {}, kLong), (std::vector<double>{3}));
  EXPECT_EQ(red(ReduceOp::Prod, kInt, {3}, {1000, 1000, 1000}, {}, kLong), (std::vector<double>{1e9}));
}

TEST(CpuReduce, MaxMinPropagateNaN) {
  expect_near(red(ReduceOp::Max, kFloat, {2, 3}, {1, kNaN, 3, 4, 5, 6}, {2}), {kNaN, 6});
  expect_near(red(ReduceOp::Min, kDouble, {2, 3}, {1, 2, 3, 4, 5, kNaN}, {2}), {1, kNaN});
  expect_near(red(ReduceOp::Max, kFloat, {2}, {-kInf, -kInf}, {}), {-kInf});
  // NaN in a long row (the vectorised path)
  std::vector<double> v(10000, 1.0);
  v[7777] = kNaN;
  expect_near(red(ReduceOp::Max, kFloat, {10000}, v, {}), {kNaN});
  expect_near(red(ReduceOp::Min, kHalf, {10000}, v, {}), {kNaN});
  expect_near(red(ReduceOp::Sum, kFloat, {10000}, v, {}), {kNaN});
}

TEST(CpuReduce, ArgMaxFirstOccurrenceAndNaN) {
  EXPECT_EQ(red(ReduceOp::ArgMax, kFloat, {6}, {1, 5, 2, 5, 0, 5}, {}), (std::vector<double>{1}));
  EXPECT_EQ(red(ReduceOp::ArgMin, kLong, {6}, {3, 0, 2, 0, 7, 0}, {}), (std::vector<double>{1}));
  EXPECT_EQ(red(ReduceOp::ArgMax, kFloat, {5}, {1, kNaN, 9, kNaN, 2}, {}), (std::vector<double>{1}));
  EXPECT_EQ(red(ReduceOp::ArgMin, kDouble, {4}, {1, -5, kNaN, -9}, {}), (std::vector<double>{2}));
  EXPECT_EQ(red(ReduceOp::ArgMax, kFloat, {3}, {kNaN, 1, 2}, {}), (std::vector<double>{0}));
  EXPECT_EQ(red(ReduceOp::ArgMax, kHalf, {3}, {-1, -0.5, -2}, {}), (std::vector<double>{1}));
  // argmax along dim 0 of a [3, 2] matrix: the input is the transposed (strided) view
  HostTensor m = make(kFloat, {3, 2}, {1, 8, 7, 2, 3, 8}), o = make(kLong, {2});
  be().reduce(0, nullptr, ReduceOp::ArgMax, o, transposed(m));
  EXPECT_EQ(o.values(), (std::vector<double>{1, 0}));
}

TEST(CpuReduce, AnyAll) {
  EXPECT_EQ(red(ReduceOp::Any, kBool, {2, 3}, {0, 0, 0, 0, 1, 0}, {2}), (std::vector<double>{0, 1}));
  EXPECT_EQ(red(ReduceOp::All, kBool, {2, 3}, {1, 1, 1, 1, 0, 1}, {2}), (std::vector<double>{1, 0}));
  EXPECT_EQ(red(ReduceOp::Any, kBool, {0}, {}, {}), (std::vector<double>{0}));
  EXPECT_EQ(red(ReduceOp::All, kBool, {0}, {}, {}), (std::vector<double>{1}));
  std::vector<double> v(100000, 1);
  EXPECT_EQ(red(ReduceOp::All, kBool, {100000}, v, {}), (std::vector<double>{1}));
  v[99999] = 0;
  EXPECT_EQ(red(ReduceOp::All, kBool, {100000}, v, {}), (std::vector<double>{0}));
}

TEST(CpuReduce, EmptyReductionsGiveTheIdentity) {
  HostTensor x = make(kFloat, {2, 0}), s = make(kFloat, {2}), p = make(kFloat, {2}), m = make(kFloat, {2});
  be().reduce(0, nullptr, ReduceOp::Sum, s, x);
  be().reduce(0, nullptr, ReduceOp::Prod, p, x);
  be().reduce(0, nullptr, ReduceOp::Mean, m, x);
  EXPECT_EQ(s.values(), (std::vector<double>{0, 0}));
  EXPECT_EQ(p.values(), (std::vector<double>{1, 1}));
  expect_near(m.values(), {kNaN, kNaN});
}

TEST(CpuReduce, LongFloatSumIsAccurate) {
  // 2^24 + many ones: a naive float accumulator stops at 2^24
  const int64_t n = 1 << 25;
  HostTensor x = make(kFloat, {n}), o = make(kFloat, {});
  float* p = static_cast<float*>(x.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) p[i] = 1.0f;
  be().reduce(0, nullptr, ReduceOp::Sum, o, x);
  EXPECT_EQ(o.values()[0], static_cast<double>(n));
  for (int64_t i = 0; i < n; ++i) p[i] = 0.1f;
  be().reduce(0, nullptr, ReduceOp::Mean, o, x);
  EXPECT_NEAR(o.values()[0], 0.1, 1e-6);
}

// The float32 sum's order, as reduce.cpp describes it: blocks of 4096 elements, each with 64
// running sums combined as a tree, blocks combined pairwise (left part: the first half rounded up
// to whole blocks), and on several threads the threads' parts in order. Values whose sum depends
// on the order: the result has exactly these bits (reading the blocks in another order, which
// is faster or slower, must not change them).
float block_sum(const float* x, int64_t n) {
  float acc[64] = {};
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 64; ++j) acc[j] = acc[j] + x[i + j];
  for (int w = 32; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = acc[j] + acc[j + w];
  float r = acc[0];
  for (; i < n; ++i) r = r + x[i];
  return r;
}
float tree_sum(const float* x, int64_t n) {
  if (n <= 4096) return block_sum(x, n);
  int64_t h = (n / 2 + 4095) / 4096 * 4096;
  float left = tree_sum(x, h);
  return left + tree_sum(x + h, n - h);
}

TEST(CpuReduce, FloatSumFollowsTheBlockTree) {
  const int nt = get_num_threads();
  for (int64_t n : {int64_t{100}, int64_t{4096}, int64_t{4097}, int64_t{3 * 4096 + 7}, int64_t{1000003}}) {
    HostTensor x = make(kFloat, {n}), o = make(kFloat, {});
    float* p = static_cast<float*>(x.ref.buf.base);
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      p[i] = static_cast<float>(s >> 8) * 0x1p-24f * (s & 1 ? 1e3f : 1e-3f) - 0.25f;
    }
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      be().reduce(0, nullptr, ReduceOp::Sum, o, x);
      // full reductions split over min(threads, n / 32768) parts (kGrainCheap)
      const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, n / 32768));
      float want = tree_sum(p, n * 1 / parts);
      for (int64_t t = 1; t < parts; ++t) want = want + tree_sum(p + n * t / parts, n * (t + 1) / parts - n * t / parts);
      EXPECT_EQ(static_cast<float>(o.values()[0]), want) << "n=" << n << " threads=" << threads;
    }
  }
  set_num_threads(nt);
}

// float16/bfloat16 reduce in float32 (issue 15): a 16-bit accumulator stops at 256 (bfloat16:
// 256 + 1 rounds back to 256) and at 2048 (float16). Row, column and general paths.
TEST(CpuReduce, HalfAndBFloat16AccumulateInFloat) {
  for (ScalarType dt : {kBFloat16, kHalf}) {
    EXPECT_EQ(red(ReduceOp::Sum, dt, {4096}, {1}, {}), (std::vector<double>{4096})) << dtype_name(dt);
    EXPECT_EQ(red(ReduceOp::Sum, dt, {2, 4096}, {1}, {2}), (std::vector<double>{4096, 4096})) << dtype_name(dt);
    EXPECT_EQ(red(ReduceOp::Mean, dt, {3, 3000}, {1, 3}, {3}), (std::vector<double>{2, 2, 2})) << dtype_name(dt);
    // the column path: [4096, 3] summed over dim 0 (a transposed view of a [3, 4096] tensor)
    HostTensor x = make(dt, {3, 4096}, {1}), o = make(dt, {3});
    TensorRef xt = make_ref(x.ref.buf.base, dt, {3, 4096}, {1, 3});
    be().reduce(0, nullptr, ReduceOp::Sum, o, xt);
    EXPECT_EQ(o.values(), (std::vector<double>{4096, 4096, 4096})) << dtype_name(dt);
  }
}

TEST(CpuReduce, StridedColumnAndGeneralPaths) {
  // [R, O] row-major reduced over dim 0 (the column path): the input is the transposed view
  const int64_t R = 3000, O = 517;
  HostTensor m = make(kFloat, {R, O}), o = make(kFloat, {O}), mx = make(kFloat, {O});
  float* p = static_cast<float*>(m.ref.buf.base);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < O; ++c) p[r * O + c] = static_cast<float>((r % 7) + c);
  be().reduce(0, nullptr, ReduceOp::Sum, o, transposed(m));
  be().reduce(0, nullptr, ReduceOp::Max, mx, transposed(m));
  double base = 0;
  for (int64_t r = 0; r < R; ++r) base += static_cast<double>(r % 7);
  for (int64_t c = 0; c < O; ++c) {
    ASSERT_EQ(o.values()[static_cast<size_t>(c)], base + static_cast<double>(R * c)) << c;
    ASSERT_EQ(mx.values()[static_cast<size_t>(c)], 6.0 + static_cast<double>(c)) << c;
  }
  // general: reduce dims 0 and 2 of a [4, 3, 5] tensor (permuted to [3, 4, 5])
  HostTensor t = make(kDouble, {4, 3, 5}), g = make(kDouble, {3});
  std::vector<double> v(60);
  for (int i = 0; i < 60; ++i) v[static_cast<size_t>(i)] = i;
  set_vals(t.ref, v);
  TensorRef perm = make_ref(t.ref.buf.base, kDouble, {3, 4, 5}, {5, 15, 1});
  be().reduce(0, nullptr, ReduceOp::Sum, g, perm);
  std::vector<double> want(3, 0);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 5; ++c) want[static_cast<size_t>(b)] += a * 15 + b * 5 + c;
  EXPECT_EQ(g.values(), want);
  // many outputs in parallel
  HostTensor big = make(kFloat, {20000, 33}, {1}), bo = make(kFloat, {20000});
  be().reduce(0, nullptr, ReduceOp::Sum, bo, big);
  for (double d : bo.values()) ASSERT_EQ(d, 33);
}

std::vector<double> softmax_ref(const std::vector<double>& x, int64_t outer, int64_t dim, int64_t inner, bool log) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -kInf, s = 0;
      for (int64_t d = 0; d < dim; ++d) mx = std::max(mx, x[static_cast<size_t>((o * dim + d) * inner + i)]);
      for (int64_t d = 0; d < dim; ++d) s += std::exp(x[static_cast<size_t>((o * dim + d) * inner + i)] - mx);
      for (int64_t d = 0; d < dim; ++d) {
        size_t k = static_cast<size_t>((o * dim + d) * inner + i);
        y[k] = log ? x[k] - mx - std::log(s) : std::exp(x[k] - mx) / s;
      }
    }
  return y;
}

TEST(CpuSoftmax, InnerOneAndInnerMany) {
  std::vector<double> x = {1, 2, 3, -1, 0, 1, 5, 5, 5, 0.5, -0.5, 2};
  for (bool log : {false, true}) {
    for (auto [outer, dim, inner] : {std::tuple<int64_t, int64_t, int64_t>{4, 3, 1}, {2, 3, 2}, {1, 2, 6}, {1, 12, 1}}) {
      HostTensor in = make(kFloat, {12}, x), out = make(kFloat, {12});
      be().softmax(0, nullptr, out, in, outer, dim, inner, log);
      expect_near(out.values(), softmax_ref(in.values(), outer, dim, inner, log), 1e-6);
      HostTensor ind = make(kDouble, {12}, x), outd = make(kDouble, {12});
      be().softmax(0, nullptr, outd, ind, outer, dim, inner, log);
      expect_near(outd.values(), softmax_ref(x, outer, dim, inner, log), 1e-12);
    }
  }
}

TEST(CpuSoftmax, NumericallyStableForLargeInputs) {
  HostTensor in = make(kFloat, {3}, {1000, 1001, 1002}), out = make(kFloat, {3}), lout = make(kFloat, {3});
  be().softmax(0, nullptr, out, in, 1, 3, 1, false);
  be().softmax(0, nullptr, lout, in, 1, 3, 1, true);
  expect_near(out.values(), softmax_ref({0, 1, 2}, 1, 3, 1, false), 1e-6);
  expect_near(lout.values(), softmax_ref({0, 1, 2}, 1, 3, 1, true), 1e-6);
  HostTensor neg = make(kFloat, {2}, {-1e4, 0}), nout = make(kFloat, {2});
  be().softmax(0, nullptr, nout, neg, 1, 2, 1, true);
  expect_near(nout.values(), {-1e4, 0}, 1e-6);
  HostTensor h = make(kHalf, {3}, {60000, 60000, -60000}), hout = make(kHalf, {3});
  be().softmax(0, nullptr, hout, h, 1, 3, 1, false);
  expect_near(hout.values(), {0.5, 0.5, 0}, 1e-3);
}

// Float rows through the row kernel in use (AVX-512 where present; ctest runs this file again with
// LOCUS_CPU_ISA=portable): every tail length, rows longer than a block, masks (-inf), a row that is
// all -inf, NaN and +inf (whole rows of NaN, as PyTorch), and logits far from zero.
TEST(CpuSoftmax, FloatRowsOfEveryLengthAndSpecialValues) {
  std::mt19937 rng(7);
  std::normal_distribution<double> nd(0.0, 4.0);
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 70; ++n) lengths.push_back(n);
  for (int64_t n : {127, 128, 129, 1000, 4097}) lengths.push_back(n);
  int rows_checked = 0;
  for (int64_t n : lengths) {
    const int64_t outer = 6;
    std::vector<double> x(static_cast<size_t>(outer * n));
    for (double& v : x) v = static_cast<float>(nd(rng));
    auto at = [&](int64_t r, int64_t i) -> double& { return x[static_cast<size_t>(r * n + i)]; };
    for (int64_t i = 0; i < n; i += 3) at(1, i) = -kInf;                      // a mask (row 1)
    for (int64_t i = 0; i < n; ++i) at(2, i) = -kInf;                         // all masked: NaN
    at(3, n / 2) = kNaN;                                                      // a NaN: NaN row
    at(4, n - 1) = kInf;                                                      // +inf: NaN row
    for (int64_t i = 0; i < n; ++i) at(5, i) = 3e4 + static_cast<float>(i % 7);  // far from zero
    for (bool log : {false, true}) {
      HostTensor in = make(kFloat, {outer, n}, x), out = make(kFloat, {outer, n});
      be().softmax(0, nullptr, out, in, outer, n, 1, log);
      std::vector<double> got = out.values(), want = softmax_ref(in.values(), outer, n, 1, log);
      for (int64_t i = 0; i < n; ++i) {  // the reference's max drops a NaN; PyTorch's row is NaN
        want[static_cast<size_t>(3 * n + i)] = kNaN;
      }
      expect_near(got, want, 2e-6);
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << "row length " << n << (log ? " (log_softmax)" : " (softmax)");
        return;
      }
      for (int64_t i = 0; i < n; i += 3) {  // masked positions are exactly 0 (log: -inf); n = 1 is all masked
        if (n > 1) EXPECT_EQ(got[static_cast<size_t>(n + i)], log ? -kInf : 0.0) << "n " << n << " i " << i;
      }
      rows_checked += static_cast<int>(outer);
    }
  }
  EXPECT_EQ(rows_checked, static_cast<int>(lengths.size()) * 6 * 2);
}

}  // namespace reduce_test
}  // namespace
}  // namespace cpu_test
