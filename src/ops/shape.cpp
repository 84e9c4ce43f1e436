// Views and shape ops: metadata only, identical on every device.
#include <algorithm>
#include <optional>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "ops/checks.h"

namespace locus {
namespace {

using detail::make_view;
using detail::wrap_dim;

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape);
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) throw Error("[" + std::string(op) + "] only one dimension can be inferred (-1), got shape " + ops::shape_str(shape) + ".");
      infer = i;
    } else if (shape[i] < 0) {
      throw Error("[" + std::string(op) + "] invalid shape dimension " + std::to_string(shape[i]) + " in " + ops::shape_str(shape) + ".");
    } else {
      known *= shape[i];
    }
  }
  if (infer) {
    if (known == 0 || numel % known != 0)
      throw Error("[" + std::string(op) + "] shape " + ops::shape_str(shape) + " is invalid for input of size " + std::to_string(numel) + ".");
    out[*infer] = numel / known;
  } else if (known != numel) {
    throw Error("[" + std::string(op) + "] shape " + ops::shape_str(shape) + " is invalid for input of size " + std::to_string(numel) + ".");
  }
  return out;
}

// Strides for viewing (old sizes/strides) as new sizes without copying, if possible.
std::optional<DimVector> compute_stride(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape) {
  DimVector newstride(newshape.size());
  if (oldshape.empty()) {
    std::fill(newstride.begin(), newstride.end(), 1);
    return newstride;
  }
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0) {
    if (oldshape == newshape) return DimVector(oldstride);
    return detail::contiguous_strides(newshape);
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; tensor_d--) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

}  // namespace

Tensor Tensor::view(IntArrayRef shape) const {
  DimVector sz = infer_size(shape, numel(), "view");
  auto st = compute_stride(sizes(), strides(), sz);
  if (!st)
    throw Error("[view] view size " + ops::shape_str(sz) + " is not compatible with input tensor's size " +
                ops::shape_str(sizes()) + " and stride " + ops::shape_str(strides()) +
                " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return autograd::reshape_hook(make_view(*this, sz, *st, storage_offset()), *this);
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  DimVector sz = infer_size(shape, numel(), "reshape");
  auto st = compute_stride(sizes(), strides(), sz);
  if (st) return autograd::reshape_hook(make_view(*this, sz, *st, storage_offset()), *this);
  return contiguous().view(sz);
}

Tensor Tensor::t() const {
  if (dim() > 2) throw Error("[t] expects a tensor with <= 2 dimensions, but self is " + std::to_string(dim()) + "D; use transpose(dim0, dim1).");
  if (dim() < 2) return autograd::reshape_hook(make_view(*this, sizes(), strides(), storage_offset()), *this);
  return transpose(0, 1);
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  int64_t n = dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  DimVector sz(sizes()), st(strides());
  if (n > 0) {
    std::swap(sz[d0], sz[d1]);
    std::swap(st[d0], st[d1]);
  }
  return autograd::transpose_hook(make_view(*this, sz, st, storage_offset()), *this, d0, d1);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  int64_t n = dim();
  if (static_cast<int64_t>(dims.size()) != n)
    throw Error("[permute] number of dims don't match: the tensor has " + std::to_string(n) + " dims but " +
                std::to_string(dims.size()) + " were given (" + ops::shape_str(dims) + ").");
  DimVector sz(n), st(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n, "permute");
    if (seen[d]) throw Error("[permute] repeated dim " + std::to_string(d) + " in " + ops::shape_str(dims) + ".");
    seen[d] = true;
    sz[i] = size(d);
    st[i] = stride(d);
  }
  return autograd::permute_hook(make_view(*this, sz, st, storage_offset()), *this, dims);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  DimVector sz(sizes()), st(strides());
  int64_t new_stride = d >= dim() ? 1 : sz[d] * st[d];
  sz.insert(d, 1);
  st.insert(d, new_stride);
  return autograd::reshape_hook(make_view(*this, sz, st, storage_offset()), *this);
}

