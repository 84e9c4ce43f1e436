#include "backends/cuda/check.h"

#include <algorithm>
#include <cctype>

#include "backends/cuda/driver.h"
#include "backends/cuda/libraries.h"
#include "locus/error.h"

namespace locus::cuda {

std::string status_name(CUresult s) {
  switch (s) {
#define C(x) case x: return #x;
    C(CUDA_SUCCESS) C(CUDA_ERROR_INVALID_VALUE) C(CUDA_ERROR_OUT_OF_MEMORY)
    C(CUDA_ERROR_NOT_INITIALIZED) C(CUDA_ERROR_DEINITIALIZED) C(CUDA_ERROR_PROFILER_DISABLED)
    C(CUDA_ERROR_PROFILER_NOT_INITIALIZED) C(CUDA_ERROR_PROFILER_ALREADY_STARTED) C(CUDA_ERROR_PROFILER_ALREADY_STOPPED)
    C(CUDA_ERROR_STUB_LIBRARY) C(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER) C(CUDA_ERROR_DEVICE_UNAVAILABLE)
    C(CUDA_ERROR_NO_DEVICE) C(CUDA_ERROR_INVALID_DEVICE) C(CUDA_ERROR_DEVICE_NOT_LICENSED)
    C(CUDA_ERROR_INVALID_IMAGE) C(CUDA_ERROR_INVALID_CONTEXT) C(CUDA_ERROR_CONTEXT_ALREADY_CURRENT)
    C(CUDA_ERROR_MAP_FAILED) C(CUDA_ERROR_UNMAP_FAILED) C(CUDA_ERROR_ARRAY_IS_MAPPED)
    C(CUDA_ERROR_ALREADY_MAPPED) C(CUDA_ERROR_NO_BINARY_FOR_GPU) C(CUDA_ERROR_ALREADY_ACQUIRED)
    C(CUDA_ERROR_NOT_MAPPED) C(CUDA_ERROR_NOT_MAPPED_AS_ARRAY) C(CUDA_ERROR_NOT_MAPPED_AS_POINTER)
    C(CUDA_ERROR_ECC_UNCORRECTABLE) C(CUDA_ERROR_UNSUPPORTED_LIMIT) C(CUDA_ERROR_CONTEXT_ALREADY_IN_USE)
    C(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) C(CUDA_ERROR_INVALID_PTX) C(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)
    C(CUDA_ERROR_NVLINK_UNCORRECTABLE) C(CUDA_ERROR_JIT_COMPILER_NOT_FOUND) C(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    C(CUDA_ERROR_JIT_COMPILATION_DISABLED) C(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY) C(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC)
    C(CUDA_ERROR_CONTAINED) C(CUDA_ERROR_INVALID_SOURCE) C(CUDA_ERROR_FILE_NOT_FOUND)
    C(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND) C(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED) C(CUDA_ERROR_OPERATING_SYSTEM)
    C(CUDA_ERROR_INVALID_HANDLE) C(CUDA_ERROR_ILLEGAL_STATE) C(CUDA_ERROR_LOSSY_QUERY)
    C(CUDA_ERROR_NOT_FOUND) C(CUDA_ERROR_NOT_READY) C(CUDA_ERROR_ILLEGAL_ADDRESS)
    C(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) C(CUDA_ERROR_LAUNCH_TIMEOUT) C(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING)
    C(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) C(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED) C(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE)
    C(CUDA_ERROR_CONTEXT_IS_DESTROYED) C(CUDA_ERROR_ASSERT) C(CUDA_ERROR_TOO_MANY_PEERS)
    C(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) C(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED) C(CUDA_ERROR_HARDWARE_STACK_ERROR)
    C(CUDA_ERROR_ILLEGAL_INSTRUCTION) C(CUDA_ERROR_MISALIGNED_ADDRESS) C(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    C(CUDA_ERROR_INVALID_PC) C(CUDA_ERROR_LAUNCH_FAILED) C(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    C(CUDA_ERROR_TENSOR_MEMORY_LEAK) C(CUDA_ERROR_NOT_PERMITTED) C(CUDA_ERROR_NOT_SUPPORTED)
    C(CUDA_ERROR_SYSTEM_NOT_READY) C(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) C(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    C(CUDA_ERROR_MPS_CONNECTION_FAILED) C(CUDA_ERROR_MPS_RPC_FAILURE) C(CUDA_ERROR_MPS_SERVER_NOT_READY)
    C(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED) C(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED) C(CUDA_ERROR_MPS_CLIENT_TERMINATED)
    C(CUDA_ERROR_CDP_NOT_SUPPORTED) C(CUDA_ERROR_CDP_VERSION_MISMATCH) C(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    C(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) C(CUDA_ERROR_STREAM_CAPTURE_MERGE) C(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED)
    C(CUDA_ERROR_STREAM_CAPTURE_UNJOINED) C(CUDA_ERROR_STREAM_CAPTURE_ISOLATION) C(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    C(CUDA_ERROR_CAPTURED_EVENT) C(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD) C(CUDA_ERROR_TIMEOUT)
    C(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) C(CUDA_ERROR_EXTERNAL_DEVICE) C(CUDA_ERROR_INVALID_CLUSTER_SIZE)
    C(CUDA_ERROR_FUNCTION_NOT_LOADED) C(CUDA_ERROR_INVALID_RESOURCE_TYPE) C(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION)
    C(CUDA_ERROR_KEY_ROTATION) C(CUDA_ERROR_UNKNOWN)
#undef C
    default: break;
  }
  // a code newer than our header: ask the driver, when there is one
  const char* name = nullptr;
  if (drv().loaded && drv().cuGetErrorName(s, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(s));
}

std::string status_name(nvrtcResult s) {
  if (nvrtc().loaded) return nvrtc().nvrtcGetErrorString(s);
  return "nvrtcResult " + std::to_string(static_cast<int>(s));
}

std::string status_name(cublasStatus_t s) {
  if (cublas().loaded) return cublas().cublasGetStatusName(s);
  return "cublasStatus_t " + std::to_string(static_cast<int>(s));
}

std::string failure_message(const char* call_text, const std::string& status, int device, std::string_view what) {
  std::string call(call_text);  // "drv().cuMemAlloc(&p, n)", "cublasSgemm(h, ...)"
  // drop the table a call goes through: "drv().", "nvrtc().", "nv.", "cublas()."
  size_t start = 0;
  for (;;) {
    size_t j = start;
    while (j < call.size() && (std::isalnum(static_cast<unsigned char>(call[j])) || call[j] == '_')) ++j;
    if (call.compare(j, 3, "().") == 0) start = j + 3;
    else if (j < call.size() && call[j] == '.') start = j + 1;
    else break;
  }
  call.erase(0, start);
  call.resize(std::min(call.size(), call.find('(')));
  while (!call.empty() && call.back() == ' ') call.pop_back();
  std::string msg = call + " failed";
  if (device >= 0) msg += " on cuda:" + std::to_string(device);
  if (!what.empty()) msg += " (" + std::string(what) + ")";
  return msg + ": " + status;
}

template <typename S>
void fail(const char* call_text, S status, int device, std::string_view what) {
  throw BackendError(failure_message(call_text, status_name(status), device, what));
}
template void fail(const char*, CUresult, int, std::string_view);
template void fail(const char*, nvrtcResult, int, std::string_view);
template void fail(const char*, cublasStatus_t, int, std::string_view);

}  // namespace locus::cuda
