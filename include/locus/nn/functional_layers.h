#pragma once
// More of libtorch's layer functions (torch::nn::functional): bilinear, unfold and fold,
// local_response_norm, embedding_bag, dropout1d, alpha_dropout and feature_alpha_dropout. Each is
// made of differentiable ops, so it runs and trains on every device.
#include <optional>

#include "locus/nn/functional.h"

namespace locus {
namespace enumtype {
struct kMax {};
}  // namespace enumtype
/// EmbeddingBag's third mode (kSum and kMean are the reductions').
inline constexpr enumtype::kMax kMax{};
}  // namespace locus

namespace locus::nn::functional {

struct UnfoldFuncOptions {
  UnfoldFuncOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
};
struct FoldFuncOptions {
  FoldFuncOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<2>, output_size);
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
};
struct LocalResponseNormFuncOptions {
  LocalResponseNormFuncOptions(int64_t size) : size_(size) {}
  LOCUS_ARG(int64_t, size);
  LOCUS_ARG(double, alpha) = 1e-4;
  LOCUS_ARG(double, beta) = 0.75;
  LOCUS_ARG(double, k) = 1.0;
};

/// kSum, kMean or kMax.
class EmbeddingBagMode {
 public:
  enum Kind { Sum, Mean, Max };
  EmbeddingBagMode(enumtype::Reduction r);  // kSum or kMean
  EmbeddingBagMode(enumtype::kMax) : kind_(Max) {}
  Kind kind() const { return kind_; }
  const char* name() const { return kind_ == Sum ? "sum" : kind_ == Mean ? "mean" : "max"; }

 private:
  Kind kind_;
};

struct EmbeddingBagFuncOptions {
  /// For a 1-D input: where each bag starts (int64, first 0); a 2-D input [B, L] is B bags of L.
  LOCUS_ARG(Tensor, offsets) = {};
  LOCUS_ARG(EmbeddingBagMode, mode) = kMean;
  /// Weights of the looked-up rows (input's shape), with mode kSum only.
  LOCUS_ARG(Tensor, per_sample_weights) = {};
  /// offsets has B + 1 entries, the last being input's length.
  LOCUS_ARG(bool, include_last_offset) = false;
  /// Rows at this index take no part in a bag (nor get gradient).
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Each looked-up row whose norm_type-norm exceeds max_norm is rescaled, in the weight itself (in place,
  /// without gradient), to norm max_norm before the lookup (PyTorch's embedding_renorm_).
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
};

using Dropout1dFuncOptions = DropoutFuncOptions;
using AlphaDropoutFuncOptions = DropoutFuncOptions;
using FeatureAlphaDropoutFuncOptions = DropoutFuncOptions;

/// x1^T A x2 + b per output feature: input1 [*, in1], input2 [*, in2], weight [out, in1, in2],
/// bias [out] -> [*, out].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
/// Sliding blocks of input [N, C, H, W] (or [C, H, W]) as columns [N, C * kh * kw, L].
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
/// The inverse arrangement, summing overlaps: [N, C * kh * kw, L] -> [N, C, output_size].
Tensor fold(const Tensor& input, const FoldFuncOptions& options);
/// x / (k + alpha / size * sum of x^2 over `size` neighbouring channels)^beta (AlexNet's).
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);
/// Sums, means or maxima of embedding rows per bag: -> [B, embedding_dim]; an empty bag gives zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
/// Channel dropout of [N, C, L] or [C, L].
Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& options = {});
/// SELU's dropout: dropped elements take SELU's negative saturation and the result is rescaled,
/// keeping mean and variance; per element, or per channel (feature_alpha_dropout).
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& options = {});

}  // namespace locus::nn::functional
