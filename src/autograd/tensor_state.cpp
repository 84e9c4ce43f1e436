// The Tensor methods over its autograd state (requires_grad, grad, grad_fn): autograd's, not core's.
#include <memory>
#include <string>

#include "autograd/meta.h"
#include "autograd/record.h"
#include "locus/autograd.h"
#include "core/checks.h"
#include "locus/error.h"

namespace locus {

// (a view made before its base joined the graph follows it: autograd/record.h)
bool Tensor::requires_grad() const { return impl_ && autograd::requires_grad_fast(*this); }

Tensor& Tensor::requires_grad_(bool b) const {
  if (!impl_) throw Error("Tensor: the tensor is undefined (default-constructed); create it with a factory first.");
  if (b && !is_floating_point())
    throw Error(std::string("[requires_grad_] only tensors of floating point dtype can require gradients, got ") +
                dtype_name(scalar_type()) + ".");
  if (!impl_->autograd) impl_->autograd = std::make_shared<autograd::AutogradMeta>();
  impl_->autograd->requires_grad = b;
  return mut_self();
}

Tensor& Tensor::detach_() const {
  if (!impl_) throw Error("Tensor: the tensor is undefined (default-constructed); create it with a factory first.");
  if (autograd::AutogradMeta* m = impl_->autograd.get()) {
    if (m->grad_fn && m->retains_grad)  // its retain_grad hook stays with the graph it leaves
      std::erase_if(m->grad_fn->tensor_hooks(), [&](const auto& h) { return h.handle == m->retain_grad_handle; });
    m->requires_grad = false;
    m->grad_fn.reset();
    m->output_nr = 0;
    m->retains_grad = false;
    m->grad_accumulator.reset();
  }
  return mut_self();
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  if (!impl_ || !impl_->autograd) return undefined;
  return impl_->autograd->grad;
}

Tensor& Tensor::mutable_grad() {
  if (!impl_) throw Error("Tensor: the tensor is undefined (default-constructed); create it with a factory first.");
  if (!impl_->autograd) impl_->autograd = std::make_shared<autograd::AutogradMeta>();
  return impl_->autograd->grad;
}

void Tensor::set_grad(const Tensor& g) {
  if (g.defined()) check_same_device("set_grad", {{"self", this}, {"grad", &g}});
  mutable_grad() = g;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  if (!impl_) return nullptr;
  // a view whose base changed since it got its history takes the base's (autograd::gradient_edge)
  if (impl_->view_base && autograd::requires_grad_fast(*this)) (void)autograd::gradient_edge(*this);
  return impl_->autograd ? impl_->autograd->grad_fn : nullptr;
}
bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

int64_t Tensor::output_nr() const {
  if (!impl_) throw Error("[output_nr] the tensor is undefined (default-constructed); create it with a factory first.");
  (void)grad_fn();  // a view takes its base's history first, as grad_fn() does
  return impl_->autograd ? impl_->autograd->output_nr : 0;
}

int64_t Tensor::_version() const {
  if (!impl_) throw Error("[_version] the tensor is undefined (default-constructed); create it with a factory first.");
  return impl_->storage ? impl_->storage->version.load(std::memory_order_relaxed) : 0;
}

}  // namespace locus
