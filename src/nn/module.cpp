// nn::Module: registration, traversal, modes, in-place moves and messages.
#include "locus/nn/module.h"
#include "locus/printing.h"

#include <cxxabi.h>

#include <cstdlib>
#include <ostream>
#include <sstream>
#include <typeinfo>
#include <utility>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/guard.h"

namespace locus::nn {
namespace {

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// The class name for messages: no namespace, no "Impl" ("Sequential", "Net" for NetImpl).
std::string short_name(const std::string& full) {
  size_t p = full.rfind("::");
  std::string n = p == std::string::npos ? full : full.substr(p + 2);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n.resize(n.size() - 4);
  return n;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;
Module::~Module() {
  for (auto& c : children_)
    if (c.value() && c.value()->parent_ == this) c.value()->parent_ = nullptr;
}

const std::string& Module::name() const noexcept {
  if (!name_) {
    std::string n = demangle(typeid(*this).name());  // libtorch's: "BlockImpl" for a user's BlockImpl
    // a libtorch program (locus/torch.h) reads libtorch's names: torch::nn::LinearImpl
    if (print_style() == PrintStyle::kLibtorch && n.rfind("locus::", 0) == 0) n.replace(0, 7, "torch::");
    name_ = std::move(n);
  }
  return *name_;
}

std::string Module::type_name() const {
  std::string n = name();
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n.resize(n.size() - 4);
  return n;
}

std::string Module::brief() const { return short_name(name()); }

std::string Module::path() const {
  if (parent_ == nullptr) return short_name(name());
  return parent_->path() + "/" + key_in_parent_;
}

void Module::check_input_device(const Tensor& input, const char* param_name, const Tensor& param) const {
  if (!input.defined() || !param.defined() || input.device() == param.device()) return;
  std::ostringstream os;
  if (parent_ == nullptr) os << brief();
  else os << path() << " (" << brief() << ")";
  os << ": " << param_name << " is on " << param.device() << " but input is on " << input.device()
     << "; move the input with .to(" << param.device() << ")";
  throw DeviceMismatchError(os.str());
}

void Module::attach(const std::string& key, Module& child) {
  child.parent_ = this;
  child.key_in_parent_ = key;
}

// ---- registration ----------------------------------------------------------------------------
Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  if (name.empty()) throw Error("[register_parameter] parameter name must not be empty.");
  if (name.find('.') != std::string::npos)
    throw Error("[register_parameter] parameter name must not contain a dot (got '" + name + "').");
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor Module::unregister_parameter(const std::string& name) {
  Tensor t = parameters_[name];
  parameters_.erase(name);
  return t;
}

void Module::unregister_module(const std::string& name) {
  if (!children_.contains(name))
    throw Error("[unregister_module] no submodule named '" + name + "' is registered in " + brief() +
                "; named_children() lists the registered ones.");
  Module& child = *children_[name];
  if (child.parent_ == this) child.parent_ = nullptr, child.key_in_parent_.clear();
  children_.erase(name);
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  if (name.empty()) throw Error("[register_buffer] buffer name must not be empty.");
  if (name.find('.') != std::string::npos)
    throw Error("[register_buffer] buffer name must not contain a dot (got '" + name + "').");
  return buffers_.insert(std::move(name), std::move(tensor));
}

// ---- traversal -------------------------------------------------------------------------------
OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  if (include_self) out.insert(prefix, std::const_pointer_cast<Module>(shared_from_this()));
  for (const auto& c : children_) {
    std::string key = prefix.empty() ? c.key() : prefix + "." + c.key();
    for (const auto& m : c.value()->named_modules(key, true)) out.insert_or_assign(m.key(), m.value());
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }
std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  for (const auto& p : parameters_)
    if (p.value().defined()) out.insert(p.key(), p.value());
  if (!recurse) return out;
  for (const auto& c : children_)
    for (const auto& p : c.value()->named_parameters(true))
      if (!out.contains(c.key() + "." + p.key())) out.insert(c.key() + "." + p.key(), p.value());
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  // A parameter shared by two modules is listed once.
  std::vector<Tensor> out;
  for (const auto& p : named_parameters(recurse)) {
    bool seen = false;
    for (const Tensor& t : out) seen = seen || t.is_same(p.value());
    if (!seen) out.push_back(p.value());
  }
  return out;
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  for (const auto& b : buffers_)
    if (b.value().defined()) out.insert(b.key(), b.value());
  if (!recurse) return out;
  for (const auto& c : children_)
    for (const auto& b : c.value()->named_buffers(true)) out.insert_or_assign(c.key() + "." + b.key(), b.value());
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

void Module::train(bool on) {
  for (auto& c : children_) c.value()->train(on);
  is_training_ = on;
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& c : children_) c.value()->apply(fn);
}
void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  for (const auto& c : children_) std::as_const(*c.value()).apply(fn);
}

namespace {
std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}
std::shared_ptr<Module> owned(const Module& m) {
  try {
    return std::const_pointer_cast<Module>(m.shared_from_this());
  } catch (const std::bad_weak_ptr&) {
    throw Error("[Module::apply] this " + m.type_name() +
                " is not stored in a shared_ptr, so apply() cannot hand it out as one: make it with "
                "std::make_shared (or a module holder such as nn::Linear), or use the apply() that takes Module&.");
  }
}
}  // namespace

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& c : children_) c.value()->apply(fn, join_name(name_prefix, c.key()));
}
void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& c : children_) std::as_const(*c.value()).apply(fn, join_name(name_prefix, c.key()));
}
void Module::apply(const ModulePointerApplyFunction& fn) const {
  fn(owned(*this));
  for (const auto& c : children_) std::as_const(*c.value()).apply(fn);
}
void Module::apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, owned(*this));
  for (const auto& c : children_) std::as_const(*c.value()).apply(fn, join_name(name_prefix, c.key()));
}

