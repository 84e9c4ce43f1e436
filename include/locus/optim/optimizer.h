#pragma once
// Optimizer base, parameter groups and per-parameter state (libtorch's torch::optim::Optimizer).
//
// Parameters are held by handle (the same TensorImpl as the module's), so moving a module with
// module->to(device) after building its optimizer is fine: state tensors (momentum, moments) are
// created on the parameter's device at the first step and follow the parameter to a new device
// or dtype at the next step. zero_grad() sets gradients to undefined by default (PyTorch 2).
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "locus/nn/ordered_dict.h"
#include "locus/tensor.h"

namespace locus::serialize {
class OutputArchive;
class InputArchive;
}  // namespace locus::serialize

namespace locus::optim {

class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
};

class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& g)
      : params_(g.params_), options_(g.options_ ? g.options_->clone() : nullptr) {}
  OptimizerParamGroup& operator=(const OptimizerParamGroup& g) {
    params_ = g.params_;
    options_ = g.options_ ? g.options_->clone() : nullptr;
    return *this;
  }
  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options() { return *options_; }
  const OptimizerOptions& options() const { return *options_; }
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// State of one parameter: a step count and named tensors on the parameter's device.
struct ParamState {
  int64_t step = 0;
  OrderedDict<std::string, Tensor> tensors{"State"};
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  /// One update of every parameter that has a gradient. The closure, when given, is called first
  /// (with grad mode on) and its loss returned.
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Sets gradients to undefined (default) or to zero.
  void zero_grad(bool set_to_none = true);
  /// All parameters, in group order.
  std::vector<Tensor> parameters() const;
  size_t size() const noexcept;
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  /// The per-parameter state, keyed by the parameter's TensorImpl as libtorch's Optimizer::state()
  /// (`opt.state().count(p.unsafeGetTensorImpl())`); a value is locus's ParamState (the step and
  /// the named state tensors), not libtorch's per-optimizer OptimizerParamState classes. Empty
  /// until the first step() that finds a gradient.
  std::unordered_map<const void*, ParamState>& state() noexcept { return state_; }
  const std::unordered_map<const void*, ParamState>& state() const noexcept { return state_; }

  /// State as tensors: "state.<i>.step" (0-dim int64 on cpu), "state.<i>.<name>" (on the
  /// parameter's device) for parameter i in group order, and "param_groups.<g>.lr" (0-dim double).
  OrderedDict<std::string, Tensor> state_dict() const;
  void load_state_dict(const OrderedDict<std::string, Tensor>& state_dict);

  /// libtorch's Optimizer::save / load: state_dict()'s entries written into (read from) an archive
  /// (locus/archive.h), at its top level, so a model's tensors may share it. load also reads what
  /// libtorch's Optimizer::save wrote (serialize.h: load(optimizer, path)); nothing changes when
  /// the state does not fit (CheckpointError).
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

 protected:
  /// The state of `p`, with its tensors moved to p's device and dtype if p moved since.
  ParamState& state_for(const Tensor& p);
  /// A state tensor, created as zeros like `p` on first use.
  Tensor& state_tensor(ParamState& s, const std::string& name, const Tensor& p);
  /// What a step does first: calls `closure`, when given, with grad mode on and returns its loss
  /// (an undefined tensor without one).
  static Tensor call_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<const void*, ParamState> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

/// archive << optimizer, archive >> optimizer (libtorch's): Optimizer::save / load.
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer);
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer);

}  // namespace locus::optim
