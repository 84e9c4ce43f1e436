#pragma once
// The ATen functions libtorch exposes directly in torch:: (torch::nll_loss, torch::conv2d, ...),
// with ATen's argument order and defaults (libtorch 1.13's ATen/Functions.h): losses take the
// reduction as an int64_t (locus::Reduction::Mean, as at::Reduction::Mean), optional tensors as
// std::optional<Tensor> (pass a Tensor, {} or std::nullopt), window sizes as IntArrayRef (`2` or
// `{2, 3}`). Each computes exactly what its locus::nn::functional counterpart does, on the device
// of its inputs, and is differentiable. Bad arguments throw locus::Error naming the function.
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>

#include "locus/tensor.h"

namespace locus {

/// at::Reduction: the loss reductions as integers (None 0, Mean 1, Sum 2).
namespace Reduction {
enum Reduction : int64_t { None, Mean, Sum, END };
}

// ---- activations and layers ----------------------------------------------------------------
/// input @ weight^T + bias.
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {});
/// Zeroes elements with probability p and scales the rest by 1/(1-p) when `train`.
Tensor dropout(const Tensor& input, double p, bool train);
/// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                        int64_t groups = 1, IntArrayRef dilation = 1);
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                        int64_t groups = 1, IntArrayRef dilation = 1);
/// An empty stride means the kernel size.
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
/// divisor_override divides each window's sum by that number instead of the window size.
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
/// The 1-D forms over input [N, C, L] or [C, L]; an empty stride means the kernel size.
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
/// The 3-D forms over input [N, C, D, H, W] or [C, D, H, W]; window arguments one value or three.
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
/// cudnn_enabled is accepted and ignored.
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled);
/// cudnn_enable is accepted and ignored.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight = {},
                  const std::optional<Tensor>& bias = {}, double eps = 1e-05, bool cudnn_enable = true);
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
/// cudnn_enabled is accepted and ignored.
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight = {},
                  const std::optional<Tensor>& bias = {}, double eps = 1e-05, bool cudnn_enabled = true);
/// ATen's order: weight first. padding_idx -1 means none (ATen's convention); scale_grad_by_freq
/// and sparse gradients are not supported (an error when true).
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1, bool scale_grad_by_freq = false,
                 bool sparse = false);

// ---- losses (reduction: Reduction::None, Mean or Sum) -----------------------------------------
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// log_softmax + nll_loss over dim 1 (torch::cross_entropy_loss; F::cross_entropy).
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean, bool log_target = false);
/// self holds probabilities in [0, 1]; each log is clamped at -100, as PyTorch does.
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = {},
                            int64_t reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight = {},
                                        const std::optional<Tensor>& pos_weight = {},
                                        int64_t reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean, double beta = 1.0);
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean, double delta = 1.0);
// ---- loss batch (stop 46) ----
/// F::ctc_loss in ATen's spelling (torch::ctc_loss): the lengths as integer lists or tensors.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank = 0, int64_t reduction = Reduction::Mean, bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, int64_t reduction = Reduction::Mean,
                bool zero_infinity = false);
/// ATen's channel shuffle of input [N, C, *] (C divisible by groups): channel g * (C / groups) + i
/// moves to i * groups + g. (libtorch 1.13 has torch::channel_shuffle but no nn::ChannelShuffle.)
Tensor channel_shuffle(const Tensor& self, int64_t groups);
// ---- end loss batch (stop 46) ----

// ---- more activations ------------------------------------------------------------------------
Tensor silu(const Tensor& self);
Tensor mish(const Tensor& self);
Tensor softplus(const Tensor& self, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& self, double min_val = -1.0, double max_val = 1.0);
/// The activations of nn/functional_activations.h in ATen's spelling.
Tensor hardswish(const Tensor& self);
Tensor hardsigmoid(const Tensor& self);
Tensor log_sigmoid(const Tensor& self);
Tensor glu(const Tensor& self, int64_t dim = -1);
Tensor celu(const Tensor& self, double alpha = 1.0);
Tensor threshold(const Tensor& self, double threshold, double value);
Tensor hardshrink(const Tensor& self, double lambd = 0.5);
Tensor softshrink(const Tensor& self, double lambd = 0.5);
Tensor prelu(const Tensor& self, const Tensor& weight);
/// x where x > 0, else negative_slope * x.
Tensor leaky_relu(const Tensor& self, double negative_slope = 0.01);
/// scale * x where x > 0, else scale * alpha * (exp(input_scale * x) - 1).
Tensor elu(const Tensor& self, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor selu(const Tensor& self);
/// min(max(x, 0), 6).
Tensor relu6(const Tensor& self);
/// Randomized leaky relu: a slope drawn from U(lower, upper) per element in training, else their mean.
Tensor rrelu(const Tensor& self, double lower = 0.125, double upper = 1.0 / 3.0, bool training = false);
/// In place: self overwritten and returned (recorded by autograd on tensors of the graph).
Tensor& leaky_relu_(Tensor& self, double negative_slope = 0.01);
Tensor& elu_(Tensor& self, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor& selu_(Tensor& self);
Tensor& celu_(Tensor& self, double alpha = 1.0);
Tensor& hardtanh_(Tensor& self, double min_val = -1.0, double max_val = 1.0);
Tensor& rrelu_(Tensor& self, double lower = 0.125, double upper = 1.0 / 3.0, bool training = false);
/// at::size(t, dim) (torch::size): t.size(dim).
inline int64_t size(const Tensor& self, int64_t dim) { return self.size(dim); }
/// at::_unsafe_view: self reshaped (libtorch's skips the view's autograd bookkeeping; this one keeps it).
inline Tensor _unsafe_view(const Tensor& self, IntArrayRef size) { return self.reshape(size); }

// ---- pooling batch (stop 46) -----------------------------------------------------------------
/// The maxima and their positions in each input plane (kLong); an empty stride means the kernel size.
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
/// As ATen's: the maxima and their positions.
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size);
/// output_size: exactly the output's spatial sizes (stride and padding are only checked).
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding);
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,
                        int64_t groups = 1, IntArrayRef dilation = 1);
/// random_samples [N, C, 2] (or 3) in [0, 1); drawn from locus's generator when undefined.
std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
// ---- end pooling batch (stop 46) -------------------------------------------------------------

}  // namespace locus
