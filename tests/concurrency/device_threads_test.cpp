// One device used from 8 threads at once, each alternating between its own stream and the default
// stream: allocations of small- and large-pool sizes, frees, host<->device copies (pinned and
// non_blocking where the device has pinned memory), copies of one shared tensor, ops whose results
// are checked, while empty_cache and the memory statistics run concurrently. Afterwards the
// statistics are back exactly where they were. Bounded by LOCUS_STRESS_SECONDS, no timing checks.
#include <iostream>
#include <optional>
#include <stdexcept>

#include "concurrency/stress.h"
#include "testing.h"

using namespace locus;

namespace device_threads_test {

namespace {

class DeviceThreads : public testing::TestWithParam<Device> {};

TEST_P(DeviceThreads, EightThreadsOnOwnAndDefaultStreams) {
  const Device d = GetParam();
  const int kThreads = 8;
  const stress::Snapshot before = stress::settled(d);
  const auto opt = TensorOptions().device(d).dtype(kFloat);
  int64_t rounds = 0;
  {
    std::vector<Stream> streams;
    for (int t = 0; t < kThreads; ++t) streams.push_back(Stream::create(d));
    const int64_t kShared = 4096;
    Tensor shared = arange(kShared, opt);  // read by every thread, on every stream
    synchronize(d);
    rounds = stress::run_threads(kThreads, [&](int t, int64_t r) {
      std::optional<StreamGuard> guard;
      if (r % 2 == 1) guard.emplace(streams[t]);  // odd rounds: the thread's own stream
      const Stream s = Stream::current(d);
      stress::require(d.is_cpu() || (r % 2 == 0 ? s.is_default() : s == streams[t]), "StreamGuard sets the current stream");

      const int64_t k = 64 + 96 * ((t + r) % 8);  // several small-pool sizes
      Tensor x = arange(k, opt);
      Tensor y = x * 2 + 1;  // 1, 3, 5, ...: sums to k^2
      Tensor host = y.cpu();
      Tensor back = host.to(d);
      stress::require(back.sum().item<double>() == static_cast<double>(k * k), "sum of the first k odd numbers");

      Tensor big = empty({(int64_t{1} << 18) + 512 * t}, opt);  // > 1 MiB: the large pool
      big.fill_(static_cast<double>(t));
      stress::require(big.sum().item<double>() == static_cast<double>(t) * static_cast<double>(big.numel()),
              "a filled large block sums to fill * numel");

      Tensor copy = shared.to(d, /*non_blocking=*/false, /*copy=*/true);
      Tensor m = ones({16, 16}, opt).matmul(full({16, 16}, 2.0, opt));
      stress::require(copy.equal(shared), "a copy of the shared tensor equals it");
      stress::require(m.eq(32).all().item<bool>(), "ones(16,16) @ full(2) is 32 everywhere");

      if (!d.is_cpu()) {  // pinned host memory and a non_blocking upload on the current stream
        Tensor pinned = host.pin_memory();
        Tensor up = pinned.to(d, /*non_blocking=*/true);
        stress::require(up.equal(back), "a non_blocking copy from pinned memory arrives whole");
      }
      if (t == 0 && r % 3 == 0) empty_cache(d);
      if (t == 1) {
        auto st = memory_stats(d);
        stress::require(st["allocated_bytes.current"] <= st["reserved_bytes.current"] || d.is_cpu(),
                "allocated <= reserved");
        stress::require(memory_allocated(d) >= 0 && max_memory_allocated(d) >= 0, "counters are non-negative");
        stress::require(!memory_summary(d).empty(), "memory_summary");
      }
      s.synchronize();
    });
  }
  std::cout << "[ stress   ] " << d << ": " << kThreads << " threads x " << stress::seconds() << " s, " << rounds
            << " rounds\n";
  EXPECT_GE(rounds, kThreads);
  stress::expect_same(before, stress::settled(d));
}

LOCUS_INSTANTIATE_DEVICES(DeviceThreads);

}  // namespace

}  // namespace device_threads_test
