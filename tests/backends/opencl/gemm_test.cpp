// GEMM through CLBlast (float32/float64) and the tiled fallback kernel (other dtypes) against a
// host triple loop: transposes, leading dims wider than the rows, byte offsets, batches, beta.
#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace gemm_test {

using Gemm = backend::Backend::Gemm;

void check_gemm(ScalarType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch, double alpha,
                double beta) {
  int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
  int64_t arows = ta ? k : m, brows = tb ? n : k;
  int64_t sa = arows * lda + 5, sb = brows * ldb, sc = m * ldc + 1;
  std::vector<double> A(static_cast<size_t>(sa * batch)), B(static_cast<size_t>(sb * batch)),
      C(static_cast<size_t>(sc * batch));
  for (size_t i = 0; i < A.size(); ++i) A[i] = round_to(dt, static_cast<double>((i * 7) % 11) - 5);
  for (size_t i = 0; i < B.size(); ++i) B[i] = round_to(dt, static_cast<double>((i * 5) % 9) - 4);
  for (size_t i = 0; i < C.size(); ++i) C[i] = beta == 0 ? NAN : round_to(dt, static_cast<double>(i % 3));
  if (!is_floating_point(dt) && beta == 0) std::fill(C.begin(), C.end(), 77);
  size_t es = element_size(dt);
  auto dA = upload_as(0, dt, A, 4 * es), dB = upload_as(0, dt, B, 2 * es), dC = upload_as(0, dt, C, es);
  Gemm g;
  g.dtype = dt;
  g.trans_a = ta, g.trans_b = tb;
  g.m = m, g.n = n, g.k = k, g.alpha = alpha, g.beta = beta;
  g.a = dA->at(4 * es), g.b = dB->at(2 * es), g.c = dC->at(es);
  g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.batch = batch, g.stride_a = sa, g.stride_b = sb, g.stride_c = sc;
  be().gemm(0, nullptr, g);
  std::vector<double> want = C;
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          double a = A[static_cast<size_t>(bt * sa + (ta ? p * lda + i : i * lda + p))];
          double b = B[static_cast<size_t>(bt * sb + (tb ? j * ldb + p : p * ldb + j))];
          acc += a * b;
        }
        double& c = want[static_cast<size_t>(bt * sc + i * ldc + j)];
        c = round_to(dt, alpha * acc + (beta == 0 ? 0 : beta * c));
      }
  std::vector<double> got = download_as(0, dt, dC->at(es), C.size());
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        size_t o = static_cast<size_t>(bt * sc + i * ldc + j);
        double tl = dt == kHalf ? 0.02 * std::max(1.0, std::fabs(want[o])) : 1e-4 * std::max(1.0, std::fabs(want[o]));
        ASSERT_NEAR(got[o], want[o], tl) << dtype_name(dt) << " ta " << ta << " tb " << tb << " batch " << bt
                                         << " (" << i << ", " << j << ")";
      }
}

TEST(OpenCLGemm, Float32ThroughCLBlast) {
  LOCUS_REQUIRE_OPENCL(1);
  check_gemm(kFloat, false, false, 33, 17, 20, 1, 1.0, 0.0);
  check_gemm(kFloat, true, true, 9, 12, 7, 3, 0.5, 2.0);
  check_gemm(kFloat, false, true, 16, 16, 16, 2, 1.0, 1.0);
}

TEST(OpenCLGemm, Float64AndFallbackDtypes) {
  LOCUS_REQUIRE_OPENCL(1);
  check_gemm(kDouble, true, false, 10, 6, 5, 2, 1.0, 0.5);
  check_gemm(kInt, false, false, 19, 21, 18, 2, 1.0, 0.0);
  check_gemm(kInt, true, true, 5, 4, 3, 1, 2.0, 1.0);
  check_gemm(kHalf, false, true, 8, 9, 10, 1, 1.0, 0.0);
  check_gemm(kFloat, false, false, 3, 4, 0, 1, 1.0, 0.0);  // k == 0: C = 0 via the fallback
}

}  // namespace gemm_test
}  // namespace
}  // namespace locus::opencl::test
