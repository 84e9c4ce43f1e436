// Optimizer base: groups, state that follows its parameter, zero_grad, state_dict.
#include "locus/optim/optimizer.h"

#include "core/checks.h"
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

Tensor Optimizer::call_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable(true);
  return closure();
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

namespace {
// The decimal index that starts `key` at `at` (up to the next '.' or the end), or -1.
int64_t index_at(const std::string& key, size_t at, size_t* end) {
  size_t e = key.find('.', at);
  if (e == std::string::npos) e = key.size();
  *end = e;
  if (e == at || e - at > 9) return -1;
  int64_t v = 0;
  for (size_t k = at; k < e; ++k) {
    if (key[k] < '0' || key[k] > '9') return -1;
    v = v * 10 + (key[k] - '0');
  }
  return v;
}
}  // namespace

void Optimizer::load_state_dict(const OrderedDict<std::string, Tensor>& sd) {
  NoGradGuard no_grad;
  std::vector<Tensor> params = parameters();
  // everything is checked before anything changes: a bad state leaves the optimizer as it was
  struct Entry {
    int64_t index;     // the param group (lr) or the parameter
    std::string name;  // "lr", "step" or a state tensor's name
    Tensor value;
  };
  std::vector<Entry> groups, states;
  for (const auto& item : sd) {
    const std::string& key = item.key();
    const Tensor& v = item.value();
    const bool group = key.rfind("param_groups.", 0) == 0;
    if (!group && key.rfind("state.", 0) != 0)
      throw Error("[load_state_dict] unexpected key '" + key +
                  "'. An optimizer's state has only 'state.<i>.<name>' and 'param_groups.<g>.lr' entries.");
    size_t end = 0;
    const int64_t i = index_at(key, group ? 13 : 6, &end);
    const std::string name = end < key.size() ? key.substr(end + 1) : "";
    if (i < 0 || name.empty())
      throw Error("[load_state_dict] malformed key '" + key + "': expected '" +
                  (group ? "param_groups.<g>.lr" : "state.<i>.<name>") + "' with a decimal index.");
    if (!v.defined()) throw Error("[load_state_dict] '" + key + "' holds no tensor.");
    if (group) {
      if (static_cast<size_t>(i) >= param_groups_.size())
        throw Error("[load_state_dict] '" + key + "' names a missing param group. The optimizer has " +
                    std::to_string(param_groups_.size()) + ".");
      if (name != "lr") throw Error("[load_state_dict] unexpected key '" + key + "': a param group stores only its lr.");
      if (v.numel() != 1)
        throw Error("[load_state_dict] '" + key + "' must hold one number, got a tensor of shape " +
                    shape_str(v.sizes()) + ".");
      groups.push_back({i, name, v});
      continue;
    }
    if (static_cast<size_t>(i) >= params.size())
      throw Error("[load_state_dict] '" + key + "' names parameter " + std::to_string(i) + " but the optimizer has " +
                  std::to_string(params.size()) + ".");
    const Tensor& p = params[static_cast<size_t>(i)];
    if (name == "step" ? v.numel() != 1 : v.sizes() != p.sizes())
      throw Error("[load_state_dict] '" + key + "' has shape " + shape_str(v.sizes()) + " but " +
                  (name == "step" ? std::string("a step is one number")
                                  : "parameter " + std::to_string(i) + " has shape " + shape_str(p.sizes())) +
                  "; was the state saved from an optimizer over other parameters, or in another order?");
    states.push_back({i, name, v});
  }
  for (const Entry& e : groups) param_groups_[static_cast<size_t>(e.index)].options().set_lr(e.value.item<double>());
  for (const Entry& e : states) {
    const Tensor& p = params[static_cast<size_t>(e.index)];
    ParamState& s = state_[p.unsafeGetTensorImpl()];
    if (e.name == "step") s.step = e.value.item<int64_t>();
    else s.tensors.insert_or_assign(e.name, e.value.to(p.device(), p.scalar_type(), false, true));
  }
}

}  // namespace locus::optim
