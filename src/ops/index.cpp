// Indexing, joining and whole-tensor comparisons.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "ops/autocast.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {
namespace {

using backend::IndexOp;

Tensor check_index(const char* op, const Tensor& index, int64_t limit, const char* what) {
  if (index.scalar_type() != kLong && index.scalar_type() != kInt)
    throw Error("[" + std::string(op) + "] expected 'index' to be int64 (or int32), got " + dtype_name(index.scalar_type()) +
                "; convert with .to(locus::kLong).");
  Tensor idx = ops::cast(index, kLong);
  if (idx.numel() == 0) return idx;
  int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  if (lo < 0 || hi >= limit)
    throw Error("[" + std::string(op) + "] index " + std::to_string(lo < 0 ? lo : hi) + " is out of bounds for " + what +
                " with size " + std::to_string(limit) + " (valid indices are 0.." + std::to_string(limit - 1) + ").");
  return idx;
}

void run_index(const char* op, IndexOp kind, const Tensor& out, const Tensor& in, const Tensor& idx, int dim) {
  Device d = out.device();
  backend::TensorRef o = ops::ref(out, op), x = ops::ref(in, op), i = ops::ref(idx, op);
  ops::backend_for(d).index(backend::device_index(d), ops::current_stream(d), kind, o, x, i, dim);
}

// cat and stack on the cpu without per-part views or copy dispatches (a DataLoader's Stack of 64
// small examples makes 64 of each): when out and every part are contiguous cpu tensors of one
// dtype, each part's rows are memcpy'd into place. Out's layout is [outer][sum of lens][inner];
// part i is [outer][lens[i]][inner]. Large results keep the general copy (split over the pool).
// Returns false, having done nothing, when it does not apply.
bool cat_contiguous_cpu(const Tensor& out, const std::vector<const Tensor*>& parts, const std::vector<int64_t>& lens,
                        int64_t d) {
  constexpr int64_t kMaxBytes = int64_t{1} << 22;
  if (!out.device().is_cpu() || !out.is_contiguous()) return false;
  const ScalarType t = out.scalar_type();
  const int64_t es = static_cast<int64_t>(element_size(t));
  if (out.numel() * es > kMaxBytes) return false;
  for (const Tensor* p : parts)
    if (!p->device().is_cpu() || p->scalar_type() != t || !p->is_contiguous()) return false;
  int64_t outer = 1, inner = es, total = 0;
  for (int64_t k = 0; k < d; ++k) outer *= out.size(k);
  for (int64_t k = d + 1; k < out.dim(); ++k) inner *= out.size(k);
  for (int64_t len : lens) total += len;
  char* o = static_cast<char*>(out.data_ptr());
  int64_t off = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t block = lens[i] * inner;
    if (block > 0) {
      const char* src = static_cast<const char*>(parts[i]->data_ptr());
      for (int64_t r = 0; r < outer; ++r)
        std::memcpy(o + (r * total + off) * inner, src + r * block, static_cast<size_t>(block));
    }
    off += lens[i];
  }
  return true;
}

}  // namespace

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  ops::check_same_device("index_select", {{"self", this}, {"index", &index}});
  if (index.dim() > 1) throw Error("[index_select] 'index' must be a 0-D or 1-D tensor, got " + std::to_string(index.dim()) + "-D.");
  Tensor self = this->dim() == 0 ? reshape({1}) : *this;
  int64_t d = detail::wrap_dim(dim, self.dim(), "index_select");
  Tensor idx = check_index("index_select", index, self.size(d), "the selected dimension").reshape({-1});
  DimVector sz(self.sizes());
  sz[d] = idx.numel();
  Tensor out = detail::make_empty(sz, scalar_type(), device());
  if (out.numel() > 0) run_index("index_select", IndexOp::IndexSelect, out, self, idx, static_cast<int>(d));
  if (autograd::should_record(self)) autograd::on_index_select(out, self, d, idx);
  return this->dim() == 0 ? out.reshape({}) : out;
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  ops::check_same_device("gather", {{"self", this}, {"index", &index}});
  int64_t d = detail::wrap_dim(dim, this->dim(), "gather");
  if (index.dim() != this->dim())
    throw Error("[gather] index tensor must have the same number of dimensions as input tensor (" +
                std::to_string(index.dim()) + " vs " + std::to_string(this->dim()) + ").");
  for (int64_t i = 0; i < this->dim(); ++i)
    if (i != d && index.size(i) > size(i))
      throw Error("[gather] size of index " + ops::shape_str(index.sizes()) + " exceeds the input's " +
                  ops::shape_str(sizes()) + " at dimension " + std::to_string(i) + ".");
  Tensor idx = check_index("gather", index, this->dim() == 0 ? 1 : size(d), "the gathered dimension");
  Tensor out = detail::make_empty(index.sizes(), scalar_type(), device());
  if (out.numel() > 0) run_index("gather", IndexOp::Gather, out, *this, idx, static_cast<int>(d));
  if (autograd::should_record(*this)) autograd::on_gather(out, *this, d, idx);
  return out;
}

