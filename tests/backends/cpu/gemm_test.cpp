// CPU backend: the gemm entry point (batches, transposes, alpha/beta, every numeric dtype).
// blas_test.cpp covers gemm_f32/gemm_f64 themselves.
#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace gemm_test {

using Gemm = backend::Backend::Gemm;

// C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] in double, from row-major stored matrices.
std::vector<double> gemm_ref(const Gemm& g, const std::vector<double>& a, const std::vector<double>& b,
                             const std::vector<double>& c) {
  std::vector<double> out = c;
  for (int64_t bi = 0; bi < g.batch; ++bi)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          double av = g.trans_a ? a[static_cast<size_t>(bi * g.stride_a + p * g.lda + i)] : a[static_cast<size_t>(bi * g.stride_a + i * g.lda + p)];
          double bv = g.trans_b ? b[static_cast<size_t>(bi * g.stride_b + j * g.ldb + p)] : b[static_cast<size_t>(bi * g.stride_b + p * g.ldb + j)];
          s += av * bv;
        }
        size_t ci = static_cast<size_t>(bi * g.stride_c + i * g.ldc + j);
        out[ci] = g.alpha * s + (g.beta == 0 ? 0 : g.beta * c[ci]);
      }
  return out;
}

void check(ScalarType dt, bool ta, bool tb, int64_t batch, int64_t m, int64_t n, int64_t k, double alpha, double beta,
           double tol) {
  Gemm g;
  g.dtype = dt;
  g.trans_a = ta;
  g.trans_b = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.alpha = alpha;
  g.beta = beta;
  g.lda = ta ? m : k;
  g.ldb = tb ? k : n;
  g.ldc = n;
  g.batch = batch;
  g.stride_a = m * k;
  g.stride_b = k * n;
  g.stride_c = m * n;
  std::vector<double> a(static_cast<size_t>(batch * m * k)), b(static_cast<size_t>(batch * k * n)), c(static_cast<size_t>(batch * m * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(static_cast<int>(i * 7 % 11) - 5);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(static_cast<int>(i * 5 % 9) - 4);
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<double>(i % 3);
  HostTensor ta_ = make(dt, {batch * m * k}, a), tb_ = make(dt, {batch * k * n}, b), tc = make(dt, {batch * m * n}, c);
  g.a = ta_.ref.buf;
  g.b = tb_.ref.buf;
  g.c = tc.ref.buf;
  be().gemm(0, nullptr, g);
  expect_near(tc.values(), gemm_ref(g, a, b, c), tol);
}

TEST(CpuGemm, FloatTransposesBatchesAlphaBeta) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      check(kFloat, ta, tb, 1, 3, 4, 5, 1, 0, 1e-6);
      check(kFloat, ta, tb, 3, 7, 5, 9, 2, 0.5, 1e-6);
      check(kDouble, ta, tb, 2, 4, 6, 3, -1, 1, 1e-12);
    }
  check(kFloat, false, false, 1, 64, 70, 130, 1, 0, 1e-6);
}

TEST(CpuGemm, HalfAndBFloat16ThroughFloat) {
  for (bool ta : {false, true}) {
    check(kHalf, ta, !ta, 2, 3, 4, 5, 1, 0, 1e-3);
    check(kBFloat16, ta, ta, 2, 3, 4, 5, 1, 1, 1e-2);
  }
}

TEST(CpuGemm, Integers) {
  for (ScalarType dt : {kInt, kLong})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) check(dt, ta, tb, 2, 3, 4, 5, 1, 0, 0);
  check(kLong, false, true, 1, 5, 6, 7, 3, 2, 0);
  // uint8 with non-negative data
  Gemm g;
  g.dtype = kByte;
  g.m = 2; g.n = 2; g.k = 2;
  g.lda = 2; g.ldb = 2; g.ldc = 2;
  HostTensor a = make(kByte, {4}, {1, 2, 3, 4}), b = make(kByte, {4}, {5, 6, 7, 8}), c = make(kByte, {4}, {9});
  g.a = a.ref.buf; g.b = b.ref.buf; g.c = c.ref.buf;
  be().gemm(0, nullptr, g);
  EXPECT_EQ(c.values(), (std::vector<double>{19, 22, 43, 50}));
}

TEST(CpuGemm, BetaZeroIgnoresNaNInC) {
  Gemm g;
  g.m = 1; g.n = 1; g.k = 2;
  g.lda = 2; g.ldb = 1; g.ldc = 1;
  HostTensor a = make(kFloat, {2}, {1, 2}), b = make(kFloat, {2}, {3, 4}), c = make(kFloat, {1}, {NAN});
  g.a = a.ref.buf; g.b = b.ref.buf; g.c = c.ref.buf;
  be().gemm(0, nullptr, g);
  EXPECT_EQ(c.values(), (std::vector<double>{11}));
}

}  // namespace gemm_test
}  // namespace
}  // namespace cpu_test
