// nn::utils: gradient clipping. Each gradient's norm is computed on its own device; only the
// per-tensor norms (scalars) come to the host.
#include "locus/nn/utils.h"

#include <cmath>
#include <limits>

#include "locus/autograd.h"
#include "core/checks.h"
#include "locus/error.h"
#include "locus/functions.h"

namespace locus::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  double total = 0;
  bool inf = std::isinf(norm_type);
  for (const Tensor& g : grads) {
    Tensor a = g.abs().to(kDouble);
    if (inf) total = std::max(total, a.max().item<double>());
    else total += a.pow(norm_type).sum().item<double>();
  }
  if (!inf) total = std::pow(total, 1.0 / norm_type);
  if (error_if_nonfinite && !std::isfinite(total))
    throw Error("[clip_grad_norm_] The total norm of order " + std::to_string(norm_type) +
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=false`");
  double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (const Tensor& p : parameters)
      if (p.grad().defined()) const_cast<Tensor&>(p.grad()).mul_(coef);
  return total;
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.grad().defined()) const_cast<Tensor&>(p.grad()).clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  if (flat.empty()) throw Error("[parameters_to_vector] expected at least one parameter.");
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  if (vec.dim() != 1 || vec.numel() != total)
    throw Error("[vector_to_parameters] expected a 1-D tensor of " + std::to_string(total) + " elements, got shape " +
                shape_str(vec.sizes()) + ".");
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    Tensor(p).copy_(vec.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace locus::nn::utils
