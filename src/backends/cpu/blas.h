#pragma once
// CPU GEMM for locus. The implementation and the measurements behind its choice: blas.cpp, docs/gemm.md.
#include <cstdint>
namespace locus::cpu {
// Row-major C = alpha * op(A) @ op(B) + beta * C. lda/ldb/ldc are row strides (elements) of A, B, C as stored.
void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
              const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
const char* blas_name();          // e.g. "OpenBLAS 0.3.21 (SkylakeX kernel, 2 threads)"
void blas_set_num_threads(int n); // called by locus::set_num_threads
}  // namespace locus::cpu
