// ---- libtorch's everyday ops (stop 54) ----
// Names a libtorch program reaches for that a compile probe found missing, each made of existing
// differentiable ops (so they run on every device and differentiate as their parts do): heaviside, gcd and lcm, take_along_dim, index_copy, argwhere, isin, clamp with
// tensor bounds, Tensor::where, fill_diagonal_, is_nonzero, dist, msort, masked_fill with a tensor
// value, inner, vdot, isposinf / isneginf / isreal, hardshrink and sum_to_size as methods, and the
// channels-last memory format (MemoryFormat, contiguous(format), is_contiguous(format),
// suggest_memory_format). Values, gradients and messages follow PyTorch 1.13 (tests/ops/
// everyday_test.cpp has its figures).
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/indexing.h"
#include "locus/linalg.h"
#include "locus/aten.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other);

namespace {

using detail::wrap_dim;

std::string str(int64_t v) { return std::to_string(v); }

[[noreturn]] void not_implemented(const char* op, ScalarType t) {
  throw Error(std::string("\"") + op + "\" not implemented for '" + locus::toString(t) + "'");
}

// gcd of |a| and |b| by Euclid's algorithm over whole tensors (at most ~92 rounds for int64).
Tensor gcd_impl(const char* op, const Tensor& a, const Tensor& b) {
  ops::check_same_device(op, {{"self", &a}, {"other", &b}});
  ScalarType rt = ops::result_type({&a, &b});
  if (locus::is_floating_point(rt) || rt == kBool) not_implemented(op, rt);
  auto shape = ops::broadcast_shapes(a.sizes(), b.sizes(), op);
  Tensor x = ops::cast(a, rt).expand(shape).abs(), y = ops::cast(b, rt).expand(shape).abs();
  Tensor zero = zeros({}, TensorOptions().dtype(rt).device(a.device()));
  Tensor one = ones({}, TensorOptions().dtype(rt).device(a.device()));
  for (;;) {
    Tensor live = y.ne(0);
    if (!live.any().item<bool>()) break;
    Tensor r = x.remainder(locus::where(live, y, one));
    x = locus::where(live, y, x);
    y = locus::where(live, r, zero);
  }
  return x.contiguous();
}

}  // namespace

// ---- heaviside ----------------------------------------------------------------------------------
Tensor Tensor::heaviside(const Tensor& values) const {
  ops::check_same_device("heaviside", {{"self", this}, {"values", &values}});
  if (values.scalar_type() != scalar_type())
    throw Error(std::string("[heaviside] is not yet implemented for tensors with different dtypes (self ") +
                locus::toString(scalar_type()) + ", values " + locus::toString(values.scalar_type()) +
                "): cast one with .to(other.scalar_type()).");
  NoGradGuard no_grad;  // not differentiable, as PyTorch's
  Tensor step = gt(0).to(scalar_type());
  return locus::where(eq(0), values, step);
}
Tensor& Tensor::heaviside_(const Tensor& values) const {
  return ops::assign_result(mut_self(), "heaviside_", [&](const Tensor& me) { return me.heaviside(values); });
}
Tensor heaviside(const Tensor& self, const Tensor& values) { return self.heaviside(values); }

// ---- gcd, lcm ------------------------------------------------------------------------------------
Tensor Tensor::gcd(const Tensor& other) const { return gcd_impl("gcd", *this, other); }
Tensor Tensor::lcm(const Tensor& other) const {
  Tensor g = gcd_impl("lcm", *this, other);
  ScalarType rt = g.scalar_type();
  Tensor safe = locus::where(g.eq(0), ones({}, TensorOptions().dtype(rt).device(g.device())), g);
  Tensor l = (ops::cast(*this, rt).div(safe, "trunc") * ops::cast(other, rt)).abs();
  return locus::where(g.eq(0), zeros({}, TensorOptions().dtype(rt).device(g.device())), l);
}
Tensor& Tensor::gcd_(const Tensor& other) const {
  return ops::assign_result(mut_self(), "gcd_", [&](const Tensor& me) { return me.gcd(other); });
}
Tensor& Tensor::lcm_(const Tensor& other) const {
  return ops::assign_result(mut_self(), "lcm_", [&](const Tensor& me) { return me.lcm(other); });
}
Tensor gcd(const Tensor& a, const Tensor& b) { return a.gcd(b); }
Tensor& gcd_(Tensor& a, const Tensor& b) { return a.gcd_(b); }
Tensor lcm(const Tensor& a, const Tensor& b) { return a.lcm(b); }
Tensor& lcm_(Tensor& a, const Tensor& b) { return a.lcm_(b); }

