#pragma once
// CPU GEMM for locus. The implementation and the measurements behind its choice: blas.cpp, docs/gemm.md.
#include <cstdint>
#include <functional>
namespace locus::cpu {
// Row-major C = alpha * op(A) @ op(B) + beta * C. lda/ldb/ldc are row strides (elements) of A, B, C as stored.
void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// gemm_f32 without the AVX-512 and AVX2 kernels (gemm_avx512.h, gemm_avx2.h): OpenBLAS, or the portable loops; for the
// benchmark that decides the routing (bench/sgemm_route.cpp).
void gemm_f32_blas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
              const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
// `batch` GEMMs with the same shape, entry i at a + i*stride_a (b, c likewise). Small entries run
// side by side, one per pool thread, each on a single BLAS thread (a batch of small GEMMs, as in a
// convolution, uses the cores far better that way); large ones one after the other on all threads.
void gemm_f32_batch(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, int64_t stride_a, const float* b, int64_t ldb, int64_t stride_b, float beta, float* c,
                    int64_t ldc, int64_t stride_c, int64_t batch);
// Runs fn(i) for every i in [0, chunks) on the pool threads side by side, each making
// single-threaded BLAS calls (gemm_f32/gemm_f64 called from fn), and returns true; returns false,
// running nothing, when that is not possible (fewer than 2 chunks or pool threads, already inside a
// parallel region, a BLAS without thread control): the caller then runs its work one after the
// other, with the BLAS's own threads. No other BLAS call runs meanwhile.
bool blas_side_by_side(int64_t chunks, const std::function<void(int64_t)>& fn);
const char* blas_name();          // e.g. "OpenBLAS 0.3.21 (SkylakeX kernel, 2 threads)"
// What serves gemm_f32's large products instead of the BLAS above, e.g. "oneDNN 2.6.3 dnnl_sgemm
// (float32 products from 0.25 GFLOP, not A B^T)"; empty when nothing does (no AVX-512, or no
// libdnnl.so.2).
const char* gemm_f32_large_name();
void blas_set_num_threads(int n); // called by locus::set_num_threads
}  // namespace locus::cpu
