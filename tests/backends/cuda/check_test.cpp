// Every driver, NVRTC and cuBLAS status becomes a BackendError naming the call, the device,
// the work and the status's symbolic name (check.h).
#include <gtest/gtest.h>

#include "backends/cuda/check.h"
#include "backends/cuda/libraries.h"
#include "locus/error.h"

namespace locus::cuda::test {
namespace {
namespace check_test {  // its drv() stands in for the driver's: kept from the other files of a unity batch

// Stands in for the driver table: the macro sees the same call text as with drv().
struct FakeDriver {
  CUresult cuMemAlloc(CUdeviceptr* p, size_t) { return *p = 0, CUDA_ERROR_OUT_OF_MEMORY; }
  CUresult cuStreamSynchronize(CUstream) { return CUDA_ERROR_LAUNCH_FAILED; }
  CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
};
FakeDriver& drv() {
  static FakeDriver f;
  return f;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const BackendError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CudaCheck, StatusNames) {
  EXPECT_EQ(status_name(CUDA_SUCCESS), "CUDA_SUCCESS");
  EXPECT_EQ(status_name(CUDA_ERROR_OUT_OF_MEMORY), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(status_name(CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(status_name(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(status_name(CUDA_ERROR_NO_BINARY_FOR_GPU), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  EXPECT_EQ(status_name(CUDA_ERROR_UNKNOWN), "CUDA_ERROR_UNKNOWN");
  EXPECT_EQ(status_name(static_cast<CUresult>(12345)), "CUresult 12345");
  EXPECT_EQ(status_name(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
  EXPECT_EQ(status_name(NVRTC_ERROR_INVALID_OPTION), "NVRTC_ERROR_INVALID_OPTION");
  EXPECT_EQ(status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(status_name(CUBLAS_STATUS_ALLOC_FAILED), "CUBLAS_STATUS_ALLOC_FAILED");
  EXPECT_EQ(status_name(CUBLAS_STATUS_EXECUTION_FAILED), "CUBLAS_STATUS_EXECUTION_FAILED");
}

TEST(CudaCheck, DriverCallMessage) {
  CUdeviceptr p = 0;
  EXPECT_EQ(message_of([&] { LOCUS_CUDA(drv().cuMemAlloc(&p, 64), 0, ""); }),
            "cuMemAlloc failed on cuda:0: CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(message_of([&] { LOCUS_CUDA(drv().cuStreamSynchronize(nullptr), 1, "stream synchronize"); }),
            "cuStreamSynchronize failed on cuda:1 (stream synchronize): CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(message_of([&] { LOCUS_CUDA(drv().cuCtxSetCurrent(nullptr), 0, ""); }), "(no error)");
}

TEST(CudaCheck, NvrtcAndCublasCallMessages) {
  // real calls that fail without a GPU or driver, through the tables liblocus loads at run time
  // (libraries.h): the test binary links neither library, as liblocus does not
  const Nvrtc& nv = require_nvrtc("this test");
  const Cublas& cb = require_cublas("this test");
  EXPECT_EQ(message_of([&] { LOCUS_CUDA(nv.nvrtcCompileProgram(nullptr, 0, nullptr), -1, "tiny.cl"); }),
            "nvrtcCompileProgram failed (tiny.cl): NVRTC_ERROR_INVALID_PROGRAM");
  EXPECT_EQ(message_of([&] { LOCUS_CUDA(cb.cublasSetStream(nullptr, nullptr), 2, "cuBLAS stream"); }),
            "cublasSetStream failed on cuda:2 (cuBLAS stream): CUBLAS_STATUS_NOT_INITIALIZED");
}

}  // namespace check_test
}  // namespace
}  // namespace locus::cuda::test
