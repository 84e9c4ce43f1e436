#include <ostream>

#include "locus/guard.h"
#include "locus/options.h"
#include "locus/printing.h"
#include "locus/scalar.h"

namespace locus {

Device TensorOptions::device() const { return device_ ? *device_ : default_device(); }

std::ostream& operator<<(std::ostream& os, const TensorOptions& o) {
  if (print_style() == PrintStyle::kLibtorch) {
    // libtorch's: each property, " (default)" after those not set (locus does not record whether
    // the layout, requires_grad and pinned_memory were set: the layout counts as set with a dtype
    // or a device, the flags when true). libtorch writes the flags with std::boolalpha and leaves
    // it set on the stream, so a program's later bools print as true / false: so does this.
    const bool set = o.has_dtype() || o.has_device();
    os << std::boolalpha;
    auto dflt = [](bool has) { return has ? "" : " (default)"; };
    return os << "TensorOptions(dtype=" << TypeMeta(o.dtype()).name() << dflt(o.has_dtype()) << ", device=" << o.device()
              << dflt(o.has_device()) << ", layout=" << o.layout() << dflt(set)
              << ", requires_grad=" << (o.requires_grad() ? "true" : "false") << dflt(o.requires_grad())
              << ", pinned_memory=" << (o.pinned_memory() ? "true" : "false") << dflt(o.pinned_memory())
              << ", memory_format=(nullopt))";
  }
  return os << "TensorOptions(dtype=" << dtype_name(o.dtype()) << ", device=" << o.device()
            << ", requires_grad=" << (o.requires_grad() ? "true" : "false")
            << ", pinned_memory=" << (o.pinned_memory() ? "true" : "false") << ")";
}

std::ostream& operator<<(std::ostream& os, Layout) { return os << "Strided"; }

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  // libtorch's: a floating-point value as a double, a bool as true/false, an integer as int64
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "true" : "false");
  return os << s.toLong();
}

ScalarType Scalar::type() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return kLong;
    default: return default_dtype();
  }
}

}  // namespace locus
