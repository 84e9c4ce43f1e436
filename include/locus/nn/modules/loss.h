#pragma once
// CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, BCELoss, KLDivLoss, L1Loss, SmoothL1Loss,
// HuberLoss; and (functional_losses.h) MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss,
// SoftMarginLoss, MultiLabelSoftMarginLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss,
// MultiMarginLoss, MultiLabelMarginLoss, CosineSimilarity, PairwiseDistance.
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_losses.h"
#include "locus/nn/module.h"

namespace locus::nn {

using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  void reset() override {}
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::cross_entropy(input, target, options);
  }
  CrossEntropyLossOptions options;
};
LOCUS_MODULE(CrossEntropyLoss);

using NLLLossOptions = functional::NLLLossFuncOptions;
class NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  void reset() override {}
  explicit NLLLossImpl(const NLLLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::nll_loss(input, target, options); }
  NLLLossOptions options;
};
LOCUS_MODULE(NLLLoss);

using MSELossOptions = functional::MSELossFuncOptions;
class MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  void reset() override {}
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::mse_loss(input, target, options); }
  MSELossOptions options;
};
LOCUS_MODULE(MSELoss);

using BCEWithLogitsLossOptions = functional::BinaryCrossEntropyWithLogitsFuncOptions;
class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  void reset() override {}
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::binary_cross_entropy_with_logits(input, target, options);
  }
  BCEWithLogitsLossOptions options;
};
LOCUS_MODULE(BCEWithLogitsLoss);

using BCELossOptions = functional::BinaryCrossEntropyFuncOptions;
class BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  void reset() override {}
  explicit BCELossImpl(const BCELossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::binary_cross_entropy(input, target, options);
  }
  BCELossOptions options;
};
LOCUS_MODULE(BCELoss);

using KLDivLossOptions = functional::KLDivFuncOptions;
class KLDivLossImpl : public Cloneable<KLDivLossImpl> {
 public:
  void reset() override {}
  explicit KLDivLossImpl(const KLDivLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::kl_div(input, target, options); }
  KLDivLossOptions options;
};
LOCUS_MODULE(KLDivLoss);

using L1LossOptions = functional::L1LossFuncOptions;
class L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  void reset() override {}
  explicit L1LossImpl(const L1LossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::l1_loss(input, target, options); }
  L1LossOptions options;
};
LOCUS_MODULE(L1Loss);

using SmoothL1LossOptions = functional::SmoothL1LossFuncOptions;
class SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  void reset() override {}
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::smooth_l1_loss(input, target, options);
  }
  SmoothL1LossOptions options;
};
LOCUS_MODULE(SmoothL1Loss);

using HuberLossOptions = functional::HuberLossFuncOptions;
class HuberLossImpl : public Cloneable<HuberLossImpl> {
 public:
  void reset() override {}
  explicit HuberLossImpl(const HuberLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::huber_loss(input, target, options); }
  HuberLossOptions options;
};
LOCUS_MODULE(HuberLoss);


using MarginRankingLossOptions = functional::MarginRankingLossFuncOptions;
class MarginRankingLossImpl : public Cloneable<MarginRankingLossImpl> {
 public:
  void reset() override {}
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
  MarginRankingLossOptions options;
};
LOCUS_MODULE(MarginRankingLoss);

using HingeEmbeddingLossOptions = functional::HingeEmbeddingLossFuncOptions;
class HingeEmbeddingLossImpl : public Cloneable<HingeEmbeddingLossImpl> {
 public:
  void reset() override {}
  explicit HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::hinge_embedding_loss(input, target, options);
  }
  HingeEmbeddingLossOptions options;
};
LOCUS_MODULE(HingeEmbeddingLoss);

using CosineEmbeddingLossOptions = functional::CosineEmbeddingLossFuncOptions;
class CosineEmbeddingLossImpl : public Cloneable<CosineEmbeddingLossImpl> {
 public:
  void reset() override {}
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
  CosineEmbeddingLossOptions options;
};
LOCUS_MODULE(CosineEmbeddingLoss);

using SoftMarginLossOptions = functional::SoftMarginLossFuncOptions;
class SoftMarginLossImpl : public Cloneable<SoftMarginLossImpl> {
 public:
  void reset() override {}
  explicit SoftMarginLossImpl(const SoftMarginLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::soft_margin_loss(input, target, options);
  }
  SoftMarginLossOptions options;
};
LOCUS_MODULE(SoftMarginLoss);

using MultiLabelSoftMarginLossOptions = functional::MultiLabelSoftMarginLossFuncOptions;
class MultiLabelSoftMarginLossImpl : public Cloneable<MultiLabelSoftMarginLossImpl> {
 public:
  void reset() override {}
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::multilabel_soft_margin_loss(input, target, options);
  }
  MultiLabelSoftMarginLossOptions options;
};
LOCUS_MODULE(MultiLabelSoftMarginLoss);

using TripletMarginLossOptions = functional::TripletMarginLossFuncOptions;
class TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  void reset() override {}
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
  TripletMarginLossOptions options;
};
LOCUS_MODULE(TripletMarginLoss);

using PoissonNLLLossOptions = functional::PoissonNLLLossFuncOptions;
class PoissonNLLLossImpl : public Cloneable<PoissonNLLLossImpl> {
 public:
  void reset() override {}
  explicit PoissonNLLLossImpl(const PoissonNLLLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& log_input, const Tensor& target) {
    return functional::poisson_nll_loss(log_input, target, options);
  }
  PoissonNLLLossOptions options;
};
LOCUS_MODULE(PoissonNLLLoss);

using GaussianNLLLossOptions = functional::GaussianNLLLossFuncOptions;
class GaussianNLLLossImpl : public Cloneable<GaussianNLLLossImpl> {
 public:
  void reset() override {}
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var) {
    return functional::gaussian_nll_loss(input, target, var, options);
  }
  GaussianNLLLossOptions options;
};
LOCUS_MODULE(GaussianNLLLoss);

using MultiMarginLossOptions = functional::MultiMarginLossFuncOptions;
class MultiMarginLossImpl : public Cloneable<MultiMarginLossImpl> {
 public:
  void reset() override {}
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::multi_margin_loss(input, target, options);
  }
  MultiMarginLossOptions options;
};
LOCUS_MODULE(MultiMarginLoss);

using MultiLabelMarginLossOptions = functional::MultiLabelMarginLossFuncOptions;
class MultiLabelMarginLossImpl : public Cloneable<MultiLabelMarginLossImpl> {
 public:
  void reset() override {}
  explicit MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::multilabel_margin_loss(input, target, options);
  }
  MultiLabelMarginLossOptions options;
};
LOCUS_MODULE(MultiLabelMarginLoss);

using CosineSimilarityOptions = functional::CosineSimilarityFuncOptions;
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  void reset() override {}
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::cosine_similarity(input1, input2, options);
  }
  CosineSimilarityOptions options;
};
LOCUS_MODULE(CosineSimilarity);

using PairwiseDistanceOptions = functional::PairwiseDistanceFuncOptions;
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  void reset() override {}
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::pairwise_distance(input1, input2, options);
  }
  PairwiseDistanceOptions options;
};
LOCUS_MODULE(PairwiseDistance);

}  // namespace locus::nn
