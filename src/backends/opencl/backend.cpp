// Devices: enumeration and properties (the runtime does the work), and the factory the
// generated registry calls.
#include "backends/opencl/opencl_backend.h"

#include "backends/opencl/runtime.h"

namespace locus::opencl {

int OpenCLBackend::device_count() noexcept { return Runtime::get().count(); }

std::string OpenCLBackend::unavailable_reason() noexcept { return Runtime::get().reason(); }

backend::DeviceProps OpenCLBackend::props(int index) { return Runtime::get().device(index).props; }

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
