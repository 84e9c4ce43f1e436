#pragma once
// Adam and AdamW (libtorch's torch::optim::Adam / AdamW).
#include <tuple>

#include "locus/nn/module.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

using betas_t = std::tuple<double, double>;

struct AdamOptions : public OptimizerOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  LOCUS_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  LOCUS_ARG(double, eps) = 1e-8;
  LOCUS_ARG(double, weight_decay) = 0;
  LOCUS_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

/// Decoupled weight decay (default 1e-2): p -= lr * weight_decay * p before the Adam step.
struct AdamWOptions : public OptimizerOptions {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  LOCUS_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  LOCUS_ARG(double, eps) = 1e-8;
  LOCUS_ARG(double, weight_decay) = 1e-2;
  LOCUS_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace locus::optim
