#pragma once
#include <tuple>
#include <variant>
// Conv2d (im2col + GEMM on the parameters' device), Conv1d (Conv2d over a height of 1),
// ConvTranspose2d (GEMM + col2im), ConvTranspose1d, Conv3d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d,
// MaxPool2d/1d, AvgPool2d/1d, AdaptiveAvgPool2d/1d, AdaptiveMaxPool2d/1d.
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_3d.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/linear.h"

namespace locus::nn {

struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
 public:
  using padding_t = ConvPadding<2>;  // sizes, or kValid / kSame
  LOCUS_ARG(padding_t, padding) = 0;

 public:
  /// kZeros, or F::pad's kReflect / kReplicate / kCircular (applied before the convolution).
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::PadMode>;
  LOCUS_ARG(padding_mode_t, padding_mode) = kZeros;
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_PLACEMENT_ARGS;
};

/// weight [out, in/groups, kh, kw] and bias [out], Kaiming-uniform as PyTorch.
class Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  std::string brief() const override;
  Tensor forward(const Tensor& input);
  Conv2dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(Conv2d);

struct Conv1dOptions {
  Conv1dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<1>, kernel_size);
  LOCUS_ARG(ExpandingArray<1>, stride) = 1;
 public:
  using padding_t = ConvPadding<1>;  // sizes, or kValid / kSame
  LOCUS_ARG(padding_t, padding) = 0;

 public:
  /// kZeros, or F::pad's kReflect / kReplicate / kCircular (applied before the convolution).
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::PadMode>;
  LOCUS_ARG(padding_mode_t, padding_mode) = kZeros;
  LOCUS_ARG(ExpandingArray<1>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_PLACEMENT_ARGS;
};

/// weight [out, in/groups, k] and bias [out], Kaiming-uniform as PyTorch; input [N, in, L] or [in, L].
class Conv1dImpl : public Cloneable<Conv1dImpl> {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  std::string brief() const override;
  Tensor forward(const Tensor& input);
  Conv1dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(Conv1d);

struct ConvTranspose2dOptions {
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<2>, kernel_size);
  LOCUS_ARG(ExpandingArray<2>, stride) = 1;
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
  LOCUS_ARG(ExpandingArray<2>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_ARG(ExpandingArray<2>, dilation) = 1;
  LOCUS_PLACEMENT_ARGS;
};

/// The transposed convolution (F::conv_transpose2d): weight [in, out/groups, kh, kw] and bias
/// [out], initialised as PyTorch does.
class ConvTranspose2dImpl : public Cloneable<ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  std::string brief() const override;
  /// output_size (the last two values are used) picks among the sizes a strided layer can give
  /// in place of options.output_padding, as in libtorch.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  ConvTranspose2dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(ConvTranspose2d);

struct ConvTranspose1dOptions {
  ConvTranspose1dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<1>, kernel_size);
  LOCUS_ARG(ExpandingArray<1>, stride) = 1;
  LOCUS_ARG(ExpandingArray<1>, padding) = 0;
  LOCUS_ARG(ExpandingArray<1>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_ARG(ExpandingArray<1>, dilation) = 1;
  LOCUS_PLACEMENT_ARGS;
};

/// F::conv_transpose1d as a layer: weight [in, out/groups, k] and bias [out], initialised as
/// PyTorch does; input [N, in, L] or [in, L].
class ConvTranspose1dImpl : public Cloneable<ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  std::string brief() const override;
  /// output_size (its last value is used) picks the length in place of options.output_padding.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  ConvTranspose1dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(ConvTranspose1d);

using MaxPool2dOptions = functional::MaxPool2dFuncOptions;
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  void reset() override {}
  MaxPool2dImpl(ExpandingArray<2> kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::max_pool2d(input, options); }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);  // pooling batch (stop 46)
  MaxPool2dOptions options;
};
LOCUS_MODULE(MaxPool2d);

using AvgPool2dOptions = functional::AvgPool2dFuncOptions;
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  void reset() override {}
  AvgPool2dImpl(ExpandingArray<2> kernel_size) : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::avg_pool2d(input, options); }
  AvgPool2dOptions options;
};
LOCUS_MODULE(AvgPool2d);

