// CPU backend: the AVX-512 float32 GEMM kernels (src/backends/cpu/gemm_avx512.cpp), called
// directly, through the sweeps of gemm_check.h (a triple loop in double over M/N/K tails, panels,
// the MLP step's shapes, padded strides, alpha and beta); and which products gemm_f32 routes to
// them. ctest runs this binary with LOCUS_CPU_ISA=avx2 and portable too (backends.cpu_conv_avx2,
// backends.cpu_convert_portable): nothing is routed to the kernels there.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/gemm_avx512.h"
#include "gemm_check.h"
#include "locus/parallel.h"

namespace gemm_avx512_test {
namespace {

using namespace locus_test_gemm;
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

void kernels(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  g::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

TEST(CpuGemmAvx512, TailsOneToSeventeen) {
  SKIP_WITHOUT_AVX512();
  tails_one_to_seventeen(kernels);
}

TEST(CpuGemmAvx512, PanelsAndMultiplesOf16) {
  SKIP_WITHOUT_AVX512();
  panels_and_multiples_of_16(kernels);
}

TEST(CpuGemmAvx512, MlpShapes) {
  SKIP_WITHOUT_AVX512();
  mlp_shapes(kernels);
}

// An NT product whose B (a Linear layer's weight) is large enough that each thread prefetches its
// rows one block ahead (more than 16 MiB a thread: 2400 x 4100 floats with a padded stride), then
// with a last block of 5 rows (2405 = 400 x 6 + 5); K tails after 32 panels; alpha and beta.
TEST(CpuGemmAvx512, LargeWeightPrefetched) {
  SKIP_WITHOUT_AVX512();
  check({false, true, 6, 2400, 4100, 3, 0.5f, 0.0f}, 4242, kernels);
  check({false, true, 5, 2405, 4099, 0, 1.0f, -1.0f}, 4243, kernels);
}

// NN and TN products whose B fits every thread (at most 256 KB) and whose C has 32 rows or more
// are split over the threads by blocks of 8 rows: rows not a multiple of 8 (the last share
// short), of 6 (the kernels' tiles then start mid-share), padded strides, alpha and beta; then
// the same shapes with a B just over the bound (split by columns). On one thread and on the pool,
// the same bits: every element is summed in the same order whichever thread computes it.
TEST(CpuGemmAvx512, RowSharesCoverEveryRow) {
  SKIP_WITHOUT_AVX512();
  const int before = locus::get_num_threads();
  for (int threads : {2, 3}) {
    locus::set_num_threads(threads);
    check({false, false, 37, 160, 96, 0, 1.0f, 0.0f}, 11, kernels);
    check({true, false, 45, 300, 64, 5, 0.5f, 1.0f}, 12, kernels);
    check({false, false, 133, 256, 256, 3, 1.0f, -0.5f}, 13, kernels);  // B = 256 KB, the bound
    check({true, false, 256, 784, 64, 0, 1.0f, 0.0f}, 14, kernels);     // the MLP's weight gradient
    check({false, false, 64, 257, 256, 0, 1.0f, 0.0f}, 15, kernels);    // B just over: by columns
  }
  locus::set_num_threads(2);
  const int64_t m = 45, n = 300, k = 64;
  std::vector<float> a(static_cast<size_t>(k * m)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) / 999.0f - 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 104729) % 1000) / 999.0f - 0.5f;
  std::vector<float> pooled(static_cast<size_t>(m * n)), alone(pooled.size());
  g::gemm(true, false, m, n, k, 1.0f, a.data(), m, b.data(), n, 0.0f, pooled.data(), n);
  locus::set_num_threads(1);
  g::gemm(true, false, m, n, k, 1.0f, a.data(), m, b.data(), n, 0.0f, alone.data(), n);
  locus::set_num_threads(before);
  EXPECT_EQ(pooled, alone);
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
}  // namespace gemm_avx512_test
