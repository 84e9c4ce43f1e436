// Streams are non-blocking CUDA streams of the device's context; events are CUDA events, with
// timing only when asked for (cheaper otherwise). Semantics follow the OpenCL backend: an
// event never recorded is complete, and waiting on it does nothing.
#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "locus/error.h"

namespace locus::cuda {

backend::StreamHandle CudaBackend::stream_create(int index) {
  Runtime::get().bind(index);
  CUstream s = nullptr;
  LOCUS_CUDA(drv().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), index, "new stream");
  return s;
}

void CudaBackend::release_stream(int index, StreamHandle s) {
  Runtime::get().bind(index);
  drv().cuStreamSynchronize(stream_of(s));
  drv().cuStreamDestroy(stream_of(s));
}

void CudaBackend::stream_synchronize(int index, StreamHandle s) {
  Runtime::get().bind(index);
  LOCUS_CUDA(drv().cuStreamSynchronize(stream_of(s)), index, "stream synchronize");
}

backend::EventHandle CudaBackend::event_create(int index, bool timing) {
  Runtime::get().bind(index);
  CUevent ev = nullptr;
  LOCUS_CUDA(drv().cuEventCreate(&ev, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), index, "new event");
  return new Event{ev, timing, false};
}

void CudaBackend::event_destroy(int index, EventHandle e) noexcept {
  Event* ev = static_cast<Event*>(e);
  if (!ev) return;
  if (ev->ev) drv().cuEventDestroy(ev->ev);
  delete ev;
}

void CudaBackend::event_record(int index, EventHandle e, StreamHandle s) {
  Event* ev = static_cast<Event*>(e);
  Runtime::get().bind(index);
  LOCUS_CUDA(drv().cuEventRecord(ev->ev, stream_of(s)), index, "event record");
  ev->recorded = true;
}

void CudaBackend::stream_wait_event(int index, StreamHandle s, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->recorded) return;
  Runtime::get().bind(index);
  LOCUS_CUDA(drv().cuStreamWaitEvent(stream_of(s), ev->ev, 0), index, "stream wait event");
}

bool CudaBackend::event_query(int index, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->recorded) return true;
  CUresult st = drv().cuEventQuery(ev->ev);
  if (st == CUDA_ERROR_NOT_READY) return false;
  LOCUS_CUDA(st, index, "event query");
  return true;
}

void CudaBackend::event_synchronize(int index, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->recorded) return;
  LOCUS_CUDA(drv().cuEventSynchronize(ev->ev), index, "event synchronize");
}

float CudaBackend::event_elapsed_ms(int index, EventHandle start, EventHandle end) {
  Event* a = static_cast<Event*>(start);
  Event* b = static_cast<Event*>(end);
  check_elapsed(a->timing && b->timing, a->recorded && b->recorded);
  LOCUS_CUDA(drv().cuEventSynchronize(a->ev), index, "elapsed time");
  LOCUS_CUDA(drv().cuEventSynchronize(b->ev), index, "elapsed time");
  float ms = 0;
  LOCUS_CUDA(drv().cuEventElapsedTime(&ms, a->ev, b->ev), index, "elapsed time");
  return ms;
}

}  // namespace locus::cuda
