#pragma once
// CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, BCELoss, KLDivLoss, L1Loss, SmoothL1Loss,
// HuberLoss.
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/module.h"

namespace locus::nn {

using CrossEntropyLossOptions = functional::CrossEntropyFuncOptions;
class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  void reset() override {}
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::cross_entropy(input, target, options); }
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
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::binary_cross_entropy(input, target, options); }
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
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::smooth_l1_loss(input, target, options); }
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

}  // namespace locus::nn
