#pragma once
// nn::Module, the holder template and LOCUS_MODULE (libtorch's torch::nn::Module, ModuleHolder and
// TORCH_MODULE).
//
// Device semantics: a module lives where its parameters are. to(device) / to(dtype) work in
// place and recursively on parameters, their gradients and buffers, keep every parameter
// object's identity (Tensor::set_data), so optimizers built before the move keep working, and
// return the module. A module can be built directly on a device: inside a DefaultDeviceGuard, or
// with the `.device(d)` option of its options class (a locus extension). Calling a layer with an
// input on another device throws DeviceMismatchError naming the module path and both devices:
//   Sequential/0 (Linear 784->256): weight is on opencl:0 but input is on cpu; move the input with .to(opencl:0)
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/nn/ordered_dict.h"
#include "locus/tensor.h"

/// Declares an option with a chainable setter and a getter, as libtorch's TORCH_ARG:
/// `LOCUS_ARG(double, lr) = 1e-3;` gives `lr(0.1)` (returns *this) and `lr()`.
#define LOCUS_ARG(T, name)                                  \
 public:                                                    \
  inline auto name(const T& new_##name)->decltype(*this) {  \
    this->name##_ = new_##name;                             \
    return *this;                                           \
  }                                                         \
  inline auto name(T&& new_##name)->decltype(*this) {       \
    this->name##_ = std::move(new_##name);                  \
    return *this;                                           \
  }                                                         \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }       \
                                                            \
 private:                                                   \
  T name##_

namespace locus::serialize {
class OutputArchive;
class InputArchive;
}  // namespace locus::serialize

namespace locus::nn {

template <typename Contained>
class ModuleHolder;

namespace detail {
/// The implementation type a module type names: LinearImpl for the holder Linear (or LinearImpl).
template <typename T, typename = void>
struct ModuleImplOf {
  using type = T;
};
template <typename T>
struct ModuleImplOf<T, std::void_t<typename T::ContainedType>> {
  using type = typename T::ContainedType;
};
}  // namespace detail

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction = std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// `name` is what name() and pretty_print() show; by default the class name, as libtorch's
  /// ("locus::nn::LinearImpl", "BlockImpl" for a user's BlockImpl; messages drop the "Impl").
  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  virtual ~Module();

  const std::string& name() const noexcept;
  /// name() without a trailing "Impl" ("locus::nn::Linear" for a LinearImpl): how messages name
  /// a module's type.
  std::string type_name() const;

  // ---- parameters, buffers, submodules (keys as libtorch: "fc1.weight", "0.bias") ----------
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  /// This module (when include_self) and all below it, depth first.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = std::string(),
                                                                  bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  // ---- state dicts (src/nn/state_dict.cpp) ------------------------------------------------
  /// Parameters and buffers by libtorch name in PyTorch's order (a module's own parameters, its
  /// own buffers, then each child's), detached and sharing storage with the module.
  OrderedDict<std::string, Tensor> state_dict() const;
  /// Copies each tensor of `state_dict` into the parameter or buffer of that name (across
  /// devices and dtypes; the module stays where it is). Everything is checked before anything is
  /// copied: missing keys (strict), unexpected keys (strict) and shape mismatches (always) throw
  /// one CheckpointError listing all of them by name.
  void load_state_dict(const OrderedDict<std::string, Tensor>& state_dict, bool strict = true);
  /// libtorch's archive form (src/nn/module_archive.cpp): writes this module's parameters and
  /// buffers under their names, then each child's into a nested archive under the child's name
  /// (so the keys are the state_dict's: "fc1.weight").
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads what save() wrote: each parameter and buffer takes the archive's values, copied in
  /// place (it stays on its device and dtype, as locus::load(module, path)); a missing key or a
  /// shape mismatch is a CheckpointError naming the key.
  virtual void load(serialize::InputArchive& archive);
  /// Whether save() and load() include this module (libtorch's; true unless overridden).
  virtual bool is_serializable() const { return true; }

