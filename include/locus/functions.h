#pragma once
// Free functions, as libtorch's torch::add, torch::matmul, torch::cat, ...
#include <optional>
#include <string_view>
#include <vector>

#include "locus/tensor.h"

namespace locus {

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& a);
Tensor abs(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor relu(const Tensor& a);
Tensor sigmoid(const Tensor& a);
Tensor tanh(const Tensor& a);
Tensor rsqrt(const Tensor& a);
Tensor sin(const Tensor& a);
Tensor cos(const Tensor& a);
Tensor square(const Tensor& a);
Tensor reciprocal(const Tensor& a);
Tensor sign(const Tensor& a);
Tensor floor(const Tensor& a);
Tensor ceil(const Tensor& a);
Tensor round(const Tensor& a);
Tensor log1p(const Tensor& a);
Tensor log2(const Tensor& a);
Tensor exp2(const Tensor& a);
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor expm1(const Tensor& a);
Tensor erf(const Tensor& a);
Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& a, const Scalar& min);
Tensor clamp_max(const Tensor& a, const Scalar& max);
Tensor isnan(const Tensor& a);
Tensor isinf(const Tensor& a);
Tensor isfinite(const Tensor& a);
Tensor all(const Tensor& a);
Tensor any(const Tensor& a);
Tensor norm(const Tensor& a, const Scalar& p = 2);
Tensor logsumexp(const Tensor& a, IntArrayRef dim, bool keepdim = false);
Tensor flip(const Tensor& a, IntArrayRef dims);
Tensor masked_select(const Tensor& a, const Tensor& mask);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// ---- math batch (stop 45) ----
Tensor tan(const Tensor& a);
Tensor asin(const Tensor& a);
Tensor acos(const Tensor& a);
Tensor atan(const Tensor& a);
Tensor sinh(const Tensor& a);
Tensor cosh(const Tensor& a);
Tensor asinh(const Tensor& a);
Tensor acosh(const Tensor& a);
Tensor atanh(const Tensor& a);
Tensor arcsin(const Tensor& a);
Tensor arccos(const Tensor& a);
Tensor arctan(const Tensor& a);
Tensor arcsinh(const Tensor& a);
Tensor arccosh(const Tensor& a);
Tensor arctanh(const Tensor& a);
Tensor log10(const Tensor& a);
Tensor trunc(const Tensor& a);
Tensor fix(const Tensor& a);
Tensor frac(const Tensor& a);
Tensor erfc(const Tensor& a);
Tensor erfinv(const Tensor& a);
Tensor lgamma(const Tensor& a);
Tensor digamma(const Tensor& a);
Tensor polygamma(int64_t n, const Tensor& a);
Tensor logit(const Tensor& a, std::optional<double> eps = std::nullopt);
Tensor sinc(const Tensor& a);
Tensor deg2rad(const Tensor& a);
Tensor rad2deg(const Tensor& a);
Tensor signbit(const Tensor& a);
Tensor sgn(const Tensor& a);
Tensor absolute(const Tensor& a);
Tensor negative(const Tensor& a);
Tensor clip(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Scalar& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Scalar& b);
Tensor xlogy(const Tensor& a, const Tensor& b);
Tensor xlogy(const Tensor& a, const Scalar& b);
Tensor xlogy(const Scalar& a, const Tensor& b);
Tensor nextafter(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& a);
/// Division with rounding_mode nullopt, "trunc" or "floor" (Tensor::div).
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
Tensor true_divide(const Tensor& a, const Tensor& b);
Tensor true_divide(const Tensor& a, const Scalar& b);
/// A scalar base raised to each element of `exponent` (PyTorch's result dtype: pow(2, int) stays integral).
Tensor pow(const Scalar& self, const Tensor& exponent);
Tensor float_power(const Tensor& a, const Tensor& b);
Tensor float_power(const Tensor& a, const Scalar& b);
Tensor float_power(const Scalar& a, const Tensor& b);
Tensor ldexp(const Tensor& a, const Tensor& b);
// ---- end math batch (stop 45) ----