void Module::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (auto& c : children_) c.value()->zero_grad(set_to_none);
  for (auto& p : parameters_) {
    if (!p.value().defined()) continue;  // a parameter registered empty (a layer built with bias(false))
    Tensor& g = p.value().mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) g = Tensor();
    else g.zero_();
  }
}

// ---- moving ----------------------------------------------------------------------------------
namespace {
void move_in_place(const Tensor& t, std::optional<Device> device, std::optional<ScalarType> dtype, bool nb) {
  if (!t.defined()) return;
  TensorOptions o;
  if (device) o = o.device(*device);
  if (dtype && t.is_floating_point()) o = o.dtype(*dtype);
  Tensor moved = t.to(o, nb);
  if (!moved.is_same(t)) t.set_data(moved);
}
}  // namespace

Module& Module::to_impl(std::optional<Device> device, std::optional<ScalarType> dtype, bool nb) {
  NoGradGuard no_grad;
  if (device && !device->is_cpu() && !device->has_index()) device = resolve_device(*device);
  for (auto& c : children_) c.value()->to_impl(device, dtype, nb);
  for (auto& p : parameters_) {
    move_in_place(p.value(), device, dtype, nb);
    move_in_place(p.value().grad(), device, dtype, nb);
  }
  for (auto& b : buffers_) move_in_place(b.value(), device, dtype, nb);
  return *this;
}

Module& Module::to(Device device, ScalarType dtype, bool nb) { return to_impl(device, dtype, nb); }
Module& Module::to(ScalarType dtype, bool nb) { return to_impl(std::nullopt, dtype, nb); }
Module& Module::to(Device device, bool nb) { return to_impl(device, std::nullopt, nb); }
Module& Module::to(const TensorOptions& options, bool nb) {  // through the virtuals, which a module may override
  if (options.has_device() && options.has_dtype()) return to(*options.device_opt(), *options.dtype_opt(), nb);
  if (options.has_device()) return to(*options.device_opt(), nb);
  if (options.has_dtype()) return to(*options.dtype_opt(), nb);
  return *this;
}

Device device_of(const Module& module) {
  std::optional<Device> found;
  std::string found_name;
  auto visit = [&](const OrderedDict<std::string, Tensor>& d) {
    for (const auto& p : d) {
      if (!found) {
        found = p.value().device();
        found_name = p.key();
      } else if (p.value().device() != *found) {
        std::ostringstream os;
        os << "[device_of] " << module.path() << " is split across devices: " << found_name << " is on " << *found
           << " but " << p.key() << " is on " << p.value().device() << "; move the module with .to(device) first";
        throw DeviceMismatchError(os.str());
      }
    }
  };
  visit(module.named_parameters());
  visit(module.named_buffers());
  return found ? *found : default_device();
}

// ---- printing --------------------------------------------------------------------------------
// A user's module prints its class name, "Impl" kept, as libtorch's; locus's own layers print
// as libtorch's do, without it ("locus::nn::MultiheadAttention").
void Module::pretty_print(std::ostream& stream) const {
  const std::string& n = name();
  if (n.rfind("locus::nn::", 0) == 0 || n.rfind("torch::nn::", 0) == 0) stream << type_name();
  else stream << n;
}

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (!children_.is_empty()) {
    stream << "(\n";
    const std::string next = indentation + "  ";
    for (const auto& c : children_) {
      stream << next << "(" << c.key() << "): ";
      c.value()->pretty_print_recursive(stream, next);
      stream << '\n';
    }
    stream << indentation << ")";
  }
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  if (print_style() != PrintStyle::kLibtorch) {
    module.pretty_print_recursive(stream, "");
    return stream;
  }
  // a libtorch program (locus/torch.h) reads libtorch's names: torch::nn::Linear(...)
  std::ostringstream text;
  text.copyfmt(stream);
  module.pretty_print_recursive(text, "");
  std::string out = text.str();
  static const std::string from = "locus::nn::", to = "torch::nn::";
  for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
    out.replace(at, from.size(), to);
  stream << out;
  stream.flags(text.flags());  // what the layers left set (std::boolalpha), as libtorch's printing does
  return stream;
}

}  // namespace locus::nn