namespace {
// scatter_add_'s and scatter_'s checks: devices, overlaps, dims, index no larger than src (when
// given) and than self apart from dim d, index values in range. Returns the index as int64, and
// src narrowed to the index's shape in self's dtype in `s`.
Tensor check_scatter(const char* op, const Tensor& self, int64_t& d, const Tensor& index, const Tensor* src,
                     Tensor* s) {
  if (src != nullptr)
    ops::check_same_device(op, {{"self", &self}, {"index", &index}, {"src", src}});
  else
    ops::check_same_device(op, {{"self", &self}, {"index", &index}});
  ops::check_no_internal_overlap(op, self);
  if (src != nullptr) ops::check_no_partial_overlap(op, self, *src, /*same_ok=*/false);
  ops::check_no_partial_overlap(op, self, index, /*same_ok=*/false);
  d = detail::wrap_dim(d, self.dim(), op);
  if (index.dim() != self.dim() || (src != nullptr && src->dim() != self.dim()))
    throw Error("[" + std::string(op) + "] index" + (src != nullptr ? " and src" : "") +
                " must have as many dimensions as self (" + std::to_string(self.dim()) + "), got " +
                std::to_string(index.dim()) + (src != nullptr ? " and " + std::to_string(src->dim()) : "") + ".");
  for (int64_t i = 0; i < self.dim(); ++i) {
    if ((src != nullptr && index.size(i) > src->size(i)) || (i != d && index.size(i) > self.size(i)))
      throw Error("[" + std::string(op) + "] expected index " + ops::shape_str(index.sizes()) +
                  " to be no larger than " +
                  (src != nullptr ? "src " + ops::shape_str(src->sizes()) + " and than " : std::string()) + "self " +
                  ops::shape_str(self.sizes()) + " apart from dim " + std::to_string(d) + ".");
  }
  Tensor idx = check_index(op, index, self.dim() == 0 ? 1 : self.size(d), "the scattered dimension");
  if (src != nullptr) {
    *s = *src;
    for (int64_t i = 0; i < self.dim(); ++i) *s = s->narrow(i, 0, index.size(i));
    *s = ops::cast(*s, self.scalar_type());
  }
  return idx;
}

// self[pos] = values for each position of idx along d (the other coordinates: idx's own), through
// index_put_ with one index tensor per dim: exact, and the last of repeated positions wins.
void scatter_write(Tensor& self, int64_t d, const Tensor& idx, const Tensor& values) {
  if (idx.numel() == 0) return;
  if (self.dim() == 0) {
    Tensor flat = self.reshape({1});
    scatter_write(flat, 0, idx.reshape({1}), values.reshape({1}));
    return;
  }
  std::vector<indexing::TensorIndex> at;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k == d) {
      at.emplace_back(idx);
      continue;
    }
    std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
    shape[static_cast<size_t>(k)] = idx.size(k);
    Tensor coord = arange(idx.size(k), TensorOptions().dtype(kLong).device(self.device()));
    at.emplace_back(coord.view(shape).expand(idx.sizes()));
  }
  self.index_put_(at, values);
}
}  // namespace

Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::should_record(mut_self(), src) || autograd::view_of_graph(mut_self()))
    return ops::assign_result(mut_self(), "scatter_add_", [&](const Tensor& me) { return me.scatter_add(dim, index, src); });
  autograd::bump_version(mut_self());
  int64_t d = dim;
  Tensor s;
  Tensor idx = check_scatter("scatter_add_", mut_self(), d, index, &src, &s);
  if (idx.numel() == 0) return mut_self();
  run_index("scatter_add_", IndexOp::ScatterAdd, mut_self(), s, idx, static_cast<int>(d));
  return mut_self();
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::should_record(mut_self(), src) || autograd::view_of_graph(mut_self()))
    return ops::assign_result(mut_self(), "scatter_", [&](const Tensor& me) { return me.scatter(dim, index, src); });
  autograd::bump_version(mut_self());
  int64_t d = dim;
  Tensor s;
  Tensor idx = check_scatter("scatter_", mut_self(), d, index, &src, &s);
  if (src.scalar_type() != scalar_type())  // as PyTorch: a float src is not truncated into an int self
    throw Error(std::string("[scatter_] expected self and src to have the same dtype, got ") +
                dtype_name(scalar_type()) + " and " + dtype_name(src.scalar_type()) +
                "; convert src with .to(self.scalar_type()).");
  NoGradGuard no_grad;
  scatter_write(mut_self(), d, idx, s);
  return mut_self();
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  if (autograd::should_record(mut_self()) || autograd::view_of_graph(mut_self()))
    return ops::assign_result(mut_self(), "scatter_", [&](const Tensor& me) { return me.scatter(dim, index, value); });
  autograd::bump_version(mut_self());
  int64_t d = dim;
  Tensor idx = check_scatter("scatter_", mut_self(), d, index, nullptr, nullptr);
  NoGradGuard no_grad;
  scatter_write(mut_self(), d, idx, full(index.sizes(), value, TensorOptions().dtype(scalar_type()).device(device())));
  return mut_self();
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone();
    out.scatter_(dim, index, src);
  }
  if (autograd::should_record(*this, src)) autograd::on_scatter(out, *this, dim, index, &src);
  return out;
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone();
    out.scatter_(dim, index, value);
  }
  if (autograd::should_record(*this)) autograd::on_scatter(out, *this, dim, index, nullptr);
  return out;
}

