// Sorting statistics: _unique, _unique2, unique_dim, unique_consecutive, median, nanmedian,
// kthvalue, mode, quantile, nanquantile, bincount, histc, bucketize, searchsorted.
//
// The selections (median, kthvalue, quantile) are made of existing ops: argsort (whose order is
// computed on the host, see sort.cpp), gather, comparisons and sums, so they run on every device
// and their values are differentiable through gather (the gradient goes to the chosen element).
// mode's choice of element is a host loop over the sorted rows; its values are gathered on the
// input's device too. The unique family's output size depends on the data: those run on a host
// copy and only the chosen positions travel back, the values being gathered from the input on its
// own device. bincount, histc, bucketize and searchsorted are comparisons and scatter-adds on the
// input's device (bincount and histc read one or two numbers back to size their result).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"

namespace locus {
namespace {

std::string tag(const char* op) { return "[" + std::string(op) + "] "; }


// ---- host rows ---------------------------------------------------------------------------------

// The tensor's slices along `d` as host rows [n, len] of doubles (int64 kept exact): n =
// size(d), len = the product of the other sizes.
struct HostRows {
  bool exact_int = false;
  Tensor t;  // [n, len] contiguous, kLong or kDouble, on cpu
  int64_t n = 0, len = 0;
  double at_d(int64_t r, int64_t c) const { return t.data_ptr<double>()[r * len + c]; }
  int64_t at_i(int64_t r, int64_t c) const { return t.data_ptr<int64_t>()[r * len + c]; }
  // -1, 0, 1: lexicographic order of rows a and b, NaN above every number; 2 where the first
  // difference is two NaNs (they sort together but are unequal: each NaN is a value of its own).
  int cmp(int64_t a, int64_t b) const {
    for (int64_t c = 0; c < len; ++c) {
      if (exact_int) {
        int64_t x = at_i(a, c), y = at_i(b, c);
        if (x != y) return x < y ? -1 : 1;
        continue;
      }
      double x = at_d(a, c), y = at_d(b, c);
      bool nx = std::isnan(x), ny = std::isnan(y);
      if (nx || ny) {
        if (nx && ny) return 2;  // unordered but unequal: distinct values that sort together
        return nx ? 1 : -1;
      }
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
};

HostRows host_rows(const Tensor& x, int64_t d) {
  HostRows h;
  h.exact_int = x.scalar_type() == kLong;
  Tensor m = x.movedim(d, 0);
  h.n = m.size(0);
  h.len = 1;
  for (int64_t i = 1; i < m.dim(); ++i) h.len *= m.size(i);
  h.t = m.reshape({h.n, h.len}).cpu().to(h.exact_int ? kLong : kDouble).contiguous();
  return h;
}

Tensor long_tensor(const std::vector<int64_t>& v, Device device) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kLong);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t.to(device);
}

Tensor empty_long(Device device) { return empty({0}, TensorOptions().dtype(kLong).device(device)); }

struct UniqueResult {
  std::vector<int64_t> first;    // per unique row: the position of one row that has its value
  std::vector<int64_t> inverse;  // per row: its unique row
  std::vector<int64_t> counts;   // per unique row
};

// Unique rows of h: sorted (NaN last, each NaN a value of its own), or runs of equal consecutive rows.
UniqueResult unique_rows(const HostRows& h, bool consecutive) {
  UniqueResult r;
  std::vector<int64_t> perm(static_cast<size_t>(h.n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  if (!consecutive)
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      int c = h.cmp(a, b);
      return c == -1;
    });
  r.inverse.assign(static_cast<size_t>(h.n), 0);
  for (int64_t i = 0; i < h.n; ++i) {
    int64_t row = perm[static_cast<size_t>(i)];
    if (i == 0 || h.cmp(perm[static_cast<size_t>(i - 1)], row) != 0) {
      r.first.push_back(row);
      r.counts.push_back(0);
    }
    r.inverse[static_cast<size_t>(row)] = static_cast<int64_t>(r.first.size()) - 1;
    ++r.counts.back();
  }
  return r;
}

// unique over the flattened tensor (dim == nullopt) or over slices along dim.
std::tuple<Tensor, Tensor, Tensor> unique_impl(const char* op, const Tensor& self, std::optional<int64_t> dim,
                                               bool consecutive, bool return_inverse, bool return_counts) {
  Device dev = self.device();
  if (!dim) {
    Tensor flat = self.reshape({-1});
    HostRows h = host_rows(flat.reshape({-1, 1}), 0);
    UniqueResult r = unique_rows(h, consecutive);
    Tensor values = flat.index_select(0, long_tensor(r.first, dev)).detach();
    Tensor inv = return_inverse ? long_tensor(r.inverse, dev).reshape(self.sizes()) : empty_long(dev);
    Tensor cnt = return_counts ? long_tensor(r.counts, dev) : empty_long(dev);
    return {values, inv, cnt};
  }
  int64_t d = detail::wrap_dim(*dim, self.dim(), op);
  if (self.numel() == 0 && self.size(d) != 0)
    throw Error(tag(op) + "the tensor " + ops::shape_str(self.sizes()) + " has a zero-sized dimension other than dim " +
                std::to_string(d) + ", so its slices along dim " + std::to_string(d) +
                " cannot be told apart; pick a dim of size 0 or use a non-empty tensor.");
  HostRows h = host_rows(self, d);
  UniqueResult r = unique_rows(h, consecutive);
  Tensor values = self.index_select(d, long_tensor(r.first, dev)).detach();
  Tensor inv = return_inverse ? long_tensor(r.inverse, dev) : empty_long(dev);
  Tensor cnt = return_counts ? long_tensor(r.counts, dev) : empty_long(dev);
  return {values, inv, cnt};
}

// ---- selections --------------------------------------------------------------------------------

bool floating(const Tensor& t) { return is_floating_point(t.scalar_type()); }

// The number of non-NaN elements along d (keepdim, int64).
Tensor count_valid(const Tensor& x, int64_t d) { return x.isnan().logical_not().sum({d}, true, kLong); }

// (values, indices) of the element at sorted position `pos` (int64, keepdim shape) along d.
std::tuple<Tensor, Tensor> pick_sorted(const Tensor& x, int64_t d, const Tensor& pos, bool keepdim) {
  Tensor idx = x.argsort(d).gather(d, pos);
  Tensor val = x.gather(d, idx);
  if (!keepdim) return {val.squeeze(d), idx.squeeze(d)};
  return {val, idx};
}

DimVector keep_shape(const Tensor& x, int64_t d) {
  DimVector s(x.sizes());
  s[static_cast<size_t>(d)] = 1;
  return s;
}

enum class Median { Plain, IgnoreNan };

std::tuple<Tensor, Tensor> median_dim(const char* op, const Tensor& self, int64_t dim, bool keepdim, Median kind) {
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, op);
    return {self.clone(), zeros({}, TensorOptions().dtype(kLong).device(self.device()))};
  }
  int64_t d = detail::wrap_dim(dim, self.dim(), op);
  int64_t n = self.size(d);
  if (n == 0)
    throw Error(tag(op) + "expected reduction dim " + std::to_string(d) + " to have non-zero size, but the input is " +
                ops::shape_str(self.sizes()) + ".");
  TensorOptions lo = TensorOptions().dtype(kLong).device(self.device());
  Tensor pos = full(keep_shape(self, d), (n - 1) / 2, lo);
  if (floating(self)) {
    Tensor valid = count_valid(self, d);
    if (kind == Median::Plain) {
      pos = locus::where(valid.lt(n), valid, pos);  // a NaN in the row: the first NaN, sorted last
    } else {  // the lower middle of the valid ones, in int64 on the host (argsort goes there too)
      Tensor h = valid.cpu().contiguous().clone();
      int64_t* p = h.data_ptr<int64_t>();
      for (int64_t i = 0; i < h.numel(); ++i) p[i] = p[i] > 0 ? (p[i] - 1) / 2 : 0;
      pos = h.to(self.device());
    }
  }
  return pick_sorted(self, d, pos, keepdim);
}

