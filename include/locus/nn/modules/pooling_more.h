#pragma once
// ---- pooling batch (stop 46) ----
// AdaptiveMaxPool1d/2d/3d (with forward_with_indices), MaxUnpool1d/2d/3d, ConvTranspose3d,
// LPPool1d/2d and FractionalMaxPool2d/3d, as libtorch's modules (functional forms in
// locus/nn/functional_pooling.h). Included from locus/nn/modules/conv.h.
#include <optional>
#include <tuple>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/functional_pooling.h"
#include "locus/nn/module.h"

namespace locus::nn {

#define LOCUS_ADAPTIVE_MAX_POOL(Name, fn, D)                                                          \
  using Name##Options = functional::Name##FuncOptions;                                                \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    void reset() override {}                                                                          \
    Name##Impl(ExpandingArray<D> output_size) : options(output_size) {}                               \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void pretty_print(std::ostream& stream) const override;                                           \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); }                    \
    /** The maxima and their positions in each input plane (kLong). */                                \
    std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {                            \
      return functional::fn##_with_indices(input, options);                                           \
    }                                                                                                 \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)
LOCUS_ADAPTIVE_MAX_POOL(AdaptiveMaxPool1d, adaptive_max_pool1d, 1);
LOCUS_ADAPTIVE_MAX_POOL(AdaptiveMaxPool2d, adaptive_max_pool2d, 2);
LOCUS_ADAPTIVE_MAX_POOL(AdaptiveMaxPool3d, adaptive_max_pool3d, 3);
#undef LOCUS_ADAPTIVE_MAX_POOL

/// libtorch's MaxUnpoolOptions<D>: the pooling's kernel_size, stride (default kernel_size), padding.
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<D>, kernel_size);
  LOCUS_ARG(ExpandingArray<D>, stride);
  LOCUS_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

#define LOCUS_MAX_UNPOOL(Name, fn, D)                                                                 \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    void reset() override {}                                                                          \
    Name##Impl(ExpandingArray<D> kernel_size) : options(kernel_size) {}                               \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void pretty_print(std::ostream& stream) const override;                                           \
    /** output_size: the spatial sizes, or all of [N, C, ...]; by default the pool's input size. */   \
    Tensor forward(const Tensor& input, const Tensor& indices,                                        \
                   const std::optional<std::vector<int64_t>>& output_size = std::nullopt) {           \
      return functional::fn(input, indices,                                                           \
                            functional::MaxUnpoolFuncOptions<D>(options.kernel_size())                \
                                .stride(options.stride())                                             \
                                .padding(options.padding())                                           \
                                .output_size(output_size));                                           \
    }                                                                                                 \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)
LOCUS_MAX_UNPOOL(MaxUnpool1d, max_unpool1d, 1);
LOCUS_MAX_UNPOOL(MaxUnpool2d, max_unpool2d, 2);
LOCUS_MAX_UNPOOL(MaxUnpool3d, max_unpool3d, 3);
#undef LOCUS_MAX_UNPOOL

struct ConvTranspose3dOptions {
  ConvTranspose3dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  LOCUS_ARG(int64_t, in_channels);
  LOCUS_ARG(int64_t, out_channels);
  LOCUS_ARG(ExpandingArray<3>, kernel_size);
  LOCUS_ARG(ExpandingArray<3>, stride) = 1;
  LOCUS_ARG(ExpandingArray<3>, padding) = 0;
  LOCUS_ARG(ExpandingArray<3>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(bool, bias) = true;
  LOCUS_ARG(ExpandingArray<3>, dilation) = 1;
  LOCUS_PLACEMENT_ARGS;
};

/// F::conv_transpose3d as a layer: weight [in, out/groups, kd, kh, kw] and bias [out],
/// initialised as PyTorch does; input [N, in, D, H, W] or [in, D, H, W].
class ConvTranspose3dImpl : public Cloneable<ConvTranspose3dImpl> {
 public:
  ConvTranspose3dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(const ConvTranspose3dOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// output_size (its last three values are used) picks among the sizes a strided layer can give
  /// in place of options.output_padding, as in libtorch.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  ConvTranspose3dOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(ConvTranspose3d);

template <size_t D>
using LPPoolOptions = functional::LPPoolFuncOptions<D>;
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

#define LOCUS_LP_POOL(Name, fn, D)                                                                    \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    void reset() override {}                                                                          \
    Name##Impl(double norm_type, ExpandingArray<D> kernel_size)                                       \
        : Name##Impl(Name##Options(norm_type, kernel_size)) {}                                        \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void pretty_print(std::ostream& stream) const override;                                           \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); }                    \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)
LOCUS_LP_POOL(LPPool1d, lp_pool1d, 1);
LOCUS_LP_POOL(LPPool2d, lp_pool2d, 2);
#undef LOCUS_LP_POOL

template <size_t D>
using FractionalMaxPoolOptions = functional::FractionalMaxPoolFuncOptions<D>;
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

/// options._random_samples (when defined) is registered as the buffer "_random_samples".
#define LOCUS_FRACTIONAL_MAX_POOL(Name, fn, D)                                                        \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    Name##Impl(ExpandingArray<D> kernel_size) : Name##Impl(Name##Options(kernel_size)) {}             \
    explicit Name##Impl(const Name##Options& options);                                                \
    void reset() override;                                                                            \
    void pretty_print(std::ostream& stream) const override;                                           \
    Tensor forward(const Tensor& input);                                                              \
    std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);                             \
    Name##Options options;                                                                            \
    Tensor _random_samples;                                                                           \
  };                                                                                                  \
  LOCUS_MODULE(Name)
LOCUS_FRACTIONAL_MAX_POOL(FractionalMaxPool2d, fractional_max_pool2d, 2);
LOCUS_FRACTIONAL_MAX_POOL(FractionalMaxPool3d, fractional_max_pool3d, 3);
#undef LOCUS_FRACTIONAL_MAX_POOL

}  // namespace locus::nn
