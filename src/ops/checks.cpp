#include "ops/checks.h"

#include <sstream>

namespace locus::ops {

void check_no_internal_overlap(const char* op, const Tensor& out) {
  const TensorImpl* t = out.unsafeGetTensorImpl();
  for (size_t i = 0; i < t->sizes.size(); ++i)
    if (t->sizes[i] > 1 && t->strides[i] == 0)
      throw Error("[" + std::string(op) + "] unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location (it is an expand()ed view). Please clone() the tensor before performing "
                  "the operation.");
}

void check_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in, bool same_ok) {
  const TensorImpl *a = out.unsafeGetTensorImpl(), *b = in.unsafeGetTensorImpl();
  if (a == nullptr || b == nullptr || !a->storage || a->storage != b->storage || a->numel == 0 || b->numel == 0) return;
  if (a != b && (!a->contiguous || !b->contiguous)) return;
  const int64_t ia = static_cast<int64_t>(element_size(a->dtype)), ib = static_cast<int64_t>(element_size(b->dtype));
  const int64_t a0 = a->offset * ia, a1 = a0 + a->numel * ia, b0 = b->offset * ib, b1 = b0 + b->numel * ib;
  if (a1 <= b0 || b1 <= a0) return;  // apart
  if (same_ok && (a == b || (a0 == b0 && a1 == b1 && a->sizes == b->sizes && ia == ib))) return;  // the same elements
  throw Error("[" + std::string(op) + "] unsupported operation: some elements of the input tensor and the written-to "
              "tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
}

backend::Buffer buffer(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  impl->storage->wait_pending();
  backend::Buffer b = impl->storage->alloc.buf;
  b.offset += static_cast<size_t>(impl->offset) * element_size(impl->dtype);
  return b;
}

backend::TensorRef ref(const Tensor& t, const char* op) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->sizes.size() > static_cast<size_t>(backend::kMaxDims))
    throw Error("[" + std::string(op) + "] tensors with more than " + std::to_string(backend::kMaxDims) +
                " dimensions are not supported by this op, got " + std::to_string(impl->sizes.size()) +
                ". Reshape to fewer dimensions first.");
  backend::TensorRef r;
  r.buf = buffer(t);
  r.dtype = impl->dtype;
  r.ndim = static_cast<int>(impl->sizes.size());
  for (int i = 0; i < r.ndim; ++i) {
    r.sizes[i] = impl->sizes[i];
    r.strides[i] = impl->strides[i];
  }
  return r;
}

backend::TensorRef ref_broadcast(const Tensor& t, IntArrayRef sizes, const char* op) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (sizes.size() > static_cast<size_t>(backend::kMaxDims))
    throw Error("[" + std::string(op) + "] tensors with more than " + std::to_string(backend::kMaxDims) +
                " dimensions are not supported by this op, got " + std::to_string(sizes.size()) +
                ". Reshape to fewer dimensions first.");
  backend::TensorRef r;
  r.buf = buffer(t);
  r.dtype = impl->dtype;
  r.ndim = static_cast<int>(sizes.size());
  int64_t lead = r.ndim - static_cast<int64_t>(impl->sizes.size());
  for (int i = 0; i < r.ndim; ++i) {
    r.sizes[i] = sizes[i];
    int64_t j = i - lead;
    if (j < 0 || (impl->sizes[j] == 1 && sizes[i] != 1)) r.strides[i] = 0;
    else r.strides[i] = impl->strides[j];
  }
  return r;
}

backend::TensorRef ref_flat(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  backend::TensorRef r{backend::TensorRef::Unset{}};  // ndim 1: only dim 0 is read
  r.buf = buffer(t);
  r.dtype = impl->dtype;
  r.ndim = 1;
  r.sizes[0] = impl->numel;
  r.strides[0] = 1;
  return r;
}

void coalesce(backend::TensorRef* refs[], int n) {
  backend::TensorRef& r0 = *refs[0];
  if (r0.ndim <= 1) return;
  // drop size-1 dims, then merge dim i into i+1 when stride[i] == stride[i+1] * size[i+1] everywhere
  int nd = 0;
  for (int i = 0; i < r0.ndim; ++i) {
    if (r0.sizes[i] == 1) continue;
    for (int k = 0; k < n; ++k) {
      refs[k]->sizes[nd] = refs[k]->sizes[i];
      refs[k]->strides[nd] = refs[k]->strides[i];
    }
    ++nd;
  }
  if (nd == 0) {
    for (int k = 0; k < n; ++k) { refs[k]->ndim = 1; refs[k]->sizes[0] = 1; refs[k]->strides[0] = 1; }
    return;
  }
  int out = 0;
  for (int i = 1; i < nd; ++i) {
    bool mergeable = true;
    for (int k = 0; k < n; ++k)
      if (refs[k]->strides[out] != refs[k]->strides[i] * refs[k]->sizes[i]) { mergeable = false; break; }
    for (int k = 0; k < n; ++k) {
      if (mergeable) {
        refs[k]->sizes[out] *= refs[k]->sizes[i];
        refs[k]->strides[out] = refs[k]->strides[i];
      } else {
        refs[k]->sizes[out + 1] = refs[k]->sizes[i];
        refs[k]->strides[out + 1] = refs[k]->strides[i];
      }
    }
    if (!mergeable) ++out;
  }
  for (int k = 0; k < n; ++k) refs[k]->ndim = out + 1;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error("[" + std::string(op) + "] the size of tensor a (" + std::to_string(da) +
                  ") must match the size of tensor b (" + std::to_string(db) + ") at non-singleton dimension " +
                  std::to_string(i) + "; shapes " + shape_str(a) + " and " + shape_str(b) +
                  " cannot be broadcast together.");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void check_scalar_fits(const char* op, double value, ScalarType dtype) {
  double lo = 0, hi = 0;
  switch (dtype) {
    case kByte: lo = 0; hi = 255; break;
    case kChar: lo = -128; hi = 127; break;
    case kShort: lo = -32768; hi = 32767; break;
    case kInt: lo = -2147483648.0; hi = 2147483647.0; break;
    default: return;
  }
  if (value >= lo && value < hi + 1) return;  // a fraction truncates, as PyTorch's conversion does
  std::ostringstream os;
  os << "[" << op << "] value cannot be converted to type " << dtype_name(dtype) << " without overflow: " << value << " ("
     << dtype_name(dtype) << " holds " << static_cast<int64_t>(lo) << " to " << static_cast<int64_t>(hi)
     << "). Use a value in that range or a wider dtype.";
  throw Error(os.str());
}

Tensor cast(const Tensor& t, ScalarType dtype) {
  if (t.scalar_type() == dtype) return t;
  return t.to(dtype);
}

}  // namespace locus::ops