Tensor median_all(const char* op, const Tensor& self, Median kind) {
  if (self.numel() == 0) {
    if (!floating(self))
      throw Error(tag(op) + "the median of an empty " + std::string(dtype_name(self.scalar_type())) +
                  " tensor is undefined (a floating-point one gives NaN).");
    return full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  }
  return std::get<0>(median_dim(op, self.reshape({-1}), 0, false, kind));
}

// ---- quantile ----------------------------------------------------------------------------------

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Interp parse_interpolation(const char* op, std::string_view s) {
  if (s == "linear") return Interp::Linear;
  if (s == "lower") return Interp::Lower;
  if (s == "higher") return Interp::Higher;
  if (s == "midpoint") return Interp::Midpoint;
  if (s == "nearest") return Interp::Nearest;
  throw Error(tag(op) + "interpolation must be one of linear, lower, higher, midpoint or nearest, got '" +
              std::string(s) + "'.");
}

Tensor quantile_impl(const char* op, const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation, bool ignore_nan) {
  ops::check_same_device(op, {{"self", &self}, {"q", &q}});
  if (self.numel() == 0) throw Error(tag(op) + "the input tensor must be non-empty.");
  if (q.dim() > 1)
    throw Error(tag(op) + "q must be a scalar or a 1-D tensor, got shape " + ops::shape_str(q.sizes()) + ".");
  if (self.scalar_type() != kFloat && self.scalar_type() != kDouble)
    throw Error(tag(op) + "the input tensor must be float32 or float64, got " +
                std::string(dtype_name(self.scalar_type())) + "; convert it with .to(kFloat).");
  if (q.scalar_type() != self.scalar_type())
    throw Error(tag(op) + "q (" + std::string(dtype_name(q.scalar_type())) + ") must have the input's dtype (" +
                std::string(dtype_name(self.scalar_type())) + ").");
  Interp how = parse_interpolation(op, interpolation);
  if (q.numel() > 0 && !q.ge(0).logical_and(q.le(1)).all().item<bool>())
    throw Error(tag(op) + "q values must be in the range [0, 1].");
  int64_t d = dim ? detail::wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), op) : 0;
  Tensor x = dim ? (self.dim() == 0 ? self.reshape({1}) : self.movedim(d, -1)) : self.reshape({-1});
  Tensor sorted = std::get<0>(x.sort(-1));  // [..., n], NaN last
  const int64_t n = sorted.size(-1);
  Tensor qv = q.reshape({-1});  // [nq]
  Tensor ranks;
  if (ignore_nan) {
    Tensor valid = sorted.isnan().logical_not().sum({-1}, true, self.scalar_type());
    ranks = (qv * (valid - 1)).clamp_min(0);  // all NaN: rank 0, a NaN
  } else {
    Tensor has_nan = sorted.isnan().sum({-1}, true, kLong).gt(0);
    ranks = locus::where(has_nan, full({}, static_cast<double>(n - 1), qv.options()), qv * static_cast<double>(n - 1));
  }
  DimVector rs(sorted.sizes());
  rs.back() = qv.size(0);
  ranks = ranks.expand(rs).contiguous();
  if (how == Interp::Lower) ranks = ranks.floor();
  else if (how == Interp::Higher) ranks = ranks.ceil();
  else if (how == Interp::Nearest) ranks = ranks.round();
  Tensor below = ranks.to(kLong);
  Tensor result = sorted.gather(-1, below);
  if (how == Interp::Linear || how == Interp::Midpoint) {
    Tensor weights = how == Interp::Midpoint ? full_like(ranks, 0.5) : ranks - below.to(ranks.scalar_type());
    Tensor above = sorted.gather(-1, ranks.ceil().to(kLong));
    result = result.lerp(above, weights);
  }
  // result: [..., nq]
  if (q.dim() == 0) result = result.squeeze(-1);
  else result = result.movedim(-1, 0);
  const int64_t lead = q.dim() == 0 ? 0 : 1;
  if (keepdim) {
    if (dim) {
      if (self.dim() > 0) result = result.unsqueeze(lead + d);
    } else {
      DimVector s;
      if (lead) s.push_back(q.numel());
      for (int64_t i = 0; i < self.dim(); ++i) s.push_back(1);
      result = result.reshape(s);
    }
  }
  return result;
}

