#include "locus/data/samplers.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "locus/archive.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/random.h"

namespace locus::data::samplers {

namespace detail {
void sampler_not_serializable(const char* what) {
  throw Error(std::string("[Sampler] this sampler does not implement ") + what +
              "(): override save(serialize::OutputArchive&) and load(serialize::InputArchive&) to store "
              "and restore its position.");
}
}  // namespace detail

namespace {
void write_index(serialize::OutputArchive& archive, const char* key, size_t value) {
  archive.write(key, locus::tensor(static_cast<int64_t>(value), kLong), /*is_buffer=*/true);
}
size_t read_index(const serialize::InputArchive& archive, const char* key) {
  Tensor t;
  archive.read(key, t, /*is_buffer=*/true);
  int64_t v = t.item<int64_t>();
  if (v < 0) throw Error(std::string("[Sampler] load: \"") + key + "\" is negative (" + std::to_string(v) + ").");
  return static_cast<size_t>(v);
}
}  // namespace

void SequentialSampler::save(serialize::OutputArchive& archive) const { write_index(archive, "index", index_); }
void SequentialSampler::load(serialize::InputArchive& archive) { index_ = read_index(archive, "index"); }

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

RandomSampler::RandomSampler(size_t size, Dtype index_dtype) : RandomSampler(size) {
  if (!is_integral(index_dtype))
    throw Error("[RandomSampler] index_dtype must be an integer dtype (e.g. torch::kInt64).");
  index_dtype_ = index_dtype;
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  write_index(archive, "index", index_);
  std::vector<int64_t> perm(perm_.begin(), perm_.end());
  archive.write("indices", locus::tensor(perm, kLong).to(index_dtype_), /*is_buffer=*/true);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  size_t index = read_index(archive, "index");
  Tensor t;
  archive.read("indices", t, /*is_buffer=*/true);
  if (t.dim() != 1) throw Error("[RandomSampler] load: \"indices\" must be one-dimensional.");
  std::vector<size_t> perm;
  perm.reserve(static_cast<size_t>(t.numel()));
  Tensor l = t.to(kLong).cpu().contiguous();
  for (int64_t k = 0; k < l.numel(); ++k) {
    int64_t v = l.data_ptr<int64_t>()[k];
    if (v < 0) throw Error("[RandomSampler] load: \"indices\" holds a negative index (" + std::to_string(v) + ").");
    perm.push_back(static_cast<size_t>(v));
  }
  if (index > perm.size())
    throw Error("[RandomSampler] load: \"index\" " + std::to_string(index) + " is past the " +
                std::to_string(perm.size()) + " stored indices.");
  perm_ = std::move(perm);
  size_ = perm_.size();
  index_ = index;
  index_dtype_ = t.scalar_type();
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

// ---- libtorch's distributed samplers, StreamSampler ----------------------------------------------
namespace {
void check_replicas(const char* who, size_t num_replicas, size_t rank) {
  if (num_replicas == 0)
    throw Error(std::string("[") + who + "] num_replicas must be at least 1, got 0. Pass the world size.");
  if (rank >= num_replicas)
    throw Error(std::string("[") + who + "] rank " + std::to_string(rank) + " is out of range for num_replicas " +
                std::to_string(num_replicas) + ": rank must be in [0, " + std::to_string(num_replicas - 1) + "].");
}
size_t local_count(size_t size, size_t num_replicas, bool allow_duplicates) {
  return allow_duplicates ? (size + num_replicas - 1) / num_replicas : size / num_replicas;
}
std::vector<size_t> block(size_t& sample_index, size_t end_index, size_t batch_size) {
  size_t end = std::min(end_index, sample_index + batch_size);
  std::vector<size_t> out(end - sample_index);
  std::iota(out.begin(), out.end(), sample_index);
  sample_index = end;
  return out;
}
}  // namespace

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  check_replicas("DistributedRandomSampler", num_replicas, rank);
  reset(size_);
}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  size_t n = local_count(size_, num_replicas_, allow_duplicates_);
  size_t count = num_replicas_ == 1 ? size_ : n * num_replicas_;
  all_indices_.resize(count);
  std::iota(all_indices_.begin(), all_indices_.end(), size_t{0});
  for (size_t i = size_; i < count; ++i) all_indices_[i] = i - size_;  // the padding repeats 0, 1, ...
  begin_index_ = rank_ * n;
  end_index_ = begin_index_ + n;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), rng);
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ >= end_index_ || batch_size == 0) return std::nullopt;
  size_t end = std::min(end_index_, sample_index_ + batch_size);
  std::vector<size_t> out(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                          all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
  sample_index_ = end;
  return out;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  write_index(archive, "sample_index_", sample_index_);
  write_index(archive, "epoch_", epoch_);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  size_t epoch = read_index(archive, "epoch_"), index = read_index(archive, "sample_index_");
  epoch_ = epoch;
  reset(size_);
  if (index < begin_index_ || index > end_index_)
    throw Error("[DistributedRandomSampler] load: \"sample_index_\" " + std::to_string(index) +
                " is outside this replica's block [" + std::to_string(begin_index_) + ", " +
                std::to_string(end_index_) + "].");
  sample_index_ = index;
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
  check_replicas("DistributedSequentialSampler", num_replicas, rank);
  reset(size_);
}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  size_t n = local_count(size_, num_replicas_, allow_duplicates_);
  begin_index_ = rank_ * n;
  end_index_ = begin_index_ + n;
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (sample_index_ >= end_index_ || batch_size == 0) return std::nullopt;
  std::vector<size_t> out = block(sample_index_, end_index_, batch_size);
  for (size_t& i : out) i %= size_;  // the padding wraps around to 0, 1, ...
  return out;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  write_index(archive, "sample_index_", sample_index_);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  size_t index = read_index(archive, "sample_index_");
  if (index < begin_index_ || index > end_index_)
    throw Error("[DistributedSequentialSampler] load: \"sample_index_\" " + std::to_string(index) +
                " is outside this replica's block [" + std::to_string(begin_index_) + ", " +
                std::to_string(end_index_) + "].");
  sample_index_ = index;
}

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_ || batch_size == 0) return std::nullopt;
  size_t n = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += n;
  return BatchSize(n);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_index(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  size_t n = read_index(archive, "examples_retrieved_so_far");
  if (n > epoch_size_)
    throw Error("[StreamSampler] load: \"examples_retrieved_so_far\" " + std::to_string(n) +
                " is past the epoch size " + std::to_string(epoch_size_) + ".");
  examples_retrieved_so_far_ = n;
}

}  // namespace locus::data::samplers
