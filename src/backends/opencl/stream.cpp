// Streams are extra in-order queues (with profiling) on the device's context; events are
// markers (clEnqueueMarkerWithWaitList) and cross-stream waits are barriers with a wait list.
// A recorded marker is flushed at once so that other queues and the host can wait on it.
#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/runtime.h"
#include "locus/error.h"

namespace locus::opencl {

backend::StreamHandle OpenCLBackend::stream_create(int index) {
  ClDevice& d = Runtime::get().device(index);
  cl_command_queue q =
      LOCUS_CL(clCreateCommandQueue(d.ctx, d.id, CL_QUEUE_PROFILING_ENABLE, locus_err), index, "new stream");
  Runtime::get().track_queue(q);
  return q;
}

void OpenCLBackend::release_stream(int index, StreamHandle s) {
  cl_command_queue q = static_cast<cl_command_queue>(s);
  Runtime::get().untrack_queue(q);
  clFinish(q);
  clReleaseCommandQueue(q);
}

void OpenCLBackend::stream_synchronize(int index, StreamHandle s) {
  LOCUS_CL(clFinish(Runtime::get().queue(index, s)), index, "stream synchronize");
}

backend::EventHandle OpenCLBackend::event_create(int index, bool timing) {
  Runtime::get().device(index);  // validates the index
  return new Event{nullptr, timing};
}

void OpenCLBackend::event_destroy(int index, EventHandle e) noexcept {
  Event* ev = static_cast<Event*>(e);
  if (!ev) return;
  if (ev->ev) clReleaseEvent(ev->ev);
  delete ev;
}

void OpenCLBackend::event_record(int index, EventHandle e, StreamHandle s) {
  Event* ev = static_cast<Event*>(e);
  cl_command_queue q = Runtime::get().queue(index, s);
  cl_event next = nullptr;
  LOCUS_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, &next), index, "event record");
  if (ev->ev) clReleaseEvent(ev->ev);
  ev->ev = next;
  LOCUS_CL(clFlush(q), index, "event record");
}

void OpenCLBackend::stream_wait_event(int index, StreamHandle s, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->ev) return;  // never recorded: nothing to wait for
  LOCUS_CL(clEnqueueBarrierWithWaitList(Runtime::get().queue(index, s), 1, &ev->ev, nullptr), index,
           "stream wait event");
}

bool OpenCLBackend::event_query(int index, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->ev) return true;
  cl_int status = CL_COMPLETE;
  LOCUS_CL(clGetEventInfo(ev->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr), index,
           "event query");
  if (status < 0) cl_fail("event", status, index, "a command before the event failed");
  return status == CL_COMPLETE;
}

void OpenCLBackend::event_synchronize(int index, EventHandle e) {
  Event* ev = static_cast<Event*>(e);
  if (!ev->ev) return;
  LOCUS_CL(clWaitForEvents(1, &ev->ev), index, "event synchronize");
}

float OpenCLBackend::event_elapsed_ms(int index, EventHandle start, EventHandle end) {
  Event* a = static_cast<Event*>(start);
  Event* b = static_cast<Event*>(end);
  check_elapsed(a->timing && b->timing, a->ev && b->ev);
  LOCUS_CL(clWaitForEvents(1, &a->ev), index, "elapsed time");
  LOCUS_CL(clWaitForEvents(1, &b->ev), index, "elapsed time");
  cl_ulong t0 = 0, t1 = 0;
  LOCUS_CL(clGetEventProfilingInfo(a->ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr), index,
           "elapsed time");
  LOCUS_CL(clGetEventProfilingInfo(b->ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr), index,
           "elapsed time");
  return static_cast<float>(static_cast<double>(static_cast<int64_t>(t1 - t0)) / 1e6);
}

}  // namespace locus::opencl
