#pragma once
// ---- pooling batch (stop 46) ----
// The rest of libtorch's pooling and transposed-convolution functional API: max pooling with the
// positions of its maxima (*_with_indices, kLong, flattened per plane as PyTorch: d*H*W + h*W + w),
// max_unpool1d/2d/3d, adaptive_max_pool3d, conv_transpose3d, lp_pool1d/2d and
// fractional_max_pool2d/3d, as torch::nn::functional. All differentiable, on every device.
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "locus/nn/functional.h"
#include "locus/nn/functional_3d.h"

namespace locus {

/// Doubles given as one (`0.5`) or one per dim (`{0.5, 0.7}`), as libtorch's ExpandingArrayDouble.
template <size_t N>
class ExpandingArrayDouble {
 public:
  ExpandingArrayDouble(double v) { values_.fill(v); }
  ExpandingArrayDouble(std::initializer_list<double> l) {
    if (l.size() != N)
      throw Error("ExpandingArrayDouble: expected " + std::to_string(N) + " values, got " + std::to_string(l.size()) +
                  ".");
    std::copy(l.begin(), l.end(), values_.begin());
  }
  /// From a std::vector of N values (libtorch's takes any ArrayRef<double>).
  ExpandingArrayDouble(const std::vector<double>& v) {
    if (v.size() != N)
      throw Error("ExpandingArrayDouble: expected " + std::to_string(N) + " values, got " + std::to_string(v.size()) + ".");
    std::copy(v.begin(), v.end(), values_.begin());
  }
  double operator[](size_t i) const { return values_[i]; }
  size_t size() const { return N; }

 private:
  std::array<double, N> values_{};
};

}  // namespace locus

namespace locus::nn::functional {

using AdaptiveMaxPool3dFuncOptions = AdaptivePoolFuncOptions<3>;

/// The maxima and their positions in each input plane (kLong, as `return_indices=True`).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options);
/// Output cell i along a dim of size n covers [floor(i n / out), ceil((i + 1) n / out)).
Tensor adaptive_max_pool3d(const Tensor& input, ExpandingArray<3> output_size);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);

/// max_unpool's options: the pooling's kernel_size, stride (default kernel_size) and padding,
/// and optionally the output's size (the spatial sizes, or all of [N, C, ...]).
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<D>, kernel_size);
  LOCUS_ARG(ExpandingArray<D>, stride);
  LOCUS_ARG(ExpandingArray<D>, padding) = 0;
  LOCUS_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

/// The partial inverse of max pooling: each value of input goes to its position `indices` (from
/// max_pool*_with_indices) in a zero output plane. An index outside the output is an Error.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);

/// conv_transpose3d's options (libtorch's F::ConvTranspose3dFuncOptions).
struct ConvTranspose3dFuncOptions {
  LOCUS_ARG(Tensor, bias) = {};
  LOCUS_ARG(ExpandingArray<3>, stride) = 1;
  LOCUS_ARG(ExpandingArray<3>, padding) = 0;
  LOCUS_ARG(ExpandingArray<3>, output_padding) = 0;
  LOCUS_ARG(int64_t, groups) = 1;
  LOCUS_ARG(ExpandingArray<3>, dilation) = 1;
};
/// input [N, in, D, H, W] (or unbatched), weight [in, out/groups, kd, kh, kw] -> [N, out, D', H',
/// W'], D' = (D-1)*stride - 2*padding + dilation*(kd-1) + output_padding + 1 (and so on); computed
/// as one conv_transpose2d per kernel depth offset, placed along the depth.
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options = {});

/// lp_pool's options (libtorch's LPPool1dOptions / LPPool2dOptions).
template <size_t D>
struct LPPoolFuncOptions {
  LPPoolFuncOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  LOCUS_ARG(double, norm_type);
  LOCUS_ARG(ExpandingArray<D>, kernel_size);
  LOCUS_ARG(ExpandingArray<D>, stride);
  LOCUS_ARG(bool, ceil_mode) = false;
};
using LPPool1dFuncOptions = LPPoolFuncOptions<1>;
using LPPool2dFuncOptions = LPPoolFuncOptions<2>;
/// (sum over each window of x^p)^(1/p), composed from avg_pool as PyTorch.
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);

/// fractional_max_pool's options: kernel_size and either output_size or output_ratio;
/// _random_samples [N, C, D] in [0, 1) (drawn from locus's generator when undefined).
template <size_t D>
struct FractionalMaxPoolFuncOptions {
  FractionalMaxPoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}
  LOCUS_ARG(ExpandingArray<D>, kernel_size);
  LOCUS_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  LOCUS_ARG(std::optional<ExpandingArrayDouble<D>>, output_ratio) = std::nullopt;
  LOCUS_ARG(Tensor, _random_samples) = {};
};
using FractionalMaxPool2dFuncOptions = FractionalMaxPoolFuncOptions<2>;
using FractionalMaxPool3dFuncOptions = FractionalMaxPoolFuncOptions<3>;
/// Fractional max pooling (Graham, 2014) with PyTorch's interval sequence: along a dim of n with
/// output o, window i starts at floor((i + u) a) - floor(u a), a = (n - k) / (o - 1), and the last
/// at n - k, u the plane's random sample for that dim.
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options);

}  // namespace locus::nn::functional
