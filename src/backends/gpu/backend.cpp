// The Backend methods written once around a runtime's hooks: host copies (empty ones skipped),
// peer copies within one device, and releases that never throw.
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

bool GpuBackend::copy_peer(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes, StreamHandle s) {
  if (dst_index != src_index) return peer_copy(dst_index, dst, src_index, src, bytes, s);
  copy_within(dst_index, dst, src, bytes, s);
  return true;
}

void GpuBackend::raw_free(int index, void* base) noexcept {
  if (!base) return;
  try {
    release_buffer(index, base);
  } catch (...) {
  }
}

void* GpuBackend::scratch_alloc(int index, StreamHandle, size_t bytes) { return raw_alloc(index, bytes); }

void GpuBackend::scratch_free(int index, StreamHandle, void* p) noexcept { raw_free(index, p); }

void GpuBackend::host_free(int index, void* ptr, void* ctx) noexcept {
  if (!ctx) return;
  try {
    release_host(index, ptr, ctx);
  } catch (...) {
  }
}

void GpuBackend::stream_destroy(int index, StreamHandle s) noexcept {
  if (!s) return;
  try {
    release_stream(index, s);
  } catch (...) {
  }
}

}  // namespace locus::gpu
