#pragma once
// nn::Cloneable (libtorch's torch::nn::Cloneable): what gives a module clone(device), the deep copy
// that DataParallel replicates a module with.
//
//   struct NetImpl : nn::Cloneable<NetImpl> {
//     NetImpl() { reset(); }
//     void reset() override { fc = register_module("fc", nn::Linear(4, 2)); }
//     Tensor forward(const Tensor& x) { return fc(x); }
//     nn::Linear fc{nullptr};
//   };
//
// clone() copy-constructs Derived (so plain members such as options are copied), lets reset()
// register fresh parameters, buffers and submodules, then copies the original's values into them
// (onto `device` when given) and pastes a clone of each original submodule into the fresh one.
// reset() must therefore register everything (not the constructor), as in libtorch.
#include <memory>
#include <optional>
#include <string>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/guard.h"
#include "locus/nn/module.h"

namespace locus::nn {

/// Derive from Cloneable<Derived> instead of Module. `Base` is the class Derived would otherwise
/// derive from (Module, or a shared layer base such as BatchNormImplBase).
template <typename Derived, typename Base = Module>
class Cloneable : public Base {
 public:
  using Base::Base;

  /// Registers the module's parameters, buffers and submodules (afresh, with new values).
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    NoGradGuard no_grad;
    std::optional<Device> dev = device;
    if (dev && !dev->is_cpu() && !dev->has_index()) dev = resolve_device(*dev);
    const Module& self = *this;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    Module& c = *copy;
    c.parameters_.clear();
    c.buffers_.clear();
    c.children_.clear();
    c.parent_ = nullptr;
    c.key_in_parent_.clear();
    copy->reset();
    auto mismatch = [&](const char* what, size_t want, size_t got) {
      return Error("[clone] " + self.name() + "::reset() registered " + std::to_string(got) + " " + what +
                   " but the module has " + std::to_string(want) + ". Register every parameter, buffer and "
                   "submodule in reset(), not in the constructor.");
    };
    if (c.parameters_.size() != self.parameters_.size())
      throw mismatch("parameters", self.parameters_.size(), c.parameters_.size());
    if (c.buffers_.size() != self.buffers_.size()) throw mismatch("buffers", self.buffers_.size(), c.buffers_.size());
    if (c.children_.size() != self.children_.size())
      throw mismatch("submodules", self.children_.size(), c.children_.size());
    auto copy_values = [&](OrderedDict<std::string, Tensor>& to, const OrderedDict<std::string, Tensor>& from,
                           bool parameters) {
      for (const auto& item : from) {
        const Tensor& src = item.value();
        Tensor& dst = to[item.key()];
        if (!src.defined()) {
          dst = Tensor();
          continue;
        }
        Tensor data = dev && src.device() != *dev ? src.to(*dev) : src.clone();
        if (dst.defined()) dst.set_data(data);
        else dst = data;
        if (parameters) dst.set_requires_grad(src.requires_grad());
      }
    };
    copy_values(c.parameters_, self.parameters_, true);
    copy_values(c.buffers_, self.buffers_, false);
    for (const auto& child : self.children_) c.children_[child.key()]->clone_(*child.value(), dev);
    return copy;
  }

 private:
  void clone_(Module& other, const std::optional<Device>& device) final {
    std::shared_ptr<Module> fresh = other.clone(device);
    auto* d = dynamic_cast<Derived*>(fresh.get());
    if (d == nullptr)
      throw Error("[clone] " + this->name() + "::reset() registered a " + this->name() + " where the original has a " +
                  other.name() + "; reset() must register the same kinds of submodules.");
    Module& me = *this;
    const Module* parent = me.parent_;
    std::string key = me.key_in_parent_;
    static_cast<Derived&>(*this) = *d;
    me.parent_ = parent;
    me.key_in_parent_ = key;
    for (auto& ch : me.children_) me.attach(ch.key(), *ch.value());
  }
};

}  // namespace locus::nn
