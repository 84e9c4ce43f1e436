#pragma once
// CUDA devices and their contexts.
//
// Enumeration (cuInit, cuDeviceGetCount, attributes) happens on first use of the backend and
// never throws: no driver or no device is zero devices and a reason. It creates no context.
// A device's context (its primary context, shared with the CUDA runtime and so with cuBLAS)
// is retained the first time work is placed on that device (allocation, copy, launch), so a
// process that only uses cuda:1 never creates a context on cuda:0. Every entry point binds
// its device's context to the calling thread first: the thread-local current device
// (DeviceGuard) is thereby always the current context. CUDA_VISIBLE_DEVICES is applied by the
// driver itself: cuda:N is the N-th visible device.
#include <cuda.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/gpu/device_table.h"
#include "core/backend.h"

namespace locus::cuda {

struct Blas;          // gemm.cpp

struct CuDevice {
  CUdevice dev = 0;
  int cc_major = 0, cc_minor = 0;
  bool memory_pools = false;  // the stream-ordered allocator works here (Caps::two_pass_reduce)
  backend::DeviceProps props;

  std::once_flag ctx_once;
  CUcontext ctx = nullptr;  // the primary context, retained on first use

  std::mutex mu;            // guards the lazily created members below
  Blas* blas = nullptr;
  std::vector<bool> peer_enabled;  // cuCtxEnablePeerAccess done towards device i

  std::once_flag pool_once;
  CUmemoryPool scratch_pool = nullptr;  // CudaBackend::scratch_alloc's, made on first use
};

/// device(index) is the device without touching its context; bind(index) makes that current.
class Runtime : public gpu::DeviceTable<CuDevice> {
 public:
  /// The process-wide runtime, enumerated on first call; never throws.
  static Runtime& get() noexcept;
  /// The device with its context retained and current on the calling thread.
  CuDevice& bind(int index);

 private:
  Runtime();
};

/// The CUstream for a stream handle (nullptr: the device's default, the legacy NULL stream).
inline CUstream stream_of(backend::StreamHandle s) { return static_cast<CUstream>(s); }
/// A device pointer from a Buffer: base plus byte offset.
inline CUdeviceptr dptr(backend::Buffer b) {
  return reinterpret_cast<CUdeviceptr>(b.base) + static_cast<CUdeviceptr>(b.offset);
}

}  // namespace locus::cuda
