#pragma once
// Tensor: a strided view of a storage that lives on one device. Spelled as libtorch's at::Tensor.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "locus/accessor.h"
#include "locus/device.h"
#include "locus/dtype.h"
#include "locus/generator.h"
#include "locus/memory_format.h"
#include "locus/options.h"
#include "locus/scalar.h"
#include "locus/small_vector.h"

namespace locus {

struct TensorImpl;
class Tensor;
class Stream;

namespace autograd {
struct Node;
}
namespace indexing {
class TensorIndex;
}

/// What libtorch's deprecated Tensor::type() returns: a dtype on a device type.
class DeprecatedTypeProperties {
 public:
  DeprecatedTypeProperties(ScalarType scalar_type, DeviceType device_type, std::string name)
      : scalar_type_(scalar_type), device_type_(device_type), name_(std::move(name)) {}
  ScalarType scalarType() const noexcept { return scalar_type_; }
  DeviceType device_type() const noexcept { return device_type_; }
  bool is_cuda() const noexcept { return device_type_ == DeviceType::CUDA; }
  bool is_sparse() const noexcept { return false; }
  /// "CPUFloatType", as Tensor::toString().
  const std::string& toString() const noexcept { return name_; }
  bool operator==(const DeprecatedTypeProperties& o) const noexcept {
    return scalar_type_ == o.scalar_type_ && device_type_ == o.device_type_;
  }
  bool operator!=(const DeprecatedTypeProperties& o) const noexcept { return !(*this == o); }

