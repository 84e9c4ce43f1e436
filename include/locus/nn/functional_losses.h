#pragma once
// The margin, embedding and likelihood losses and the two distances the triplet loss uses, as
// libtorch's torch::nn::functional spells them. Each is composed of differentiable locus ops, so
// it runs and trains on every device; values and defaults are PyTorch 1.13's. Where PyTorch
// broadcasts an input against a target of another shape (with a warning), locus refuses: a shape
// mistake is nearly always a bug. Reductions are kMean (the default), kSum and kNone.
#include "locus/nn/functional.h"

namespace locus::nn::functional {

// ---- options ------------------------------------------------------------------------------
struct MarginRankingLossFuncOptions {
  LOCUS_ARG(double, margin) = 0.0;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct HingeEmbeddingLossFuncOptions {
  LOCUS_ARG(double, margin) = 1.0;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct CosineEmbeddingLossFuncOptions {
  LOCUS_ARG(double, margin) = 0.0;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct SoftMarginLossFuncOptions {
  SoftMarginLossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
};

struct MultiLabelSoftMarginLossFuncOptions {
  /// One weight per class ([C]), or undefined.
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct TripletMarginLossFuncOptions {
  LOCUS_ARG(double, margin) = 1.0;
  LOCUS_ARG(double, p) = 2.0;
  LOCUS_ARG(double, eps) = 1e-6;
  /// Use the smaller of d(anchor, negative) and d(positive, negative) as the negative distance.
  LOCUS_ARG(bool, swap) = false;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct PoissonNLLLossFuncOptions {
  /// true: input is log(rate); false: input is the rate itself.
  LOCUS_ARG(bool, log_input) = true;
  /// Add Stirling's approximation of log(target!) (for targets above 1).
  LOCUS_ARG(bool, full) = false;
  /// Added to the rate before its log when log_input is false.
  LOCUS_ARG(double, eps) = 1e-8;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct GaussianNLLLossFuncOptions {
  /// Add the constant 0.5 log(2 pi).
  LOCUS_ARG(bool, full) = false;
  /// var is clamped to at least eps (the clamp passes gradients through, as PyTorch's).
  LOCUS_ARG(double, eps) = 1e-6;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct MultiMarginLossFuncOptions {
  /// 1 or 2: the power of each hinge term.
  LOCUS_ARG(int64_t, p) = 1;
  LOCUS_ARG(double, margin) = 1.0;
  /// One weight per class ([C]), applied by the target class, or undefined.
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct MultiLabelMarginLossFuncOptions {
  MultiLabelMarginLossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
};

struct CosineSimilarityFuncOptions {
  LOCUS_ARG(int64_t, dim) = 1;
  LOCUS_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceFuncOptions {
  /// The norm's order: positive, or infinity.
  LOCUS_ARG(double, p) = 2.0;
  LOCUS_ARG(double, eps) = 1e-6;
  LOCUS_ARG(bool, keepdim) = false;
};

// ---- functions ----------------------------------------------------------------------------
/// max(0, -target (x1 - x2) + margin); x1, x2 and target (1 or -1) of one shape.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
/// x where target is 1, max(0, margin - x) where it is -1; input and target of one shape.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});
/// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1; inputs [N, D]
/// with target [N], or [D] with a 0-dim target.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});
/// log(1 + exp(-target x)) (computed without overflow); input and target of one shape.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options = {});
/// -(t log(sigmoid(x)) + (1 - t) log(sigmoid(-x))), weighted per class, averaged over the classes
/// (the last dim): input and target [N, C] (or [C]) give [N] (or a 0-dim) before the reduction.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultiLabelSoftMarginLossFuncOptions& options = {});
/// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise distance over the
/// last dim; the three inputs of one number of dims.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});
/// exp(x) - t x (log_input), or x - t log(x + eps); plus Stirling's term with full.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options = {});
/// 0.5 (log(var) + (x - t)^2 / var) (+ 0.5 log(2 pi) with full). var has input's shape, or it
/// without the last dim, or with a last dim of 1; its entries must not be negative.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& options = {});
/// Per row of input [N, C] (or [C]) and int64 class target y [N] (or 0-dim): the sum over
/// classes j != y of w[y] max(0, margin - x[y] + x[j])^p, divided by C.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options = {});
/// Per row of input [N, C] (or [C]) and int64 target of the same shape (class indices, ended by
/// the first -1): the sum over targets j and non-targets k of max(0, 1 - (x[j] - x[k])), over C.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultiLabelMarginLossFuncOptions& options = {});
/// sum(x1 x2) / sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along dim; x1 and x2 broadcast.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
/// The p-norm of x1 - x2 + eps over the last dim; x1 and x2 broadcast.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});
/// locus::pdist: the p-norm distances between the rows of input [N, M], pairs i < j.
Tensor pdist(const Tensor& input, double p = 2.0);

}  // namespace locus::nn::functional
