// Byte copies. Non-blocking enqueues are only truly asynchronous from pinned memory (the layer
// above passes async=false for pageable host memory). Peer copies are direct when both devices
// share a context (same platform): clEnqueueCopyBuffer on dst's stream, ordered after the
// work already enqueued on src's default queue.
#include <algorithm>

#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/runtime.h"

namespace locus::opencl {

void OpenCLBackend::host_copy(int index, StreamHandle s, bool to_device, Buffer dev, void* host, size_t bytes,
                              bool async, EventHandle done) {
  cl_command_queue q = Runtime::get().queue(index, s);
  cl_mem m = static_cast<cl_mem>(dev.base);
  cl_bool block = async ? CL_FALSE : CL_TRUE;
  cl_event copied = nullptr, *ev = done ? &copied : nullptr;
  const char* what = to_device ? "host to device copy" : "device to host copy";
  if (to_device)
    LOCUS_CL_FAULT(fault::kCopy, CL_OUT_OF_RESOURCES,
                   clEnqueueWriteBuffer(q, m, block, dev.offset, bytes, host, 0, nullptr, ev), index, what);
  else
    LOCUS_CL_FAULT(fault::kCopy, CL_OUT_OF_RESOURCES,
                   clEnqueueReadBuffer(q, m, block, dev.offset, bytes, host, 0, nullptr, ev), index, what);
  if (done) {  // the copy's own event: no marker needed
    auto* e = static_cast<Event*>(done);
    if (e->ev) clReleaseEvent(e->ev);
    e->ev = copied;
  }
  if (async) LOCUS_CL(clFlush(q), index, what);
}

void OpenCLBackend::copy_within(int index, Buffer dst, Buffer src, size_t bytes, StreamHandle s) {
  if (bytes == 0 || (dst.base == src.base && dst.offset == src.offset)) return;
  cl_command_queue q = Runtime::get().queue(index, s);
  cl_mem d = static_cast<cl_mem>(dst.base), m = static_cast<cl_mem>(src.base);
  bool overlap = d == m && std::max(dst.offset, src.offset) < std::min(dst.offset, src.offset) + bytes;
  if (!overlap) {
    LOCUS_CL_FAULT(fault::kCopy, CL_OUT_OF_RESOURCES,
                   clEnqueueCopyBuffer(q, m, d, src.offset, dst.offset, bytes, 0, nullptr, nullptr), index,
                   "device copy");
    return;
  }
  // OpenCL refuses overlapping copies: go through a temporary buffer
  ClDevice& dev = Runtime::get().device(index);
  cl_mem tmp = LOCUS_CL(clCreateBuffer(dev.ctx, CL_MEM_READ_WRITE, bytes, nullptr, locus_err), index,
                        "overlapping device copy");
  cl_int e1 = fault::hit(fault::kCopy) ? CL_OUT_OF_RESOURCES
                                        : clEnqueueCopyBuffer(q, m, tmp, src.offset, 0, bytes, 0, nullptr, nullptr);
  cl_int e2 = e1 == CL_SUCCESS ? clEnqueueCopyBuffer(q, tmp, d, 0, dst.offset, bytes, 0, nullptr, nullptr) : e1;
  clReleaseMemObject(tmp);  // released once the copies are done
  cl_check(e2, "clEnqueueCopyBuffer", index, "overlapping device copy");
}

bool OpenCLBackend::peer_copy(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes,
                              StreamHandle s) {
  Runtime& rt = Runtime::get();
  if (!rt.same_context(dst_index, src_index)) return false;
  if (bytes == 0) return true;
  // Ordered on both sides, as PyTorch does between CUDA devices: the copy runs on the source's queue
  // (so the source block is not reused by the caching allocator before the copy has read it), after
  // the destination's queue has finished its earlier work on dst, and the destination's queue waits
  // for the copy before anything later touches dst. The host never blocks.
  cl_command_queue q = rt.queue(dst_index, s);
  cl_command_queue sq = rt.device(src_index).queue;
  cl_event dst_ready = nullptr, copied = nullptr;
  LOCUS_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, &dst_ready), dst_index, "peer copy");
  cl_int err = clFlush(q);
  if (err == CL_SUCCESS) err = fault::hit(fault::kCopy) ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
  if (err == CL_SUCCESS)
    err = clEnqueueCopyBuffer(sq, static_cast<cl_mem>(src.base), static_cast<cl_mem>(dst.base), src.offset,
                              dst.offset, bytes, 1, &dst_ready, &copied);
  clReleaseEvent(dst_ready);
  cl_check(err, "clEnqueueCopyBuffer", src_index, "peer copy to opencl:" + std::to_string(dst_index));
  err = clFlush(sq);
  if (err == CL_SUCCESS) err = clEnqueueBarrierWithWaitList(q, 1, &copied, nullptr);
  clReleaseEvent(copied);
  cl_check(err, "clEnqueueBarrierWithWaitList", dst_index, "peer copy from opencl:" + std::to_string(src_index));
  return true;
}

}  // namespace locus::opencl
