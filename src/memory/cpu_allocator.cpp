// The cpu allocator: 64-byte aligned memory from the system allocator, counted with relaxed
// atomics so statistics and the limit work as on other devices. Small blocks (< 32 KiB) are not
// cached: malloc's own caches serve them well. Larger ones are: glibc hands them back to the
// kernel on free (munmap from 128 KiB, and a heap trim once 128 KiB are free at the heap's top,
// which three freed 64 KiB blocks are), so every training step paid page faults to zero fresh
// pages for the same activations again (a quarter of a CNN step's time; a third of an MLP
// forward on a batch of 64, whose 64 KiB activations were trimmed and faulted in again each
// call). A freed block is kept, by size class, up to a cap; empty_cache() releases them, and so
// does an allocation that fails, before its one retry. reserved = allocated + cached.
//
// Alignment is done by hand (malloc 64 bytes more, keep the raw pointer just below the aligned
// one): glibc's aligned_alloc bypasses the thread cache and costs 4x a malloc of the same size.
//
// Blocks of 16 MiB and more are mapped by hand instead: 2 MiB aligned and madvise(MADV_HUGEPAGE),
// so that where transparent huge pages are "madvise" (Debian's default) the kernel backs each
// whole 2 MiB of them with one huge page. A pass over 64 MiB then takes 32 TLB entries instead of
// 16384 and the hardware prefetchers are not stopped at every 4 KiB: a float32 sum of 16M
// elements went from 2.4 to 1.6 ms on one thread (docs/benchmarks.md, 2026-11-26). Smaller
// blocks stay on 4 KiB pages: their pages fit the second-level TLB (Zen 4's covers 12 MiB), and
// an add of three 4 MiB operands on huge pages measured 5 % slower (71.5 against 67.8 us). The
// mapping ends where the block does, so the last partial 2 MiB stays in small pages (nothing is
// touched that the block does not cover); without THP the advice is a no-op.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/fault.h"
#include "locus/error.h"
#include "memory/caching_allocator.h"

namespace locus::memory {
namespace {

constexpr size_t kAlign = 64;
// Blocks from kCacheMin on are cached (see the top); classes are 64 bytes apart below kCacheMin,
// 1 KiB apart up to glibc's mmap threshold (kLargeMin), 4 KiB up to 1 MiB, 64 KiB above.
constexpr size_t kCacheMin = size_t{32} << 10;
constexpr size_t kLargeMin = size_t{128} << 10;

/// Bytes actually taken for a request of `bytes` (0 on overflow).
size_t block_size(size_t bytes) {
  size_t step = bytes < kCacheMin   ? kAlign
                : bytes < kLargeMin ? size_t{1} << 10
                : bytes < (size_t{1} << 20) ? size_t{4} << 10
                                            : size_t{64} << 10;
  if (bytes > SIZE_MAX - step) return 0;
  return (bytes + step - 1) / step * step;
}

// Large blocks start at staggered offsets within a page ("cache colouring", as jemalloc does for
// its large allocations): the system hands out large blocks page aligned, so without it every
// large tensor starts at the same offset in a page, and an elementwise op's operands and result
// meet at the same L1 sets and the same low 12 address bits at every step (4K aliasing: the core
// takes a load for one that may depend on the store before it). An add of two 4 MiB operands
// into a third, on two threads of a Zen 3, took 119-138 us with the three at one offset and
// 104-120 us at three, in four runs (docs/benchmarks.md, stop 41). Offsets are whole cache lines,
// 17 apart, so 64 blocks in a row all start at different ones; at most a page more per block.
constexpr size_t kColourSpan = 4096, kColourStep = 17 * kAlign;
size_t next_colour(size_t n) {
  static std::atomic<size_t> next{0};
  return n < kLargeMin ? 0 : next.fetch_add(1, std::memory_order_relaxed) * kColourStep % kColourSpan;
}

// malloc returns 16-byte aligned memory, so the aligned pointer is at least 16 bytes in: room
// for the raw pointer just below it. A large block is aligned to a page and then `colour` bytes
// (a multiple of kAlign) in: malloc's own offset within a page is not fixed (glibc maps a fresh
// 200 KiB request, page aligned, but serves it from its heap once its mmap threshold has risen
// with earlier frees, at any offset), so only a page-aligned start makes the colours distinct in
// a long-running process too. Smaller blocks are aligned to kAlign.
void* aligned_malloc(size_t n, size_t colour) {
  const size_t align = n >= kLargeMin ? kColourSpan : kAlign;
  if (n > SIZE_MAX - align - colour) return nullptr;
  auto* raw = static_cast<char*>(std::malloc(n + align + colour));
  if (raw == nullptr) return nullptr;
  auto* p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + align) & ~uintptr_t{align - 1}) + colour;
  reinterpret_cast<void**>(p)[-1] = raw;
  return p;
}
void aligned_free(void* p) noexcept { std::free(static_cast<void**>(p)[-1]); }

