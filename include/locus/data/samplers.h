#pragma once
// Samplers: which example indices each batch holds (libtorch's data::samplers).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace locus::data::samplers {

class Sampler {
 public:
  virtual ~Sampler() = default;
  /// Starts a new pass (an epoch), optionally over a new number of examples.
  virtual void reset(std::optional<size_t> new_size = std::nullopt) = 0;
  /// The next up to `batch_size` indices; std::nullopt when the pass is over.
  virtual std::optional<std::vector<size_t>> next(size_t batch_size) = 0;
};

/// 0, 1, ..., size - 1 in order.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_, index_ = 0;
};

/// A fresh random permutation on every reset. The permutations follow from the seed alone (the
/// same seed gives the same sequence of epochs on every machine); without one, the seed is
/// locus::initial_seed() at construction, so manual_seed() makes shuffling reproducible too.
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(size_t size, std::optional<uint64_t> seed = std::nullopt);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  size_t size_, index_ = 0;
  std::mt19937_64 rng_;
  std::vector<size_t> perm_;
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
class DistributedSampler : public Sampler {
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

/// libtorch's DistributedRandomSampler spelling: shuffled; allow_duplicates pads (true) or drops
/// the tail (false). The order is PyTorch's (strided shards of torch.randperm(seed + epoch)).
class DistributedRandomSampler : public DistributedSampler {
 public:
  explicit DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                                    bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, /*shuffle=*/true, /*seed=*/0, !allow_duplicates) {}
};

/// libtorch's DistributedSequentialSampler: as DistributedRandomSampler without shuffling.
class DistributedSequentialSampler : public DistributedSampler {
 public:
  explicit DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                                        bool allow_duplicates = true)
      : DistributedSampler(size, num_replicas, rank, /*shuffle=*/false, /*seed=*/0, !allow_duplicates) {}
};

}  // namespace locus::data::samplers

namespace locus::data {
using samplers::DistributedSampler;  // data::DistributedSampler, as torch.utils.data's
}  // namespace locus::data
