#include <ostream>

#include "locus/guard.h"
#include "locus/options.h"
#include "locus/scalar.h"

namespace locus {

Device TensorOptions::device() const { return device_ ? *device_ : default_device(); }

std::ostream& operator<<(std::ostream& os, const TensorOptions& o) {
  return os << "TensorOptions(dtype=" << dtype_name(o.dtype()) << ", device=" << o.device()
            << ", requires_grad=" << (o.requires_grad() ? "true" : "false")
            << ", pinned_memory=" << (o.pinned_memory() ? "true" : "false") << ")";
}

ScalarType Scalar::type() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return kLong;
    default: return default_dtype();
  }
}

}  // namespace locus
