// More ops composed from other differentiable ops (libtorch's broadcast_to, broadcast_tensors,
// meshgrid, cartesian_prod, tile, unfold, diff, diagonal, diag_embed, kron, cross, tensordot, cdist,
// var_mean, std_mean, aminmax, cummax, cummin, logcumsumexp, rot90, fliplr, flipud, atleast_nd,
// block_diag, hstack and friends, trapezoid; the factories logspace, tril_indices, triu_indices).
// Each checks its arguments as PyTorch does, then runs on any device through the ops it is made
// of, and autograd differentiates it through them. No backend kernel of its own.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "core/tensor_impl.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {
namespace {

using detail::wrap_dim;

std::string str(int64_t v) { return std::to_string(v); }

TensorOptions like(const Tensor& t, ScalarType dtype) { return TensorOptions().dtype(dtype).device(t.device()); }

// The dims of an n-D tensor as a list (0..n-1).
std::vector<int64_t> all_dims(int64_t n) {
  std::vector<int64_t> d(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) d[static_cast<size_t>(i)] = i;
  return d;
}

// Hillis-Steele scan for cummax / cummin: after the step of shift s, position j holds the result over
// [j - 2s + 1, j]; combining an earlier result a with a later one b keeps b when b is NaN, or when
// neither is NaN and b >= a (max) / b <= a (min): the last index of the running extreme, NaN sticking.
Tensor cum_extreme_indices(const Tensor& self, int64_t d, bool is_max) {
  const int64_t n = self.size(d);
  std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
  shape[static_cast<size_t>(d)] = n;
  Tensor v = self.detach();
  Tensor idx = arange(n, like(self, kLong)).view(shape).expand(self.sizes()).contiguous();
  for (int64_t s = 1; s < n; s *= 2) {
    Tensor av = v.narrow(d, 0, n - s), bv = v.narrow(d, s, n - s);
    Tensor ai = idx.narrow(d, 0, n - s), bi = idx.narrow(d, s, n - s);
    Tensor b_nan = bv.isnan(), a_nan = av.isnan();
    Tensor better = is_max ? bv.ge(av) : bv.le(av);
    Tensor take_b = b_nan.logical_or(a_nan.logical_not().logical_and(better));
    v = cat({v.narrow(d, 0, s), locus::where(take_b, bv, av)}, d);
    idx = cat({idx.narrow(d, 0, s), locus::where(take_b, bi, ai)}, d);
  }
  return idx;
}

std::tuple<Tensor, Tensor> cum_extreme(const Tensor& self, int64_t dim, bool is_max) {
  const char* op = is_max ? "cummax" : "cummin";
  if (self.dim() == 0) {
    wrap_dim(dim, 1, op);
    return {self.clone(), zeros({}, like(self, kLong))};
  }
  const int64_t d = wrap_dim(dim, self.dim(), op);
  if (self.numel() == 0) return {self.clone(), empty(self.sizes(), like(self, kLong))};
  Tensor idx = cum_extreme_indices(self, d, is_max);
  return {self.gather(d, idx), idx};
}

// log(exp(a) + exp(b)) elementwise, stably; equal infinities give themselves (no inf - inf).
Tensor log_add_exp(const Tensor& a, const Tensor& b) {
  Tensor a_first = a.ge(b);  // one condition for both picks, so ties share the gradient evenly
  Tensor hi = locus::where(a_first, a, b), lo = locus::where(a_first, b, a);
  Tensor same_inf = lo.isinf().logical_and(lo.eq(hi));
  Tensor gap = locus::where(same_inf, zeros({}, like(a, a.scalar_type())), lo - hi);
  return locus::where(same_inf, hi, hi + gap.exp().log1p());
}

// The 2-D form of a block_diag operand.
Tensor as_block(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1});
  if (t.dim() == 1) return t.unsqueeze(0);
  return t;
}

// PyTorch's result type over a list: 0-dim tensors count only when of a higher category.
ScalarType list_result_type(const std::vector<Tensor>& tensors) {
  auto category = [](ScalarType t) { return t == kBool ? 0 : is_floating_point(t) ? 2 : 1; };
  std::optional<ScalarType> dense, scalar;
  for (const Tensor& t : tensors) {
    std::optional<ScalarType>& acc = t.dim() > 0 ? dense : scalar;
    acc = acc ? promote_types(*acc, t.scalar_type()) : t.scalar_type();
  }
  if (!dense) return scalar.value_or(kFloat);
  if (scalar && category(*scalar) > category(*dense)) return promote_types(*dense, *scalar);
  return *dense;
}

