#pragma once
// Ops with no public Tensor method, which nn, optim and autograd call (the backends only ever
// through ops). Convolution and pooling are in ops/conv.h.
#include <functional>
#include <initializer_list>

#include "core/backend.h"
#include "locus/tensor.h"

namespace locus::ops {

/// The Philox stream position of a draw: `count` numbers reserved from the generator a
/// detail::GeneratorScope names on this thread, else from the default stream (src/ops/generator.cpp).
/// The backends' random kernels take (seed, offset). Thread-safe.
struct PhiloxState {
  uint64_t seed, offset;
};
PhiloxState philox_reserve(uint64_t count);

/// grad where input > 0, else 0, in one pass (relu's backward). Not differentiable itself.
Tensor threshold_backward(const Tensor& grad, const Tensor& input);
/// gelu (exact erf form, or its tanh approximation), differentiable; integer inputs become the
/// default dtype.
Tensor gelu(const Tensor& input, bool tanh_approximation);
/// grad * gelu'(input) in one pass (gelu's backward; float dtypes).
Tensor gelu_backward(const Tensor& grad, const Tensor& input, bool tanh_approximation);
/// The fused optimizer step: one Adam/AdamW update of p in one pass by the backend's kernel, when it
/// has one and every tensor is dense, of p's dtype, on p's device and of p's size (max_sq null
/// without amsgrad). False otherwise: the caller composes the update from tensor ops.
bool fused_adam_step(Tensor& p, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor* max_sq,
                     const backend::Backend::Adam& a);
/// True when fused_adam_step would update these tensors in place with nothing that can fail: the
/// layout fits and the backend's kernel for p's dtype runs synchronously (adam_step_in_place).
bool fused_adam_in_place(const Tensor& p, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                         const Tensor* max_sq);
/// The fused step out of place: the new parameter and moments of one Adam/AdamW update in new
/// dense tensors (new_p, new_m, new_v, and new_max without amsgrad's max_sq null), computed by the
/// backend's one-pass kernel (Backend::adam_step_into) from tensors that stay as they are. False
/// when the layout does not fit (as fused_adam_step) or the backend has no such kernel.
bool fused_adam_into(const Tensor& p, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor* max_sq, Tensor& new_p, Tensor& new_m, Tensor& new_v, Tensor* new_max,
                     const backend::Backend::Adam& a);
/// Makes `dst` hold `fresh`'s values (same sizes, dtype and device; `fresh` is dropped after).
/// When both are dense over the whole of storages from one allocator, their memory is swapped:
/// nothing can fail, and views of dst's storage see the new values. Otherwise dst.copy_(fresh),
/// which a device can fail. The commit of an all-or-nothing optimizer step.
void commit_into(Tensor& dst, Tensor& fresh);
/// The in-place form of a composed op: refuses a self whose elements overlap, or that autograd
/// cannot record in place (a leaf requiring grad, a view in the graph), before computing f(me);
/// then the result must cast to self's dtype (PyTorch's canCast) and have self's shape, and is
/// copied into self. When autograd records the op (self or an operand requires grad), f runs on a
/// clone of self and self becomes the output of the result's node. Returns self.
Tensor& assign_result(Tensor& self, const char* name, const std::function<Tensor(const Tensor& me)>& f);
/// PyTorch's result dtype of an op over these tensors (0-dim ones count only against their category).
ScalarType result_type(std::initializer_list<const Tensor*> tensors);

}  // namespace locus::ops