// ---- take_along_dim, index_copy, argwhere ----------------------------------------------------------
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  ops::check_same_device("take_along_dim", {{"self", this}, {"indices", &indices}});
  if (indices.scalar_type() != kLong)
    throw Error(std::string("[take_along_dim] dtype of indices should be Long but got ") +
                locus::toString(indices.scalar_type()) + ": convert them with .to(torch::kLong).");
  if (!dim) return reshape({-1}).gather(0, indices.reshape({-1}));
  if (this->dim() != indices.dim())
    throw Error("[take_along_dim] input and indices should have the same number of dimensions, but got " +
                str(this->dim()) + " dimensions for input, and " + str(indices.dim()) + " dimensions for indices.");
  const int64_t d = wrap_dim(*dim, std::max<int64_t>(this->dim(), 1), "take_along_dim");
  if (this->dim() == 0) return gather(0, indices);
  std::vector<int64_t> self_sizes(sizes().begin(), sizes().end());
  self_sizes[static_cast<size_t>(d)] = indices.size(d);
  auto shape = ops::broadcast_shapes(self_sizes, indices.sizes(), "take_along_dim");
  std::vector<int64_t> idx_shape(shape.begin(), shape.end()), src_shape = idx_shape;
  src_shape[static_cast<size_t>(d)] = size(d);
  return expand(src_shape).gather(d, indices.expand(idx_shape));
}
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  return self.take_along_dim(indices, dim);
}

Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  const char* op = "index_copy";
  ops::check_same_device(op, {{"self", this}, {"index", &index}, {"source", &source}});
  if (index.dim() > 1)
    throw Error("[index_copy] index should have dimension 1 or 0 (got " + str(index.dim()) + ").");
  if (index.scalar_type() != kLong)
    throw Error(std::string("[index_copy] expected a long tensor for index, but got ") +
                locus::toString(index.scalar_type()) + ".");
  if (source.scalar_type() != scalar_type())
    throw Error(std::string("[index_copy] self and source expected to have the same dtype, but got (self) ") +
                locus::toString(scalar_type()) + " and (source) " + locus::toString(source.scalar_type()) + ".");
  const int64_t nd = std::max<int64_t>(this->dim(), 1);
  const int64_t d = wrap_dim(dim, nd, op);
  Tensor self_nd = this->dim() == 0 ? reshape({1}) : *this;
  Tensor src_nd = source.dim() == 0 ? source.reshape({1}) : source;
  Tensor idx = index.reshape({-1});
  const int64_t n = idx.numel();
  if (src_nd.dim() != self_nd.dim())
    throw Error("[index_copy] source and destination must have the same number of dimensions, got " +
                shape_str(source.sizes()) + " and " + shape_str(sizes()) + ".");
  if (src_nd.size(d) != n)
    throw Error("[index_copy] number of indices (" + str(n) + ") should be equal to source.size(dim) (" +
                str(src_nd.size(d)) + ").");
  for (int64_t i = 0; i < self_nd.dim(); ++i)
    if (i != d && src_nd.size(i) != self_nd.size(i))
      throw Error("[index_copy] source " + shape_str(source.sizes()) + " and destination " + shape_str(sizes()) +
                  " must have the same slice shapes (all dims but " + str(d) + ").");
  if (n > 0) {
    Tensor bad = idx.lt(0).logical_or(idx.ge(self_nd.size(d)));
    if (bad.any().item<bool>()) {
      int64_t first = idx.masked_select(bad).reshape({-1})[0].item<int64_t>();
      throw Error("[index_copy] index " + str(first) + " is out of bounds for dimension " + str(d) + " with size " +
                  str(self_nd.size(d)) + ".");
    }
  }
  std::vector<std::optional<Tensor>> where_to(static_cast<size_t>(d), std::nullopt);
  where_to.push_back(idx);
  Tensor out = self_nd.index_put(where_to, src_nd);
  return this->dim() == 0 ? out.reshape({}) : out;
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ops::assign_result(mut_self(), "index_copy_", [&](const Tensor& me) { return me.index_copy(dim, index, source); });
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.index_copy(dim, index, source);
}

Tensor Tensor::argwhere() const { return nonzero(); }
Tensor argwhere(const Tensor& self) { return self.nonzero(); }

