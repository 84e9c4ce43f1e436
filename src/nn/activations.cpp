// The activation functions of include/locus/nn/functional_activations.h and their modules'
// printing: each a few differentiable ops (where, clamp, exp, softmax), so every device runs them.
#include "locus/nn/functional_activations.h"

#include <ostream>
#include <string>

#include "autograd/record.h"
#include "nn/inplace.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/modules/activation.h"
#include "ops/checks.h"

namespace locus::nn {
namespace functional {
using detail::maybe_inplace;

Tensor relu6(const Tensor& input, const ReLU6FuncOptions& o) {
  return maybe_inplace("relu6", input, o.inplace(), [](const Tensor& x) { return x.clamp(0, 6); });
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& o) {
  return where(input.abs() > o.lambda(), input, 0.0);
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& o) {
  const double l = o.lambda();
  if (l < 0) throw Error("[softshrink] lambda must be greater or equal to 0, but found to be " + number_str(l) + ".");
  return where(input > l, input - l, where(input < -l, input + l, 0.0));
}

Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& o) {
  Tensor gumbels;
  {
    NoGradGuard no_grad;  // the noise is a constant of the sample
    gumbels = -empty_like(logits).exponential_().log();
  }
  Tensor y_soft = ((logits + gumbels) / o.tau()).softmax(o.dim());
  if (!o.hard()) return y_soft;
  Tensor index = std::get<1>(y_soft.max(o.dim(), true));
  Tensor y_hard = zeros_like(logits).scatter(o.dim(), index, 1.0);
  return y_hard - y_soft.detach() + y_soft;  // the one-hot forward, the soft sample's gradient
}

Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }

Tensor softsign(const Tensor& input) { return input / (input.abs() + 1); }

Tensor logsigmoid(const Tensor& input) { return input.clamp_max(0) - (-input.abs()).exp().log1p(); }

Tensor threshold(const Tensor& input, const ThresholdFuncOptions& o) {
  return maybe_inplace("threshold", input, o.inplace(),
                       [&](const Tensor& x) { return where(x > o.threshold(), x, o.value()); });
}

Tensor celu(const Tensor& input, const CELUFuncOptions& o) {
  const double a = o.alpha();
  if (a == 0) throw Error("[celu] alpha must not be zero (it divides x); use relu for the limit.");
  // exp of min(x, 0) / alpha: the branch where() drops stays finite
  return maybe_inplace("celu", input, o.inplace(),
                       [a](const Tensor& x) { return where(x > 0, x, ((x.clamp_max(0) / a).exp() - 1) * a); });
}

Tensor glu(const Tensor& input, const GLUFuncOptions& o) {
  if (input.dim() == 0) throw Error("[glu] glu does not support scalars because halving size must be even.");
  const int64_t d = o.dim() < 0 ? o.dim() + input.dim() : o.dim();
  if (d < 0 || d >= input.dim())
    throw Error("[glu] Dimension out of range (expected to be in range of [" + std::to_string(-input.dim()) + ", " +
                std::to_string(input.dim() - 1) + "], but got " + std::to_string(o.dim()) + ").");
  const int64_t n = input.size(d);
  if (n % 2 != 0)
    throw Error("[glu] Halving dimension must be even, but dimension " + std::to_string(d) + " is size " +
                std::to_string(n) + ".");
  return input.narrow(d, 0, n / 2) * input.narrow(d, n / 2, n / 2).sigmoid();
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& o) { return (-input).softmax(o.dim(), o.dtype()); }

Tensor rrelu(const Tensor& input, const RReLUFuncOptions& o) {
  const double lo = o.lower(), hi = o.upper();
  if (lo > hi)
    throw Error("[rrelu] lower bound (" + number_str(lo) + ") must not be above the upper bound (" + number_str(hi) + ").");
  return maybe_inplace("rrelu", input, o.inplace(), [&](const Tensor& x) {
    if (!o.training()) return where(x >= 0, x, x * ((lo + hi) / 2));
    const Tensor slope = empty(x.sizes(), x.options()).uniform_(lo, hi);
    return where(x >= 0, x, x * slope);
  });
}

Tensor hardsigmoid(const Tensor& input) { return (input + 3).clamp(0, 6) / 6; }
Tensor hardswish(const Tensor& input) { return input * (input + 3).clamp(0, 6) / 6; }

}  // namespace functional

Tensor Softmax2dImpl::forward(const Tensor& input) {
  if (input.dim() != 3 && input.dim() != 4)
    throw Error("[Softmax2d] expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got " + ops::shape_str(input.sizes()) +
                ".");
  return input.softmax(-3);
}

Tensor RReLUImpl::forward(const Tensor& input) {
  return functional::rrelu(input, functional::RReLUFuncOptions()
                                      .lower(options.lower())
                                      .upper(options.upper())
                                      .inplace(options.inplace())
                                      .training(is_training()));
}

void ReLU6Impl::pretty_print(std::ostream& s) const {
  s << "locus::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void HardshrinkImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Hardshrink(" << options.lambda() << ")"; }
void SoftshrinkImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Softshrink(" << options.lambda() << ")"; }
void TanhshrinkImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Tanhshrink()"; }
void SoftsignImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Softsign()"; }
void HardswishImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Hardswish()"; }
void HardsigmoidImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Hardsigmoid()"; }
void LogSigmoidImpl::pretty_print(std::ostream& s) const { s << "locus::nn::LogSigmoid()"; }
void ThresholdImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::CELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}
void GLUImpl::pretty_print(std::ostream& s) const { s << "locus::nn::GLU(dim=" << options.dim() << ")"; }
void SoftminImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Softmin(dim=" << options.dim() << ")"; }
void Softmax2dImpl::pretty_print(std::ostream& s) const { s << "locus::nn::Softmax2d()"; }
void RReLUImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}

}  // namespace locus::nn
