// Indexing, joining and whole-tensor comparisons.
#include <cstring>

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
