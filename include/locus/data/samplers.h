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

}  // namespace locus::data::samplers