namespace {
// index_add's arguments checked, and its index spread over source's shape for scatter_add: source
// element [.., i, ..] (i along d) goes to self [.., index[i], ..].
Tensor index_add_positions(const char* op, const Tensor& self, int64_t& d, const Tensor& index, const Tensor& source) {
  ops::check_same_device(op, {{"self", &self}, {"index", &index}, {"source", &source}});
  d = detail::wrap_dim(d, self.dim(), op);
  if (index.dim() > 1)
    throw Error("[" + std::string(op) + "] index must be a vector (0-D or 1-D), got shape " +
                ops::shape_str(index.sizes()) + ".");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  bool ok = src.dim() == nd && src.size(d) == index.numel();
  for (int64_t i = 0; ok && i < nd; ++i)
    if (i != d) ok = src.size(i) == (self.dim() == 0 ? 1 : self.size(i));
  if (!ok)
    throw Error("[" + std::string(op) + "] source " + ops::shape_str(source.sizes()) + " must have self's shape " +
                ops::shape_str(self.sizes()) + " but with " + std::to_string(index.numel()) +
                " (the number of indices) along dim " + std::to_string(d) + ".");
  Tensor idx = check_index(op, index, self.dim() == 0 ? 1 : self.size(d), "the indexed dimension");
  std::vector<int64_t> along(static_cast<size_t>(nd), 1);
  along[static_cast<size_t>(d)] = index.numel();
  return idx.reshape(along).expand(src.sizes()).contiguous();
}
}  // namespace

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  if (autograd::should_record(mut_self(), source) || autograd::view_of_graph(mut_self()))
    return ops::assign_result(mut_self(), "index_add_", [&](const Tensor& me) { return me.index_add(dim, index, source, alpha); });
  autograd::bump_version(mut_self());
  int64_t d = dim;
  Tensor pos = index_add_positions("index_add_", mut_self(), d, index, source);
  Tensor src = alpha.toDouble() == 1.0 ? source : source * alpha;
  if (this->dim() == 0) {
    Tensor flat = reshape({1});
    flat.scatter_add_(0, pos, src.reshape({1}));
    return mut_self();
  }
  return scatter_add_(d, pos, src);
}

Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  int64_t d = dim;
  Tensor pos = index_add_positions("index_add", *this, d, index, source);
  Tensor src = alpha.toDouble() == 1.0 ? source : source * alpha;
  if (this->dim() == 0) return reshape({1}).scatter_add(0, pos, src.reshape({1})).reshape({});
  return scatter_add(d, pos, src);
}

Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (auto c = ops::autocast::policy(ops::autocast::Op::ScatterAdd, device()); c != ops::autocast::Cast::None) {
    ops::autocast::ExcludeGuard x;  // promote: self and src to the wider of the two
    ScalarType t = ops::autocast::widest({this, &src});
    return ops::autocast::cast_to(*this, t).scatter_add(dim, index, ops::autocast::cast_to(src, t));
  }
  Tensor out;
  {
    NoGradGuard no_grad;  // the add is recorded as one node below
    out = clone();
    out.scatter_add_(dim, index, src);
  }
  if (autograd::should_record(*this, src)) autograd::on_scatter_add(out, *this, dim, index, src);
  return out;
}

bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  ops::check_same_device("allclose", {{"self", this}, {"other", &other}});
  ScalarType t = promote_types(scalar_type(), other.scalar_type());
  if (!locus::is_floating_point(t)) t = kDouble;
  Tensor a = ops::cast(*this, t), b = ops::cast(other, t);
  Tensor close = (a - b).abs() <= (b.abs() * rtol + atol);
  Tensor ok = close.logical_or(a.eq(b));  // infinities of equal sign
  if (equal_nan) ok = ok.logical_or(a.ne(a).logical_and(b.ne(b)));
  return ok.all().item<bool>();
}

bool Tensor::equal(const Tensor& other) const {
  ops::check_same_device("equal", {{"self", this}, {"other", &other}});
  if (sizes() != other.sizes()) return false;
  if (numel() == 0) return true;
  return eq(other).all().item<bool>();
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("[cat] expected a non-empty list of tensors.");
  check_same_device("cat", tensors, "tensors");
  // PyTorch skips 1-D empty tensors for backward compatibility
  std::vector<const Tensor*> parts;
  for (const Tensor& t : tensors)
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(&t);
  if (parts.empty()) return tensors[0].clone();
  const Tensor& ref = *parts[0];
  if (ref.dim() == 0) throw Error("[cat] zero-dimensional tensor (at position 0) cannot be concatenated; use stack().");
  int64_t d = detail::wrap_dim(dim, ref.dim(), "cat");
  Device dev = ref.device();
  ScalarType t = ref.scalar_type();
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& p = *parts[i];
    if (p.dim() != ref.dim())
      throw Error("[cat] tensors must have the same number of dimensions: got " + std::to_string(ref.dim()) + " and " +
                  std::to_string(p.dim()) + " (tensor " + std::to_string(i) + ").");
    for (int64_t k = 0; k < ref.dim(); ++k)
      if (k != d && p.size(k) != ref.size(k))
        throw Error("[cat] Sizes of tensors must match except in dimension " + std::to_string(d) + ". Expected size " +
                    std::to_string(ref.size(k)) + " but got size " + std::to_string(p.size(k)) + " for tensor number " +
                    std::to_string(i) + " in the list.");
    t = promote_types(t, p.scalar_type());
    total += p.size(d);
  }
  DimVector sz(ref.sizes());
  sz[d] = total;
  Tensor out = detail::make_empty(sz, t, dev);
  std::vector<int64_t> lens;
  lens.reserve(parts.size());
  for (const Tensor* p : parts) lens.push_back(p->size(d));
  if (cat_contiguous_cpu(out, parts, lens, d)) {
    if (autograd::detail::grad_enabled) autograd::on_cat(out, parts, d);
    return out;
  }
  int64_t off = 0;
  for (const Tensor* p : parts) {
    if (p->size(d) > 0) out.narrow(d, off, p->size(d)).copy_(*p);
    off += p->size(d);
  }
  if (autograd::detail::grad_enabled) autograd::on_cat(out, parts, d);
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("[stack] expected a non-empty list of tensors.");
  check_same_device("stack", tensors, "tensors");
  int64_t d = detail::wrap_dim(dim, tensors[0].dim() + 1, "stack");
  bool grad = false, same = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].sizes() != tensors[0].sizes())
      throw Error("[stack] expects each tensor to be equal size, but got " + ops::shape_str(tensors[0].sizes()) +
                  " at entry 0 and " + ops::shape_str(tensors[i].sizes()) + " at entry " + std::to_string(i) + ".");
    grad = grad || autograd::should_record(tensors[i]);
    same = same && tensors[i].device() == tensors[0].device() && tensors[i].scalar_type() == tensors[0].scalar_type();
  }
  if (!grad && same && tensors[0].device().is_cpu()) {  // no views: the parts' rows straight into place
    DimVector sz(tensors[0].sizes());
    sz.insert(static_cast<size_t>(d), static_cast<int64_t>(tensors.size()));
    Tensor out = detail::make_empty(sz, tensors[0].scalar_type(), tensors[0].device());
    std::vector<const Tensor*> ptrs;
    ptrs.reserve(tensors.size());
    for (const Tensor& x : tensors) ptrs.push_back(&x);
    if (cat_contiguous_cpu(out, ptrs, std::vector<int64_t>(tensors.size(), 1), d)) return out;
  }
  std::vector<Tensor> parts;
  for (const Tensor& x : tensors) parts.push_back(x.unsqueeze(d));
  return cat(parts, d);
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  if (indices.scalar_type() != kLong)
    throw Error(std::string("[one_hot] expected an int64 index tensor, got ") + dtype_name(indices.scalar_type()) + ".");
  if (indices.numel() == 0 && num_classes < 0)
    throw Error("[one_hot] can not infer the total number of classes from an empty tensor; pass num_classes.");
  if (indices.numel() > 0) {
    int64_t lo = indices.min().item<int64_t>();
    if (lo < 0) throw Error("[one_hot] class values must be non-negative, got " + std::to_string(lo) + ".");
    int64_t hi = indices.max().item<int64_t>();
    if (num_classes < 0) num_classes = hi + 1;
    else if (hi >= num_classes)
      throw Error("[one_hot] class value " + std::to_string(hi) + " is out of range for num_classes = " +
                  std::to_string(num_classes) + ".");
  }
  DimVector sz(indices.sizes());
  sz.push_back(num_classes);
  Tensor out = zeros(sz, TensorOptions().dtype(kLong).device(indices.device()));
  if (indices.numel() == 0) return out;
  Tensor idx = indices.unsqueeze(-1);
  DimVector one(indices.sizes());
  one.push_back(1);
  out.scatter_add_(-1, idx, ones(one, TensorOptions().dtype(kLong).device(indices.device())));
  return out;
}

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) { return a.index_select(dim, index); }
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) { return a.gather(dim, index); }
// ---- scatter_reduce, index_reduce, scatter with reduce ------------------------------------------
// sum and mean are scatter_adds on the device; prod, amax and amin combine on the host (exact, in
// the tensor's own dtype, in index order) and copy back. Gradients follow PyTorch 1.13's formulas
// (ties of amax / amin share the gradient evenly; prod's zeros get the product of the others).
namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(const char* op, std::string_view r, bool legacy) {
  if (legacy) {
    if (r == "add") return Reduce::Sum;
    if (r == "multiply") return Reduce::Prod;
    throw Error("[" + std::string(op) + "] reduce argument must be either add or multiply, got '" + std::string(r) +
                "'; scatter_reduce() also takes sum, prod, mean, amax and amin.");
  }
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  throw Error("[" + std::string(op) + "] reduce argument must be either sum, prod, mean, amax or amin, got '" +
              std::string(r) + "'" + (r == "max" || r == "min" ? " (PyTorch spells it a" + std::string(r) + ")" : "") + ".");
}

