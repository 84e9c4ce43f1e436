#pragma once
// Ops with no public Tensor method, which nn, optim and autograd call (the backends only ever
// through ops). Convolution and pooling are in ops/conv.h.
#include "core/backend.h"
#include "locus/tensor.h"

namespace locus::ops {

/// grad where input > 0, else 0, in one pass (relu's backward). Not differentiable itself.
Tensor threshold_backward(const Tensor& grad, const Tensor& input);
/// gelu (exact erf form, or its tanh approximation), differentiable; integer inputs become the
/// default dtype.
Tensor gelu(const Tensor& input, bool tanh_approximation);
/// The fused optimizer step: one Adam/AdamW update of p in one pass by the backend's kernel, when it
/// has one and every tensor is dense, of p's dtype, on p's device and of p's size (max_sq null
/// without amsgrad). False otherwise: the caller composes the update from tensor ops.
bool fused_adam_step(Tensor& p, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor* max_sq,
                     const backend::Backend::Adam& a);

}  // namespace locus::ops
