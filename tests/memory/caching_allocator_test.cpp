// CachingAllocator over a host "device" with a fixed capacity: real malloc'ed segments, so every
// test can write into its blocks and prove they do not overlap.
#include "memory/caching_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "locus/error.h"

using namespace locus;
using namespace locus::memory;

namespace caching_allocator_test {

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

struct FakeEvent {
  backend::StreamHandle stream;
  bool done = false;
};

// What the test sees of the device the allocator owns.
struct DeviceState {
  size_t capacity = 0, used = 0;
  std::map<void*, size_t> live;
  std::vector<FakeEvent*> events;
  int waits = 0;
};

class HostDevice final : public RawDevice {
 public:
  explicit HostDevice(DeviceState* s) : s_(s) {}
  void* alloc(size_t n) override {
    if (s_->used + n > s_->capacity) return nullptr;
    void* p = std::malloc(n);
    s_->live[p] = n;
    s_->used += n;
    return p;
  }
  void free(void* p) noexcept override {
    s_->used -= s_->live.at(p);
    s_->live.erase(p);
    std::free(p);
  }
  size_t total_memory() override { return s_->capacity; }
  size_t free_memory() override { return s_->capacity - s_->used; }
  void* record_event(backend::StreamHandle stream) override {
    s_->events.push_back(new FakeEvent{stream});
    return s_->events.back();
  }
  bool event_done(void* e) override { return static_cast<FakeEvent*>(e)->done; }
  void wait_event(void* e) override {
    static_cast<FakeEvent*>(e)->done = true;
    s_->waits++;
  }
  void release_event(void* e) noexcept override {
    s_->events.erase(std::find(s_->events.begin(), s_->events.end(), e));
    delete static_cast<FakeEvent*>(e);
  }
  std::string name() override { return "fake:0"; }

 private:
  DeviceState* s_;
};

class CachingAllocatorTest : public ::testing::Test {
 protected:
  void make(size_t capacity) {
    dev.capacity = capacity;
    alloc = std::make_unique<CachingAllocator>(std::make_unique<HostDevice>(&dev));
  }
  void SetUp() override { make(64 * MiB); }
  void TearDown() override {
    alloc.reset();
    EXPECT_EQ(dev.used, 0u) << "segments leaked";
  }
  static char* ptr(const Allocation& a) { return static_cast<char*>(a.buf.base) + a.buf.offset; }
  static void fill(const Allocation& a, char v) { std::memset(ptr(a), v, a.size); }
  static bool holds(const Allocation& a, char v) {
    return std::all_of(ptr(a), ptr(a) + a.size, [v](char c) { return c == v; });
  }
  std::string oom_text(size_t bytes, backend::StreamHandle s = nullptr) {
    try {
      Allocation a = alloc->allocate(bytes, s);
      alloc->free(a);
    } catch (const OutOfMemoryError& e) {
      return e.what();
    }
    return "no OutOfMemoryError";
  }

