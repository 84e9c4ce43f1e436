#pragma once
// nn::AnyModule (libtorch's torch::nn::AnyModule), reduced to what a libtorch program passes to the
// Transformer options (norm, custom_encoder, custom_decoder): any module with one (non-overloaded, non-template)
// forward, held by shared_ptr, its forward called with forward<ReturnType>(args...). An argument left out at
// the end is an undefined Tensor when forward takes a Tensor there (libtorch's modules default every Tensor
// argument to {}); any other argument left out is an Error. Arguments are converted to forward's parameter
// types (decayed) before the call; the result is any_cast to ReturnType (an Error when it is not that type).
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "locus/error.h"
#include "locus/nn/module.h"

namespace locus::nn {

class AnyModule {
 public:
  AnyModule() = default;
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(std::shared_ptr<M> module) : module_(module) {
    if (!module) return;
    forward_ = make_forward<M>(&M::forward);
    clone_ = [](const Module& m, const std::optional<Device>& device) {
      return AnyModule(std::dynamic_pointer_cast<M>(static_cast<const M&>(m).clone(device)));
    };
    type_ = &typeid(M);
  }
  template <typename M>
  AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}  // NOLINT: implicit, as libtorch's
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  explicit AnyModule(M&& module) : AnyModule(std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}

  bool is_empty() const noexcept { return module_ == nullptr; }
  /// The module itself.
  std::shared_ptr<Module> ptr() const {
    check("ptr");
    return module_;
  }
  /// The module as T (its Impl type); an Error when it holds another type.
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Module, T>>>
  std::shared_ptr<T> ptr() const {
    check("ptr");
    auto p = std::dynamic_pointer_cast<T>(module_);
    if (!p) throw Error("[AnyModule] ptr<T>(): the module is not a " + std::string(typeid(T).name()) + ".");
    return p;
  }
  /// get<LinearImpl>() gives the Impl (a reference), get<Linear>() the holder.
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Module, T>>>
  T& get() const {
    return *ptr<T>();
  }
  template <typename T, typename C = typename T::ContainedType>
  T get() const {
    return T(ptr<C>());
  }
  /// A deep copy (the module's clone), on `device` when given.
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const {
    check("clone");
    return clone_(*module_, device);
  }
  const std::type_info& type_info() const {
    check("type_info");
    return *type_;
  }
  /// forward(args...) as a std::any holding its result.
  template <typename... Args>
  std::any any_forward(Args&&... args) const {
    check("forward");
    std::vector<std::any> packed;
    (packed.emplace_back(std::forward<Args>(args)), ...);
    return forward_(*module_, packed);
  }
  /// forward(x) of a module of this one's type given as `m` (the held module or a clone of it),
  /// for a Sequential holding this AnyModule: an Error when that forward does not return a Tensor.
  std::function<Tensor(Module&, const Tensor&)> tensor_forward() const {
    check("forward");
    return [f = forward_](Module& m, const Tensor& x) -> Tensor {
      std::vector<std::any> packed{std::any(x)};
      std::any result = f(m, packed);
      if (const auto* r = std::any_cast<Tensor>(&result)) return *r;
      throw Error("[Sequential::forward] " + m.path() + " (" + m.type_name() +
                  ", held by an AnyModule) does not return a Tensor; call its forward yourself.");
    };
  }
  template <typename ReturnType = Tensor, typename... Args>
  ReturnType forward(Args&&... args) const {
    std::any result = any_forward(std::forward<Args>(args)...);
    if (const auto* r = std::any_cast<ReturnType>(&result)) return *r;
    throw Error("[AnyModule] forward: the module's forward returns another type than the one asked for "
                "(forward<ReturnType>).");
  }

 private:
  using Forward = std::function<std::any(Module&, std::vector<std::any>&)>;

  void check(const char* what) const {
    if (!module_)
      throw Error(std::string("[AnyModule] ") + what + "(): the AnyModule is empty; give it a module first.");
  }
  template <typename T>
  static std::decay_t<T> take(std::vector<std::any>& args, size_t i, size_t count) {
    using V = std::decay_t<T>;
    if (i >= args.size()) {
      if constexpr (std::is_same_v<V, Tensor>) return Tensor();
      throw Error("[AnyModule] forward: the module's forward takes " + std::to_string(count) +
                  " arguments and only Tensor ones may be left out; got " + std::to_string(args.size()) + ".");
    }
    if (auto* v = std::any_cast<V>(&args[i])) return *v;
    throw Error("[AnyModule] forward: argument " + std::to_string(i) + " does not have the type the module's forward "
                "takes there.");
  }
  template <typename M, typename R, typename C, typename... A, size_t... I>
  static Forward bind(R (C::*f)(A...), std::index_sequence<I...>) {
    return [f](Module& m, std::vector<std::any>& args) -> std::any {
      constexpr size_t count = sizeof...(A);
      if (args.size() > count)
        throw Error("[AnyModule] forward: the module's forward takes " + std::to_string(count) + " arguments, got " +
                    std::to_string(args.size()) + ".");
      if constexpr (std::is_void_v<R>) {
        (static_cast<M&>(m).*f)(take<A>(args, I, count)...);
        return {};
      } else {
        return std::any((static_cast<M&>(m).*f)(take<A>(args, I, count)...));
      }
    };
  }
  template <typename M, typename R, typename C, typename... A>
  static Forward make_forward(R (C::*f)(A...)) {
    return bind<M>(f, std::index_sequence_for<A...>{});
  }

  std::shared_ptr<Module> module_;
  Forward forward_;
  std::function<AnyModule(const Module&, const std::optional<Device>&)> clone_;
  const std::type_info* type_ = nullptr;
};

}  // namespace locus::nn
