#pragma once
// locus::nn::functional (libtorch's torch::nn::functional, usually aliased `namespace F`).
// Every function is differentiable and runs on the device of its inputs; mixing devices throws
// DeviceMismatchError from the underlying op.
#include <array>
#include <utility>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "locus/functions.h"  // locus::one_hot
#include "locus/nn/module.h"
#include "locus/tensor.h"

namespace locus {

/// Loss reductions: locus::kMean, locus::kSum, locus::kNone (as libtorch's enum types).
namespace enumtype {
enum class Reduction { None, Mean, Sum };
}
inline constexpr enumtype::Reduction kNone = enumtype::Reduction::None;
inline constexpr enumtype::Reduction kMean = enumtype::Reduction::Mean;
inline constexpr enumtype::Reduction kSum = enumtype::Reduction::Sum;
/// kl_div's extra reduction (libtorch's torch::kBatchMean): the sum divided by the batch size.
namespace enumtype {
struct BatchMean {};
}
inline constexpr enumtype::BatchMean kBatchMean{};

/// F::pad's modes: locus::kConstant, kReflect, kReplicate, kCircular (libtorch's enum types).
namespace enumtype {
enum class PadMode { Constant, Reflect, Replicate, Circular };
}
inline constexpr enumtype::PadMode kConstant = enumtype::PadMode::Constant;
inline constexpr enumtype::PadMode kReflect = enumtype::PadMode::Reflect;
inline constexpr enumtype::PadMode kReplicate = enumtype::PadMode::Replicate;

/// F::interpolate's and nn::Upsample's modes (libtorch's enum types). Bicubic and area are
/// spelled so that libtorch code compiles, and refused with an Error when used.
namespace enumtype {
enum class InterpolateMode { Nearest, NearestExact, Linear, Bilinear, Trilinear, Bicubic, Area };
}
inline constexpr enumtype::InterpolateMode kNearest = enumtype::InterpolateMode::Nearest;
inline constexpr enumtype::InterpolateMode kNearestExact = enumtype::InterpolateMode::NearestExact;
inline constexpr enumtype::InterpolateMode kLinear = enumtype::InterpolateMode::Linear;
inline constexpr enumtype::InterpolateMode kBilinear = enumtype::InterpolateMode::Bilinear;
inline constexpr enumtype::InterpolateMode kTrilinear = enumtype::InterpolateMode::Trilinear;
inline constexpr enumtype::InterpolateMode kBicubic = enumtype::InterpolateMode::Bicubic;
inline constexpr enumtype::InterpolateMode kArea = enumtype::InterpolateMode::Area;
inline constexpr enumtype::PadMode kCircular = enumtype::PadMode::Circular;

/// Two integers given as one (`3`) or two (`{3, 5}`), as libtorch's ExpandingArray<2>.
template <size_t N>
class ExpandingArray {
 public:
  ExpandingArray(int64_t v) { values_.fill(v); }
  ExpandingArray(std::initializer_list<int64_t> l) {
    if (l.size() != N) throw Error("ExpandingArray: expected " + std::to_string(N) + " values, got " + std::to_string(l.size()) + ".");
    std::copy(l.begin(), l.end(), values_.begin());
  }
  ExpandingArray(const std::array<int64_t, N>& a) : values_(a) {}
  /// From a std::vector of N values (libtorch's takes any IntArrayRef): output_size(std::vector{4, 4}).
  ExpandingArray(const std::vector<int64_t>& v) {
    if (v.size() != N) throw Error("ExpandingArray: expected " + std::to_string(N) + " values, got " + std::to_string(v.size()) + ".");
    std::copy(v.begin(), v.end(), values_.begin());
  }
  int64_t operator[](size_t i) const { return values_[i]; }
  const int64_t* data() const { return values_.data(); }
  size_t size() const { return N; }
  IntArrayRef ref() const { return IntArrayRef(values_.data(), N); }
  /// As libtorch's: converts to IntArrayRef; *a and a-> reach the std::array.
  operator IntArrayRef() const { return ref(); }
  std::array<int64_t, N>& operator*() { return values_; }
  const std::array<int64_t, N>& operator*() const { return values_; }
  std::array<int64_t, N>* operator->() { return &values_; }
  const std::array<int64_t, N>* operator->() const { return &values_; }
  bool operator==(const ExpandingArray& o) const { return values_ == o.values_; }

