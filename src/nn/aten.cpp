// libtorch's torch:: ATen functions (include/locus/aten.h): argument translation onto
// locus::nn::functional, which holds the one implementation of each.
#include "locus/aten.h"

#include <string>

#include "locus/error.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_3d.h"
#include "locus/nn/functional_activations.h"
#include "nn/inplace.h"
#include "ops/checks.h"

namespace locus {
namespace F = nn::functional;

namespace {

enumtype::Reduction reduction_of(int64_t r, const char* op) {
  switch (r) {
    case Reduction::None: return kNone;
    case Reduction::Mean: return kMean;
    case Reduction::Sum: return kSum;
    default:
      throw Error("[" + std::string(op) + "] reduction must be locus::Reduction::None, Mean or Sum (0, 1 or 2), got " +
                  std::to_string(r) + ".");
  }
}

// ATen's IntArrayRef window arguments: one value for both dims, or two.
ExpandingArray<2> pair(IntArrayRef a, const char* op, const char* name) {
  if (a.size() == 1) return ExpandingArray<2>(a[0]);
  if (a.size() == 2) return ExpandingArray<2>({a[0], a[1]});
  throw Error("[" + std::string(op) + "] " + name + " must have 1 or 2 values, got " + std::to_string(a.size()) + " (" +
              ops::shape_str(a) + ").");
}

// conv1d's: exactly one value.
ExpandingArray<1> single(IntArrayRef a, const char* op, const char* name) {
  if (a.size() == 1) return ExpandingArray<1>(a[0]);
  throw Error("[" + std::string(op) + "] " + name + " must have 1 value, got " + std::to_string(a.size()) + " (" +
              ops::shape_str(a) + ").");
}

Tensor value(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return F::linear(input, weight, value(bias));
}

Tensor dropout(const Tensor& input, double p, bool train) {
  return F::dropout(input, F::DropoutFuncOptions().p(p).training(train));
}

Tensor gelu(const Tensor& self, std::string_view approximate) {
  return F::gelu(self, F::GELUFuncOptions().approximate(std::string(approximate)));
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return F::conv2d(input, weight,
                   F::Conv2dFuncOptions()
                       .bias(value(bias))
                       .stride(pair(stride, "conv2d", "stride"))
                       .padding(pair(padding, "conv2d", "padding"))
                       .dilation(pair(dilation, "conv2d", "dilation"))
                       .groups(groups));
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return F::conv1d(input, weight,
                   F::Conv1dFuncOptions()
                       .bias(value(bias))
                       .stride(single(stride, "conv1d", "stride"))
                       .padding(single(padding, "conv1d", "padding"))
                       .dilation(single(dilation, "conv1d", "dilation"))
                       .groups(groups));
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return F::conv_transpose2d(input, weight,
                             F::ConvTranspose2dFuncOptions()
                                 .bias(value(bias))
                                 .stride(pair(stride, "conv_transpose2d", "stride"))
                                 .padding(pair(padding, "conv_transpose2d", "padding"))
                                 .output_padding(pair(output_padding, "conv_transpose2d", "output_padding"))
                                 .groups(groups)
                                 .dilation(pair(dilation, "conv_transpose2d", "dilation")));
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return F::conv_transpose1d(input, weight,
                             F::ConvTranspose1dFuncOptions()
                                 .bias(value(bias))
                                 .stride(single(stride, "conv_transpose1d", "stride"))
                                 .padding(single(padding, "conv_transpose1d", "padding"))
                                 .output_padding(single(output_padding, "conv_transpose1d", "output_padding"))
                                 .groups(groups)
                                 .dilation(single(dilation, "conv_transpose1d", "dilation")));
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  ExpandingArray<2> k = pair(kernel_size, "max_pool2d", "kernel_size");
  return F::max_pool2d(self, F::MaxPool2dFuncOptions(k)
                                 .stride(stride.empty() ? k : pair(stride, "max_pool2d", "stride"))
                                 .padding(pair(padding, "max_pool2d", "padding"))
                                 .dilation(pair(dilation, "max_pool2d", "dilation"))
                                 .ceil_mode(ceil_mode));
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  ExpandingArray<2> k = pair(kernel_size, "avg_pool2d", "kernel_size");
  return F::avg_pool2d(self, F::AvgPool2dFuncOptions(k)
                                 .stride(stride.empty() ? k : pair(stride, "avg_pool2d", "stride"))
                                 .padding(pair(padding, "avg_pool2d", "padding"))
                                 .ceil_mode(ceil_mode)
                                 .count_include_pad(count_include_pad)
                                 .divisor_override(divisor_override));
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_avg_pool2d(self, pair(output_size, "adaptive_avg_pool2d", "output_size"));
}

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  ExpandingArray<1> k = single(kernel_size, "max_pool1d", "kernel_size");
  return F::max_pool1d(self, F::MaxPool1dFuncOptions(k)
                                 .stride(stride.empty() ? k : single(stride, "max_pool1d", "stride"))
                                 .padding(single(padding, "max_pool1d", "padding"))
                                 .dilation(single(dilation, "max_pool1d", "dilation"))
                                 .ceil_mode(ceil_mode));
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  ExpandingArray<1> k = single(kernel_size, "avg_pool1d", "kernel_size");
  return F::avg_pool1d(self, F::AvgPool1dFuncOptions(k)
                                 .stride(stride.empty() ? k : single(stride, "avg_pool1d", "stride"))
                                 .padding(single(padding, "avg_pool1d", "padding"))
                                 .ceil_mode(ceil_mode)
                                 .count_include_pad(count_include_pad));
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_avg_pool1d(self, single(output_size, "adaptive_avg_pool1d", "output_size"));
}

namespace {
// A 3-D window argument: one value for all dims, or three.
ExpandingArray<3> triple(IntArrayRef a, const char* op, const char* name) {
  if (a.size() == 1) return ExpandingArray<3>(a[0]);
  if (a.size() == 3) return ExpandingArray<3>({a[0], a[1], a[2]});
  throw Error("[" + std::string(op) + "] " + name + " must have 1 or 3 values, got " + std::to_string(a.size()) + " (" +
              ops::shape_str(a) + ").");
}
}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return F::conv3d(input, weight,
                   F::Conv3dFuncOptions()
                       .bias(value(bias))
                       .stride(triple(stride, "conv3d", "stride"))
                       .padding(triple(padding, "conv3d", "padding"))
                       .dilation(triple(dilation, "conv3d", "dilation"))
                       .groups(groups));
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  const ExpandingArray<3> k = triple(kernel_size, "max_pool3d", "kernel_size");
  return F::max_pool3d(self, F::MaxPool3dFuncOptions(k)
                                 .stride(stride.empty() ? k : triple(stride, "max_pool3d", "stride"))
                                 .padding(triple(padding, "max_pool3d", "padding"))
                                 .dilation(triple(dilation, "max_pool3d", "dilation"))
                                 .ceil_mode(ceil_mode));
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const ExpandingArray<3> k = triple(kernel_size, "avg_pool3d", "kernel_size");
  return F::avg_pool3d(self, F::AvgPool3dFuncOptions(k)
                                 .stride(stride.empty() ? k : triple(stride, "avg_pool3d", "stride"))
                                 .padding(triple(padding, "avg_pool3d", "padding"))
                                 .ceil_mode(ceil_mode)
                                 .count_include_pad(count_include_pad)
                                 .divisor_override(divisor_override));
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_avg_pool3d(self, triple(output_size, "adaptive_avg_pool3d", "output_size"));
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  return F::batch_norm(input, value(running_mean), value(running_var),
                       F::BatchNormFuncOptions()
                           .weight(value(weight))
                           .bias(value(bias))
                           .training(training)
                           .momentum(momentum)
                           .eps(eps));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return F::layer_norm(input,
                       F::LayerNormFuncOptions(normalized_shape.vec()).weight(value(weight)).bias(value(bias)).eps(eps));
}

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  return F::pixel_shuffle(self, F::PixelShuffleFuncOptions(upscale_factor));
}
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  return F::pixel_unshuffle(self, F::PixelUnshuffleFuncOptions(downscale_factor));
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  return F::group_norm(input, F::GroupNormFuncOptions(num_groups).weight(value(weight)).bias(value(bias)).eps(eps));
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  F::EmbeddingFuncOptions options;
  options.scale_grad_by_freq(scale_grad_by_freq).sparse(sparse);
  if (padding_idx != -1) options.padding_idx(padding_idx);
  return F::embedding(indices, weight, options);
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  return F::nll_loss(self, target,
                     F::NLLLossFuncOptions()
                         .weight(value(weight))
                         .ignore_index(ignore_index)
                         .reduction(reduction_of(reduction, "nll_loss")));
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(self, target,
                          F::CrossEntropyFuncOptions()
                              .weight(value(weight))
                              .ignore_index(ignore_index)
                              .reduction(reduction_of(reduction, "cross_entropy_loss"))
                              .label_smoothing(label_smoothing));
}

Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  return F::kl_div(self, target, F::KLDivFuncOptions(reduction_of(reduction, "kl_div")).log_target(log_target));
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::mse_loss(self, target, F::MSELossFuncOptions(reduction_of(reduction, "mse_loss")));
}

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  return F::binary_cross_entropy(
      self, target,
      F::BinaryCrossEntropyFuncOptions().weight(value(weight)).reduction(reduction_of(reduction, "binary_cross_entropy")));
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return F::l1_loss(self, target, F::L1LossFuncOptions(reduction_of(reduction, "l1_loss")));
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  return F::smooth_l1_loss(self, target, F::SmoothL1LossFuncOptions(reduction_of(reduction, "smooth_l1_loss")).beta(beta));
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  return F::huber_loss(self, target, F::HuberLossFuncOptions(reduction_of(reduction, "huber_loss")).delta(delta));
}

