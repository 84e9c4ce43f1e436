#pragma once
// CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss.
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

}  // namespace locus::nn
