// DevicePrefetcher: the batches it yields on every device equal the loader's own, in order,
// with pinned and pageable sources, across epochs and when an epoch is abandoned.
#include "locus/data/prefetcher.h"

#include "locus/data.h"
#include "testing.h"

using namespace locus::data;

namespace prefetcher_test {

namespace {

struct Squares : datasets::Dataset<Squares> {
  Example<> get(size_t i) override {
    double v = static_cast<double>(i);
    return {locus::tensor({v, v * v, -v}, locus::kFloat), locus::tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return 37; }
};

}  // namespace

// outside the anonymous namespace: the TEST_P classes derive from it (-Wsubobject-linkage)
class PrefetcherTest : public ::testing::TestWithParam<locus::Device> {};

TEST_P(PrefetcherTest, YieldsTheLoadersBatchesOnTheDevice) {
  locus::Device dev = GetParam();
  for (bool pin : {false, true}) {
    if (pin && dev.is_cpu()) continue;
    auto loader = make_data_loader<samplers::SequentialSampler>(
        Squares().map(transforms::Stack<>()), DataLoaderOptions().batch_size(4).workers(2).pin_memory(pin));
    std::vector<std::vector<double>> plain_data, plain_targets;
    for (auto& b : *loader) {
      plain_data.push_back(values(b.data));
      plain_targets.push_back(values(b.target));
    }
    ASSERT_EQ(plain_data.size(), 10u);
    DevicePrefetcher prefetcher(*loader, dev, 3);
    for (int epoch = 0; epoch < 2; ++epoch) {
      size_t i = 0;
      for (auto& b : prefetcher) {
        ASSERT_LT(i, plain_data.size());
        EXPECT_EQ(b.data.device(), dev);
        EXPECT_EQ(b.target.device(), dev);
        // computing on the batch on the compute stream sees the copied values
        EXPECT_EQ(values(b.data * 2), [&] {
          std::vector<double> v = plain_data[i];
          for (double& x : v) x *= 2;
          return v;
        }());
        EXPECT_EQ(values(b.target), plain_targets[i]);
        ++i;
      }
      EXPECT_EQ(i, plain_data.size()) << "pin " << pin << " epoch " << epoch;
    }
    // an abandoned epoch leaves the next one intact
    int n = 0;
    for (auto& b : prefetcher) {
      (void)b;
      if (++n == 2) break;
    }
    size_t count = 0;
    for (auto& b : prefetcher) {
      EXPECT_EQ(values(b.target), plain_targets[count]);
      ++count;
    }
    EXPECT_EQ(count, plain_data.size());
  }
}

TEST_P(PrefetcherTest, EmptyLoaderYieldsNothing) {
  struct Empty : datasets::Dataset<Empty> {
    Example<> get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return 0; }
  };
  auto loader = make_data_loader(Empty().map(transforms::Stack<>()), 4);
  DevicePrefetcher prefetcher(*loader, GetParam());
  EXPECT_TRUE(prefetcher.begin() == prefetcher.end());
}

LOCUS_INSTANTIATE_DEVICES(PrefetcherTest);

}  // namespace prefetcher_test