 private:
  std::array<int64_t, N> values_{};
};

namespace enumtype {
struct kValid {};
struct kSame {};
struct kZeros {};
}  // namespace enumtype
/// A convolution's padding by name (libtorch's): kValid (none) or kSame (the output keeps the
/// input's size; stride 1 only).
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};
/// Zero padding: conv layers' default padding_mode, and grid_sample's padding mode.
inline constexpr enumtype::kZeros kZeros{};

/// A convolution's padding (libtorch's padding_t): explicit sizes, one number or one per
/// spatial dim, or kValid / kSame. kSame pads dilation * (kernel - 1) in all per dim, half on
/// each side and the odd one on the right, as PyTorch.
template <size_t N>
class ConvPadding {
 public:
  ConvPadding(int64_t v) : sizes_(v) {}
  ConvPadding(std::initializer_list<int64_t> l) : sizes_(l) {}
  ConvPadding(const ExpandingArray<N>& a) : sizes_(a) {}
  ConvPadding(enumtype::kValid) : sizes_(0), kind_(Kind::Valid) {}
  ConvPadding(enumtype::kSame) : sizes_(0), kind_(Kind::Same) {}
  bool is_same() const { return kind_ == Kind::Same; }
  bool is_valid() const { return kind_ == Kind::Valid; }
  /// The explicit sizes (kValid: zeros). kSame has none until a kernel is known: an Error.
  const ExpandingArray<N>& sizes() const {
    if (kind_ == Kind::Same)
      throw Error("padding=kSame has no fixed sizes; the convolution computes them from its kernel and dilation.");
    return sizes_;
  }
  operator const ExpandingArray<N>&() const { return sizes(); }
  int64_t operator[](size_t i) const { return sizes()[i]; }
  bool operator==(const ExpandingArray<N>& o) const { return kind_ == Kind::Explicit && sizes_ == o; }
  /// Per spatial dim, the padding before and after for a kernel of `kernel` with `dilation`.
  std::array<std::pair<int64_t, int64_t>, N> sides(const ExpandingArray<N>& kernel, const ExpandingArray<N>& dilation) const {
    std::array<std::pair<int64_t, int64_t>, N> r{};
    for (size_t i = 0; i < N; ++i) {
      if (kind_ != Kind::Same) {
        r[i] = {sizes_[i], sizes_[i]};
      } else {
        const int64_t total = dilation[i] * (kernel[i] - 1);
        r[i] = {total / 2, total - total / 2};
      }
    }
    return r;
  }

 private:
  enum class Kind { Explicit, Valid, Same };
  ExpandingArray<N> sizes_;
  Kind kind_ = Kind::Explicit;
};

namespace nn::functional {

// ---- options ------------------------------------------------------------------------------
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}
  LOCUS_ARG(int64_t, dim);
  LOCUS_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;

struct LeakyReLUFuncOptions {
  LOCUS_ARG(double, negative_slope) = 1e-2;
  LOCUS_ARG(bool, inplace) = false;
};

struct ReLUFuncOptions {
  ReLUFuncOptions(bool inplace = false) : inplace_(inplace) {}
  LOCUS_ARG(bool, inplace);
};

struct GELUFuncOptions {
  /// "none" (exact, erf) or "tanh".
  LOCUS_ARG(std::string, approximate) = "none";
};

struct DropoutFuncOptions {
  LOCUS_ARG(double, p) = 0.5;
  LOCUS_ARG(bool, training) = true;
  LOCUS_ARG(bool, inplace) = false;
};
/// As libtorch: dropout2d/dropout3d take dropout's options.
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