 private:
  ScalarType scalar_type_;
  DeviceType device_type_;
  std::string name_;
};
std::ostream& operator<<(std::ostream& os, const DeprecatedTypeProperties& type);

class Tensor {
 public:
  Tensor() = default;
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  /// Assigning to a named tensor rebinds the handle (it then refers to other's tensor).
  Tensor& operator=(const Tensor& other) & = default;
  Tensor& operator=(Tensor&& other) & noexcept = default;
  /// Assigning to a temporary writes into it, as libtorch: `x[0] = y` and `x.index({0}) = y` copy
  /// y into that view of x (copy_), `x[0][1] = 5` fills it (fill_).
  Tensor& operator=(const Tensor& other) && { return copy_(other); }
  Tensor& operator=(Tensor&& other) && { return copy_(other); }
  Tensor& operator=(const Scalar& value) && { return fill_(value); }
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata ------------------------------------------------------------------------------
  bool defined() const { return impl_ != nullptr; }
  /// Drops this handle's reference: the tensor becomes undefined (libtorch's reset()).
  void reset() { impl_.reset(); }
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  /// Size of dimension `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const;
  int64_t ndimension() const { return dim(); }
  int64_t numel() const;
  int64_t storage_offset() const;
  bool is_contiguous() const;
  ScalarType scalar_type() const;
  /// The dtype, as a TypeMeta (a ScalarType with libtorch's name() and itemsize()).
  TypeMeta dtype() const { return scalar_type(); }
  Device device() const;
  TensorOptions options() const;
  /// Always kStrided (libtorch's; locus has no sparse layouts).
  Layout layout() const { return kStrided; }
  size_t element_size() const { return locus::element_size(scalar_type()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_opencl() const { return device().is_opencl(); }
  /// libtorch's get_device(): the device index, -1 for a cpu tensor.
  int64_t get_device() const {
    const Device d = device();
    return d.is_cpu() ? -1 : d.index();
  }
  bool is_floating_point() const { return locus::is_floating_point(scalar_type()); }
  /// Always false: locus has no complex dtypes (libtorch's is_complex()).
  bool is_complex() const { return false; }
  /// Always false: locus has no named dims (libtorch's has_names()).
  bool has_names() const { return false; }
  /// Always true, as libtorch's since tensors and variables merged.
  bool is_variable() const noexcept { return true; }
  /// libtorch's deprecated t.type(): scalarType(), device_type(), is_cuda(), toString()
  /// ("CPUFloatType"). New code uses scalar_type() and device().
  DeprecatedTypeProperties type() const;
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
  /// True when both handles refer to the same tensor object.
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  /// True when both share one storage.
  bool is_alias_of(const Tensor& other) const;
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  int64_t use_count() const { return impl_.use_count(); }
  std::string toString() const;
  /// libtorch's debugging print to stderr: "[CPUFloatType [2, 3]]" ("[UndefinedTensor]").
  void print() const;

  // ---- data access --------------------------------------------------------------------------
  /// Typed host pointer to the first element; on a device the host cannot address (opencl,
  /// cuda) an error that says to call .cpu() first.
  template <typename T> T* data_ptr() const;
  /// libtorch's deprecated spelling of data_ptr<T>().
  template <typename T>
  [[deprecated("Tensor.data<T>() is deprecated. Please use Tensor.data_ptr<T>() instead.")]] T* data() const {
    return data_ptr<T>();
  }
  /// The address of the first element, as PyTorch's: a host pointer on cpu, the device address
  /// on cuda. On opencl (whose buffers have no addresses) a stable address-like value, unique to
  /// the buffer and byte offset, that must never be dereferenced. Compare data_ptr()s to see
  /// whether two tensors share memory: a no-op .to() keeps it, a copy changes it, a view is
  /// storage_offset() * element_size() bytes past its base.
  void* data_ptr() const;
  const void* const_data_ptr() const { return data_ptr(); }
  template <typename T> T item() const;
  Scalar item() const;
  /// libtorch's a = t.accessor<float, 2>(); a[i][j]: typed element access on the host
  /// (locus/accessor.h). Throws when t is not of N dims, not of dtype T, or not in host memory
  /// (call .cpu() first). Not on a temporary: the accessor points into the tensor.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor_dims(static_cast<int64_t>(N));
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  /// libtorch's packed accessors (locus/accessor.h): the same checks as accessor(); the 32-bit
  /// form also needs every size and stride to fit an int32.
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    check_accessor_dims(static_cast<int64_t>(N));
    return PackedTensorAccessor64<T, N, PtrTraits>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    check_accessor_dims(static_cast<int64_t>(N));
    check_fits_int32_indexing();
    return PackedTensorAccessor32<T, N, PtrTraits>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;

  // ---- moving --------------------------------------------------------------------------------
  /// libtorch's overloads, plus one per spelling of a device so that none is ambiguous:
  /// x.to(kCUDA), x.to("cuda:1"), x.to(std::string), x.to(Device), x.to(0) (torch.device(0)).
  /// Each returns *this (the same tensor, same data_ptr) when device and dtype already match and
  /// `copy` is false; `copy` forces a new tensor. `non_blocking`: asynchronous from pinned memory;
  /// from pageable memory the copy completes before returning (as in CUDA).
  Tensor to(const TensorOptions& options = {}, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  /// other's device and dtype.
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const;
  Tensor to(const char* device, bool non_blocking = false, bool copy = false) const;
  Tensor to(const std::string& device, bool non_blocking = false, bool copy = false) const;
  Tensor to(int device_index, bool non_blocking = false, bool copy = false) const;
  /// PyTorch's dtype shorthands, each to(dtype): x.half(), x.bfloat16(), x.float(), x.double().
  /// `float` and `double` are C++ keywords, so those two are spelled float_() and double_().
  Tensor half() const { return to(kHalf); }
  Tensor bfloat16() const { return to(kBFloat16); }
  Tensor float_() const { return to(kFloat); }
  Tensor double_() const { return to(kDouble); }
  Tensor cpu() const;
  Tensor cuda(int index = -1, bool non_blocking = false) const;
  Tensor opencl(int index = -1, bool non_blocking = false) const;
  /// A copy in page-locked host memory (the same tensor if already pinned). Memory is pinned by
  /// one driver: by default the best-ranked accelerator's (cuda before opencl, as PyTorch pins for
  /// CUDA); `device` names the accelerator whose copies will read it (PyTorch's
  /// `pin_memory(device)`), which matters on a machine with both.
  Tensor pin_memory(std::optional<Device> device = std::nullopt) const;
  /// True for a cpu tensor in page-locked memory; with `device`, pinned by that device type's driver.
  bool is_pinned(std::optional<Device> device = std::nullopt) const;
  /// PyTorch's Tensor.record_stream: this tensor's memory is also used by work queued on `stream`
  /// (of the tensor's device). When the tensor is freed, the caching allocator keeps the block
  /// from reuse until the work queued on `stream` by then has completed, and keeps `stream`
  /// alive until that point. No effect on cpu tensors and on memory locus did not allocate.
  void record_stream(const Stream& stream) const;

  // ---- views and shape -----------------------------------------------------------------------
  Tensor view(IntArrayRef sizes) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor contiguous() const;
  /// The elements in reverse order along each of `dims` (a copy, as PyTorch's flip).
  Tensor flip(IntArrayRef dims) const;
  /// The tensor tiled `repeats[i]` times along dim i (repeats may add leading dims).
  Tensor repeat(IntArrayRef repeats) const;
  /// `chunks` views along `dim` of ceil(size / chunks) elements each (the last may be smaller,
  /// and there may be fewer than `chunks`), as PyTorch's chunk.
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  /// The size(dim) views select(dim, i), as PyTorch's unbind.
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  /// Views of `split_size` elements along `dim` (the last may be smaller).
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  /// Views of the given sizes along `dim`; they must add up to size(dim).
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  /// The elements shifted along each of `dims` by `shifts` (wrapping around); without dims, the
  /// flattened tensor by one shift, reshaped back. A new tensor.
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  /// The view with dims `source` moved to positions `destination`, the others in their order.
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const {
    return movedim(IntArrayRef{source}, IntArrayRef{destination});
  }
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const { return movedim(source, destination); }
  Tensor moveaxis(int64_t source, int64_t destination) const { return movedim(source, destination); }
  /// Dim `dim` split into `sizes` (one of them may be -1), as PyTorch's unflatten.
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  /// Each element `repeats` times in a row along `dim` (without dim: of the flattened tensor).
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  /// Python's x[...] (locus/indexing.h): x.index({Slice(0, 2), 1}), x.index({mask}). Views for
  /// integers, slices, None and Ellipsis; a copy when an index is a tensor.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /// Python's x[...] = value, in place: value broadcasts to x.index(indices)'s shape. With
  /// repeated tensor indices the last write wins. Not recorded by autograd (as copy_: throws on a
  /// tensor that requires grad while grad mode is on).
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value) const;
  /// Positions of the non-zero elements, int64 of shape [count, dim()] (computed on the host).
  Tensor nonzero() const;

  // ---- copies and fills ----------------------------------------------------------------------
  Tensor clone() const;
  /// New tensors of the given size with this tensor's dtype and device, unless `options` sets
  /// them (libtorch's new_empty, new_zeros, new_ones, new_full).
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {}) const;
  /// This tensor with other's dtype and device, as libtorch's type_as (to(other)).
  Tensor type_as(const Tensor& other) const { return to(other); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  Tensor& fill_(const Scalar& value) const;
  Tensor& zero_() const { return fill_(0); }
  /// In-place random fills (locus's counter-based generator, as rand/randn).
  /// Each draw takes an optional Generator (locus/generator.h), as libtorch's; without one the
  /// process's default stream serves.
  Tensor& uniform_(double from = 0, double to = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& normal_(double mean = 0, double std = 1, std::optional<Generator> generator = std::nullopt) const;
  // ---- more in-place draws, as libtorch's (src/ops/random_ops.cpp) ----
  /// 1 with probability p (a number, or a tensor broadcast to this one), else 0.
  Tensor& bernoulli_(double p = 0.5, std::optional<Generator> generator = std::nullopt) const;
  Tensor& bernoulli_(const Tensor& p, std::optional<Generator> generator = std::nullopt) const;
  /// Integers drawn uniformly from [from, to - 1] (to: one past the dtype's largest exact integer
  /// when absent, as PyTorch's), [0, to - 1], or [0, 2^mantissa] for floats / the dtype's max.
  Tensor& random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator = std::nullopt) const;
  Tensor& random_(int64_t to, std::optional<Generator> generator = std::nullopt) const;
  Tensor& random_(std::optional<Generator> generator = std::nullopt) const;
  Tensor& exponential_(double lambd = 1, std::optional<Generator> generator = std::nullopt) const;
  Tensor& geometric_(double p, std::optional<Generator> generator = std::nullopt) const;
  Tensor& log_normal_(double mean = 1, double std = 2, std::optional<Generator> generator = std::nullopt) const;
  Tensor& cauchy_(double median = 0, double sigma = 1, std::optional<Generator> generator = std::nullopt) const;
  /// A new tensor of 0s and 1s, each 1 with the probability this tensor holds (in [0, 1]).
  Tensor bernoulli(std::optional<Generator> generator = std::nullopt) const;
  Tensor bernoulli(double p, std::optional<Generator> generator = std::nullopt) const;
  /// Indices of num_samples categories drawn from each row's (unnormalised) weights; without
  /// replacement a category is drawn at most once per row.
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     std::optional<Generator> generator = std::nullopt) const;
  /// |self - other| <= atol + rtol * |other|, elementwise (bool); NaNs equal when equal_nan.
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  Tensor detach() const;
  /// Detaches this tensor from the graph in place: it becomes a leaf that does not require grad
  /// (its grad, if any, is kept), for every handle to it.
  Tensor& detach_() const;

  // ---- arithmetic ----------------------------------------------------------------------------
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& mul_(const Tensor& other) const;
  Tensor& mul_(const Scalar& other) const;
  Tensor& div_(const Tensor& other) const;
  Tensor& div_(const Scalar& other) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor square() const;
  Tensor reciprocal() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor sign() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor log1p() const;  // log(1 + x), accurate near 0
  Tensor log2() const;
  Tensor exp2() const;
  /// atan2(self, other) elementwise (the angle of the point (other, self)), broadcasting.
  Tensor atan2(const Tensor& other) const;
  Tensor expm1() const;  // exp(x) - 1, accurate near 0
  Tensor erf() const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& relu_() const;
  /// In-place forms of the unary ops. The result must fit this tensor's dtype (PyTorch's rule: an
  /// integer tensor's sqrt_() throws rather than truncating); like every in-place op, they throw
  /// on a tensor that requires grad while grad mode is on.
  Tensor& neg_() const;
  Tensor& abs_() const;
  Tensor& exp_() const;
  Tensor& log_() const;
  Tensor& sqrt_() const;
  Tensor& rsqrt_() const;
  Tensor& sin_() const;
  Tensor& cos_() const;
  Tensor& square_() const;
  Tensor& reciprocal_() const;
  Tensor& sigmoid_() const;
  Tensor& tanh_() const;
  Tensor& sign_() const;
  Tensor& floor_() const;
  Tensor& ceil_() const;
  Tensor& round_() const;
  Tensor& log1p_() const;
  Tensor& log2_() const;
  Tensor& exp2_() const;
  Tensor& expm1_() const;
  Tensor& erf_() const;
  Tensor& pow_(const Scalar& exponent) const;
  Tensor& pow_(const Tensor& exponent) const;
  /// self + value * tensor1 * tensor2, broadcast, in PyTorch's result dtype (an integral result
  /// refuses a floating-point value). Differentiable in all three tensors.
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  /// self + value * tensor1 / tensor2 (true division; integer tensor1 and tensor2 are refused, as
  /// PyTorch does).
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  /// self + weight * (end - self), floating point, `end` (and a tensor weight) of self's dtype;
  /// for |weight| >= 0.5 computed as end - (end - self) * (1 - weight), as PyTorch.
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  // ---- math batch (stop 45) ----
  /// Trigonometric and hyperbolic functions and their inverses (integers promote to the default
  /// float dtype; arcsin ... arctanh are NumPy's names for asin ... atanh).
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor atanh() const;
  Tensor arcsin() const;
  Tensor arccos() const;
  Tensor arctan() const;
  Tensor arcsinh() const;
  Tensor arccosh() const;
  Tensor arctanh() const;
  Tensor log10() const;
  /// Rounds toward zero (integers unchanged); fix() is its alias.
  Tensor trunc() const;
  Tensor fix() const;
  /// x - trunc(x), floating point only.
  Tensor frac() const;
  Tensor erfc() const;
  /// The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside).
  Tensor erfinv() const;
  /// log|gamma(x)| and its derivative digamma (differentiable once: trigamma has no derivative yet).
  Tensor lgamma() const;
  Tensor digamma() const;
  /// The n-th derivative of digamma: n = 0 (digamma) and n = 1 (trigamma) so far.
  Tensor polygamma(int64_t n) const;
  /// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given.
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  /// sin(pi x) / (pi x), 1 at 0.
  Tensor sinc() const;
  Tensor deg2rad() const;
  Tensor rad2deg() const;
  /// True where the sign bit is set (-0.0 included), bool.
  Tensor signbit() const;
  /// sign() for real tensors.
  Tensor sgn() const;
  Tensor absolute() const;
  Tensor negative() const;
  /// Alias of clamp.
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& tan_() const;
  Tensor& asin_() const;
  Tensor& acos_() const;
  Tensor& atan_() const;
  Tensor& sinh_() const;
  Tensor& cosh_() const;
  Tensor& asinh_() const;
  Tensor& acosh_() const;
  Tensor& atanh_() const;
  Tensor& arcsin_() const;
  Tensor& arccos_() const;
  Tensor& arctan_() const;
  Tensor& arcsinh_() const;
  Tensor& arccosh_() const;
  Tensor& arctanh_() const;
  Tensor& log10_() const;
  Tensor& trunc_() const;
  Tensor& fix_() const;
  Tensor& frac_() const;
  Tensor& erfc_() const;
  Tensor& erfinv_() const;
  Tensor& lgamma_() const;
  Tensor& digamma_() const;
  Tensor& polygamma_(int64_t n) const;
  Tensor& logit_(std::optional<double> eps = std::nullopt) const;
  Tensor& sinc_() const;
  Tensor& deg2rad_() const;
  Tensor& rad2deg_() const;
  Tensor& sgn_() const;
  Tensor& absolute_() const;
  Tensor& negative_() const;
  Tensor& clip_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  /// sqrt(self^2 + other^2) without overflow, floating point only, broadcasting.
  Tensor hypot(const Tensor& other) const;
  /// C's fmod: self - trunc(self / other) * other, the result has the dividend's sign (integers
  /// stay integers; an integer division by zero gives 0).
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(const Scalar& other) const;
  /// |self| with other's sign (integers promote to the default float dtype).
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(const Scalar& other) const;
  /// self * log(other), 0 where self is 0 (unless other is NaN).
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(const Scalar& other) const;
  /// The next representable value after self toward other (float32 / float64).
  Tensor nextafter(const Tensor& other) const;
  /// Elementwise exclusive or of the truth values (bool).
  Tensor logical_xor(const Tensor& other) const;
  /// Division with rounding_mode nullopt (true division), "trunc" (toward zero) or "floor" (toward
  /// -inf); with a rounding mode integers stay integers (a division by zero gives 0).
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  /// div(other, "floor").
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(const Scalar& other) const;
  /// Alias of div(other).
  Tensor true_divide(const Tensor& other) const;
  Tensor true_divide(const Scalar& other) const;
  /// pow in float64.
  Tensor float_power(const Tensor& exponent) const;
  Tensor float_power(const Scalar& exponent) const;
  /// self * 2^other.
  Tensor ldexp(const Tensor& other) const;
  Tensor& hypot_(const Tensor& other) const;
  Tensor& fmod_(const Tensor& other) const;
  Tensor& fmod_(const Scalar& other) const;
  Tensor& copysign_(const Tensor& other) const;
  Tensor& copysign_(const Scalar& other) const;
  Tensor& xlogy_(const Tensor& other) const;
  Tensor& xlogy_(const Scalar& other) const;
  Tensor& nextafter_(const Tensor& other) const;
  Tensor& logical_xor_(const Tensor& other) const;
  Tensor& div_(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor& div_(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor& floor_divide_(const Tensor& other) const;
  Tensor& floor_divide_(const Scalar& other) const;
  Tensor& true_divide_(const Tensor& other) const;
  Tensor& true_divide_(const Scalar& other) const;
  /// In place on a float64 tensor only, as PyTorch.
  Tensor& float_power_(const Tensor& exponent) const;
  Tensor& float_power_(const Scalar& exponent) const;
  Tensor& ldexp_(const Tensor& other) const;
  // ---- end math batch (stop 45) ----

  // ---- comparisons (bool results) ------------------------------------------------------------
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_not() const;
  /// True where the element is NaN (bool; false for every element of an integer tensor).
  Tensor isnan() const;
  /// True where the element is +inf or -inf (bool; false for integers).
  Tensor isinf() const;
  /// True where the element is neither NaN nor infinite (bool; true for integers).
  Tensor isfinite() const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  /// NaN, +inf and -inf replaced by `nan` (default 0), `posinf` and `neginf` (default the dtype's
  /// largest and lowest finite values); integer tensors are copied unchanged.
  Tensor nan_to_num(std::optional<double> nan = 0.0, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor& nan_to_num_(std::optional<double> nan = 0.0, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt) const;

  // ---- reductions ----------------------------------------------------------------------------
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  /// The number of non-zero elements (int64), overall or along `dim` / `dims`.
  Tensor count_nonzero() const;
  Tensor count_nonzero(int64_t dim) const;
  Tensor count_nonzero(IntArrayRef dims) const;
  /// Running sums along `dim`: out[..., i, ...] = sum of [..., 0..i, ...]. Integer and bool inputs
  /// give int64 (as PyTorch), unless `dtype` says otherwise; differentiable.
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  /// Running products along dim (integers and bool as int64); differentiable, zeros included.
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor any() const;
  Tensor all() const;
  /// The p-norm of all elements ((sum |x|^p)^(1/p)), or over `dim`.
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dim, bool keepdim = false) const;
  /// log(sum(exp(x))) over `dim`, computed stably (the max is subtracted first).
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  /// Variance over all elements or over `dim`, divided by N - 1 (unbiased) or N; `correction`
  /// is the libtorch 2.x form (divide by N - correction). Floating point input only. The
  /// one-argument form takes a bool only: x.var(1) and x.var({1}) mean dim 1 (libtorch reads
  /// them as unbiased = true).
  Tensor var() const { return var(IntArrayRef{}, true, false); }
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor var(Bool unbiased) const { return var(IntArrayRef{}, unbiased, false); }
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor var(IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim = false) const;
  /// sqrt of var, with the same arguments.
  Tensor std() const { return std(IntArrayRef{}, true, false); }
  template <typename Bool, std::enable_if_t<std::is_same_v<Bool, bool>, int> = 0>
  Tensor std(Bool unbiased) const { return std(IntArrayRef{}, unbiased, false); }
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim = false) const;
  /// Sum of the main diagonal of a 2-D tensor.
  Tensor trace() const;
  /// (values, int64 indices) sorted along `dim`; equal values keep their order (stable). NaN
  /// sorts above every number, as PyTorch. On a device the indices are computed on the host
  /// (one copy of the tensor each way); values are gathered on the device (differentiable).
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  /// The k largest (or smallest) values along `dim` and their int64 indices, sorted (the order
  /// is the same with sorted = false), as sort.
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  // ---- linear algebra and indexing -----------------------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  /// The inner product of two 1-D tensors of one length and dtype: a 0-dim tensor.
  Tensor dot(const Tensor& other) const;
  /// A matrix [n, m] times a vector [m]: a vector [n].
  Tensor mv(const Tensor& vec) const;
  /// The outer product of two 1-D tensors: [n] and [m] give [n, m] (PyTorch's outer, alias ger).
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const { return outer(vec2); }
  /// The lower (tril) or upper (triu) triangle of the last two dims, zeros elsewhere: element
  /// [i, j] is kept when j - i <= diagonal (tril) or j - i >= diagonal (triu). Differentiable.
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0) const;
  Tensor& triu_(int64_t diagonal = 0) const;
  /// 1-D: a square matrix with the vector on diagonal `offset`; 2-D: that diagonal as a vector
  /// (a copy). Differentiable.
  Tensor diag(int64_t offset = 0) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  /// self[.., index[i], ..] += alpha * source[.., i, ..] along `dim` (repeated indices add up);
  /// source has self's shape but index.numel() along dim. index_add is differentiable in self
  /// and source.
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  /// self[..., index[i][j], ...] = src[i][j] along `dim` (a copy for scatter, in place for
  /// scatter_); index no larger than src, and than self apart from dim. Of repeated positions the
  /// last write wins (PyTorch leaves the choice unspecified). scatter is differentiable in self and src.
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  /// libtorch's scatter with reduce: "add" or "multiply" combines src (or value) into self at the
  /// scattered positions instead of replacing (scatter_reduce's "sum" / "prod", include_self).
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) const;
  /// src reduced into self at index along dim (as scatter_add's positions): reduce is "sum",
  /// "prod", "mean", "amax" or "amin"; with include_self false, a scattered position's old value
  /// takes no part (positions nothing is scattered to keep self's). self and src of one dtype,
  /// index int64. Differentiable in self and src (PyTorch's formulas: ties of amax / amin share the
  /// gradient). sum and mean run on the device; prod, amax and amin combine on the host.
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                          bool include_self = true) const;
  /// index_add's positions (index a vector, source self's shape but index.numel() along dim) with
  /// scatter_reduce's reductions: "prod", "mean", "amax" or "amin".
  Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true) const;
  Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                        bool include_self = true) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  /// In place: value where mask (bool, broadcastable to this tensor) is true.
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  /// The elements where `mask` (bool, broadcast to this tensor's shape) is true, as a 1-D copy.
  Tensor masked_select(const Tensor& mask) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  bool equal(const Tensor& other) const;

  // ---- stats batch (stop 45) ----
  /// The median of all elements: of an even count the lower of the two middle values, as
  /// PyTorch; NaN if any element is NaN. Differentiable (the gradient goes to the chosen element).
  Tensor median() const;
  /// (values, int64 indices) of the median along `dim` (the lower middle value).
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  /// median ignoring NaN (NaN only where every element is NaN).
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  /// (values, indices) of the k-th smallest element (1-based) along `dim`.
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  /// (values, indices) of the most frequent value along `dim` (the smallest among ties).
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  /// The q-th quantiles (q in [0, 1]) of all elements or along `dim`; a tensor q adds a leading dim
  /// of q's size. interpolation: "linear", "lower", "higher", "midpoint" or "nearest". float32/64.
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  /// quantile ignoring NaN.
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  /// Counts of each value of a 1-D non-negative integer tensor (weighted sums with `weights`).
  Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;
  /// Histogram of `bins` equal bins over [min, max] (min == max: the data's range).
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  /// Inverse, determinant, log-determinant and (sign, log|det|) of square matrices [..., n, n].
  Tensor inverse() const;
  Tensor det() const;
  Tensor logdet() const;
  std::tuple<Tensor, Tensor> slogdet() const;

  // ---- autograd (implemented by src/autograd) ------------------------------------------------
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  Tensor& set_requires_grad(bool requires_grad) { return requires_grad_(requires_grad); }
  /// The accumulated gradient (undefined until a backward pass reaches this leaf).
  const Tensor& grad() const;
  Tensor& mutable_grad();
  void set_grad(const Tensor& g);
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  /// Which output of grad_fn() this tensor is (0 for a leaf), as libtorch's output_nr().
  int64_t output_nr() const;
  /// The version counter (libtorch's _version()): bumped by every in-place write to the storage
  /// this tensor shares with its views; autograd compares it to find saved tensors changed later.
  int64_t _version() const;
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// Replaces this tensor's data (storage, shape, dtype, device) with `new_data`'s, keeping its
  /// identity and autograd state: every handle to it sees the change (Module::to uses this).
  void set_data(const Tensor& new_data) const;
  /// A tensor sharing storage with this one, outside the graph (same as detach()).
  Tensor data() const { return detach(); }
  /// libtorch's gradient hooks: `hook(grad)` runs each time a backward pass computes this
  /// tensor's gradient (a leaf: before it is accumulated into .grad); a hook returning a Tensor
  /// replaces the gradient, one returning void only reads it. Returns the handle for
  /// remove_hook. Throws for a tensor that does not require grad.
  template <typename Hook>
  unsigned register_hook(Hook&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<Hook&, Tensor>>) {
      return register_grad_hook([h = std::forward<Hook>(hook)](const Tensor& g) mutable {
        h(g);
        return Tensor();
      });
    } else {
      return register_grad_hook([h = std::forward<Hook>(hook)](const Tensor& g) mutable { return Tensor(h(g)); });
    }
  }
  /// Removes the hook of that handle; an unknown handle is an Error.
  void remove_hook(unsigned handle) const;
  /// Keeps the gradient of this non-leaf tensor in .grad after backward (accumulating across
  /// passes, as a leaf's); a no-op on a leaf. retains_grad() says whether it was asked for.
  void retain_grad() const;
  bool retains_grad() const;

  // ---- shape batch (stop 45) -----------------------------------------------------------------
  /// expand(size), as PyTorch's broadcast_to (a view; -1 keeps a dim's size).
  Tensor broadcast_to(IntArrayRef size) const;
  /// repeat(dims), with dims padded by leading 1s to dim() when shorter (PyTorch's tile).
  Tensor tile(IntArrayRef dims) const;
  /// Every window of `size` elements, `step` apart, along `dimension`: a strided view whose dim
  /// `dimension` counts the windows and whose new last dim (of `size`) holds each window.
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  /// The n-th forward difference along dim (prepend / append concatenated first); bool gives bool.
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
              const std::optional<Tensor>& append = std::nullopt) const;
  /// The last dim placed on diagonal `offset` of planes (dim1, dim2) of a new tensor, zeros elsewhere.
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  /// Diagonal `offset` of the planes (dim1, dim2), as a view whose last dim runs along it.
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  /// The Kronecker product (the fewer dims padded with leading 1s).
  Tensor kron(const Tensor& other) const;
  /// The 3-vector cross product along dim (without dim: the first dim of size 3, as libtorch).
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  /// (min, max) over all elements or along dim.
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  /// Running maximum / minimum along dim and the int64 index where it was reached (the last such
  /// index on ties; NaN propagates), as PyTorch's cummax / cummin. Values are differentiable.
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  /// log(cumsum(exp(x))) along dim, computed stably. Differentiable.
  Tensor logcumsumexp(int64_t dim) const;
  /// Rotated by 90 degrees k times in the plane dims, from dims[0] towards dims[1] (a copy).
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  /// flip({1}) (at least 2-D) and flip({0}) (at least 1-D).
  Tensor fliplr() const;
  Tensor flipud() const;

  // ---- ops batch (stop 46) ----------------------------------------------------------------
  /// Bitwise ops, as PyTorch: bool and integer dtypes only (floats raise), PyTorch's type
  /// promotion (a Scalar operand keeps the tensor's dtype). Shifts as PyTorch's cpu kernel: the
  /// count taken modulo 32 (64 for int64), int8/int16 shifted as int32, >> arithmetic for signed.
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor& bitwise_and_(const Tensor& other) const;
  Tensor& bitwise_and_(const Scalar& other) const;
  Tensor& bitwise_or_(const Tensor& other) const;
  Tensor& bitwise_or_(const Scalar& other) const;
  Tensor& bitwise_xor_(const Tensor& other) const;
  Tensor& bitwise_xor_(const Scalar& other) const;
  Tensor& bitwise_left_shift_(const Tensor& other) const;
  Tensor& bitwise_left_shift_(const Scalar& other) const;
  Tensor& bitwise_right_shift_(const Tensor& other) const;
  Tensor& bitwise_right_shift_(const Scalar& other) const;
  Tensor& bitwise_not_() const;
  Tensor operator~() const { return bitwise_not(); }
  Tensor& operator&=(const Tensor& other) { return bitwise_and_(other); }
  Tensor& operator&=(const Scalar& other) { return bitwise_and_(other); }
  Tensor& operator|=(const Tensor& other) { return bitwise_or_(other); }
  Tensor& operator|=(const Scalar& other) { return bitwise_or_(other); }
  Tensor& operator^=(const Tensor& other) { return bitwise_xor_(other); }
  Tensor& operator^=(const Scalar& other) { return bitwise_xor_(other); }
  Tensor& operator<<=(const Tensor& other) { return bitwise_left_shift_(other); }
  Tensor& operator<<=(const Scalar& other) { return bitwise_left_shift_(other); }
  Tensor& operator>>=(const Tensor& other) { return bitwise_right_shift_(other); }
  Tensor& operator>>=(const Scalar& other) { return bitwise_right_shift_(other); }
  /// Reductions along one dim (prod: differentiable, zeros included; all/any give kBool, uint8
  /// stays uint8 as PyTorch).
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  /// sum / mean with NaNs treated as zero (nanmean: divided by the count of non-NaN elements).
  Tensor nansum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nansum(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor take(const Tensor& index) const;
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
  Tensor round(int64_t decimals) const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor& renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
  Tensor matrix_power(int64_t n) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor& addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  // ---- end ops batch (stop 46) ----
  // ---- linalg batch (stop 47) ----
  /// The Cholesky factor L (A = L L^T) of each symmetric positive-definite matrix, or U = L^T.
  Tensor cholesky(bool upper = false) const;
  /// X with A X = self, A = L L^T given by its Cholesky factor `input2` (L, or U when upper).
  Tensor cholesky_solve(const Tensor& input2, bool upper = false) const;
  /// The inverse of A = L L^T (or U^T U) from its Cholesky factor self.
  Tensor cholesky_inverse(bool upper = false) const;
  /// (U, S, V) with self = U diag(S) V^T (V, not V^T); some: the reduced decomposition.
  std::tuple<Tensor, Tensor, Tensor> svd(bool some = true, bool compute_uv = true) const;
  /// The pseudo-inverse (singular values below rcond * the largest are dropped).
  Tensor pinverse(double rcond = 1e-15) const;
  /// (Q, R) with self = Q R; some: the reduced decomposition.
  std::tuple<Tensor, Tensor> qr(bool some = true) const;
  /// The matrix exponential of each square matrix.
  Tensor matrix_exp() const;
  // ---- end linalg batch (stop 47) ----

  // ---- tensor API batch (stop 47) ----
  /// x[indices] = values with indices one tensor (or none: the whole dim) per leading dim, as
  /// libtorch's index_put_(List<optional<Tensor>>, values, accumulate): with accumulate, repeated
  /// positions add up (else the last write wins).
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                     bool accumulate = false) const;
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor index(const std::vector<std::optional<Tensor>>& indices) const;
  /// In-place view ops: change this tensor's sizes and strides (not its data), as libtorch's.
  /// Refused on a tensor that autograd records (use the out-of-place view).
  Tensor& t_() const;
  Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) const;
  Tensor& swapdims_(int64_t dim0, int64_t dim1) const;
  Tensor& unsqueeze_(int64_t dim) const;
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor& as_strided_(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset = std::nullopt) const;
  /// Contiguous sizes `sizes` over this tensor's storage, grown (keeping its bytes) when too small;
  /// new elements are uninitialised, as libtorch's.
  Tensor& resize_(IntArrayRef sizes) const;
  Tensor& resize_as_(const Tensor& other) const;
  Tensor reshape_as(const Tensor& other) const;
  /// The same bytes seen as `dtype` (sizes of the last dim scale with the element sizes), as
  /// libtorch's view(ScalarType).
  Tensor view(ScalarType dtype) const;
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
  /// The matrix transpose of the last two dims (and its conjugate: the same for real tensors).
  Tensor mT() const;
  Tensor mH() const;
  Tensor adjoint() const;
  /// numpy's splits: along dim 1 (dim 0 for a 1-D tensor), dim 0, dim 2; sections must divide it.
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  Tensor toType(ScalarType t) const { return to(t); }
  bool is_signed() const;
  bool is_sparse() const { return false; }
  int64_t itemsize() const { return static_cast<int64_t>(element_size()); }
  // ---- end tensor API batch (stop 47) ----
  // ---- libtorch's everyday methods (stop 54) ----
  /// log(exp(self) + exp(other)) and log2(2^self + 2^other), stably (floating point).
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  /// 0 where self < 0, `values` where self == 0, 1 where self > 0 (same dtypes; not differentiable).
  Tensor heaviside(const Tensor& values) const;
  Tensor& heaviside_(const Tensor& values) const;
  /// Greatest common divisor and least common multiple, elementwise (integer dtypes; never negative).
  Tensor gcd(const Tensor& other) const;
  Tensor& gcd_(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor& lcm_(const Tensor& other) const;
  /// Picks values along `dim` at `indices` (int64), the other dims broadcast; without a dim, from
  /// the flattened tensor.
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  /// A copy with self.select(dim, index[i]) = source.select(dim, i); differentiable in both.
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  /// The indices of the non-zero elements, [n, dim()] (as nonzero()).
  Tensor argwhere() const;
  /// clamp with tensor bounds (broadcast; PyTorch's result dtype over all three); at least one given.
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = std::nullopt) const;
  Tensor& clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max = std::nullopt) const;
  Tensor clamp_min(const Tensor& min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(const Tensor& max) const { return clamp(std::nullopt, max); }
  Tensor& clamp_min_(const Scalar& min) const { return clamp_(min, std::nullopt); }
  Tensor& clamp_max_(const Scalar& max) const { return clamp_(std::nullopt, max); }
  Tensor& clamp_min_(const Tensor& min) const { return clamp_(min, std::nullopt); }
  Tensor& clamp_max_(const Tensor& max) const { return clamp_(std::nullopt, max); }
  /// torch::where(condition, *this, other).
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor where(const Tensor& condition, const Scalar& other) const;
  /// Writes fill_value on the main diagonal (all dims of equal length when dim() > 2); `wrap`
  /// restarts it every cols + 1 rows of a tall matrix.
  Tensor& fill_diagonal_(const Scalar& fill_value, bool wrap = false) const;
  /// The value of a one-element tensor as a bool (an Error for none or several).
  bool is_nonzero() const;
  /// libtorch's operator spellings of the bitwise ops.
  Tensor __and__(const Tensor& other) const { return bitwise_and(other); }
  Tensor __and__(const Scalar& other) const { return bitwise_and(other); }
  Tensor __or__(const Tensor& other) const { return bitwise_or(other); }
  Tensor __or__(const Scalar& other) const { return bitwise_or(other); }
  Tensor __xor__(const Tensor& other) const { return bitwise_xor(other); }
  Tensor __xor__(const Scalar& other) const { return bitwise_xor(other); }
  Tensor __lshift__(const Tensor& other) const { return bitwise_left_shift(other); }
  Tensor __lshift__(const Scalar& other) const { return bitwise_left_shift(other); }
  Tensor __rshift__(const Tensor& other) const { return bitwise_right_shift(other); }
  Tensor __rshift__(const Scalar& other) const { return bitwise_right_shift(other); }
  Tensor& __iand__(const Tensor& other) const { return bitwise_and_(other); }
  Tensor& __iand__(const Scalar& other) const { return bitwise_and_(other); }
  Tensor& __ior__(const Tensor& other) const { return bitwise_or_(other); }
  Tensor& __ior__(const Scalar& other) const { return bitwise_or_(other); }
  Tensor& __ixor__(const Tensor& other) const { return bitwise_xor_(other); }
  Tensor& __ixor__(const Scalar& other) const { return bitwise_xor_(other); }
  Tensor& __ilshift__(const Tensor& other) const { return bitwise_left_shift_(other); }
  Tensor& __ilshift__(const Scalar& other) const { return bitwise_left_shift_(other); }
  Tensor& __irshift__(const Tensor& other) const { return bitwise_right_shift_(other); }
  Tensor& __irshift__(const Scalar& other) const { return bitwise_right_shift_(other); }
  /// The p-norm of self - other.
  Tensor dist(const Tensor& other, const Scalar& p = 2) const;
  /// Sorted along dim 0 (the values of sort(0)).
  Tensor msort() const;
  /// masked_fill with a 0-dim tensor value (differentiable in it).
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  /// Sum of products over the last dims (a 0-dim operand scales the other).
  Tensor inner(const Tensor& other) const;
  /// dot of two 1-D tensors (no conjugation: locus has no complex dtypes).
  Tensor vdot(const Tensor& other) const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  /// All true: locus has no complex dtypes.
  Tensor isreal() const;
  Tensor hardshrink(const Scalar& lambd = 0.5) const;
  /// Sums the broadcast dims away so that the result has `size` (self must expand from it).
  Tensor sum_to_size(IntArrayRef size) const;
  /// A copy laid out as `format` (this tensor when already so): ChannelsLast needs 4 dims,
  /// ChannelsLast3d 5.
  Tensor contiguous(MemoryFormat format) const;
  bool is_contiguous(MemoryFormat format) const;
  /// ChannelsLast / ChannelsLast3d when the strides are channels-last (and not also
  /// row-major contiguous), else Contiguous.
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_quantized() const { return false; }
  bool is_meta() const { return false; }
  bool is_mkldnn() const { return false; }
  // ---- end libtorch's everyday methods (stop 54) ----

 private:
  // The in-place methods are const, as libtorch's (a Tensor is a handle: x.grad().zero_() and
  // in-place ops on a const Tensor& modify the tensor it refers to); their bodies use this.
  Tensor& mut_self() const { return const_cast<Tensor&>(*this); }
  unsigned register_grad_hook(std::function<Tensor(const Tensor&)> hook) const;
  void* host_data(const char* op) const;
  void check_accessor_dims(int64_t n) const;
  void check_fits_int32_indexing() const;
  std::shared_ptr<TensorImpl> impl_;
};

// Operators, as libtorch.
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
// On a temporary (`x[0] += 1`, `x.narrow(0, 1, 2) *= w`): the op writes into it, as in libtorch.
inline Tensor& operator+=(Tensor&& a, const Tensor& b) { return a += b; }
inline Tensor& operator-=(Tensor&& a, const Tensor& b) { return a -= b; }
inline Tensor& operator*=(Tensor&& a, const Tensor& b) { return a *= b; }
inline Tensor& operator/=(Tensor&& a, const Tensor& b) { return a /= b; }
inline Tensor& operator+=(Tensor&& a, const Scalar& b) { return a += b; }
inline Tensor& operator-=(Tensor&& a, const Scalar& b) { return a -= b; }
inline Tensor& operator*=(Tensor&& a, const Scalar& b) { return a *= b; }
inline Tensor& operator/=(Tensor&& a, const Scalar& b) { return a /= b; }

/// Prints like PyTorch: tensor([[1., 2.]], device='opencl:0', dtype=float16)
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace locus

#include "locus/indexing.h"  // Tensor::index's argument type