void check_nonempty(const char* op, const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw Error("[" + std::string(op) + "] expects a non-empty TensorList.");
}

Tensor tri_indices(const char* op, int64_t row, int64_t col, int64_t offset, const TensorOptions& options,
                   bool lower) {
  if (row < 0) throw Error("[" + std::string(op) + "] row must be non-negative, got " + str(row) + ".");
  if (col < 0) throw Error("[" + std::string(op) + "] col must be non-negative, got " + str(col) + ".");
  ScalarType dtype = options.has_dtype() ? options.dtype() : kLong;
  if (is_floating_point(dtype) || dtype == kBool)
    throw Error("[" + std::string(op) + "] not implemented for " + dtype_name(dtype) +
                "; the indices need an integer dtype (kLong by default).");
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i)
    for (int64_t j = 0; j < col; ++j)
      if (lower ? j - i <= offset : j - i >= offset) rows.push_back(i), cols.push_back(j);
  // computed on the host (the count is known only after the loop), then moved once
  const int64_t n = static_cast<int64_t>(rows.size());
  Tensor host = empty({2, n}, TensorOptions().dtype(kLong));
  std::copy(rows.begin(), rows.end(), host.data_ptr<int64_t>());
  std::copy(cols.begin(), cols.end(), host.data_ptr<int64_t>() + n);
  Tensor out = empty({2, n}, TensorOptions(options).dtype(dtype).requires_grad(false));
  out.copy_(host);
  return options.requires_grad() ? out.requires_grad_(true) : out;
}

Tensor zeros_except(const Tensor& y, int64_t d) {
  std::vector<int64_t> s(y.sizes().begin(), y.sizes().end());
  s.erase(s.begin() + d);
  return zeros(s, like(y, y.scalar_type()));
}

void check_trapezoid_dtype(const Tensor& y, const Tensor* x) {
  if (y.scalar_type() == kBool || (x != nullptr && x->scalar_type() == kBool))
    throw Error("[trapezoid] received a bool input for `x` or `y`, but bool is not supported; convert it with "
                ".to(kFloat) first.");
}

}  // namespace

