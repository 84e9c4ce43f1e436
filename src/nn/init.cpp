// nn::init: fills drawn with locus::rand / randn on the tensor's own device.
#include "locus/nn/init.h"

#include <cmath>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/nn/functional.h"

namespace locus::nn::init {
namespace {
TensorOptions like(const Tensor& t) { return TensorOptions().dtype(t.scalar_type()).device(t.device()); }
void check(const Tensor& t, const char* op) {
  if (!t.defined()) throw Error("[" + std::string(op) + "] the tensor is undefined.");
}
}  // namespace

NonlinearityType::NonlinearityType(enumtype::InterpolateMode mode) : value_(Nonlinearity::Linear) {
  if (mode != enumtype::InterpolateMode::Linear)
    throw Error("[calculate_gain] an interpolation mode other than kLinear is not a nonlinearity; pass torch::kLinear, "
                "kSigmoid, kTanh, kReLU, kLeakyReLU or a kConv/kConvTranspose tag.");
}

double calculate_gain(NonlinearityType nonlinearity, double param) {
  switch (nonlinearity.value()) {
    case Nonlinearity::Tanh: return 5.0 / 3;
    case Nonlinearity::ReLU: return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU: return std::sqrt(2.0 / (1 + param * param));
    default: return 1.0;
  }
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  check(t, "calculate_fan_in_and_fan_out");
  if (t.dim() < 2)
    throw Error("[calculate_fan_in_and_fan_out] Fan in and fan out can not be computed for tensor with fewer than 2 "
                "dimensions (got " + std::to_string(t.dim()) + ").");
  int64_t receptive = 1;
  for (int64_t i = 2; i < t.dim(); ++i) receptive *= t.size(i);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor uniform_(Tensor t, double low, double high) {
  check(t, "uniform_");
  NoGradGuard no_grad;
  return t.copy_(rand(t.sizes(), like(t)) * (high - low) + low);
}
Tensor normal_(Tensor t, double mean, double std) {
  check(t, "normal_");
  NoGradGuard no_grad;
  return t.copy_(randn(t.sizes(), like(t)) * std + mean);
}
Tensor constant_(Tensor t, double value) {
  check(t, "constant_");
  NoGradGuard no_grad;
  return t.fill_(value);
}
Tensor zeros_(Tensor t) { return constant_(std::move(t), 0); }
Tensor ones_(Tensor t) { return constant_(std::move(t), 1); }

Tensor xavier_uniform_(Tensor t, double gain) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  double a = gain * std::sqrt(6.0 / static_cast<double>(fi + fo));
  return uniform_(std::move(t), -a, a);
}
Tensor xavier_normal_(Tensor t, double gain) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  return normal_(std::move(t), 0, gain * std::sqrt(2.0 / static_cast<double>(fi + fo)));
}

namespace {
double kaiming_std(const Tensor& t, double a, FanMode mode, NonlinearityType n) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  int64_t fan = mode == FanMode::FanIn ? fi : fo;
  if (fan == 0) return 0;
  return calculate_gain(n, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor kaiming_uniform_(Tensor t, double a, FanMode mode, NonlinearityType n) {
  double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, n);
  return uniform_(std::move(t), -bound, bound);
}
Tensor kaiming_normal_(Tensor t, double a, FanMode mode, NonlinearityType n) {
  return normal_(std::move(t), 0, kaiming_std(t, a, mode, n));
}

}  // namespace locus::nn::init
