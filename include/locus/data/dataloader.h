#pragma once
// The data loader, as libtorch's data::make_data_loader:
//   auto loader = data::make_data_loader(std::move(dataset),
//                                        data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { ... batch.data ... batch.target ... }
// The default sampler is RandomSampler; make_data_loader<samplers::SequentialSampler>(...) keeps
// the order. begin() starts an epoch: the sampler is reset and the workers (threads; 0 workers
// loads on the calling thread) build batches ahead of the consumer, at most max_jobs at a time,
// handed out in sampler order (enforce_ordering, the default) or as they are done. As libtorch,
// every worker has its own copy of the dataset (made once, when the loader is built), so get()
// may modify the dataset's members (an augmentation's random generator, an open file) without
// locking. An error in a worker is rethrown where the batch is consumed, as a WorkerException
// (libtorch's: its what() is "Caught exception in DataLoader worker thread. Original message: "
// and the original's, original_exception holds the original); with 0 workers the original itself.
// pin_memory(true) places every batch in page-locked host memory, ready for non_blocking copies.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
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
  /// The longest the consumer waits for a worker's next batch; past it, an Error.
  LOCUS_DATA_ARG(std::optional<std::chrono::milliseconds>, timeout, std::nullopt);
  /// Batches in sampler order (true) or in the order workers finish them (false).
  LOCUS_DATA_ARG(bool, enforce_ordering, true);
  /// Skips the last batch when it is smaller than batch_size.
  LOCUS_DATA_ARG(bool, drop_last, false);
  /// Batches in page-locked host memory (needs an accelerator: cuda or opencl).
  LOCUS_DATA_ARG(bool, pin_memory, false);
  /// Seed of the RandomSampler that make_data_loader creates (default: locus::initial_seed()).
  LOCUS_DATA_ARG(std::optional<uint64_t>, seed, std::nullopt);
 public:
};
#undef LOCUS_DATA_ARG

/// The options a loader runs with, max_jobs resolved (libtorch's FullDataLoaderOptions, what
/// loader->options() returns: fields, not accessors).
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()),
        pin_memory(options.pin_memory()),
        seed(options.seed()) {}
  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  bool pin_memory;                ///< locus's
  std::optional<uint64_t> seed;   ///< locus's
};

/// An exception a dataset raised in a loader's worker thread, rethrown to the consumer
/// (libtorch's WorkerException). A locus::Error, so `catch (const locus::Error&)` sees it too.
struct WorkerException : public Error {
  explicit WorkerException(std::exception_ptr original)
      : Error(message_of(original)), original_exception(std::move(original)) {}
  /// The exception the worker caught.
  std::exception_ptr original_exception;

 private:
  static std::string message_of(const std::exception_ptr& original) {
    std::string m = "Caught exception in DataLoader worker thread.";
    try {
      std::rethrow_exception(original);
    } catch (const std::exception& e) {
      m += " Original message: ";
      m += e.what();
    } catch (...) {
    }
    return m;
  }
};

/// The iterator of a loader's epoch (libtorch's data::Iterator<Batch>): begin() gives one,
/// end() the sentinel. The next batch is loaded when first compared or dereferenced, then on
/// each ++. Copies share their position.
template <typename Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  /// The end of an epoch.
  Iterator() = default;
  /// An epoch whose batches `next` returns, until std::nullopt.
  explicit Iterator(std::function<std::optional<Batch>()> next) : state_(std::make_shared<State>()) {
    state_->next = std::move(next);
  }
  Batch& operator*() {
    if (!state_ || !(fetch(), state_->batch))
      throw Error("[data::Iterator] dereferenced past the end of the epoch.");
    return *state_->batch;
  }
  Batch* operator->() { return &**this; }
  Iterator& operator++() {
    if (!state_ || !(fetch(), state_->batch))
      throw Error("[data::Iterator] incremented past the end of the epoch.");
    state_->batch.reset();  // frees the batch before loading the next one
    state_->batch = state_->next();
    return *this;
  }
  bool operator==(const Iterator& o) const {
    if (state_ && o.state_) return state_ == o.state_;
    if (!state_ && !o.state_) return true;
    const Iterator& valid = state_ ? *this : o;
    valid.fetch();
    return !valid.state_->batch.has_value();
  }
  bool operator!=(const Iterator& o) const { return !(*this == o); }

 private:
  struct State {
    std::function<std::optional<Batch>()> next;
    std::optional<Batch> batch;
    bool started = false;
  };
  void fetch() const {
    if (!state_->started) {
      state_->started = true;
      state_->batch = state_->next();
    }
  }
  std::shared_ptr<State> state_;
};