// ---- isin ---------------------------------------------------------------------------------------
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool /*assume_unique*/, bool invert) {
  ops::check_same_device("isin", {{"elements", &elements}, {"test_elements", &test_elements}});
  for (const Tensor* t : {&elements, &test_elements})
    if (t->scalar_type() == kBool)
      throw Error("[isin] unsupported input type encountered for isin(): Bool (compare with eq, or convert with .to(torch::kInt)).");
  NoGradGuard no_grad;
  ScalarType ct = ops::result_type({&elements, &test_elements});
  Tensor e = ops::cast(elements, ct), t = ops::cast(test_elements, ct).reshape({-1});
  if (locus::is_floating_point(ct)) t = t.masked_select(t.eq(t));  // a NaN matches nothing, and sorts badly
  Tensor found;
  if (t.numel() == 0) {
    found = zeros(elements.sizes(), TensorOptions().dtype(kBool).device(elements.device()));
  } else {
    Tensor sorted = std::get<0>(t.sort(0));
    Tensor pos = searchsorted(sorted, e.reshape({-1})).clamp_max(t.numel() - 1);
    found = sorted.index_select(0, pos).eq(e.reshape({-1})).reshape(elements.sizes());
  }
  return invert ? found.logical_not() : found;
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return isin(elements, scalar_tensor(test_element, TensorOptions().dtype(test_element.type()).device(elements.device())),
              assume_unique, invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin(scalar_tensor(element, TensorOptions().dtype(element.type()).device(test_elements.device())),
              test_elements, assume_unique, invert);
}

// ---- clamp with tensor bounds ------------------------------------------------------------------
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  const bool has_min = min.has_value() && min->defined(), has_max = max.has_value() && max->defined();
  if (!has_min && !has_max) throw Error("[clamp] at least one of 'min' or 'max' must not be None.");
  if (has_min) ops::check_same_device("clamp", {{"self", this}, {"min", &*min}});
  if (has_max) ops::check_same_device("clamp", {{"self", this}, {"max", &*max}});
  ScalarType rt = has_min && has_max ? ops::result_type({this, &*min, &*max})
                  : has_min          ? ops::result_type({this, &*min})
                                     : ops::result_type({this, &*max});
  Tensor x = ops::cast(*this, rt), r = x;
  if (has_min) {
    Tensor lo = ops::cast(*min, rt);
    Tensor below = x.lt(lo);
    r = locus::where(below, lo, r);
  }
  if (has_max) {
    Tensor hi = ops::cast(*max, rt);
    r = locus::where(r.gt(hi), hi, r);
  }
  // a NaN stays NaN and passes no gradient (PyTorch's mask is false there)
  if (locus::is_floating_point(rt)) r = locus::where(x.isnan(), x.detach(), r);
  return r;
}
Tensor& Tensor::clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return ops::assign_result(mut_self(), "clamp_", [&](const Tensor& me) { return me.clamp(min, max); });
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return self.clamp(min, max);
}
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return self.clamp_(min, max);
}
Tensor clamp_min(const Tensor& self, const Tensor& min) { return self.clamp_min(min); }
Tensor clamp_max(const Tensor& self, const Tensor& max) { return self.clamp_max(max); }
Tensor& clamp_min_(Tensor& self, const Scalar& min) { return self.clamp_min_(min); }
Tensor& clamp_max_(Tensor& self, const Scalar& max) { return self.clamp_max_(max); }
Tensor& clamp_min_(Tensor& self, const Tensor& min) { return self.clamp_min_(min); }
Tensor& clamp_max_(Tensor& self, const Tensor& max) { return self.clamp_max_(max); }

// ---- where, fill_diagonal_, is_nonzero -------------------------------------------------------------
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const { return locus::where(condition, *this, other); }
Tensor Tensor::where(const Tensor& condition, const Scalar& other) const { return locus::where(condition, *this, other); }

Tensor& Tensor::fill_diagonal_(const Scalar& fill_value, bool wrap) const {
  const int64_t nd = dim();
  if (nd < 2) throw Error("[fill_diagonal_] dimensions must larger than 1 (got a " + str(nd) + "-D tensor).");
  int64_t n = size(0);
  if (nd > 2) {
    for (int64_t i = 1; i < nd; ++i)
      if (size(i) != n)
        throw Error("[fill_diagonal_] all dimensions of input must be of equal length, got " + shape_str(sizes()) + ".");
  } else {
    n = std::min(size(0), size(1));
  }
  int64_t step = 0;
  for (int64_t i = 0; i < nd; ++i) step += stride(i);
  const int64_t offset = storage_offset();
  as_strided({n}, {step}, offset).fill_(fill_value);
  if (wrap && nd == 2 && size(0) > size(1) + 1) {
    // every cols + 1 rows the diagonal starts again (PyTorch's count over the flattened matrix)
    const int64_t period = size(1) + 1;
    const int64_t wrap_n = (numel() + period - 1) / period - n;
    if (wrap_n > 0) as_strided({wrap_n}, {step}, offset + stride(0) * period).fill_(fill_value);
  }
  return mut_self();
}