  // ---- modes -----------------------------------------------------------------------------
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  // ---- moving (in place; returns the module) -----------------------------------------------
  virtual Module& to(Device device, ScalarType dtype, bool non_blocking = false);
  /// Converts floating-point parameters and buffers only (integer buffers keep their dtype).
  virtual Module& to(ScalarType dtype, bool non_blocking = false);
  virtual Module& to(Device device, bool non_blocking = false);
  /// PyTorch's nn.Module.half() / bfloat16() / float() / double(): to(dtype), floating-point
  /// parameters and buffers only. `float` and `double` are C++ keywords: float_() and double_().
  Module& half() { return to(kHalf); }
  Module& bfloat16() { return to(kBFloat16); }
  Module& float_() { return to(kFloat); }
  Module& double_() { return to(kDouble); }
  /// Every other spelling of a device, as Tensor::to: module->to(kCUDA), ->to("opencl:1"),
  /// ->to(0) (torch.device(0)), ->to(TensorOptions) (its device and dtype, when given).
  Module& to(DeviceType type, bool non_blocking = false) { return to(Device(type), non_blocking); }
  Module& to(const char* device, bool non_blocking = false) { return to(Device(device), non_blocking); }
  Module& to(const std::string& device, bool non_blocking = false) { return to(Device(device), non_blocking); }
  Module& to(int device_index, bool non_blocking = false) { return to(Device(device_index), non_blocking); }
  Module& to(const TensorOptions& options, bool non_blocking = false);

  /// Clears gradients: sets them to undefined (default, as PyTorch 2), or zeroes them.
  virtual void zero_grad(bool set_to_none = true);

  /// Calls `fn` on this module and every module below it (parents before children).
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  /// The same with each module's qualified name: `name_prefix` for this one, "fc" / "block.conv"
  /// below it ("prefix.fc" with a prefix), as named_modules() names them.
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix = std::string()) const;
  /// The same with shared_ptrs: this module must be owned by one (std::make_shared, a holder),
  /// else an Error.
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix = std::string()) const;

  /// One line describing this module ("locus::nn::Linear(in_features=784, ...)").
  virtual void pretty_print(std::ostream& stream) const;

  /// Registers a parameter (a leaf that requires grad unless told otherwise) and returns it.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  /// Removes a parameter registered by this module and returns it (ParameterDict::pop); throws
  /// naming the key when there is none.
  Tensor unregister_parameter(const std::string& name);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  /// Removes a registered submodule (libtorch's); locus::Error naming it when there is none.
  void unregister_module(const std::string& name);
  /// Replaces an already registered submodule (the caller updates its own member too).
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module);

  /// libtorch's Module::as: this module as a `ModuleType`, or nullptr when it is not one. Takes
  /// the implementation or its holder: `seq[0]->as<nn::Linear>()` and `->as<nn::LinearImpl>()`
  /// both give a LinearImpl* (libtorch's spelling for reaching a layer in a container).
  template <typename ModuleType>
  typename detail::ModuleImplOf<ModuleType>::type* as() noexcept {
    return dynamic_cast<typename detail::ModuleImplOf<ModuleType>::type*>(this);
  }
  template <typename ModuleType>
  const typename detail::ModuleImplOf<ModuleType>::type* as() const noexcept {
    return dynamic_cast<const typename detail::ModuleImplOf<ModuleType>::type*>(this);
  }

  /// Where this module sits under its root, for messages: "Sequential/0".
  std::string path() const;
  /// Throws DeviceMismatchError unless `input` is on `param`'s device:
  /// "<path> (<brief>): <param_name> is on <d> but input is on <e>; move the input with .to(<d>)".
  void check_input_device(const Tensor& input, const char* param_name, const Tensor& param) const;
  /// Short description for messages ("Linear 784->256"); the class name by default.
  virtual std::string brief() const;

  /// A deep copy (libtorch's clone): parameters and buffers copied, onto `device` when given;
  /// submodules cloned. Modules derived from nn::Cloneable<Derived> (locus/nn/cloneable.h) have
  /// it, as every built-in layer does; for others it throws, naming the module.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

 private:
  template <typename Derived, typename Base>
  friend class Cloneable;
  /// Pastes a clone of `other` into this module (libtorch's clone_; see Cloneable).
  virtual void clone_(Module& other, const std::optional<Device>& device);
  Module& to_impl(std::optional<Device> device, std::optional<ScalarType> dtype, bool non_blocking);
  void attach(const std::string& key, Module& child);
  friend std::ostream& operator<<(std::ostream& stream, const Module& module);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  mutable std::optional<std::string> name_;
  bool is_training_ = true;
  const Module* parent_ = nullptr;  // the module that registered this one last (for paths)
  std::string key_in_parent_;
};

