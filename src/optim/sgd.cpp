// SGD, as torch.optim.SGD.
#include "locus/optim/sgd.h"

#include "locus/autograd.h"
#include "locus/error.h"

namespace locus::optim {

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  if (defaults.lr() < 0) throw Error("SGD: Invalid learning rate: " + std::to_string(defaults.lr()));
  if (defaults.nesterov() && (defaults.momentum() <= 0 || defaults.dampening() != 0))
    throw Error("SGD: Nesterov momentum requires a momentum and zero dampening");
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    auto& o = static_cast<SGDOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor d = p.grad();
      if (o.weight_decay() != 0) d = d + p * o.weight_decay();
      if (o.momentum() != 0) {
        ParamState& s = state_for(p);
        Tensor* buf = s.tensors.find("momentum_buffer");
        if (buf == nullptr) {
          buf = &s.tensors.insert("momentum_buffer", d.clone());
        } else {
          buf->mul_(o.momentum()).add_(d, 1 - o.dampening());
        }
        d = o.nesterov() ? d + *buf * o.momentum() : *buf;
      }
      p.add_(d, -o.lr());
    }
  }
  return loss;
}

}  // namespace locus::optim
