#pragma once
// Adagrad (libtorch's torch::optim::Adagrad).
#include "locus/nn/module.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

struct AdagradOptions : public OptimizerOptions {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  LOCUS_ARG(double, lr_decay) = 0;
  LOCUS_ARG(double, weight_decay) = 0;
  LOCUS_ARG(double, initial_accumulator_value) = 0;
  LOCUS_ARG(double, eps) = 1e-10;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdagradOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

/// torch.optim.Adagrad: sum += g^2; p -= clr * g / (sqrt(sum) + eps), with
/// clr = lr / (1 + (step - 1) * lr_decay) and g = grad + weight_decay * p. As in PyTorch, every
/// parameter's state ("sum", filled with initial_accumulator_value, and step 0) exists from
/// construction (parameters of a group added later get theirs at their first step). All or
/// nothing, as the other optimizers: a failure during a step changes no parameter and no state.
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace locus::optim
