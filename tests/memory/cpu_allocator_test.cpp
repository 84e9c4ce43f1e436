// The cpu allocator (counted malloc, large blocks cached), allocator_for(cpu) and the pinned host pool.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/backend.h"
#include "locus/error.h"
#include "memory/caching_allocator.h"

using namespace locus;
using namespace locus::memory;

namespace cpu_allocator_test {

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(CpuAllocator, AlignedAndWritable) {
  auto a = make_cpu_allocator();
  for (size_t n : {1ul, 4ul, 63ul, 64ul, 65ul, 1000ul, 100 * KiB, 3 * MiB}) {
    Allocation x = a->allocate(n, nullptr);
    ASSERT_NE(x.buf.base, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(x.buf.base) % 64, 0u) << n;
    EXPECT_EQ(x.buf.offset, 0u);
    EXPECT_EQ(x.size, n);
    std::memset(x.buf.base, 0x5a, n);
    a->free(x);
  }
}

// The VmFlags line of the mapping in /proc/self/smaps that holds [p, p + n) ("" if none does).
std::string mapping_flags(const void* ptr, size_t n) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo <= p && p + n <= hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Bytes of [p, p + n) that some mapping of this process covers (/proc/self/maps).
size_t mapped_bytes(const void* ptr, size_t n) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  size_t covered = 0;
  while (std::getline(maps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) != 2) continue;
    const uintptr_t a = std::max(lo, p), b = std::min(hi, p + n);
    if (a < b) covered += b - a;
  }
  return covered;
}

// AddressSanitizer builds keep malloc for every block (src/memory/cpu_allocator.cpp).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsanBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsanBuild = true;
#else
constexpr bool kAsanBuild = false;
#endif
#else
constexpr bool kAsanBuild = false;
#endif

// Blocks from 16 MiB on start within a page of a 2 MiB boundary (their colour, below) and are
// advised to use transparent huge pages: the mapping that holds one carries the kernel's "hg"
// flag (MADV_HUGEPAGE) in /proc/self/smaps; a 4 MiB block's does not. Whether the kernel then
// finds huge pages is its business, so that is not asserted. Released, the whole block is unmapped.
TEST(CpuAllocator, LargeBlocksAskForHugePages) {
  if (kAsanBuild) GTEST_SKIP() << "AddressSanitizer builds take every block from malloc";
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) GTEST_SKIP() << "no transparent huge pages";
  auto a = make_cpu_allocator();
  const size_t n = 16 * MiB + 12345, m = 4 * MiB;
  Allocation x = a->allocate(n, nullptr), y = a->allocate(m, nullptr);
  ASSERT_NE(x.buf.base, nullptr);
  ASSERT_NE(y.buf.base, nullptr);
  EXPECT_LT(reinterpret_cast<uintptr_t>(x.buf.base) % (2 * MiB), 4 * KiB);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x.buf.base) % 64, 0u);
  std::memset(x.buf.base, 0x5a, n);
  std::memset(y.buf.base, 0x5a, m);
  std::string fx = mapping_flags(x.buf.base, n), fy = mapping_flags(y.buf.base, m);
  EXPECT_NE(fx.find(" hg"), std::string::npos) << "mapping of the 16 MiB block: " << fx;
  EXPECT_NE(fy, "");
  EXPECT_EQ(fy.find(" hg"), std::string::npos) << "mapping of the 4 MiB block: " << fy;
  a->free(x);
  a->free(y);
  a->empty_cache();
  EXPECT_EQ(a->stats().reserved, 0);
  EXPECT_EQ(mapped_bytes(x.buf.base, n), 0u) << "the 16 MiB block is still mapped after empty_cache()";
}

