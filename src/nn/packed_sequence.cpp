// Packed sequences (include/locus/nn/utils/rnn.h). Lengths and batch sizes are host data: they are
// read once into vectors, and the tensors are cut and joined with narrow / cat / index_select, so
// packing and padding are differentiable on every device.
#include <algorithm>
#include <numeric>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/utils.h"
#include "ops/checks.h"

namespace locus::nn::utils::rnn {
namespace {
using ops::shape_str;

std::vector<int64_t> host(const Tensor& t) {
  const Tensor c = t.cpu().to(kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

Tensor index_tensor(const std::vector<int64_t>& v) {
  return tensor(v, TensorOptions().dtype(kLong)).reshape({static_cast<int64_t>(v.size())});
}

std::string list(const std::vector<int64_t>& v) { return shape_str(v); }

// The dims after the first ({} for a 0-D tensor).
std::vector<int64_t> trailing(const Tensor& t) {
  std::vector<int64_t> v = t.sizes().vec();
  if (!v.empty()) v.erase(v.begin());
  return v;
}

// [n, rest...] filled with `value`, as `like`.
Tensor filler(const Tensor& like, int64_t n, double value) {
  std::vector<int64_t> sizes = like.sizes().vec();
  sizes[0] = n;
  return full(sizes, value, like.options());
}
}  // namespace

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)), batch_sizes_(std::move(batch_sizes)), sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (sorted_indices_.defined() && !unsorted_indices_.defined()) {
    const std::vector<int64_t> sorted = host(sorted_indices_);
    std::vector<int64_t> inverse(sorted.size(), -1);
    for (size_t i = 0; i < sorted.size(); ++i) {
      const int64_t at = sorted[i];
      if (at < 0 || at >= static_cast<int64_t>(sorted.size()) || inverse[static_cast<size_t>(at)] >= 0)
        throw Error("[PackedSequence] sorted_indices must be a permutation of 0 .. " +
                    std::to_string(sorted.size() - 1) + ": got " + list(sorted) + ".");
      inverse[static_cast<size_t>(at)] = static_cast<int64_t>(i);
    }
    unsorted_indices_ = index_tensor(inverse).to(sorted_indices_.device());
  }
}

