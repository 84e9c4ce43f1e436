#pragma once
// The data loader, as libtorch's data::make_data_loader:
//   auto loader = data::make_data_loader(std::move(dataset),
//                                        data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { ... batch.data ... batch.target ... }
// The default sampler is RandomSampler; make_data_loader<samplers::SequentialSampler>(...) keeps
// the order. begin() starts an epoch: the sampler is reset and the workers (threads; 0 workers
// loads on the calling thread) build batches ahead of the consumer, at most max_jobs at a time,
// handed out in sampler order. An error in a worker is rethrown where the batch is consumed.
// pin_memory(true) places every batch in page-locked host memory, ready for non_blocking copies.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/data/example.h"
#include "locus/data/samplers.h"
#include "locus/error.h"

namespace locus::data {

#define LOCUS_DATA_ARG(T, name, init)                          \
 public:                                                      \
  auto name(const T& v)->decltype(*this) {                    \
    name##_ = v;                                              \
    return *this;                                             \
  }                                                           \
  const T& name() const noexcept { return name##_; }          \
                                                              \
 private:                                                     \
  T name##_ = init

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}
  /// Examples per batch.
  LOCUS_DATA_ARG(size_t, batch_size, 1);
  /// Worker threads; 0 loads batches on the thread that iterates.
  LOCUS_DATA_ARG(size_t, workers, 0);
  /// Batches being built or waiting at once (default: 2 per worker).
  LOCUS_DATA_ARG(std::optional<size_t>, max_jobs, std::nullopt);
  /// Skips the last batch when it is smaller than batch_size.
  LOCUS_DATA_ARG(bool, drop_last, false);
  /// Batches in page-locked host memory (needs an accelerator: cuda or opencl).
  LOCUS_DATA_ARG(bool, pin_memory, false);
  /// Seed of the RandomSampler that make_data_loader creates (default: locus::initial_seed()).
  LOCUS_DATA_ARG(std::optional<uint64_t>, seed, std::nullopt);
 public:
};
#undef LOCUS_DATA_ARG

namespace detail {
inline void pin(Tensor& t) {
  if (t.defined()) t = t.pin_memory();
}
template <typename D, typename T>
void pin(Example<D, T>& e) {
  pin(e.data);
  pin(e.target);
}
template <typename T>
  requires requires(T& x) { pin(x); }
void pin(std::vector<T>& v) {
  for (auto& x : v) pin(x);
}
template <typename T>
concept Pinnable = requires(T& x) { pin(x); };
}  // namespace detail

