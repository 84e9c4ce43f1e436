#pragma once
// Streams and events, device-neutral (an in-order OpenCL queue, a CUDA stream; on cpu work runs
// synchronously and these are trivially complete). Kernels and copies enqueue on the current
// stream of their device and return; reading tensor data on the host synchronises first.
#include <memory>

#include "locus/device.h"

namespace locus {

class Stream {
 public:
  /// The default stream of `d`.
  static Stream default_stream(Device d);
  /// A new stream on `d`.
  static Stream create(Device d);
  /// The current stream of `d` on this thread (the default unless a StreamGuard is active).
  static Stream current(Device d);

  Device device() const { return device_; }
  void* handle() const { return handle_ ? handle_.get() : nullptr; }
  bool is_default() const { return handle_ == nullptr; }
  /// Blocks until all work queued on this stream has completed.
  void synchronize() const;
  bool operator==(const Stream& o) const { return device_ == o.device_ && handle() == o.handle(); }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  friend class Tensor;  // record_stream keeps the handle alive
  Stream(Device d, std::shared_ptr<void> h) : device_(d), handle_(std::move(h)) {}
  Device device_;
  std::shared_ptr<void> handle_;  // null: the device's default stream
};

/// Makes `s` the current stream of its device on this thread until the guard ends.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& s);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

class Event {
 public:
  /// `enable_timing` allows elapsed_time().
  explicit Event(bool enable_timing = false) : timing_(enable_timing) {}
  /// Captures the work queued so far on `s` (default: the current stream of `d`).
  void record(const Stream& s);
  void record(Device d) { record(Stream::current(d)); }
  /// Makes future work on `s` wait for this event (host does not block).
  void block(const Stream& s) const;
  /// True when the captured work has completed (true for an event never recorded).
  bool query() const;
  void synchronize() const;
  /// Milliseconds from this event to `end` (both recorded with timing enabled, completed).
  float elapsed_time(const Event& end) const;
  bool is_recorded() const { return state_ != nullptr; }
  Device device() const;

 private:
  struct State;
  bool timing_;
  std::shared_ptr<State> state_;
};

/// Waits for all work on every stream of `d` to complete.
void synchronize(Device d);

}  // namespace locus
