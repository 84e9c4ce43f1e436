// Ops composed from other differentiable ops (libtorch's addcmul, addcdiv, lerp, dot, mv, outer,
// tril, triu): each checks its arguments as PyTorch does, then runs on any device through the ops
// it is made of, and autograd differentiates it through them.
#include <cmath>
#include <sstream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {
namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void check_addc(const char* op, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  ops::check_same_device(op, {{"self", &self}, {"tensor1", &t1}, {"tensor2", &t2}});
  if (!is_floating_point(ops::result_type({&self, &t1, &t2})) && value.isFloatingPoint())
    throw Error("[" + std::string(op) + "] for integral input tensors, argument value must not be a floating " +
                "point number (got " + number(value.toDouble()) + ").");
}

void check_addcdiv(const Tensor& t1, const Tensor& t2) {
  if (!is_floating_point(t1.scalar_type()) && !is_floating_point(t2.scalar_type()))
    throw Error(std::string("[addcdiv] integer division of tensor1 (") + dtype_name(t1.scalar_type()) +
                ") by tensor2 (" + dtype_name(t2.scalar_type()) +
                ") is not supported (PyTorch removed it); convert one of them to a floating dtype first "
                "(tensor1.to(kFloat)).");
}

void check_lerp(const Tensor& self, const Tensor& end, const Tensor* weight) {
  if (weight != nullptr)
    ops::check_same_device("lerp", {{"self", &self}, {"end", &end}, {"weight", weight}});
  else
    ops::check_same_device("lerp", {{"self", &self}, {"end", &end}});
  if (!is_floating_point(self.scalar_type()))
    throw Error(std::string("[lerp] expected a floating-point self, got ") + dtype_name(self.scalar_type()) +
                "; convert it with .to(kFloat) first.");
  for (auto [name, t] : {std::pair<const char*, const Tensor*>{"end", &end}, {"weight", weight}})
    if (t != nullptr && t->scalar_type() != self.scalar_type())
      throw Error(std::string("[lerp] expected dtype ") + dtype_name(self.scalar_type()) + " for `" + name +
                  "` but got dtype " + dtype_name(t->scalar_type()) + ".");
}

Tensor tri(const char* op, const Tensor& self, int64_t diagonal, bool lower) {
  if (self.dim() < 2)
    throw Error("[" + std::string(op) + "] input tensor must have at least 2 dimensions, got " +
                std::to_string(self.dim()) + "-D (shape " + ops::shape_str(self.sizes()) + ").");
  TensorOptions idx = TensorOptions().dtype(kLong).device(self.device());
  Tensor rows = arange(self.size(-2), idx).unsqueeze(1), cols = arange(self.size(-1), idx).unsqueeze(0);
  Tensor offset = cols - rows;  // j - i
  Tensor keep = lower ? offset.le(diagonal) : offset.ge(diagonal);
  return where(keep, self, zeros({}, TensorOptions().dtype(self.scalar_type()).device(self.device())));
}

}  // namespace

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  check_addc("addcmul", *this, t1, t2, value);
  Tensor prod = value.toDouble() == 1.0 && !value.isFloatingPoint() ? t1 : t1.mul(value);
  return add(prod.mul(t2));
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ops::assign_result(*this, "addcmul_", [&] { return addcmul(t1, t2, value); });
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  check_addc("addcdiv", *this, t1, t2, value);
  check_addcdiv(t1, t2);
  Tensor num = value.toDouble() == 1.0 && !value.isFloatingPoint() ? t1 : t1.mul(value);
  return add(num.div(t2));
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return ops::assign_result(*this, "addcdiv_", [&] { return addcdiv(t1, t2, value); });
}

Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  check_lerp(*this, end, nullptr);
  const double w = weight.toDouble();
  Tensor diff = end - *this;
  return std::abs(w) < 0.5 ? add(diff, w) : end.sub(diff, 1.0 - w);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  check_lerp(*this, end, &weight);
  Tensor diff = end - *this;
  return where(weight.abs().lt(0.5), add(weight * diff), end - diff * (1 - weight));
}
Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) {
  return ops::assign_result(*this, "lerp_", [&] { return lerp(end, weight); });
}
Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) {
  return ops::assign_result(*this, "lerp_", [&] { return lerp(end, weight); });
}
Tensor& Tensor::pow_(const Scalar& exponent) {
  return ops::assign_result(*this, "pow_", [&] { return pow(exponent); });
}
Tensor& Tensor::pow_(const Tensor& exponent) {
  return ops::assign_result(*this, "pow_", [&] { return pow(exponent); });
}

