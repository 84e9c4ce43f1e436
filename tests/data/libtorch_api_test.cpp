// libtorch's data API as a libtorch program observes it: the distributed samplers' layout,
// sampler save/load, StreamSampler, RandomSampler(size, dtype), FullDataLoaderOptions, timeout,
// enforce_ordering, WorkerException, per-worker dataset copies, data::Iterator, TensorDataset,
// TensorExample and Stack<TensorExample>, Collate, StatefulDataset with its loader.
// Expected index lists are libtorch 1.13's, printed by scripts/libtorch-diff/data_samplers.cpp,
// data_loader.cpp and data_stateful.cpp (run against libtorch: scripts/libtorch-diff/run).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "locus/archive.h"
#include "locus/data.h"
#include "testing.h"

using namespace locus;
using namespace locus::data;

namespace libtorch_api_test {

namespace {

template <typename S>
std::vector<std::vector<size_t>> drain(S& s, size_t bs) {
  std::vector<std::vector<size_t>> out;
  while (auto idx = s.next(bs)) out.push_back(*idx);
  return out;
}
using Batches = std::vector<std::vector<size_t>>;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("locus_data_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

template <typename S>
void save_to(const S& s, const std::string& path) {
  serialize::OutputArchive a;
  a << s;
  a.save_to(path);
}
template <typename S>
void load_from(S& s, const std::string& path) {
  serialize::InputArchive a;
  a.load_from(path);
  a >> s;
}

/// Example i: data [i, i + 0.5] (float), target i (int64); get() of fail_at throws.
struct Numbers : datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, size_t fail_at = SIZE_MAX) : n(n), fail_at(fail_at) {}
  Example<> get(size_t i) override {
    if (i == fail_at) throw std::runtime_error("example " + std::to_string(i) + " is unreadable");
    return {locus::tensor({static_cast<float>(i), static_cast<float>(i) + 0.5f}),
            locus::tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n, fail_at;
};

}  // namespace

TEST(LibtorchSamplers, DistributedSequentialSamplerBlocks) {
  const Batches dup[3] = {{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}, {{8, 9}, {0, 1}}};
  const Batches no_dup[3] = {{{0, 1}, {2}}, {{3, 4}, {5}}, {{6, 7}, {8}}};
  for (size_t rank = 0; rank < 3; ++rank) {
    samplers::DistributedSequentialSampler d(10, 3, rank);
    EXPECT_EQ(drain(d, 2), dup[rank]) << rank;
    samplers::DistributedSequentialSampler nd(10, 3, rank, /*allow_duplicates=*/false);
    EXPECT_EQ(drain(nd, 2), no_dup[rank]) << rank;
  }
  samplers::DistributedSequentialSampler one(5);
  EXPECT_EQ(drain(one, 2), (Batches{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(one.index(), 5u);
  EXPECT_EQ(one.epoch(), 0u);
  one.set_epoch(3);
  one.reset();
  EXPECT_EQ(drain(one, 5), (Batches{{0, 1, 2, 3, 4}}));  // the epoch changes nothing
  samplers::DistributedSequentialSampler r1(10, 3, 1);
  r1.next(1);
  EXPECT_EQ(r1.index(), 5u);  // positions count from rank * n, as libtorch's
  EXPECT_THROW_MSG(samplers::DistributedSequentialSampler(10, 3, 3), Error,
                   "[DistributedSequentialSampler] rank 3 is out of range for num_replicas 3: rank must be in [0, 2].");
  EXPECT_THROW_MSG(samplers::DistributedRandomSampler(10, 0, 0), Error,
                   "[DistributedRandomSampler] num_replicas must be at least 1, got 0. Pass the world size.");
}

TEST(LibtorchSamplers, DistributedRandomSamplerEqualsLibtorchs) {
  // std::shuffle with std::mt19937(epoch) over the padded list: libtorch's lists, bit for bit
  const Batches epoch0[3] = {{{0, 2, 1}, {5}}, {{9, 1, 4}, {7}}, {{6, 0, 3}, {8}}};
  const Batches epoch2[3] = {{{5, 0, 3}, {1}}, {{8, 1, 6}, {2}}, {{7, 9, 0}, {4}}};
  const Batches no_dup[3] = {{{2, 4, 6}}, {{0, 5, 1}}, {{8, 3, 7}}};
  for (size_t rank = 0; rank < 3; ++rank) {
    samplers::DistributedRandomSampler r(10, 3, rank);
    EXPECT_EQ(drain(r, 3), epoch0[rank]) << rank;
    r.set_epoch(2);
    EXPECT_EQ(r.epoch(), 2u);
    r.reset();
    EXPECT_EQ(drain(r, 3), epoch2[rank]) << rank;
    samplers::DistributedRandomSampler nd(10, 3, rank, /*allow_duplicates=*/false);
    EXPECT_EQ(drain(nd, 3), no_dup[rank]) << rank;
  }
  samplers::DistributedRandomSampler r(9, 2, 1);
  while (r.next(2)) {
  }
  EXPECT_EQ(r.index(), 10u);
}

TEST(LibtorchSamplers, SaveAndLoadRestoreThePosition) {
  const std::string path = temp_path("sampler.pt");
  samplers::SequentialSampler seq(5);
  seq.next(2);
  save_to(seq, path);
  samplers::SequentialSampler seq2(5);
  load_from(seq2, path);
  EXPECT_EQ(seq2.index(), 2u);
  EXPECT_EQ(drain(seq2, 2), (Batches{{2, 3}, {4}}));

  samplers::RandomSampler rnd(6, 5);
  rnd.next(2);
  save_to(rnd, path);
  samplers::RandomSampler rnd2(6, 99);
  load_from(rnd2, path);
  EXPECT_EQ(rnd2.index(), 2u);
  EXPECT_EQ(*rnd2.next(10), *rnd.next(10));  // the same permutation, from the same place

  samplers::DistributedRandomSampler d(10, 2, 1);
  d.set_epoch(4);
  d.reset();
  d.next(2);
  save_to(d, path);
  samplers::DistributedRandomSampler d2(10, 2, 1);
  load_from(d2, path);
  EXPECT_EQ(d2.epoch(), 4u);
  EXPECT_EQ(d2.index(), 7u);
  EXPECT_EQ(drain(d2, 10), (Batches{{9, 8, 6}}));  // libtorch's
  EXPECT_EQ(drain(d, 10), (Batches{{9, 8, 6}}));

  samplers::DistributedSequentialSampler ds(10, 2, 1);
  ds.next(3);
  save_to(ds, path);
  samplers::DistributedSequentialSampler ds2(10, 2, 1);
  load_from(ds2, path);
  EXPECT_EQ(drain(ds2, 5), (Batches{{8, 9}}));

  samplers::StreamSampler st(10);
  st.next(4);
  save_to(st, path);
  samplers::StreamSampler st2(10);
  load_from(st2, path);
  EXPECT_EQ(static_cast<size_t>(*st2.next(100)), 6u);

  // errors: a position outside the sampler, a sampler without save/load
  samplers::StreamSampler small(3);
  EXPECT_THROW_MSG(load_from(small, path), Error,
                   "[StreamSampler] load: \"examples_retrieved_so_far\" 4 is past the epoch size 3.");
  save_to(seq, path);  // "index" 2 ...
  serialize::InputArchive in;
  in.load_from(path);
  samplers::DistributedSequentialSampler other(10, 2, 1);  // ... outside [5, 10]
  serialize::OutputArchive out;
  out.write("sample_index_", locus::tensor(int64_t{2}));
  out.save_to(path);
  EXPECT_THROW_MSG(load_from(other, path), Error,
                   "[DistributedSequentialSampler] load: \"sample_index_\" 2 is outside this replica's block [5, 10].");
  struct Mine : samplers::Sampler<> {
    void reset(std::optional<size_t>) override {}
    std::optional<std::vector<size_t>> next(size_t) override { return std::nullopt; }
  } mine;
  serialize::OutputArchive a;
  EXPECT_THROW_MSG(a << mine, Error, "[Sampler] this sampler does not implement save(): override save(");
  std::filesystem::remove(path);
}

TEST(LibtorchSamplers, StreamSamplerAndRandomSamplerDtype) {
  samplers::StreamSampler s(10);
  std::vector<size_t> sizes;
  while (auto n = s.next(4)) sizes.push_back(n->size());
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 2}));
  s.reset(5);
  sizes.clear();
  while (auto n = s.next(3)) sizes.push_back(*n);
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 2}));

  samplers::RandomSampler r(10, locus::kInt64);
  std::vector<size_t> all;
  while (auto idx = r.next(4)) all.insert(all.end(), idx->begin(), idx->end());
  EXPECT_EQ(std::set<size_t>(all.begin(), all.end()).size(), 10u);
  EXPECT_EQ(r.index(), 10u);
  EXPECT_THROW_MSG(samplers::RandomSampler(3, locus::kFloat), Error,
                   "[RandomSampler] index_dtype must be an integer dtype (e.g. torch::kInt64).");
}