constexpr size_t kHuge = size_t{2} << 20;
size_t page_round(size_t n) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGE_SIZE) > 0 ? sysconf(_SC_PAGE_SIZE) : 4096);
  return n > SIZE_MAX - page ? 0 : (n + page - 1) / page * page;
}

// n bytes at `colour` (< a page) past a 2 MiB boundary, advised to use huge pages; null when the
// system refuses.
void* huge_map(size_t n, size_t colour) {
  const size_t len = page_round(n + colour);
  if (len == 0 || len > SIZE_MAX - kHuge) return nullptr;
  const size_t span = len + kHuge;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto r = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t a = (r + kHuge - 1) & ~uintptr_t{kHuge - 1};
  const size_t head = a - r, tail = span - head - len;
  if (head != 0) ::munmap(raw, head);
  if (tail != 0) ::munmap(reinterpret_cast<void*>(a + len), tail);
  ::madvise(reinterpret_cast<void*>(a), len, MADV_HUGEPAGE);  // EINVAL without THP: small pages
  return reinterpret_cast<void*>(a + colour);
}
// The mapping of huge_map's block p (its colour is p's offset from the 2 MiB boundary below it).
void huge_unmap(void* p, size_t n) noexcept {
  const auto b = reinterpret_cast<uintptr_t>(p);
  const uintptr_t a = b & ~uintptr_t{kHuge - 1};
  ::munmap(reinterpret_cast<void*>(a), page_round(n + (b - a)));
}

// A block of block_size n: huge_map's from kHugeMin on, aligned_malloc's below. AddressSanitizer
// builds keep malloc for every block, so that overflows of large ones are still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kHugeBlocks = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kHugeBlocks = false;
#else
constexpr bool kHugeBlocks = true;
#endif
#else
constexpr bool kHugeBlocks = true;
#endif
constexpr size_t kHugeMin = size_t{16} << 20;

// LOCUS_CPU_HUGEPAGES, read once: unset, empty or 1: blocks from kHugeMin on huge pages; 0: never
// (where the first touch of a huge page may compact memory and that latency matters); anything
// else: -1, and make_cpu_allocator() throws saying so.
int huge_setting() noexcept {
  static const int v = [] {
    const char* e = std::getenv("LOCUS_CPU_HUGEPAGES");
    const std::string s = e == nullptr ? "" : e;
    return s.empty() || s == "1" ? 1 : s == "0" ? 0 : -1;
  }();
  return v;
}
bool huge_blocks() noexcept { return kHugeBlocks && huge_setting() == 1; }

