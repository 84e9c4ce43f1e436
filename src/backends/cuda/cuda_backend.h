#pragma once
// The CUDA runtime adapter: a gpu::RuntimeBackend (src/backends/gpu/, which holds the compute
// families and answers the device queries from context.h) whose methods live in one file per
// job: backend.cpp (devices), memory.cpp, copy.cpp, stream.cpp, gemm.cpp (cuBLAS), launch.cpp
// (kernels and launches). The driver comes from driver.h (dlopen), devices and contexts from
// context.h, kernels from the shared sources via program.h (NVRTC).
//
// Handles: Buffer::base is a CUdeviceptr; a StreamHandle is a CUstream (nullptr: the legacy
// default stream of the device's context, as PyTorch's default stream; streams made by
// stream_create are non-blocking, so they never synchronise with it implicitly, as OpenCL's
// queues); an EventHandle points to a cuda::Event.
#include <cuda.h>

#include "backends/cuda/context.h"
#include "backends/gpu/gpu_backend.h"

namespace locus::cuda {

struct Event {
  CUevent ev = nullptr;
  bool timing = false;
  bool recorded = false;  // waiting on an event never recorded is a no-op, as on OpenCL
};

class CudaBackend final : public gpu::RuntimeBackend<Runtime> {
 public:
  DeviceType type() const override { return kCUDA; }
  backend::DeviceProps props(int index) override;  // adds the kernel target
  LOCUS_GPU_RUNTIME_METHODS                        // gpu_backend.h
  // stream-ordered, from a memory pool of locus's own (cuMemAllocFromPoolAsync / cuMemFreeAsync),
  // where the driver and device have pools (CuDevice::memory_pools), else none; memory.cpp
  void* scratch_alloc(int index, StreamHandle s, size_t bytes) override;
  void scratch_free(int index, StreamHandle s, void* p) noexcept override;
};

}  // namespace locus::cuda

namespace locus::backend {
std::unique_ptr<Backend> make_cuda_backend();
}  // namespace locus::backend
