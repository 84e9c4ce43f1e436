#pragma once
// The internal op behind amp::GradScaler::unscale_ (no public Tensor method, as PyTorch's
// torch._amp_foreach_non_finite_check_and_unscale_).
#include <vector>

#include "locus/tensor.h"

namespace locus::ops {

/// Multiplies every gradient in `grads` by inv_scale in place, and sets found_inf (a float32
/// tensor of one element on their device) to 1 when any of them holds inf or NaN; it is never
/// cleared here. One pass per dtype over all of them through the backend's fused kernel (a GPU
/// launch per 16 tensors); non-contiguous gradients, or a backend without the kernel, go through
/// tensor ops instead. Throws DeviceMismatchError when a gradient is not on found_inf's device.
void amp_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, Tensor& found_inf, double inv_scale);

}  // namespace locus::ops