Tensor silu(const Tensor& self) { return F::silu(self); }
Tensor mish(const Tensor& self) { return F::mish(self); }
Tensor softplus(const Tensor& self, double beta, double threshold) {
  return F::softplus(self, F::SoftplusFuncOptions().beta(beta).threshold(threshold));
}
Tensor hardtanh(const Tensor& self, double min_val, double max_val) {
  return F::hardtanh(self, F::HardtanhFuncOptions().min_val(min_val).max_val(max_val));
}
Tensor hardswish(const Tensor& self) { return F::hardswish(self); }
Tensor hardsigmoid(const Tensor& self) { return F::hardsigmoid(self); }
Tensor log_sigmoid(const Tensor& self) { return F::logsigmoid(self); }
Tensor glu(const Tensor& self, int64_t dim) { return F::glu(self, dim); }
Tensor celu(const Tensor& self, double alpha) { return F::celu(self, F::CELUFuncOptions().alpha(alpha)); }
Tensor threshold(const Tensor& self, double threshold, double value) {
  return F::threshold(self, F::ThresholdFuncOptions(threshold, value));
}
Tensor hardshrink(const Tensor& self, double lambd) { return F::hardshrink(self, lambd); }
Tensor softshrink(const Tensor& self, double lambd) { return F::softshrink(self, lambd); }
Tensor prelu(const Tensor& self, const Tensor& weight) { return F::prelu(self, weight); }

