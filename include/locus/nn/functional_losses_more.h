#pragma once
// loss batch (stop 46): the connectionist temporal classification loss and the triplet loss with
// a custom distance, as libtorch's torch::nn::functional spells them (values and gradients are
// PyTorch 1.13's). CrossMapLRN2d and AdaptiveLogSoftmaxWithLoss are modules only, as in libtorch
// (modules/loss_more.h).
#include <functional>
#include <optional>

#include "locus/nn/functional.h"

namespace locus::nn::functional {

struct CTCLossFuncOptions {
  /// The blank label's index in log_probs' class dim.
  LOCUS_ARG(int64_t, blank) = 0;
  /// kMean divides each item's loss by its target length (at least 1), then averages over the batch.
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
  /// Infinite losses (no alignment of the target fits the input) and their gradients become 0.
  LOCUS_ARG(bool, zero_infinity) = false;
};

struct TripletMarginWithDistanceLossFuncOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  /// d(x1, x2) per example; unset means pairwise_distance (the 2-norm over the last dim).
  LOCUS_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  LOCUS_ARG(double, margin) = 1.0;
  /// Use the smaller of d(anchor, negative) and d(positive, negative) as the negative distance.
  LOCUS_ARG(bool, swap) = false;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

/// The negative log likelihood of each target sequence under the per-step class log
/// probabilities (summed over every alignment with blanks and repeats), then reduced.
/// log_probs: [T, N, C] (or [T, C] for one sequence), usually a log_softmax over C. targets:
/// [N, S] padded, or 1-D with the N targets concatenated (sum(target_lengths) elements); class
/// indices (any integer dtype). input_lengths and target_lengths: N integers each (0-dim for one
/// sequence), on any device (they are read on the host). An impossible alignment gives inf (0 with
/// zero_infinity). The gradient is PyTorch's, which assumes log_probs are normalized:
/// exp(log_probs) minus the per-step class occupancies, times the output's gradient; it is the
/// exact gradient of the loss with respect to the logits under a log_softmax.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the given distance function
/// (pairwise_distance when unset).
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options = {});

}  // namespace locus::nn::functional
