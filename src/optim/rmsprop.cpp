// RMSprop, as torch.optim.RMSprop (single-tensor path).
#include "locus/optim/rmsprop.h"

#include <cmath>
#include <string>
#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "ops/internal.h"

namespace locus::optim {

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  auto check = [](bool ok, const std::string& what) {
    if (!ok) throw Error("RMSprop: Invalid " + what);
  };
  check(defaults.lr() >= 0, "learning rate: " + std::to_string(defaults.lr()));
  check(defaults.eps() >= 0, "epsilon value: " + std::to_string(defaults.eps()));
  check(defaults.momentum() >= 0, "momentum value: " + std::to_string(defaults.momentum()));
  check(defaults.weight_decay() >= 0, "weight_decay value: " + std::to_string(defaults.weight_decay()));
  check(defaults.alpha() >= 0, "alpha value: " + std::to_string(defaults.alpha()));
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = call_closure(closure);
  NoGradGuard no_grad;
  // As SGD and Adam: every new value is computed into new tensors first, then committed by
  // ops::commit_into (swaps the memory, cannot fail); state made at a first step is inserted last.
  struct Update {
    Tensor p, np;
    ParamState* s = nullptr;
    std::vector<std::pair<std::string, Tensor>> fresh;      // state tensors of a first step
    std::vector<std::pair<Tensor, Tensor>> replace;         // (existing state tensor, new value)
    bool first = false;
  };
  std::vector<Update> updates;
  try {
    for (auto& group : param_groups_) {
      auto& o = static_cast<RMSpropOptions&>(group.options());
      for (Tensor& p : group.params()) {
        if (!p.grad().defined()) continue;
        Update& u = updates.emplace_back();
        u.p = p;
        u.s = &state_for(p);
        u.first = u.s->tensors.is_empty();
        Tensor g = p.grad();
        if (o.weight_decay() != 0) g = g + p * o.weight_decay();
        auto next = [&](const char* name, const Tensor& value) {
          if (Tensor* t = u.s->tensors.find(name)) u.replace.emplace_back(*t, value);
          else u.fresh.emplace_back(name, value);
        };
        auto current = [&](const char* name) -> Tensor {
          if (Tensor* t = u.s->tensors.find(name)) return *t;
          return zeros_like(p);
        };
        Tensor sq = current("square_avg") * o.alpha() + g * g * (1 - o.alpha());
        next("square_avg", sq);
        Tensor avg;
        if (o.centered()) {
          Tensor ga = current("grad_avg") * o.alpha() + g * (1 - o.alpha());
          next("grad_avg", ga);
          avg = (sq - ga * ga).sqrt() + o.eps();
        } else {
          avg = sq.sqrt() + o.eps();
        }
        if (o.momentum() > 0) {
          Tensor buf = current("momentum_buffer") * o.momentum() + g / avg;
          next("momentum_buffer", buf);
          u.np = p.add(buf, -o.lr());
        } else {
          u.np = p.add(g / avg, -o.lr());
        }
      }
    }
  } catch (...) {
    for (Update& u : updates)  // a parameter's first step: leave no empty state behind
      if (u.first && u.s != nullptr && u.s->tensors.is_empty()) state_.erase(u.p.unsafeGetTensorImpl());
    throw;
  }
  for (Update& u : updates) {
    for (auto& [old, value] : u.replace) ops::commit_into(old, value);
    for (auto& [name, value] : u.fresh) u.s->tensors.insert(name, value);
    u.s->step += 1;
    ops::commit_into(u.p, u.np);
  }
  return loss;
}

}  // namespace locus::optim
