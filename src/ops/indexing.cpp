// Tensor::index / index_put_ (locus/indexing.h), composed of views, index_select and where.
//
// An index list is applied in two steps. Basic entries (integers, slices, None, Ellipsis, bools)
// become select/slice/unsqueeze views of the tensor, so reads through them are views and writes
// land in the tensor. Tensor entries are collected with the dim of that view they index (a bool
// mask becomes one integer tensor per dim it covers, from its nonzero positions). The advanced
// read then permutes the indexed dims to the front, flattens them and gathers the linearised
// positions with index_select (differentiable); Python's rule puts the broadcast index dims back
// where the indexed dims were when those were adjacent. index_put_ reads the positions the same
// way from an arange, removes repeated positions on the host (last write wins, as PyTorch on
// cpu), scatters the values into a dense buffer and merges it with where.
#include <algorithm>
#include <limits>
#include <ostream>

#include "core/tensor_impl.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/indexing.h"
#include "autograd/record.h"
#include "ops/checks.h"

namespace locus {
namespace indexing {

TensorIndex::TensorIndex(const char* ellipsis) : type_(TensorIndexType::Ellipsis) {
  if (ellipsis == nullptr || std::string(ellipsis) != "...")
    throw Error("[index] the only string index is \"...\" (Ellipsis), got \"" +
                std::string(ellipsis ? ellipsis : "(null)") + "\".");
}

// as libtorch's: an open start is 0, an open stop INT64_MAX ("1:9223372036854775807:2")
std::ostream& operator<<(std::ostream& os, const Slice& s) {
  return os << s.start().value_or(0) << ":" << s.stop().value_or(std::numeric_limits<int64_t>::max()) << ":"
            << s.step();
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& i) {
  switch (i.type()) {
    case TensorIndexType::None: return os << "None";
    case TensorIndexType::Ellipsis: return os << "...";
    case TensorIndexType::Integer: return os << i.integer();
    case TensorIndexType::Boolean: return os << (i.boolean() ? "true" : "false");
    case TensorIndexType::Slice: return os << i.slice();
    case TensorIndexType::Tensor: return os << i.tensor();
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices) {
  os << "(";
  for (size_t k = 0; k < indices.size(); ++k) os << (k ? ", " : "") << indices[k];
  return os << ")";
}

}  // namespace indexing

namespace {

using indexing::TensorIndex;

struct Basic {
  Tensor view;                                  // the tensor after the basic entries (a view)
  std::vector<std::pair<int64_t, Tensor>> adv;  // (dim of view, int64 index on view's device)
};

// A cpu int64 tensor of `sizes` holding `xs`.
Tensor host_long(const std::vector<int64_t>& xs, IntArrayRef sizes) {
  Tensor t = empty(sizes, kLong);
  std::copy(xs.begin(), xs.end(), t.data_ptr<int64_t>());
  return t;
}

bool is_mask(const Tensor& t) { return t.scalar_type() == kBool || t.scalar_type() == kByte; }

// An integer index tensor checked against `size` and wrapped into [0, size), on `device`.
Tensor checked_index(const char* op, const Tensor& t, int64_t dim, int64_t size, Device device) {
  ScalarType st = t.scalar_type();
  if (st != kLong && st != kInt && st != kShort && st != kChar)
    throw Error("[" + std::string(op) + "] tensors used as indices must be long, int, byte or bool tensors, got " +
                dtype_name(st) + "; convert with .to(locus::kLong).");
  Tensor idx = ops::cast(t.device() == device ? t : t.to(device), kLong);
  if (idx.numel() == 0) return idx;
  int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  if (lo < -size || hi >= size)
    throw Error("[" + std::string(op) + "] index " + std::to_string(lo < -size ? lo : hi) +
                " is out of bounds for dimension " + std::to_string(dim) + " with size " + std::to_string(size) + ".");
  return lo < 0 ? where(idx.lt(0), idx + size, idx) : idx;
}

Basic apply_basic(const char* op, const Tensor& self, const std::vector<TensorIndex>& indices) {
  if (!self.defined()) throw Error("[" + std::string(op) + "] the tensor is undefined.");
  int64_t consumed = 0, ellipses = 0, tensors = 0, bools = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) consumed += 1;
    else if (i.is_tensor()) consumed += is_mask(i.tensor()) ? std::max<int64_t>(i.tensor().dim(), 1) : 1, tensors += 1;
    else if (i.is_ellipsis()) ellipses += 1;
    else if (i.is_boolean()) bools += 1;
  }
  // A bool is a new dim of size 1 indexed by [0] (true) or by nothing (false), as in libtorch: an
  // advanced index, which matters where there are others (they broadcast together and, apart,
  // move to the front). Alone it is a view: unsqueeze, sliced empty for false.
  const bool bools_advanced = tensors > 0 || bools > 1;
  if (ellipses > 1) throw Error("[" + std::string(op) + "] an index can only have a single ellipsis ('...').");
  int64_t nd = self.dim();
  if (consumed > nd)
    throw Error("[" + std::string(op) + "] too many indices for a tensor of dimension " + std::to_string(nd) + ": " +
                std::to_string(consumed) + " dims indexed (None, Ellipsis and bools index none). Index at most " +
                std::to_string(nd) + " dims.");
  Basic b{self, {}};
  int64_t d = 0, src = 0;  // dim in the view, dim in self
  for (const TensorIndex& i : indices) {
    switch (i.type()) {
      case indexing::TensorIndexType::Integer: {
        int64_t n = b.view.size(d), k = i.integer();
        if (k < -n || k >= n)
          throw Error("[" + std::string(op) + "] index " + std::to_string(k) + " is out of bounds for dimension " +
                      std::to_string(src) + " with size " + std::to_string(n) + ".");
        b.view = b.view.select(d, k);
        src += 1;
        break;
      }
      case indexing::TensorIndexType::Slice: {
        const indexing::Slice& s = i.slice();
        if (s.step() <= 0)
          throw Error("[" + std::string(op) + "] slice step must be positive, got " + std::to_string(s.step()) +
                      " for dimension " + std::to_string(src) + "; flip() the tensor to step backwards.");
        b.view = b.view.slice(d, s.start(), s.stop(), s.step());
        d += 1, src += 1;
        break;
      }
      case indexing::TensorIndexType::None:
        b.view = b.view.unsqueeze(d);
        d += 1;
        break;
      case indexing::TensorIndexType::Boolean:
        b.view = b.view.unsqueeze(d);
        if (bools_advanced)
          b.adv.emplace_back(d, (i.boolean() ? zeros({1}, kLong) : empty({0}, kLong)).to(self.device()));
        else if (!i.boolean())
          b.view = b.view.slice(d, 0, 0);
        d += 1;
        break;
      case indexing::TensorIndexType::Ellipsis:
        d += nd - consumed, src += nd - consumed;
        break;
      case indexing::TensorIndexType::Tensor: {
        const Tensor& t = i.tensor();
        if (!t.defined()) throw Error("[" + std::string(op) + "] an index tensor is undefined.");
        if (!t.is_cpu() && t.device() != self.device())
          throw DeviceMismatchError("[" + std::string(op) + "] indices should be on the indexed tensor's device (" +
                                    self.device().str() + ") or on cpu, got " + t.device().str() + "; move them with .to(" +
                                    self.device().str() + ").");
        if (is_mask(t)) {
          Tensor m = t.dim() == 0 ? t.reshape({1}) : t;
          if (t.dim() == 0) b.view = b.view.unsqueeze(d);
          for (int64_t k = 0; k < m.dim(); ++k)
            if (m.size(k) != b.view.size(d + k))
              throw Error("[" + std::string(op) + "] the shape of the mask " + ops::shape_str(t.sizes()) +
                          " does not match the shape of the indexed tensor " + ops::shape_str(self.sizes()) +
                          " at dimension " + std::to_string(src + k) + " (" + std::to_string(m.size(k)) + " vs " +
                          std::to_string(b.view.size(d + k)) + ").");
          Tensor nz = m.nonzero().to(self.device());
          for (int64_t k = 0; k < m.dim(); ++k) b.adv.emplace_back(d + k, nz.select(1, k));
          d += m.dim(), src += t.dim();
        } else {
          b.adv.emplace_back(d, checked_index(op, t, src, b.view.size(d), self.device()));
          d += 1, src += 1;
        }
        break;
      }
    }
  }
  return b;
}

// x indexed by the (dim, index) pairs of `adv` (ascending dims), by Python's advanced rules.
Tensor advanced_read(const Tensor& x, const std::vector<std::pair<int64_t, Tensor>>& adv) {
  DimVector bshape(adv[0].second.sizes());
  try {
    for (const auto& a : adv) bshape = ops::broadcast_shapes(bshape, a.second.sizes(), "index");
  } catch (const Error&) {
    std::string shapes;
    for (const auto& a : adv) shapes += (shapes.empty() ? "" : ", ") + ops::shape_str(a.second.sizes());
    throw Error("[index] shape mismatch: the index tensors could not be broadcast together with shapes " + shapes +
                " (a bool mask counts as one index per dim it covers, a bool among tensor indices as [0] for true "
                "and an empty index for false); give the index tensors shapes that broadcast.");
  }
  DimVector perm, rest_sizes;
  std::vector<bool> indexed(static_cast<size_t>(x.dim()), false);
  bool adjacent = true;
  for (size_t j = 0; j < adv.size(); ++j) {
    perm.push_back(adv[j].first);
    indexed[adv[j].first] = true;
    if (j > 0 && adv[j].first != adv[j - 1].first + 1) adjacent = false;
  }
  for (int64_t k = 0; k < x.dim(); ++k)
    if (!indexed[k]) perm.push_back(k), rest_sizes.push_back(x.size(k));
  // positions in the flattened indexed dims: sum of index_j * (product of the later indexed sizes)
  Tensor linear;
  int64_t span = 1;
  for (size_t j = adv.size(); j-- > 0;) {
    Tensor term = adv[j].second.expand(bshape) * span;
    linear = linear.defined() ? linear + term : term;
    span *= x.size(adv[j].first);
  }
  DimVector flat_sizes{span};
  for (int64_t s : rest_sizes) flat_sizes.push_back(s);
  Tensor flat = x.permute(perm).reshape(flat_sizes);
  Tensor picked = flat.index_select(0, linear.reshape({-1}));
  DimVector out_sizes(bshape);
  for (int64_t s : rest_sizes) out_sizes.push_back(s);
  Tensor out = picked.reshape(out_sizes);
  int64_t first = adv[0].first, nb = static_cast<int64_t>(bshape.size());
  if (!adjacent || first == 0) return out;
  DimVector back;  // [dims before the indexed ones, broadcast dims, dims after]
  for (int64_t k = 0; k < first; ++k) back.push_back(nb + k);
  for (int64_t k = 0; k < nb; ++k) back.push_back(k);
  for (int64_t k = nb + first; k < out.dim(); ++k) back.push_back(k);
  return out.permute(back);
}

Tensor index_impl(const Tensor& self, const std::vector<TensorIndex>& indices) {
  Basic b = apply_basic("index", self, indices);
  if (b.adv.empty()) return b.view;
  return advanced_read(b.view, b.adv);
}

// `value` without leading size-1 dims beyond `dims` (Python lets x[0] = ones(1, 3) through).
Tensor strip_leading_ones(Tensor value, int64_t dims) {
  while (value.dim() > dims && value.size(0) == 1) value = value.squeeze(0);
  return value;
}

void index_put_impl(Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value, bool accumulate = false) {
  const char* op = "index_put_";
  // Recorded through copy_ into the indexed view (CopySlices on self), with the values merged by
  // differentiable ops when the indices are tensors.
  const bool recorded = autograd::should_record(self, value) || autograd::view_of_graph(self);
  if (recorded) autograd::check_inplace_graph(op, self);
  Basic b = apply_basic(op, self, indices);
  if (b.adv.empty()) {
    b.view.copy_(strip_leading_ones(value, b.view.dim()));
    return;
  }
  Tensor& v = b.view;
  auto long_opts = TensorOptions().dtype(kLong).device(self.device());
  Tensor positions = advanced_read(arange(v.numel(), long_opts).reshape(v.sizes()), b.adv);
  Tensor val = strip_leading_ones(value, positions.dim());
  bool fits = val.dim() <= positions.dim();
  for (int64_t k = 1; fits && k <= val.dim(); ++k)
    fits = val.size(-k) == 1 || val.size(-k) == positions.size(-k);
  if (!fits)
    throw Error("[index_put_] shape mismatch: value tensor of shape " + ops::shape_str(value.sizes()) +
                " cannot be broadcast to indexing result of shape " + ops::shape_str(positions.sizes()) + ".");
  if (positions.numel() == 0) return;
  // recorded: the merge reads a clone of the old values (copy_ below overwrites them)
  const Tensor old = recorded ? v.clone() : v;
  if (accumulate) {  // every occurrence adds (index_add), in the compute dtype
    ScalarType work = self.scalar_type() == kBool ? kInt : self.scalar_type();
    Tensor picked = ops::cast(val.to(self.device()), work).expand(positions.sizes()).reshape({-1});
    Tensor merged = ops::cast(old, work).reshape({-1}).index_add(0, positions.reshape({-1}), picked);
    v.copy_(merged.view(v.sizes()));
    return;
  }
  // last write wins: keep the last occurrence of each position
  Tensor host = positions.reshape({-1}).cpu().contiguous();
  const int64_t* p = host.data_ptr<int64_t>();
  std::vector<int64_t> last(static_cast<size_t>(v.numel()), -1);
  for (int64_t j = 0; j < host.numel(); ++j) last[p[j]] = j;
  std::vector<int64_t> src, dst;
  Tensor mask = zeros({v.numel()}, kBool);
  bool* m = mask.data_ptr<bool>();
  for (int64_t q = 0; q < v.numel(); ++q)
    if (last[q] >= 0) src.push_back(last[q]), dst.push_back(q), m[q] = true;
  auto to_dev = [&](const std::vector<int64_t>& xs) {
    return host_long(xs, {static_cast<int64_t>(xs.size())}).to(self.device());
  };
  ScalarType work = self.scalar_type() == kBool ? kInt : self.scalar_type();
  Tensor picked = ops::cast(val.to(self.device()), work).expand(positions.sizes()).reshape({-1}).index_select(0, to_dev(src));
  Tensor placed = zeros({v.numel()}, TensorOptions().dtype(work).device(self.device()));
  if (recorded) placed = placed.scatter_add(0, to_dev(dst), picked);
  else placed.scatter_add_(0, to_dev(dst), picked);
  Tensor merged = where(mask.to(self.device()), placed, ops::cast(old, work).reshape({-1}));
  v.copy_(merged.view(v.sizes()));
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index_impl(*this, std::vector<TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const { return index_impl(*this, indices); }

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const {
  index_put_impl(mut_self(), std::vector<TensorIndex>(indices), value);
  return mut_self();
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) const {
  index_put_impl(mut_self(), indices, value);
  return mut_self();
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const {
  return index_put_(std::vector<TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) const {
  index_put_impl(mut_self(), indices, full({}, value, TensorOptions().dtype(scalar_type()).device(device())));
  return mut_self();
}

// ---- tensor API batch (stop 47) ----
namespace {
std::vector<TensorIndex> as_tensor_indices(const char* op, const std::vector<std::optional<Tensor>>& indices) {
  std::vector<TensorIndex> out;
  out.reserve(indices.size());
  for (const auto& t : indices) {
    if (t.has_value() && !t->defined())
      throw Error("[" + std::string(op) + "] an index is an undefined tensor; pass std::nullopt for a whole dim.");
    if (t.has_value()) out.emplace_back(*t);
    else out.emplace_back(indexing::Slice());
  }
  return out;
}
}  // namespace

Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                           bool accumulate) const {
  index_put_impl(mut_self(), as_tensor_indices("index_put_", indices), values, accumulate);
  return mut_self();
}
Tensor Tensor::index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate) const {
  Tensor out = clone();
  return out.index_put_(indices, values, accumulate);
}
Tensor Tensor::index(const std::vector<std::optional<Tensor>>& indices) const {
  return index_impl(*this, as_tensor_indices("index", indices));
}
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  return self.index_put(indices, values, accumulate);
}
Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  return self.index_put_(indices, values, accumulate);
}
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) { return self.index(indices); }
// ---- end tensor API batch (stop 47) ----

