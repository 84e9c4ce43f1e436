// Reductions and softmax on opencl:0 against host loops.
#include <cmath>
#include <limits>

#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace reduce_test {

using backend::ReduceOp;

// Reduces a [rows, cols] input (read transposed from a [cols, rows] buffer, so strided) over
// its last dim.
std::vector<double> host_reduce(ReduceOp op, const std::vector<double>& m, int rows, int cols) {
  std::vector<double> out;
  for (int r = 0; r < rows; ++r) {
    double acc = op == ReduceOp::Prod || op == ReduceOp::All ? 1 : 0;
    int64_t best = 0;
    for (int c = 0; c < cols; ++c) {
      double v = m[static_cast<size_t>(r * cols + c)];
      switch (op) {
        case ReduceOp::Sum: case ReduceOp::Mean: acc += v; break;
        case ReduceOp::Prod: acc *= v; break;
        case ReduceOp::Any: acc = acc != 0 || v != 0; break;
        case ReduceOp::All: acc = acc != 0 && v != 0; break;
        case ReduceOp::Max: if (c == 0 || std::isnan(v) || (!std::isnan(acc) && v > acc)) acc = std::isnan(acc) && c ? acc : v; break;
        case ReduceOp::Min: if (c == 0 || std::isnan(v) || (!std::isnan(acc) && v < acc)) acc = std::isnan(acc) && c ? acc : v; break;
        case ReduceOp::ArgMax: case ReduceOp::ArgMin: {
          double b = m[static_cast<size_t>(r * cols + best)];
          bool take = false;
          if (std::isnan(b)) take = false;
          else if (std::isnan(v)) take = true;
          else take = op == ReduceOp::ArgMax ? v > b : v < b;
          if (take) best = c;
          break;
        }
      }
    }
    if (op == ReduceOp::Mean) acc /= cols;
    out.push_back(op == ReduceOp::ArgMax || op == ReduceOp::ArgMin ? static_cast<double>(best) : acc);
  }
  return out;
}

void check_reduce(ReduceOp op, ScalarType in_dt, ScalarType out_dt, int rows, int cols, std::vector<double> m) {
  for (double& x : m) x = round_to(in_dt, x);
  std::vector<double> t(m.size());  // stored transposed
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = m[static_cast<size_t>(r * cols + c)];
  auto I = upload_as(0, in_dt, t, 8 * element_size(in_dt));
  DevMem O(0, static_cast<size_t>(rows) * 8 + 64);
  be().reduce(0, nullptr, op, ref(O.at(8), out_dt, {rows}), ref(I->at(8 * element_size(in_dt)), in_dt, {rows, cols}, {1, rows}));
  std::vector<double> want = host_reduce(op, m, rows, cols);
  for (double& w : want) w = round_to(out_dt, w);
  std::vector<double> got = download_as(0, out_dt, O.at(8), static_cast<size_t>(rows));
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "reduce " << static_cast<int>(op) << " row " << i;
    } else {
      double tl = (in_dt == kFloat ? 1e-5 : in_dt == kHalf ? 2e-3 : 1e-12) * std::max(1.0, std::fabs(want[i]));
      if (!is_floating_point(out_dt)) tl = 0;
      EXPECT_NEAR(got[i], want[i], tl) << "reduce " << static_cast<int>(op) << " " << dtype_name(in_dt) << " -> "
                                       << dtype_name(out_dt) << " rows " << rows << " cols " << cols << " row " << i;
    }
  }
}

std::vector<double> pattern(int n, double scale, int mod) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(((i * 37) % mod - mod / 2) * scale);
  return v;
}

TEST(OpenCLReduce, FloatOpsShortAndLongRows) {
  LOCUS_REQUIRE_OPENCL(1);
  // 7 columns: one work-item per row; 1000 columns: one work-group per row
  for (int cols : {7, 1000}) {
    std::vector<double> m = pattern(3 * cols, 0.125, 23);
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min, ReduceOp::ArgMax,
                        ReduceOp::ArgMin, ReduceOp::Any, ReduceOp::All})
      check_reduce(op, kFloat, op == ReduceOp::ArgMax || op == ReduceOp::ArgMin ? kLong
                               : op == ReduceOp::Any || op == ReduceOp::All     ? kBool
                                                                                : kFloat,
                   3, cols, m);
    std::vector<double> small = pattern(3 * cols, 0.001, 7);
    for (double& x : small) x += 1;
    check_reduce(ReduceOp::Prod, kFloat, kFloat, 3, cols, small);
  }
}

TEST(OpenCLReduce, NaNPropagatesAndArgFirstOccurrence) {
  LOCUS_REQUIRE_OPENCL(1);
  for (int cols : {5, 600}) {
    std::vector<double> m(static_cast<size_t>(3 * cols), 1.0);
    m[2] = 4;
    m[4] = 4;  // row 0: ties, the first wins
    m[static_cast<size_t>(cols + 3)] = NAN;
    m[static_cast<size_t>(cols + cols - 1)] = NAN;  // row 1: the first NaN wins
    m[static_cast<size_t>(2 * cols + cols - 1)] = -3;
    for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) check_reduce(op, kFloat, kFloat, 3, cols, m);
    for (ReduceOp op : {ReduceOp::ArgMax, ReduceOp::ArgMin}) check_reduce(op, kFloat, kLong, 3, cols, m);
  }
}