// ---- broadcasting --------------------------------------------------------------------------------
Tensor Tensor::broadcast_to(IntArrayRef size) const {
  const int64_t n = static_cast<int64_t>(size.size());
  if (n < dim())
    throw Error("[broadcast_to] the number of sizes provided (" + str(n) +
                ") must be greater or equal to the number of dimensions in the tensor (" + str(dim()) + ").");
  for (int64_t i = 0; i < dim(); ++i) {
    const int64_t want = size[static_cast<size_t>(n - dim() + i)], have = this->size(i);
    if (want != -1 && have != 1 && want != have)
      throw Error("[broadcast_to] the expanded size of the tensor (" + str(want) + ") must match the existing size (" +
                  str(have) + ") at non-singleton dimension " + str(n - dim() + i) + ". Target sizes: " +
                  ops::shape_str(size) + ". Tensor sizes: " + ops::shape_str(sizes()) + ".");
  }
  return expand(size);
}
Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return self.broadcast_to(size); }

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  ops::check_same_device("broadcast_tensors", tensors, "tensors");
  DimVector shape;
  for (const Tensor& t : tensors) shape = ops::broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors) { return meshgrid(tensors, "ij"); }
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  if (indexing != "ij" && indexing != "xy")
    throw Error("[meshgrid] indexing must be one of \"xy\" or \"ij\", but received: " + std::string(indexing) + ".");
  if (tensors.empty()) throw Error("[meshgrid] expects a non-empty TensorList.");
  ops::check_same_device("meshgrid", tensors, "tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].dim() > 1)
      throw Error("[meshgrid] expected 0D or 1D tensor in the tensor list but got a " + str(tensors[i].dim()) +
                  "-D tensor at position " + str(static_cast<int64_t>(i)) + ".");
    if (tensors[i].scalar_type() != tensors[0].scalar_type())
      throw Error(std::string("[meshgrid] expects all tensors to have the same dtype, but tensor 0 is ") +
                  dtype_name(tensors[0].scalar_type()) + " and tensor " + str(static_cast<int64_t>(i)) + " is " +
                  dtype_name(tensors[i].scalar_type()) + ".");
  }
  // "xy": the "ij" grids of the inputs with the first two swapped, those two grids swapped back
  std::vector<Tensor> in(tensors);
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  DimVector shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  for (size_t i = 0; i < in.size(); ++i) {
    DimVector view(in.size(), 1);
    view[i] = -1;
    grids.push_back(in[i].view(view).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

Tensor cartesian_prod(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors)
    if (t.dim() != 1)
      throw Error("[cartesian_prod] expects 1-D tensors, but got shape " + ops::shape_str(t.sizes()) + ".");
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

// ---- tiling, windows, differences -----------------------------------------------------------------
Tensor Tensor::tile(IntArrayRef dims) const {
  std::vector<int64_t> reps(dims.begin(), dims.end());
  if (static_cast<int64_t>(reps.size()) < dim())
    reps.insert(reps.begin(), dim() - static_cast<int64_t>(dims.size()), 1);
  for (int64_t r : reps)
    if (r < 0) throw Error("[tile] repetitions must be non-negative, got " + ops::shape_str(dims) + ".");
  return repeat(reps);
}
Tensor tile(const Tensor& self, IntArrayRef dims) { return self.tile(dims); }

Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  const int64_t d = wrap_dim(dimension, std::max<int64_t>(dim(), 1), "unfold");
  const int64_t len = dim() == 0 ? 1 : this->size(d);
  if (size < 0) throw Error("[unfold] size is " + str(size) + " but must be >= 0.");
  if (size > len)
    throw Error("[unfold] maximum size for tensor at dimension " + str(d) + " is " + str(len) + " but size is " +
                str(size) + ".");
  if (step <= 0) throw Error("[unfold] step is " + str(step) + " but must be > 0.");
  // a view: dim d counts the windows (its stride times step), a new last dim walks each window
  DimVector sz(sizes()), st(strides());
  if (dim() == 0) {
    sz.push_back(size);
    st.push_back(1);
  } else {
    sz[static_cast<size_t>(d)] = (len - size) / step + 1;
    st[static_cast<size_t>(d)] = stride(d) * step;
    sz.push_back(size);
    st.push_back(stride(d));
  }
  return as_strided(sz, st, storage_offset());
}

Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  if (this->dim() < 1) throw Error("[diff] expects input to be at least one-dimensional, got a 0-D tensor.");
  if (n < 0) throw Error("[diff] order must be non-negative but got " + str(n) + ".");
  const int64_t d = wrap_dim(dim, this->dim(), "diff");
  std::vector<Tensor> parts;
  for (const std::optional<Tensor>* other : {&prepend, &append}) {
    if (!other->has_value() || !(*other)->defined()) continue;
    const Tensor& o = **other;
    if (o.dim() != this->dim())
      throw Error("[diff] expects prepend or append to be the same dimension as input, got " + str(o.dim()) +
                  "-D and " + str(this->dim()) + "-D.");
    for (int64_t k = 0; k < this->dim(); ++k)
      if (k != d && o.size(k) != size(k))
        throw Error("[diff] expects the shape of tensor to prepend or append to match that of input except along "
                    "the differencing dimension; input.size(" + str(k) + ") = " + str(size(k)) +
                    ", but got tensor.size(" + str(k) + ") = " + str(o.size(k)) + ".");
  }
  Tensor out = *this;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    const Tensor none;
    ops::check_same_device("diff", {{"input", this},
                                    {"prepend", prepend && prepend->defined() ? &*prepend : &none},
                                    {"append", append && append->defined() ? &*append : &none}});
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(*this);
    if (append && append->defined()) parts.push_back(*append);
    out = cat(parts, d);
  }
  for (int64_t i = 0; i < n && out.size(d) > 0; ++i) {
    const int64_t len = out.size(d);
    Tensor later = out.narrow(d, 1, len - 1), earlier = out.narrow(d, 0, len - 1);
    out = out.scalar_type() == kBool ? later.ne(earlier) : later - earlier;
  }
  return out.is_same(*this) ? clone() : out;
}
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  return self.diff(n, dim, prepend, append);
}