bool Tensor::is_nonzero() const {
  const int64_t n = numel();
  if (n == 0) throw Error("[is_nonzero] Boolean value of Tensor with no values is ambiguous.");
  if (n > 1)
    throw Error("[is_nonzero] Boolean value of Tensor with more than one value is ambiguous (it has " + str(n) +
                "): reduce it first, e.g. with .any() or .all().");
  return item().toDouble() != 0.0;
}
bool is_nonzero(const Tensor& self) { return self.is_nonzero(); }

// ---- dist, msort, masked_fill(tensor), inner, vdot -------------------------------------------------
Tensor Tensor::dist(const Tensor& other, const Scalar& p) const {
  ops::check_same_device("dist", {{"self", this}, {"other", &other}});
  return linalg::vector_norm(*this - other, p);  // any p: 0 (a count), +-inf, or a power
}
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) { return self.dist(other, p); }

Tensor Tensor::msort() const { return std::get<0>(sort(0)); }
Tensor msort(const Tensor& self) { return self.msort(); }

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  ops::check_same_device("masked_fill", {{"self", this}, {"mask", &mask}, {"value", &value}});
  if (value.dim() != 0)
    throw Error("[masked_fill] only supports a 0-dimensional value tensor, but got tensor with " + str(value.dim()) +
                " dimension(s): pass value.item() or a 0-dim tensor.");
  if (mask.scalar_type() != kBool)
    throw Error(std::string("[masked_fill] expected the mask to be bool, got ") + locus::toString(mask.scalar_type()) + ".");
  return locus::where(mask, ops::cast(value, scalar_type()), *this);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  return ops::assign_result(mut_self(), "masked_fill_", [&](const Tensor& me) { return me.masked_fill(mask, value); });
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) { return self.masked_fill(mask, value); }

Tensor Tensor::inner(const Tensor& other) const {
  ops::check_same_device("inner", {{"self", this}, {"other", &other}});
  if (dim() == 0 || other.dim() == 0) return *this * other;
  if (size(-1) != other.size(-1))
    throw Error("[inner] the last dimension must match on both input tensors but got shapes " + shape_str(sizes()) +
                " and " + shape_str(other.sizes()) + ".");
  return tensordot(*this, other, {-1}, {-1});
}
Tensor inner(const Tensor& self, const Tensor& other) { return self.inner(other); }

Tensor Tensor::vdot(const Tensor& other) const {
  ops::check_same_device("vdot", {{"self", this}, {"other", &other}});
  if (dim() != 1 || other.dim() != 1)
    throw Error("[vdot] 1D tensors expected, but got " + str(dim()) + "D and " + str(other.dim()) + "D tensors.");
  if (scalar_type() != other.scalar_type())
    throw Error(std::string("[vdot] expected both vectors to have same dtype, but found ") +
                locus::toString(scalar_type()) + " and " + locus::toString(other.scalar_type()) + ".");
  if (numel() != other.numel())
    throw Error("[vdot] inconsistent tensor size, expected tensor [" + str(numel()) + "] and src [" +
                str(other.numel()) + "] to have the same number of elements, but got " + str(numel()) + " and " +
                str(other.numel()) + " elements respectively.");
  return dot(other);
}
Tensor vdot(const Tensor& self, const Tensor& other) { return self.vdot(other); }

// ---- isposinf, isneginf, isreal, hardshrink, sum_to_size ----------------------------------------------
Tensor Tensor::isposinf() const {
  if (!is_floating_point()) return zeros(sizes(), TensorOptions().dtype(kBool).device(device()));
  return isinf().logical_and(gt(0));
}
Tensor Tensor::isneginf() const {
  if (!is_floating_point()) return zeros(sizes(), TensorOptions().dtype(kBool).device(device()));
  return isinf().logical_and(lt(0));
}
Tensor Tensor::isreal() const { return ones(sizes(), TensorOptions().dtype(kBool).device(device())); }
Tensor isposinf(const Tensor& self) { return self.isposinf(); }
Tensor isneginf(const Tensor& self) { return self.isneginf(); }
Tensor isreal(const Tensor& self) { return self.isreal(); }