Tensor q_tensor(const char* op, double q, const Tensor& self) {
  if (!(q >= 0 && q <= 1)) throw Error(tag(op) + "q must be in the range [0, 1], got " + number_str(q) + ".");
  // an integer input keeps q in float64, so that quantile_impl reports the input's dtype
  return full({}, q, floating(self) ? self.options() : self.options().dtype(kDouble));
}

// ---- searchsorted ------------------------------------------------------------------------------

Tensor search(const char* op, const Tensor& seq, const Tensor& x, bool right) {
  // position = the number of sequence elements e with !(e >= v) (left) or !(e > v) (right): the
  // binary search's answer on a sorted sequence, NaN values going to the end as PyTorch's do.
  // Done in chunks of the values so that the [values, sequence] comparison stays small.
  const int64_t m = seq.size(-1);
  auto count = [&](const Tensor& s, const Tensor& v) {  // s [..., 1, m] or [m], v [..., k, 1]
    Tensor c = right ? s.gt(v) : s.ge(v);
    return c.logical_not().sum({-1}, false, kLong);
  };
  if (seq.dim() == 1) {
    Tensor flat = x.reshape({-1});
    const int64_t total = flat.numel();
    const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(m, 1));
    if (total <= chunk) return count(seq, flat.unsqueeze(-1)).reshape(x.sizes());
    std::vector<Tensor> parts;
    for (int64_t s = 0; s < total; s += chunk)
      parts.push_back(count(seq, flat.narrow(0, s, std::min(chunk, total - s)).unsqueeze(-1)));
    return cat(parts, 0).reshape(x.sizes());
  }
  return count(seq.unsqueeze(-2), x.unsqueeze(-1));
}

}  // namespace

