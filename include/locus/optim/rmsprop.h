#pragma once
// RMSprop with momentum, centering and weight decay (libtorch's torch::optim::RMSprop).
#include "locus/nn/module.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

struct RMSpropOptions : public OptimizerOptions {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  LOCUS_ARG(double, alpha) = 0.99;
  LOCUS_ARG(double, eps) = 1e-8;
  LOCUS_ARG(double, weight_decay) = 0;
  LOCUS_ARG(double, momentum) = 0;
  LOCUS_ARG(bool, centered) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<RMSpropOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

/// torch.optim.RMSprop: square_avg = alpha * square_avg + (1 - alpha) * g^2; the step divides g
/// by sqrt(square_avg) + eps (centered: sqrt(square_avg - grad_avg^2) + eps), through a momentum
/// buffer when momentum > 0. State per parameter: "square_avg", "momentum_buffer", "grad_avg".
/// All or nothing, as SGD and Adam: a failure during a step changes no parameter and no state.
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace locus::optim