  DeviceState dev;
  std::unique_ptr<CachingAllocator> alloc;
  backend::StreamHandle A = reinterpret_cast<void*>(0x100), B = reinterpret_cast<void*>(0x200);
};

TEST_F(CachingAllocatorTest, RoundsTo512AndPicksThePool) {
  struct Case {
    size_t request, block, segment;
  } cases[] = {
      {1, 512, 2 * MiB},                      // small pool: 2 MiB segments
      {512, 512, 2 * MiB},
      {513, 1024, 2 * MiB},
      {1 * MiB, 1 * MiB, 2 * MiB},            // the largest small request
      {1 * MiB + 1, 2 * MiB, 2 * MiB},        // large: remainder < 1 MiB is not split off
      {3 * MiB, 4 * MiB, 4 * MiB},            // ... nor is exactly 1 MiB
      {10 * MiB + 1, 10 * MiB + 512, 12 * MiB},  // remainder > 1 MiB is split off
  };
  for (const Case& c : cases) {
    Allocation a = alloc->allocate(c.request, nullptr);
    Stats s = alloc->stats();
    EXPECT_EQ(s.allocated, static_cast<int64_t>(c.block)) << c.request;
    EXPECT_EQ(s.requested, static_cast<int64_t>(c.request)) << c.request;
    EXPECT_EQ(s.reserved, static_cast<int64_t>(c.segment)) << c.request;
    EXPECT_EQ(a.size, c.request);
    fill(a, 7);
    alloc->free(a);
    alloc->empty_cache();
    EXPECT_EQ(alloc->stats().reserved, 0);
  }
}

TEST_F(CachingAllocatorTest, ZeroBytesIsAValidEmptyAllocation) {
  Allocation a = alloc->allocate(0, nullptr);
  EXPECT_EQ(a.buf.base, nullptr);
  EXPECT_EQ(a.size, 0u);
  alloc->record_stream(a, B);
  alloc->free(a);
  Stats s = alloc->stats();
  EXPECT_EQ(s.alloc_count, 0);
  EXPECT_EQ(s.free_count, 0);
  EXPECT_EQ(s.reserved, 0);
}

TEST_F(CachingAllocatorTest, ReusesACachedBlock) {
  Allocation a = alloc->allocate(4 * MiB, nullptr);
  alloc->free(a);
  Allocation b = alloc->allocate(4 * MiB - 100, nullptr);  // rounds to the same block
  EXPECT_EQ(b.buf.base, a.buf.base);
  EXPECT_EQ(b.buf.offset, a.buf.offset);
  Stats s = alloc->stats();
  EXPECT_EQ(s.device_alloc_count, 1);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.alloc_count, 2);
  alloc->free(b);
}

TEST_F(CachingAllocatorTest, SplitsAndCoalesces) {
  Allocation a = alloc->allocate(1000, nullptr), b = alloc->allocate(2000, nullptr),
             c = alloc->allocate(3000, nullptr);
  EXPECT_EQ(b.buf.base, a.buf.base);  // one segment, carved in order
  EXPECT_EQ(c.buf.base, a.buf.base);
  EXPECT_EQ(a.buf.offset, 0u);
  EXPECT_EQ(b.buf.offset, 1024u);
  EXPECT_EQ(c.buf.offset, 3072u);
  fill(a, 1), fill(b, 2), fill(c, 3);
  EXPECT_TRUE(holds(a, 1) && holds(b, 2) && holds(c, 3));
  EXPECT_EQ(alloc->stats().largest_free_block, static_cast<int64_t>(2 * MiB - 6144));

  alloc->free(b);  // a hole between a and c
  Allocation d = alloc->allocate(1500, nullptr);  // best fit: the 2 KiB hole, not the tail
  EXPECT_EQ(d.buf.offset, 1024u);
  alloc->free(d);
  alloc->free(a);  // merges with the hole: [0, 3072) free
  Allocation e = alloc->allocate(3072, nullptr);
  EXPECT_EQ(e.buf.offset, 0u);
  alloc->free(e);
  alloc->free(c);  // merges everything back into the segment
  Stats s = alloc->stats();
  EXPECT_EQ(s.largest_free_block, static_cast<int64_t>(2 * MiB));
  EXPECT_EQ(s.segment_count, 1);
  EXPECT_EQ(s.device_alloc_count, 1);
  alloc->empty_cache();
  s = alloc->stats();
  EXPECT_EQ(s.reserved, 0);
  EXPECT_EQ(s.device_free_count, 1);
  EXPECT_EQ(s.largest_free_block, 0);
}

TEST_F(CachingAllocatorTest, SmallAndLargePoolsDoNotShare) {
  Allocation s1 = alloc->allocate(512, nullptr);
  alloc->free(s1);  // 2 MiB free in the small pool
  Allocation l1 = alloc->allocate(1536 * KiB, nullptr);
  EXPECT_NE(l1.buf.base, s1.buf.base);
  EXPECT_EQ(alloc->stats().device_alloc_count, 2);
  alloc->free(l1);  // 2 MiB free in the large pool
  Allocation s2 = alloc->allocate(512, nullptr);
  EXPECT_EQ(s2.buf.base, s1.buf.base);
  alloc->free(s2);
  Allocation l2 = alloc->allocate(1536 * KiB, nullptr);
  EXPECT_EQ(l2.buf.base, l1.buf.base);
  alloc->free(l2);
  EXPECT_EQ(alloc->stats().device_alloc_count, 2);
}

