// SGD, as torch.optim.SGD.
#include "locus/optim/sgd.h"

#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "ops/internal.h"

namespace locus::optim {

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  if (defaults.lr() < 0) throw Error("SGD: Invalid learning rate: " + std::to_string(defaults.lr()));
  if (defaults.nesterov() && (defaults.momentum() <= 0 || defaults.dampening() != 0))
    throw Error("SGD: Nesterov momentum requires a momentum and zero dampening");
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = call_closure(closure);
  NoGradGuard no_grad;
  // All or nothing, as Adam (adam.cpp): every parameter's new value and momentum buffer are
  // computed into new tensors first (an allocation or launch can fail there, nothing is written),
  // then committed by ops::commit_into, which swaps the memory and cannot fail.
  struct Update {
    Tensor p, np, buf, nbuf;  // buf: the momentum buffer, undefined before the first step
    ParamState* s = nullptr;
  };
  std::vector<Update> updates;
  try {
    for (auto& group : param_groups_) {
      auto& o = static_cast<SGDOptions&>(group.options());
      for (Tensor& p : group.params()) {
        if (!p.grad().defined()) continue;
        Update& u = updates.emplace_back();
        u.p = p;
        Tensor d = p.grad();
        if (o.weight_decay() != 0) d = d + p * o.weight_decay();
        if (o.momentum() != 0) {
          u.s = &state_for(p);
          if (Tensor* buf = u.s->tensors.find("momentum_buffer")) {
            u.buf = *buf;
            u.nbuf = buf->mul(o.momentum());
            u.nbuf.add_(d, 1 - o.dampening());
          } else {
            u.nbuf = d.clone();
          }
          d = o.nesterov() ? d + u.nbuf * o.momentum() : u.nbuf;
        }
        u.np = p.add(d, -o.lr());
      }
    }
  } catch (...) {
    for (Update& u : updates)  // a parameter's first step: leave no empty state behind
      if (u.s != nullptr && u.s->tensors.is_empty()) state_.erase(u.p.unsafeGetTensorImpl());
    throw;
  }
  for (Update& u : updates) {
    if (u.s != nullptr) {
      if (u.buf.defined()) ops::commit_into(u.buf, u.nbuf);
      else u.s->tensors.insert("momentum_buffer", u.nbuf);
    }
    ops::commit_into(u.p, u.np);
  }
  return loss;
}

}  // namespace locus::optim