/// Prints the module and its children as libtorch does.
std::ostream& operator<<(std::ostream& stream, const Module& module);

/// The device of the module's parameters (and buffers). Throws when they are split across
/// devices, naming two of them; a module with none lives on the default device.
Device device_of(const Module& module);
inline Device device_of(const std::shared_ptr<Module>& module) { return device_of(*module); }

// ---- holder ---------------------------------------------------------------------------------

/// Owns a shared_ptr to a module implementation (`Linear` holds a `LinearImpl`). `->` reaches the
/// implementation, `()` calls its forward. Default construction builds the module with default
/// arguments; `= nullptr` gives the empty state.
template <typename Contained>
class ModuleHolder {
 protected:
  std::shared_ptr<Contained> impl_;

 public:
  using ContainedType = Contained;

  ModuleHolder() : impl_(default_construct()) {}
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, ModuleHolder> ||
                                          std::is_base_of_v<ModuleHolder, std::decay_t<Head>> ||
                                          std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                                          std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const { return impl_; }
  Contained* get() {
    check();
    return impl_.get();
  }
  const Contained* get() const {
    check();
    return impl_.get();
  }
  template <typename C = Contained, typename... Args>
  auto operator()(Args&&... args) -> decltype(std::declval<C&>().forward(std::forward<Args>(args)...)) {
    return get()->forward(std::forward<Args>(args)...);
  }
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }
  bool is_empty() const noexcept { return impl_ == nullptr; }

 private:
  void check() const {
    if (!impl_) throw Error("Accessing empty ModuleHolder; assign a module to it first (it was created with nullptr).");
  }
  static std::shared_ptr<Contained> default_construct() {
    static_assert(std::is_default_constructible_v<Contained>,
                  "You are trying to default construct a module which has no default constructor. Use = nullptr "
                  "to give it the empty state (e.g. `Linear linear = nullptr;` instead of `Linear linear;`).");
    return std::make_shared<Contained>();
  }
};

template <typename M>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<M>& module) {
  return stream << *module;
}
/// archive << module and archive >> module (libtorch's): Module::save / Module::load.
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const std::shared_ptr<Module>& module);
serialize::InputArchive& operator>>(serialize::InputArchive& archive, const std::shared_ptr<Module>& module);
template <typename M>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const ModuleHolder<M>& module) {
  return archive << std::static_pointer_cast<Module>(module.ptr());
}
template <typename M>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, const ModuleHolder<M>& module) {
  return archive >> std::static_pointer_cast<Module>(module.ptr());
}
template <typename M>
Device device_of(const ModuleHolder<M>& module) {
  return device_of(*module);
}

template <typename ModuleType>
std::shared_ptr<ModuleType> Module::register_module(std::string name, std::shared_ptr<ModuleType> module) {
  if (name.empty()) throw Error("[register_module] submodule name must not be empty.");
  if (name.find('.') != std::string::npos)
    throw Error("[register_module] submodule name must not contain a dot (got '" + name + "').");
  if (!module) throw Error("[register_module] submodule '" + name + "' is empty (nullptr).");
  attach(name, *module);
  children_.insert(std::move(name), module);
  return module;
}

template <typename ModuleType>
std::shared_ptr<ModuleType> Module::replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
  attach(name, *module);
  children_[name] = module;
  return module;
}

}  // namespace locus::nn

/// Defines `Name` as the holder of `ImplType` (libtorch's TORCH_MODULE_IMPL).
#define LOCUS_MODULE_IMPL(Name, ImplType)                         \
  class Name : public ::locus::nn::ModuleHolder<ImplType> {       \
   public:                                                        \
    using ::locus::nn::ModuleHolder<ImplType>::ModuleHolder;      \
    using Impl = ImplType;                                        \
  }

/// `LOCUS_MODULE(Linear)` defines `Linear` holding a `LinearImpl` (libtorch's TORCH_MODULE).
#define LOCUS_MODULE(Name) LOCUS_MODULE_IMPL(Name, Name##Impl)
