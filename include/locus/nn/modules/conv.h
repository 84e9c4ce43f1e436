#pragma once
// Conv2d (im2col + GEMM on the parameters' device), Conv1d (Conv2d over a height of 1),
// ConvTranspose2d (GEMM + col2im), MaxPool2d, AvgPool2d, AdaptiveAvgPool2d.
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
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
  LOCUS_ARG(ExpandingArray<2>, padding) = 0;
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
  LOCUS_ARG(ExpandingArray<1>, padding) = 0;
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

using MaxPool2dOptions = functional::MaxPool2dFuncOptions;
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  void reset() override {}
  MaxPool2dImpl(ExpandingArray<2> kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::max_pool2d(input, options); }
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

struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(ExpandingArray<2> output_size) : output_size_(output_size) {}
  LOCUS_ARG(ExpandingArray<2>, output_size);
};
class AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  void reset() override {}
  AdaptiveAvgPool2dImpl(ExpandingArray<2> output_size) : options(output_size) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::adaptive_avg_pool2d(input, options.output_size()); }
  AdaptiveAvgPool2dOptions options;
};
LOCUS_MODULE(AdaptiveAvgPool2d);

}  // namespace locus::nn