Tensor sum(const Tensor& a, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& a, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& a, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& a, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor max(const Tensor& a);
std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& a);
/// Elementwise, as libtorch's torch::max(a, b) / torch::min(a, b) (maximum / minimum).
Tensor max(const Tensor& a, const Tensor& b);
Tensor min(const Tensor& a, const Tensor& b);
std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& a, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& a, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& a);
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
Tensor var(const Tensor& a, Bool unbiased) { return a.var(unbiased); }
Tensor var(const Tensor& a, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor var(const Tensor& a, IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim = false);
Tensor std(const Tensor& a);
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
Tensor std(const Tensor& a, Bool unbiased) { return a.std(unbiased); }
Tensor std(const Tensor& a, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& a, IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim = false);
Tensor trace(const Tensor& a);
std::tuple<Tensor, Tensor> sort(const Tensor& a, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& a, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& a, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef split_sizes, int64_t dim = 0);
Tensor softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * self + alpha * (mat1 @ mat2)
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor ger(const Tensor& a, const Tensor& b);
Tensor tril(const Tensor& a, int64_t diagonal = 0);
Tensor triu(const Tensor& a, int64_t diagonal = 0);
Tensor diag(const Tensor& a, int64_t offset = 0);
Tensor roll(const Tensor& a, IntArrayRef shifts, IntArrayRef dims = {});
Tensor movedim(const Tensor& a, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& a, int64_t source, int64_t destination);
Tensor moveaxis(const Tensor& a, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& a, int64_t source, int64_t destination);
Tensor unflatten(const Tensor& a, int64_t dim, IntArrayRef sizes);
Tensor count_nonzero(const Tensor& a);
Tensor count_nonzero(const Tensor& a, int64_t dim);
Tensor count_nonzero(const Tensor& a, IntArrayRef dims);
Tensor nan_to_num(const Tensor& a, std::optional<double> nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor repeat_interleave(const Tensor& a, int64_t repeats, std::optional<int64_t> dim = std::nullopt);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);

/// torch::einsum("bij,bjk->bik", {a, b}): subscripts [a-zA-Z], "..." for broadcast dims, "->"
/// and the output's subscripts (implicit: "..." then the subscripts used once, in order A-Z a-z).
/// Made of differentiable ops (bmm for the products), on any device.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
/// As the Tensor methods (scatter with "add" / "multiply", scatter_reduce, index_reduce).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self = true);
Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
/// Positions of the non-zero elements, int64 [count, dim] (Tensor::nonzero).
Tensor nonzero(const Tensor& a);
/// The same positions as one int64 tensor [count] per dim (a 0-dim input counts as 1-dim), views of
/// nonzero's columns: PyTorch's nonzero(as_tuple=True) and libtorch's nonzero_numpy.
std::vector<Tensor> nonzero_numpy(const Tensor& a);
/// torch::where(condition) (one argument): nonzero_numpy(condition).
std::vector<Tensor> where(const Tensor& condition);
/// int64 class indices -> int64 one-hot rows; num_classes = -1 infers max + 1.
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);
Tensor flatten(const Tensor& a, int64_t start_dim = 0, int64_t end_dim = -1);
/// torch::clone(a): a.clone() (a copy with its own storage, recorded by autograd).
Tensor clone(const Tensor& a);
Tensor reshape(const Tensor& a, IntArrayRef sizes);
Tensor transpose(const Tensor& a, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& a, IntArrayRef dims);
Tensor unsqueeze(const Tensor& a, int64_t dim);
Tensor squeeze(const Tensor& a);
Tensor squeeze(const Tensor& a, int64_t dim);
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& a, int64_t dim, int64_t index);