TEST_F(CachingAllocatorTest, StatsAfterASequence) {
  Allocation a = alloc->allocate(100, nullptr);          // 512 of a 2 MiB small segment
  Allocation b = alloc->allocate(5 * MiB, nullptr);      // 6 MiB segment, not split
  Allocation c = alloc->allocate(20 * MiB + 3, nullptr);  // 22 MiB segment, 2 MiB - 512 split off
  alloc->free(b);
  Allocation d = alloc->allocate(5 * MiB + 1, nullptr);  // b's block again
  Stats s = alloc->stats();
  EXPECT_EQ(s.allocated, static_cast<int64_t>(512 + 6 * MiB + 20 * MiB + 512));
  EXPECT_EQ(s.allocated_peak, s.allocated);
  EXPECT_EQ(s.requested, static_cast<int64_t>(100 + 20 * MiB + 3 + 5 * MiB + 1));
  EXPECT_EQ(s.reserved, static_cast<int64_t>(2 * MiB + 6 * MiB + 22 * MiB));
  EXPECT_EQ(s.reserved_peak, s.reserved);
  EXPECT_EQ(s.alloc_count, 4);
  EXPECT_EQ(s.free_count, 1);
  EXPECT_EQ(s.segment_count, 3);
  EXPECT_EQ(s.device_alloc_count, 3);
  EXPECT_EQ(s.device_free_count, 0);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.largest_free_block, static_cast<int64_t>(2 * MiB - 512));
  EXPECT_EQ(s.oom_count, 0);
  EXPECT_EQ(s.retries, 0);
  EXPECT_EQ(s.limit, 0);

  alloc->free(c);
  alloc->free(d);
  alloc->reset_peak_stats();
  s = alloc->stats();
  EXPECT_EQ(s.allocated, 512);
  EXPECT_EQ(s.allocated_peak, 512);
  EXPECT_EQ(s.reserved_peak, static_cast<int64_t>(30 * MiB));
  alloc->empty_cache();  // the small segment still holds a
  s = alloc->stats();
  EXPECT_EQ(s.reserved, static_cast<int64_t>(2 * MiB));
  EXPECT_EQ(s.reserved_peak, static_cast<int64_t>(30 * MiB));
  EXPECT_EQ(s.device_free_count, 2);
  alloc->reset_peak_stats();
  EXPECT_EQ(alloc->stats().reserved_peak, static_cast<int64_t>(2 * MiB));
  alloc->free(a);
  s = alloc->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.requested, 0);
  EXPECT_EQ(s.alloc_count, s.free_count);
}

TEST_F(CachingAllocatorTest, LimitThrowsThenRecoversAfterFreeing) {
  alloc->set_limit(8 * MiB);
  Allocation a = alloc->allocate(4 * MiB, nullptr);
  EXPECT_EQ(oom_text(16 * MiB),
            "fake:0 out of memory: tried to allocate 16.00 MiB. Device fake:0 has a total capacity of 64.00 MiB of "
            "which 60.00 MiB is free; the limit set with set_per_process_memory_fraction/set_memory_limit is 8.00 MiB. "
            "Of the allocated memory 4.00 MiB is allocated by locus, and 0 B is reserved by locus but unallocated "
            "(largest free cached block: 0 B). The request would exceed the limit: free tensors you no longer need, "
            "reduce the batch size, or raise the limit with set_memory_limit(bytes, device) or "
            "set_per_process_memory_fraction(fraction, device).");
  Stats s = alloc->stats();
  EXPECT_EQ(s.oom_count, 1);
  EXPECT_EQ(s.retries, 1);
  EXPECT_EQ(s.limit, static_cast<int64_t>(8 * MiB));
  EXPECT_EQ(s.allocated, static_cast<int64_t>(4 * MiB));

  alloc->free(a);  // cached: 4 MiB reserved; a 6 MiB segment needs it released first
  Allocation b = alloc->allocate(6 * MiB, nullptr);
  s = alloc->stats();
  EXPECT_EQ(s.retries, 2);
  EXPECT_EQ(s.reserved, static_cast<int64_t>(6 * MiB));
  EXPECT_EQ(s.device_free_count, 1);
  fill(b, 1);
  alloc->free(b);
  alloc->empty_cache();
  alloc->set_limit(0);
  Allocation big = alloc->allocate(16 * MiB, nullptr);
  alloc->free(big);
}

