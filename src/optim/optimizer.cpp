// Optimizer base: groups, state that follows its parameter, zero_grad, state_dict.
#include "locus/optim/optimizer.h"

#include "core/tensor_impl.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"

namespace locus::optim {

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& g : param_groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  OptimizerParamGroup g(param_group.params());
  g.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  for (const Tensor& p : g.params()) {
    if (!p.defined()) throw Error("Optimizer: a parameter is undefined.");
    if (!p.is_leaf()) throw Error("Optimizer: can't optimize a non-leaf Tensor; pass leaves (parameters) only.");
    for (const auto& other : param_groups_)
      for (const Tensor& q : other.params())
        if (q.is_same(p)) throw Error("Optimizer: some parameters appear in more than one parameter group.");
  }
  param_groups_.push_back(std::move(g));
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& g : param_groups_)
    for (Tensor& p : g.params()) {
      Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) grad = Tensor();
      else grad.zero_();
    }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  for (const auto& g : param_groups_) out.insert(out.end(), g.params().begin(), g.params().end());
  return out;
}

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& g : param_groups_) n += g.params().size();
  return n;
}

ParamState& Optimizer::state_for(const Tensor& p) {
  ParamState& s = state_[p.unsafeGetTensorImpl()];
  for (auto& t : s.tensors) {
    Tensor& v = t.value();
    if (v.device() != p.device() || v.scalar_type() != p.scalar_type()) v = v.to(p.device(), p.scalar_type());
  }
  return s;
}

Tensor& Optimizer::state_tensor(ParamState& s, const std::string& name, const Tensor& p) {
  if (Tensor* t = s.tensors.find(name)) return *t;
  return s.tensors.insert(name, zeros(p.sizes(), TensorOptions().dtype(p.scalar_type()).device(p.device())));
}

OrderedDict<std::string, Tensor> Optimizer::state_dict() const {
  OrderedDict<std::string, Tensor> out("State");
  size_t i = 0;
  for (const auto& g : param_groups_)
    for (const Tensor& p : g.params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        out.insert("state." + std::to_string(i) + ".step", full({}, it->second.step, TensorOptions().dtype(kLong)));
        for (const auto& t : it->second.tensors) out.insert("state." + std::to_string(i) + "." + t.key(), t.value());
      }
      ++i;
    }
  for (size_t k = 0; k < param_groups_.size(); ++k)
    out.insert("param_groups." + std::to_string(k) + ".lr",
               full({}, param_groups_[k].options().get_lr(), TensorOptions().dtype(kDouble)));
  return out;
}

void Optimizer::load_state_dict(const OrderedDict<std::string, Tensor>& sd) {
  NoGradGuard no_grad;
  std::vector<Tensor> params = parameters();
  for (const auto& item : sd) {
    const std::string& key = item.key();
    if (key.rfind("param_groups.", 0) == 0) {
      size_t g = std::stoul(key.substr(13, key.find('.', 13) - 13));
      if (g >= param_groups_.size()) throw Error("[load_state_dict] '" + key + "' names a missing param group.");
      param_groups_[g].options().set_lr(item.value().item<double>());
      continue;
    }
    if (key.rfind("state.", 0) != 0) throw Error("[load_state_dict] unexpected key '" + key + "'.");
    size_t dot = key.find('.', 6);
    size_t i = std::stoul(key.substr(6, dot - 6));
    if (i >= params.size())
      throw Error("[load_state_dict] '" + key + "' names parameter " + std::to_string(i) + " but the optimizer has " +
                  std::to_string(params.size()) + ".");
    std::string name = key.substr(dot + 1);
    ParamState& s = state_[params[i].unsafeGetTensorImpl()];
    if (name == "step") s.step = item.value().item<int64_t>();
    else s.tensors.insert_or_assign(name, item.value().to(params[i].device(), params[i].scalar_type(), false, true));
  }
}

}  // namespace locus::optim