PackedSequence PackedSequence::to(TensorOptions options) const {
  Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  // the indices follow data to its device, keeping their dtype; batch_sizes stay on cpu (libtorch's)
  auto follow = [&](const Tensor& t) {
    return t.defined() ? t.to(options.device(data.device()).dtype(t.scalar_type())) : Tensor();
  };
  return PackedSequence(data, batch_sizes_, follow(sorted_indices_), follow(unsorted_indices_));
}
PackedSequence PackedSequence::cuda() const { return to(kCUDA); }
PackedSequence PackedSequence::cpu() const { return to(kCPU); }
PackedSequence PackedSequence::pin_memory() const {
  return PackedSequence(data_.pin_memory(), batch_sizes_,
                        sorted_indices_.defined() ? sorted_indices_.pin_memory() : Tensor(),
                        unsorted_indices_.defined() ? unsorted_indices_.pin_memory() : Tensor());
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  if (input.dim() < 2)
    throw Error("[pack_padded_sequence] input must have at least 2 dims, (T, B, *) or (B, T, *) batch_first: got "
                "shape " + shape_str(input.sizes()) + ".");
  if (batch_first) input = input.transpose(0, 1);
  const int64_t steps = input.size(0), batch = input.size(1);
  if (batch == 0 || steps == 0)
    throw Error("[pack_padded_sequence] input holds no sequence steps: got shape " + shape_str(input.sizes()) + ".");
  if (lengths.dim() != 1 || lengths.size(0) != batch)
    throw Error("[pack_padded_sequence] lengths must be 1-D with one entry per sequence (" + std::to_string(batch) +
                "): got shape " + shape_str(lengths.sizes()) + ".");
  std::vector<int64_t> len = host(lengths);
  for (int64_t l : len)
    if (l < 1 || l > steps)
      throw Error("[pack_padded_sequence] every length must be in [1, " + std::to_string(steps) +
                  "] (the padded length): got " + list(len) + ". Drop empty sequences, or pad the input further.");
  Tensor sorted_indices;
  if (enforce_sorted) {
    if (!std::is_sorted(len.rbegin(), len.rend()))
      throw Error("[pack_padded_sequence] lengths must be in decreasing order when enforce_sorted is true: got " +
                  list(len) + ". Sort the batch, or pass enforce_sorted = false.");
  } else {
    std::vector<int64_t> order(len.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return len[a] > len[b]; });
    sorted_indices = index_tensor(order);
    input = input.index_select(1, sorted_indices.to(input.device()));
    std::vector<int64_t> sorted;
    for (int64_t i : order) sorted.push_back(len[static_cast<size_t>(i)]);
    len = sorted;
  }
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> rows;
  for (int64_t t = 0; t < len[0]; ++t) {
    const int64_t running = std::count_if(len.begin(), len.end(), [&](int64_t l) { return l > t; });
    batch_sizes.push_back(running);
    rows.push_back(input.select(0, t).narrow(0, 0, running));
  }
  return PackedSequence(cat(rows, 0), index_tensor(batch_sizes), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                               std::optional<int64_t> total_length) {
  if (!sequence.defined())
    throw Error("[pad_packed_sequence] sequence is empty (default-constructed). Pass a PackedSequence from "
                "pack_padded_sequence or pack_sequence.");
  const std::vector<int64_t> batch_sizes = host(sequence.batch_sizes());
  const int64_t steps = static_cast<int64_t>(batch_sizes.size()), batch = steps ? batch_sizes[0] : 0;
  if (total_length && *total_length < steps)
    throw Error("[pad_packed_sequence] total_length must be at least the longest sequence's length (" +
                std::to_string(steps) + "): got " + std::to_string(*total_length) + ".");
  const Tensor& data = sequence.data();
  std::vector<Tensor> rows;
  int64_t at = 0;
  for (int64_t bs : batch_sizes) {
    Tensor row = data.narrow(0, at, bs);
    if (bs < batch) row = cat({row, filler(data, batch - bs, padding_value)}, 0);
    rows.push_back(row);
    at += bs;
  }
  Tensor out = stack(rows, 0);
  if (total_length && *total_length > steps) {
    std::vector<int64_t> sizes = out.sizes().vec();
    sizes[0] = *total_length - steps;
    out = cat({out, full(sizes, padding_value, out.options())}, 0);
  }
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  for (int64_t bs : batch_sizes)
    for (int64_t b = 0; b < bs; ++b) ++lengths[static_cast<size_t>(b)];
  if (sequence.unsorted_indices().defined()) {
    const std::vector<int64_t> unsorted = host(sequence.unsorted_indices());
    out = out.index_select(1, sequence.unsorted_indices().to(out.device()));
    std::vector<int64_t> original;
    for (int64_t i : unsorted) original.push_back(lengths[static_cast<size_t>(i)]);
    lengths = original;
  }
  if (batch_first) out = out.transpose(0, 1);
  return {out, index_tensor(lengths)};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  if (sequences.empty()) throw Error("[pad_sequence] sequences is empty. Pass at least one tensor.");
  int64_t longest = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    if (s.dim() < 1 || trailing(s) != trailing(sequences[0]))
      throw Error("[pad_sequence] every sequence must be (L, *) with the first's trailing dims: got " +
                  shape_str(sequences[0].sizes()) + " for sequence 0 and " + shape_str(s.sizes()) + " for sequence " +
                  std::to_string(i) + ".");
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences)
    padded.push_back(s.size(0) < longest ? cat({s, filler(s, longest - s.size(0), padding_value)}, 0) : s);
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() ? s.size(0) : 0);
  const Tensor padded = pad_sequence(sequences);
  return pack_padded_sequence(padded, index_tensor(lengths), false, enforce_sorted);
}

}  // namespace locus::nn::utils::rnn