TEST(LibtorchDataLoader, OptionsAreLibtorchsFullOptions) {
  auto a = make_data_loader<samplers::SequentialSampler>(Numbers(4).map(transforms::Stack<>()), 4);
  EXPECT_EQ(a->options().batch_size, 4u);
  EXPECT_EQ(a->options().workers, 0u);
  EXPECT_EQ(a->options().max_jobs, 0u);  // 2 * workers
  EXPECT_TRUE(a->options().enforce_ordering);
  EXPECT_FALSE(a->options().drop_last);
  auto b = make_data_loader<samplers::SequentialSampler>(
      Numbers(4).map(transforms::Stack<>()),
      DataLoaderOptions(3).workers(4).timeout(std::chrono::milliseconds(5000)).enforce_ordering(false));
  EXPECT_EQ(b->options().max_jobs, 8u);
  EXPECT_EQ(b->options().timeout->count(), 5000);
  EXPECT_FALSE(b->options().enforce_ordering);
  EXPECT_THROW_MSG(make_data_loader(Numbers(4), DataLoaderOptions().timeout(std::chrono::milliseconds(0))), Error,
                   "[DataLoader] timeout must be positive: got 0 ms.");
}

TEST(LibtorchDataLoader, WorkerExceptionWrapsTheOriginal) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(10, 5).map(transforms::Stack<>()),
                                                              DataLoaderOptions(2).workers(2));
  std::vector<int64_t> firsts;
  try {
    for (auto& batch : *loader) firsts.push_back(batch.target[0].item<int64_t>());
    ADD_FAILURE() << "expected a WorkerException";
  } catch (const WorkerException& e) {
    EXPECT_STREQ(e.what(), "Caught exception in DataLoader worker thread. Original message: example 5 is unreadable");
    EXPECT_THROW_MSG(std::rethrow_exception(e.original_exception), std::runtime_error, "example 5 is unreadable");
  }
  EXPECT_EQ(firsts, (std::vector<int64_t>{0, 2}));
  // without workers the original itself
  auto inline_loader = make_data_loader<samplers::SequentialSampler>(Numbers(10, 5).map(transforms::Stack<>()), 2);
  EXPECT_THROW_MSG(for (auto& batch : *inline_loader)(void) batch, std::runtime_error, "example 5 is unreadable");
}

