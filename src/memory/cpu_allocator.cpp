// The cpu allocator: 64-byte aligned memory straight from the system allocator (malloc already
// caches), counted with relaxed atomics so statistics and the limit work as on other devices.
// Nothing is cached, so allocated == reserved and there is nothing to release or retry.
//
// Alignment is done by hand (malloc 64 bytes more, keep the raw pointer just below the aligned
// one): glibc's aligned_alloc bypasses the thread cache and costs 4x a malloc of the same size.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "locus/error.h"
#include "memory/caching_allocator.h"

namespace locus::memory {
namespace {

constexpr size_t kAlign = 64;

// malloc returns 16-byte aligned memory, so the aligned pointer is at least 16 bytes in: room
// for the raw pointer just below it.
void* aligned_malloc(size_t n) {
  if (n > SIZE_MAX - kAlign) return nullptr;
  auto* raw = static_cast<char*>(std::malloc(n + kAlign));
  if (raw == nullptr) return nullptr;
  auto* p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kAlign) & ~uintptr_t{kAlign - 1});
  reinterpret_cast<void**>(p)[-1] = raw;
  return p;
}
void aligned_free(void* p) noexcept { std::free(static_cast<void**>(p)[-1]); }

size_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}
size_t available_memory() {
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}

class CpuAllocator final : public DeviceAllocator {
 public:
  Allocation allocate(size_t bytes, backend::StreamHandle) override {
    if (bytes == 0) return {};
    size_t n = (bytes + kAlign - 1) & ~(kAlign - 1);
    if (n < bytes) oom(bytes, false);  // overflow
    auto sn = static_cast<int64_t>(n);
    int64_t now = allocated_.fetch_add(sn, std::memory_order_relaxed) + sn;
    size_t limit = limit_.load(std::memory_order_relaxed);
    if (limit != 0 && static_cast<size_t>(now) > limit) {
      allocated_.fetch_sub(sn, std::memory_order_relaxed);
      oom(bytes, true);
    }
    void* p = aligned_malloc(n);
    if (p == nullptr) {
      allocated_.fetch_sub(sn, std::memory_order_relaxed);
      oom(bytes, false);
    }
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    requested_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    allocs_.fetch_add(1, std::memory_order_relaxed);
    Allocation a;
    a.buf.base = p;
    a.size = bytes;
    return a;
  }

  void free(const Allocation& a) noexcept override {
    if (a.buf.base == nullptr) return;
    aligned_free(a.buf.base);
    size_t n = (a.size + kAlign - 1) & ~(kAlign - 1);
    allocated_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
    requested_.fetch_sub(static_cast<int64_t>(a.size), std::memory_order_relaxed);
    frees_.fetch_add(1, std::memory_order_relaxed);
  }

  void record_stream(const Allocation&, backend::StreamHandle) override {}  // cpu work is synchronous
  void empty_cache() override {}

  Stats stats() override {
    Stats s;
    s.allocated = s.reserved = allocated_.load(std::memory_order_relaxed);
    s.allocated_peak = s.reserved_peak = peak_.load(std::memory_order_relaxed);
    s.requested = requested_.load(std::memory_order_relaxed);
    s.alloc_count = s.device_alloc_count = allocs_.load(std::memory_order_relaxed);
    s.free_count = s.device_free_count = frees_.load(std::memory_order_relaxed);
    s.segment_count = s.alloc_count - s.free_count;
    s.oom_count = ooms_.load(std::memory_order_relaxed);
    s.limit = static_cast<int64_t>(limit_.load(std::memory_order_relaxed));
    return s;
  }
  void reset_peak_stats() override { peak_.store(allocated_.load(std::memory_order_relaxed), std::memory_order_relaxed); }
  void set_limit(size_t bytes) override { limit_.store(bytes, std::memory_order_relaxed); }
  size_t total_memory() override { return physical_memory(); }

 private:
  [[noreturn]] void oom(size_t bytes, bool limit_hit) {
    ooms_.fetch_add(1, std::memory_order_relaxed);
    detail::OomReport r;
    r.device = "cpu";
    r.requested = bytes;
    r.total = physical_memory();
    r.free = available_memory();
    r.limit = limit_.load(std::memory_order_relaxed);
    r.allocated = r.reserved = static_cast<size_t>(allocated_.load(std::memory_order_relaxed));
    r.caching = false;
    r.limit_hit = limit_hit;
    throw OutOfMemoryError(detail::oom_message(r));
  }

  // One cache line: an allocation touches several counters, so one line moves between cores.
  alignas(64) std::atomic<int64_t> allocated_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> requested_{0};
  std::atomic<int64_t> allocs_{0};
  std::atomic<int64_t> frees_{0};
  std::atomic<int64_t> ooms_{0};
  std::atomic<size_t> limit_{0};
};

}  // namespace

std::unique_ptr<DeviceAllocator> make_cpu_allocator() { return std::make_unique<CpuAllocator>(); }

}  // namespace locus::memory
