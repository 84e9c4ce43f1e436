// ---- ops batch (stop 46) ----
// libtorch ops a differential run found missing, each made of existing differentiable ops (so they
// run on every device and differentiate as their parts do): index_fill, masked_scatter, take, put,
// swapaxes / swapdims, tensor_split, round with decimals, fmax / fmin, renorm, combinations,
// matrix_power, chain_matmul / linalg::multi_dot, baddbmm, addbmm, addmv, addr, vander and the ATen
// spellings cosine_similarity, pairwise_distance and frobenius_norm.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/linalg.h"
#include "locus/nn/functional_losses.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {
namespace {

std::string dims_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// index (int64, at most 1-D) wrapped into [0, n); out-of-range entries raise, naming op.
Tensor wrapped_index(const char* op, const Tensor& index, int64_t n, const char* what = "index") {
  if (index.scalar_type() != kLong)
    throw Error("[" + std::string(op) + "] expected an int64 (kLong) " + what + " tensor, got " +
                locus::toString(index.scalar_type()) + "; convert it with .to(torch::kLong).");
  Tensor idx = index.reshape({-1});
  if (idx.numel() == 0) return idx;
  int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
  if (lo < -n || hi >= n)
    throw Error("[" + std::string(op) + "] index " + std::to_string(lo < -n ? lo : hi) + " is out of range for " +
                std::to_string(n) + " elements (valid: -" + std::to_string(n) + " to " + std::to_string(n - 1) + ").");
  return lo < 0 ? locus::where(idx < 0, idx + n, idx) : idx;
}

// A bool mask of shape [1.., n, ..1] (n along d of a dim-nd tensor) set at idx.
Tensor dim_mask(const Tensor& idx, int64_t n, int64_t d, int64_t nd, Device dev) {
  Tensor m = zeros({n}, TensorOptions().dtype(kLong).device(dev));
  if (idx.numel() > 0) m = m.index_add(0, idx, ones({idx.numel()}, TensorOptions().dtype(kLong).device(dev)));
  DimVector shape(static_cast<size_t>(nd), 1);
  if (nd > 0) shape[static_cast<size_t>(d)] = n;
  return m.gt(0).reshape(shape);
}

Tensor index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* tv, const Scalar* sv) {
  const char* op = "index_fill";
  const int64_t nd = self.dim();
  const int64_t d = detail::wrap_dim(dim, nd, op);
  if (index.dim() > 1)
    throw Error("[index_fill] index is supposed to be a vector (0-D or 1-D), got " + std::to_string(index.dim()) +
                " dims.");
  ops::check_same_device(op, {{"self", &self}, {"index", &index}});
  const int64_t n = nd == 0 ? 1 : self.size(d);
  Tensor mask = dim_mask(wrapped_index(op, index, n), n, d, nd, self.device());
  if (sv != nullptr) return self.masked_fill(mask, *sv);
  if (tv->dim() != 0)
    throw Error("[index_fill] only supports a 0-dimensional value tensor, but got a tensor with " +
                std::to_string(tv->dim()) + " dimension(s); pass a Scalar or a 0-dim tensor.");
  return locus::where(mask, tv->to(self.device()).to(self.scalar_type()), self);
}

std::vector<Tensor> split_at(const Tensor& self, const std::vector<int64_t>& indices, int64_t d) {
  const int64_t n = self.size(d);
  auto clampi = [n](int64_t i) { return std::clamp(i < 0 ? i + n : i, int64_t{0}, n); };
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i : indices) {
    int64_t s = clampi(start), e = std::max(clampi(i), s);
    out.push_back(self.narrow(d, s, e - s));
    start = i;
  }
  int64_t s = clampi(start);
  out.push_back(self.narrow(d, s, n - s));
  return out;
}

void check_tensor_split(const Tensor& self) {
  if (self.dim() == 0)
    throw Error("[tensor_split] expected at least a 1-dimensional tensor, but got a tensor with 0 dims.");
}

Tensor fminmax(const char* op, const Tensor& a, const Tensor& b, bool max) {
  ops::check_same_device(op, {{"self", &a}, {"other", &b}});
  ScalarType t = ops::result_type({&a, &b});
  Tensor x = a.to(t), y = b.to(t);
  Tensor pick = max ? x.ge(y) : x.le(y);
  if (locus::is_floating_point(t)) pick = pick.logical_or(y.isnan());
  return locus::where(pick, x, y);
}

