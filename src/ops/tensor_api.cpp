// The Tensor API around the math that libtorch programs use (tensor API batch, stop 47): in-place
// view ops, resize_, view(dtype), numpy's splits, mT/mH/adjoint, narrow_copy, result_type,
// can_cast, is_signed. Found by scripts/libtorch-diff/tensor_api.cpp.
#include <string>

#include "autograd/record.h"
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {

namespace {

// Makes self's metadata (sizes, strides, offset) that of `v`, a view of self's storage.
Tensor& adopt_view(const Tensor& self, const Tensor& v) {
  TensorImpl* i = self.unsafeGetTensorImpl();
  const TensorImpl* s = v.unsafeGetTensorImpl();
  i->sizes = s->sizes;
  i->strides = s->strides;
  i->offset = s->offset;
  i->refresh();
  return const_cast<Tensor&>(self);
}

void check_view_inplace(const char* op, const Tensor& self) {
  if (!self.defined()) throw Error("[" + std::string(op) + "] the tensor is undefined.");
  if (autograd::should_record(self))
    throw Error("[" + std::string(op) + "] in-place view ops on a tensor that requires grad are not recorded by locus; "
                "use the out-of-place form (e.g. x = x.t() for x.t_()).");
}

std::vector<Tensor> numpy_split(const char* op, const Tensor& self, int64_t dim, int64_t min_dims, int64_t sections) {
  if (self.dim() < min_dims)
    throw Error("[" + std::string(op) + "] requires a tensor with at least " + std::to_string(min_dims) +
                " dimension(s), but got a tensor with " + std::to_string(self.dim()) + " dimension(s).");
  if (sections <= 0) throw Error("[" + std::string(op) + "] the number of sections must be positive, got " +
                                 std::to_string(sections) + ".");
  if (self.size(dim) % sections != 0)
    throw Error("[" + std::string(op) + "] attempted to split along dimension " + std::to_string(dim) +
                ", but the size of the dimension " + std::to_string(self.size(dim)) +
                " is not divisible by the split_size " + std::to_string(sections) + "!");
  return self.tensor_split(sections, dim);
}
std::vector<Tensor> numpy_split(const char* op, const Tensor& self, int64_t dim, int64_t min_dims, IntArrayRef indices) {
  if (self.dim() < min_dims)
    throw Error("[" + std::string(op) + "] requires a tensor with at least " + std::to_string(min_dims) +
                " dimension(s), but got a tensor with " + std::to_string(self.dim()) + " dimension(s).");
  return self.tensor_split(indices, dim);
}

}  // namespace

Tensor& Tensor::t_() const {
  check_view_inplace("t_", *this);
  return adopt_view(*this, t());
}
Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  check_view_inplace("transpose_", *this);
  return adopt_view(*this, transpose(dim0, dim1));
}
Tensor& Tensor::swapaxes_(int64_t axis0, int64_t axis1) const {
  check_view_inplace("swapaxes_", *this);
  return adopt_view(*this, transpose(axis0, axis1));
}
Tensor& Tensor::swapdims_(int64_t dim0, int64_t dim1) const {
  check_view_inplace("swapdims_", *this);
  return adopt_view(*this, transpose(dim0, dim1));
}
Tensor& Tensor::unsqueeze_(int64_t d) const {
  check_view_inplace("unsqueeze_", *this);
  return adopt_view(*this, unsqueeze(d));
}
Tensor& Tensor::squeeze_() const {
  check_view_inplace("squeeze_", *this);
  return adopt_view(*this, squeeze());
}
Tensor& Tensor::squeeze_(int64_t d) const {
  check_view_inplace("squeeze_", *this);
  return adopt_view(*this, squeeze(d));
}
Tensor& Tensor::as_strided_(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) const {
  check_view_inplace("as_strided_", *this);
  return adopt_view(*this, as_strided(sizes, strides, storage_offset));
}

Tensor& Tensor::resize_(IntArrayRef new_sizes) const {
  check_view_inplace("resize_", *this);
  int64_t n = 1;
  for (int64_t s : new_sizes) {
    if (s < 0) throw Error("[resize_] sizes must be non-negative, got " + ops::shape_str(new_sizes) + ".");
    n *= s;
  }
  TensorImpl* i = unsafeGetTensorImpl();
  const int64_t elem = static_cast<int64_t>(element_size());
  const int64_t capacity = static_cast<int64_t>(i->storage->nbytes) / elem;
  if (i->offset + n > capacity) {
    // a larger storage holding the old one's bytes first (views of the old storage keep it)
    Tensor grown = empty({i->offset + n}, options());
    if (capacity > 0) {
      Tensor old = detail::make_view(*this, {capacity}, {1}, 0);
      NoGradGuard no_grad;
      grown.narrow(0, 0, capacity).copy_(old);
    }
    i->storage = grown.unsafeGetTensorImpl()->storage;
    i->view_base.reset();  // no longer shares its base's storage
  }
  i->sizes = DimVector(new_sizes);
  i->strides = DimVector(new_sizes.size(), 1);
  for (int64_t k = static_cast<int64_t>(new_sizes.size()) - 2; k >= 0; --k)
    i->strides[k] = i->strides[k + 1] * std::max<int64_t>(new_sizes[k + 1], 1);
  i->refresh();
  autograd::bump_version(*this);
  return mut_self();
}
Tensor& Tensor::resize_as_(const Tensor& other) const { return resize_(other.sizes()); }
Tensor& resize_(const Tensor& self, IntArrayRef sizes) { return self.resize_(sizes); }

Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