void* block_alloc(size_t n) {
  const size_t colour = next_colour(n);
  return huge_blocks() && n >= kHugeMin ? huge_map(n, colour) : aligned_malloc(n, colour);
}
void block_free(void* p, size_t n) noexcept {
  if (huge_blocks() && n >= kHugeMin) huge_unmap(p, n);
  else aligned_free(p);
}

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
  ~CpuAllocator() override { empty_cache(); }
  Allocation allocate(size_t bytes, backend::StreamHandle) override {
    if (bytes == 0) return {};
    // an injected fault (core/fault.h) is a system allocator returning null, retry included
    const bool refuse = fault::hit(fault::kAlloc);
    size_t n = block_size(bytes);
    if (n == 0) oom(bytes, false);  // overflow
    auto sn = static_cast<int64_t>(n);
    int64_t now = allocated_.fetch_add(sn, std::memory_order_relaxed) + sn;
    size_t limit = limit_.load(std::memory_order_relaxed);
    if (limit != 0 && static_cast<size_t>(now) > limit) {
      allocated_.fetch_sub(sn, std::memory_order_relaxed);
      oom(bytes, true);
    }
    void* p = n >= kCacheMin && !refuse ? take_cached(n) : nullptr;
    if (p != nullptr) {
      hits_.fetch_add(1, std::memory_order_relaxed);
    } else {
      p = refuse ? nullptr : block_alloc(n);
      if (p == nullptr && (n >= kCacheMin || refuse) && cached_.load(std::memory_order_relaxed) > 0) {
        empty_cache();  // the cached blocks may be what the system lacks: release, retry once
        p = refuse ? nullptr : block_alloc(n);
      }
      if (p == nullptr) {
        allocated_.fetch_sub(sn, std::memory_order_relaxed);
        oom(bytes, false);
      }
      system_allocs_.fetch_add(1, std::memory_order_relaxed);
    }
    bump(peak_, now);
    if (int64_t cached = cached_.load(std::memory_order_relaxed); cached != 0) bump(reserved_peak_, now + cached);
    requested_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
    allocs_.fetch_add(1, std::memory_order_relaxed);
    Allocation a;
    a.buf.base = p;
    a.size = bytes;
    return a;
  }

  void free(const Allocation& a) noexcept override {
    if (a.buf.base == nullptr) return;
    size_t n = block_size(a.size);
    if (n < kCacheMin || !keep_cached(a.buf.base, n)) {
      block_free(a.buf.base, n);
      system_frees_.fetch_add(1, std::memory_order_relaxed);
    }
    allocated_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
    requested_.fetch_sub(static_cast<int64_t>(a.size), std::memory_order_relaxed);
    frees_.fetch_add(1, std::memory_order_relaxed);
  }

  // cpu work is synchronous
  void record_stream(const Allocation&, backend::StreamHandle, std::shared_ptr<void>) override {}
  void empty_cache() override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [n, blocks] : cache_) {
      for (void* p : blocks) block_free(p, n);
      system_frees_.fetch_add(static_cast<int64_t>(blocks.size()), std::memory_order_relaxed);
      cached_.fetch_sub(static_cast<int64_t>(n * blocks.size()), std::memory_order_relaxed);
    }
    cache_.clear();
  }

  Stats stats() override {
    Stats s;
    s.allocated = allocated_.load(std::memory_order_relaxed);
    s.reserved = s.allocated + cached_.load(std::memory_order_relaxed);
    s.allocated_peak = peak_.load(std::memory_order_relaxed);
    s.reserved_peak = std::max(s.allocated_peak, reserved_peak_.load(std::memory_order_relaxed));
    s.requested = requested_.load(std::memory_order_relaxed);
    s.alloc_count = allocs_.load(std::memory_order_relaxed);
    s.device_alloc_count = system_allocs_.load(std::memory_order_relaxed);
    s.free_count = frees_.load(std::memory_order_relaxed);
    s.device_free_count = system_frees_.load(std::memory_order_relaxed);
    s.cache_hits = hits_.load(std::memory_order_relaxed);
    s.segment_count = s.device_alloc_count - s.device_free_count;
    s.oom_count = ooms_.load(std::memory_order_relaxed);
    s.limit = static_cast<int64_t>(limit_.load(std::memory_order_relaxed));
    return s;
  }
  void reset_peak_stats() override {
    int64_t now = allocated_.load(std::memory_order_relaxed);
    peak_.store(now, std::memory_order_relaxed);
    reserved_peak_.store(now + cached_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
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
    r.allocated = static_cast<size_t>(allocated_.load(std::memory_order_relaxed));
    r.reserved = r.allocated + static_cast<size_t>(cached_.load(std::memory_order_relaxed));
    r.caching = false;
    r.limit_hit = limit_hit;
    throw OutOfMemoryError(detail::oom_message(r));
  }

  static void bump(std::atomic<int64_t>& peak, int64_t now) {
    int64_t p = peak.load(std::memory_order_relaxed);
    while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
    }
  }
  void* take_cached(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(n);
    if (it == cache_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
    return p;
  }
  bool keep_cached(void* p, size_t n) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    // at most an eighth of the machine's memory (and 4 GiB) stays cached
    static const size_t cap = std::min<size_t>(physical_memory() / 8, size_t{4} << 30);
    if (static_cast<size_t>(cached_.load(std::memory_order_relaxed)) + n > cap) return false;
    try {
      cache_[n].push_back(p);
    } catch (...) {
      return false;
    }
    cached_.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
    return true;
  }

  // One cache line: an allocation touches several counters, so one line moves between cores.
  alignas(64) std::atomic<int64_t> allocated_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> requested_{0};
  std::atomic<int64_t> allocs_{0};
  std::atomic<int64_t> frees_{0};
  std::atomic<int64_t> ooms_{0};
  std::atomic<size_t> limit_{0};
  std::atomic<int64_t> hits_{0}, system_allocs_{0}, system_frees_{0}, cached_{0}, reserved_peak_{0};
  std::mutex mu_;  // cached blocks only
  std::unordered_map<size_t, std::vector<void*>> cache_;
};

}  // namespace

std::unique_ptr<DeviceAllocator> make_cpu_allocator() {
  if (huge_setting() < 0)
    throw Error("LOCUS_CPU_HUGEPAGES=" + std::string(std::getenv("LOCUS_CPU_HUGEPAGES")) +
                " is not a setting locus knows: use 1 (the default: cpu blocks of 16 MiB and more on transparent "
                "huge pages) or 0 (never), or unset it.");
  return std::make_unique<CpuAllocator>();
}

}  // namespace locus::memory
