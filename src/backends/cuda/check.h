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
#include <string_view>

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

/// The message LOCUS_CUDA throws: "<call> failed on cuda:<device> (<what>): <status>". A
/// negative device leaves out "on cuda:N", an empty `what` the parenthesis; of `call_text`
/// only the function name is kept ("drv().cuMemAlloc(&p, n)" -> "cuMemAlloc").
std::string failure_message(const char* call_text, const std::string& status, int device,
                            std::string_view what);

template <typename S>
[[noreturn]] void fail(const char* call_text, S status, int device, std::string_view what);

// `what` is a callable run only on failure, so the message is not built on every successful call.
template <typename S, typename W>
inline void check(S status, const char* call_text, int device, W&& what) {
  if (failed(status)) fail(call_text, status, device, what());
}

}  // namespace locus::cuda

#define LOCUS_CUDA(call, device, what) \
  ::locus::cuda::check((call), #call, (device), [&]() -> std::string { return std::string(what); })

// LOCUS_CUDA for a call that fault injection (core/fault.h) may fail: a kernel launch or cuBLAS
// call (fault::kLaunch) or a copy (fault::kCopy). When the switch fires, the call is not made
// and returns `status`, the driver's code for that failure: the same BackendError follows.
#define LOCUS_CUDA_FAULT(site, status, call, device, what)                                            \
  ::locus::cuda::check(::locus::fault::hit(site) ? decltype(call)(status) : (call), #call, (device), \
                       [&]() -> std::string { return std::string(what); })