// ---- diagonals ---------------------------------------------------------------------------------------
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  const int64_t d1 = wrap_dim(dim1, dim(), "diagonal"), d2 = wrap_dim(dim2, dim(), "diagonal");
  if (d1 == d2) throw Error("[diagonal] diagonal dimensions cannot be identical " + str(dim1) + ", " + str(dim2) + ".");
  const int64_t len = std::max<int64_t>(
      0, offset >= 0 ? std::min(size(d1), size(d2) - offset) : std::min(size(d1) + offset, size(d2)));
  int64_t off = storage_offset();
  if (len > 0) off += offset >= 0 ? offset * stride(d2) : -offset * stride(d1);
  DimVector sz, st;
  for (int64_t k = 0; k < dim(); ++k)
    if (k != d1 && k != d2) sz.push_back(size(k)), st.push_back(stride(k));
  sz.push_back(len);
  st.push_back(stride(d1) + stride(d2));
  return as_strided(sz, st, off);
}
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return self.diagonal(offset, dim1, dim2);
}

Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  const int64_t nd = dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd, "diag_embed"), d2 = wrap_dim(dim2, nd, "diag_embed");
  if (d1 == d2)
    throw Error("[diag_embed] diagonal dimensions cannot be identical " + str(dim1) + ", " + str(dim2) + ".");
  const Tensor v = dim() == 0 ? reshape({1}) : *this;
  const int64_t off = offset < 0 ? -offset : offset, n = v.size(-1) + off;
  // [..., n, n] with element [i, j] = v[i] (offset >= 0) or v[j] (offset < 0) where j - i == offset
  TensorOptions idx = like(v, kLong);
  Tensor on = (arange(n, idx).unsqueeze(0) - arange(n, idx).unsqueeze(1)).eq(offset);
  DimVector pad_shape(v.sizes());
  pad_shape.back() = off;
  Tensor padded = cat({v, zeros(pad_shape, like(v, v.scalar_type()))}, -1);
  Tensor full = locus::where(on, offset >= 0 ? padded.unsqueeze(-1) : padded.unsqueeze(-2),
                      zeros({}, like(v, v.scalar_type())));
  return full.movedim(IntArrayRef{nd - 2, nd - 1}, IntArrayRef{d1, d2});
}
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return self.diag_embed(offset, dim1, dim2);
}

