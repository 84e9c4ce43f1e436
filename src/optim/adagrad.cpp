// Adagrad, as torch.optim.Adagrad (single-tensor path, dense gradients).
#include "locus/optim/adagrad.h"

#include <string>
#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "ops/internal.h"

namespace locus::optim {

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  auto check = [](bool ok, const std::string& what, double v) {
    if (!ok) throw Error("Adagrad: Invalid " + what + ": " + std::to_string(v));
  };
  check(defaults.lr() >= 0, "learning rate", defaults.lr());
  check(defaults.lr_decay() >= 0, "lr_decay value", defaults.lr_decay());
  check(defaults.weight_decay() >= 0, "weight_decay value", defaults.weight_decay());
  check(defaults.initial_accumulator_value() >= 0, "initial_accumulator_value value",
        defaults.initial_accumulator_value());
  check(defaults.eps() >= 0, "epsilon value", defaults.eps());
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const double init = static_cast<AdagradOptions&>(group.options()).initial_accumulator_value();
    for (const Tensor& p : group.params()) state_for(p).tensors.insert("sum", full_like(p, init));
  }
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = call_closure(closure);
  NoGradGuard no_grad;
  // As the other optimizers: new values are computed into new tensors first, then committed by
  // ops::commit_into (swaps the memory, cannot fail).
  struct Update {
    Tensor p, np, sum;
    ParamState* s = nullptr;
    Tensor* old_sum = nullptr;
  };
  std::vector<Update> updates;
  try {
    for (auto& group : param_groups_) {
      auto& o = static_cast<AdagradOptions&>(group.options());
      for (Tensor& p : group.params()) {
        if (!p.grad().defined()) continue;
        Update& u = updates.emplace_back();
        u.p = p;
        u.s = &state_for(p);
        u.old_sum = u.s->tensors.find("sum");
        Tensor sum = u.old_sum != nullptr ? *u.old_sum : full_like(p, o.initial_accumulator_value());
        Tensor g = p.grad();
        if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
        const double clr = o.lr() / (1 + static_cast<double>(u.s->step) * o.lr_decay());
        u.sum = sum.addcmul(g, g);
        u.np = p.addcdiv(g, u.sum.sqrt() + o.eps(), -clr);
      }
    }
  } catch (...) {
    for (Update& u : updates)  // a parameter added since construction: leave no empty state behind
      if (u.s != nullptr && u.s->tensors.is_empty()) state_.erase(u.p.unsafeGetTensorImpl());
    throw;
  }
  for (Update& u : updates) {
    if (u.old_sum != nullptr) ops::commit_into(*u.old_sum, u.sum);
    else u.s->tensors.insert("sum", u.sum);
    u.s->step += 1;
    ops::commit_into(u.p, u.np);
  }
  return loss;
}

}  // namespace locus::optim
