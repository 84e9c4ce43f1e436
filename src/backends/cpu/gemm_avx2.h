#pragma once
// Float32 GEMM kernels for AVX2 + FMA without packing B, for the small and medium products of a
// training step on a CPU without AVX-512 (an MLP's linear layers): src/backends/cpu/gemm_avx2.cpp,
// the AVX2 counterpart of gemm_avx512.h. blas.cpp's gemm_f32 sends a product here when routes()
// says so, everything else to OpenBLAS (docs/gemm.md).
#include <cstdint>

namespace locus::cpu::gemm_avx2 {

/// Whether this CPU runs the kernels: AVX2 and FMA, and LOCUS_CPU_ISA not generic or portable.
bool available();

/// Whether gemm_f32 sends this product (row-major, op(A) m x k, op(B) k x n) here: available(),
/// the AVX-512 kernels not available (they serve an AVX-512 CPU), A and B not both transposed,
/// and a shape where the kernels were measured faster than OpenBLAS.
bool routes(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k);

/// C = alpha * op(A) @ op(B) + beta * C, row-major, as cblas_sgemm (beta == 0 overwrites C without
/// reading it; k == 0 gives beta * C), for any m, n, k >= 0 and any strides, ldc >= n (rows of C
/// must not overlap). Not both trans_a and trans_b. Split over the pool from about 0.5 MFLOP; run
/// only where available().
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace locus::cpu::gemm_avx2