// ---- products ---------------------------------------------------------------------------------------
Tensor Tensor::kron(const Tensor& other) const {
  ops::check_same_device("kron", {{"self", this}, {"other", &other}});
  const int64_t nd = std::max(dim(), other.dim());
  DimVector a_view, b_view, out_shape;
  for (int64_t k = 0; k < nd; ++k) {
    const int64_t ka = k - (nd - dim()), kb = k - (nd - other.dim());
    const int64_t sa = ka >= 0 ? size(ka) : 1, sb = kb >= 0 ? other.size(kb) : 1;
    a_view.push_back(sa), a_view.push_back(1);
    b_view.push_back(1), b_view.push_back(sb);
    out_shape.push_back(sa * sb);
  }
  return reshape(a_view).mul(other.reshape(b_view)).reshape(out_shape);
}
Tensor kron(const Tensor& self, const Tensor& other) { return self.kron(other); }

Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  ops::check_same_device("cross", {{"input", this}, {"other", &other}});
  if (scalar_type() != other.scalar_type())
    throw Error(std::string("[cross] expected both inputs to have the same dtype, but got ") +
                dtype_name(scalar_type()) + " and " + dtype_name(other.scalar_type()) + "; convert one with .to().");
  if (this->dim() != other.dim())
    throw Error("[cross] inputs must have the same number of dimensions, got " + str(this->dim()) + "-D and " +
                str(other.dim()) + "-D.");
  int64_t d = -1;
  if (dim) {
    d = wrap_dim(*dim, this->dim(), "cross");
  } else {  // libtorch's deprecated default: the input's first dim of size 3
    for (int64_t k = 0; k < this->dim() && d < 0; ++k)
      if (size(k) == 3) d = k;
    if (d < 0)
      throw Error("[cross] no dimension of size 3 in input " + ops::shape_str(sizes()) + "; pass dim explicitly.");
  }
  if (size(d) != 3 || other.size(d) != 3)
    throw Error("[cross] inputs dimension " + str(d) + " must have length 3. Got " + str(size(d)) + " and " +
                str(other.size(d)) + ".");
  auto a = [&](int64_t i) { return narrow(d, i, 1); };
  auto b = [&](int64_t i) { return other.narrow(d, i, 1); };
  return cat({a(1) * b(2) - a(2) * b(1), a(2) * b(0) - a(0) * b(2), a(0) * b(1) - a(1) * b(0)}, d);
}
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) { return self.cross(other, dim); }

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  ops::check_same_device("tensordot", {{"self", &self}, {"other", &other}});
  if (dims_self.size() != dims_other.size())
    throw Error("[tensordot] both dimension lists should have same length, got " + ops::shape_str(dims_self) +
                " and " + ops::shape_str(dims_other) + ".");
  if (self.scalar_type() != other.scalar_type())
    throw Error(std::string("[tensordot] expected both tensors to have the same dtype, but got ") +
                dtype_name(self.scalar_type()) + " and " + dtype_name(other.scalar_type()) +
                "; convert one with .to().");
  Tensor t1 = self, t2 = other;
  std::vector<bool> c1(static_cast<size_t>(self.dim()), false), c2(static_cast<size_t>(other.dim()), false);
  int64_t csize = 1;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t a = wrap_dim(dims_self[i], self.dim(), "tensordot");
    const int64_t b = wrap_dim(dims_other[i], other.dim(), "tensordot");
    if (c1[static_cast<size_t>(a)] || c2[static_cast<size_t>(b)])
      throw Error("[tensordot] dim " + str(c1[static_cast<size_t>(a)] ? a : b) +
                  " appears multiple times in the list of dims.");
    c1[static_cast<size_t>(a)] = c2[static_cast<size_t>(b)] = true;
    const int64_t s1 = self.size(a), s2 = other.size(b);
    if (s2 == 1) {  // a broadcast dim is summed right away, as PyTorch
      t1 = t1.sum(IntArrayRef{a}, true);
    } else if (s1 == 1) {
      t2 = t2.sum(IntArrayRef{b}, true);
    } else if (s1 != s2) {
      throw Error("[tensordot] contracted dimensions need to match, but first has size " + str(s1) + " in dim " +
                  str(a) + " and second has size " + str(s2) + " in dim " + str(b) + ".");
    } else {
      csize *= s1;
    }
  }
  // t1 as [kept1, contracted] and t2 as [contracted, kept2] (contracted in the lists' order), one mm
  std::vector<int64_t> p1, p2, out_shape;
  int64_t size1 = 1, size2 = 1;
  for (int64_t k = 0; k < self.dim(); ++k)
    if (!c1[static_cast<size_t>(k)]) p1.push_back(k), out_shape.push_back(self.size(k)), size1 *= self.size(k);
  for (size_t i = 0; i < dims_self.size(); ++i) {
    p1.push_back(wrap_dim(dims_self[i], self.dim(), "tensordot"));
    p2.push_back(wrap_dim(dims_other[i], other.dim(), "tensordot"));
  }
  for (int64_t k = 0; k < other.dim(); ++k)
    if (!c2[static_cast<size_t>(k)]) p2.push_back(k), out_shape.push_back(other.size(k)), size2 *= other.size(k);
  Tensor m1 = t1.permute(p1).reshape({size1, csize}), m2 = t2.permute(p2).reshape({csize, size2});
  return m1.matmul(m2).reshape(out_shape);
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  ops::check_same_device("cdist", {{"x1", &x1}, {"x2", &x2}});
  for (auto [name, t] : {std::pair<const char*, const Tensor*>{"X1", &x1}, {"X2", &x2}}) {
    if (t->dim() < 2)
      throw Error(std::string("[cdist] only supports at least 2D tensors, ") + name + " got: " + str(t->dim()) + "D.");
    if (!t->is_floating_point())
      throw Error(std::string("[cdist] only supports floating-point dtypes, ") + name + " got: " +
                  dtype_name(t->scalar_type()) + ".");
  }
  if (x1.size(-1) != x2.size(-1))
    throw Error("[cdist] X1 and X2 must have the same number of columns. X1: " + str(x1.size(-1)) +
                " X2: " + str(x2.size(-1)) + ".");
  if (x1.scalar_type() != x2.scalar_type())
    throw Error(std::string("[cdist] expected both inputs to have the same dtype, but got ") +
                dtype_name(x1.scalar_type()) + " and " + dtype_name(x2.scalar_type()) + ".");
  if (!(p >= 0)) throw Error("[cdist] only supports non-negative p values, got " + std::to_string(p) + ".");
  if (compute_mode && (*compute_mode < 0 || *compute_mode > 2))
    throw Error("[cdist] possible modes: None, 0, 1, 2, but was: " + str(*compute_mode) + ".");
  const ScalarType t = x1.scalar_type();
  Tensor zero = zeros({}, like(x1, t)), one = ones({}, like(x1, t));
  // p = 2 through one matmul, as PyTorch: |a|^2 - 2 a.b + |b|^2, clamped at 0, when compute_mode is 1
  // (use_mm_for_euclid_dist) or unset / 0 with more than 25 rows on either side; 2 never
  const int64_t mode = compute_mode.value_or(0);
  if (p == 2 && (mode == 1 || (mode == 0 && (x1.size(-2) > 25 || x2.size(-2) > 25)))) {
    Tensor n1 = x1.square().sum(IntArrayRef{-1}, true), n2 = x2.square().sum(IntArrayRef{-1}, true);
    Tensor a = cat({x1 * -2, n1, ones_like(n1)}, -1), b = cat({x2, ones_like(n2), n2}, -1);
    Tensor sq = a.matmul(b.transpose(-1, -2)).clamp_min(0);
    Tensor pos = sq.gt(0);  // zero distances get a zero gradient, as PyTorch's
    return locus::where(pos, locus::where(pos, sq, one).sqrt(), zero);
  }
  // [.., P, 1, M] - [.., 1, R, M]: every pair's difference (the batch dims broadcast)
  Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  if (p == 0) return diff.ne(0).sum(IntArrayRef{-1}, false, t);
  if (std::isinf(p)) return diff.abs().amax(IntArrayRef{-1});
  // zero distances (and zero differences) are kept out of sqrt / pow, whose slopes there are
  // infinite: their gradient is 0, as PyTorch's
  if (p == 2) {
    Tensor sq = diff.square().sum(IntArrayRef{-1});
    Tensor pos = sq.gt(0);
    return locus::where(pos, locus::where(pos, sq, one).sqrt(), zero);
  }
  Tensor a = diff.abs();
  Tensor nz = a.gt(0);
  Tensor s = locus::where(nz, locus::where(nz, a, one).pow(p), zero).sum(IntArrayRef{-1});
  Tensor pos = s.gt(0);
  return locus::where(pos, locus::where(pos, s, one).pow(1.0 / p), zero);
}