namespace {
Tensor scaled_elu(const Tensor& x, double alpha, double scale, double input_scale) {
  if (scale == 1.0 && input_scale == 1.0) return F::elu(x, F::ELUFuncOptions().alpha(alpha));
  // exp of min(x, 0): the branch where() drops stays finite (as F::elu)
  return where(x > 0, x * scale, ((x.clamp_max(0) * input_scale).exp() - 1) * (alpha * scale));
}
Tensor& written(Tensor& self, const Tensor& r) {
  if (!r.is_same(self)) self.copy_(r);
  return self;
}
}  // namespace
Tensor leaky_relu(const Tensor& self, double negative_slope) {
  return F::leaky_relu(self, F::LeakyReLUFuncOptions().negative_slope(negative_slope));
}
Tensor elu(const Tensor& self, double alpha, double scale, double input_scale) {
  return scaled_elu(self, alpha, scale, input_scale);
}
Tensor selu(const Tensor& self) { return F::selu(self); }
Tensor relu6(const Tensor& self) { return F::relu6(self); }
Tensor rrelu(const Tensor& self, double lower, double upper, bool training) {
  return F::rrelu(self, F::RReLUFuncOptions().lower(lower).upper(upper).training(training));
}
Tensor& leaky_relu_(Tensor& self, double negative_slope) {
  return written(self, F::leaky_relu(self, F::LeakyReLUFuncOptions().negative_slope(negative_slope).inplace(true)));
}
Tensor& elu_(Tensor& self, double alpha, double scale, double input_scale) {
  return written(self, nn::detail::maybe_inplace("elu_", self, true, [&](const Tensor& x) {
                   return scaled_elu(x, alpha, scale, input_scale);
                 }));
}
Tensor& selu_(Tensor& self) { return written(self, F::selu(self, F::SELUFuncOptions(true))); }
Tensor& celu_(Tensor& self, double alpha) {
  return written(self, F::celu(self, F::CELUFuncOptions().alpha(alpha).inplace(true)));
}
Tensor& hardtanh_(Tensor& self, double min_val, double max_val) {
  return written(self, F::hardtanh(self, F::HardtanhFuncOptions().min_val(min_val).max_val(max_val).inplace(true)));
}
Tensor& rrelu_(Tensor& self, double lower, double upper, bool training) {
  return written(self, F::rrelu(self, F::RReLUFuncOptions().lower(lower).upper(upper).training(training).inplace(true)));
}

Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  return F::binary_cross_entropy_with_logits(
      self, target,
      F::BinaryCrossEntropyWithLogitsFuncOptions()
          .weight(value(weight))
          .pos_weight(value(pos_weight))
          .reduction(reduction_of(reduction, "binary_cross_entropy_with_logits")));
}

}  // namespace locus
