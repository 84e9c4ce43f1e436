// Devices: free memory (enumeration and properties are the runtime's, through
// gpu::RuntimeBackend), and the factory the generated registry calls.
#include "backends/opencl/opencl_backend.h"

#include "backends/opencl/runtime.h"

namespace locus::opencl {

size_t OpenCLBackend::free_memory(int index) {
  // OpenCL has no free-memory query: report what our own count leaves of the global memory.
  ClDevice& d = Runtime::get().device(index);
  std::lock_guard<std::mutex> lock(d.mem_mu);
  return d.allocated >= d.global_mem ? 0 : d.global_mem - d.allocated;
}

}  // namespace locus::opencl

namespace locus::backend {
std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<opencl::OpenCLBackend>(); }
}  // namespace locus::backend