Tensor scaled(const Tensor& t, const Scalar& s) { return s.toDouble() == 1.0 ? t : t.mul(s); }
// beta * self + alpha * prod, with beta == 0 ignoring self (its NaN and inf included), as PyTorch
Tensor add_scaled(const Tensor& self, const Tensor& prod, const Scalar& beta, const Scalar& alpha) {
  Tensor p = scaled(prod, alpha);
  if (beta.toDouble() == 0.0) return p + zeros_like(self);
  return scaled(self, beta) + p;
}

void check_dims(const char* op, const Tensor& t, int64_t nd, const char* what) {
  if (t.dim() != nd)
    throw Error("[" + std::string(op) + "] expected " + what + " to be a " + std::to_string(nd) + "-D tensor, got " +
                std::to_string(t.dim()) + "-D (shape " + dims_str(t.sizes()) + ").");
}

}  // namespace

// ---- index_fill, masked_scatter, take, put ---------------------------------------------------------
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return index_fill_impl(*this, dim, index, nullptr, &value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return index_fill_impl(*this, dim, index, &value, nullptr);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ops::assign_result(mut_self(), "index_fill_", [&](const Tensor& me) { return me.index_fill(dim, index, value); });
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ops::assign_result(mut_self(), "index_fill_", [&](const Tensor& me) { return me.index_fill(dim, index, value); });
}

Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  const char* op = "masked_scatter";
  ops::check_same_device(op, {{"self", this}, {"mask", &mask}, {"source", &source}});
  if (mask.scalar_type() != kBool && mask.scalar_type() != kByte)
    throw Error(std::string("[masked_scatter] only supports boolean masks, but got a mask of dtype ") +
                locus::toString(mask.scalar_type()) + ".");
  if (source.scalar_type() != scalar_type())
    throw Error(std::string("[masked_scatter] expected self and source to have the same dtype, but got ") +
                locus::toString(scalar_type()) + " and " + locus::toString(source.scalar_type()) + ".");
  DimVector shape = ops::broadcast_shapes(sizes(), mask.sizes(), op);
  Tensor m = mask.to(kBool).expand(shape).reshape({-1});
  Tensor self_flat = expand(shape).reshape({-1});
  Tensor pos = m.to(kLong).cumsum(0) - 1;  // the source element each set position takes
  int64_t count = m.numel() == 0 ? 0 : pos[-1].item<int64_t>() + 1;
  if (count > source.numel())
    throw Error("[masked_scatter] the mask selects " + std::to_string(count) + " elements but source has only " +
                std::to_string(source.numel()) + ".");
  if (count == 0) return self_flat.clone().reshape(shape);
  Tensor taken = source.reshape({-1}).index_select(0, pos.clamp_min(0));
  return locus::where(m, taken, self_flat).reshape(shape);
}
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  return ops::assign_result(mut_self(), "masked_scatter_", [&](const Tensor& me) { return me.masked_scatter(mask, source); });
}

Tensor Tensor::take(const Tensor& index) const {
  ops::check_same_device("take", {{"self", this}, {"index", &index}});
  Tensor idx = wrapped_index("take", index, numel());
  return reshape({-1}).index_select(0, idx).reshape(index.sizes());
}

Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  const char* op = "put";
  ops::check_same_device(op, {{"self", this}, {"index", &index}, {"source", &source}});
  if (source.scalar_type() != scalar_type())
    throw Error(std::string("[put] self and source expected to have the same dtype, but got self.dtype = ") +
                locus::toString(scalar_type()) + " and source.dtype = " + locus::toString(source.scalar_type()) + ".");
  if (source.numel() != index.numel())
    throw Error("[put] expected source and index to have the same number of elements, but got source.numel() = " +
                std::to_string(source.numel()) + ", index.numel() = " + std::to_string(index.numel()) + ".");
  Tensor idx = wrapped_index(op, index, numel());
  Tensor flat = reshape({-1});
  Tensor src = source.reshape({-1});
  Tensor r = accumulate ? flat.index_add(0, idx, src) : flat.scatter(0, idx, src);
  return r.reshape(sizes());
}
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ops::assign_result(mut_self(), "put_", [&](const Tensor& me) { return me.put(index, source, accumulate); });
}