Tensor pdist(const Tensor& input, double p) {
  if (input.dim() != 2) throw Error("[pdist] only supports 2D tensors, got: " + str(input.dim()) + "D.");
  if (!input.is_floating_point())
    throw Error(std::string("[pdist] only supports floating-point dtypes, got: ") + dtype_name(input.scalar_type()) + ".");
  if (!(p >= 0)) throw Error("[pdist] only supports non-negative p values, got " + std::to_string(p) + ".");
  const int64_t n = input.size(0);
  std::vector<int64_t> is, js;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) is.push_back(i), js.push_back(j);
  const int64_t k = static_cast<int64_t>(is.size());
  Tensor ti = empty({k}, kLong), tj = empty({k}, kLong);
  std::copy(is.begin(), is.end(), ti.data_ptr<int64_t>());
  std::copy(js.begin(), js.end(), tj.data_ptr<int64_t>());
  // each pair as a batch of one row against one row, by differences (never cdist's matmul form)
  Tensor a = input.index_select(0, ti.to(input.device())).unsqueeze(1);
  Tensor b = input.index_select(0, tj.to(input.device())).unsqueeze(1);
  return cdist(a, b, p, /*compute_mode=*/2).reshape({k});
}

// ---- reductions ---------------------------------------------------------------------------------------
namespace {
std::vector<int64_t> dims_or_all(const Tensor& self, IntArrayRef dim) {
  return dim.empty() ? all_dims(self.dim()) : std::vector<int64_t>(dim.begin(), dim.end());
}
}  // namespace

std::tuple<Tensor, Tensor> var_mean(const Tensor& self) { return {self.var(), self.mean()}; }
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return {self.var(dim, unbiased, keepdim), self.mean(dims_or_all(self, dim), keepdim)};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return {self.var(dim, correction, keepdim), self.mean(dims_or_all(self, dim), keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self) { return {self.std(), self.mean()}; }
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, bool unbiased, bool keepdim) {
  return {self.std(dim, unbiased, keepdim), self.mean(dims_or_all(self, dim), keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim) {
  return {self.std(dim, correction, keepdim), self.mean(dims_or_all(self, dim), keepdim)};
}

// logaddexp / logaddexp2 (stop 54): floating results only, as PyTorch's kernels
Tensor Tensor::logaddexp(const Tensor& other) const {
  ops::check_same_device("logaddexp", {{"self", this}, {"other", &other}});
  ScalarType rt = ops::result_type({this, &other});
  if (!locus::is_floating_point(rt)) throw Error(std::string("\"logaddexp\" not implemented for '") + locus::toString(rt) + "'");
  return log_add_exp(ops::cast(*this, rt), ops::cast(other, rt));
}
// log2(2^a + 2^b) = logaddexp(a ln2, b ln2) / ln2
Tensor Tensor::logaddexp2(const Tensor& other) const {
  ops::check_same_device("logaddexp2", {{"self", this}, {"other", &other}});
  ScalarType rt = ops::result_type({this, &other});
  if (!locus::is_floating_point(rt)) throw Error(std::string("\"logaddexp2\" not implemented for '") + locus::toString(rt) + "'");
  const double ln2 = std::log(2.0);
  return log_add_exp(ops::cast(*this, rt) * ln2, ops::cast(other, rt) * ln2) * (1.0 / ln2);
}
Tensor logaddexp(const Tensor& a, const Tensor& b) { return a.logaddexp(b); }
Tensor logaddexp2(const Tensor& a, const Tensor& b) { return a.logaddexp2(b); }

std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) {
    if (numel() == 0)
      throw Error("[aminmax] cannot compute aminmax over an empty dimension as the operation has no identity.");
    std::vector<int64_t> every = all_dims(this->dim());
    if (this->dim() == 0) return {clone(), clone()};
    return {amin(every, keepdim), amax(every, keepdim)};
  }
  const int64_t d = wrap_dim(*dim, std::max<int64_t>(this->dim(), 1), "aminmax");
  if (this->dim() == 0) return {keepdim ? reshape({1}) : clone(), keepdim ? reshape({1}) : clone()};
  if (size(d) == 0)
    throw Error("[aminmax] expected reduction dim " + str(d) + " to have non-zero size.");
  return {amin(IntArrayRef{d}, keepdim), amax(IntArrayRef{d}, keepdim)};
}
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return self.aminmax(dim, keepdim);
}

