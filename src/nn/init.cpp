// nn::init: fills drawn with locus::rand / randn on the tensor's own device.
#include "locus/nn/init.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& t) {
  auto [fi, fo] = calculate_fan_in_and_fan_out(t);
  return {fi, fo};
}

Tensor eye_(Tensor t) {
  check(t, "eye_");
  if (t.dim() != 2)
    throw Error("[eye_] Only tensors with 2 dimensions are supported, got " + std::to_string(t.dim()) + ".");
  NoGradGuard no_grad;
  return t.copy_(eye(t.size(0), t.size(1), like(t)));
}

Tensor dirac_(Tensor t) {
  check(t, "dirac_");
  if (t.dim() < 3 || t.dim() > 5)
    throw Error("[dirac_] Only tensors with 3, 4, or 5 dimensions are supported, got " + std::to_string(t.dim()) +
                ".");
  NoGradGuard no_grad;
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  std::vector<double> host(static_cast<size_t>(t.numel()), 0.0);
  const int64_t n = std::min(sizes[0], sizes[1]);
  for (int64_t d = 0; d < n; ++d) {
    int64_t at = d * sizes[1] + d;  // [d, d, centre...] in row-major order
    for (size_t k = 2; k < sizes.size(); ++k) at = at * sizes[k] + sizes[k] / 2;
    host[static_cast<size_t>(at)] = 1.0;
  }
  return t.copy_(tensor(host, TensorOptions().dtype(kDouble)).view(t.sizes()).to(like(t)));
}

namespace {
/// Q [rows, cols] (rows >= cols) of a Householder QR of a, with Q's columns times sign(R's diagonal).
std::vector<double> householder_q(std::vector<double> a, int64_t rows, int64_t cols) {
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * cols + j)]; };
  std::vector<std::vector<double>> vs;
  std::vector<double> rdiag(static_cast<size_t>(cols));
  for (int64_t k = 0; k < cols; ++k) {
    double norm = 0;
    for (int64_t i = k; i < rows; ++i) norm += A(i, k) * A(i, k);
    norm = std::sqrt(norm);
    const double alpha = A(k, k) > 0 ? -norm : norm;
    std::vector<double> v(static_cast<size_t>(rows), 0.0);
    for (int64_t i = k; i < rows; ++i) v[static_cast<size_t>(i)] = A(i, k);
    v[static_cast<size_t>(k)] -= alpha;
    double vn = 0;
    for (int64_t i = k; i < rows; ++i) vn += v[static_cast<size_t>(i)] * v[static_cast<size_t>(i)];
    if (vn > 0)
      for (int64_t j = k; j < cols; ++j) {
        double dot = 0;
        for (int64_t i = k; i < rows; ++i) dot += v[static_cast<size_t>(i)] * A(i, j);
        for (int64_t i = k; i < rows; ++i) A(i, j) -= 2 * dot / vn * v[static_cast<size_t>(i)];
      }
    rdiag[static_cast<size_t>(k)] = A(k, k);
    vs.push_back(std::move(v));
  }
  // Q = H_0 H_1 ... H_{cols-1} applied to the first cols columns of the identity
  std::vector<double> q(static_cast<size_t>(rows * cols), 0.0);
  auto Q = [&](int64_t i, int64_t j) -> double& { return q[static_cast<size_t>(i * cols + j)]; };
  for (int64_t j = 0; j < cols; ++j) Q(j, j) = 1;
  for (int64_t k = cols - 1; k >= 0; --k) {
    const auto& v = vs[static_cast<size_t>(k)];
    double vn = 0;
    for (int64_t i = k; i < rows; ++i) vn += v[static_cast<size_t>(i)] * v[static_cast<size_t>(i)];
    if (vn == 0) continue;
    for (int64_t j = 0; j < cols; ++j) {
      double dot = 0;
      for (int64_t i = k; i < rows; ++i) dot += v[static_cast<size_t>(i)] * Q(i, j);
      for (int64_t i = k; i < rows; ++i) Q(i, j) -= 2 * dot / vn * v[static_cast<size_t>(i)];
    }
  }
  for (int64_t j = 0; j < cols; ++j) {
    const double r = rdiag[static_cast<size_t>(j)];
    const double s = r > 0 ? 1.0 : r < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < rows; ++i) Q(i, j) *= s;
  }
  return q;
}
}  // namespace

Tensor orthogonal_(Tensor t, double gain) {
  check(t, "orthogonal_");
  if (t.dim() < 2)
    throw Error("[orthogonal_] Only tensors with 2 or more dimensions are supported, got " + std::to_string(t.dim()) +
                ".");
  NoGradGuard no_grad;
  const int64_t rows = t.size(0), cols = rows == 0 ? 0 : t.numel() / rows;
  if (t.numel() == 0) return t;
  // drawn on the tensor's device (the same numbers on every device), decomposed on the host in double
  Tensor flat = randn({rows, cols}, like(t)).to(Device(kCPU), kDouble);
  if (rows < cols) flat = flat.t();
  flat = flat.contiguous();
  const int64_t m = flat.size(0), n = flat.size(1);
  std::vector<double> q = householder_q(std::vector<double>(flat.data_ptr<double>(), flat.data_ptr<double>() + m * n),
                                        m, n);
  Tensor qt = tensor(q, TensorOptions().dtype(kDouble)).view({m, n});
  if (rows < cols) qt = qt.t();
  return t.copy_((qt * gain).reshape(t.sizes()).to(like(t)));
}

Tensor sparse_(Tensor t, double sparsity, double std) {
  check(t, "sparse_");
  if (t.dim() != 2)
    throw Error("[sparse_] Only tensors with 2 dimensions are supported, got " + std::to_string(t.dim()) + ".");
  NoGradGuard no_grad;
  const int64_t rows = t.size(0), cols = t.size(1);
  const auto num_zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  normal_(t, 0, std);
  for (int64_t c = 0; c < cols; ++c) {
    const Tensor zero_rows = randperm(rows, TensorOptions().dtype(kLong).device(t.device())).slice(0, 0, num_zeros);
    t.index_put_({zero_rows, c}, 0);
  }
  return t;
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