namespace detail {
inline void pin(Tensor& t) {
  if (t.defined()) t = t.pin_memory();
}
template <typename D, typename T>
void pin(Example<D, T>& e) {
  pin(e.data);
  if constexpr (!std::is_void_v<T>) pin(e.target);
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
  using BatchRequestType = typename Sampler::BatchRequestType;
  using Iterator = data::Iterator<BatchType>;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(check(options)) {
    if constexpr (std::is_copy_constructible_v<Dataset>) {
      for (size_t w = 0; w < options_.workers; ++w) copies_.push_back(std::make_unique<Dataset>(dataset_));
    }
  }
  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;
  ~StatelessDataLoader() { stop(); }

  /// Starts an epoch (ending any unfinished one).
  Iterator begin() {
    stop();
    sampler_.reset();
    epoch_ = std::make_unique<Epoch>();
    while (auto idx = sampler_.next(options_.batch_size)) {
      if (options_.drop_last && request_size(*idx) < options_.batch_size) break;
      if (request_size(*idx) == 0) break;
      epoch_->requests.push_back(std::move(*idx));
    }
    epoch_->window = options_.max_jobs;
    Epoch* e = epoch_.get();
    for (size_t w = 0; w < options_.workers; ++w) {
      Dataset* d = w < copies_.size() ? copies_[w].get() : &dataset_;
      e->threads.emplace_back([this, e, d] { work(*e, *d); });
    }
    return Iterator([this] { return next(); });
  }
  Iterator end() { return Iterator(); }
  /// Ends the current epoch now: stops and joins the workers (libtorch's join(); the destructor
  /// does it too). A later begin() starts a fresh epoch.
  void join() {
    stop();
    epoch_.reset();
  }

  /// Batches in the current (or next) epoch; known once begin() has run.
  size_t size() const { return epoch_ ? epoch_->requests.size() : 0; }
  /// The options in effect (libtorch's FullDataLoaderOptions: loader->options().batch_size).
  const FullDataLoaderOptions& options() const noexcept { return options_; }
  /// The dataset the calling thread loads from (workers load from their own copies).
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

  static FullDataLoaderOptions check(const DataLoaderOptions& options) {
    LOCUS_CHECK(options.batch_size() > 0, "[DataLoader] batch_size must be at least 1.");
    LOCUS_CHECK(!options.max_jobs() || *options.max_jobs() > 0, "[DataLoader] max_jobs must be at least 1.");
    LOCUS_CHECK(!options.timeout() || options.timeout()->count() > 0,
                "[DataLoader] timeout must be positive: got " +
                    std::to_string(options.timeout() ? options.timeout()->count() : 0) + " ms.");
    if (options.pin_memory() && !detail::Pinnable<BatchType>)
      throw Error("[DataLoader] pin_memory(true) needs batches of tensors or examples of tensors; this "
                  "dataset's batches are of another type.");
    return FullDataLoaderOptions(options);
  }

  template <typename R>
  static size_t request_size(const R& r) {
    if constexpr (std::is_convertible_v<const R&, size_t>) {
      return static_cast<size_t>(r);
    } else {
      return r.size();
    }
  }

  BatchType load(Dataset& dataset, BatchRequestType request) {
    BatchType b = dataset.get_batch(std::move(request));
    if constexpr (detail::Pinnable<BatchType>) {
      if (options_.pin_memory) detail::pin(b);
    }
    return b;
  }

  void work(Epoch& e, Dataset& dataset) {
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
        s.batch.emplace(load(dataset, e.requests[j]));
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
    if (e.threads.empty()) return load(dataset_, e.requests[e.consumed++]);
    Slot s;
    {
      std::unique_lock<std::mutex> lock(e.mu);
      auto ready = [&] { return options_.enforce_ordering ? e.done.count(e.consumed) > 0 : !e.done.empty(); };
      if (options_.timeout) {
        if (!e.cv_done.wait_for(lock, *options_.timeout, ready))
          throw Error("[DataLoader] no batch arrived within the timeout of " +
                      std::to_string(options_.timeout->count()) +
                      " ms (DataLoaderOptions::timeout): the dataset's get() is slower than that, or blocked.");
      } else {
        e.cv_done.wait(lock, ready);
      }
      auto it = options_.enforce_ordering ? e.done.find(e.consumed) : e.done.begin();
      s = std::move(it->second);
      e.done.erase(it);
      ++e.consumed;
    }
    e.cv_space.notify_all();
    if (s.error) throw WorkerException(s.error);
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
  FullDataLoaderOptions options_;
  std::vector<std::unique_ptr<Dataset>> copies_;  // one per worker
  std::unique_ptr<Epoch> epoch_;
};

/// The loader of a StatefulDataset (libtorch's StatefulDataLoader): begin() calls the dataset's
/// reset(), then batches are get_batch(batch_size) until the dataset returns std::nullopt. Workers
/// share the one dataset (as libtorch): its get_batch must be thread-safe when workers > 0.
template <typename Dataset>
class StatefulDataLoader {
 public:
  using BatchType = typename Dataset::BatchType::value_type;
  using BatchRequestType = typename Dataset::BatchRequestType;
  using Iterator = data::Iterator<BatchType>;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : dataset_(std::move(dataset)), options_(check(options)) {}
  StatefulDataLoader(const StatefulDataLoader&) = delete;
  StatefulDataLoader& operator=(const StatefulDataLoader&) = delete;
  ~StatefulDataLoader() { stop(); }

  Iterator begin() {
    stop();
    dataset_.reset();
    epoch_ = std::make_unique<Epoch>();
    Epoch* e = epoch_.get();
    for (size_t w = 0; w < options_.workers; ++w) e->threads.emplace_back([this, e] { work(*e); });
    return Iterator([this] { return next(); });
  }
  Iterator end() { return Iterator(); }
  /// Ends the current epoch now: stops and joins the workers (libtorch's join()).
  void join() {
    stop();
    epoch_.reset();
  }
  const FullDataLoaderOptions& options() const noexcept { return options_; }
  Dataset& dataset() noexcept { return dataset_; }

 private:
  struct Slot {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };
  struct Epoch {
    size_t next_job = 0, consumed = 0;
    bool stop = false, exhausted = false;
    std::map<size_t, Slot> done;
    std::mutex mu;
    std::condition_variable cv_done, cv_space;
    std::vector<std::thread> threads;
  };

  static FullDataLoaderOptions check(const DataLoaderOptions& options) {
    LOCUS_CHECK(options.batch_size() > 0, "[DataLoader] batch_size must be at least 1.");
    LOCUS_CHECK(!options.max_jobs() || *options.max_jobs() > 0, "[DataLoader] max_jobs must be at least 1.");
    LOCUS_CHECK(!options.pin_memory(), "[DataLoader] pin_memory(true) is not supported for a StatefulDataset.");
    return FullDataLoaderOptions(options);
  }

  void work(Epoch& e) {
    for (;;) {
      size_t j;
      {
        std::unique_lock<std::mutex> lock(e.mu);
        e.cv_space.wait(lock, [&] { return e.stop || e.exhausted || e.next_job < e.consumed + options_.max_jobs; });
        if (e.stop || e.exhausted) return;
        j = e.next_job++;
      }
      Slot s;
      bool end = false;
      try {
        s.batch = dataset_.get_batch(options_.batch_size);
        end = !s.batch;
      } catch (...) {
        s.error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(e.mu);
      if (end) e.exhausted = true;
      e.done.emplace(j, std::move(s));
      e.cv_done.notify_all();
      e.cv_space.notify_all();
    }
  }

  std::optional<BatchType> next() {
    if (!epoch_) return std::nullopt;
    Epoch& e = *epoch_;
    if (e.threads.empty()) {
      if (e.exhausted) return std::nullopt;
      std::optional<BatchType> b = dataset_.get_batch(options_.batch_size);
      if (!b) e.exhausted = true;
      return b;
    }
    for (;;) {
      Slot s;
      {
        std::unique_lock<std::mutex> lock(e.mu);
        // jobs are numbered in the order the dataset was asked; once one came back empty, the
        // epoch ends after the batches asked before it
        auto ready = [&] { return e.done.count(e.consumed) > 0 || (e.exhausted && e.consumed >= e.next_job); };
        if (options_.timeout) {
          if (!e.cv_done.wait_for(lock, *options_.timeout, ready))
            throw Error("[DataLoader] no batch arrived within the timeout of " +
                        std::to_string(options_.timeout->count()) + " ms (DataLoaderOptions::timeout).");
        } else {
          e.cv_done.wait(lock, ready);
        }
        auto it = e.done.find(e.consumed);
        if (it == e.done.end()) return std::nullopt;
        s = std::move(it->second);
        e.done.erase(it);
        ++e.consumed;
      }
      e.cv_space.notify_all();
      if (s.error) throw WorkerException(s.error);
      if (s.batch) return std::move(s.batch);
    }
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
  FullDataLoaderOptions options_;
  std::unique_ptr<Epoch> epoch_;
};

/// A loader over `dataset` with a `Sampler` of the dataset's size (RandomSampler by default,
/// seeded with options.seed() when given).
template <typename Sampler = samplers::RandomSampler, typename Dataset>
  requires(!Dataset::is_stateful)
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
  requires(!Dataset::is_stateful)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, size_t batch_size) {
  return make_data_loader<Sampler>(std::move(dataset), DataLoaderOptions(batch_size));
}

template <typename Dataset, typename Sampler>
  requires requires(Sampler& s) {
    s.reset();
    s.next(size_t{1});
  }
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                       DataLoaderOptions options = {}) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler),
                                                                  std::move(options));
}

/// A loader over a StatefulDataset (no sampler: the dataset decides what comes next).
template <typename Dataset>
  requires Dataset::is_stateful
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset, DataLoaderOptions options = {}) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace locus::data
