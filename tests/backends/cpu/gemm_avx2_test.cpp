// CPU backend: the AVX2 float32 GEMM kernels (src/backends/cpu/gemm_avx2.cpp), called directly,
// through the sweeps of gemm_check.h (a triple loop in double over M/N/K tails, panels, the MLP
// step's shapes, padded strides, alpha and beta); and which products gemm_f32 routes to them.
// ctest runs this binary with LOCUS_CPU_ISA=avx2 and portable too (backends.cpu_conv_avx2,
// backends.cpu_convert_portable): on an AVX-512 CPU the first routes here what an AVX2 CPU would.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/cpu/blas.h"
#include "backends/cpu/gemm_avx2.h"
#include "backends/cpu/gemm_avx512.h"
#include "gemm_check.h"

namespace gemm_avx2_test {
namespace {

using namespace locus_test_gemm;
namespace g = locus::cpu::gemm_avx2;

// The kernels are called directly, so they run under a LOCUS_CPU_ISA cap too (which only stops
// gemm_f32 routing to them); only a CPU without AVX2 and FMA cannot run them.
bool cpu_has_avx2() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
#define SKIP_WITHOUT_AVX2() \
  if (!cpu_has_avx2()) GTEST_SKIP() << "no AVX2 + FMA on this CPU: the kernels cannot run"

void kernels(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  g::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

TEST(CpuGemmAvx2, TailsOneToSeventeen) {
  SKIP_WITHOUT_AVX2();
  tails_one_to_seventeen(kernels);
}

TEST(CpuGemmAvx2, PanelsAndMultiplesOf16) {
  SKIP_WITHOUT_AVX2();
  panels_and_multiples_of_16(kernels);
}

TEST(CpuGemmAvx2, MlpShapes) {
  SKIP_WITHOUT_AVX2();
  mlp_shapes(kernels);
}

// Where the kernels serve (AVX2 without the AVX-512 kernels), gemm_f32 sends them the products
// with a short K: the MLP's gradients and the CNN linear layer's; Linear's forward (NT), TT, the
// squares from 256 and the products over 40 MFLOP go to OpenBLAS. The result is the same either way.
TEST(CpuGemmAvx2, Routing) {
  const bool serves = g::available() && !locus::cpu::gemm_avx512::available();
  EXPECT_EQ(g::routes(true, false, 256, 784, 64), serves);   // MLP layer 1, weight gradient
  EXPECT_EQ(g::routes(false, false, 64, 256, 128), serves);  // MLP layer 2, input gradient
  EXPECT_EQ(g::routes(false, false, 64, 784, 256), serves);  // 64 rows: up to k = 256
  EXPECT_EQ(g::routes(false, false, 64, 1568, 10), serves);  // the CNN's linear layer, input gradient
  EXPECT_EQ(g::routes(true, false, 10, 1568, 64), serves);   // and its weight gradient
  EXPECT_EQ(g::routes(false, false, 128, 128, 128), serves);
  EXPECT_FALSE(g::routes(false, true, 64, 256, 784));  // NT: OpenBLAS
  EXPECT_FALSE(g::routes(true, true, 64, 256, 64));    // TT is not handled
  EXPECT_FALSE(g::routes(false, false, 256, 256, 256));
  EXPECT_FALSE(g::routes(true, false, 784, 256, 256));
  EXPECT_FALSE(g::routes(false, false, 64, 256, 784));
  EXPECT_FALSE(g::routes(false, false, 1024, 1024, 64));  // 134 MFLOP
  EXPECT_FALSE(g::routes(false, false, 4, 256, 64));      // fewer than 8 rows
  EXPECT_FALSE(g::routes(false, false, 64, 8, 64));       // fewer than 16 columns
  check({true, false, 256, 784, 64, 0, 1.0f, 0.0f}, 5, locus::cpu::gemm_f32);
  check({false, false, 64, 256, 128, 2, 1.0f, 1.0f}, 6, locus::cpu::gemm_f32);
  check({false, false, 64, 1568, 10, 0, -2.0f, 0.0f}, 7, locus::cpu::gemm_f32);
  check({false, false, 300, 200, 100, 1, 1.0f, 0.5f}, 8, locus::cpu::gemm_f32);
}

// The kernels serve where the CPU has AVX2 and FMA unless LOCUS_CPU_ISA is generic or portable
// (ctest backends.cpu_convert_portable: off there, and nothing is routed to them).
TEST(CpuGemmAvx2, FollowLocusCpuIsa) {
  const char* isa = std::getenv("LOCUS_CPU_ISA");
  const bool capped = isa != nullptr && (std::string(isa) == "generic" || std::string(isa) == "portable");
  EXPECT_EQ(g::available(), cpu_has_avx2() && !capped);
  if (!g::available()) EXPECT_FALSE(g::routes(true, false, 256, 784, 64));
}

}  // namespace
}  // namespace gemm_avx2_test