TEST(OpenCLReduce, IntegerSumsAccumulateInInt64) {
  LOCUS_REQUIRE_OPENCL(1);
  // int32 values whose sum overflows int32
  std::vector<double> big(2 * 300, 2.0e9);
  check_reduce(ReduceOp::Sum, kInt, kLong, 2, 300, big);
  check_reduce(ReduceOp::Sum, kByte, kLong, 2, 300, std::vector<double>(600, 255));
  std::vector<double> bits = pattern(2 * 9, 1, 3);
  for (double& b : bits) b = b != 0;
  check_reduce(ReduceOp::Sum, kBool, kLong, 2, 9, bits);
  check_reduce(ReduceOp::Any, kBool, kBool, 2, 9, bits);
  check_reduce(ReduceOp::All, kBool, kBool, 2, 9, bits);
  check_reduce(ReduceOp::Max, kInt, kInt, 2, 9, pattern(18, 1, 11));
  check_reduce(ReduceOp::ArgMin, kLong, kLong, 2, 9, pattern(18, 1, 11));
  check_reduce(ReduceOp::Sum, kHalf, kHalf, 2, 9, pattern(18, 0.5, 11));
  check_reduce(ReduceOp::Mean, kDouble, kDouble, 2, 700, pattern(1400, 0.25, 101));
}

TEST(OpenCLReduce, SeveralTrailingDimsAndEmpty) {
  LOCUS_REQUIRE_OPENCL(1);
  // in [2, 3, 4] reduced over the last two dims into out [2]
  std::vector<double> v = pattern(24, 1, 13);
  auto I = upload_as(0, kFloat, v);
  DevMem O(0, 64);
  be().reduce(0, nullptr, ReduceOp::Sum, ref(O.at(), kFloat, {2}), ref(I->at(), kFloat, {2, 3, 4}));
  double s0 = 0, s1 = 0;
  for (int i = 0; i < 12; ++i) s0 += v[static_cast<size_t>(i)], s1 += v[static_cast<size_t>(i + 12)];
  expect_close(kFloat, download_as(0, kFloat, O.at(), 2), {s0, s1}, "sum over two dims");
  // full reduction to a 0-dim out
  be().reduce(0, nullptr, ReduceOp::Sum, ref(O.at(), kFloat, {}), ref(I->at(), kFloat, {2, 3, 4}));
  expect_close(kFloat, download_as(0, kFloat, O.at(), 1), {s0 + s1}, "sum all");
  // empty reduced extent: sum 0, prod 1
  be().reduce(0, nullptr, ReduceOp::Sum, ref(O.at(), kFloat, {2}), ref(I->at(), kFloat, {2, 0}));
  expect_close(kFloat, download_as(0, kFloat, O.at(), 2), {0, 0}, "empty sum");
  be().reduce(0, nullptr, ReduceOp::Prod, ref(O.at(), kFloat, {2}), ref(I->at(), kFloat, {2, 0}));
  expect_close(kFloat, download_as(0, kFloat, O.at(), 2), {1, 1}, "empty prod");
}

void check_softmax(int64_t outer, int64_t dim, int64_t inner, bool log) {
  int64_t n = outer * dim * inner;
  std::vector<double> v = pattern(static_cast<int>(n), 0.37, 29);
  v[0] = 80;  // large: without subtracting the max, exp overflows float
  for (double& x : v) x = round_to(kFloat, x);
  auto I = upload_as(0, kFloat, v, 4);
  DevMem O(0, static_cast<size_t>(n) * 4 + 16);
  TensorRef o = ref(O.at(4), kFloat, {n}), in = ref(I->at(4), kFloat, {n});
  be().softmax(0, nullptr, o, in, outer, dim, inner, log);
  std::vector<double> want(static_cast<size_t>(n));
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t c = 0; c < inner; ++c) {
      auto at = [&](int64_t j) { return static_cast<size_t>((a * dim + j) * inner + c); };
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < dim; ++j) m = std::max(m, v[at(j)]);
      for (int64_t j = 0; j < dim; ++j) s += std::exp(v[at(j)] - m);
      for (int64_t j = 0; j < dim; ++j) want[at(j)] = log ? v[at(j)] - m - std::log(s) : std::exp(v[at(j)] - m) / s;
    }
  std::vector<double> got = download_as(0, kFloat, O.at(4), static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i])))
        << (log ? "log_softmax" : "softmax") << " [" << outer << "," << dim << "," << inner << "] at " << i;
}

TEST(OpenCLReduce, SoftmaxSerialAndGroup) {
  LOCUS_REQUIRE_OPENCL(1);
  for (bool log : {false, true}) {
    check_softmax(4, 10, 1, log);
    check_softmax(2, 5, 3, log);
    check_softmax(3, 1000, 1, log);
  }
}

}  // namespace reduce_test
}  // namespace
}  // namespace locus::opencl::test