TEST(LibtorchDataLoader, TimeoutAndUnorderedBatches) {
  struct Slow : datasets::Dataset<Slow> {
    Example<> get(size_t i) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return {locus::zeros({1}), locus::tensor(static_cast<int64_t>(i))};
    }
    std::optional<size_t> size() const override { return 2; }
  };
  auto slow = make_data_loader<samplers::SequentialSampler>(
      Slow(), DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(20)));
  EXPECT_THROW_MSG(for (auto& b : *slow)(void) b, Error,
                   "[DataLoader] no batch arrived within the timeout of 20 ms (DataLoaderOptions::timeout)");

  auto loader = make_data_loader<samplers::SequentialSampler>(
      Numbers(31).map(transforms::Stack<>()), DataLoaderOptions(4).workers(3).enforce_ordering(false));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::multiset<int64_t> seen;
    size_t batches = 0;
    for (auto& batch : *loader) {
      ++batches;
      for (int64_t k = 0; k < batch.target.numel(); ++k) seen.insert(batch.target[k].item<int64_t>());
    }
    EXPECT_EQ(batches, 8u);
    ASSERT_EQ(seen.size(), 31u);
    int64_t k = 0;
    for (int64_t v : seen) EXPECT_EQ(v, k++);
  }
}

TEST(LibtorchDataLoader, EveryWorkerHasItsOwnDataset) {
  // get() may modify the dataset (as in libtorch: each worker thread owns a copy)
  struct Touchy : datasets::Dataset<Touchy> {
    Example<> get(size_t i) override {
      ++calls;  // unsynchronised on purpose: only this worker's copy sees it
      {
        std::lock_guard<std::mutex> lock(*mu);
        owners->insert(this);
      }
      return {locus::zeros({1}), locus::tensor(static_cast<int64_t>(i))};
    }
    std::optional<size_t> size() const override { return 40; }
    size_t calls = 0;
    std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
    std::shared_ptr<std::set<const void*>> owners = std::make_shared<std::set<const void*>>();
  };
  Touchy d;
  auto owners = d.owners;
  auto loader = make_data_loader<samplers::SequentialSampler>(std::move(d), DataLoaderOptions(3).workers(3));
  size_t n = 0;
  for (auto& batch : *loader) n += batch.size();
  EXPECT_EQ(n, 40u);
  EXPECT_GE(owners->size(), 1u);
  EXPECT_LE(owners->size(), 3u);
  EXPECT_EQ(owners->count(&loader->dataset()), 0u);
  EXPECT_EQ(loader->dataset().calls, 0u);
}