// ---- unique ------------------------------------------------------------------------------------

std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted, bool return_inverse) {
  auto [v, i, c] = unique_impl("_unique", self, std::nullopt, false, return_inverse, false);
  return {v, i};
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  return unique_impl("_unique2", self, std::nullopt, false, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  return unique_impl("unique_dim", self, dim, false, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  return unique_impl("unique_consecutive", self, dim, true, return_inverse, return_counts);
}

// ---- median, kthvalue, mode ----------------------------------------------------------------------

Tensor Tensor::median() const { return median_all("median", *this, Median::Plain); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return median_dim("median", *this, dim, keepdim, Median::Plain);
}
Tensor Tensor::nanmedian() const { return median_all("nanmedian", *this, Median::IgnoreNan); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return median_dim("nanmedian", *this, dim, keepdim, Median::IgnoreNan);
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  Tensor x = this->dim() == 0 ? reshape({1}) : *this;
  int64_t d = detail::wrap_dim(dim, x.dim(), "kthvalue");
  int64_t n = x.size(d);
  if (k < 1 || k > n)
    throw Error("[kthvalue] k (" + std::to_string(k) + ") is out of range for dimension " + std::to_string(d) +
                " of size " + std::to_string(n) + "; pick 1 <= k <= " + std::to_string(n) + ".");
  auto [v, i] = pick_sorted(x, d, full(keep_shape(x, d), k - 1, TensorOptions().dtype(kLong).device(device())),
                            keepdim || this->dim() == 0);
  if (this->dim() == 0) return {v.reshape({}), i.reshape({})};
  return {v, i};
}

std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  Tensor x = this->dim() == 0 ? reshape({1}) : *this;
  int64_t d = detail::wrap_dim(dim, x.dim(), "mode");
  int64_t n = x.size(d);
  if (n == 0)
    throw Error("[mode] expected reduction dim " + std::to_string(d) + " to have non-zero size, but the input is " +
                ops::shape_str(sizes()) + ".");
  // Host loop: per row (the slice along d), the stable order, then the first longest run of
  // equal values (the smallest most frequent value; NaNs are unequal, runs of one) and the
  // position of its last element, which is PyTorch's index.
  Tensor order = x.argsort(d).movedim(d, -1).contiguous().cpu().reshape({-1, n});
  HostRows h = host_rows(x.movedim(d, -1).reshape({-1, n}), 0);
  const int64_t rows = h.n;
  std::vector<int64_t> pick(static_cast<size_t>(rows));
  const int64_t* ord = order.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* o = ord + r * n;
    auto equal = [&](int64_t a, int64_t b) {
      if (h.exact_int) return h.at_i(r, a) == h.at_i(r, b);
      return h.at_d(r, a) == h.at_d(r, b);
    };
    int64_t best = 0, best_len = 0, run = 0;
    for (int64_t i = 0; i < n; ++i) {
      ++run;
      if (i == n - 1 || !equal(o[i], o[i + 1])) {
        if (run > best_len) best_len = run, best = o[i];
        run = 0;
      }
    }
    pick[static_cast<size_t>(r)] = best;
  }
  DimVector ks;
  for (int64_t i = 0; i < x.dim(); ++i) ks.push_back(i == d ? 1 : x.size(i));
  Tensor idx = long_tensor(pick, device()).reshape(ks);
  Tensor val = x.gather(d, idx);
  if (this->dim() == 0) return {val.reshape({}), idx.reshape({})};
  if (!keepdim) return {val.squeeze(d), idx.squeeze(d)};
  return {val, idx};
}

