#pragma once
// L-BFGS (libtorch's torch::optim::LBFGS, PyTorch's algorithm): a quasi-Newton step from the last
// history_size updates, with a fixed step or a strong-Wolfe line search, for full-batch problems.
#include <optional>
#include <string>
#include <vector>

#include "locus/nn/module.h"
#include "locus/optim/optimizer.h"

namespace locus::optim {

struct LBFGSOptions : public OptimizerOptions {
  LBFGSOptions(double lr = 1) : lr_(lr) {}
  LOCUS_ARG(double, lr);
  /// Iterations per step() call.
  LOCUS_ARG(int64_t, max_iter) = 20;
  /// Closure evaluations per step() call; unset means max_iter * 5 / 4.
  LOCUS_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  /// Stops when no gradient element is larger than this.
  LOCUS_ARG(double, tolerance_grad) = 1e-7;
  /// Stops when the step or the change of the loss is smaller than this.
  LOCUS_ARG(double, tolerance_change) = 1e-9;
  LOCUS_ARG(int64_t, history_size) = 100;
  /// "strong_wolfe", or unset for a fixed step of lr.
  LOCUS_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<LBFGSOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
};

/// One parameter group, every parameter on one device. step(closure) needs the closure, which
/// zeroes the gradients, computes the loss, calls backward and returns the loss; it is called
/// several times per step. Returns the first evaluation's loss. The history lives in the
/// optimizer (state_dict() holds the learning rate only).
class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {})
      : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, std::move(defaults)) {}
  Tensor step(LossClosure closure) override;
  /// Closure evaluations and iterations over every step() so far.
  int64_t func_evals() const { return func_evals_; }
  int64_t n_iter() const { return n_iter_; }

 private:
  Tensor flat_grad() const;
  void add_to_params(double step, const Tensor& direction);
  double evaluate(const LossClosure& closure, Tensor& grad);
  /// The strong-Wolfe search along d_ from the current parameters (loss, gradient g, slope gtd):
  /// moves the parameters by the step found (t_), updates loss and g, returns the evaluations.
  int64_t strong_wolfe(const LossClosure& closure, double& loss, Tensor& g, double gtd);

  int64_t func_evals_ = 0, n_iter_ = 0;
  double t_ = 0, prev_loss_ = 0, h_diag_ = 1;
  Tensor d_, prev_flat_grad_;
  std::vector<Tensor> old_dirs_, old_stps_;
  std::vector<double> ro_;
};

}  // namespace locus::optim
