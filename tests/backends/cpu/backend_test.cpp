// CPU backend: device properties, raw memory, byte copies, streams/events, and the thread pool.
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "backends/cpu/parallel_for.h"
#include "cpu_testing.h"
#include "locus/locus.h"

namespace cpu_test {
namespace {
namespace backend_test {

TEST(CpuBackend, OneHostDevice) {
  EXPECT_EQ(be().type(), kCPU);
  EXPECT_EQ(be().device_count(), 1);
  EXPECT_EQ(be().unavailable_reason(), "");
  backend::DeviceProps p = be().props(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.total_memory, size_t{1} << 20);
  EXPECT_EQ(p.compute_units, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_TRUE(p.fp16);
  EXPECT_TRUE(p.fp64);
  EXPECT_FALSE(p.is_gpu);
  EXPECT_TRUE(p.host_addressable);
  EXPECT_GT(be().free_memory(0), 0u);
  EXPECT_LE(be().free_memory(0), p.total_memory);
  EXPECT_THROW(be().props(1), BackendError);
}

TEST(CpuBackend, RawMemoryIs64ByteAligned) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 22}) {
    void* p = be().raw_alloc(0, n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    if (n) std::memset(p, 0xab, n);
    be().raw_free(0, p);
  }
  EXPECT_EQ(be().raw_alloc(0, ~size_t{0} - 8), nullptr);  // cannot be satisfied: nullptr, not a throw
  void* ctx = reinterpret_cast<void*>(1);
  EXPECT_EQ(be().host_alloc(0, 128, &ctx), nullptr);  // no pinned memory on cpu
}

TEST(CpuBackend, ByteCopies) {
  std::vector<char> src(10 << 20), dst(10 << 20);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 31);
  void* dev = be().raw_alloc(0, src.size() + 16);
  be().copy_from_host(0, {dev, 16}, src.data(), src.size(), nullptr, false);
  be().copy_to_host(0, dst.data(), {dev, 16}, src.size(), nullptr, false);
  EXPECT_EQ(src, dst);
  void* dev2 = be().raw_alloc(0, 64);
  be().copy_within(0, {dev2, 0}, {dev, 16 + 5}, 10, nullptr);
  EXPECT_EQ(std::memcmp(dev2, src.data() + 5, 10), 0);
  EXPECT_TRUE(be().copy_peer(0, {dev2, 32}, 0, {dev, 16}, 8, nullptr));
  EXPECT_EQ(std::memcmp(static_cast<char*>(dev2) + 32, src.data(), 8), 0);
  be().raw_free(0, dev);
  be().raw_free(0, dev2);
}

TEST(CpuBackend, StreamsAndEvents) {
  backend::StreamHandle s = be().stream_create(0);
  EXPECT_NE(s, nullptr);
  backend::EventHandle a = be().event_create(0, true), b = be().event_create(0, true);
  EXPECT_THROW(be().event_elapsed_ms(0, a, b), BackendError);  // not recorded yet
  be().event_record(0, a, s);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  be().event_record(0, b, s);
  EXPECT_TRUE(be().event_query(0, b));
  be().event_synchronize(0, b);
  be().stream_wait_event(0, s, a);
  be().stream_synchronize(0, s);
  float ms = be().event_elapsed_ms(0, a, b);
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 2000.0f);
  be().event_destroy(0, a);
  be().event_destroy(0, b);
  be().stream_destroy(0, s);
}

TEST(CpuParallel, CoversTheRangeOnceInDisjointChunks) {
  const int64_t n = 1000003;
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  std::atomic<int> calls{0};
  locus::cpu::parallel_for(0, n, 1000, [&](int64_t b, int64_t e) {
    EXPECT_TRUE(locus::cpu::in_parallel_region() || locus::get_num_threads() == 1 || e - b == n);
    calls++;
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << i;
  EXPECT_LE(calls.load(), locus::get_num_threads());
  EXPECT_FALSE(locus::cpu::in_parallel_region());
}

TEST(CpuParallel, SmallRangesAndNestingRunInline) {
  std::thread::id me = std::this_thread::get_id();
  int calls = 0;
  locus::cpu::parallel_for(0, 100, 1000, [&](int64_t b, int64_t e) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  locus::cpu::parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });  // empty: not called
  EXPECT_EQ(calls, 1);
  std::atomic<int64_t> total{0};
  locus::cpu::parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      std::thread::id outer = std::this_thread::get_id();
      locus::cpu::parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) {
        EXPECT_EQ(std::this_thread::get_id(), outer);  // nested: inline
        total += ie - ib;
      });
    }
  });
  EXPECT_EQ(total.load(), 4000);
}

