// Streams and events over the backend interface; the current stream is per thread and device.
#include <array>
#include <mutex>
#include <vector>

#include "core/backend.h"
#include "locus/error.h"
#include "locus/guard.h"
#include "locus/stream.h"

namespace locus {
namespace {

constexpr int kMaxIndex = 128;
thread_local std::array<std::array<void*, kMaxIndex>, kNumDeviceTypes> t_current{};


// Streams created per device, so synchronize(device) can wait for all of them.
std::mutex g_streams_mutex;
std::vector<std::pair<Device, std::weak_ptr<void>>> g_streams;

}  // namespace

namespace backend {
StreamHandle current_stream(Device d) {
  if (d.is_cpu()) return nullptr;
  int i = d.index();
  return (i >= 0 && i < kMaxIndex) ? t_current[static_cast<int>(d.type())][i] : nullptr;
}
}  // namespace backend

Stream Stream::default_stream(Device d) {
  d = resolve_device(d);
  if (!d.is_cpu()) check_device_available(d);
  return Stream(d, nullptr);
}

Stream Stream::create(Device d) {
  d = resolve_device(d);
  check_device_available(d);
  backend::Backend& b = backend::backend_for(d);
  int i = backend::device_index(d);
  void* h = b.stream_create(i);
  std::shared_ptr<void> handle(h, [&b, i](void* p) { b.stream_destroy(i, p); });
  {
    std::lock_guard<std::mutex> g(g_streams_mutex);
    std::erase_if(g_streams, [](const auto& e) { return e.second.expired(); });
    g_streams.emplace_back(d, handle);
  }
  return Stream(d, std::move(handle));
}

namespace {
// Current streams held alive by active guards, per thread (empty once its guards have ended, so
// destroying it at thread exit destroys no stream). A value, not a pointer: a heap vector per
// thread was never freed, one leak per thread that ever used a StreamGuard.
thread_local std::vector<Stream> t_held;
}  // namespace

Stream Stream::current(Device d) {
  d = resolve_device(d);
  void* h = backend::current_stream(d);
  if (h != nullptr)
    for (auto it = t_held.rbegin(); it != t_held.rend(); ++it)
      if (it->device() == d && it->handle() == h) return *it;
  return Stream(d, nullptr);
}

void Stream::synchronize() const {
  if (device_.is_cpu()) return;
  backend::backend_for(device_).stream_synchronize(backend::device_index(device_), handle());
}

StreamGuard::StreamGuard(const Stream& s) : previous_(Stream::current(s.device())) {
  t_held.push_back(s);
  Device d = s.device();
  if (!d.is_cpu()) t_current[static_cast<int>(d.type())][backend::device_index(d)] = s.handle();
}

StreamGuard::~StreamGuard() {
  Device d = previous_.device();
  if (!d.is_cpu()) t_current[static_cast<int>(d.type())][backend::device_index(d)] = previous_.handle();
  if (!t_held.empty()) t_held.pop_back();
}

struct Event::State {
  Device device = Device(kCPU);
  backend::Backend* backend = nullptr;
  backend::EventHandle event = nullptr;
  ~State() {
    if (backend != nullptr && event != nullptr) backend->event_destroy(backend::device_index(device), event);
  }
};

void Event::record(const Stream& s) {
  auto st = std::make_shared<State>();
  st->device = s.device();
  st->backend = &backend::backend_for(s.device());
  st->event = st->backend->event_create(backend::device_index(s.device()), timing_);
  st->backend->event_record(backend::device_index(s.device()), st->event, s.handle());
  state_ = std::move(st);
}

void Event::block(const Stream& s) const {
  if (!state_) return;
  if (s.device() != state_->device)
    throw DeviceMismatchError("[Event::block] the event was recorded on " + state_->device.str() +
                              " but the stream is on " + s.device().str() + "; an event can only order work on its own device.");
  state_->backend->stream_wait_event(backend::device_index(s.device()), s.handle(), state_->event);
}

bool Event::query() const {
  return !state_ || state_->backend->event_query(backend::device_index(state_->device), state_->event);
}

void Event::synchronize() const {
  if (state_) state_->backend->event_synchronize(backend::device_index(state_->device), state_->event);
}

float Event::elapsed_time(const Event& end) const {
  if (!state_ || !end.state_)
    throw Error("[Event::elapsed_time] both events must be recorded first (call record()).");
  if (!timing_ || !end.timing_)
    throw Error("[Event::elapsed_time] both events must be created with enable_timing = true.");
  if (state_->device != end.state_->device)
    throw DeviceMismatchError("[Event::elapsed_time] the events were recorded on different devices, " +
                              state_->device.str() + " and " + end.state_->device.str() + ".");
  synchronize();
  end.synchronize();
  return state_->backend->event_elapsed_ms(backend::device_index(state_->device), state_->event, end.state_->event);
}

Device Event::device() const {
  if (!state_) throw Error("[Event::device] the event has not been recorded yet.");
  return state_->device;
}

void synchronize(Device d) {
  d = resolve_device(d);
  if (d.is_cpu()) return;
  check_device_available(d);
  backend::Backend& b = backend::backend_for(d);
  std::vector<std::shared_ptr<void>> live;
  {
    std::lock_guard<std::mutex> g(g_streams_mutex);
    for (auto& e : g_streams)
      if (e.first == d)
        if (auto p = e.second.lock()) live.push_back(p);
  }
  for (auto& p : live) b.stream_synchronize(backend::device_index(d), p.get());
  b.stream_synchronize(backend::device_index(d), nullptr);
}

}  // namespace locus