Tensor Tensor::hardshrink(const Scalar& lambd) const { return locus::hardshrink(*this, lambd.toDouble()); }

Tensor Tensor::sum_to_size(IntArrayRef size) const {
  const int64_t nd = dim(), k = static_cast<int64_t>(size.size());
  bool ok = k <= nd;
  for (int64_t i = 0; ok && i < k; ++i) {
    int64_t want = size[static_cast<size_t>(i)], have = sizes()[static_cast<size_t>(nd - k + i)];
    ok = want == have || want == 1;
  }
  if (!ok)
    throw Error("[sum_to_size] size " + shape_str(size) + " is not expandable to size " + shape_str(sizes()) +
                " (each of its dims must equal the tensor's trailing dim or be 1).");
  std::vector<int64_t> lead, ones_at;
  for (int64_t i = 0; i < nd - k; ++i) lead.push_back(i);
  Tensor r = lead.empty() ? *this : sum(lead);
  for (int64_t i = 0; i < k; ++i)
    if (size[static_cast<size_t>(i)] == 1 && r.size(i) != 1) ones_at.push_back(i);
  if (!ones_at.empty()) r = r.sum(ones_at, true);
  return r;
}

// ---- memory formats ---------------------------------------------------------------------------------
const char* toString(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "Contiguous";
    case MemoryFormat::Preserve: return "Preserve";
    case MemoryFormat::ChannelsLast: return "ChannelsLast";
    case MemoryFormat::ChannelsLast3d: return "ChannelsLast3d";
  }
  return "Unknown";
}
std::ostream& operator<<(std::ostream& os, MemoryFormat f) { return os << toString(f); }

namespace {
// The channels-last order of the dims, innermost first: C, then W (H, D), then N.
bool channels_last_strides(const Tensor& t, std::initializer_list<int64_t> order) {
  int64_t expected = 1;
  for (int64_t d : order) {
    const int64_t n = t.size(d);
    if (n == 1) continue;
    if (t.stride(d) != expected) return false;
    expected *= n;
  }
  return true;
}
}  // namespace

bool Tensor::is_contiguous(MemoryFormat format) const {
  switch (format) {
    case MemoryFormat::ChannelsLast: return dim() == 4 && channels_last_strides(*this, {1, 3, 2, 0});
    case MemoryFormat::ChannelsLast3d: return dim() == 5 && channels_last_strides(*this, {1, 4, 3, 2, 0});
    case MemoryFormat::Preserve:
      throw Error("[is_contiguous] preserve memory format is unsupported by the contiguous operator.");
    case MemoryFormat::Contiguous: break;
  }
  return is_contiguous();
}

Tensor Tensor::contiguous(MemoryFormat format) const {
  switch (format) {
    case MemoryFormat::Contiguous: return contiguous();
    case MemoryFormat::Preserve:
      throw Error("[contiguous] preserve memory format is unsupported by the contiguous operator.");
    case MemoryFormat::ChannelsLast:
      if (dim() != 4)
        throw Error("[contiguous] required rank 4 tensor to use channels_last format, got " + str(dim()) + " dims (shape " +
                    shape_str(sizes()) + ").");
      if (is_contiguous(format)) return *this;
      return permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    case MemoryFormat::ChannelsLast3d:
      if (dim() != 5)
        throw Error("[contiguous] required rank 5 tensor to use channels_last_3d format, got " + str(dim()) +
                    " dims (shape " + shape_str(sizes()) + ").");
      if (is_contiguous(format)) return *this;
      return permute({0, 2, 3, 4, 1}).contiguous().permute({0, 4, 1, 2, 3});
  }
  return contiguous();
}

MemoryFormat Tensor::suggest_memory_format(bool channels_last_strides_exact_match) const {
  (void)channels_last_strides_exact_match;  // locus's test is already exact
  if (is_contiguous()) return MemoryFormat::Contiguous;
  if (is_contiguous(MemoryFormat::ChannelsLast)) return MemoryFormat::ChannelsLast;
  if (is_contiguous(MemoryFormat::ChannelsLast3d)) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

// free amax / amin with libtorch's defaults (all dims)
Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim) { return self.amax(dims, keepdim); }
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim) { return self.amin(dims, keepdim); }

}  // namespace locus
