// The loader and its samplers: batch shapes and counts, order, seeded shuffling, drop_last,
// workers, pinned batches, errors from workers.
#include "locus/data/dataloader.h"

#include <set>

#include "locus/data.h"
#include "testing.h"

using namespace locus::data;

namespace dataloader_test {

namespace {

/// Example i is data [i, i] (float) and target i (int64).
struct Numbers : datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, size_t fail_at = SIZE_MAX) : n(n), fail_at(fail_at) {}
  Example<> get(size_t i) override {
    if (i == fail_at) throw locus::Error("[Numbers] example " + std::to_string(i) + " is unreadable.");
    return {locus::full({2}, static_cast<double>(i)), locus::tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n, fail_at;
};

template <typename Loader>
std::vector<int64_t> targets_of(Loader& loader, std::vector<int64_t>* batch_sizes = nullptr) {
  std::vector<int64_t> out;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.dim(), 2);
    EXPECT_EQ(batch.data.size(1), 2);
    EXPECT_EQ(batch.data.size(0), batch.target.size(0));
    if (batch_sizes) batch_sizes->push_back(batch.target.size(0));
    for (double v : values(batch.target)) out.push_back(static_cast<int64_t>(v));
    // data and target stay paired
    std::vector<double> d = values(batch.data.select(1, 0));
    EXPECT_EQ(d, values(batch.target));
  }
  return out;
}

}  // namespace

TEST(Samplers, SequentialAndRandom) {
  samplers::SequentialSampler s(5);
  EXPECT_EQ(*s.next(2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(*s.next(2), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(*s.next(2), (std::vector<size_t>{4}));
  EXPECT_FALSE(s.next(2).has_value());
  s.reset(3);
  EXPECT_EQ(*s.next(10), (std::vector<size_t>{0, 1, 2}));

  samplers::RandomSampler a(100, 7), b(100, 7), c(100, 8);
  std::vector<size_t> pa = *a.next(100), pb = *b.next(100), pc = *c.next(100);
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
  EXPECT_EQ(std::set<size_t>(pa.begin(), pa.end()).size(), 100u);
  a.reset();
  EXPECT_NE(*a.next(100), pa);  // a new permutation each epoch
}

TEST(DataLoader, SequentialBatchesShapesAndCounts) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(10).map(transforms::Stack<>()),
                                                              DataLoaderOptions().batch_size(4));
  std::vector<int64_t> sizes;
  std::vector<int64_t> t = targets_of(*loader, &sizes);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(t, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(loader->size(), 3u);
  // drop_last skips the short batch
  auto dropping = make_data_loader<samplers::SequentialSampler>(
      Numbers(10).map(transforms::Stack<>()), DataLoaderOptions().batch_size(4).drop_last(true));
  sizes.clear();
  targets_of(*dropping, &sizes);
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4}));
  // without Stack a batch is a std::vector of examples
  auto raw = make_data_loader<samplers::SequentialSampler>(Numbers(3), 2);
  std::vector<size_t> counts;
  for (auto& batch : *raw) counts.push_back(batch.size());
  EXPECT_EQ(counts, (std::vector<size_t>{2, 1}));
}

TEST(DataLoader, ShufflingIsDeterminedByTheSeed) {
  auto make = [](uint64_t seed, size_t workers) {
    return make_data_loader(Numbers(50).map(transforms::Stack<>()),
                            DataLoaderOptions().batch_size(8).seed(seed).workers(workers));
  };
  auto a = make(1, 0), b = make(1, 2), c = make(2, 2);
  std::vector<int64_t> a1 = targets_of(*a), b1 = targets_of(*b), c1 = targets_of(*c);
  EXPECT_EQ(a1, b1);  // workers change nothing about order
  EXPECT_NE(a1, c1);
  std::vector<int64_t> sorted = a1;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_NE(sorted, a1);
  // the second epoch differs from the first, and equally so for both loaders
  std::vector<int64_t> a2 = targets_of(*a), b2 = targets_of(*b);
  EXPECT_NE(a1, a2);
  EXPECT_EQ(a2, b2);
  // without a seed, manual_seed decides
  locus::manual_seed(123);
  auto d = make_data_loader(Numbers(50).map(transforms::Stack<>()), DataLoaderOptions().batch_size(8));
  locus::manual_seed(123);
  auto e = make_data_loader(Numbers(50).map(transforms::Stack<>()), DataLoaderOptions().batch_size(8));
  EXPECT_EQ(targets_of(*d), targets_of(*e));
}

