#pragma once
// The caching allocator every non-cpu device uses (design at the top of caching_allocator.cpp),
// the raw-device interface it carves up, and the cpu allocator's factory.
#include <cstddef>
#include <memory>
#include <string>

#include "memory/allocator.h"

namespace locus::memory {

/// The device memory a CachingAllocator carves up. Called with the allocator's mutex held.
/// Implemented over a Backend (backend_raw_device) and, in tests, over host memory.
class RawDevice {
 public:
  virtual ~RawDevice() = default;
  /// `bytes` of device memory as a backend handle; nullptr when the device is out of memory
  /// (other failures throw BackendError).
  virtual void* alloc(size_t bytes) = 0;
  virtual void free(void* base) noexcept = 0;
  /// Capacity and what the driver reports free, in bytes.
  virtual size_t total_memory() = 0;
  virtual size_t free_memory() = 0;
  /// A new event recorded on `stream`: done once the work queued there so far has completed.
  virtual void* record_event(backend::StreamHandle stream) = 0;
  virtual bool event_done(void* event) = 0;
  /// Blocks until `event` is done.
  virtual void wait_event(void* event) = 0;
  virtual void release_event(void* event) noexcept = 0;
  /// The device as users spell it ("opencl:0"), for error messages.
  virtual std::string name() = 0;
};

/// Device `index` of backend `b` as a RawDevice (raw_alloc, events, props).
std::unique_ptr<RawDevice> backend_raw_device(backend::Backend* b, int index);

/// PyTorch-style caching allocator: 512 B rounding, small and large pools, best fit, splitting,
/// coalescing, stream-ordered reuse, a limit, one release-and-retry before OutOfMemoryError.
/// Thread-safe (one mutex).
class CachingAllocator final : public DeviceAllocator {
 public:
  explicit CachingAllocator(std::unique_ptr<RawDevice> device);
  /// Returns cached segments to the device; live allocations are left to the process exit.
  ~CachingAllocator() override;

  Allocation allocate(size_t bytes, backend::StreamHandle stream) override;
  void free(const Allocation& a) noexcept override;
  void record_stream(const Allocation& a, backend::StreamHandle stream,
                     std::shared_ptr<void> keep_alive = nullptr) override;
  void empty_cache() override;
  Stats stats() override;
  void reset_peak_stats() override;
  void set_limit(size_t bytes) override;
  size_t total_memory() override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// A new cpu allocator: 64-byte aligned malloc, counted, no cache (allocator_for(cpu) holds one).
std::unique_ptr<DeviceAllocator> make_cpu_allocator();

namespace detail {
/// "512 B", "1.50 KiB", "64.00 MiB", "3.80 GiB".
std::string format_size(size_t bytes);

/// What an OutOfMemoryError reports.
struct OomReport {
  std::string device;        // "opencl:0"
  size_t requested = 0;      // bytes asked for
  size_t total = 0, free = 0;  // the device's capacity and free memory
  size_t limit = 0;          // 0: none
  size_t allocated = 0, reserved = 0, largest_free = 0;
  bool caching = true;       // false: no cache (cpu), so no "reserved but unallocated" clause
  bool limit_hit = false;    // the limit refused the request (rather than the device)
  bool fragmented = false;   // reserved - allocated would have held the request
};
std::string oom_message(const OomReport& r);
}  // namespace detail

}  // namespace locus::memory