Tensor Tensor::dot(const Tensor& other) const {
  ops::check_same_device("dot", {{"self", this}, {"tensor", &other}});
  if (dim() != 1 || other.dim() != 1)
    throw Error("[dot] 1D tensors expected, but got " + std::to_string(dim()) + "D and " + std::to_string(other.dim()) +
                "D tensors; for matrices use mm() or matmul().");
  if (numel() != other.numel())
    throw Error("[dot] the two vectors must have the same number of elements, but got " + std::to_string(numel()) +
                " and " + std::to_string(other.numel()) + ".");
  if (scalar_type() != other.scalar_type())
    throw Error(std::string("[dot] expected both vectors to have the same dtype, but found ") +
                dtype_name(scalar_type()) + " and " + dtype_name(other.scalar_type()) + "; convert one with .to().");
  return mul(other).sum(scalar_type());
}

Tensor Tensor::mv(const Tensor& vec) const {
  ops::check_same_device("mv", {{"self", this}, {"vec", &vec}});
  if (dim() != 2 || vec.dim() != 1)
    throw Error("[mv] expected a 2-D matrix and a 1-D vector, got " + std::to_string(dim()) + "-D " +
                ops::shape_str(sizes()) + " and " + std::to_string(vec.dim()) + "-D " +
                ops::shape_str(vec.sizes()) + ".");
  if (size(1) != vec.size(0))
    throw Error("[mv] size mismatch: the matrix " + ops::shape_str(sizes()) + " has " + std::to_string(size(1)) +
                " columns but the vector " + ops::shape_str(vec.sizes()) + " has " + std::to_string(vec.size(0)) +
                " elements.");
  return mm(vec.unsqueeze(1)).squeeze(1);
}

Tensor Tensor::outer(const Tensor& vec2) const {
  ops::check_same_device("outer", {{"self", this}, {"vec2", &vec2}});
  if (dim() != 1 || vec2.dim() != 1)
    throw Error("[outer] expected two 1-D tensors, got " + std::to_string(dim()) + "-D and " +
                std::to_string(vec2.dim()) + "-D; flatten() them first.");
  return unsqueeze(1).mul(vec2.unsqueeze(0));
}

Tensor Tensor::tril(int64_t diagonal) const { return tri("tril", *this, diagonal, true); }
Tensor Tensor::triu(int64_t diagonal) const { return tri("triu", *this, diagonal, false); }
Tensor& Tensor::tril_(int64_t diagonal) {
  return ops::assign_result(*this, "tril_", [&] { return tril(diagonal); });
}
Tensor& Tensor::triu_(int64_t diagonal) {
  return ops::assign_result(*this, "triu_", [&] { return triu(diagonal); });
}

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return self.addcmul(t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return self.addcdiv(t1, t2, value);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) { return self.lerp(end, weight); }
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) { return self.lerp(end, weight); }
Tensor dot(const Tensor& a, const Tensor& b) { return a.dot(b); }
Tensor mv(const Tensor& mat, const Tensor& vec) { return mat.mv(vec); }
Tensor outer(const Tensor& a, const Tensor& b) { return a.outer(b); }
Tensor ger(const Tensor& a, const Tensor& b) { return a.outer(b); }
Tensor tril(const Tensor& a, int64_t diagonal) { return a.tril(diagonal); }
Tensor triu(const Tensor& a, int64_t diagonal) { return a.triu(diagonal); }

}  // namespace locus
