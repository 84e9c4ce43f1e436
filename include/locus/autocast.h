#pragma once
// Automatic mixed precision: PyTorch's torch.autocast, with libtorch's at::autocast:: functions
// (also reachable as at::autocast:: through locus/torch.h).
//
//   {
//     locus::autocast::AutocastGuard ac(locus::kCPU);  // bfloat16 on cpu, float16 on cuda
//     Tensor loss = F::cross_entropy(model(x), y);     // linear/conv2d in bfloat16, the loss in float32
//   }
//   loss.backward();                                   // gradients in the parameters' dtype (float32)
//
// The state is per device type and thread-local: a guard on one thread changes nothing on another.
// Inside an enabled region, ops on a device of that type follow PyTorch's policy for it
// (docs/mixed-precision.md has the tables): the lower-precision list (mm, bmm, addmm, matmul,
// linear, conv2d) casts floating-point inputs to the autocast dtype; the float32 list casts them
// to float32 (cpu: prod and the losses; cuda and opencl, PyTorch's CUDA list: also softmax,
// log_softmax, exp, log, pow, sum, rsqrt, reciprocal, layer_norm); every other op runs in its
// inputs' dtype, mixed floating inputs promoting to the widest as usual. float64 is never cast.
// Casts of float32 leaves that require grad (the weights) to the lower dtype are cached, so a
// weight used twice is cast once; the cache empties when the outermost guard exits.
#include <optional>

#include "locus/device.h"
#include "locus/dtype.h"

namespace locus::autocast {

/// Whether autocast is on for `type` in this thread (PyTorch: torch.is_autocast_enabled(type)).
bool is_autocast_enabled(DeviceType type);
/// Turns autocast on or off for `type` in this thread. Prefer AutocastGuard, which restores.
void set_autocast_enabled(DeviceType type, bool enabled);
/// The lower-precision dtype for `type` in this thread. Defaults as PyTorch: float16 on cuda,
/// bfloat16 on cpu; on opencl float16 when the current OpenCL device reports fp16 arithmetic,
/// else bfloat16.
ScalarType get_autocast_dtype(DeviceType type);
/// Sets it; throws locus::Error unless `dtype` is float16 or bfloat16.
void set_autocast_dtype(DeviceType type, ScalarType dtype);
/// Drops every cached cast (AutocastGuard does this when the outermost guard exits).
void clear_cache();
/// The nesting depth of autocast regions in this thread; libtorch's pair that guards call.
int increment_nesting();
int decrement_nesting();
/// Whether casts of weights are cached (default true; torch.autocast's cache_enabled).
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);

/// torch.autocast(device_type, dtype, enabled, cache_enabled) as a scope: sets the state of
/// `type` for this thread and restores the previous state on exit (nestable; an inner
/// AutocastGuard(type, dtype, false) turns autocast off for a region). dtype defaults as
/// get_autocast_dtype's defaults; anything but float16/bfloat16 throws locus::Error.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType type, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true,
                         bool cache_enabled = true);
  explicit AutocastGuard(Device device, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true,
                         bool cache_enabled = true)
      : AutocastGuard(device.type(), dtype, enabled, cache_enabled) {}
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType type_;
  bool prev_enabled_, prev_cache_;
  std::optional<ScalarType> prev_dtype_;  // unset: the default
};

}  // namespace locus::autocast
