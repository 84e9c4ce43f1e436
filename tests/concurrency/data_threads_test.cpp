// DataLoader workers with pin_memory and a DevicePrefetcher torn down mid-epoch, over and over for
// a bounded time: every batch that arrives holds the right values, and the memory statistics end
// where they started (no pinned or device block left behind, none freed twice).
#include <iostream>

#include "concurrency/stress.h"
#include "locus/data.h"
#include "testing.h"

using namespace locus;
using namespace locus::data;

namespace data_threads_test {

namespace {

// Example i is ([i, 2i, 3i, ...], i): a batch's values can be checked against its targets.
struct Rows : datasets::Dataset<Rows> {
  Example<> get(size_t i) override {
    Tensor row = arange(1, 17, TensorOptions().dtype(kFloat)) * static_cast<double>(i);
    return {row, locus::tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return 512; }
};

class DataThreads : public testing::TestWithParam<Device> {};

TEST_P(DataThreads, PinnedWorkersAndPrefetcherTornDownMidEpoch) {
  const Device d = GetParam();
  const bool pin = !d.is_cpu();  // page-locked memory needs an accelerator
  const Tensor scale = arange(1, 17, TensorOptions().dtype(kFloat));  // before the snapshots: it stays
  const stress::Snapshot before = stress::settled(d);
  const stress::Snapshot cpu_before = stress::settled(Device(kCPU));
  int64_t rounds = stress::run_threads(2, [&](int t, int64_t r) {
    auto loader = make_data_loader(Rows().map(transforms::Stack<>()),
                                   DataLoaderOptions().batch_size(8).workers(4).pin_memory(pin).seed(r));
    DevicePrefetcher prefetcher(*loader, d, /*depth=*/3);
    const int64_t stop_after = 1 + (t + r) % 7;  // leave the epoch early, at a different batch each round
    int64_t n = 0;
    for (auto& b : prefetcher) {
      if (b.data.device() != d || b.target.device() != d) throw std::runtime_error("a batch is not on the device");
      Tensor expect = b.target.to(kFloat).unsqueeze(1) * scale.to(d);
      if (!b.data.equal(expect)) throw std::runtime_error("a prefetched batch holds the wrong values");
      if (++n == stop_after) break;
    }
  });
  std::cout << "[ stress   ] " << d << ": 2 threads x " << stress::seconds() << " s of loaders (4 workers"
            << (pin ? ", pinned" : "") << ") and prefetchers torn down mid-epoch, " << rounds << " rounds\n";
  EXPECT_GE(rounds, 2);
  stress::expect_same(before, stress::settled(d));
  if (!d.is_cpu()) stress::expect_same(cpu_before, stress::settled(Device(kCPU)));
}

TEST_P(DataThreads, LoaderDestroyedWhileWorkersAreBusy) {
  const Device d = GetParam();
  const bool pin = !d.is_cpu();
  const stress::Snapshot before = stress::settled(d);
  int64_t rounds = stress::run_threads(2, [&](int t, int64_t r) {
    auto loader = make_data_loader(Rows().map(transforms::Stack<>()),
                                   DataLoaderOptions().batch_size(16).workers(4).pin_memory(pin).seed(t));
    auto it = loader->begin();  // workers start filling batches
    if (r % 2 == 1 && it != loader->end()) {
      if (it->data.size(0) != 16) throw std::runtime_error("a full batch has 16 rows");
    }
    // the loader and its iterator go away with workers still running
  });
  EXPECT_GE(rounds, 2);
  stress::expect_same(before, stress::settled(d));
}

LOCUS_INSTANTIATE_DEVICES(DataThreads);

}  // namespace

}  // namespace data_threads_test