// ---- quantile ------------------------------------------------------------------------------------

Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) const {
  return quantile_impl("quantile", *this, q, dim, keepdim, interp, false);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) const {
  return quantile_impl("quantile", *this, q_tensor("quantile", q, *this), dim, keepdim, interp, false);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) const {
  return quantile_impl("nanquantile", *this, q, dim, keepdim, interp, true);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) const {
  return quantile_impl("nanquantile", *this, q_tensor("nanquantile", q, *this), dim, keepdim, interp, true);
}

// ---- bincount, histc -----------------------------------------------------------------------------

Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  const bool has_w = weights && weights->defined();
  if (has_w) ops::check_same_device("bincount", {{"self", this}, {"weights", &*weights}});
  ScalarType t = scalar_type();
  if (!is_integral(t, /*includeBool=*/false))
    throw Error("[bincount] expected an integer tensor, got " + std::string(dtype_name(t)) + ".");
  if (dim() != 1) throw Error("[bincount] only supports 1-D non-negative integer inputs, got shape " +
                              ops::shape_str(sizes()) + ".");
  if (minlength < 0) throw Error("[bincount] minlength should be >= 0, got " + std::to_string(minlength) + ".");
  if (has_w && (weights->dim() != 1 || weights->size(0) != size(0)))
    throw Error("[bincount] weights should be 1-D and have the input's length (" + std::to_string(size(0)) +
                "), got shape " + ops::shape_str(weights->sizes()) + ".");
  int64_t len = minlength;
  Tensor idx = to(kLong);
  if (numel() > 0) {
    if (idx.min().item<int64_t>() < 0)
      throw Error("[bincount] only supports 1-D non-negative integer inputs; the input has a negative value.");
    len = std::max(len, idx.max().item<int64_t>() + 1);
  }
  ScalarType out_t = !has_w ? kLong : (weights->scalar_type() == kFloat ? kFloat : kDouble);
  Tensor out = zeros({len}, TensorOptions().dtype(out_t).device(device()));
  if (numel() == 0) return out;
  Tensor src = has_w ? weights->detach().to(out_t) : ones({numel()}, out.options());
  return out.scatter_add_(0, idx, src);
}

Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  ScalarType t = scalar_type();
  if (t != kFloat && t != kDouble && t != kHalf && t != kBFloat16)
    throw Error("[histc] expected a floating-point tensor, got " + std::string(dtype_name(t)) +
                "; convert it with .to(kFloat).");
  if (bins <= 0) throw Error("[histc] bins must be > 0, got " + std::to_string(bins) + ".");
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && numel() > 0) {
    lo = this->min().item<double>();
    hi = this->max().item<double>();
  }
  if (lo == hi) lo -= 1, hi += 1;
  if (!(lo < hi) && std::isfinite(lo) && std::isfinite(hi))
    throw Error("[histc] max (" + number_str(hi) + ") must be larger than min (" + number_str(lo) + ").");
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw Error("[histc] the range [" + number_str(lo) + ", " + number_str(hi) +
                "] is not finite; drop the NaN and infinite elements or pass min and max.");
  Tensor out = zeros({bins}, options());
  if (numel() == 0) return out;
  Tensor x = detach().reshape({-1});
  Tensor in = x.ge(lo).logical_and(x.le(hi));
  // the bin as PyTorch computes it, in the input's dtype: (x - min) * bins / (max - min)
  Tensor pos = ((x - lo) * static_cast<double>(bins) / (hi - lo)).floor().clamp(0, static_cast<double>(bins - 1));
  pos = locus::where(in, pos, full({}, 0.0, pos.options())).to(kLong);
  return out.scatter_add_(0, pos, in.to(t));
}

