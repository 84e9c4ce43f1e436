#pragma once
// Volumes: conv3d, max_pool3d, avg_pool3d and adaptive_avg_pool3d over input [N, C, D, H, W] (or
// unbatched [C, D, H, W]), as libtorch's torch::nn::functional. Each runs as its 2-D counterpart
// once per kernel depth offset, on the depth slices that offset reads, combined by sum or max:
// differentiable, on every device.
#include <optional>

#include "locus/nn/functional.h"

namespace locus::nn::functional {

struct Conv3dFuncOptions {
  using padding_t = ConvPadding<3>;
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<3>, stride) = 1;
  LOCUS_ARG(padding_t, padding) = 0;
  LOCUS_ARG(ExpandingArray<3>, dilation) = 1;
  LOCUS_ARG(int64_t, groups) = 1;
};
struct MaxPool3dFuncOptions {
  MaxPool3dFuncOptions(ExpandingArray<3> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<3>, kernel_size);
  LOCUS_ARG(ExpandingArray<3>, stride);
  LOCUS_ARG(ExpandingArray<3>, padding) = 0;
  LOCUS_ARG(ExpandingArray<3>, dilation) = 1;
  LOCUS_ARG(bool, ceil_mode) = false;
};
struct AvgPool3dFuncOptions {
  AvgPool3dFuncOptions(ExpandingArray<3> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<3>, kernel_size);
  LOCUS_ARG(ExpandingArray<3>, stride);
  LOCUS_ARG(ExpandingArray<3>, padding) = 0;
  LOCUS_ARG(bool, ceil_mode) = false;
  LOCUS_ARG(bool, count_include_pad) = true;
  LOCUS_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AdaptiveAvgPool3dFuncOptions = AdaptivePoolFuncOptions<3>;

/// weight [out_channels, C/groups, kd, kh, kw] -> [N, out_channels, D', H', W'].
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});
/// As the 2-D pools, ceil_mode and count_include_pad included.
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
/// Output cell i along a dim of size n covers [floor(i n / out), ceil((i + 1) n / out)).
Tensor adaptive_avg_pool3d(const Tensor& input, ExpandingArray<3> output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);

}  // namespace locus::nn::functional
