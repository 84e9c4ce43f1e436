// NVRTC and cuBLAS loaded at run time (src/backends/cuda/libraries.cpp): the tables, the
// not-available errors, locus-info's line, and call messages through the tables (check.cpp).
#include "backends/cuda/check.h"
#include "backends/cuda/libraries.h"
#include "backends/gpu/check.h"
#include "testing.h"

namespace locus::cuda {
namespace libraries_test {

TEST(CudaLibraries, LoadedWithEveryEntryPointOrSayWhy) {
  const Nvrtc& n = nvrtc();
  if (n.loaded) {
    EXPECT_TRUE(n.reason.empty()) << n.reason;
    EXPECT_NE(n.nvrtcCompileProgram, nullptr);
    EXPECT_NE(n.nvrtcGetCUBIN, nullptr);
    EXPECT_EQ(&require_nvrtc("compiling kernels"), &n);
    int major = 0, minor = 0;
    EXPECT_EQ(n.nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
    EXPECT_NE(libraries_report().find("NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " (" +
                                      n.library + ")"), std::string::npos);
  } else {
    EXPECT_THROW_MSG(require_nvrtc("compiling kernels"), NotAvailableError,
                     "[cuda] compiling kernels needs NVRTC: NVRTC not found (");
  }
  const Cublas& c = cublas();
  if (c.loaded) {
    EXPECT_NE(c.cublasSgemm, nullptr);
    EXPECT_NE(c.cublasGemmStridedBatchedEx, nullptr);
    EXPECT_EQ(&require_cublas("GEMM"), &c);
    EXPECT_NE(libraries_report().find("; cuBLAS "), std::string::npos);
  } else {
    EXPECT_THROW_MSG(require_cublas("GEMM"), NotAvailableError, "[cuda] GEMM needs cuBLAS: cuBLAS not found (");
  }
  // both sonames come from the toolkit locus was built with
  EXPECT_EQ(n.library, std::getenv("LOCUS_NVRTC_LIBRARY") ? std::getenv("LOCUS_NVRTC_LIBRARY")
                                                          : "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000));
}

TEST(CudaLibraries, CallsThroughTheTablesNameTheFunction) {
  EXPECT_EQ(gpu::failure_message("cuda", "nv.nvrtcCreateProgram(&prog, src, name, 0, nullptr, nullptr)", "NVRTC_ERROR_OUT_OF_MEMORY",
                            -1, "binary.cl"),
            "nvrtcCreateProgram failed (binary.cl): NVRTC_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(gpu::failure_message("cuda", "cublas().cublasSgemm(h, tb, ta, n, m, k, ...)", "CUBLAS_STATUS_EXECUTION_FAILED", 1,
                            "sgemm m=2 n=2 k=2"),
            "cublasSgemm failed on cuda:1 (sgemm m=2 n=2 k=2): CUBLAS_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(gpu::failure_message("cuda", "cb.cublasCreate(&b->h)", "CUBLAS_STATUS_NOT_INITIALIZED", 0, ""),
            "cublasCreate failed on cuda:0: CUBLAS_STATUS_NOT_INITIALIZED");
}

}  // namespace libraries_test
}  // namespace locus::cuda