// Large blocks (128 KiB and more) start at different offsets within a page ("colours"): blocks
// the system hands out page aligned would otherwise all start at one offset, and an elementwise
// op over three of them hits the same cache sets and the same low address bits (4K aliasing) at
// every step. Consecutive blocks differ by 17 cache lines; 64 in a row are all different.
TEST(CpuAllocator, LargeBlocksStartAtDifferentOffsetsInAPage) {
  auto a = make_cpu_allocator();
  std::vector<Allocation> huge;
  for (size_t n : {200 * KiB, 4 * MiB, 17 * MiB}) {
    std::vector<Allocation> xs;
    std::vector<uintptr_t> offsets;
    for (int i = 0; i < 64; ++i) {
      xs.push_back(a->allocate(n, nullptr));  // none freed yet: every one a new block
      ASSERT_NE(xs.back().buf.base, nullptr);
      const auto p = reinterpret_cast<uintptr_t>(xs.back().buf.base);
      EXPECT_EQ(p % 64, 0u) << n;
      std::memset(xs.back().buf.base, 0x5a, i < 2 ? n : 64);  // the whole block is usable
      offsets.push_back(p % (4 * KiB));
    }
    for (size_t i = 0; i < offsets.size(); ++i)
      for (size_t j = i + 1; j < offsets.size(); ++j)
        EXPECT_NE(offsets[i], offsets[j]) << n << " bytes: blocks " << i << " and " << j << " at one offset";
    for (const Allocation& x : xs) a->free(x);
    if (n >= 16 * MiB) huge = xs;
  }
  a->empty_cache();
  EXPECT_EQ(a->stats().reserved, 0);
  // the blocks of 16 MiB and more were mapped by hand (at their colour past a 2 MiB boundary):
  // every byte of each is unmapped again (under AddressSanitizer, or LOCUS_CPU_HUGEPAGES=0, they
  // are malloc's, which may keep them)
  const char* e = std::getenv("LOCUS_CPU_HUGEPAGES");
  if (!kAsanBuild && (e == nullptr || std::string(e) != "0"))
    for (const Allocation& x : huge)
      EXPECT_EQ(mapped_bytes(x.buf.base, x.size), 0u) << "a block of " << x.size << " bytes is still mapped";
  // small blocks are malloc's: only 64-byte aligned, no colour asked of them
  Allocation s = a->allocate(1000, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.buf.base) % 64, 0u);
  a->free(s);
}

// LOCUS_CPU_HUGEPAGES, read once per process: ctest runs this test again with 0
// (memory.cpu_hugepages_off) and with a value locus does not know (memory.cpu_hugepages_bad).
TEST(CpuAllocator, HugePagesFollowLocusCpuHugepages) {
  const char* e = std::getenv("LOCUS_CPU_HUGEPAGES");
  const std::string v = e == nullptr ? "" : e;
  if (!v.empty() && v != "0" && v != "1") {
    try {
      make_cpu_allocator();
      FAIL() << "LOCUS_CPU_HUGEPAGES=" << v << " was accepted";
    } catch (const Error& err) {
      const std::string m = err.what();
      EXPECT_NE(m.find("LOCUS_CPU_HUGEPAGES=" + v), std::string::npos) << m;
      EXPECT_NE(m.find("use 1"), std::string::npos) << m;
      EXPECT_NE(m.find("or 0"), std::string::npos) << m;
    }
    return;
  }
  if (kAsanBuild) GTEST_SKIP() << "AddressSanitizer builds take every block from malloc";
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) GTEST_SKIP() << "no transparent huge pages";
  auto a = make_cpu_allocator();
  const size_t n = 16 * MiB;
  Allocation x = a->allocate(n, nullptr);
  ASSERT_NE(x.buf.base, nullptr);
  std::memset(x.buf.base, 0x5a, n);
  const std::string f = mapping_flags(x.buf.base, n);
  EXPECT_NE(f, "");
  if (v == "0") EXPECT_EQ(f.find(" hg"), std::string::npos) << "LOCUS_CPU_HUGEPAGES=0, mapping: " << f;
  else EXPECT_NE(f.find(" hg"), std::string::npos) << "LOCUS_CPU_HUGEPAGES=" << v << ", mapping: " << f;
  a->free(x);
  a->empty_cache();
}

TEST(CpuAllocator, CountsEveryAllocation) {
  auto a = make_cpu_allocator();
  Allocation x = a->allocate(100, nullptr), y = a->allocate(1000, nullptr);
  Stats s = a->stats();
  EXPECT_EQ(s.allocated, 128 + 1024);
  EXPECT_EQ(s.reserved, s.allocated);
  EXPECT_EQ(s.requested, 1100);
  EXPECT_EQ(s.alloc_count, 2);
  EXPECT_EQ(s.device_alloc_count, 2);
  EXPECT_EQ(s.segment_count, 2);
  EXPECT_EQ(s.cache_hits, 0);
  a->free(y);
  s = a->stats();
  EXPECT_EQ(s.allocated, 128);
  EXPECT_EQ(s.allocated_peak, 128 + 1024);
  EXPECT_EQ(s.reserved_peak, 128 + 1024);
  EXPECT_EQ(s.free_count, 1);
  EXPECT_EQ(s.device_free_count, 1);
  a->reset_peak_stats();
  EXPECT_EQ(a->stats().allocated_peak, 128);
  a->free(x);
  s = a->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.requested, 0);
  EXPECT_EQ(s.segment_count, 0);
  a->empty_cache();  // nothing cached: no effect
  EXPECT_EQ(a->stats().allocated_peak, 128);
}

