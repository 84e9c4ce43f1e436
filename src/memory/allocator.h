#pragma once
// Device memory above the backends: one DeviceAllocator per device, created on first use.
//  - cpu:    CpuAllocator, 64-byte aligned host memory straight from the system allocator,
//            counted (allocated == reserved) and bounded by the same limit mechanism.
//  - others: CachingAllocator over the backend's raw_alloc (see caching_allocator.h).
// Statistics and limits are kept here, so every backend reports the same numbers.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/allocation.h"
#include "core/backend.h"
#include "locus/device.h"

namespace locus::memory {

struct Stats {
  int64_t allocated = 0, allocated_peak = 0;   // bytes in live allocations (rounded sizes)
  int64_t reserved = 0, reserved_peak = 0;     // bytes held from the device (segments)
  int64_t requested = 0;                       // bytes the callers asked for (unrounded)
  int64_t alloc_count = 0, free_count = 0;     // calls
  int64_t segment_count = 0;                   // live segments
  int64_t device_alloc_count = 0, device_free_count = 0;  // raw_alloc / raw_free calls
  int64_t cache_hits = 0;                      // allocations served without raw_alloc
  int64_t oom_count = 0;                       // OutOfMemoryErrors thrown
  int64_t retries = 0;                         // cache releases forced by a failed allocation
  int64_t largest_free_block = 0;              // fragmentation: biggest cached free block
  int64_t limit = 0;                           // bytes; 0 = no limit
};

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  /// Allocates `bytes` (0 allowed) for use on `stream`. Throws OutOfMemoryError with the full
  /// report after one retry with the cache released.
  virtual Allocation allocate(size_t bytes, backend::StreamHandle stream) = 0;
  /// Returns an allocation. A block used on other streams (record_stream) is not reused until
  /// the work queued on them at free time has completed.
  virtual void free(const Allocation& a) noexcept = 0;
  /// Marks that `a` is used on `stream` as well as on its allocation stream. `keep_alive` (the
  /// stream's owner, may be null) is held until the free has recorded its event on `stream`.
  virtual void record_stream(const Allocation& a, backend::StreamHandle stream,
                             std::shared_ptr<void> keep_alive = nullptr) = 0;
  /// Releases every unused cached segment to the device.
  virtual void empty_cache() = 0;
  virtual Stats stats() = 0;
  virtual void reset_peak_stats() = 0;
  /// Upper bound on reserved bytes; 0 removes the limit.
  virtual void set_limit(size_t bytes) = 0;
  virtual size_t total_memory() = 0;
};

/// The allocator of `d` (cpu: the host allocator of cpu_allocator.cpp). Throws NotAvailableError for a device
/// that does not exist, listing the devices present.
DeviceAllocator& allocator_for(Device d);

/// Pinned (page-locked) host memory from its own caching pool, for the backend of `d`.
/// Falls back to ordinary aligned host memory when the backend has none.
PinnedBlock pinned_allocate(Device d, size_t bytes);
void pinned_free(const PinnedBlock& b) noexcept;
/// True when `ptr` lies inside a live pinned block.
bool is_pinned_ptr(const void* ptr) noexcept;

}  // namespace locus::memory