// ---- shape batch (stop 45) ---------------------------------------------------------------------
Tensor broadcast_to(const Tensor& self, IntArrayRef size);
/// The tensors expanded to their common broadcast shape (views).
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
/// Coordinate grids of 0-D/1-D tensors (views). indexing "ij" (the default, as libtorch with no
/// argument) makes output i vary along dim i; "xy" swaps the first two dims.
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors);
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing);
/// Every combination of the 1-D tensors' elements, as rows of a [N, len(tensors)] tensor.
Tensor cartesian_prod(const std::vector<Tensor>& tensors);
Tensor tile(const Tensor& self, IntArrayRef dims);
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor kron(const Tensor& self, const Tensor& other);
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
/// Sums the products of self's dims_self with other's dims_other (pairwise, of equal sizes); the
/// result has self's other dims then other's.
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other);
/// The p-norm distance between each row of x1 [B.., P, M] and each row of x2 [B.., R, M]:
/// [B.., P, R] (batch dims broadcast). p >= 0; p = 0 counts differing entries, p = inf the max.
/// p = 2 by PyTorch's matmul form when compute_mode is 1, or unset / 0 with more than 25 rows.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2, std::optional<int64_t> compute_mode = std::nullopt);
/// The p-norm distance between each pair of rows i < j of input [N, M], in row-major order of the
/// pairs: [N (N - 1) / 2] (PyTorch's pdist, the upper triangle of cdist(input, input) without its
/// diagonal, computed from the differences). p >= 0; zero distances get a zero gradient.
Tensor pdist(const Tensor& input, double p = 2);
/// (var, mean) with var's arguments.
std::tuple<Tensor, Tensor> var_mean(const Tensor& self);
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, Bool unbiased) {
  return {self.var(unbiased), self.mean()};
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim = false);
/// (std, mean) with std's arguments.
std::tuple<Tensor, Tensor> std_mean(const Tensor& self);
template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, Bool unbiased) {
  return {self.std(unbiased), self.mean()};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, const std::optional<Scalar>& correction,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
Tensor logcumsumexp(const Tensor& self, int64_t dim);
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
/// The tensor viewed with at least 1, 2 or 3 dims (new dims of size 1 in front; for 3-D a 2-D
/// [m, n] becomes [m, n, 1]), one by one for a list.
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors);
std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors);
std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors);
/// The 0-D, 1-D or 2-D tensors (as rows) along the diagonal of a 2-D tensor, zeros elsewhere.
Tensor block_diag(const std::vector<Tensor>& tensors);
/// cat after atleast_1d (along dim 0 for 1-D tensors, else 1); cat of atleast_2d along 0;
/// of atleast_3d along 2; column_stack: 0-D/1-D tensors as columns, then cat along 1.
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor row_stack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);
Tensor column_stack(const std::vector<Tensor>& tensors);
/// The trapezoid rule along dim, with sample points x or a constant spacing dx.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);

// ---- stats batch (stop 45) ----
/// Unique elements of the flattened tensor (sorted ascending either way, as PyTorch on cpu),
/// and with return_inverse the int64 index of each element in them (self's shape; else empty).
/// Each NaN is its own unique value, as PyTorch. Computed on the host: the output's size depends
/// on the data.
std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted = true, bool return_inverse = false);
/// _unique plus, with return_counts, how often each unique value occurs.
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                            bool return_counts = false);
/// The unique slices along `dim`, sorted lexicographically.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted = true,
                                              bool return_inverse = false, bool return_counts = false);
/// Collapses runs of equal consecutive elements (of the flattened tensor, or slices along dim).
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
Tensor median(const Tensor& self);
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1, bool keepdim = false);
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
/// The index of the bucket of each element of input among the 1-D sorted `boundaries`: int64
/// (int32 with out_int32); right = false gives boundaries[i-1] < x <= boundaries[i].
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
/// Where each of `self` would be inserted into the innermost dim of `sorted_sequence` (1-D, or
/// of self's leading dims) to keep it sorted; side "left"/"right" as right; sorter: the argsort
/// of an unsorted sorted_sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt, const std::optional<Tensor>& sorter = {});
Tensor inverse(const Tensor& self);
Tensor det(const Tensor& self);
Tensor logdet(const Tensor& self);
std::tuple<Tensor, Tensor> slogdet(const Tensor& self);