struct NLLLossFuncOptions {
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(int64_t, ignore_index) = -100;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct CrossEntropyFuncOptions {
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(int64_t, ignore_index) = -100;
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
  LOCUS_ARG(double, label_smoothing) = 0.0;
};

/// kl_div's options: reduction kMean (default, as libtorch), kSum, kNone or kBatchMean; log_target.
struct KLDivFuncOptions {
  enum class Reduction { None, Mean, Sum, BatchMean };
  KLDivFuncOptions() = default;
  KLDivFuncOptions(enumtype::Reduction r) { reduction(r); }
  KLDivFuncOptions(enumtype::BatchMean r) { reduction(r); }
  KLDivFuncOptions& reduction(enumtype::Reduction r) {
    reduction_ = r == kNone ? Reduction::None : r == kSum ? Reduction::Sum : Reduction::Mean;
    return *this;
  }
  KLDivFuncOptions& reduction(enumtype::BatchMean) {
    reduction_ = Reduction::BatchMean;
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  LOCUS_ARG(bool, log_target) = false;

 private:
  Reduction reduction_ = Reduction::Mean;
};

struct MSELossFuncOptions {
  MSELossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
};

struct BinaryCrossEntropyFuncOptions {
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
};

struct L1LossFuncOptions {
  L1LossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
};

struct SmoothL1LossFuncOptions {
  SmoothL1LossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
  LOCUS_ARG(double, beta) = 1.0;
};

struct HuberLossFuncOptions {
  HuberLossFuncOptions(enumtype::Reduction r = kMean) : reduction_(r) {}
  LOCUS_ARG(enumtype::Reduction, reduction);
  LOCUS_ARG(double, delta) = 1.0;
};

struct BinaryCrossEntropyWithLogitsFuncOptions {
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(enumtype::Reduction, reduction) = kMean;
  LOCUS_ARG(Tensor, pos_weight) = {};
};

struct Conv2dFuncOptions {
  using padding_t = ConvPadding<2>;
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
  LOCUS_ARG(padding_t, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
};

/// conv1d's options (libtorch's F::Conv1dFuncOptions): one value each for the length dim.
struct Conv1dFuncOptions {
  using padding_t = ConvPadding<1>;
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<1>, stride) = 1;
  LOCUS_ARG(padding_t, padding) = 0;
  LOCUS_ARG(ExpandingArray<1>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
};

/// conv_transpose2d's options (libtorch's F::ConvTranspose2dFuncOptions).
struct ConvTranspose2dFuncOptions {
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
};

/// conv_transpose1d's options (libtorch's F::ConvTranspose1dFuncOptions).
struct ConvTranspose1dFuncOptions {
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<1>, stride) = 1;
  LOCUS_ARG(ExpandingArray<1>, padding) = 0;
  LOCUS_ARG(ExpandingArray<1>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(ExpandingArray<1>, dilation) = 1;
};

struct MaxPool2dFuncOptions {
  MaxPool2dFuncOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, stride);
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_ARG(bool, ceil_mode) = false;
};

/// divisor_override: each window's sum is divided by it instead of the window's size.
struct AvgPool2dFuncOptions {
  AvgPool2dFuncOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, stride);
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(bool, ceil_mode) = false;
  LOCUS_ARG(bool, count_include_pad) = true;
  LOCUS_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};

/// 1-D pooling over the last dim of [N, C, L] (or [C, L]), one value each for the length.
struct MaxPool1dFuncOptions {
  MaxPool1dFuncOptions(ExpandingArray<1> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<1>, kernel_size);
  LOCUS_ARG(ExpandingArray<1>, stride);
  LOCUS_ARG(ExpandingArray<1>, padding) = 0;
  LOCUS_ARG(ExpandingArray<1>, dilation) = 1;
  LOCUS_ARG(bool, ceil_mode) = false;
};

struct AvgPool1dFuncOptions {
  AvgPool1dFuncOptions(ExpandingArray<1> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<1>, kernel_size);
  LOCUS_ARG(ExpandingArray<1>, stride);
  LOCUS_ARG(ExpandingArray<1>, padding) = 0;
  LOCUS_ARG(bool, ceil_mode) = false;
  LOCUS_ARG(bool, count_include_pad) = true;
  LOCUS_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};

/// Adaptive pooling's options: the output's size (libtorch's F::AdaptiveAvgPool2dFuncOptions, ...).
template <size_t D>
struct AdaptivePoolFuncOptions {
  AdaptivePoolFuncOptions(ExpandingArray<D> output_size) : output_size_(output_size) {}
  LOCUS_ARG(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveAvgPool2dFuncOptions = AdaptivePoolFuncOptions<2>;
using AdaptiveMaxPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveMaxPool2dFuncOptions = AdaptivePoolFuncOptions<2>;

struct BatchNormFuncOptions {
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(bool, training) = false;
  LOCUS_ARG(double, momentum) = 0.1;
  LOCUS_ARG(double, eps) = 1e-5;
};

struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  LOCUS_ARG(std::vector<int64_t>, normalized_shape);
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(double, eps) = 1e-5;
};

struct InterpolateFuncOptions {
  LOCUS_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  LOCUS_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  LOCUS_ARG(enumtype::InterpolateMode, mode) = kNearest;
  LOCUS_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

struct PixelShuffleFuncOptions {
  PixelShuffleFuncOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  LOCUS_ARG(int64_t, upscale_factor);
};
struct PixelUnshuffleFuncOptions {
  PixelUnshuffleFuncOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}
  LOCUS_ARG(int64_t, downscale_factor);
};

struct InstanceNormFuncOptions {
  LOCUS_ARG(Tensor, running_mean) = {};
  LOCUS_ARG(Tensor, running_var) = {};
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(bool, use_input_stats) = true;
  LOCUS_ARG(double, momentum) = 0.1;
  LOCUS_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  LOCUS_ARG(int64_t, num_groups);
  LOCUS_ARG(Tensor, weight) = {};
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(double, eps) = 1e-5;
};

struct ELUFuncOptions {
  LOCUS_ARG(double, alpha) = 1.0;
  LOCUS_ARG(bool, inplace) = false;
};

struct SoftplusFuncOptions {
  LOCUS_ARG(double, beta) = 1.0;
  LOCUS_ARG(double, threshold) = 20.0;
};

struct HardtanhFuncOptions {
  LOCUS_ARG(double, min_val) = -1.0;
  LOCUS_ARG(double, max_val) = 1.0;
  LOCUS_ARG(bool, inplace) = false;
};

struct SELUFuncOptions {
  SELUFuncOptions(bool inplace = false) : inplace_(inplace) {}
  LOCUS_ARG(bool, inplace);
};

struct NormalizeFuncOptions {
  LOCUS_ARG(double, p) = 2.0;
  LOCUS_ARG(int64_t, dim) = 1;
  LOCUS_ARG(double, eps) = 1e-12;
  LOCUS_ARG(std::optional<Tensor>, out) = std::nullopt;
};

struct PadFuncOptions {
  /// (left, right) of the last dim first, then of the dim before it, ...: {1, 1, 2, 0} pads the
  /// last dim by 1 on each side and the one before it by 2 at the start.
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}
  LOCUS_ARG(std::vector<int64_t>, pad);
  LOCUS_ARG(enumtype::PadMode, mode) = enumtype::PadMode::Constant;
  LOCUS_ARG(double, value) = 0;
};

struct EmbeddingFuncOptions {
  /// Rows looked up at this index get no gradient (negative counts from the end).
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Each looked-up row whose norm_type-norm exceeds max_norm is rescaled, in the weight itself (in place,
  /// without gradient), to norm max_norm before the lookup (PyTorch's embedding_renorm_).
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
  /// Each row's gradient is divided by how often its index occurs in input (EmbeddingBackward0).
  LOCUS_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients: not supported (locus's gradients are dense); true is refused.
  LOCUS_ARG(bool, sparse) = false;
};

// ---- functions ----------------------------------------------------------------------------
/// input @ weight^T + bias; input [..., in], weight [out, in], bias [out].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
/// F::one_hot as libtorch's: locus::one_hot (int64 indices -> int64 [..., num_classes]).
inline Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1) { return locus::one_hot(tensor, num_classes); }
Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor sigmoid(const Tensor& input);
/// x where x > 0, else negative_slope * x.
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});
/// x * sigmoid(x).
Tensor silu(const Tensor& input);
/// x where x > 0, else alpha * (exp(x) - 1). With inplace (here and in the other activations that
/// take it), input is overwritten with the result and returned, as in libtorch, autograd included.
Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});
/// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
/// x * tanh(softplus(x)).
Tensor mish(const Tensor& input);
/// x clamped to [min_val, max_val].
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});
/// max(0, x) + weight * min(0, x); weight has one element or one per channel (dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);
/// scale * elu(x, alpha) with PyTorch's constants (alpha 1.6732632423543772, scale 1.0507009873554805).
Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});
/// input / max(||input||_p over dim, eps), as torch.nn.functional.normalize (a zero slice stays 0).
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
/// Pads (or, with negative amounts in constant mode, crops) the trailing dims. Constant mode any
/// input; reflect, replicate and circular pad the last 1, 2 or 3 dims of an input with one or two
/// dims more (as PyTorch: [N, C, W] or [C, W] for 1-D padding, and so on). Differentiable.
Tensor pad(const Tensor& input, const PadFuncOptions& options);
Tensor tanh(const Tensor& input);
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
/// Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});
/// Channel dropout when training: zeroes whole channels (every [H, W] plane of input [N, C, H, W],
/// or of an unbatched [C, H, W]) with probability p and scales the others by 1/(1-p).
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options = {});
/// The same for volumes: input [N, C, D, H, W] or [C, D, H, W].
Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& options = {});
/// input [N, C] (or [N, C, d...]) log-probabilities, target int64 [N] class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
/// input [N, C] logits, target int64 [N] class indices; optional class weights, ignore_index and
/// label smoothing as PyTorch.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
/// The Kullback-Leibler divergence of `input` (log-probabilities) from `target` (probabilities,
/// or log-probabilities with log_target): target * (log(target) - input) elementwise, 0 where
/// target is 0. PyTorch's advice holds: kBatchMean gives the mathematical KL divergence.
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
/// -(t log(x) + (1 - t) log(1 - x)) for probabilities x, each log clamped at -100 (as PyTorch).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options = {});
/// |x - t|.
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
/// 0.5 (x - t)^2 / beta where |x - t| < beta, else |x - t| - 0.5 beta (l1 at beta 0).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {});
/// 0.5 (x - t)^2 where |x - t| <= delta, else delta (|x - t| - 0.5 delta).
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
/// input [N, C, H, W], weight [O, C/groups, kh, kw]: im2col + GEMM on the input's device.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
/// input [N, C, L] (or unbatched [C, L]), weight [out_channels, C/groups, k] -> [N, out_channels, L'];
/// computed as conv2d over a height of 1.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
/// The transposed convolution (conv2d's input gradient as a layer): input [N, in, H, W] (or
/// unbatched), weight [in, out/groups, kh, kw] -> [N, out, (H-1)*stride - 2*padding +
/// dilation*(kh-1) + output_padding + 1, ...]; computed as a GEMM and col2im.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options = {});
/// The same over a length: input [N, in, L] (or unbatched [in, L]), weight [in, out/groups, k]
/// -> [N, out, (L-1)*stride - 2*padding + dilation*(k-1) + output_padding + 1]; computed as
/// conv_transpose2d over a height of 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& options = {});
/// Pooling over input [N, C, H, W] (or unbatched [C, H, W]); the 1-D forms over [N, C, L] or
/// [C, L]. ceil_mode rounds the output size up, as PyTorch: the last window must start inside the
/// input or its left padding, and an average over a window that reaches past the padded input
/// divides by the part inside it (by the input part alone without count_include_pad).
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
/// Output cell i along a dim of size n covers [floor(i n / out), ceil((i + 1) n / out)), as PyTorch.
Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, ExpandingArray<1> output_size);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
/// The gradient goes to the first maximum of each window, as PyTorch's.
Tensor adaptive_max_pool2d(const Tensor& input, ExpandingArray<2> output_size);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, ExpandingArray<1> output_size);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
/// input [N, C, *]: the channels in num_groups groups, each image's group normalised over its
/// channels and positions (biased variance), then weight and bias per channel.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
/// input [N, C, *]: each image's channel normalised over its positions (use_input_stats), the
/// running statistics, when given, updated with the batch's mean of them (unbiased variances), as
/// PyTorch; or normalised with the running statistics. Then weight and bias per channel.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
/// Resizes the spatial dims of input [N, C, *] (1 to 3 of them) to `size`, or by `scale_factor`
/// (one value for every dim, or one each): nearest, nearest-exact, linear/bilinear/trilinear,
/// bicubic (align_corners as PyTorch, default false), as index_select and weighted sums on every
/// device; area is the adaptive average pool to the output size.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});
/// "nearest", "nearest-exact", "bilinear", ...: PyTorch's name of the mode (messages, printing).
const char* interpolate_mode_name(enumtype::InterpolateMode mode);
/// The libtorch enum's name of a mode: "kNearest", "kBilinear", ... (as nn::Upsample prints it).
const char* interpolate_mode_enum_name(enumtype::InterpolateMode mode);
/// [*, C r^2, H, W] -> [*, C, H r, W r] (sub-pixel convolution's rearrangement), and back.
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
}  // namespace nn::functional
namespace nn::detail {
/// PyTorch's embedding_renorm_: the rows of weight at `indices` whose norm_type-norm exceeds max_norm are
/// scaled in place (without gradient) by max_norm / (norm + 1e-7). Returns weight.
const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type,
                                const char* name);
}  // namespace nn::detail
namespace nn::functional {

/// Differentiable im2col: input [N, C, H, W] -> columns [N, C*kh*kw, oh*ow] (zero padding).
Tensor im2col(const Tensor& input, ExpandingArray<2> kernel_size, ExpandingArray<2> dilation,
              ExpandingArray<2> padding, ExpandingArray<2> stride);

}  // namespace nn::functional
}  // namespace locus