// ---- shapes --------------------------------------------------------------------------------------
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }

std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  check_tensor_split(*this);
  if (sections <= 0)
    throw Error("[tensor_split] number of sections must be larger than 0, got " + std::to_string(sections) + ".");
  const int64_t d = detail::wrap_dim(dim, this->dim(), "tensor_split");
  const int64_t n = size(d), base = n / sections, extra = n % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(narrow(d, start, len));
    start += len;
  }
  return out;
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  check_tensor_split(*this);
  const int64_t d = detail::wrap_dim(dim, this->dim(), "tensor_split");
  return split_at(*this, std::vector<int64_t>(indices.begin(), indices.end()), d);
}
std::vector<Tensor> Tensor::tensor_split(const Tensor& t, int64_t dim) const {
  if (!t.device().is_cpu())
    throw Error("[tensor_split] expected tensor_indices_or_sections to be on cpu, but it's on " + t.device().str() +
                ".");
  if (t.scalar_type() != kLong)
    throw Error(std::string("[tensor_split] expected tensor_indices_or_sections to have int64 (kLong) dtype, but "
                            "got ") + locus::toString(t.scalar_type()) + ".");
  if (t.dim() > 1)
    throw Error("[tensor_split] expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                "tensor, but got a tensor with " + std::to_string(t.dim()) + " dims.");
  if (t.dim() == 0) return tensor_split(t.item<int64_t>(), dim);
  Tensor c = t.contiguous();
  std::vector<int64_t> idx(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  return tensor_split(IntArrayRef(idx), dim);
}

// ---- elementwise -----------------------------------------------------------------------------------
Tensor Tensor::round(int64_t decimals) const {
  if (decimals == 0) return round();
  if (!is_floating_point())
    throw Error(std::string("[round] not implemented for '") + locus::toString(scalar_type()) +
                "' with decimals; round integers without decimals, or convert first, e.g. x.to(torch::kFloat).");
  double ten_pow = std::pow(10.0, static_cast<double>(std::abs(decimals)));
  return decimals > 0 ? mul(ten_pow).round().div(ten_pow) : div(ten_pow).round().mul(ten_pow);
}
Tensor Tensor::fmax(const Tensor& other) const { return fminmax("fmax", *this, other, true); }
Tensor Tensor::fmin(const Tensor& other) const { return fminmax("fmin", *this, other, false); }

Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  if (!(p.toDouble() > 0))
    throw Error("[renorm] non-positive norm not supported (p = " + std::to_string(p.toDouble()) + ").");
  if (maxnorm.toDouble() < 0)
    throw Error("[renorm] expected maxnorm to be >= 0 but got " + std::to_string(maxnorm.toDouble()) + ".");
  if (!is_floating_point())
    throw Error(std::string("[renorm] expected a floating-point tensor, got ") + locus::toString(scalar_type()) + ".");
  const int64_t d = detail::wrap_dim(dim, this->dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t i = 0; i < this->dim(); ++i)
    if (i != d) others.push_back(i);
  Tensor nrm = others.empty() ? abs() : linalg::vector_norm(*this, p, IntArrayRef(others), true);
  Tensor factor = locus::where(nrm > maxnorm, maxnorm.toDouble() / (nrm + 1e-7), 1.0);
  return mul(factor);
}
Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ops::assign_result(mut_self(), "renorm_", [&](const Tensor& me) { return me.renorm(p, dim, maxnorm); });
}

