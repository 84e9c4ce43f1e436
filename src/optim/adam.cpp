// Adam and AdamW, as torch.optim.Adam / AdamW (PyTorch 1.13, single-tensor path).
#include "locus/optim/adam.h"

#include <cmath>
#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/functions.h"
#include "ops/internal.h"

namespace locus::optim {
namespace {

void check(double lr, double eps, const std::tuple<double, double>& betas, double wd, const char* name) {
  auto [b1, b2] = betas;
  if (lr < 0) throw Error(std::string(name) + ": Invalid learning rate: " + std::to_string(lr));
  if (eps < 0) throw Error(std::string(name) + ": Invalid epsilon value: " + std::to_string(eps));
  if (b1 < 0 || b1 >= 1) throw Error(std::string(name) + ": Invalid beta parameter at index 0: " + std::to_string(b1));
  if (b2 < 0 || b2 >= 1) throw Error(std::string(name) + ": Invalid beta parameter at index 1: " + std::to_string(b2));
  if (wd < 0) throw Error(std::string(name) + ": Invalid weight_decay value: " + std::to_string(wd));
}

// One Adam update of p; `decoupled` applies weight decay to p directly (AdamW).
void adam_update(Optimizer& opt, ParamState& s, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor* max_sq, Tensor& p,
                 double lr, double b1, double b2, double eps, double wd, bool decoupled) {
  Tensor g = p.grad();
  s.step += 1;
  double bc1 = 1 - std::pow(b1, static_cast<double>(s.step));
  double bc2 = 1 - std::pow(b2, static_cast<double>(s.step));
  backend::Backend::Adam a;
  a.lr = lr, a.beta1 = b1, a.beta2 = b2, a.eps = eps, a.weight_decay = wd, a.decoupled = decoupled;
  a.bias_correction1 = bc1, a.bias_correction2 = bc2;
  if (ops::fused_adam_step(p, g, exp_avg, exp_avg_sq, max_sq, a)) return;
  if (wd != 0) {
    if (decoupled) p.mul_(1 - lr * wd);
    else g = g + p * wd;
  }
  exp_avg.mul_(b1).add_(g, 1 - b1);
  exp_avg_sq.mul_(b2).add_(g * g, 1 - b2);
  Tensor denom;
  if (max_sq != nullptr) {
    max_sq->copy_(locus::maximum(*max_sq, exp_avg_sq));
    denom = max_sq->sqrt() / std::sqrt(bc2) + eps;
  } else {
    denom = exp_avg_sq.sqrt() / std::sqrt(bc2) + eps;
  }
  p.add_(exp_avg / denom, -lr / bc1);
}

}  // namespace

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  check(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay(), "Adam");
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    auto& o = static_cast<AdamOptions&>(group.options());
    auto [b1, b2] = o.betas();
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      ParamState& s = state_for(p);
      state_tensor(s, "exp_avg", p);
      state_tensor(s, "exp_avg_sq", p);
      if (o.amsgrad()) state_tensor(s, "max_exp_avg_sq", p);
      Tensor* mx = o.amsgrad() ? s.tensors.find("max_exp_avg_sq") : nullptr;
      Tensor& m2 = *s.tensors.find("exp_avg");
      Tensor& v2 = *s.tensors.find("exp_avg_sq");
      adam_update(*this, s, m2, v2, mx, p, o.lr(), b1, b2, o.eps(), o.weight_decay(), false);
    }
  }
  return loss;
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  check(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay(), "AdamW");
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    auto& o = static_cast<AdamWOptions&>(group.options());
    auto [b1, b2] = o.betas();
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      ParamState& s = state_for(p);
      state_tensor(s, "exp_avg", p);
      state_tensor(s, "exp_avg_sq", p);
      if (o.amsgrad()) state_tensor(s, "max_exp_avg_sq", p);
      Tensor* mx = o.amsgrad() ? s.tensors.find("max_exp_avg_sq") : nullptr;
      adam_update(*this, s, *s.tensors.find("exp_avg"), *s.tensors.find("exp_avg_sq"), mx, p, o.lr(), b1, b2, o.eps(),
                  o.weight_decay(), true);
    }
  }
  return loss;
}

}  // namespace locus::optim