TEST(LibtorchDataLoader, IteratorAndEdgeCases) {
  auto loader = make_data_loader<samplers::SequentialSampler>(Numbers(5), 2);
  std::vector<size_t> sizes;
  for (auto it = loader->begin(); it != loader->end(); ++it) sizes.push_back(it->size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
  data::Iterator<std::vector<Example<>>> it = loader->begin();
  EXPECT_EQ((*it).size(), 2u);
  auto end = loader->end();
  EXPECT_TRUE(end == loader->end());
  EXPECT_THROW_MSG(*end, Error, "[data::Iterator] dereferenced past the end of the epoch.");
  EXPECT_THROW_MSG(++end, Error, "[data::Iterator] incremented past the end of the epoch.");

  auto joined = make_data_loader<samplers::SequentialSampler>(Numbers(9), DataLoaderOptions(2).workers(2));
  auto j = joined->begin();
  EXPECT_EQ(j->size(), 2u);
  joined->join();  // the epoch ends: its iterator reaches the end, a new epoch starts afresh
  EXPECT_TRUE(++j == joined->end());
  size_t examples = 0;
  for (auto& b : *joined) examples += b.size();
  EXPECT_EQ(examples, 9u);

  for (size_t workers : {0, 2}) {  // an empty dataset; a batch larger than the dataset
    auto empty = make_data_loader<samplers::SequentialSampler>(Numbers(0), DataLoaderOptions(4).workers(workers));
    size_t batches = 0;
    for (auto& b : *empty) batches += 1 + 0 * b.size();
    EXPECT_EQ(batches, 0u);
    auto big = make_data_loader<samplers::SequentialSampler>(Numbers(3).map(transforms::Stack<>()),
                                                             DataLoaderOptions(64).workers(workers));
    sizes.clear();
    for (auto& b : *big) sizes.push_back(static_cast<size_t>(b.target.size(0)));
    EXPECT_EQ(sizes, (std::vector<size_t>{3}));
    auto dropping = make_data_loader<samplers::SequentialSampler>(
        Numbers(3).map(transforms::Stack<>()), DataLoaderOptions(64).workers(workers).drop_last(true));
    EXPECT_TRUE(dropping->begin() == dropping->end());
  }
}

TEST(LibtorchDatasets, CollateAndCustomTypes) {
  auto col = Numbers(3).map(transforms::Collate<Example<>>([](std::vector<Example<>> v) {
    return Example<>(v.front().data, v.back().target);
  }));
  EXPECT_EQ(col.get_batch({0, 2}).target.item<int64_t>(), 2);
  struct Item {
    int64_t id;
    std::string name;
  };
  struct Items : datasets::Dataset<Items, Item> {
    Item get(size_t i) override { return {static_cast<int64_t>(i * 10), "item" + std::to_string(i)}; }
    std::optional<size_t> size() const override { return 5; }
  };
  auto loader = make_data_loader<samplers::SequentialSampler>(Items(), DataLoaderOptions(2).workers(2));
  std::vector<std::string> names;
  for (auto& batch : *loader)
    for (auto& item : batch) names.push_back(std::to_string(item.id) + ":" + item.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0:item0", "10:item1", "20:item2", "30:item3", "40:item4"}));
}

TEST(LibtorchDatasets, StatefulDatasetLoader) {
  struct Counter : datasets::StatefulDataset<Counter, Tensor, size_t> {
    explicit Counter(int64_t total) : total(total) {}
    std::optional<Tensor> get_batch(size_t batch_size) override {
      std::lock_guard<std::mutex> lock(*mu);
      if (next >= total) return std::nullopt;
      int64_t end = std::min<int64_t>(total, next + static_cast<int64_t>(batch_size));
      Tensor t = locus::arange(next, end);
      next = end;
      return t;
    }
    std::optional<size_t> size() const override { return static_cast<size_t>(total); }
    void reset() override {
      next = 0;
      ++*resets;
    }
    int64_t total, next = 0;
    std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
    std::shared_ptr<int> resets = std::make_shared<int>(0);
  };
  Counter c(10);
  auto resets = c.resets;
  auto loader = make_data_loader(std::move(c), DataLoaderOptions().batch_size(4));
  for (int epoch = 0; epoch < 2; ++epoch) {  // libtorch: [4] first 0 [4] first 4 [2] first 8, each epoch
    std::vector<int64_t> sizes, firsts;
    for (auto& batch : *loader) {
      sizes.push_back(batch.numel());
      firsts.push_back(batch[0].item<int64_t>());
    }
    EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
    EXPECT_EQ(firsts, (std::vector<int64_t>{0, 4, 8}));
  }
  EXPECT_EQ(*resets, 2);
  // a map over a stateful dataset is stateful; a shared dataset is one instance for every copy
  // (libtorch: mapped stateful: 30 120 60; shared stateful: 2 2 1 resets 1 next 5, then resets 2)
  auto mapped = Counter(7).map(transforms::BatchLambda<Tensor, Tensor>([](Tensor t) { return t * 10; }));
  static_assert(decltype(mapped)::is_stateful);
  auto mapped_loader = make_data_loader(std::move(mapped), DataLoaderOptions(3));
  std::vector<int64_t> sums;
  for (auto& batch : *mapped_loader) sums.push_back(batch.sum().item<int64_t>());
  EXPECT_EQ(sums, (std::vector<int64_t>{30, 120, 60}));
  auto shared = datasets::make_shared_dataset<Counter>(5);
  auto copy = shared;
  auto shared_loader = make_data_loader(shared, DataLoaderOptions(2));
  for (int epoch = 1; epoch <= 2; ++epoch) {
    std::vector<int64_t> numels;
    for (auto& batch : *shared_loader) numels.push_back(batch.numel());
    EXPECT_EQ(numels, (std::vector<int64_t>{2, 2, 1}));
    EXPECT_EQ(*copy->resets, epoch);
    EXPECT_EQ((*copy).next, 5);
  }
  EXPECT_THROW_MSG(datasets::SharedBatchDataset<Counter>(std::shared_ptr<Counter>()), Error,
                   "[SharedBatchDataset] the shared dataset is null.");
  auto workers = make_data_loader(Counter(23), DataLoaderOptions().batch_size(5).workers(3));
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::multiset<int64_t> seen;
    for (auto& batch : *workers)
      for (int64_t k = 0; k < batch.numel(); ++k) seen.insert(batch[k].item<int64_t>());
    ASSERT_EQ(seen.size(), 23u);
    int64_t k = 0;
    for (int64_t v : seen) EXPECT_EQ(v, k++);
  }
  struct Stream : datasets::BatchDataset<Stream, Tensor, samplers::BatchSize> {
    Tensor get_batch(samplers::BatchSize request) override {
      return locus::full({static_cast<int64_t>(request.size())}, 7);
    }
    std::optional<size_t> size() const override { return 10; }
  };
  auto stream = make_data_loader<samplers::StreamSampler>(Stream(), DataLoaderOptions(3).workers(1));
  std::vector<int64_t> sizes;
  for (auto& batch : *stream) sizes.push_back(batch.numel());
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
}

class LibtorchTensorDataset : public ::testing::TestWithParam<Device> {};

TEST_P(LibtorchTensorDataset, ExamplesAlongDimensionZero) {
  Device dev = GetParam();
  Tensor data = locus::arange(12, TensorOptions().dtype(kFloat).device(dev)).reshape({6, 2});
  datasets::TensorDataset ds(data);
  EXPECT_EQ(*ds.size(), 6u);
  TensorExample e = ds.get(2);
  EXPECT_EQ(e.data.device(), dev);
  EXPECT_EQ(values(e.data), (std::vector<double>{4, 5}));
  Tensor& as_tensor = e;  // an Example<Data, NoTarget> converts to its data
  EXPECT_EQ(as_tensor.size(0), 2);
  auto loader = make_data_loader<samplers::SequentialSampler>(
      datasets::TensorDataset(data).map(transforms::Stack<TensorExample>()), DataLoaderOptions(4).workers(2));
  std::vector<std::vector<double>> got;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.device(), dev);
    got.push_back(values(batch.data));
  }
  EXPECT_EQ(got, (std::vector<std::vector<double>>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11}}));
  datasets::TensorDataset stacked(std::vector<Tensor>{data[0], data[5]});
  EXPECT_EQ(values(stacked.get(1).data), (std::vector<double>{10, 11}));
  EXPECT_THROW_MSG(ds.get(6), Error, "[TensorDataset] index 6 is out of range for a dataset of 6 examples.");
  EXPECT_THROW_MSG(datasets::TensorDataset(locus::tensor(1.0, TensorOptions().device(dev))), Error,
                   "[TensorDataset] the tensor must have at least one dimension");
}

LOCUS_INSTANTIATE_DEVICES(LibtorchTensorDataset);

}  // namespace libtorch_api_test
