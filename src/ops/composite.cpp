// Ops composed from other differentiable ops (libtorch's addcmul, addcdiv, lerp, pow_, dot, mv,
// outer, tril, triu, roll, movedim, unflatten, count_nonzero, nan_to_num, repeat_interleave, diag):
// each checks its arguments as PyTorch does, then runs on any device through the ops it is made
// of, and autograd differentiates it through them. No backend kernel of its own.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "core/tensor_impl.h"
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
  return locus::where(keep, self, zeros({}, TensorOptions().dtype(self.scalar_type()).device(self.device())));
}

}  // namespace

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  check_addc("addcmul", *this, t1, t2, value);
  Tensor prod = value.toDouble() == 1.0 && !value.isFloatingPoint() ? t1 : t1.mul(value);
  return add(prod.mul(t2));
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ops::assign_result(mut_self(), "addcmul_", [&](const Tensor& me) { return me.addcmul(t1, t2, value); });
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  check_addc("addcdiv", *this, t1, t2, value);
  check_addcdiv(t1, t2);
  Tensor num = value.toDouble() == 1.0 && !value.isFloatingPoint() ? t1 : t1.mul(value);
  return add(num.div(t2));
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ops::assign_result(mut_self(), "addcdiv_", [&](const Tensor& me) { return me.addcdiv(t1, t2, value); });
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
  return locus::where(weight.abs().lt(0.5), add(weight * diff), end - diff * (1 - weight));
}
Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  return ops::assign_result(mut_self(), "lerp_", [&](const Tensor& me) { return me.lerp(end, weight); });
}
Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  return ops::assign_result(mut_self(), "lerp_", [&](const Tensor& me) { return me.lerp(end, weight); });
}
Tensor& Tensor::pow_(const Scalar& exponent) const {
  return ops::assign_result(mut_self(), "pow_", [&](const Tensor& me) { return me.pow(exponent); });
}
Tensor& Tensor::pow_(const Tensor& exponent) const {
  return ops::assign_result(mut_self(), "pow_", [&](const Tensor& me) { return me.pow(exponent); });
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
Tensor& Tensor::tril_(int64_t diagonal) const {
  return ops::assign_result(mut_self(), "tril_", [&](const Tensor& me) { return me.tril(diagonal); });
}
Tensor& Tensor::triu_(int64_t diagonal) const {
  return ops::assign_result(mut_self(), "triu_", [&](const Tensor& me) { return me.triu(diagonal); });
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  if (shifts.empty() || (!dims.empty() && shifts.size() != dims.size()) || (dims.empty() && shifts.size() != 1))
    throw Error("[roll] shifts and dims must align: got " + std::to_string(shifts.size()) + " shift(s) and " +
                std::to_string(dims.size()) + " dim(s) (without dims, give one shift: the tensor is rolled flat).");
  if (dims.empty()) return flatten().roll(shifts, {0}).view(sizes());
  Tensor out = *this;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = detail::wrap_dim(dims[k], dim(), "roll"), n = size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[k] % n) + n) % n;
    if (s != 0) out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(*this) ? clone() : out;
}

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  if (source.size() != destination.size())
    throw Error("[movedim] source " + ops::shape_str(source) + " and destination " + ops::shape_str(destination) +
                " must contain the same number of dims.");
  const int64_t n = dim();
  std::vector<int64_t> order(static_cast<size_t>(n), -1), src(source.size()), dst(destination.size());
  std::vector<bool> src_used(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    src[i] = detail::wrap_dim(source[i], n, "movedim");
    dst[i] = detail::wrap_dim(destination[i], n, "movedim");
    if (src_used[static_cast<size_t>(src[i])])
      throw Error("[movedim] repeated dim in `source` " + ops::shape_str(source) + ".");
    if (order[static_cast<size_t>(dst[i])] != -1)
      throw Error("[movedim] repeated dim in `destination` " + ops::shape_str(destination) + ".");
    src_used[static_cast<size_t>(src[i])] = true;
    order[static_cast<size_t>(dst[i])] = src[i];
  }
  int64_t next = 0;  // the other dims keep their relative order
  for (int64_t& o : order) {
    if (o != -1) continue;
    while (src_used[static_cast<size_t>(next)]) ++next;
    o = next++;
  }
  return permute(order);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes) const {
  d = detail::wrap_dim(d, dim(), "unflatten");
  if (sizes.empty()) throw Error("[unflatten] sizes must be non-empty.");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < -1)
      throw Error("[unflatten] sizes must be non-negative or -1 (inferred), got " + ops::shape_str(sizes) + ".");
    if (sizes[i] == -1) {
      if (infer != -1)
        throw Error("[unflatten] only one dimension can be inferred (-1), got " + ops::shape_str(sizes) + ".");
      infer = static_cast<int64_t>(i);
    } else {
      known *= sizes[i];
    }
  }
  const int64_t n = size(d);
  if ((infer == -1 && known != n) || (infer != -1 && (known == 0 || n % known != 0)))
    throw Error("[unflatten] provided sizes " + ops::shape_str(sizes) + " don't multiply up to the size of dim " +
                std::to_string(d) + " (" + std::to_string(n) + ") in the input tensor " +
                ops::shape_str(this->sizes()) + ".");
  std::vector<int64_t> shape(this->sizes().begin(), this->sizes().begin() + d);
  for (int64_t s : sizes) shape.push_back(s == -1 ? n / known : s);
  shape.insert(shape.end(), this->sizes().begin() + d + 1, this->sizes().end());
  return reshape(shape);
}

