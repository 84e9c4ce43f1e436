#pragma once
// Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict and Functional (a function as a
// module).
#include <concepts>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/any.h"

namespace locus::nn {

/// Wraps a function Tensor -> Tensor as a module (libtorch's nn::Functional).
class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  void reset() override {}
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  /// A function of (input, args...) with the other arguments bound, as libtorch's:
  /// Functional(torch::max_pool2d, 3, 2, 0, 1, false), Functional(torch::leaky_relu, 0.2).
  template <typename SomeFunction, typename... Args, typename = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : function_(std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...)) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input) { return function_(std::move(input)); }

 private:
  Function function_;
};
LOCUS_MODULE(Functional);

namespace detail {
using SequentialForward = std::function<Tensor(Module&, const Tensor&)>;
// An index into a container of `size` modules, or an Error naming the container and the range.
inline size_t checked_index(const char* who, size_t index, size_t size) {
  if (index >= size)
    throw Error(std::string("[") + who + "] index " + std::to_string(index) + " is out of range for " +
                std::to_string(size) + " modules.");
  return index;
}
// How a Sequential runs a child of type M: by type, not by object, so that a clone of the child
// (the same type) runs with it.
template <typename M>
SequentialForward sequential_forward() {
  if constexpr (requires(M& m, const Tensor& x) { { m.forward(x) } -> std::convertible_to<Tensor>; }) {
    return [](Module& m, const Tensor& x) -> Tensor { return static_cast<M&>(m).forward(x); };
  } else {  // held (parameters, printing, moving), as libtorch's; forward() through it throws
    return [](Module& m, const Tensor&) -> Tensor {
      throw Error("[Sequential::forward] " + m.path() + " (" + m.type_name() +
                  ") has no forward(Tensor) returning a Tensor (an LSTM returns a tuple); call its forward "
                  "yourself, or wrap it in a module that returns the Tensor you need.");
    };
  }
}
}  // namespace detail

/// A module with its name, for Sequential({{"conv", nn::Conv2d(...)}, {"act", nn::ReLU()}}) and
/// Sequential::push_back(named), as libtorch's NamedAnyModule.
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, std::shared_ptr<M> module)
      : name_(std::move(name)), module_(std::move(module)), forward_(detail::sequential_forward<M>()) {}
  template <typename M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& holder) : NamedAnyModule(std::move(name), holder.ptr()) {}
  /// A module by value (nn::Linear's Impl, a user's module), moved into a shared_ptr.
  template <typename M>
    requires std::derived_from<std::decay_t<M>, Module>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  const std::string& name() const noexcept { return name_; }
  const std::shared_ptr<Module>& module() const noexcept { return module_; }
  const detail::SequentialForward& forward_fn() const noexcept { return forward_; }

 private:
  std::string name_;
  std::shared_ptr<Module> module_;
  detail::SequentialForward forward_;
};

/// Runs its children in order; children are keyed "0", "1", ... (parameters "0.weight"), or by
/// the names given: Sequential({{"fc", nn::Linear(4, 2)}, {"act", nn::ReLU()}}).
/// Holds any module with `Tensor forward(const Tensor&)`. clone() clones each child.
class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  SequentialImpl() = default;
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const NamedAnyModule& m : named_modules) push_back(m);
  }

  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  template <typename M>
  void push_back(std::string name, std::shared_ptr<M> module) {
    add(std::move(name), std::move(module), detail::sequential_forward<M>());
  }
  void push_back(const NamedAnyModule& named) { add(named.name(), named.module(), named.forward_fn()); }
  /// An AnyModule's module, run through its forward (which must return a Tensor), as libtorch's.
  void push_back(const AnyModule& any) { push_back(std::to_string(modules_.size()), any); }
  void push_back(std::string name, const AnyModule& any) { add(std::move(name), any.ptr(), any.tensor_forward()); }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  template <typename M>
  void push_back(std::string name, const ModuleHolder<M>& holder) {
    push_back(std::move(name), holder.ptr());
  }
  /// Appends the modules of `other` (shared with it, not copied; keyed on from size()), as
  /// libtorch's extend; extending a Sequential by itself appends each module once.
  void extend(const SequentialImpl& other) {
    const size_t n = other.modules_.size();
    for (size_t i = 0; i < n; ++i) {
      register_module(std::to_string(modules_.size()), other.modules_[i]);
      forwards_.push_back(other.forwards_[i]);
      modules_.push_back(other.modules_[i]);
    }
  }
  /// push_back of each module of a container (of shared_ptrs or holders).
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const {
    return modules_[detail::checked_index("Sequential", index, modules_.size())];
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  /// The module at `index` as T (its Impl type); an Error when it is another type, as libtorch's.
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    auto p = std::dynamic_pointer_cast<T>(ptr(index));
    if (!p)
      throw Error("[Sequential::ptr] module " + std::to_string(index) + " is a " + modules_[index]->type_name() +
                  ", not the type asked for.");
    return p;
  }
  template <typename T>
  T& at(size_t index) {
    auto* p = dynamic_cast<T*>(ptr(index).get());
    if (p == nullptr) throw Error("[Sequential::at] module " + std::to_string(index) + " is a " + modules_[index]->type_name() + ".");
    return *p;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  void add(std::string name, std::shared_ptr<Module> module, detail::SequentialForward forward) {
    register_module(std::move(name), module);
    forwards_.push_back(std::move(forward));
    modules_.push_back(std::move(module));
  }
  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<detail::SequentialForward> forwards_;
};