TEST_F(CachingAllocatorTest, FragmentationIsExplained) {
  alloc->set_limit(8 * MiB);
  Allocation whole = alloc->allocate(8 * MiB, nullptr);
  alloc->free(whole);
  Allocation b1 = alloc->allocate(2 * MiB, nullptr), b2 = alloc->allocate(2 * MiB, nullptr),
             b3 = alloc->allocate(2 * MiB, nullptr);
  alloc->free(b1);
  alloc->free(b3);  // free: [0, 2) and [4, 8) MiB; b2 pins the segment
  EXPECT_EQ(oom_text(5 * MiB),
            "fake:0 out of memory: tried to allocate 5.00 MiB. Device fake:0 has a total capacity of 64.00 MiB of "
            "which 56.00 MiB is free; the limit set with set_per_process_memory_fraction/set_memory_limit is 8.00 MiB. "
            "Of the allocated memory 2.00 MiB is allocated by locus, and 6.00 MiB is reserved by locus but "
            "unallocated (largest free cached block: 4.00 MiB). The unallocated reserved memory would hold the "
            "request, but fragmentation prevents reusing it: its free blocks are too small and lie in segments that "
            "live tensors still use; freeing those tensors returns it. The request would exceed the limit: free "
            "tensors you no longer need, reduce the batch size, or raise the limit with set_memory_limit(bytes, "
            "device) or set_per_process_memory_fraction(fraction, device).");
  alloc->free(b2);
  Allocation c = alloc->allocate(5 * MiB, nullptr);  // the segment is whole again
  EXPECT_EQ(c.buf.base, whole.buf.base);
  alloc->free(c);
}

TEST_F(CachingAllocatorTest, DeviceOomReleasesTheCacheAndRetries) {
  make(8 * MiB);
  Allocation a = alloc->allocate(6 * MiB, nullptr);
  alloc->free(a);
  Allocation b = alloc->allocate(7 * MiB, nullptr);  // 8 MiB segment: fits only once a's is released
  Stats s = alloc->stats();
  EXPECT_EQ(s.retries, 1);
  EXPECT_EQ(s.oom_count, 0);
  EXPECT_EQ(s.device_free_count, 1);
  EXPECT_EQ(s.reserved, static_cast<int64_t>(8 * MiB));
  fill(b, 3);
  EXPECT_EQ(oom_text(512),
            "fake:0 out of memory: tried to allocate 512 B. Device fake:0 has a total capacity of 8.00 MiB of which "
            "0 B is free. Of the allocated memory 8.00 MiB is allocated by locus, and 0 B is reserved by locus but "
            "unallocated (largest free cached block: 0 B). Free tensors you no longer need or reduce the batch size.");
  alloc->free(b);
  EXPECT_EQ(alloc->stats().oom_count, 1);
}

TEST_F(CachingAllocatorTest, BlocksStayWithTheirStream) {
  Allocation a = alloc->allocate(4 * MiB, A);
  alloc->free(a);
  Allocation b = alloc->allocate(4 * MiB, B);  // a's block is cached for stream A only
  EXPECT_NE(b.buf.base, a.buf.base);
  EXPECT_EQ(alloc->stats().device_alloc_count, 2);
  Allocation c = alloc->allocate(4 * MiB, A);
  EXPECT_EQ(c.buf.base, a.buf.base);
  fill(b, 1), fill(c, 2);
  EXPECT_TRUE(holds(b, 1));
  alloc->free(b);
  alloc->free(c);
}

