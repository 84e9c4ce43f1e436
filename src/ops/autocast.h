#pragma once
// Autocast inside the op layer (the public API is include/locus/autocast.h). An op on the
// policy lists starts with
//
//   if (auto c = ops::autocast::policy(ops::autocast::Op::Mm, device()); c != ops::autocast::Cast::None) {
//     ops::autocast::ExcludeGuard x;  // the re-entered op, and everything it calls, sees no autocast
//     return ops::autocast::cast(*this, c).mm(ops::autocast::cast(o, c));
//   }
//
// policy() is one thread-local load when no autocast region is open. Backward passes run under
// ExcludeGuard too: backward ops run in the dtypes the forward ops chose (as in PyTorch).
#include <cstdint>
#include <initializer_list>

#include "locus/tensor.h"

namespace locus::ops::autocast {

/// The ops locus has on PyTorch's autocast lists (one bit each in the per-device-type tables).
enum class Op : uint8_t {
  Mm, Bmm, Addmm, Matmul, Linear, Conv2d, ConvTranspose2d,    // lower precision everywhere
  Rnn,                                                         // (LSTM, GRU, RNN: PyTorch 2.x)
  Prod, NllLoss, CrossEntropy, MseLoss, BceWithLogits, KlDiv,  // float32 everywhere
  Softmax, LogSoftmax, Exp, Log, Pow, Sum, Rsqrt, Reciprocal,  // float32 on cuda/opencl
  LayerNorm, GroupNorm,
  ScatterAdd,                                                  // promote on cuda/opencl
  Log1p, Expm1, Log2,                                          // float32 on cuda/opencl
  // ---- math batch (stop 45) ----
  Tan, Asin, Acos, Sinh, Cosh, Log10, Erfinv,                  // float32 on cuda/opencl
};

enum class Cast : uint8_t { None, Lower, Float32, Promote };

namespace detail {
extern thread_local uint32_t t_enabled_mask;  // bit per DeviceType with autocast on
extern thread_local int t_exclude;            // > 0 inside an autocast op or a backward pass
Cast policy_slow(Op op, Device d);
}  // namespace detail

/// What autocast does to `op` on `d` now: None outside an enabled region for d's type, inside
/// ExcludeGuard, or for an op not on that device type's lists.
inline Cast policy(Op op, Device d) {
  if (detail::t_enabled_mask == 0) return Cast::None;
  return detail::policy_slow(op, d);
}

/// `t` as policy `c` wants it on its device: floating-point tensors other than float64 become the
/// autocast dtype (Lower) or float32 (Float32); anything else is returned as is. A float32 leaf
/// that requires grad is cast once per region (the cast cache). Differentiable (to()).
Tensor cast(const Tensor& t, Cast c);
/// Promote: the widest floating dtype among the defined tensors (for cast_to).
ScalarType widest(std::initializer_list<const Tensor*> ts);
/// Promote's cast: floating-point `t` to `dtype`, anything else as is.
Tensor cast_to(const Tensor& t, ScalarType dtype);

/// While alive, no op in this thread applies autocast.
struct ExcludeGuard {
  ExcludeGuard() { ++detail::t_exclude; }
  ~ExcludeGuard() { --detail::t_exclude; }
  ExcludeGuard(const ExcludeGuard&) = delete;
  ExcludeGuard& operator=(const ExcludeGuard&) = delete;
};

/// Runs f(C) with autocast excluded, where C(t) is cast(t, c): the op's body re-entered on its
/// cast arguments, e.g. `return rerun(c, [&](auto C) { return C(*this).sum(dims); });`.
template <class F>
Tensor rerun(Cast c, F&& f) {
  ExcludeGuard x;
  return f([c](const Tensor& t) { return cast(t, c); });
}

}  // namespace locus::ops::autocast
