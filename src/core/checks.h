#pragma once
// Checks every layer shares (core, ops, nn): one device for all operands, shapes in messages.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "locus/error.h"

namespace locus {

/// A named operand for device checks.
struct Arg {
  const char* name;
  const Tensor* t;
};
/// Checks that every defined operand is on one device before anything is allocated; a 0-dim
/// cpu tensor is accepted as a scalar on any device. Returns that device. Throws
/// DeviceMismatchError with PyTorch's opening words, the argument and the fix.
Device check_same_device(const char* op, std::initializer_list<Arg> args);
/// The same check over a list argument (cat, stack, einsum): every defined element on the first
/// defined one's device, with no scalar exception; the message names `list_name[i]`.
Device check_same_device(const char* op, const std::vector<Tensor>& list, const char* list_name);
/// True for a 0-dim cpu tensor used with tensors on another device.
inline bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }

/// "[2, 3]": a shape as error messages spell it.
std::string shape_str(IntArrayRef s);
/// "0.5", "-1", "1e-05", "nan": a number as error messages spell it (the shortest form a stream gives).
std::string number_str(double v);

}  // namespace locus
