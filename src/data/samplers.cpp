#include "locus/data/samplers.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "locus/error.h"

#include "locus/random.h"

namespace locus::data::samplers {

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  if (index_ >= size_ || batch_size == 0) return std::nullopt;
  size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> out(n);
  std::iota(out.begin(), out.end(), index_);
  index_ += n;
  return out;
}

RandomSampler::RandomSampler(size_t size, std::optional<uint64_t> seed)
    : size_(size), rng_(seed ? *seed : locus::initial_seed()) {
  reset();
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  perm_.resize(size_);
  std::iota(perm_.begin(), perm_.end(), size_t{0});
  // Fisher-Yates with Lemire's multiply-shift bound: the same permutation on every standard
  // library (std::shuffle and uniform_int_distribution are implementation-defined).
  for (size_t i = size_; i > 1; --i) {
    size_t j = static_cast<size_t>((static_cast<unsigned __int128>(rng_()) * i) >> 64);
    std::swap(perm_[i - 1], perm_[j]);
  }
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  if (index_ >= size_ || batch_size == 0) return std::nullopt;
  size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> out(perm_.begin() + static_cast<std::ptrdiff_t>(index_),
                          perm_.begin() + static_cast<std::ptrdiff_t>(index_ + n));
  index_ += n;
  return out;
}

// ---- DistributedSampler --------------------------------------------------------------------
// The permutation is torch.randperm's on a CPU generator (aten's randperm_cpu): a 32-bit
// Mersenne Twister seeded with the low 32 bits of the seed (as at::mt19937 is), then for i in
// 0..n-2 swap r[i] with r[i + mt() % (n - i)]. std::mt19937 is that generator bit for bit, so
// the index lists equal PyTorch's; tests/data/samplers_test.cpp compares them with PyTorch 1.13's.
DistributedSampler::DistributedSampler(size_t size, size_t num_replicas, size_t rank, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : size_(size), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed), drop_last_(drop_last) {
  if (num_replicas == 0)
    throw Error("[DistributedSampler] num_replicas must be at least 1, got 0. Pass the world size "
                "(distributed::get_world_size()).");
  if (rank >= num_replicas)
    throw Error("[DistributedSampler] rank " + std::to_string(rank) + " is out of range for num_replicas " +
                std::to_string(num_replicas) + ": rank must be in [0, " + std::to_string(num_replicas - 1) +
                "]. Pass this process's rank (distributed::get_rank()).");
  reset();
}

void DistributedSampler::set_epoch(size_t epoch) { epoch_ = epoch; }

void DistributedSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  // PyTorch: ceil(n / r) padded, or ceil((n - r) / r) == floor(n / r) when dropping an uneven tail.
  num_samples_ = drop_last_ ? size_ / num_replicas_ : (size_ + num_replicas_ - 1) / num_replicas_;
  std::vector<size_t> all(size_);
  std::iota(all.begin(), all.end(), size_t{0});
  if (shuffle_ && size_ > 1) {
    std::mt19937 mt(static_cast<uint32_t>(seed_ + epoch_));
    for (size_t i = 0; i + 1 < size_; ++i) std::swap(all[i], all[i + mt() % (size_ - i)]);
  }
  // Replica r takes positions r, r + R, ... of the list padded by wrapping around (all[k % n]).
  indices_.clear();
  indices_.reserve(num_samples_);
  for (size_t k = rank_; k < total_size(); k += num_replicas_) indices_.push_back(all[k % size_]);
  index_ = 0;
}

std::optional<std::vector<size_t>> DistributedSampler::next(size_t batch_size) {
  if (index_ >= indices_.size() || batch_size == 0) return std::nullopt;
  size_t n = std::min(batch_size, indices_.size() - index_);
  std::vector<size_t> out(indices_.begin() + static_cast<std::ptrdiff_t>(index_),
                          indices_.begin() + static_cast<std::ptrdiff_t>(index_ + n));
  index_ += n;
  return out;
}

}  // namespace locus::data::samplers
