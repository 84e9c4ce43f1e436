#pragma once
// SGD with momentum, dampening, Nesterov and weight decay (libtorch's torch::optim::SGD).
#include "locus/nn/module.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

struct SGDOptions : public OptimizerOptions {
  SGDOptions(double lr) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  LOCUS_ARG(double, momentum) = 0;
  LOCUS_ARG(double, dampening) = 0;
  LOCUS_ARG(double, weight_decay) = 0;
  LOCUS_ARG(bool, nesterov) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace locus::optim
