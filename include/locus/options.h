#pragma once
// TensorOptions: where and how a new tensor is made, spelled as libtorch's
// (TensorOptions().device(d).dtype(t).requires_grad(b), locus::device(d), locus::dtype(t)).
#include <optional>
#include <iosfwd>

#include "locus/device.h"
#include "locus/dtype.h"

namespace locus {

/// Memory layouts (libtorch's torch::Layout): locus's tensors are all strided (dense).
enum class Layout : int8_t { Strided };
inline constexpr Layout kStrided = Layout::Strided;

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(DeviceType t) : device_(Device(t)) {}
  TensorOptions(const char* d) : device_(Device(d)) {}

  TensorOptions device(std::optional<Device> d) const { TensorOptions o = *this; o.device_ = d; return o; }
  TensorOptions device(DeviceType t, DeviceIndex i = -1) const { return device(Device(t, i)); }
  TensorOptions dtype(std::optional<ScalarType> t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions requires_grad(bool b) const { TensorOptions o = *this; o.requires_grad_ = b; return o; }
  TensorOptions pinned_memory(bool b) const { TensorOptions o = *this; o.pinned_ = b; return o; }
  /// libtorch's layout option: kStrided, the only layout locus has (so setting it changes nothing).
  TensorOptions layout(Layout) const { return *this; }
  Layout layout() const { return kStrided; }

  /// The device named, or the default device (set_default_device / DefaultDeviceGuard).
  Device device() const;
  /// The dtype named, or float32 (the default dtype).
  ScalarType dtype() const { return dtype_ ? *dtype_ : default_dtype(); }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_; }
  bool has_device() const { return device_.has_value(); }
  bool has_dtype() const { return dtype_.has_value(); }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }

 private:
  std::optional<Device> device_;
  std::optional<ScalarType> dtype_;
  bool requires_grad_ = false;
  bool pinned_ = false;
};

inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions requires_grad(bool b = true) { return TensorOptions().requires_grad(b); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }

/// In locus's default print style: TensorOptions(dtype=float32, device=cpu, requires_grad=false,
/// pinned_memory=false); in the libtorch style (locus/printing.h) libtorch's text,
/// TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), ...).
std::ostream& operator<<(std::ostream& os, const TensorOptions& o);
/// "Strided", as libtorch prints its layout.
std::ostream& operator<<(std::ostream& os, Layout layout);

}  // namespace locus
