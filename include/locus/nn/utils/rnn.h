#pragma once
// Packed variable-length sequences, as libtorch's torch::nn::utils::rnn: PackedSequence and
// pack_padded_sequence, pad_packed_sequence, pack_sequence, pad_sequence. Packing and padding are
// differentiable (narrow, cat, index_select); lengths and batch_sizes are int64 tensors on cpu.
// LSTM, GRU and RNN take a PackedSequence in forward_with_packed_input.
#include <optional>
#include <tuple>
#include <vector>

#include "locus/tensor.h"

namespace locus::nn::utils::rnn {

/// data [sum(lengths), *]: the time steps one after another, each holding the sequences still
/// running at that step (longest first); batch_sizes [max length] (cpu int64): how many there are
/// at each step. sorted_indices[i] is the original batch index of the i-th longest sequence,
/// unsorted_indices its inverse (both undefined when the batch came sorted).
class PackedSequence {
 public:
  PackedSequence() = default;
  /// unsorted_indices is computed from sorted_indices when not given.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {}, Tensor unsorted_indices = {});
  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  bool defined() const { return data_.defined(); }
  /// data converted by Tensor::to(options) (sorted/unsorted_indices follow it to its device, batch_sizes stay
  /// on cpu); *this itself when data needs no conversion (libtorch's).
  PackedSequence to(TensorOptions options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;
  PackedSequence pin_memory() const;
  bool is_cuda() const { return data_.is_cuda(); }
  bool is_pinned() const { return data_.is_pinned(); }

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// Packs input [T, B, *] ([B, T, *] batch_first) holding B sequences of the given lengths (1-D,
/// each in [1, T]). enforce_sorted: lengths must be in decreasing order; else the batch is sorted.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

/// The inverse of pack_padded_sequence: the padded batch [T, B, *] ([B, T, *] batch_first) in the
/// original order, padded with padding_value to total_length steps (default: the longest), and
/// the lengths (cpu int64).
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

/// Stacks sequences [L_i, *] into [max L_i, B, *] ([B, max L_i, *] batch_first), padding with
/// padding_value.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0.0);

/// pack_padded_sequence(pad_sequence(sequences), their lengths, false, enforce_sorted).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace locus::nn::utils::rnn
