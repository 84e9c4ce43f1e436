#include "locus/data/samplers.h"

#include <algorithm>
#include <numeric>

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

}  // namespace locus::data::samplers