/// libtorch's holder: Sequential(nn::Linear(4, 2), nn::ReLU()), or named children with
/// Sequential({{"fc", nn::Linear(4, 2)}, {"act", nn::ReLU()}}).
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named_modules)) {}
};

/// A list of modules, registered as "0", "1", ...; no forward of its own.
class ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  ModuleListImpl() = default;
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  template <typename M>
  void push_back(std::shared_ptr<M> module) {
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  /// push_back of each module of a container (another ModuleList, or shared_ptrs or holders), as
  /// libtorch's extend; extending a list by itself appends each module once.
  template <typename Container>
  void extend(const Container& container) {
    if constexpr (std::is_same_v<Container, ModuleListImpl>) {  // a copy first: it may be this list
      const std::vector<std::shared_ptr<Module>> modules = container.modules_;
      for (const auto& module : modules) push_back(module);
    } else {
      for (const auto& module : container) push_back(module);
    }
  }
  void pretty_print(std::ostream& stream) const override;
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const {
    return modules_[detail::checked_index("ModuleList", index, modules_.size())];
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  /// The module at `index` as T, nullptr when it is another type (libtorch's ModuleList::ptr<T>).
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  template <typename T>
  T& at(size_t index) {
    auto p = ptr<T>(index);
    if (!p) throw Error("[ModuleList::at] module " + std::to_string(index) + " is a " + modules_[index]->type_name() + ".");
    return *p;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
LOCUS_MODULE(ModuleList);

/// Modules by name, in insertion order.
class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  ModuleDictImpl() = default;
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    for (const auto& [k, m] : modules) insert(k, m);
  }
  /// Adds `module` under `key`, or replaces the one there (as libtorch's).
  template <typename M>
  void insert(const std::string& key, std::shared_ptr<M> module) {
    if (modules_.contains(key)) {
      replace_module(key, std::shared_ptr<Module>(module));
      modules_[key] = std::move(module);
      return;
    }
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
  template <typename M>
  void insert(const std::string& key, const ModuleHolder<M>& holder) {
    insert(key, holder.ptr());
  }
  /// insert() of each (key, module), in order: new keys are appended, existing ones replaced.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    for (const auto& [k, m] : modules) insert(k, m);
  }
  /// insert() of each item of another ModuleDict (or an OrderedDict of modules).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }
  /// Removes the module under `key` and returns it (an Error naming the key when there is none).
  std::shared_ptr<Module> pop(const std::string& key) {
    std::shared_ptr<Module> m = modules_[key];  // throws for a missing key
    modules_.erase(key);
    unregister_module(key);
    return m;
  }
  void clear() {
    for (const std::string& k : modules_.keys()) unregister_module(k);
    modules_.clear();
  }
  /// The module under `key` as a T (an Error when it is another type).
  template <typename T>
  T& at(const std::string& key) {
    T* p = modules_[key]->template as<T>();
    if (p == nullptr) throw Error("[ModuleDict::at] the module under '" + key + "' is a " + modules_[key]->type_name() + ", not the type asked for.");
    return *p;
  }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const noexcept {
    return modules_.items();
  }
  void pretty_print(std::ostream& stream) const override;
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};
LOCUS_MODULE(ModuleDict);

/// Parameters in a list, registered as "0", "1", ... (libtorch's ParameterList). Each keeps its
/// requires_grad. clone() copies every tensor.
class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  ParameterListImpl() = default;
  template <typename... Tensors>
  explicit ParameterListImpl(Tensors&&... params) {
    (append(std::forward<Tensors>(params)), ...);
  }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void append(const Tensor& param);
  /// The value of a (key, tensor) item, as libtorch's (the key is not kept).
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  template <typename Container>
  void extend(const Container& container) {
    for (const auto& p : container) append(p);
  }
  void pretty_print(std::ostream& stream) const override;
  /// The parameter itself (a handle: in-place changes reach the module's).
  Tensor at(size_t index) const;
  Tensor operator[](size_t index) const { return at(index); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.is_empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  OrderedDict<std::string, Tensor> items_{"Parameter"};  // handles of the registered parameters
};
LOCUS_MODULE(ParameterList);

/// Parameters by name, in insertion order (libtorch's ParameterDict).
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) { update(params); }
  void reset() override {}
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  /// Registers `param` under `key` (replacing one of that name); returns the parameter.
  Tensor insert(const std::string& key, const Tensor& param);
  /// Removes and returns the parameter under `key`.
  Tensor pop(const std::string& key);
  void update(const OrderedDict<std::string, Tensor>& params) {
    for (const auto& item : params) insert(item.key(), item.value());
  }
  void clear();
  void pretty_print(std::ostream& stream) const override;
  Tensor get(const std::string& key) const { return items_[key]; }
  Tensor operator[](const std::string& key) const { return get(key); }
  bool contains(const std::string& key) const { return items_.contains(key); }
  size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.is_empty(); }
  std::vector<std::string> keys() const { return items_.keys(); }
  std::vector<Tensor> values() const { return items_.values(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  OrderedDict<std::string, Tensor> items_{"Parameter"};
};
LOCUS_MODULE(ParameterDict);

}  // namespace locus::nn