std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return cum_extreme(*this, dim, true); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return cum_extreme(*this, dim, false); }
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { return self.cummax(dim); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { return self.cummin(dim); }

Tensor Tensor::logcumsumexp(int64_t dim) const {
  if (!is_floating_point())
    throw Error(std::string("[logcumsumexp] expected a floating-point input, got ") + dtype_name(scalar_type()) +
                "; convert it with .to(kFloat) first.");
  if (this->dim() == 0) {
    wrap_dim(dim, 1, "logcumsumexp");
    return clone();
  }
  const int64_t d = wrap_dim(dim, this->dim(), "logcumsumexp"), n = size(d);
  // Hillis-Steele scan with log-add-exp: after the step of shift s, position j holds the result over
  // [j - 2s + 1, j]; log2(n) steps of differentiable elementwise ops, stable for any magnitudes
  Tensor out = *this;
  for (int64_t s = 1; s < n; s *= 2)
    out = cat({out.narrow(d, 0, s), log_add_exp(out.narrow(d, 0, n - s), out.narrow(d, s, n - s))}, d);
  return out.is_same(*this) ? clone() : out;
}
Tensor logcumsumexp(const Tensor& self, int64_t dim) { return self.logcumsumexp(dim); }

// ---- flips and rotations ------------------------------------------------------------------------------
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  if (dims.size() != 2)
    throw Error("[rot90] expected total rotation dims == 2, but got dims = " + str(static_cast<int64_t>(dims.size())) +
                ".");
  if (dim() < 2) throw Error("[rot90] expected total dims >= 2, but got total dims = " + str(dim()) + ".");
  const int64_t d0 = wrap_dim(dims[0], dim(), "rot90"), d1 = wrap_dim(dims[1], dim(), "rot90");
  if (d0 == d1)
    throw Error("[rot90] expected rotation dims to be different, but got dim0 = " + str(d0) + " and dim1 = " +
                str(d1) + ".");
  switch (((k % 4) + 4) % 4) {
    case 1: return flip({d1}).transpose(d0, d1);
    case 2: return flip({d0, d1});
    case 3: return flip({d0}).transpose(d0, d1);
    default: return clone();
  }
}
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) { return self.rot90(k, dims); }

Tensor Tensor::fliplr() const {
  if (dim() < 2) throw Error("[fliplr] input must be >= 2-d, got " + str(dim()) + "-d.");
  return flip({1});
}
Tensor Tensor::flipud() const {
  if (dim() < 1) throw Error("[flipud] input must be >= 1-d, got 0-d.");
  return flip({0});
}
Tensor fliplr(const Tensor& self) { return self.fliplr(); }
Tensor flipud(const Tensor& self) { return self.flipud(); }

// ---- at least n dims, stacking ------------------------------------------------------------------------
Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}
Tensor atleast_3d(const Tensor& self) {
  switch (self.dim()) {
    case 0: return self.reshape({1, 1, 1});
    case 1: return self.unsqueeze(0).unsqueeze(-1);
    case 2: return self.unsqueeze(-1);
    default: return self;
  }
}
std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(atleast_1d(t));
  return out;
}
std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(atleast_2d(t));
  return out;
}
std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(atleast_3d(t));
  return out;
}

