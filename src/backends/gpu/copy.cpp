// Host copies, the same on every runtime: empty copies are skipped (an empty recorded copy only
// records its event), the rest go to the runtime's host_copy.
#include "backends/gpu/gpu_backend.h"

namespace locus::gpu {

void GpuBackend::copy_from_host(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s, bool async) {
  if (bytes) host_copy(index, s, true, dst, const_cast<void*>(src), bytes, async, nullptr);
}

void GpuBackend::copy_to_host(int index, void* dst, Buffer src, size_t bytes, StreamHandle s, bool async) {
  if (bytes) host_copy(index, s, false, src, dst, bytes, async, nullptr);
}

void GpuBackend::copy_from_host_recorded(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s,
                                         EventHandle done) {
  if (bytes == 0) return event_record(index, done, s);
  host_copy(index, s, true, dst, const_cast<void*>(src), bytes, true, done);
}

void GpuBackend::copy_to_host_recorded(int index, void* dst, Buffer src, size_t bytes, StreamHandle s,
                                       EventHandle done) {
  if (bytes == 0) return event_record(index, done, s);
  host_copy(index, s, false, src, dst, bytes, true, done);
}

}  // namespace locus::gpu