Tensor Tensor::nonzero() const {
  Tensor host = ne(0).cpu().contiguous();
  const bool* p = host.data_ptr<bool>();
  int64_t nd = dim(), n = host.numel();
  std::vector<int64_t> out;
  DimVector pos(static_cast<size_t>(nd), 0);
  int64_t count = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (p[k]) {
      out.insert(out.end(), pos.begin(), pos.end());
      ++count;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {  // next position, row-major
      if (++pos[d] < size(d)) break;
      pos[d] = 0;
    }
  }
  return host_long(out, {count, nd}).to(device());
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  if (mask.scalar_type() != kBool)
    throw Error(std::string("[masked_select] expected a bool mask, got ") + dtype_name(mask.scalar_type()) + "; compare first (x > 0).");
  DimVector shape = ops::broadcast_shapes(sizes(), mask.sizes(), "masked_select");
  return expand(shape).index({mask.expand(shape)});
}

Tensor nonzero(const Tensor& a) { return a.nonzero(); }
std::vector<Tensor> nonzero_numpy(const Tensor& a) {
  return (a.dim() == 0 ? a.unsqueeze(0) : a).nonzero().unbind(1);
}
std::vector<Tensor> where(const Tensor& condition) { return nonzero_numpy(condition); }
Tensor masked_select(const Tensor& a, const Tensor& mask) { return a.masked_select(mask); }

}  // namespace locus