// ---- ops batch (stop 46) ----------------------------------------------------------------------
Tensor bitwise_and(const Tensor& self, const Tensor& other);
Tensor bitwise_and(const Tensor& self, const Scalar& other);
Tensor bitwise_and(const Scalar& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Tensor& other);
Tensor bitwise_or(const Tensor& self, const Scalar& other);
Tensor bitwise_or(const Scalar& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Tensor& other);
Tensor bitwise_xor(const Tensor& self, const Scalar& other);
Tensor bitwise_xor(const Scalar& self, const Tensor& other);
Tensor bitwise_left_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_left_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_left_shift(const Scalar& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Tensor& other);
Tensor bitwise_right_shift(const Tensor& self, const Scalar& other);
Tensor bitwise_right_shift(const Scalar& self, const Tensor& other);
Tensor bitwise_not(const Tensor& self);
/// Operators as libtorch's (x & y is bitwise_and, x % y remainder); << and >> are shifts (locus
/// only: libtorch 1.13 has no tensor << operator).
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Scalar& b);
Tensor operator>>(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, const Scalar& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator%(const Scalar& a, const Tensor& b);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nansum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor nansum(const Tensor& self, IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor take(const Tensor& self, const Tensor& index);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1);
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim = 0);
Tensor round(const Tensor& self, int64_t decimals);
/// Elementwise max / min ignoring NaN (NaN only where both are NaN).
Tensor fmax(const Tensor& self, const Tensor& other);
Tensor fmin(const Tensor& self, const Tensor& other);
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);
Tensor matrix_power(const Tensor& self, int64_t n);
Tensor chain_matmul(const std::vector<Tensor>& matrices);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt, bool increasing = false);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-08);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-06, bool keepdim = false);
Tensor frobenius_norm(const Tensor& self);
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false);
// ---- end ops batch (stop 46) ----

// ---- tensor API batch (stop 47) ----
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate = false);
Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false);
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
/// PyTorch's result dtype of an op over these operands (a Scalar counts as a wrapped number).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(const Scalar& a, const Tensor& b);
ScalarType result_type(const Scalar& a, const Scalar& b);
/// PyTorch's casting rule for outputs: no floating -> integral, no non-bool -> bool.
bool can_cast(ScalarType from, ScalarType to);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor adjoint(const Tensor& self);
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
Tensor& resize_(const Tensor& self, IntArrayRef sizes);
/// The multivariate log-gamma of dimension p: p (p - 1) / 4 log(pi) + sum_i lgamma(x - i / 2).
Tensor mvlgamma(const Tensor& self, int64_t p);
/// The regularized lower / upper incomplete gamma functions P(a, x) and Q(a, x).
Tensor igamma(const Tensor& a, const Tensor& x);
Tensor igammac(const Tensor& a, const Tensor& x);
/// The modified Bessel function of the first kind, order 0.
Tensor i0(const Tensor& self);
// ---- end tensor API batch (stop 47) ----
// ---- libtorch's everyday functions (stop 54) ----
Tensor amax(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor logaddexp2(const Tensor& a, const Tensor& b);
Tensor heaviside(const Tensor& self, const Tensor& values);
Tensor gcd(const Tensor& a, const Tensor& b);
Tensor& gcd_(Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);
Tensor& lcm_(Tensor& a, const Tensor& b);
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor argwhere(const Tensor& self);
/// Whether each element of `elements` is in `test_elements` (NaN never is); `invert` negates.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max = std::nullopt);
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max = std::nullopt);
Tensor clamp_min(const Tensor& self, const Tensor& min);
Tensor clamp_max(const Tensor& self, const Tensor& max);
Tensor& clamp_min_(Tensor& self, const Scalar& min);
Tensor& clamp_max_(Tensor& self, const Scalar& max);
Tensor& clamp_min_(Tensor& self, const Tensor& min);
Tensor& clamp_max_(Tensor& self, const Tensor& max);
bool is_nonzero(const Tensor& self);
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);
Tensor msort(const Tensor& self);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor inner(const Tensor& self, const Tensor& other);
Tensor vdot(const Tensor& self, const Tensor& other);
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor isreal(const Tensor& self);
// ---- end libtorch's everyday functions (stop 54) ----

}  // namespace locus
