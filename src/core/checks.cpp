// Checks every layer shares: one device for all operands, shapes in messages.
#include "core/checks.h"

#include <sstream>

namespace locus {

std::string shape_str(IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string number_str(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

namespace {
[[noreturn]] void throw_mismatch(const char* op, Device d, Device other, const std::string& name) {
  std::ostringstream os;
  os << "[" << op << "] Expected all tensors to be on the same device, but found at least two devices, " << d << " and "
     << other << "! Argument '" << name << "' is on " << other << "; move it with .to(" << d << ").";
  throw DeviceMismatchError(os.str());
}
}  // namespace

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
    throw_mismatch(op, d, a.t->device(), a.name);
  }
  return d;
}

Device check_same_device(const char* op, const std::vector<Tensor>& list, const char* list_name) {
  const Tensor* first = nullptr;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].defined()) continue;
    if (first == nullptr) {
      first = &list[i];
    } else if (list[i].device() != first->device()) {
      throw_mismatch(op, first->device(), list[i].device(), std::string(list_name) + "[" + std::to_string(i) + "]");
    }
  }
  if (first == nullptr) throw Error(std::string("[") + op + "] expected a defined tensor in '" + list_name + "'.");
  return first->device();
}

}  // namespace locus
