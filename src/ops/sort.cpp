// sort, argsort and topk. The order is computed on the host (a device tensor is copied there
// once, and the int64 indices back: no backend kernel), then the values are gathered from the
// input on its own device, so autograd is gather's (the gradient scatters back to the input).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"

namespace locus {
namespace {

// The permutation that sorts each row of `rows` [n_rows, n] (host, contiguous): ascending or
// descending, stable, NaN above every number. Only the first k of each row are kept.
template <typename T>
void sort_rows(const T* x, int64_t n_rows, int64_t n, int64_t k, bool descending, int64_t* out) {
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t r = 0; r < n_rows; ++r) {
    const T* row = x + r * n;
    std::iota(perm.begin(), perm.end(), int64_t{0});
    auto less = [row](int64_t a, int64_t b) {  // NaN is the largest value
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(row[a])) return false;
        if (std::isnan(row[b])) return true;
      }
      return row[a] < row[b];
    };
    if (descending) std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return less(b, a); });
    else std::stable_sort(perm.begin(), perm.end(), less);
    std::copy(perm.begin(), perm.begin() + k, out + r * k);
  }
}

constexpr int64_t kAll = std::numeric_limits<int64_t>::min();

// int64 indices [.., k, ..] that order `self` along `dim` (k == kAll: all of it), on self's device.
Tensor order(const char* op, const Tensor& self, int64_t dim, int64_t k, bool descending) {
  Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  int64_t d = detail::wrap_dim(dim, x.dim(), op);
  int64_t n = x.size(d);
  if (k == kAll) k = n;
  if (k < 0 || k > n)
    throw Error("[" + std::string(op) + "] k (" + std::to_string(k) + ") is out of range for dimension " +
                std::to_string(d) + " of size " + std::to_string(n) + "; pick 0 <= k <= " + std::to_string(n) + ".");
  bool exact_int = x.scalar_type() == kLong;
  Tensor rows = x.transpose(d, -1).cpu().to(exact_int ? kLong : kDouble).contiguous();
  int64_t n_rows = n == 0 ? 0 : rows.numel() / n;
  DimVector idx_sizes(rows.sizes());
  idx_sizes.back() = k;
  Tensor idx = empty(idx_sizes, kLong);
  if (exact_int) sort_rows(rows.data_ptr<int64_t>(), n_rows, n, k, descending, idx.data_ptr<int64_t>());
  else sort_rows(rows.data_ptr<double>(), n_rows, n, k, descending, idx.data_ptr<int64_t>());
  idx = idx.transpose(d, -1).contiguous().to(self.device());
  return self.dim() == 0 ? idx.reshape({}) : idx;
}

std::tuple<Tensor, Tensor> gathered(const Tensor& self, int64_t dim, const Tensor& idx) {
  if (self.dim() == 0) return {self.clone(), idx};
  return {self.gather(dim, idx), idx};
}

}  // namespace

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return gathered(*this, dim, order("sort", *this, dim, kAll, descending));
}

Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return order("argsort", *this, dim, kAll, descending);
}

std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool /*sorted*/) const {
  return gathered(*this, dim, order("topk", *this, dim, k, largest));
}

std::tuple<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending) { return a.sort(dim, descending); }
Tensor argsort(const Tensor& a, int64_t dim, bool descending) { return a.argsort(dim, descending); }
std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
  return a.topk(k, dim, largest, sorted);
}

}  // namespace locus