TEST(CpuAllocator, LargeBlocksAreCachedAndReleased) {
  auto a = make_cpu_allocator();
  const int64_t big = 3 * MiB + 64 * KiB;  // 3 MiB + 1 byte, rounded to the 64 KiB size class
  Allocation x = a->allocate(3 * MiB + 1, nullptr);
  void* first = x.buf.base;
  std::memset(x.buf.base, 1, 3 * MiB + 1);
  a->free(x);
  Stats s = a->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.reserved, big);  // kept for the next step's tensor of the same size
  EXPECT_EQ(s.device_alloc_count, 1);
  EXPECT_EQ(s.device_free_count, 0);
  Allocation y = a->allocate(3 * MiB + 100, nullptr);  // same size class: the same block
  EXPECT_EQ(y.buf.base, first);
  s = a->stats();
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.allocated, big);
  EXPECT_EQ(s.reserved, big);
  EXPECT_EQ(s.device_alloc_count, 1);
  Allocation z = a->allocate(5 * MiB, nullptr);  // another class: a new block
  EXPECT_NE(z.buf.base, first);
  a->free(y);
  a->free(z);
  s = a->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.reserved, big + static_cast<int64_t>(5 * MiB));
  EXPECT_EQ(s.reserved_peak, big + static_cast<int64_t>(5 * MiB));
  a->empty_cache();
  s = a->stats();
  EXPECT_EQ(s.reserved, 0);
  EXPECT_EQ(s.device_free_count, 2);
  EXPECT_EQ(s.segment_count, 0);
}

// Blocks from 32 KiB on are cached too (a batch of 64 x 256 floats is 64 KiB): glibc trims its
// heap once 128 KiB are free at its top, and the next step faulted the same pages in again. They
// round to 1 KiB classes below 128 KiB; blocks under 32 KiB are malloc's, not cached.
TEST(CpuAllocator, MidSizedBlocksAreCachedInKiBClasses) {
  auto a = make_cpu_allocator();
  Allocation x = a->allocate(64 * KiB, nullptr);
  void* first = x.buf.base;
  std::memset(x.buf.base, 1, 64 * KiB);
  a->free(x);
  Stats s = a->stats();
  EXPECT_EQ(s.reserved, static_cast<int64_t>(64 * KiB));
  EXPECT_EQ(s.device_free_count, 0);
  Allocation y = a->allocate(63 * KiB + 1, nullptr);  // the same 1 KiB class: the same block
  EXPECT_EQ(y.buf.base, first);
  EXPECT_EQ(a->stats().cache_hits, 1);
  EXPECT_EQ(a->stats().allocated, static_cast<int64_t>(64 * KiB));
  Allocation z = a->allocate(32 * KiB + 1, nullptr);  // 33 KiB, its own class
  EXPECT_EQ(a->stats().allocated, static_cast<int64_t>(64 * KiB + 33 * KiB));
  Allocation w = a->allocate(31 * KiB + 1, nullptr);  // under 32 KiB: 64-byte rounding, not cached
  EXPECT_EQ(a->stats().allocated, static_cast<int64_t>(64 * KiB + 33 * KiB + 31 * KiB + 64));
  a->free(y);
  a->free(z);
  a->free(w);
  s = a->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.reserved, static_cast<int64_t>(64 * KiB + 33 * KiB));
  EXPECT_EQ(s.device_free_count, 1);  // w went back to malloc
  a->empty_cache();
  s = a->stats();
  EXPECT_EQ(s.reserved, 0);
  EXPECT_EQ(s.segment_count, 0);
}

TEST(CpuAllocator, ZeroBytesIsNotCounted) {
  auto a = make_cpu_allocator();
  Allocation x = a->allocate(0, nullptr);
  EXPECT_EQ(x.buf.base, nullptr);
  a->free(x);
  Stats s = a->stats();
  EXPECT_EQ(s.alloc_count, 0);
  EXPECT_EQ(s.free_count, 0);
}