// ---- products ----------------------------------------------------------------------------------------
Tensor Tensor::matrix_power(int64_t n) const {
  if (this->dim() < 2 || size(-1) != size(-2))
    throw Error("[matrix_power] expected a (batch of) square matrices, got shape " + dims_str(sizes()) + ".");
  if (n == 0) {
    Tensor e = eye(size(-1), TensorOptions().dtype(scalar_type()).device(device()));
    return e.expand(sizes()).clone();
  }
  Tensor base = n < 0 ? linalg::inv(*this) : *this;
  uint64_t k = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  Tensor result;
  while (k) {
    if (k & 1) result = result.defined() ? result.matmul(base) : base;
    k >>= 1;
    if (k) base = base.matmul(base);
  }
  return result;
}
Tensor Tensor::baddbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  check_dims("baddbmm", b1, 3, "batch1");
  check_dims("baddbmm", b2, 3, "batch2");
  return add_scaled(*this, b1.bmm(b2), beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  check_dims("addbmm", b1, 3, "batch1");
  check_dims("addbmm", b2, 3, "batch2");
  return add_scaled(*this, b1.bmm(b2).sum(IntArrayRef({0})), beta, alpha);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  check_dims("addmv", mat, 2, "mat");
  check_dims("addmv", vec, 1, "vec");
  return add_scaled(*this, mat.mv(vec), beta, alpha);
}
Tensor Tensor::addr(const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) const {
  check_dims("addr", v1, 1, "vec1");
  check_dims("addr", v2, 1, "vec2");
  return add_scaled(*this, v1.outer(v2), beta, alpha);
}
Tensor& Tensor::baddbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return ops::assign_result(mut_self(), "baddbmm_", [&](const Tensor& me) { return me.baddbmm(b1, b2, beta, alpha); });
}
Tensor& Tensor::addbmm_(const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) const {
  return ops::assign_result(mut_self(), "addbmm_", [&](const Tensor& me) { return me.addbmm(b1, b2, beta, alpha); });
}
Tensor& Tensor::addmm_(const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) const {
  return ops::assign_result(mut_self(), "addmm_", [&](const Tensor& me) { return me.addmm(m1, m2, beta, alpha); });
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  return ops::assign_result(mut_self(), "addmv_", [&](const Tensor& me) { return me.addmv(mat, vec, beta, alpha); });
}
Tensor& Tensor::addr_(const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) const {
  return ops::assign_result(mut_self(), "addr_", [&](const Tensor& me) { return me.addr(v1, v2, beta, alpha); });
}

// ---- free functions ------------------------------------------------------------------------------
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.index_fill(dim, index, value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return self.index_fill(dim, index, value);
}
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  return self.masked_scatter(mask, source);
}
Tensor take(const Tensor& self, const Tensor& index) { return self.take(index); }
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return self.put(index, source, accumulate);
}
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return self.swapaxes(axis0, axis1); }
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return self.swapdims(dim0, dim1); }
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  return self.tensor_split(sections, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  return self.tensor_split(indices, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& t, int64_t dim) { return self.tensor_split(t, dim); }
Tensor round(const Tensor& self, int64_t decimals) { return self.round(decimals); }
Tensor fmax(const Tensor& self, const Tensor& other) { return self.fmax(other); }
Tensor fmin(const Tensor& self, const Tensor& other) { return self.fmin(other); }
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  return self.renorm(p, dim, maxnorm);
}
Tensor matrix_power(const Tensor& self, int64_t n) { return self.matrix_power(n); }
Tensor baddbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  return self.baddbmm(b1, b2, beta, alpha);
}
Tensor addbmm(const Tensor& self, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha) {
  return self.addbmm(b1, b2, beta, alpha);
}
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  return self.addmv(mat, vec, beta, alpha);
}
Tensor addr(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  return self.addr(v1, v2, beta, alpha);
}

Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  if (self.dim() != 1)
    throw Error("[combinations] expects a 1-D tensor as input, got a " + std::to_string(self.dim()) + "-D tensor.");
  if (r < 0) throw Error("[combinations] expects r to be non-negative, got r = " + std::to_string(r) + ".");
  if (r == 0) return empty({0}, self.options());
  const int64_t n = self.size(0);
  // the index tuples in itertools' (lexicographic) order
  std::vector<int64_t> flat, cur(static_cast<size_t>(r));
  auto rec = [&](auto&& self_rec, int64_t pos, int64_t from) -> void {
    if (pos == r) {
      flat.insert(flat.end(), cur.begin(), cur.end());
      return;
    }
    for (int64_t i = from; i < n; ++i) {
      cur[static_cast<size_t>(pos)] = i;
      self_rec(self_rec, pos + 1, with_replacement ? i : i + 1);
    }
  };
  rec(rec, 0, 0);
  const int64_t count = static_cast<int64_t>(flat.size()) / r;
  if (count == 0) return empty({0, r}, self.options());
  Tensor idx = tensor(flat, kLong).to(self.device());
  return self.index_select(0, idx).reshape({count, r});
}

