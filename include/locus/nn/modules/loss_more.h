#pragma once
// loss batch (stop 46): CTCLoss, TripletMarginWithDistanceLoss, AdaptiveLogSoftmaxWithLoss and
// CrossMapLRN2d, as libtorch 1.13's modules. (libtorch 1.13's C++ API has no nn::ChannelShuffle
// nor F::channel_shuffle, only ATen's torch::channel_shuffle, which locus has in aten.h.)
#include <cstdint>
#include <ostream>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/functional_losses_more.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/container.h"
#include "locus/nn/modules/linear.h"

namespace locus::nn {

using CTCLossOptions = functional::CTCLossFuncOptions;
class CTCLossImpl : public Cloneable<CTCLossImpl> {
 public:
  void reset() override {}
  explicit CTCLossImpl(const CTCLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths) {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
  }
  CTCLossOptions options;
};
LOCUS_MODULE(CTCLoss);

using TripletMarginWithDistanceLossOptions = functional::TripletMarginWithDistanceLossFuncOptions;
class TripletMarginWithDistanceLossImpl : public Cloneable<TripletMarginWithDistanceLossImpl> {
 public:
  void reset() override {}
  explicit TripletMarginWithDistanceLossImpl(const TripletMarginWithDistanceLossOptions& options = {})
      : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
  }
  TripletMarginWithDistanceLossOptions options;
};
LOCUS_MODULE(TripletMarginWithDistanceLoss);

/// Local response normalization across channels of a [N, C, H, W] input, as Lua Torch's (and
/// libtorch's) CrossMapLRN2d: x / (k + alpha / size * sum of x^2 over a window of channels)^beta.
/// Its window and its gradient are libtorch's, quirks included (for channels past the first
/// size / 2 + 1, channel 0 stays in the sum), so results match PyTorch's CrossMapLRN2d.
struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}
  LOCUS_ARG(int64_t, size);
  LOCUS_ARG(double, alpha) = 1e-4;
  LOCUS_ARG(double, beta) = 0.75;
  LOCUS_ARG(int64_t, k) = 1;
};
class CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  CrossMapLRN2dOptions options;
};
LOCUS_MODULE(CrossMapLRN2d);

struct AdaptiveLogSoftmaxWithLossOptions {
  AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  LOCUS_ARG(int64_t, in_features);
  LOCUS_ARG(int64_t, n_classes);
  /// Increasing class indices between 1 and n_classes - 1 that split the classes into clusters.
  LOCUS_ARG(std::vector<int64_t>, cutoffs);
  /// Each tail cluster's hidden size is in_features / div_value^(cluster + 1), rounded down.
  LOCUS_ARG(double, div_value) = 4.;
  LOCUS_ARG(bool, head_bias) = false;
};

/// What AdaptiveLogSoftmaxWithLoss::forward returns (libtorch's ASMoutput): each example's log
/// probability of its target, and the mean negative log likelihood. As in libtorch, `loss` is a
/// plain double (not differentiable); train on -output.mean().
struct ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;
  double loss;
};

/// The adaptive softmax of Grave et al., as libtorch's: a head Linear over the shortlist classes
/// and one entry per cluster, and per cluster a tail Sequential(Linear(in, hidden, no bias),
/// Linear(hidden, cluster size, no bias)); parameters head.weight (head.bias), tail.i.0.weight and
/// tail.i.1.weight, so state dicts match libtorch's and PyTorch's.
class AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_);
  /// input [N, in_features] with int64 target [N], or [in_features] with a 0-dim target.
  ASMoutput forward(const Tensor& input, const Tensor& target);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// The log probabilities of every class, [N, n_classes], from input and head(input).
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  /// The log probabilities of every class for input [N, in_features].
  Tensor log_prob(const Tensor& input);
  /// The most likely class of each row of input [N, in_features] (int64 [N]).
  Tensor predict(const Tensor& input);

  AdaptiveLogSoftmaxWithLossOptions options;
  /// options.cutoffs with n_classes appended.
  std::vector<int64_t> cutoffs;
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail = nullptr;
};
LOCUS_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace locus::nn
