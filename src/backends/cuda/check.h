#pragma once
// Every CUDA driver, NVRTC and cuBLAS call goes through LOCUS_CUDA, which turns a failed status
// into a locus::BackendError naming the call, the device, what it was working on and the
// status's symbolic name:
//   cuMemAlloc failed on cuda:0 (1048576 bytes): CUDA_ERROR_OUT_OF_MEMORY
//   LOCUS_CUDA(drv().cuStreamSynchronize(s), dev, "stream synchronize");
//   LOCUS_CUDA(cublasSgemm(h, ...), dev, "sgemm m=64 n=64 k=64");
// The status type picks the name table (CUresult, nvrtcResult, cublasStatus_t). NVRTC compile
// failures carry the compile log (program.cpp throws those itself).
#include <cublas_v2.h>
#include <cuda.h>
#include <nvrtc.h>

#include <string>

#include "backends/gpu/check.h"
#include "core/fault.h"

namespace locus::cuda {

/// "CUDA_ERROR_OUT_OF_MEMORY"; codes cuda.h does not define read "CUresult 12345".
std::string status_name(CUresult s);
/// "NVRTC_ERROR_COMPILATION".
std::string status_name(nvrtcResult s);
/// "CUBLAS_STATUS_NOT_INITIALIZED".
std::string status_name(cublasStatus_t s);

inline bool failed(CUresult s) { return s != CUDA_SUCCESS; }
inline bool failed(nvrtcResult s) { return s != NVRTC_SUCCESS; }
inline bool failed(cublasStatus_t s) { return s != CUBLAS_STATUS_SUCCESS; }

// Throws gpu::failure_message's "<call> failed on cuda:<device> (<what>): <status>"; `what` is
// LOCUS_GPU_WHAT's callable.
template <typename S, typename W>
inline void check(S status, const char* call_text, int device, W&& what) {
  if (failed(status)) gpu::fail("cuda", call_text, status_name(status), device, what());
}

}  // namespace locus::cuda

#define LOCUS_CUDA(call, device, what) ::locus::cuda::check((call), #call, (device), LOCUS_GPU_WHAT(what))

// LOCUS_CUDA for a call that fault injection (core/fault.h) may fail: a kernel launch or cuBLAS
// call (fault::kLaunch) or a copy (fault::kCopy). When the switch fires, the call is not made
// and returns `status`, the driver's code for that failure: the same BackendError follows.
#define LOCUS_CUDA_FAULT(site, status, call, device, what)                                            \
  ::locus::cuda::check(::locus::fault::hit(site) ? decltype(call)(status) : (call), #call, (device), \
                       LOCUS_GPU_WHAT(what))