template <class T, class Acc>
void host_combine(Reduce red, bool include_self, Tensor& out, const Tensor& idx, const Tensor& src, int64_t d) {
  T* o = out.data_ptr<T>();
  const int64_t* ix = idx.data_ptr<int64_t>();
  const T* sv = src.data_ptr<T>();
  const int64_t nd = out.dim(), n = idx.numel();
  std::vector<int64_t> ostride(static_cast<size_t>(nd), 1), coord(static_cast<size_t>(nd), 0);
  for (int64_t k = nd - 2; k >= 0; --k) ostride[k] = ostride[k + 1] * out.size(k + 1);
  std::vector<char> touched(include_self ? 0 : static_cast<size_t>(out.numel()), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = 0;
    for (int64_t k = 0; k < nd; ++k) at += (k == d ? ix[i] : coord[k]) * ostride[k];
    const Acc v = static_cast<Acc>(sv[i]);
    Acc cur = static_cast<Acc>(o[at]);
    if (!include_self && !touched[at]) {
      touched[at] = 1;
      cur = v;
    } else if (red == Reduce::Prod) {
      if constexpr (std::is_same_v<Acc, bool>) cur = cur && v;
      else cur = cur * v;
    } else if (red == Reduce::Amax) {
      if constexpr (std::is_floating_point_v<Acc>) cur = std::isnan(v) ? v : std::max(cur, v);
      else cur = std::max(cur, v);
    } else {
      if constexpr (std::is_floating_point_v<Acc>) cur = std::isnan(v) ? v : std::min(cur, v);
      else cur = std::min(cur, v);
    }
    o[at] = static_cast<T>(cur);
    for (int64_t k = nd - 1; k >= 0; --k) {  // next coordinate of the index, row-major
      if (++coord[k] < idx.size(k)) break;
      coord[k] = 0;
    }
  }
}

