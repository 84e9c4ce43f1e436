// Adam and AdamW, as torch.optim.Adam / AdamW (PyTorch 1.13, single-tensor path).
#include "locus/optim/adam.h"

#include <cmath>
#include <functional>
#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
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

// A step is all or nothing (docs/reliability.md): when it fails (out of memory, a launch or copy
// refused by the driver) no parameter and no state has changed. Three phases over every parameter:
//  1. the state each parameter needs (new zeros stay local until the commit);
//  2. the update, out of place, into new tensors: on a device whose fused kernel cannot fail
//     (Backend::adam_step_in_place: the cpu's) this is skipped, nothing is allocated;
//  3. the commit, which cannot fail: new state goes in, the fused in-place kernels run, and each
//     parameter and state tensor takes its new storage (ops::commit_into swaps the memory).
// Off the cpu the step holds the new parameters and moments of all parameters until the commit:
// three parameter-sized buffers per parameter at the peak, as PyTorch's foreach path.
struct Hyper {
  double lr, b1, b2, eps, wd;
  bool amsgrad, decoupled;
};

struct Update {
  Tensor p;
  ParamState* s = nullptr;
  Tensor m, v, mx;  // the state tensors (new zeros before the first step)
  bool new_state = false;
  bool in_place = false;
  Tensor np, nm, nv, nmx;  // off the in-place path: the values to commit
  Hyper h;
};

backend::Backend::Adam fused_args(const Hyper& h, int64_t step) {
  backend::Backend::Adam a;
  a.lr = h.lr, a.beta1 = h.b1, a.beta2 = h.b2, a.eps = h.eps, a.weight_decay = h.wd, a.decoupled = h.decoupled;
  a.bias_correction1 = 1 - std::pow(h.b1, static_cast<double>(step));
  a.bias_correction2 = 1 - std::pow(h.b2, static_cast<double>(step));
  return a;
}

// Phase 2 for one parameter: torch.optim.Adam's arithmetic (single-tensor path) into new tensors,
// by the backend's one-pass kernel where it has one (a GPU's: one launch), else composed.
void compute(Update& u) {
  const Hyper& h = u.h;
  backend::Backend::Adam a = fused_args(h, u.s->step + 1);
  Tensor g = u.p.grad();
  if (ops::fused_adam_into(u.p, g, u.m, u.v, h.amsgrad ? &u.mx : nullptr, u.np, u.nm, u.nv,
                           h.amsgrad ? &u.nmx : nullptr, a))
    return;
  if (h.wd != 0 && !h.decoupled) g = g + u.p * h.wd;
  u.nm = u.m.mul(h.b1);
  u.nm.add_(g, 1 - h.b1);
  u.nv = u.v.mul(h.b2);
  u.nv.add_(g * g, 1 - h.b2);
  Tensor denom;
  if (h.amsgrad) {
    u.nmx = locus::maximum(u.mx, u.nv);
    denom = u.nmx.sqrt() / std::sqrt(a.bias_correction2) + h.eps;
  } else {
    denom = u.nv.sqrt() / std::sqrt(a.bias_correction2) + h.eps;
  }
  Tensor step = u.nm / denom;
  if (h.wd != 0 && h.decoupled) {
    u.np = u.p.mul(1 - h.lr * h.wd);
    u.np.add_(step, -h.lr / a.bias_correction1);
  } else {
    u.np = u.p.add(step, -h.lr / a.bias_correction1);
  }
}

template <typename Options>
void adam_step_all(std::vector<OptimizerParamGroup>& groups, bool decoupled,
                   const std::function<ParamState&(const Tensor&)>& state_for,
                   const std::function<void(const Tensor&)>& forget) {
  std::vector<Update> updates;
  try {
    // phase 1
    for (auto& group : groups) {
      auto& o = static_cast<Options&>(group.options());
      auto [b1, b2] = o.betas();
      Hyper h{o.lr(), b1, b2, o.eps(), o.weight_decay(), o.amsgrad(), decoupled};
      for (Tensor& p : group.params()) {
        if (!p.grad().defined()) continue;
        Update& u = updates.emplace_back();
        u.p = p;
        u.h = h;
        u.s = &state_for(p);
        auto state = [&](const char* name) {
          if (Tensor* t = u.s->tensors.find(name)) return *t;
          u.new_state = true;
          return zeros(p.sizes(), TensorOptions().dtype(p.scalar_type()).device(p.device()));
        };
        u.m = state("exp_avg");
        u.v = state("exp_avg_sq");
        if (h.amsgrad) u.mx = state("max_exp_avg_sq");
        u.in_place = ops::fused_adam_in_place(p, p.grad(), u.m, u.v, h.amsgrad ? &u.mx : nullptr);
      }
    }
    // phase 2
    for (Update& u : updates)
      if (!u.in_place) compute(u);
  } catch (...) {
    for (Update& u : updates)  // a parameter's first step: leave no empty state behind
      if (u.s != nullptr && u.s->step == 0 && u.s->tensors.is_empty()) forget(u.p);
    throw;
  }
  // phase 3
  for (Update& u : updates) {
    if (u.new_state) {
      u.s->tensors.insert_or_assign("exp_avg", u.m);
      u.s->tensors.insert_or_assign("exp_avg_sq", u.v);
      if (u.h.amsgrad) u.s->tensors.insert_or_assign("max_exp_avg_sq", u.mx);
    }
    u.s->step += 1;
    if (u.in_place) {
      Tensor g = u.p.grad();
      ops::fused_adam_step(u.p, g, u.m, u.v, u.h.amsgrad ? &u.mx : nullptr, fused_args(u.h, u.s->step));
      continue;
    }
    ops::commit_into(u.p, u.np);
    ops::commit_into(u.m, u.nm);
    ops::commit_into(u.v, u.nv);
    if (u.h.amsgrad) ops::commit_into(u.mx, u.nmx);
  }
}

}  // namespace

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  check(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay(), "Adam");
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = call_closure(closure);
  NoGradGuard no_grad;
  adam_step_all<AdamOptions>(param_groups_, false, [this](const Tensor& p) -> ParamState& { return state_for(p); },
                           [this](const Tensor& p) { state_.erase(p.unsafeGetTensorImpl()); });
  return loss;
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  check(defaults.lr(), defaults.eps(), defaults.betas(), defaults.weight_decay(), "AdamW");
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = call_closure(closure);
  NoGradGuard no_grad;
  adam_step_all<AdamWOptions>(param_groups_, true, [this](const Tensor& p) -> ParamState& { return state_for(p); },
                           [this](const Tensor& p) { state_.erase(p.unsafeGetTensorImpl()); });
  return loss;
}

}  // namespace locus::optim
