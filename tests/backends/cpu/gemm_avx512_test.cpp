// CPU backend: the AVX-512 float32 GEMM kernels (src/backends/cpu/gemm_avx512.cpp), called
// directly, against a triple loop in double over M/N/K tails 1..17, K = 0, multiples of 16, the
// MLP step's shapes, padded row strides, alpha != 1 and beta 0 (over NaN), 1 and other, for NN,
// TN and NT; and which products gemm_f32 routes to them. ctest runs this binary with
// LOCUS_CPU_ISA=avx2 and portable too (backends.cpu_conv_avx2, backends.cpu_convert_portable):
// nothing is routed to the kernels there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/gemm_avx512.h"

namespace {

namespace g = locus::cpu::gemm_avx512;

// The kernels are called directly, so they run under a LOCUS_CPU_ISA cap too (which only stops
// gemm_f32 routing to them); only a CPU without AVX-512F cannot run them.
bool cpu_has_avx512() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}
#define SKIP_WITHOUT_AVX512() \
  if (!cpu_has_avx512()) GTEST_SKIP() << "no AVX-512F on this CPU: the kernels cannot run"

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;  // added to every row stride
  float alpha, beta;
};

std::string name(const Case& c) {
  return std::string(c.ta ? "T" : "N") + (c.tb ? "T" : "N") + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " pad=" + std::to_string(c.pad) +
         " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta);
}

// Runs one case through `fn` (gemm_avx512::gemm or cpu::gemm_f32) and checks C against double
// sums: every element within a bound on float rounding of its terms; C's padding untouched.
template <class Fn>
void check(const Case& c, uint32_t seed, Fn&& fn) {
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const int64_t lda = a_cols + c.pad, ldb = b_cols + c.pad, ldc = c.n + c.pad;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  // exactly sized buffers: a read past the last row's end would show under ASan
  std::vector<float> a(static_cast<size_t>(a_rows > 0 ? (a_rows - 1) * lda + a_cols : 0));
  std::vector<float> b(static_cast<size_t>(b_rows > 0 ? (b_rows - 1) * ldb + b_cols : 0));
  std::vector<float> cm(static_cast<size_t>((c.m - 1) * ldc + c.n));
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < ldc && i * ldc + j < static_cast<int64_t>(cm.size()); ++j)
      cm[i * ldc + j] = j >= c.n ? 7.0f : c.beta == 0 ? nan : u(rng);  // beta 0 must overwrite NaN
  const std::vector<float> c0 = cm;
  fn(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta, cm.data(), ldc);
  auto A = [&](int64_t i, int64_t p) { return double(c.ta ? a[p * lda + i] : a[i * lda + p]); };
  auto B = [&](int64_t p, int64_t j) { return double(c.tb ? b[j * ldb + p] : b[p * ldb + j]); };
  int bad = 0;
  for (int64_t i = 0; i < c.m && bad < 5; ++i)
    for (int64_t j = 0; j < ldc && i * ldc + j < static_cast<int64_t>(cm.size()); ++j) {
      const float got = cm[i * ldc + j];
      if (j >= c.n) {  // padding
        if (got != 7.0f) ADD_FAILURE() << name(c) << ": wrote C's padding at " << i << "," << j, ++bad;
        continue;
      }
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < c.k; ++p) sum += A(i, p) * B(p, j), mag += std::abs(A(i, p) * B(p, j));
      const double old = c.beta == 0 ? 0.0 : double(c0[i * ldc + j]);
      const double want = double(c.alpha) * sum + double(c.beta) * old;
      const double tol = 2e-7 * double(c.k + 4) * (std::abs(c.alpha) * mag + std::abs(c.beta * old)) + 1e-30;
      if (!(std::abs(got - want) <= tol))
        ADD_FAILURE() << name(c) << ": C[" << i << "," << j << "] = " << got << ", want " << want, ++bad;
    }
}

