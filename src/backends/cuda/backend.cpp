// Devices: properties with the kernel target and free memory (enumeration is context.cpp's,
// through gpu::RuntimeBackend), and the factory the generated registry calls.
#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/program.h"

namespace locus::cuda {

backend::DeviceProps CudaBackend::props(int index) {
  CuDevice& d = Runtime::get().device(index);
  backend::DeviceProps p = d.props;
  try {
    p.extra += "; kernels: NVRTC " + nvrtc_version() + " for " + target_arch(d.cc_major, d.cc_minor);
  } catch (const std::exception& e) {
    p.extra += std::string("; kernels: ") + e.what();
  }
  return p;
}

size_t CudaBackend::free_memory(int index) {
  CuDevice& d = Runtime::get().device(index);
  // Asking would create the context; a device nothing has used yet reports its total memory.
  if (!d.ctx) return d.props.total_memory;
  Runtime::get().bind(index);
  size_t free = 0, total = 0;
  LOCUS_CUDA(drv().cuMemGetInfo(&free, &total), index, "free memory");
  return free;
}

}  // namespace locus::cuda

namespace locus::backend {
std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda::CudaBackend>(); }
}  // namespace locus::backend