// self (>= 1-D) combined with src (already narrowed to idx's shape, in self's dtype) at idx along d.
Tensor reduce_into(const Tensor& self, int64_t d, const Tensor& idx, const Tensor& s, Reduce red, bool include_self) {
  NoGradGuard no_grad;
  if (red == Reduce::Sum || red == Reduce::Mean) {
    Tensor base = include_self ? self : self.scatter(d, idx, 0);
    Tensor sum = base.scatter_add(d, idx, s);
    if (red == Reduce::Sum) return sum;
    Tensor n = ones_like(self);
    if (!include_self) n = n.scatter(d, idx, 0);
    n = n.scatter_add(d, idx, ones_like(s));
    n = n.masked_fill(n == 0, 1);
    return self.is_floating_point() ? sum / n : sum.div(n, "floor").to(self.scalar_type());
  }
  Tensor out = self.to(kCPU).contiguous().clone();
  Tensor hi = idx.to(kCPU).contiguous(), hs = s.to(kCPU).contiguous();
  switch (self.scalar_type()) {
    case kFloat: host_combine<float, float>(red, include_self, out, hi, hs, d); break;
    case kDouble: host_combine<double, double>(red, include_self, out, hi, hs, d); break;
    case kLong: host_combine<int64_t, int64_t>(red, include_self, out, hi, hs, d); break;
    case kInt: host_combine<int32_t, int32_t>(red, include_self, out, hi, hs, d); break;
    case kShort: host_combine<int16_t, int16_t>(red, include_self, out, hi, hs, d); break;
    case kChar: host_combine<int8_t, int8_t>(red, include_self, out, hi, hs, d); break;
    case kByte: host_combine<uint8_t, uint8_t>(red, include_self, out, hi, hs, d); break;
    case kBool: host_combine<bool, bool>(red, include_self, out, hi, hs, d); break;
    default: {  // float16 / bfloat16: in float32, rounded once at the end
      Tensor f = out.to(kFloat), fs = hs.to(kFloat);
      host_combine<float, float>(red, include_self, f, hi, fs, d);
      out = f.to(self.scalar_type());
    }
  }
  return out.to(self.device());
}

// `full`'s shape from r (index-shaped): zeros beyond r, as a src larger than its index gets.
Tensor pad_to(const Tensor& r, IntArrayRef full) {
  if (r.sizes() == full) return r;
  Tensor out = zeros(full, r.options());
  Tensor v = out;
  for (int64_t k = 0; k < r.dim(); ++k) v = v.narrow(k, 0, r.size(k));
  v.copy_(r);
  return out;
}

