#pragma once
// More of libtorch's activation functions (torch::nn::functional): relu6, hardshrink, softshrink,
// tanhshrink, softsign, logsigmoid, threshold, celu, glu, softmin, rrelu, hardswish, hardsigmoid,
// gumbel_softmax.
// Each is made of differentiable ops, so it runs and trains on every device.
#include <optional>

#include "locus/nn/functional.h"

namespace locus::nn::functional {

struct ReLU6FuncOptions {
  ReLU6FuncOptions(bool inplace = false) : inplace_(inplace) {}
  LOCUS_ARG(bool, inplace);
};
struct HardshrinkFuncOptions {
  HardshrinkFuncOptions(double lambda = 0.5) : lambda_(lambda) {}
  LOCUS_ARG(double, lambda);
};
struct SoftshrinkFuncOptions {
  SoftshrinkFuncOptions(double lambda = 0.5) : lambda_(lambda) {}
  LOCUS_ARG(double, lambda);
};
struct ThresholdFuncOptions {
  ThresholdFuncOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  LOCUS_ARG(double, threshold);
  LOCUS_ARG(double, value);
  LOCUS_ARG(bool, inplace) = false;
};
struct CELUFuncOptions {
  LOCUS_ARG(double, alpha) = 1.0;
  LOCUS_ARG(bool, inplace) = false;
};
struct GLUFuncOptions {
  GLUFuncOptions(int64_t dim = -1) : dim_(dim) {}
  LOCUS_ARG(int64_t, dim);
};
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}
  LOCUS_ARG(int64_t, dim);
  LOCUS_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
struct GumbelSoftmaxFuncOptions {
  LOCUS_ARG(double, tau) = 1.0;
  LOCUS_ARG(bool, hard) = false;
  LOCUS_ARG(int, dim) = -1;
};
struct RReLUFuncOptions {
  LOCUS_ARG(double, lower) = 1.0 / 8;
  LOCUS_ARG(double, upper) = 1.0 / 3;
  LOCUS_ARG(bool, training) = false;
  LOCUS_ARG(bool, inplace) = false;
};

/// min(max(x, 0), 6).
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});
/// x where |x| > lambda, else 0.
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
/// x - lambda above lambda, x + lambda below -lambda, else 0 (lambda >= 0).
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
/// softmax((logits + g) / tau) with g Gumbel(0, 1) noise (-log of exponential samples); `hard`
/// returns the one-hot of its argmax in the forward pass and the soft sample's gradient.
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
/// x - tanh(x).
Tensor tanhshrink(const Tensor& input);
/// x / (1 + |x|).
Tensor softsign(const Tensor& input);
/// log(sigmoid(x)), computed as min(x, 0) - log1p(exp(-|x|)) so that it never overflows.
Tensor logsigmoid(const Tensor& input);
/// x where x > threshold, else value.
Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options);
/// max(0, x) + min(0, alpha (exp(x / alpha) - 1)) (alpha != 0).
Tensor celu(const Tensor& input, const CELUFuncOptions& options = {});
/// a * sigmoid(b), a and b the two halves of input along dim (its size must be even).
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
/// softmax(-x) along dim.
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
/// Randomized leaky ReLU: when training each negative element is scaled by a slope drawn from
/// U(lower, upper); otherwise by (lower + upper) / 2.
Tensor rrelu(const Tensor& input, const RReLUFuncOptions& options = {});
/// x * relu6(x + 3) / 6 and relu6(x + 3) / 6 (PyTorch's hardswish and hardsigmoid).
Tensor hardswish(const Tensor& input);
Tensor hardsigmoid(const Tensor& input);

}  // namespace locus::nn::functional