TEST(CpuAllocator, LimitThrowsThenRecovers) {
  auto a = make_cpu_allocator();
  a->set_limit(1 * MiB);
  Allocation x = a->allocate(512 * KiB, nullptr);
  try {
    a->allocate(600 * KiB, nullptr);
    ADD_FAILURE() << "no OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("cpu out of memory: tried to allocate 600.00 KiB. Device cpu has a total capacity of ", 0), 0u)
        << m;
    EXPECT_TRUE(has_suffix(m,
                           "; the limit set with set_per_process_memory_fraction/set_memory_limit is 1.00 MiB. Of the "
                           "allocated memory 512.00 KiB is allocated by locus. The request would exceed the limit: "
                           "free tensors you no longer need, reduce the batch size, or raise the limit with "
                           "set_memory_limit(bytes, device) or set_per_process_memory_fraction(fraction, device)."))
        << m;
  }
  Stats s = a->stats();
  EXPECT_EQ(s.oom_count, 1);
  EXPECT_EQ(s.allocated, static_cast<int64_t>(512 * KiB));  // the failed request left no trace
  EXPECT_EQ(s.limit, static_cast<int64_t>(1 * MiB));
  a->free(x);
  Allocation y = a->allocate(600 * KiB, nullptr);
  a->free(y);
  a->set_limit(0);
  Allocation z = a->allocate(2 * MiB, nullptr);
  a->free(z);
}

TEST(CpuAllocator, SystemOutOfMemoryIsAnOutOfMemoryError) {
  auto a = make_cpu_allocator();
  try {
    a->allocate(SIZE_MAX / 2, nullptr);
    ADD_FAILURE() << "no OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_TRUE(has_suffix(e.what(), " is allocated by locus. Free tensors you no longer need or reduce the batch size."))
        << e.what();
  }
  EXPECT_EQ(a->stats().allocated, 0);
  EXPECT_GT(a->total_memory(), 0u);
}

TEST(CpuAllocator, ThreadsKeepTheCountsExact) {
  auto a = make_cpu_allocator();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        Allocation x = a->allocate(static_cast<size_t>(1 + i % 300), nullptr);
        static_cast<char*>(x.buf.base)[0] = 1;
        a->free(x);
      }
    });
  for (auto& th : threads) th.join();
  Stats s = a->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.alloc_count, 20000);
  EXPECT_EQ(s.free_count, 20000);
  EXPECT_LE(s.allocated_peak, 4 * 320);
}

TEST(AllocatorFor, CpuIsOneSharedAllocator) {
  DeviceAllocator& a = allocator_for(Device(kCPU));
  EXPECT_EQ(&a, &allocator_for(Device("cpu:0")));
  Allocation x = a.allocate(10, nullptr);
  EXPECT_GE(a.stats().allocated, 64);
  a.free(x);
}

TEST(AllocatorFor, UnknownDevicesAreNotAvailable) {
  EXPECT_THROW(allocator_for(Device(kMPS, 0)), NotAvailableError);
  EXPECT_THROW(allocator_for(Device(kOpenCL, 100)), NotAvailableError);
}

TEST(PinnedPool, CachesBlocksBySizeClass) {
  PinnedBlock b = pinned_allocate(Device(kCPU), 100);
  ASSERT_NE(b.ptr, nullptr);
  EXPECT_EQ(b.size, 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.ptr) % 64, 0u);
  std::memset(b.ptr, 1, 4096);  // the block is a whole 4 KiB class
  EXPECT_FALSE(is_pinned_ptr(b.ptr));  // the cpu backend has no page-locked memory: plain memory
  pinned_free(b);
  PinnedBlock c = pinned_allocate(Device(kCPU), 4000);  // same class: the cached block
  EXPECT_EQ(c.ptr, b.ptr);
  PinnedBlock d = pinned_allocate(Device(kCPU), 5000);  // next class: another block
  EXPECT_NE(d.ptr, c.ptr);
  std::memset(d.ptr, 2, 8192);
  pinned_free(c);
  pinned_free(d);
}

TEST(PinnedPool, AcceleratorMemoryIsPinned) {
  Device acc = Device(kCPU);
  for (DeviceType t : {kCUDA, kOpenCL}) {
    backend::Backend* be = backend::get(t);
    if (be != nullptr && be->device_count() > 0) {
      acc = Device(t, 0);
      break;
    }
  }
  if (acc.is_cpu()) GTEST_SKIP() << "needs an accelerator backend";
  PinnedBlock b = pinned_allocate(acc, 10000);
  if (!is_pinned_ptr(b.ptr)) {
    pinned_free(b);
    GTEST_SKIP() << acc.str() << " has no page-locked memory";
  }
  auto* p = static_cast<char*>(b.ptr);
  std::memset(p, 3, 10000);
  EXPECT_TRUE(is_pinned_ptr(p + 9999));
  EXPECT_FALSE(is_pinned_ptr(p - 1));
  pinned_free(b);
  EXPECT_FALSE(is_pinned_ptr(p));  // cached for reuse, but no longer live
  PinnedBlock c = pinned_allocate(acc, 16384);
  EXPECT_EQ(c.ptr, b.ptr);
  EXPECT_TRUE(is_pinned_ptr(c.ptr));
  pinned_free(c);
}

}  // namespace

}  // namespace cpu_allocator_test