// The forward of scatter_reduce / index_reduce on >= 1-D self, recorded as node `name`.
Tensor scatter_reduce_impl(const char* op, const char* name, const Tensor& self, int64_t d, const Tensor& idx,
                           const Tensor& s, const Tensor& src, Reduce red, bool include_self) {
  Tensor out = reduce_into(self, d, idx, s, red, include_self);
  if (!autograd::should_record(self, src)) return out;
  const bool gs = autograd::requires_grad_fast(self), gx = autograd::requires_grad_fast(src);
  Tensor a = self.detach(), x = s.detach(), result = autograd::saved_output(out);
  DimVector src_shape(src.sizes());
  std::string o = op;
  autograd::record(name, out, {&self, &src}, [=](const Tensor& g) -> autograd::variable_list {
    Tensor grad_self, grad_src;
    switch (red) {
      case Reduce::Sum:
        grad_self = g;
        grad_src = g.gather(d, idx);
        break;
      case Reduce::Mean: {
        Tensor n = include_self ? ones_like(g) : zeros_like(g);
        n = n.scatter_add(d, idx, ones_like(x).to(g.scalar_type()));
        n = n.masked_fill(n == 0, 1);
        grad_self = g / n;
        grad_src = g.gather(d, idx) / n.gather(d, idx);
        break;
      }
      case Reduce::Prod: {
        // zeros of self get the product of the others; so do single zeros of src
        Tensor masked_self = a.masked_fill(a == 0, 1);
        Tensor masked_self_result = reduce_into(masked_self, d, idx, x, red, include_self);
        grad_self = g * masked_self_result / masked_self;
        Tensor src_zero = x == 0;
        Tensor zeros_at = zeros_like(a).scatter_add(d, idx, src_zero.to(a.scalar_type())).gather(d, idx);
        Tensor single = src_zero.logical_and(zeros_at == 1);
        Tensor masked_src_result = reduce_into(a, d, idx, x.masked_fill(single, 1), red, include_self);
        grad_src = locus::where(single, (g * masked_src_result).gather(d, idx),
                                (g * result).gather(d, idx) / x.masked_fill(src_zero, 1));
        if ((zeros_at > 1).logical_and(src_zero).any().item<bool>() && autograd::GradMode::is_enabled())
          throw Error("[" + o + "] double backward is unsupported for src when more than one zero of src is "
                      "scattered to the same position (as in PyTorch).");
        break;
      }
      case Reduce::Amax:
      case Reduce::Amin: {
        // ties share the gradient evenly
        Tensor value = result.gather(d, idx);
        Tensor self_is = (a == result).to(g.scalar_type()), src_is = (x == value).to(g.scalar_type());
        Tensor n = self_is.scatter_add(d, idx, src_is);
        Tensor share = g / n;
        grad_self = self_is * share;
        grad_src = src_is * share.gather(d, idx);
        break;
      }
    }
    if (!include_self) grad_self = grad_self.scatter(d, idx, 0);
    return {gs ? grad_self : Tensor(), gx ? pad_to(grad_src, src_shape) : Tensor()};
  });
  return out;
}

// scatter_reduce's checks and its result, for any self (0-dim too).
Tensor scatter_reduce_checked(const char* op, const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                              const Tensor& src, Reduce red, bool include_self) {
  if (!self.defined() || !index.defined() || !src.defined())
    throw Error("[" + std::string(op) + "] self, index and src must be defined tensors.");
  if (src.scalar_type() != self.scalar_type())
    throw Error("[" + std::string(op) + "] expected self.dtype to be equal to src.dtype, got " +
                dtype_name(self.scalar_type()) + " and " + dtype_name(src.scalar_type()) +
                "; convert src with .to(self.scalar_type()).");
  if (index.scalar_type() != kLong)
    throw Error("[" + std::string(op) + "] expected dtype int64 for index, got " + dtype_name(index.scalar_type()) +
                "; convert it with .to(locus::kLong).");
  if (self.dim() == 0) {
    if (index.dim() != 0 || src.dim() != 0)
      throw Error("[" + std::string(op) + "] index and src must have as many dimensions as self (0), got " +
                  std::to_string(index.dim()) + " and " + std::to_string(src.dim()) + ".");
    return scatter_reduce_checked(op, name, self.reshape({1}), 0, index.reshape({1}), src.reshape({1}), red,
                                  include_self)
        .reshape({});
  }
  int64_t d = dim;
  Tensor s;
  Tensor idx = check_scatter(op, self, d, index, &src, &s);
  return scatter_reduce_impl(op, name, self, d, idx, s, src, red, include_self);
}

