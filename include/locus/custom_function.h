#pragma once
// Custom autograd functions, as libtorch's torch::autograd::Function:
//
//   struct MulConstant : locus::autograd::Function<MulConstant> {
//     static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
//       return {grad_outputs[0] * ctx->saved_data["c"].toDouble(), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 5.5);
//
// apply() runs forward with grad mode off; when grad mode is on and a tensor argument requires
// grad, the outputs get one node ("MulConstantBackward", as PyTorch names a Python Function's; in
// libtorch it is "torch::autograd::CppNode<MulConstant>") whose backward is
// T::backward. backward gets one gradient per output (zeros for an output that got none, unless
// ctx->set_materialize_grads(false)) and returns one per forward argument, undefined (Tensor())
// for the arguments that are not tensors; a vector<Tensor> argument counts one per element. A
// gradient of the wrong count, shape or device is a locus::Error naming the function.
// Differences from libtorch: a saved tensor that is also an output comes back from
// get_saved_variables() without its grad_fn (saving it whole would make a reference cycle), so
// such a function is differentiable once, not twice.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "locus/autograd.h"
#include "locus/ivalue.h"
#include "locus/tensor.h"

namespace locus::autograd {

/// What forward hands to backward (libtorch's AutogradContext).
struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /// Tensors backward needs; get_saved_variables() returns them (once the graph has been run
  /// without retain_graph, asking again is an error).
  void save_for_backward(variable_list to_save);
  variable_list get_saved_variables() const;
  /// Inputs forward modified in place (and returns): they become outputs of this function.
  void mark_dirty(const variable_list& inputs);
  /// Outputs that are not differentiable (indices, masks): they get no grad_fn, and backward gets
  /// zeros (or undefined tensors) for them.
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether backward gets zeros for outputs without a gradient (true) or undefined tensors.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether tensor argument `index` (counting tensor arguments only) needs a gradient.
  bool needs_input_grad(size_t index) const { return index < needs_input_grad_.size() && needs_input_grad_[index]; }

  /// Anything else backward needs: numbers, strings, shapes.
  std::unordered_map<std::string, IValue> saved_data;

  // ---- used by Function<T>::apply and its node (not part of libtorch's API) ----
  struct Internal;

 private:
  friend struct Internal;
  variable_list saved_;
  bool released_ = false;
  bool materialize_grads_ = true;
  std::vector<const void*> dirty_, non_differentiable_;  // TensorImpl identities
  std::vector<bool> needs_input_grad_;
  std::string name_;
};

namespace detail {

// The tensors among apply()'s arguments, in order, and per argument whether it was one.
struct ArgTensors {
  variable_list tensors;
  std::vector<bool> is_tensor;  // per forward argument (a vector<Tensor> adds one per element)
  void add(const Tensor& t) { tensors.push_back(t), is_tensor.push_back(true); }
  void add(const std::optional<Tensor>& t) { add(t.value_or(Tensor())); }
  void add(const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) add(t);
  }
  template <class A>
  void add(const A&) {
    is_tensor.push_back(false);
  }
};

using CustomBackward = variable_list (*)(AutogradContext*, variable_list);

/// Before forward: fills ctx's needs_input_grad and name; returns whether the graph is recorded.
bool custom_prepare(AutogradContext& ctx, const std::string& name, const ArgTensors& args);
/// After forward (src/autograd/custom_function.cpp): gives the outputs their node and returns
/// them (an output that is an unmodified input comes back as a new alias of it).
variable_list custom_finish(std::shared_ptr<AutogradContext> ctx, ArgTensors args, variable_list outputs,
                            bool record, CustomBackward backward);
/// The demangled name of a type ("LinearFunction").
std::string type_name(const char* mangled);

template <class R>
variable_list to_list(R&& r) {
  if constexpr (std::is_same_v<std::decay_t<R>, Tensor>) return {std::forward<R>(r)};
  else return variable_list(std::forward<R>(r));
}

}  // namespace detail

/// Base of a custom function T with static forward(AutogradContext*, args...) (returning a
/// Tensor or a variable_list) and static backward(AutogradContext*, variable_list).
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto ctx = std::make_shared<AutogradContext>();
    detail::ArgTensors tensors;
    (tensors.add(args), ...);
    const bool record = detail::custom_prepare(*ctx, detail::type_name(typeid(T).name()), tensors);
    using R = std::decay_t<decltype(T::forward(ctx.get(), std::forward<Args>(args)...))>;
    static_assert(std::is_same_v<R, Tensor> || std::is_same_v<R, variable_list>,
                  "forward must return a Tensor or a variable_list (std::vector<Tensor>)");
    variable_list out;
    {
      AutoGradMode no_grad(false);
      out = detail::to_list(T::forward(ctx.get(), std::forward<Args>(args)...));
    }
    out = detail::custom_finish(std::move(ctx), std::move(tensors), std::move(out), record,
                                [](AutogradContext* c, variable_list g) { return T::backward(c, std::move(g)); });
    if constexpr (std::is_same_v<R, Tensor>) return out.at(0);
    else return out;
  }
};

}  // namespace locus::autograd
