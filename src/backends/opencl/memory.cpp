// Raw device memory (clCreateBuffer) and pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped).
// Allocations are counted per device because drivers may allocate lazily (PoCL reserves
// nothing until first use): a request beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE or beyond what our
// count leaves of CL_DEVICE_GLOBAL_MEM_SIZE is refused up front with nullptr.
#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/runtime.h"

namespace locus::opencl {

void* OpenCLBackend::raw_alloc(int index, size_t bytes) {
  ClDevice& d = Runtime::get().device(index);
  size_t n = gpu::alloc_bytes(bytes);
  {
    std::lock_guard<std::mutex> lock(d.mem_mu);
    if (n > d.max_alloc || d.allocated + n > d.global_mem) return nullptr;
    d.allocated += n;  // reserve before the driver call
  }
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, n, nullptr, &err);
  if (err != CL_SUCCESS) {
    std::lock_guard<std::mutex> lock(d.mem_mu);
    d.allocated -= n;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
      return nullptr;
    cl_fail("clCreateBuffer", err, index, std::to_string(bytes) + " bytes");
  }
  std::lock_guard<std::mutex> lock(d.mem_mu);
  d.live[m] = n;
  return m;
}

void OpenCLBackend::release_buffer(int index, void* base) {
  ClDevice& d = Runtime::get().device(index);
  cl_mem m = static_cast<cl_mem>(base);
  {
    std::lock_guard<std::mutex> lock(d.mem_mu);
    auto it = d.live.find(m);
    if (it != d.live.end()) {
      d.allocated -= it->second;
      d.live.erase(it);
    }
  }
  clReleaseMemObject(m);  // deferred by the driver until enqueued work using it completes
}

void* OpenCLBackend::host_alloc(int index, size_t bytes, void** ctx) {
  ClDevice& d = Runtime::get().device(index);
  size_t n = bytes == 0 ? 8 : bytes;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
      err == CL_INVALID_BUFFER_SIZE)
    return nullptr;
  cl_check(err, "clCreateBuffer", index, "pinned host memory");
  void* p = nullptr;
  try {
    p = LOCUS_CL(clEnqueueMapBuffer(d.queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0, nullptr, nullptr,
                                    locus_err),
                 index, "pinned host memory");
  } catch (...) {
    clReleaseMemObject(m);
    throw;
  }
  *ctx = m;
  return p;
}

void OpenCLBackend::release_host(int index, void* ptr, void* ctx) {
  ClDevice& d = Runtime::get().device(index);
  cl_mem m = static_cast<cl_mem>(ctx);
  clEnqueueUnmapMemObject(d.queue, m, ptr, 0, nullptr, nullptr);
  clReleaseMemObject(m);
}

}  // namespace locus::opencl
