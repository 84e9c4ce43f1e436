// chunk and split: lists of narrow() views along one dim (autograd is narrow's).
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/functions.h"
#include "ops/checks.h"

namespace locus {

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  if (this->dim() == 0) throw Error("[split] expects at least a 1-dimensional tensor.");
  int64_t d = detail::wrap_dim(dim, this->dim(), "split");
  int64_t n = size(d);
  if (split_size < 0 || (split_size == 0 && n != 0))
    throw Error("[split] split_size can only be 0 if dimension size is 0, and must not be negative; got split_size " +
                std::to_string(split_size) + " for dimension " + std::to_string(d) + " of size " + std::to_string(n) + ".");
  std::vector<Tensor> out;
  if (n == 0) return {narrow(d, 0, 0)};
  for (int64_t start = 0; start < n; start += split_size) out.push_back(narrow(d, start, std::min(split_size, n - start)));
  return out;
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  if (this->dim() == 0) throw Error("[split_with_sizes] expects at least a 1-dimensional tensor.");
  int64_t d = detail::wrap_dim(dim, this->dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    if (s < 0)
      throw Error("[split_with_sizes] split sizes must be non-negative, got " + ops::shape_str(split_sizes) + ".");
    total += s;
  }
  if (total != size(d))
    throw Error("[split_with_sizes] split sizes " + ops::shape_str(split_sizes) + " add up to " + std::to_string(total) +
                " but dimension " + std::to_string(d) + " has size " + std::to_string(size(d)) + "; they must match.");
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const { return split_with_sizes(split_sizes, dim); }

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  if (this->dim() == 0) throw Error("[chunk] expects at least a 1-dimensional tensor.");
  if (chunks <= 0) throw Error("[chunk] number of chunks must be greater than 0, got " + std::to_string(chunks) + ".");
  int64_t d = detail::wrap_dim(dim, this->dim(), "chunk");
  int64_t n = size(d);
  if (n == 0) {  // PyTorch gives `chunks` empty views
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(d, 0, 0));
    return out;
  }
  return split((n + chunks - 1) / chunks, d);
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  if (this->dim() == 0) throw Error("[unbind] dimension specified as 0 but tensor has no dimensions.");
  const int64_t d = detail::wrap_dim(dim, this->dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(size(d)));
  for (int64_t i = 0; i < size(d); ++i) out.push_back(select(d, i));
  return out;
}

std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim) { return a.chunk(chunks, dim); }
std::vector<Tensor> unbind(const Tensor& a, int64_t dim) { return a.unbind(dim); }
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim) { return a.split(split_size, dim); }
std::vector<Tensor> split(const Tensor& a, IntArrayRef split_sizes, int64_t dim) { return a.split(split_sizes, dim); }
std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef split_sizes, int64_t dim) {
  return a.split_with_sizes(split_sizes, dim);
}

}  // namespace locus