Reduce parse_index_reduce(const char* op, std::string_view r) {
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  throw Error("[" + std::string(op) + "] expected reduce to be one of prod, mean, amax or amin but got '" +
              std::string(r) + "'" + (r == "sum" ? "; index_add() sums." : "."));
}

Tensor index_reduce_checked(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                            std::string_view reduce, bool include_self) {
  const Reduce red = parse_index_reduce(op, reduce);
  if (!self.defined() || !index.defined() || !source.defined())
    throw Error("[" + std::string(op) + "] self, index and source must be defined tensors.");
  if (source.scalar_type() != self.scalar_type())
    throw Error("[" + std::string(op) + "] expected self.dtype to be equal to source.dtype, got " +
                dtype_name(self.scalar_type()) + " and " + dtype_name(source.scalar_type()) +
                "; convert source with .to(self.scalar_type()).");
  int64_t d = dim;
  Tensor pos = index_add_positions(op, self, d, index, source);
  if (self.dim() == 0)
    return scatter_reduce_impl(op, "IndexReduceBackward0", self.reshape({1}), 0, pos, source.reshape({1}),
                               source.reshape({1}), red, include_self)
        .reshape({});
  return scatter_reduce_impl(op, "IndexReduceBackward0", self, d, pos, source, source, red, include_self);
}

}  // namespace

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return scatter_reduce_checked("scatter_reduce", "ScatterReduceBackward0", *this, dim, index, src,
                                parse_reduce("scatter_reduce", reduce, false), include_self);
}

Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) const {
  const Reduce red = parse_reduce("scatter_reduce_", reduce, false);
  return ops::assign_result(mut_self(), "scatter_reduce_", [&](const Tensor& me) {
    return scatter_reduce_checked("scatter_reduce_", "ScatterReduceBackward0", me, dim, index, src, red, include_self);
  });
}

Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                            bool include_self) const {
  return index_reduce_checked("index_reduce", *this, dim, index, source, reduce, include_self);
}

Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                              bool include_self) const {
  return ops::assign_result(mut_self(), "index_reduce_", [&](const Tensor& me) {
    return index_reduce_checked("index_reduce_", me, dim, index, source, reduce, include_self);
  });
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const {
  return scatter_reduce_checked("scatter", "ScatterReduceBackward0", *this, dim, index, src,
                                parse_reduce("scatter", reduce, true), true);
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) const {
  const Reduce red = parse_reduce("scatter", reduce, true);
  if (!index.defined()) throw Error("[scatter] index must be a defined tensor.");
  return scatter_reduce_checked("scatter", "ScatterReduceBackward0", *this, dim, index,
                                full(index.sizes(), value, TensorOptions().dtype(scalar_type()).device(device())), red,
                                true);
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const {
  const Reduce red = parse_reduce("scatter_", reduce, true);
  return ops::assign_result(mut_self(), "scatter_", [&](const Tensor& me) {
    return scatter_reduce_checked("scatter_", "ScatterReduceBackward0", me, dim, index, src, red, true);
  });
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) const {
  const Reduce red = parse_reduce("scatter_", reduce, true);
  if (!index.defined()) throw Error("[scatter_] index must be a defined tensor.");
  Tensor src = full(index.sizes(), value, TensorOptions().dtype(scalar_type()).device(device()));
  return ops::assign_result(mut_self(), "scatter_", [&](const Tensor& me) {
    return scatter_reduce_checked("scatter_", "ScatterReduceBackward0", me, dim, index, src, red, true);
  });
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  return self.scatter_reduce(dim, index, src, reduce, include_self);
}
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  return self.index_reduce(dim, index, source, reduce, include_self);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return self.scatter(dim, index, src, reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return self.scatter(dim, index, value, reduce);
}

Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
  return a.scatter(dim, index, src);
}
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Scalar& value) {
  return a.scatter(dim, index, value);
}
Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) { return a.scatter_add(dim, index, src); }
Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return a.index_add(dim, index, source, alpha);
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) { return a.allclose(b, rtol, atol, equal_nan); }
bool equal(const Tensor& a, const Tensor& b) { return a.equal(b); }

}  // namespace locus
