// Byte copies, all enqueued on the given stream. A synchronous copy (async == false) is the
// asynchronous one followed by cuStreamSynchronize: it completes, in stream order, before the
// call returns. Asynchronous copies are truly so only with pinned host memory (the layer above
// passes async == false for pageable memory, as on OpenCL). Peer copies go device to device
// with cuMemcpyPeerAsync when cuDeviceCanAccessPeer allows it, on dst's stream, ordered after
// the work already enqueued on src's default stream; otherwise peer_copy returns false and the
// caller stages through pinned memory.
#include <algorithm>

#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"

namespace locus::cuda {

void CudaBackend::host_copy(int index, StreamHandle s, bool to_device, Buffer dev, void* host, size_t bytes,
                            bool async, EventHandle done) {
  Runtime::get().bind(index);
  CUstream st = stream_of(s);
  const char* what = to_device ? "host to device copy" : "device to host copy";
  if (to_device)
    LOCUS_CUDA_FAULT(fault::kCopy, CUDA_ERROR_OUT_OF_MEMORY, drv().cuMemcpyHtoDAsync(dptr(dev), host, bytes, st),
                     index, what);
  else
    LOCUS_CUDA_FAULT(fault::kCopy, CUDA_ERROR_OUT_OF_MEMORY, drv().cuMemcpyDtoHAsync(host, dptr(dev), bytes, st),
                     index, what);
  if (!async) LOCUS_CUDA(drv().cuStreamSynchronize(st), index, what);
  if (done) event_record(index, done, s);
}

void CudaBackend::copy_within(int index, Buffer dst, Buffer src, size_t bytes, StreamHandle s) {
  CUdeviceptr d = dptr(dst), m = dptr(src);
  if (bytes == 0 || d == m) return;
  Runtime::get().bind(index);
  CUstream st = stream_of(s);
  if (std::max(d, m) >= std::min(d, m) + bytes) {
    LOCUS_CUDA_FAULT(fault::kCopy, CUDA_ERROR_OUT_OF_MEMORY, drv().cuMemcpyDtoDAsync(d, m, bytes, st), index, "device copy");
    return;
  }
  // overlapping ranges (undefined for cuMemcpy): through a temporary, freed once the copies ran
  CUdeviceptr tmp = 0;
  LOCUS_CUDA(drv().cuMemAlloc(&tmp, bytes), index, "overlapping device copy");
  CUresult e = fault::hit(fault::kCopy) ? CUDA_ERROR_OUT_OF_MEMORY : drv().cuMemcpyDtoDAsync(tmp, m, bytes, st);
  if (e == CUDA_SUCCESS) e = drv().cuMemcpyDtoDAsync(d, tmp, bytes, st);
  if (e == CUDA_SUCCESS) e = drv().cuStreamSynchronize(st);
  drv().cuMemFree(tmp);
  LOCUS_CUDA(e, index, "overlapping device copy");
}

bool CudaBackend::peer_copy(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes, StreamHandle s) {
  Runtime& rt = Runtime::get();
  CuDevice& sd = rt.device(src_index);
  CuDevice& dd = rt.device(dst_index);
  int can = 0;
  LOCUS_CUDA(drv().cuDeviceCanAccessPeer(&can, dd.dev, sd.dev), dst_index, "peer copy from cuda:" + std::to_string(src_index));
  if (!can) return false;
  if (bytes == 0) return true;
  // order after src's default stream: an event recorded there, waited on by dst's stream
  rt.bind(src_index);
  CUevent ready = nullptr;
  LOCUS_CUDA(drv().cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING), src_index, "peer copy");
  CUresult e = drv().cuEventRecord(ready, nullptr);
  if (e == CUDA_SUCCESS) {
    rt.bind(dst_index);
    {
      std::lock_guard<std::mutex> lock(dd.mu);
      if (!dd.peer_enabled[static_cast<size_t>(src_index)]) {
        CUresult pe = drv().cuCtxEnablePeerAccess(sd.ctx, 0);
        if (pe != CUDA_SUCCESS && pe != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) e = pe;
        else dd.peer_enabled[static_cast<size_t>(src_index)] = true;
      }
    }
    if (e == CUDA_SUCCESS) e = drv().cuStreamWaitEvent(stream_of(s), ready, 0);
    if (e == CUDA_SUCCESS && fault::hit(fault::kCopy)) e = CUDA_ERROR_OUT_OF_MEMORY;
    if (e == CUDA_SUCCESS) e = drv().cuMemcpyPeerAsync(dptr(dst), dd.ctx, dptr(src), sd.ctx, bytes, stream_of(s));
  }
  drv().cuEventDestroy(ready);  // released once the wait has happened
  LOCUS_CUDA(e, dst_index, "peer copy from cuda:" + std::to_string(src_index));
  // and the other way: src's default stream waits for the copy, so that the caching allocator
  // cannot hand src's block to new work on that stream before the copy has read it
  CUevent copied = nullptr;
  LOCUS_CUDA(drv().cuEventCreate(&copied, CU_EVENT_DISABLE_TIMING), dst_index, "peer copy");
  e = drv().cuEventRecord(copied, stream_of(s));
  if (e == CUDA_SUCCESS) {
    rt.bind(src_index);
    e = drv().cuStreamWaitEvent(nullptr, copied, 0);
  }
  drv().cuEventDestroy(copied);
  LOCUS_CUDA(e, src_index, "peer copy to cuda:" + std::to_string(dst_index));
  return true;
}

}  // namespace locus::cuda