Tensor Tensor::view(ScalarType dtype) const {
  if (!defined()) throw Error("[view] the tensor is undefined.");
  if (dtype == scalar_type()) return view(sizes());
  const int64_t from = static_cast<int64_t>(element_size()), to = static_cast<int64_t>(locus::element_size(dtype));
  if (autograd::should_record(*this))
    throw Error("[view] viewing a tensor that requires grad as " + std::string(locus::toString(dtype)) +
                " is not differentiable; detach() it first.");
  DimVector sz(sizes()), st(strides());
  int64_t off = storage_offset();
  if (from != to) {
    if (dim() == 0)
      throw Error("[view] a 0-dim tensor cannot be viewed as a dtype of a different element size (" +
                  std::to_string(from) + " vs " + std::to_string(to) + " bytes).");
    if (stride(-1) != 1)
      throw Error("[view] to view as a dtype of a different element size, the last dimension must have stride 1; "
                  "call contiguous() first.");
    if (from > to) {  // more, smaller elements
      const int64_t k = from / to;
      sz.back() *= k;
      for (size_t d = 0; d + 1 < st.size(); ++d) st[d] *= k;
      off *= k;
    } else {
      const int64_t k = to / from;
      if (sz.back() % k != 0 || off % k != 0)
        throw Error("[view] the last dimension's size (" + std::to_string(size(-1)) + ") and the storage offset (" +
                    std::to_string(storage_offset()) + ") must be divisible by " + std::to_string(k) + " to view " +
                    locus::toString(scalar_type()) + " as " + locus::toString(dtype) + ".");
      for (size_t d = 0; d + 1 < st.size(); ++d) {
        if (st[d] % k != 0)
          throw Error("[view] the strides other than the last must be divisible by " + std::to_string(k) +
                      " to view as a larger dtype.");
        st[d] /= k;
      }
      sz.back() /= k;
      off /= k;
    }
  }
  Tensor out = detail::make_view(*this, sz, st, off);
  TensorImpl* oi = out.unsafeGetTensorImpl();
  if (dtype != scalar_type()) oi->view_base.reset();  // not differentiable through the reinterpretation
  oi->dtype = dtype;
  oi->refresh();
  return out;
}

Tensor Tensor::narrow_copy(int64_t dim, int64_t start, int64_t length) const {
  return narrow(dim, start, length).clone();
}
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow_copy(dim, start, length);
}

Tensor Tensor::mT() const {
  if (dim() < 2)
    throw Error("[mT] tensor.mT is only supported on matrices or batches of matrices. Got " + std::to_string(dim()) +
                "-D tensor.");
  return transpose(-2, -1);
}
Tensor Tensor::mH() const {
  if (dim() < 2)
    throw Error("[mH] tensor.mH is only supported on matrices or batches of matrices. Got " + std::to_string(dim()) +
                "-D tensor.");
  return transpose(-2, -1);
}
Tensor Tensor::adjoint() const { return mH(); }
Tensor adjoint(const Tensor& self) { return self.adjoint(); }

std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  return numpy_split("hsplit", *this, dim() == 1 ? 0 : 1, 1, sections);
}
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  return numpy_split("hsplit", *this, dim() == 1 ? 0 : 1, 1, indices);
}
std::vector<Tensor> Tensor::vsplit(int64_t sections) const { return numpy_split("vsplit", *this, 0, 2, sections); }
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const { return numpy_split("vsplit", *this, 0, 2, indices); }
std::vector<Tensor> Tensor::dsplit(int64_t sections) const { return numpy_split("dsplit", *this, 2, 3, sections); }
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const { return numpy_split("dsplit", *this, 2, 3, indices); }
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) { return self.hsplit(sections); }
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) { return self.hsplit(indices); }
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) { return self.vsplit(sections); }
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) { return self.vsplit(indices); }
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) { return self.dsplit(sections); }
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) { return self.dsplit(indices); }

bool Tensor::is_signed() const {
  ScalarType t = scalar_type();
  return t != kByte && t != kBool;
}

namespace {
// A Scalar as PyTorch wraps a number for type promotion: bool, int64 or the default float dtype.
Tensor wrapped(const Scalar& s) {
  if (s.isBoolean()) return full({}, s, TensorOptions().dtype(kBool));
  if (s.isIntegral(false)) return full({}, s, TensorOptions().dtype(kLong));
  return full({}, s, TensorOptions().dtype(default_dtype()));
}
}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) { return ops::result_type({&a, &b}); }
ScalarType result_type(const Tensor& a, const Scalar& b) {
  Tensor w = wrapped(b);
  return ops::result_type({&a, &w});
}
ScalarType result_type(const Scalar& a, const Tensor& b) { return result_type(b, a); }
ScalarType result_type(const Scalar& a, const Scalar& b) {
  Tensor wa = wrapped(a), wb = wrapped(b);
  return ops::result_type({&wa, &wb});
}
bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  return !(from != kBool && to == kBool);
}

}  // namespace locus
