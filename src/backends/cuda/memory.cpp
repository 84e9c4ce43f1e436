// Raw device memory (cuMemAlloc) and pinned host memory (cuMemHostAlloc, portable: usable with
// every device's context). Out of memory is nullptr, so the caching allocator above releases
// its cache and retries before it throws OutOfMemoryError.
#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"

namespace locus::cuda {

void* CudaBackend::raw_alloc(int index, size_t bytes) {
  Runtime::get().bind(index);
  size_t n = gpu::alloc_bytes(bytes);
  CUdeviceptr p = 0;
  CUresult st = drv().cuMemAlloc(&p, n);
  if (st == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;
  LOCUS_CUDA(st, index, std::to_string(bytes) + " bytes");
  return reinterpret_cast<void*>(p);
}

void CudaBackend::release_buffer(int index, void* base) {
  Runtime::get().bind(index);
  drv().cuMemFree(reinterpret_cast<CUdeviceptr>(base));
}

void* CudaBackend::host_alloc(int index, size_t bytes, void** ctx) {
  Runtime::get().bind(index);
  void* p = nullptr;
  CUresult st = drv().cuMemHostAlloc(&p, bytes == 0 ? 8 : bytes, CU_MEMHOSTALLOC_PORTABLE);
  if (st == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;
  LOCUS_CUDA(st, index, std::to_string(bytes) + " bytes of pinned host memory");
  *ctx = p;
  return p;
}

void CudaBackend::release_host(int index, void* ptr, void*) {
  Runtime::get().bind(index);
  drv().cuMemFreeHost(ptr);  // ctx is ptr (host_alloc)
}

}  // namespace locus::cuda