TEST(CpuParallel, ExceptionsReachTheCaller) {
  EXPECT_THROW(locus::cpu::parallel_for(0, 1 << 20, 1, [](int64_t b, int64_t) {
                 if (b > 0) throw std::runtime_error("boom");
                 throw std::runtime_error("boom");
               }),
               std::runtime_error);
  // the pool still works afterwards
  std::atomic<int64_t> s{0};
  locus::cpu::parallel_for(0, 1 << 20, 1024, [&](int64_t b, int64_t e) { s += e - b; });
  EXPECT_EQ(s.load(), 1 << 20);
}

TEST(CpuParallel, SetNumThreadsAndConcurrentCallers) {
  int n0 = locus::get_num_threads();
  EXPECT_GE(n0, 1);
  locus::set_num_threads(3);  // more than the cores: still correct
  EXPECT_EQ(locus::get_num_threads(), 3);
  std::atomic<int64_t> s{0};
  locus::cpu::parallel_for(0, 999999, 10, [&](int64_t b, int64_t e) { s += e - b; });
  EXPECT_EQ(s.load(), 999999);
  locus::set_num_threads(1);
  std::thread::id me = std::this_thread::get_id();
  locus::cpu::parallel_for(0, 1 << 20, 1, [&](int64_t, int64_t) { EXPECT_EQ(std::this_thread::get_id(), me); });
  EXPECT_THROW(locus::set_num_threads(0), Error);
  locus::set_num_threads(n0);
  // several user threads at once: each call completes with the right total
  std::vector<std::thread> ts;
  std::atomic<int64_t> grand{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int r = 0; r < 200; ++r) {
        std::atomic<int64_t> local{0};
        locus::cpu::parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) { local += e - b; });
        EXPECT_EQ(local.load(), 100000);
        grand += local.load();
      }
    });
  for (std::thread& t : ts) t.join();
  EXPECT_EQ(grand.load(), int64_t{4} * 200 * 100000);
}

TEST(CpuParallel, ParkedWorkersWakeForTheNextJob) {
  // park_workers() sends spinning workers to sleep (before the BLAS's own threads run); the next
  // job must still reach them, and parking with no pool or twice in a row is harmless.
  locus::cpu::detail::park_workers();
  for (int round = 0; round < 50; ++round) {
    std::atomic<int64_t> s{0};
    std::set<std::thread::id> ids;
    std::mutex mu;
    locus::cpu::parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
      s += e - b;
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
    ASSERT_EQ(s.load(), 64);
    ASSERT_LE(ids.size(), static_cast<size_t>(locus::get_num_threads()));
    locus::cpu::detail::park_workers();
    if (round % 2 == 0) locus::cpu::detail::park_workers();
  }
}


// set_flush_denormal: the calling thread and every pool worker flush denormal results to zero while
// it is on, and none does once it is off again (x86; elsewhere it returns false and changes nothing).
TEST(CpuParallel, FlushDenormalReachesThePoolWorkers) {
  struct Restore {
    ~Restore() { locus::set_flush_denormal(false); }
  } restore;
  // 1e-30f * 1e-10f = 1e-40: a denormal float, or 0 when flushed; volatile so it runs at run time
  auto product = [] {
    volatile float a = 1e-30f, b = 1e-10f;
    return a * b;
  };
  auto chunks_flushed = [&](bool expect) {
    std::atomic<int> wrong{0}, others{0};
    const std::thread::id me = std::this_thread::get_id();
    locus::cpu::parallel_for(0, 8, 1, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != me) {
        others++;
      } else if (locus::get_num_threads() > 1) {  // the caller waits (up to 10 s) for a worker to take a chunk
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (others.load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      }
      for (int64_t i = b; i < e; ++i)
        if ((product() == 0.0f) != expect) wrong++;
    });
    EXPECT_EQ(wrong.load(), 0) << (expect ? "a chunk did not flush" : "a chunk still flushed");
    if (locus::get_num_threads() > 1) EXPECT_GT(others.load(), 0) << "no chunk ran on a pool worker";
  };
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_GT(product(), 0.0f);
  chunks_flushed(false);
  ASSERT_TRUE(locus::set_flush_denormal(true));
  EXPECT_EQ(product(), 0.0f);
  chunks_flushed(true);
  // the same through a tensor op split over the pool: every element flushed
  Tensor x = locus::full({1 << 20}, 1e-30f);
  EXPECT_EQ((x * 1e-10f).abs().max().item<float>(), 0.0f);
  ASSERT_TRUE(locus::set_flush_denormal(false));
  EXPECT_GT(product(), 0.0f);
  chunks_flushed(false);
  EXPECT_GT((x * 1e-10f).abs().min().item<float>(), 0.0f);
#else
  EXPECT_FALSE(locus::set_flush_denormal(true));
  EXPECT_GT(product(), 0.0f);
  chunks_flushed(false);
#endif
}

}  // namespace backend_test
}  // namespace
}  // namespace cpu_test
