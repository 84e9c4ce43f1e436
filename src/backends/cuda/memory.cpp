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

// Scratch for one operation's kernels (split reductions: at most a few hundred KiB), in stream
// order from a memory pool of locus's own, so the free right after the enqueues waits for them on
// the GPU, not on the host. The pool keeps what it holds across synchronizations (a release
// threshold of "never"): with the default of 0 every synchronization hands the memory back and
// the next allocation maps it again. Any failure (no pools, out of memory, an error left by an
// earlier launch, which the next call reports anyway) is nullptr: the caller's one-pass path.
void* CudaBackend::scratch_alloc(int index, StreamHandle s, size_t bytes) {
  CuDevice& d = Runtime::get().bind(index);
  if (!d.memory_pools) return nullptr;
  std::call_once(d.pool_once, [&d] {
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = static_cast<int>(d.dev);
    CUmemoryPool pool = nullptr;
    if (drv().cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS) return;
    cuuint64_t keep = ~cuuint64_t{0};
    drv().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
    d.scratch_pool = pool;  // never destroyed, as the contexts are not
  });
  if (!d.scratch_pool) return nullptr;
  CUdeviceptr p = 0;
  if (drv().cuMemAllocFromPoolAsync(&p, gpu::alloc_bytes(bytes), d.scratch_pool, stream_of(s)) != CUDA_SUCCESS)
    return nullptr;
  return reinterpret_cast<void*>(p);
}

void CudaBackend::scratch_free(int index, StreamHandle s, void* p) noexcept {
  if (!p) return;
  try {
    Runtime::get().bind(index);
    drv().cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(p), stream_of(s));
  } catch (...) {
  }
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
