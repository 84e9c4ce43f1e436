// GEMM: cuBLAS for float32 and float64 (cublasSgemm/Dgemm and their strided-batched forms) and
// for float16/bfloat16 (cublasGemmEx, float accumulation; cuBLAS picks tensor cores where the
// device has them); the tiled kernel in gemm.cl for integer dtypes and for shapes cuBLAS
// refuses (leading dimensions below the row length, offsets that are not whole elements,
// sizes beyond int). float32 stays in CUBLAS_DEFAULT_MATH (no TF32), so results match the CPU.
//
// Row-major to column-major: C = op(A) op(B) row-major is C^T = op(B)^T op(A)^T column-major,
// so cuBLAS gets (B, A) swapped with n and m swapped; leading dimensions stay as they are.
// One cuBLAS handle per device (created on first use, with the device's context current); a
// lock per handle keeps cublasSetStream and the call together.
#include <climits>
#include <mutex>

#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/libraries.h"
#include "locus/error.h"

namespace locus::cuda {

struct Blas {
  std::mutex mu;
  cublasHandle_t h = nullptr;
};

namespace {

Blas& blas_of(int index) {
  CuDevice& d = Runtime::get().bind(index);
  std::lock_guard<std::mutex> lock(d.mu);
  if (!d.blas) {
    auto b = std::make_unique<Blas>();
    const Cublas& cb = require_cublas("GEMM");
    LOCUS_CUDA(cb.cublasCreate(&b->h), index, "creating the cuBLAS handle");
    d.blas = b.release();  // lives as long as the runtime (forever)
  }
  return *d.blas;
}

cudaDataType_t cuda_type(ScalarType t) {
  switch (t) {
    case kFloat: return CUDA_R_32F;
    case kDouble: return CUDA_R_64F;
    case kHalf: return CUDA_R_16F;
    default: return CUDA_R_16BF;
  }
}

void cublas_gemm(int index, cublasHandle_t h, const backend::Backend::Gemm& g) {
  cublasOperation_t ta = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb), ldc = static_cast<int>(g.ldc);
  int batch = static_cast<int>(g.batch);
  void* a = reinterpret_cast<void*>(dptr(g.a));
  void* b = reinterpret_cast<void*>(dptr(g.b));
  void* c = reinterpret_cast<void*>(dptr(g.c));
  std::string what = gpu::GpuBackend::gemm_label(g);
  if (g.dtype == kFloat) {
    float al = static_cast<float>(g.alpha), be = static_cast<float>(g.beta);
    auto A = static_cast<const float*>(a), B = static_cast<const float*>(b);
    auto C = static_cast<float*>(c);
    if (batch == 1)
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasSgemm(h, tb, ta, n, m, k, &al, B, ldb, A, lda, &be, C, ldc), index, what);
    else
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasSgemmStridedBatched(h, tb, ta, n, m, k, &al, B, ldb, g.stride_b, A, lda, g.stride_a, &be, C,
                                           ldc, g.stride_c, batch),
                 index, what);
  } else if (g.dtype == kDouble) {
    double al = g.alpha, be = g.beta;
    auto A = static_cast<const double*>(a), B = static_cast<const double*>(b);
    auto C = static_cast<double*>(c);
    if (batch == 1)
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasDgemm(h, tb, ta, n, m, k, &al, B, ldb, A, lda, &be, C, ldc), index, what);
    else
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasDgemmStridedBatched(h, tb, ta, n, m, k, &al, B, ldb, g.stride_b, A, lda, g.stride_a, &be, C,
                                           ldc, g.stride_c, batch),
                 index, what);
  } else {  // float16 / bfloat16: 16-bit storage, float accumulation, tensor cores when present
    float al = static_cast<float>(g.alpha), be = static_cast<float>(g.beta);
    cudaDataType_t t = cuda_type(g.dtype);
    if (batch == 1)
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasGemmEx(h, tb, ta, n, m, k, &al, b, t, ldb, a, t, lda, &be, c, t, ldc, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 index, what);
    else
      LOCUS_CUDA_FAULT(fault::kLaunch, CUBLAS_STATUS_EXECUTION_FAILED, cublas().cublasGemmStridedBatchedEx(h, tb, ta, n, m, k, &al, b, t, ldb, g.stride_b, a, t, lda, g.stride_a, &be,
                                            c, t, ldc, g.stride_c, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 index, what);
  }
}

}  // namespace

bool CudaBackend::blas_gemm(int index, StreamHandle s, const Gemm& g) {
  bool blas_type = g.dtype == kFloat || g.dtype == kDouble || g.dtype == kHalf || g.dtype == kBFloat16;
  if (!blas_type || !blas_layout(g, INT_MAX)) return false;
  Blas& b = blas_of(index);
  std::lock_guard<std::mutex> lock(b.mu);
  LOCUS_CUDA(cublas().cublasSetStream(b.h, stream_of(s)), index, "cuBLAS stream");
  cublas_gemm(index, b.h, g);
  return true;
}

}  // namespace locus::cuda