template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = std::vector<size_t>;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = BatchType;
    using difference_type = std::ptrdiff_t;
    using pointer = BatchType*;
    using reference = BatchType&;
    Iterator() = default;
    explicit Iterator(StatelessDataLoader* loader) : loader_(loader) { ++*this; }
    BatchType& operator*() { return *batch_; }
    BatchType* operator->() { return &*batch_; }
    Iterator& operator++() {
      batch_ = loader_->next();
      if (!batch_) loader_ = nullptr;
      return *this;
    }
    bool operator==(const Iterator& o) const { return loader_ == o.loader_ && (!loader_ || this == &o); }
    bool operator!=(const Iterator& o) const { return !(*this == o); }

   private:
    StatelessDataLoader* loader_ = nullptr;
    std::optional<BatchType> batch_;
  };

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
    LOCUS_CHECK(options_.batch_size() > 0, "[DataLoader] batch_size must be at least 1.");
    LOCUS_CHECK(!options_.max_jobs() || *options_.max_jobs() > 0, "[DataLoader] max_jobs must be at least 1.");
    if (options_.pin_memory() && !detail::Pinnable<BatchType>)
      throw Error("[DataLoader] pin_memory(true) needs batches of tensors or examples of tensors; this "
                  "dataset's batches are of another type.");
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { stop(); }

  /// Starts an epoch (ending any unfinished one).
  Iterator begin() {
    stop();
    sampler_.reset();
    epoch_ = std::make_unique<Epoch>();
    while (auto idx = sampler_.next(options_.batch_size())) {
      if (options_.drop_last() && idx->size() < options_.batch_size()) break;
      epoch_->requests.push_back(std::move(*idx));
    }
    epoch_->window = options_.max_jobs() ? *options_.max_jobs() : 2 * options_.workers();
    Epoch* e = epoch_.get();
    for (size_t w = 0; w < options_.workers(); ++w) e->threads.emplace_back([this, e] { work(*e); });
    return Iterator(this);
  }
  Iterator end() { return Iterator(); }

  /// Batches in the current (or next) epoch; known once begin() has run.
  size_t size() const { return epoch_ ? epoch_->requests.size() : 0; }
  const DataLoaderOptions& options() const noexcept { return options_; }
  Dataset& dataset() noexcept { return dataset_; }
  /// The loader's own sampler, e.g. for loader->sampler().set_epoch(e) with a DistributedSampler.
  Sampler& sampler() noexcept { return sampler_; }

 private:
  struct Slot {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };
  struct Epoch {
    std::vector<BatchRequestType> requests;
    size_t window = 0, next_job = 0, consumed = 0;
    bool stop = false;
    std::map<size_t, Slot> done;
    std::mutex mu;
    std::condition_variable cv_done, cv_space;
    std::vector<std::thread> threads;
  };

  BatchType load(const BatchRequestType& request) {
    BatchType b = dataset_.get_batch(request);
    if constexpr (detail::Pinnable<BatchType>) {
      if (options_.pin_memory()) detail::pin(b);
    }
    return b;
  }

  void work(Epoch& e) {
    for (;;) {
      size_t j;
      {
        std::unique_lock<std::mutex> lock(e.mu);
        e.cv_space.wait(lock, [&] {
          return e.stop || e.next_job >= e.requests.size() || e.next_job < e.consumed + e.window;
        });
        if (e.stop || e.next_job >= e.requests.size()) return;
        j = e.next_job++;
      }
      Slot s;
      try {
        s.batch.emplace(load(e.requests[j]));
      } catch (...) {
        s.error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(e.mu);
      e.done.emplace(j, std::move(s));
      e.cv_done.notify_all();
    }
  }

  std::optional<BatchType> next() {
    if (!epoch_) return std::nullopt;
    Epoch& e = *epoch_;
    if (e.consumed >= e.requests.size()) return std::nullopt;
    if (e.threads.empty()) return load(e.requests[e.consumed++]);
    Slot s;
    {
      std::unique_lock<std::mutex> lock(e.mu);
      e.cv_done.wait(lock, [&] { return e.done.count(e.consumed) > 0; });
      auto it = e.done.find(e.consumed);
      s = std::move(it->second);
      e.done.erase(it);
      ++e.consumed;
    }
    e.cv_space.notify_all();
    if (s.error) std::rethrow_exception(s.error);
    return std::move(s.batch);
  }

  void stop() {
    if (!epoch_) return;
    {
      std::lock_guard<std::mutex> lock(epoch_->mu);
      epoch_->stop = true;
    }
    epoch_->cv_space.notify_all();
    for (auto& t : epoch_->threads) t.join();
    epoch_->threads.clear();
  }

  Dataset dataset_;
  Sampler sampler_;
  DataLoaderOptions options_;
  std::unique_ptr<Epoch> epoch_;
};

/// A loader over `dataset` with a `Sampler` of the dataset's size (RandomSampler by default,
/// seeded with options.seed() when given).
template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                       DataLoaderOptions options = {}) {
  std::optional<size_t> n = dataset.size();
  LOCUS_CHECK(n.has_value(), "[make_data_loader] the dataset has no size; pass a sampler explicitly.");
  if constexpr (std::is_constructible_v<Sampler, size_t, std::optional<uint64_t>>) {
    Sampler sampler(*n, options.seed());
    return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                    std::move(options));
  } else {
    Sampler sampler(*n);
    return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                    std::move(options));
  }
}

template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, size_t batch_size) {
  return make_data_loader<Sampler>(std::move(dataset), DataLoaderOptions(batch_size));
}

template <typename Dataset, typename Sampler>
  requires std::is_base_of_v<samplers::Sampler, Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                       DataLoaderOptions options = {}) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                  std::move(options));
}

}  // namespace locus::data