void kernels(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  g::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

constexpr bool kTransposes[][2] = {{false, false}, {true, false}, {false, true}};  // NN, TN, NT

// Every m, n in 1..17 with K = 0, 1, 16, 17 (K tails and a whole vector), alpha 1.5, beta cycling
// 0, 1, -0.5 and strides cycling dense and padded.
TEST(CpuGemmAvx512, TailsOneToSeventeen) {
  SKIP_WITHOUT_AVX512();
  const float betas[] = {0.0f, 1.0f, -0.5f};
  int idx = 0;
  for (auto [ta, tb] : kTransposes)
    for (int64_t k : {0, 1, 16, 17})
      for (int64_t m = 1; m <= 17; ++m)
        for (int64_t n = 1; n <= 17; ++n, ++idx)
          check({ta, tb, m, n, k, idx % 2 == 0 ? 0 : 3, 1.5f, betas[idx % 3]}, static_cast<uint32_t>(idx), kernels);
}

// Wider N and K around the tiles and panels (N: 16-column vectors, 64-column panels, 8-row NT
// blocks; K: 16-lane steps, 128-row NN/TN panels), and multiples of 16.
TEST(CpuGemmAvx512, PanelsAndMultiplesOf16) {
  SKIP_WITHOUT_AVX512();
  const float betas[] = {0.0f, 1.0f, 0.25f};
  int idx = 0;
  for (auto [ta, tb] : kTransposes)
    for (int64_t m : {5, 16, 19, 48})
      for (int64_t n : {15, 16, 31, 33, 64, 65, 79, 128})
        for (int64_t k : {2, 15, 31, 32, 127, 128, 129, 257}) {
          check({ta, tb, m, n, k, idx % 2 == 0 ? 0 : 5, idx % 4 == 0 ? 1.0f : -0.75f, betas[idx % 3]},
                static_cast<uint32_t>(1000 + idx), kernels);
          ++idx;
        }
}

// The MLP step's products (784-256-128-10, batch 64) as the Linear layers make them, large enough
// to be split over the pool; the weight gradients with beta 1 as well (accumulation).
TEST(CpuGemmAvx512, MlpShapes) {
  SKIP_WITHOUT_AVX512();
  const Case cases[] = {
      {false, true, 64, 256, 784, 0, 1.0f, 0.0f},  {true, false, 256, 784, 64, 0, 1.0f, 0.0f},
      {true, false, 256, 784, 64, 0, 1.0f, 1.0f},  {false, true, 64, 128, 256, 0, 1.0f, 0.0f},
      {false, false, 64, 256, 128, 0, 1.0f, 0.0f}, {true, false, 128, 256, 64, 0, 1.0f, 1.0f},
      {false, true, 64, 10, 128, 0, 1.0f, 0.0f},   {false, false, 64, 128, 10, 0, 1.0f, 0.0f},
      {true, false, 10, 128, 64, 0, 1.0f, 0.0f},   {false, false, 64, 784, 256, 0, 1.0f, 0.0f},
      {false, true, 64, 256, 784, 9, 0.5f, 2.0f},  {true, false, 256, 784, 64, 1, -1.0f, 0.5f},
  };
  uint32_t seed = 77;
  for (const Case& c : cases) check(c, seed++, kernels);
}

// gemm_f32 sends the MLP's products here and a 1024 square, a 512 square and the CNN's linear
// layer (10 outputs) to OpenBLAS; the result is the same either way.
TEST(CpuGemmAvx512, Routing) {
  EXPECT_FALSE(g::routes(false, false, 1024, 1024, 1024));
  EXPECT_FALSE(g::routes(false, true, 512, 512, 512));
  EXPECT_FALSE(g::routes(false, true, 64, 10, 1568));
  EXPECT_FALSE(g::routes(true, false, 10, 1568, 64));
  EXPECT_FALSE(g::routes(true, true, 64, 256, 784));  // TT is not handled
  EXPECT_EQ(g::routes(false, true, 64, 256, 784), g::available());
  EXPECT_EQ(g::routes(true, false, 256, 784, 64), g::available());
  EXPECT_EQ(g::routes(false, false, 64, 256, 128), g::available());
  // NT at any size for up to 64 rows of A and k from 256 (Linear 4096's forward at batch 64, the
  // MLP's second layer)
  EXPECT_EQ(g::routes(false, true, 64, 4096, 4096), g::available());
  EXPECT_EQ(g::routes(false, true, 16, 4096, 4096), g::available());
  EXPECT_FALSE(g::routes(false, true, 96, 4096, 4096));
  EXPECT_EQ(g::routes(false, true, 64, 4096, 256), g::available());
  EXPECT_EQ(g::routes(false, true, 64, 128, 256), g::available());
  EXPECT_FALSE(g::routes(false, true, 64, 4096, 128));
  EXPECT_FALSE(g::routes(false, true, 8, 4096, 4096));
  check({false, true, 64, 256, 784, 0, 1.0f, 0.0f}, 5, locus::cpu::gemm_f32);
  check({false, true, 64, 128, 256, 0, 1.0f, 1.0f}, 8, locus::cpu::gemm_f32);
  check({false, true, 64, 1024, 2048, 3, 1.0f, 0.5f}, 7, locus::cpu::gemm_f32);  // 0.27 GFLOP
  check({false, false, 300, 200, 100, 2, 1.0f, 1.0f}, 6, locus::cpu::gemm_f32);
}

// The kernels run where the CPU has AVX-512F unless LOCUS_CPU_ISA caps the level below
// avx512 (ctest backends.cpu_conv_avx2: off there, and nothing is routed to them).
TEST(CpuGemmAvx512, FollowLocusCpuIsa) {
  const char* isa = std::getenv("LOCUS_CPU_ISA");
  const bool capped = isa != nullptr && *isa != '\0' && std::string(isa) != "avx512" && std::string(isa) != "avx512_bf16";
  EXPECT_EQ(g::available(), cpu_has_avx512() && !capped);
  if (capped) EXPECT_FALSE(g::routes(false, true, 64, 256, 784));
}

}  // namespace