TEST_F(CachingAllocatorTest, RecordStreamDefersReuseUntilTheEventCompletes) {
  Allocation a = alloc->allocate(4 * MiB, A);
  alloc->record_stream(a, B);
  alloc->record_stream(a, B);  // once per stream
  alloc->record_stream(a, A);  // the allocation stream: nothing to do
  alloc->free(a);
  ASSERT_EQ(dev.events.size(), 1u);
  EXPECT_EQ(dev.events[0]->stream, B);
  EXPECT_EQ(alloc->stats().allocated, 0);  // freed for the statistics, not yet for reuse

  Allocation b = alloc->allocate(4 * MiB, A);  // B may still be using a: a new segment
  EXPECT_NE(b.buf.base, a.buf.base);
  EXPECT_EQ(dev.events.size(), 1u);
  alloc->free(b);

  dev.events[0]->done = true;
  Allocation c = alloc->allocate(4 * MiB, A);  // polls the event: a's block is back
  EXPECT_TRUE(dev.events.empty());
  EXPECT_TRUE(c.buf.base == a.buf.base || c.buf.base == b.buf.base);
  alloc->free(c);
  Stats s = alloc->stats();
  EXPECT_EQ(s.device_alloc_count, 2);
  EXPECT_EQ(s.cache_hits, 1);

  // empty_cache waits for pending events, then releases their blocks too
  Allocation d = alloc->allocate(4 * MiB, A);
  alloc->record_stream(d, B);
  alloc->free(d);
  EXPECT_EQ(dev.events.size(), 1u);
  alloc->empty_cache();
  EXPECT_EQ(dev.waits, 1);
  EXPECT_TRUE(dev.events.empty());
  EXPECT_EQ(alloc->stats().reserved, 0);
}

TEST_F(CachingAllocatorTest, ThreadsAllocateAndFreeConcurrently) {
  make(512 * MiB);
  constexpr int kThreads = 4, kIters = 3000;
  const size_t sizes[] = {8, 500, 4096, 100 * KiB, 1 * MiB + 7, 3 * MiB};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      backend::StreamHandle stream = t % 2 ? A : nullptr;
      std::vector<std::pair<Allocation, char>> live;
      for (int i = 0; i < kIters; ++i) {
        if (live.size() < 8 && rng() % 3 != 0) {
          Allocation a = alloc->allocate(sizes[rng() % std::size(sizes)], stream);
          char v = static_cast<char>(rng());
          std::memset(ptr(a), v, std::min<size_t>(a.size, 8192));
          live.emplace_back(a, v);
        } else if (!live.empty()) {
          size_t k = rng() % live.size();
          auto [a, v] = live[k];
          Allocation probe = a;
          probe.size = std::min<size_t>(a.size, 8192);
          EXPECT_TRUE(holds(probe, v));
          alloc->free(a);
          live.erase(live.begin() + static_cast<long>(k));
        }
      }
      for (auto& [a, v] : live) alloc->free(a);
    });
  }
  for (auto& th : threads) th.join();
  Stats s = alloc->stats();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.requested, 0);
  EXPECT_EQ(s.alloc_count, s.free_count);
  EXPECT_EQ(s.device_alloc_count, s.segment_count);
  alloc->empty_cache();
  EXPECT_EQ(alloc->stats().reserved, 0);
  EXPECT_EQ(dev.used, 0u);
}

TEST(FormatSize, LikePyTorch) {
  using locus::memory::detail::format_size;
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(1023), "1023 B");
  EXPECT_EQ(format_size(1536), "1.50 KiB");
  EXPECT_EQ(format_size(64 * MiB), "64.00 MiB");
  EXPECT_EQ(format_size(size_t{3} << 30), "3.00 GiB");
}

}  // namespace

}  // namespace caching_allocator_test