TEST(DataLoader, WorkersDeliverEveryBatchInOrder) {
  for (size_t workers : {1, 2, 3}) {
    auto loader = make_data_loader<samplers::SequentialSampler>(
        Numbers(103).map(transforms::Stack<>()), DataLoaderOptions().batch_size(5).workers(workers).max_jobs(3));
    std::vector<int64_t> t = targets_of(*loader);
    ASSERT_EQ(t.size(), 103u);
    for (int64_t i = 0; i < 103; ++i) EXPECT_EQ(t[i], i);
    // an epoch abandoned halfway, then a full one
    int n = 0;
    for (auto& batch : *loader) {
      (void)batch;
      if (++n == 3) break;
    }
    EXPECT_EQ(targets_of(*loader).size(), 103u);
  }
}

TEST(DataLoader, ErrorsInWorkersReachTheConsumer) {
  for (size_t workers : {0, 2}) {
    auto loader = make_data_loader<samplers::SequentialSampler>(
        Numbers(20, 13).map(transforms::Stack<>()), DataLoaderOptions().batch_size(4).workers(workers));
    int seen = 0;
    EXPECT_THROW_MSG(
        for (auto& batch : *loader) {
          (void)batch;
          ++seen;
        },
        locus::Error, "[Numbers] example 13 is unreadable.");
    EXPECT_EQ(seen, 3);
  }
  EXPECT_THROW_MSG(make_data_loader(Numbers(4), DataLoaderOptions().batch_size(0)), locus::Error,
                   "[DataLoader] batch_size must be at least 1.");
  EXPECT_THROW_MSG(make_data_loader(Numbers(4), DataLoaderOptions().max_jobs(0)), locus::Error,
                   "[DataLoader] max_jobs must be at least 1.");
  struct Words : datasets::BatchDataset<Words, std::vector<std::string>> {
    std::vector<std::string> get_batch(std::vector<size_t> idx) override { return std::vector<std::string>(idx.size()); }
    std::optional<size_t> size() const override { return 2; }
  };
  EXPECT_THROW_MSG(make_data_loader(Words(), DataLoaderOptions().pin_memory(true)), locus::Error,
                   "[DataLoader] pin_memory(true) needs batches of tensors or examples of tensors");
}

TEST(DataLoader, PinnedBatches) {
  bool accelerator = false;
  for (const locus::Device& d : locus::all_devices()) accelerator |= !d.is_cpu();
  auto loader = make_data_loader(Numbers(10).map(transforms::Stack<>()),
                                 DataLoaderOptions().batch_size(4).workers(2).pin_memory(true));
  if (!accelerator) {
    // pinning happens in a worker: the error arrives as a WorkerException holding the original
    try {
      targets_of(*loader);
      ADD_FAILURE() << "expected a WorkerException";
    } catch (const WorkerException& e) {
      EXPECT_THROW(std::rethrow_exception(e.original_exception), locus::NotAvailableError);
    }
    GTEST_SKIP() << "no accelerator: page-locked memory is not available";
  }
  int n = 0;
  for (auto& batch : *loader) {
    EXPECT_TRUE(batch.data.is_pinned());
    EXPECT_TRUE(batch.target.is_pinned());
    ++n;
  }
  EXPECT_EQ(n, 3);
}

}  // namespace dataloader_test