Tensor Tensor::count_nonzero() const { return ne(0).sum(kLong); }
Tensor Tensor::count_nonzero(int64_t d) const { return ne(0).sum(IntArrayRef{d}, false, kLong); }
Tensor Tensor::count_nonzero(IntArrayRef dims) const { return ne(0).sum(dims, false, kLong); }

Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  if (!is_floating_point()) return clone();
  double big = std::numeric_limits<double>::max();
  switch (scalar_type()) {
    case kFloat: big = std::numeric_limits<float>::max(); break;
    case kHalf: big = 65504.0; break;
    case kBFloat16: big = 3.3895313892515355e38; break;
    default: break;
  }
  Tensor out = locus::where(isnan(), nan.value_or(0.0), *this);
  out = locus::where(out.eq(std::numeric_limits<double>::infinity()), posinf.value_or(big), out);
  return locus::where(out.eq(-std::numeric_limits<double>::infinity()), neginf.value_or(-big), out);
}
Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf, std::optional<double> neginf) const {
  return ops::assign_result(mut_self(), "nan_to_num_", [&](const Tensor& me) { return me.nan_to_num(nan, posinf, neginf); });
}

Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> d) const {
  if (repeats < 0) throw Error("[repeat_interleave] repeats can not be negative, got " + std::to_string(repeats) + ".");
  if (!d) return flatten().repeat_interleave(repeats, 0);
  const int64_t k = detail::wrap_dim(*d, dim(), "repeat_interleave");
  std::vector<int64_t> expanded(sizes().begin(), sizes().end()), result(sizes().begin(), sizes().end());
  expanded.insert(expanded.begin() + k + 1, repeats);
  result[static_cast<size_t>(k)] *= repeats;
  return unsqueeze(k + 1).expand(expanded).reshape(result);
}

Tensor Tensor::diag(int64_t offset) const {
  const int64_t off = offset < 0 ? -offset : offset;
  if (dim() == 1) {
    // a square matrix of side len + |offset| with the vector on that diagonal: the values padded to
    // the side, as a column (offset >= 0: row i holds v[i]) or a row (offset < 0: column j holds v[j])
    const int64_t n = size(0) + off;
    TensorOptions idx = TensorOptions().dtype(kLong).device(device());
    Tensor on = (arange(n, idx).unsqueeze(0) - arange(n, idx).unsqueeze(1)).eq(offset);
    Tensor padded = cat({*this, zeros({off}, TensorOptions().dtype(scalar_type()).device(device()))});
    return locus::where(on, offset >= 0 ? padded.unsqueeze(1) : padded.unsqueeze(0),
                 zeros({}, TensorOptions().dtype(scalar_type()).device(device())));
  }
  if (dim() != 2)
    throw Error("[diag] expected a 1-D or 2-D tensor, got " + std::to_string(dim()) + "-D (shape " +
                ops::shape_str(sizes()) + ").");
  const int64_t rows = size(0), cols = size(1);
  const int64_t len = std::max<int64_t>(0, offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols));
  if (len == 0) return empty({0}, TensorOptions().dtype(scalar_type()).device(device()));
  const int64_t start = offset >= 0 ? offset : off * cols;
  Tensor idx = arange(start, start + len * (cols + 1), cols + 1, TensorOptions().dtype(kLong).device(device()));
  return reshape({-1}).index_select(0, idx);
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
Tensor roll(const Tensor& a, IntArrayRef shifts, IntArrayRef dims) { return a.roll(shifts, dims); }
Tensor movedim(const Tensor& a, IntArrayRef source, IntArrayRef destination) { return a.movedim(source, destination); }
Tensor movedim(const Tensor& a, int64_t source, int64_t destination) { return a.movedim(source, destination); }
Tensor moveaxis(const Tensor& a, IntArrayRef source, IntArrayRef destination) { return a.movedim(source, destination); }
Tensor moveaxis(const Tensor& a, int64_t source, int64_t destination) { return a.movedim(source, destination); }
Tensor unflatten(const Tensor& a, int64_t dim, IntArrayRef sizes) { return a.unflatten(dim, sizes); }
Tensor count_nonzero(const Tensor& a) { return a.count_nonzero(); }
Tensor count_nonzero(const Tensor& a, int64_t dim) { return a.count_nonzero(dim); }
Tensor count_nonzero(const Tensor& a, IntArrayRef dims) { return a.count_nonzero(dims); }
Tensor nan_to_num(const Tensor& a, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return a.nan_to_num(nan, posinf, neginf);
}
Tensor repeat_interleave(const Tensor& a, int64_t repeats, std::optional<int64_t> dim) {
  return a.repeat_interleave(repeats, dim);
}
Tensor diag(const Tensor& a, int64_t offset) { return a.diag(offset); }

}  // namespace locus
