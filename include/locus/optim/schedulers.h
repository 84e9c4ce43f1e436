#pragma once
// Learning-rate schedulers. step() is called once per epoch after optimizer.step(); after n calls
// the learning rates are those of PyTorch's scheduler after n steps.
#include <vector>

#include "locus/optim/optimizer.h"

namespace locus::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  void step();
  /// The learning rate of every param group.
  std::vector<double> get_last_lr() const;

 protected:
  /// Learning rates after `step_count_` steps.
  virtual std::vector<double> get_lrs() = 0;
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  unsigned step_count_ = 0;
};

/// lr = base_lr * gamma^(steps / step_size).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;
  unsigned step_size_;
  double gamma_;
};

/// lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * steps / T_max)) / 2.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, unsigned T_max, double eta_min = 0);

 private:
  std::vector<double> get_lrs() override;
  unsigned t_max_;
  double eta_min_;
};

}  // namespace locus::optim