Tensor block_diag(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) return empty({1, 0});  // PyTorch's shape for no blocks
  ops::check_same_device("block_diag", tensors, "tensors");
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].dim() > 2)
      throw Error("[block_diag] input tensors must have 2 or fewer dimensions. Input " +
                  str(static_cast<int64_t>(i)) + " has " + str(tensors[i].dim()) + " dimensions.");
  const ScalarType t = list_result_type(tensors);
  const TensorOptions o = TensorOptions().dtype(t).device(tensors[0].device());
  int64_t cols = 0;
  for (const Tensor& x : tensors) cols += as_block(x).size(1);
  std::vector<Tensor> rows;
  int64_t left = 0;
  for (const Tensor& x : tensors) {
    Tensor b = as_block(x).to(t);
    const int64_t r = b.size(0), c = b.size(1);
    rows.push_back(cat({zeros({r, left}, o), b, zeros({r, cols - left - c}, o)}, 1));
    left += c;
  }
  return cat(rows, 0);
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  check_nonempty("hstack", tensors);
  std::vector<Tensor> rep = atleast_1d(tensors);
  return cat(rep, rep[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(const std::vector<Tensor>& tensors) {
  check_nonempty("vstack", tensors);
  return cat(atleast_2d(tensors), 0);
}
Tensor row_stack(const std::vector<Tensor>& tensors) {
  check_nonempty("row_stack", tensors);
  return cat(atleast_2d(tensors), 0);
}
Tensor dstack(const std::vector<Tensor>& tensors) {
  check_nonempty("dstack", tensors);
  return cat(atleast_3d(tensors), 2);
}
Tensor column_stack(const std::vector<Tensor>& tensors) {
  check_nonempty("column_stack", tensors);
  std::vector<Tensor> cols;
  for (const Tensor& t : tensors) cols.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cat(cols, 1);
}

// ---- integration --------------------------------------------------------------------------------------
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  ops::check_same_device("trapezoid", {{"y", &y}, {"x", &x}});
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return zeros_except(y, d);
  check_trapezoid_dtype(y, &x);
  Tensor xv = x;
  if (x.dim() == 1) {  // x [n] along dim d; dx broadcasts against the differences of y after
    if (x.size(0) != y.size(d))
      throw Error("[trapezoid] there must be one `x` value for each sample point: x has " + str(x.size(0)) +
                  " but y has " + str(y.size(d)) + " along dim " + str(d) + ".");
    DimVector shape(static_cast<size_t>(y.dim()), 1);
    shape[static_cast<size_t>(d)] = x.size(0);
    xv = x.view(shape);
  } else if (x.dim() < y.dim()) {
    std::vector<int64_t> shape(static_cast<size_t>(y.dim() - x.dim()), 1);
    shape.insert(shape.end(), x.sizes().begin(), x.sizes().end());
    xv = x.view(shape);
  }
  const int64_t nx = xv.size(d);
  Tensor dx = xv.narrow(d, 1, nx - 1) - xv.narrow(d, 0, nx - 1);
  const int64_t n = y.size(d);
  return (dx * (y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1))).sum(IntArrayRef{d}) / 2.0;
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return zeros_except(y, d);
  check_trapezoid_dtype(y, nullptr);
  if (dx.isBoolean()) throw Error("[trapezoid] currently, we only support dx as a real number.");
  return (y.sum(IntArrayRef{d}) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx.toDouble();
}
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }

// ---- factories ----------------------------------------------------------------------------------------
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options) {
  return randint_like(t, 0, high, options);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, const TensorOptions& options) {
  if (steps < 0) throw Error("[logspace] number of steps must be non-negative, got " + str(steps) + ".");
  // base ** (start + i * step) in double on the host (as PyTorch's kernel, from both ends towards the
  // middle), then converted once: an integer dtype truncates exact powers exactly
  const double s = start.toDouble(), e = end.toDouble();
  const double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  Tensor host = empty({steps}, TensorOptions().dtype(kDouble));
  double* p = host.data_ptr<double>();
  for (int64_t i = 0; i < steps; ++i)
    p[i] = steps == 1 || i < steps / 2 ? std::pow(base, s + step * static_cast<double>(i))
                         : std::pow(base, e - step * static_cast<double>(steps - i - 1));
  Tensor out = empty({steps}, TensorOptions(options).requires_grad(false));
  out.copy_(host);
  return options.requires_grad() ? out.requires_grad_(true) : out;
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return tri_indices("tril_indices", row, col, offset, options, true);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return tri_indices("triu_indices", row, col, offset, options, false);
}

}  // namespace locus