Tensor Tensor::squeeze() const {
  DimVector sz, st;
  for (int64_t i = 0; i < dim(); ++i)
    if (size(i) != 1) { sz.push_back(size(i)); st.push_back(stride(i)); }
  return autograd::reshape_hook(make_view(*this, sz, st, storage_offset()), *this);
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return autograd::reshape_hook(make_view(*this, sizes(), strides(), storage_offset()), *this);
  d = wrap_dim(d, dim(), "squeeze");
  DimVector sz(sizes()), st(strides());
  if (sz[d] == 1) { sz.erase(d); st.erase(d); }
  return autograd::reshape_hook(make_view(*this, sz, st, storage_offset()), *this);
}

Tensor Tensor::flatten(int64_t start, int64_t end) const {
  if (dim() == 0) return reshape({1});
  start = wrap_dim(start, dim(), "flatten");
  end = wrap_dim(end, dim(), "flatten");
  if (start > end) throw Error("[flatten] start_dim (" + std::to_string(start) + ") cannot come after end_dim (" + std::to_string(end) + ").");
  if (start == end) return autograd::reshape_hook(make_view(*this, sizes(), strides(), storage_offset()), *this);
  DimVector sz;
  for (int64_t i = 0; i < start; ++i) sz.push_back(size(i));
  int64_t m = 1;
  for (int64_t i = start; i <= end; ++i) m *= size(i);
  sz.push_back(m);
  for (int64_t i = end + 1; i < dim(); ++i) sz.push_back(size(i));
  return reshape(sz);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  if (dim() == 0) throw Error("[narrow] cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "narrow");
  int64_t n = size(d);
  if (start < 0) start += n;
  if (start < 0 || length < 0 || start + length > n)
    throw Error("[narrow] start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                ") exceeds dimension size (" + std::to_string(n) + ") of dim " + std::to_string(d) + ".");
  DimVector sz(sizes());
  sz[d] = length;
  return autograd::restrict_hook(make_view(*this, sz, strides(), storage_offset() + start * stride(d)), *this,
                                 [d, start, length](const Tensor& b) { return b.narrow(d, start, length); });
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (dim() == 0) throw Error("[select] cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  int64_t n = size(d);
  if (index < -n || index >= n)
    throw Error("[select] index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(d) +
                " with size " + std::to_string(n) + ".");
  if (index < 0) index += n;
  DimVector sz(sizes()), st(strides());
  int64_t off = storage_offset() + index * st[d];
  sz.erase(d);
  st.erase(d);
  return autograd::restrict_hook(make_view(*this, sz, st, off), *this,
                                 [d, index](const Tensor& b) { return b.select(d, index); });
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt, int64_t step) const {
  if (dim() == 0) throw Error("[slice] cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "slice");
  if (step <= 0) throw Error("[slice] step must be positive, got " + std::to_string(step) + ".");
  int64_t n = size(d);
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(n);
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  DimVector sz(sizes()), st(strides());
  sz[d] = (end - start + step - 1) / step;
  st[d] *= step;
  return autograd::restrict_hook(make_view(*this, sz, st, storage_offset() + start * stride(d)), *this,
                                 [d, start, end, step](const Tensor& b) { return b.slice(d, start, end, step); });
}

Tensor Tensor::expand(IntArrayRef shape) const {
  if (static_cast<int64_t>(shape.size()) < dim())
    throw Error("[expand] the number of sizes provided (" + std::to_string(shape.size()) +
                ") must be greater or equal to the number of dimensions in the tensor (" + std::to_string(dim()) + ").");
  size_t n = shape.size(), lead = n - static_cast<size_t>(dim());
  DimVector sz(n), st(n);
  for (size_t i = 0; i < n; ++i) {
    if (i < lead) {
      if (shape[i] < 0) throw Error("[expand] -1 is not allowed in a leading, non-existing dimension " + std::to_string(i) + ".");
      sz[i] = shape[i];
      st[i] = 0;
      continue;
    }
    int64_t have = size(static_cast<int64_t>(i - lead));
    int64_t want = shape[i] == -1 ? have : shape[i];
    if (have != want && have != 1)
      throw Error("[expand] the expanded size of the tensor (" + std::to_string(want) + ") must match the existing size (" +
                  std::to_string(have) + ") at non-singleton dimension " + std::to_string(i) + ". Target sizes: " +
                  ops::shape_str(shape) + ". Tensor sizes: " + ops::shape_str(sizes()) + ".");
    sz[i] = want;
    st[i] = have == want ? stride(static_cast<int64_t>(i - lead)) : 0;
  }
  return autograd::expand_hook(make_view(*this, sz, st, storage_offset()), *this);
}

Tensor Tensor::as_strided(IntArrayRef sz, IntArrayRef st, std::optional<int64_t> offset) const {
  if (sz.size() != st.size())
    throw Error("[as_strided] mismatch in length of strides and shape (" + std::to_string(sz.size()) + " vs " + std::to_string(st.size()) + ").");
  int64_t off = offset.value_or(storage_offset());
  int64_t max_index = off;
  for (size_t i = 0; i < sz.size(); ++i) {
    if (sz[i] < 0 || st[i] < 0) throw Error("[as_strided] negative sizes and strides are not supported.");
    if (sz[i] == 0) { max_index = -1; break; }
    max_index += (sz[i] - 1) * st[i];
  }
  int64_t capacity = static_cast<int64_t>(impl()->storage->nbytes / element_size());
  if (max_index >= capacity)
    throw Error("[as_strided] setStorage: sizes " + ops::shape_str(sz) + ", strides " + ops::shape_str(st) +
                " and storage offset " + std::to_string(off) + " require a storage of " + std::to_string(max_index + 1) +
                " elements, but the storage holds " + std::to_string(capacity) + ".");
  Tensor out = make_view(*this, sz, st, off);
  if (autograd::should_record(*this)) autograd::on_as_strided(out, *this);
  return out;
}

Tensor Tensor::flip(IntArrayRef dims) const {
  Tensor out = *this;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(dim(), 1)), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, dim(), "flip");
    if (seen[w]) throw Error("[flip] dim " + std::to_string(w) + " appears multiple times in the list of dims.");
    seen[w] = true;
    int64_t n = size(w);
    if (n > 1) out = out.index_select(w, arange(n - 1, -1, -1, TensorOptions().dtype(kLong).device(device())));
  }
  return out.is_same(*this) ? clone() : out;
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  int64_t nd = static_cast<int64_t>(repeats.size());
  if (nd < dim())
    throw Error("[repeat] number of dimensions of repeat dims (" + std::to_string(nd) +
                ") can not be smaller than number of dimensions of tensor (" + std::to_string(dim()) + ").");
  // view as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], then merge each pair
  DimVector padded(static_cast<size_t>(nd - dim()), 1), inter, expanded, out_sizes;
  for (int64_t s : sizes()) padded.push_back(s);
  for (int64_t i = 0; i < nd; ++i) {
    if (repeats[i] < 0) throw Error("[repeat] repeats can not be negative, got " + ops::shape_str(repeats) + ".");
    inter.push_back(1), inter.push_back(padded[i]);
    expanded.push_back(repeats[i]), expanded.push_back(padded[i]);
    out_sizes.push_back(repeats[i] * padded[i]);
  }
  return reshape(inter).expand(expanded).contiguous().view(out_sizes);
}

// ---- free-function forms --------------------------------------------------------------------
Tensor flatten(const Tensor& a, int64_t s, int64_t e) { return a.flatten(s, e); }
Tensor clone(const Tensor& a) { return a.clone(); }
Tensor reshape(const Tensor& a, IntArrayRef sizes) { return a.reshape(sizes); }
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) { return a.transpose(d0, d1); }
Tensor permute(const Tensor& a, IntArrayRef dims) { return a.permute(dims); }
Tensor unsqueeze(const Tensor& a, int64_t d) { return a.unsqueeze(d); }
Tensor squeeze(const Tensor& a) { return a.squeeze(); }
Tensor squeeze(const Tensor& a, int64_t d) { return a.squeeze(d); }
Tensor narrow(const Tensor& a, int64_t d, int64_t s, int64_t l) { return a.narrow(d, s, l); }
Tensor select(const Tensor& a, int64_t d, int64_t i) { return a.select(d, i); }
Tensor flip(const Tensor& a, IntArrayRef dims) { return a.flip(dims); }

}  // namespace locus
