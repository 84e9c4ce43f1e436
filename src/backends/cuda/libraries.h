#pragma once
// NVRTC and cuBLAS, loaded at run time as the driver is (driver.h): liblocus links neither, so
// a cpu-only user never maps the CUDA toolkit's libraries, and liblocus starts on machines
// without them. They are opened on first use (the first kernel compile or GEMM, or the CUDA
// runtime finding a device); when one is missing CUDA is unavailable with `reason`.
//
// The sonames are those of the toolkit locus was built against (libnvrtc.so.13 for CUDA 13);
// LOCUS_NVRTC_LIBRARY and LOCUS_CUBLAS_LIBRARY override them (a path or a soname). Entry points
// are looked up under the names the headers bind them to (cublasSgemm is cublasSgemm_v2), so
// each pointer has the type of its declaration: nvrtc().nvrtcCreateProgram(...).
#include <cublas_v2.h>
#include <nvrtc.h>

#include <string>

#define LOCUS_NVRTC_FUNCTIONS(X)                                                                       \
  X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)        \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize)         \
  X(nvrtcGetProgramLog) X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)

// cublasGemmEx and cublasGemmStridedBatchedEx have C++ overloads (an old cudaDataType compute
// type): XT names the exported one's type.
#define LOCUS_CUBLAS_FUNCTIONS(X, XT)                                                                  \
  X(cublasGetProperty) X(cublasGetStatusName) X(cublasCreate) X(cublasSetStream) X(cublasSgemm)         \
  X(cublasSgemmStridedBatched) X(cublasDgemm) X(cublasDgemmStridedBatched)                               \
  XT(cublasGemmEx, ::locus::cuda::GemmExFn) XT(cublasGemmStridedBatchedEx, ::locus::cuda::GemmStridedBatchedExFn)

namespace locus::cuda {

using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                  const void*, const void*, cudaDataType, int, long long, const void*,
                                                  cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);

struct Nvrtc {
  bool loaded = false;
  std::string library;  // the soname or path opened (or tried)
  std::string reason;   // why not loaded: "NVRTC not found: libnvrtc.so.13 (...)"
#define LOCUS_DECLARE_FN(name) decltype(&::name) name = nullptr;
  LOCUS_NVRTC_FUNCTIONS(LOCUS_DECLARE_FN)
};

struct Cublas {
  bool loaded = false;
  std::string library;
  std::string reason;
#define LOCUS_DECLARE_TYPED_FN(name, type) type name = nullptr;
  LOCUS_CUBLAS_FUNCTIONS(LOCUS_DECLARE_FN, LOCUS_DECLARE_TYPED_FN)
#undef LOCUS_DECLARE_TYPED_FN
#undef LOCUS_DECLARE_FN
};

/// The process-wide tables, loaded on first call; never throw, never unloaded.
const Nvrtc& nvrtc() noexcept;
const Cublas& cublas() noexcept;

/// Throws NotAvailableError with the reason unless the library is loaded ("compiling kernels").
const Nvrtc& require_nvrtc(const char* what);
const Cublas& require_cublas(const char* what);

/// One line for locus-info: "NVRTC 13.0 (libnvrtc.so.13); cuBLAS 13.0.2 (libcublas.so.13)", or
/// the reason for each library that is missing. Loads both.
std::string libraries_report();

}  // namespace locus::cuda
