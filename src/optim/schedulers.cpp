// Learning-rate schedulers (closed forms of PyTorch's).
#include "locus/optim/schedulers.h"

#include <cmath>
#include <numbers>

#include "locus/error.h"

namespace locus::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (const auto& g : optimizer.param_groups()) base_lrs_.push_back(g.options().get_lr());
}

void LRScheduler::step() {
  ++step_count_;
  std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) groups[i].options().set_lr(lrs[i]);
}

std::vector<double> LRScheduler::get_last_lr() const {
  std::vector<double> out;
  for (const auto& g : optimizer_.param_groups()) out.push_back(g.options().get_lr());
  return out;
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  if (step_size == 0) throw Error("StepLR: step_size must be positive.");
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> out;
  for (double b : base_lrs_) out.push_back(b * std::pow(gamma_, static_cast<double>(step_count_ / step_size_)));
  return out;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, unsigned T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  if (T_max == 0) throw Error("CosineAnnealingLR: T_max must be positive.");
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  std::vector<double> out;
  double t = static_cast<double>(step_count_) / static_cast<double>(t_max_);
  for (double b : base_lrs_) out.push_back(eta_min_ + (b - eta_min_) * (1 + std::cos(std::numbers::pi * t)) / 2);
  return out;
}

}  // namespace locus::optim
