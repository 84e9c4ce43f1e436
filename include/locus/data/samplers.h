#pragma once
// Samplers: which example indices each batch holds (libtorch's data::samplers).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "locus/dtype.h"

namespace locus::serialize {
class OutputArchive;
class InputArchive;
}  // namespace locus::serialize

namespace locus::data::samplers {

/// A sampler hands out batch requests (by default, lists of example indices), as libtorch's
/// Sampler<BatchRequest>. save/load store and restore its position in an archive; a custom
/// sampler that does not override them throws when asked to.
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  /// Starts a new pass (an epoch), optionally over a new number of examples.
  virtual void reset(std::optional<size_t> new_size = std::nullopt) = 0;
  /// The next request of up to `batch_size` examples; std::nullopt when the pass is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);
};

namespace detail {
[[noreturn]] void sampler_not_serializable(const char* what);
}  // namespace detail

template <typename BatchRequest>
void Sampler<BatchRequest>::save(serialize::OutputArchive&) const {
  detail::sampler_not_serializable("save");
}
template <typename BatchRequest>
void Sampler<BatchRequest>::load(serialize::InputArchive&) {
  detail::sampler_not_serializable("load");
}

/// archive << sampler, archive >> sampler (libtorch's samplers/serialize.h).
template <typename BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <typename BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

/// 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Stores the position under "index" (libtorch's key); load restores it.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_, index_ = 0;
};

/// A fresh random permutation on every reset. The permutations follow from the seed alone (the
/// same seed gives the same sequence of epochs on every machine); without one, the seed is
/// locus::initial_seed() at construction, so manual_seed() makes shuffling reproducible too.
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(size_t size, std::optional<uint64_t> seed = std::nullopt);
  /// libtorch's signature; the indices are kept as size_t whatever `index_dtype` (it only sets
  /// the dtype of the "indices" tensor that save() writes).
  RandomSampler(size_t size, Dtype index_dtype);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Stores the position ("index") and this epoch's permutation ("indices"), as libtorch; load
  /// restores both (and the size, the permutation's length).
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_, index_ = 0;
  std::mt19937_64 rng_;
  std::vector<size_t> perm_;
  Dtype index_dtype_ = kLong;
};

/// PyTorch's torch.utils.data.DistributedSampler: the share of a dataset that replica `rank` of
/// `num_replicas` reads, so that every process of a data-parallel job sees different examples.
/// Each epoch the indices 0..size-1 are permuted (when `shuffle`) by a generator seeded with
/// seed + epoch, which is PyTorch's torch.randperm on a CPU generator: the same seed and epoch give
/// PyTorch's index lists exactly. Without drop_last the list is padded by wrapping around to a
/// multiple of num_replicas (each replica gets ceil(size / num_replicas)); with drop_last the tail
/// is dropped (floor). Replica r takes every num_replicas-th index from position r, so the shards
/// are disjoint (up to the padding) and together cover the dataset.
/// The order changes only with set_epoch(): call it before each epoch, as in PyTorch, or every
/// epoch repeats the same order. reset() (what the data loader calls at begin()) rebuilds the list
/// for the current epoch. rank and num_replicas are passed explicitly (from
/// distributed::get_rank() / get_world_size(), or a launcher's RANK and WORLD_SIZE).
class DistributedSampler : public Sampler<> {
 public:
  DistributedSampler(size_t size, size_t num_replicas, size_t rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

  /// Selects the epoch whose permutation the next reset() builds (PyTorch's set_epoch).
  void set_epoch(size_t epoch);
  size_t epoch() const noexcept { return epoch_; }
  /// Indices this replica reads per epoch (PyTorch's len(sampler), num_samples).
  size_t num_samples() const noexcept { return num_samples_; }
  /// num_samples() * num_replicas: the padded (or truncated) length of the whole list.
  size_t total_size() const noexcept { return num_samples_ * num_replicas_; }
  size_t num_replicas() const noexcept { return num_replicas_; }
  size_t rank() const noexcept { return rank_; }
  /// This replica's indices for the current epoch, in order.
  const std::vector<size_t>& indices() const noexcept { return indices_; }
  /// How many of them next() has handed out.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_, num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  size_t epoch_ = 0, num_samples_ = 0, index_ = 0;
  std::vector<size_t> indices_;
};

/// libtorch's DistributedRandomSampler, with libtorch's layout (not DistributedSampler's): the
/// indices 0..size-1, padded by wrapping around to num_replicas * ceil(size / num_replicas) (with
/// allow_duplicates; else cut to num_replicas * floor(size / num_replicas)), are shuffled by
/// std::shuffle with std::mt19937(epoch) on every reset(), and replica `rank` reads the contiguous
/// block [rank * n, (rank + 1) * n) of n = the per-replica count. Built with the same standard
/// library as libtorch (std::shuffle is implementation-defined), the lists equal libtorch's. The
/// order changes only with set_epoch() followed by reset() (begin() of a loader resets).
class DistributedRandomSampler : public Sampler<> {
 public:
  explicit DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                                    bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Stores "sample_index_" and "epoch_" (libtorch's keys); load reshuffles for the stored epoch.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }
  /// The position in the whole shuffled list (libtorch's: it starts at rank * n, not at 0).
  size_t index() const noexcept { return sample_index_; }

 private:
  size_t size_, num_replicas_, rank_, epoch_ = 0;
  bool allow_duplicates_;
  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

/// libtorch's DistributedSequentialSampler: replica `rank` reads positions [rank * n, (rank + 1) * n)
/// of 0, 1, ..., wrapped around modulo size (n: ceil(size / num_replicas) with allow_duplicates, else
/// floor). The epoch does not change the order.
class DistributedSequentialSampler : public Sampler<> {
 public:
  explicit DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                                        bool allow_duplicates = true);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Stores "sample_index_" (libtorch's key); load restores it.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }
  /// The position in 0, 1, ... (libtorch's: it starts at rank * n).
  size_t index() const noexcept { return sample_index_; }

 private:
  size_t size_, num_replicas_, rank_, epoch_ = 0;
  bool allow_duplicates_;
  size_t begin_index_ = 0, end_index_ = 0, sample_index_ = 0;
};

/// libtorch's BatchSize: the request a StreamSampler hands out, a number of examples.
struct BatchSize {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept { return size_; }
  operator size_t() const noexcept { return size_; }
  size_t size_;
};

/// libtorch's StreamSampler: hands out batch sizes until epoch_size examples were requested, for
/// datasets that read a stream (BatchDataset<Self, Batch, BatchSize>).
class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;
  /// Stores "examples_retrieved_so_far" (libtorch's key); load restores it.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0, epoch_size_;
};

}  // namespace locus::data::samplers

namespace locus::data {
using samplers::DistributedSampler;  // data::DistributedSampler, as torch.utils.data's
}  // namespace locus::data
