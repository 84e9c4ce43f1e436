// Checks every layer shares: one device for all operands, shapes in messages.
#include "core/checks.h"

#include <sstream>

namespace locus {

std::string shape_str(IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Device check_same_device(const char* op, std::initializer_list<Arg> args) {
  const Arg* first = nullptr;
  for (const Arg& a : args) {
    if (!a.t->defined()) continue;
    if (first == nullptr || (is_cpu_scalar(*first->t) && !is_cpu_scalar(*a.t))) first = &a;
  }
  if (first == nullptr) throw Error(std::string("[") + op + "] expected a defined tensor.");
  Device d = first->t->device();
  for (const Arg& a : args) {
    if (!a.t->defined() || a.t->device() == d) continue;
    if (is_cpu_scalar(*a.t)) continue;  // a 0-dim cpu tensor is a scalar anywhere
    std::ostringstream os;
    os << "[" << op << "] Expected all tensors to be on the same device, but found at least two devices, "
       << d << " and " << a.t->device() << "! Argument '" << a.name << "' is on " << a.t->device() << "; move it with .to(" << d << ").";
    throw DeviceMismatchError(os.str());
  }
  return d;
}

}  // namespace locus