Tensor chain_matmul(const std::vector<Tensor>& matrices) {
  if (matrices.empty()) throw Error("[chain_matmul] expected one or more tensors, got none.");
  for (const Tensor& m : matrices) check_dims("chain_matmul", m, 2, "every tensor");
  if (matrices.size() == 1) return matrices[0].clone();
  return linalg::multi_dot(matrices);
}

Tensor linalg::multi_dot(const std::vector<Tensor>& tensors) {
  const size_t n = tensors.size();
  if (n < 2) throw Error("[multi_dot] expected at least 2 tensors but got " + std::to_string(n) + ".");
  for (size_t i = 0; i < n; ++i) {
    const int64_t nd = tensors[i].dim();
    bool end = i == 0 || i + 1 == n;
    if (nd != 2 && !(end && nd == 1))
      throw Error("[multi_dot] tensor " + std::to_string(i) + " must be 2-D" +
                  (end ? std::string(" or 1-D") : std::string()) + " but got " + std::to_string(nd) + "-D.");
  }
  // 1-D ends as a row / a column; the cheapest order of the chain (dynamic programming on the sizes)
  std::vector<Tensor> m(tensors);
  const bool row = m[0].dim() == 1, col = m[n - 1].dim() == 1;
  if (row) m[0] = m[0].unsqueeze(0);
  if (col) m[n - 1] = m[n - 1].unsqueeze(1);
  std::vector<int64_t> p(n + 1);
  p[0] = m[0].size(0);
  for (size_t i = 0; i < n; ++i) {
    if (m[i].size(0) != p[i])
      throw Error("[multi_dot] tensors " + std::to_string(i - 1) + " and " + std::to_string(i) +
                  " can't be multiplied: shapes " + dims_str(m[i - 1].sizes()) + " and " + dims_str(m[i].sizes()) +
                  ".");
    p[i + 1] = m[i].size(1);
  }
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len)
    for (size_t i = 0; i + len < n; ++i) {
      size_t j = i + len;
      cost[i][j] = INFINITY;
      for (size_t k = i; k < j; ++k) {
        double c = cost[i][k] + cost[k + 1][j] + double(p[i]) * double(p[k + 1]) * double(p[j + 1]);
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  auto chain = [&](auto&& rec, size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    size_t k = split[i][j];
    return rec(rec, i, k).mm(rec(rec, k + 1, j));
  };
  Tensor r = chain(chain, 0, n - 1);
  if (row && col) return r.reshape({});
  if (row) return r.squeeze(0);
  if (col) return r.squeeze(1);
  return r;
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  if (x.dim() != 1) throw Error("[vander] x must be a one-dimensional tensor, got " + std::to_string(x.dim()) + "-D.");
  const int64_t n = N.value_or(x.size(0));
  if (n < 0) throw Error("[vander] N must be non-negative, got " + std::to_string(n) + ".");
  ScalarType t = locus::is_floating_point(x.scalar_type()) ? x.scalar_type() : kLong;
  Tensor xc = x.to(t);
  if (n == 0) return empty({x.size(0), 0}, xc.options());
  Tensor cols = ones({x.size(0), 1}, xc.options());
  if (n > 1) cols = cat({cols, xc.unsqueeze(1).expand({x.size(0), n - 1})}, 1).cumprod(1);
  return increasing ? cols : cols.flip({1});
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return nn::functional::cosine_similarity(x1, x2, nn::functional::CosineSimilarityFuncOptions().dim(dim).eps(eps));
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return nn::functional::pairwise_distance(
      x1, x2, nn::functional::PairwiseDistanceFuncOptions().p(p).eps(eps).keepdim(keepdim));
}
Tensor frobenius_norm(const Tensor& self) { return self.norm(2); }
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (dim.size() > 2)
    throw Error("[frobenius_norm] expected at most 2 dims to be specified, got " + std::to_string(dim.size()) + ".");
  return self.norm(2, dim, keepdim);
}

}  // namespace locus