using MaxPool1dOptions = functional::MaxPool1dFuncOptions;
class MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  void reset() override {}
  MaxPool1dImpl(ExpandingArray<1> kernel_size) : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::max_pool1d(input, options); }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);  // pooling batch (stop 46)
  MaxPool1dOptions options;
};
LOCUS_MODULE(MaxPool1d);

using AvgPool1dOptions = functional::AvgPool1dFuncOptions;
class AvgPool1dImpl : public Cloneable<AvgPool1dImpl> {
 public:
  void reset() override {}
  AvgPool1dImpl(ExpandingArray<1> kernel_size) : AvgPool1dImpl(AvgPool1dOptions(kernel_size)) {}
  explicit AvgPool1dImpl(const AvgPool1dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::avg_pool1d(input, options); }
  AvgPool1dOptions options;
};
LOCUS_MODULE(AvgPool1d);

/// The adaptive pools: AdaptiveAvgPool2d, AdaptiveAvgPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool1d.
#define LOCUS_ADAPTIVE_POOL(Name, fn, D)                                                              \
  using Name##Options = functional::Name##FuncOptions;                                                \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    void reset() override {}                                                                          \
    Name##Impl(ExpandingArray<D> output_size) : options(output_size) {}                               \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void pretty_print(std::ostream& stream) const override;                                           \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); }                    \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)
LOCUS_ADAPTIVE_POOL(AdaptiveAvgPool2d, adaptive_avg_pool2d, 2);
LOCUS_ADAPTIVE_POOL(AdaptiveAvgPool1d, adaptive_avg_pool1d, 1);
// (AdaptiveMaxPool1d/2d/3d: locus/nn/modules/pooling_more.h, pooling batch (stop 46))
LOCUS_ADAPTIVE_POOL(AdaptiveAvgPool3d, adaptive_avg_pool3d, 3);
#undef LOCUS_ADAPTIVE_POOL

struct Conv3dOptions {
  Conv3dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<3>, kernel_size);
  LOCUS_ARG(ExpandingArray<3>, stride) = 1;
 public:
  using padding_t = ConvPadding<3>;  // sizes, or kValid / kSame
  LOCUS_ARG(padding_t, padding) = 0;

 public:
  /// kZeros, or F::pad's kReflect / kReplicate / kCircular (applied before the convolution).
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::PadMode>;
  LOCUS_ARG(padding_mode_t, padding_mode) = kZeros;
  LOCUS_ARG(ExpandingArray<3>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_PLACEMENT_ARGS;
};

/// weight [out, in/groups, kd, kh, kw] and bias [out], Kaiming-uniform as PyTorch; input
/// [N, in, D, H, W] or [in, D, H, W] (functional::conv3d).
class Conv3dImpl : public Cloneable<Conv3dImpl> {
 public:
  Conv3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv3dImpl(const Conv3dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Conv3dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(Conv3d);

using MaxPool3dOptions = functional::MaxPool3dFuncOptions;
class MaxPool3dImpl : public Cloneable<MaxPool3dImpl> {
 public:
  void reset() override {}
  MaxPool3dImpl(ExpandingArray<3> kernel_size) : MaxPool3dImpl(MaxPool3dOptions(kernel_size)) {}
  explicit MaxPool3dImpl(const MaxPool3dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::max_pool3d(input, options); }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);  // pooling batch (stop 46)
  MaxPool3dOptions options;
};
LOCUS_MODULE(MaxPool3d);

using AvgPool3dOptions = functional::AvgPool3dFuncOptions;
class AvgPool3dImpl : public Cloneable<AvgPool3dImpl> {
 public:
  void reset() override {}
  AvgPool3dImpl(ExpandingArray<3> kernel_size) : AvgPool3dImpl(AvgPool3dOptions(kernel_size)) {}
  explicit AvgPool3dImpl(const AvgPool3dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::avg_pool3d(input, options); }
  AvgPool3dOptions options;
};
LOCUS_MODULE(AvgPool3d);

}  // namespace locus::nn

// ---- pooling batch (stop 46) ----
#include "locus/nn/modules/pooling_more.h"