// ---- bucketize, searchsorted ---------------------------------------------------------------------

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const char* op = "searchsorted";
  ops::check_same_device(op, {{"sorted_sequence", &sorted_sequence}, {"self", &self}});
  if (side) {
    if (*side != "left" && *side != "right")
      throw Error("[searchsorted] side can only be 'left' or 'right', got '" + std::string(*side) + "'.");
    if (right && *side == "left")
      throw Error("[searchsorted] side and right can't be set to opposites: got side 'left' while right is true.");
    right = *side == "right";
  }
  if (sorted_sequence.dim() == 0)
    throw Error("[searchsorted] the boundaries tensor should have at least one dimension, but it is 0-D.");
  if (sorted_sequence.dim() > 1) {
    bool ok = self.dim() == sorted_sequence.dim();
    for (int64_t i = 0; ok && i + 1 < self.dim(); ++i) ok = self.size(i) == sorted_sequence.size(i);
    if (!ok)
      throw Error("[searchsorted] the boundaries tensor should be 1-D, or its first N-1 dimensions must match the "
                  "input's, but got boundaries " + ops::shape_str(sorted_sequence.sizes()) + " and input " +
                  ops::shape_str(self.sizes()) + ".");
  }
  Tensor seq = sorted_sequence;
  if (sorter && sorter->defined()) {
    ops::check_same_device(op, {{"sorted_sequence", &sorted_sequence}, {"sorter", &*sorter}});
    if (sorter->sizes() != sorted_sequence.sizes())
      throw Error("[searchsorted] boundaries and sorter must have the same size, got boundaries " +
                  ops::shape_str(sorted_sequence.sizes()) + " and sorter " + ops::shape_str(sorter->sizes()) + ".");
    if (sorter->scalar_type() != kLong)
      throw Error("[searchsorted] sorter must be an int64 tensor, got " +
                  std::string(dtype_name(sorter->scalar_type())) + ".");
    const int64_t n = sorted_sequence.size(-1);
    if (sorter->numel() > 0 && (sorter->lt(0).any().item<bool>() || sorter->ge(n).any().item<bool>()))
      throw Error("[searchsorted] sorter index out of range: every entry must be in [0, " + std::to_string(n) +
                  ") (the boundaries' last dimension); pass the argsort of the boundaries.");
    seq = seq.gather(-1, *sorter);
  }
  Tensor out = search(op, seq.detach(), self.detach(), right);
  return out_int32 ? out.to(kInt) : out;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  Tensor v = full({}, self, TensorOptions().dtype(self.type()).device(sorted_sequence.device()));
  return searchsorted(sorted_sequence, v, out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  if (boundaries.dim() != 1)
    throw Error("[bucketize] boundaries must be a 1-D tensor, got shape " + ops::shape_str(boundaries.sizes()) + ".");
  ops::check_same_device("bucketize", {{"self", &self}, {"boundaries", &boundaries}});
  Tensor out = search("bucketize", boundaries.detach(), self.detach(), right);
  return out_int32 ? out.to(kInt) : out;
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize(full({}, self, TensorOptions().dtype(self.type()).device(boundaries.device())), boundaries,
                   out_int32, right);
}

// ---- free functions ------------------------------------------------------------------------------

Tensor median(const Tensor& self) { return self.median(); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) { return self.median(dim, keepdim); }
Tensor nanmedian(const Tensor& self) { return self.nanmedian(); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return self.nanmedian(dim, keepdim);
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return self.kthvalue(k, dim, keepdim);
}
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) { return self.mode(dim, keepdim); }
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) {
  return self.quantile(q, dim, keepdim, interp);
}
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interp) {
  return self.quantile(q, dim, keepdim, interp);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interp) {
  return self.nanquantile(q, dim, keepdim, interp);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interp) {
  return self.nanquantile(q, dim, keepdim, interp);
}
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  return self.bincount(weights, minlength);
}
Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  return self.histc(bins, min, max);
}

}  // namespace locus
