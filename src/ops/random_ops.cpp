// The draws libtorch has beyond rand/randn/randint (include/locus/tensor.h's "more in-place
// draws", locus/factory.h): bernoulli, random_, exponential_, geometric_, log_normal_, cauchy_,
// multinomial, normal, poisson; and isclose. Each is made of locus's uniform and normal streams
// and elementwise ops, so it runs on every device and a seed gives the same numbers on each
// (poisson draws on the host, seeded from the same stream).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/generator.h"
#include "locus/tensor.h"
#include "ops/checks.h"

namespace locus {
namespace {


void check_defined(const Tensor& t, const char* op) {
  if (!t.defined()) throw Error(std::string("[") + op + "] the tensor is undefined.");
}

void check_float(const Tensor& t, const char* op) {
  check_defined(t, op);
  if (!t.is_floating_point())
    throw Error(std::string("[") + op + "] expects a floating-point tensor, got " + dtype_name(t.scalar_type()) +
                "; draw into a float tensor and convert.");
}

/// Uniform numbers in [0, 1) shaped as `t`, in float64 when t is (else float32), on t's device.
Tensor uniform_like(const Tensor& t) {
  return rand(t.sizes(), TensorOptions().device(t.device()).dtype(t.scalar_type() == kDouble ? kDouble : kFloat));
}

/// The largest integer the dtype holds exactly, as PyTorch's random_() bounds it.
int64_t dtype_top(ScalarType t) {
  switch (t) {
    case kFloat: return int64_t(1) << 24;
    case kDouble: return int64_t(1) << 53;
    case kHalf: return int64_t(1) << 11;
    case kBFloat16: return int64_t(1) << 8;
    case kBool: return 1;
    case kByte: return 255;
    case kChar: return 127;
    case kShort: return 32767;
    case kInt: return 2147483647;
    default: return INT64_MAX;
  }
}

}  // namespace

Tensor& Tensor::bernoulli_(double p, std::optional<Generator> g) const {
  check_defined(mut_self(), "bernoulli_");
  detail::GeneratorScope scope(g, device(), "bernoulli_");
  if (!(p >= 0 && p <= 1)) throw Error("[bernoulli_] expects 0 <= p <= 1, but got p=" + number_str(p) + ".");
  return copy_(uniform_like(mut_self()).lt(p));
}

Tensor& Tensor::bernoulli_(const Tensor& p, std::optional<Generator> g) const {
  check_defined(mut_self(), "bernoulli_");
  check_defined(p, "bernoulli_");
  detail::GeneratorScope scope(g, device(), "bernoulli_");
  check_same_device("bernoulli_", {{"self", this}, {"p", &p}});
  Tensor probs = p.to(kDouble);
  if (probs.numel() > 0 && (probs.lt(0).any().item<bool>() || probs.gt(1).any().item<bool>()))
    throw Error("[bernoulli_] expects every probability in p to be in [0, 1].");
  return copy_(rand(sizes(), TensorOptions().device(device()).dtype(kDouble)).lt(probs));
}

Tensor Tensor::bernoulli(std::optional<Generator> g) const {
  check_float(*this, "bernoulli");
  Tensor out = empty(sizes(), options());
  out.bernoulli_(detach(), std::move(g));
  return out;
}

Tensor Tensor::bernoulli(double p, std::optional<Generator> g) const {
  check_defined(*this, "bernoulli");
  Tensor out = empty(sizes(), options());
  return out.bernoulli_(p, std::move(g));
}

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> g) const {
  check_defined(mut_self(), "random_");
  detail::GeneratorScope scope(g, device(), "random_");
  const int64_t top = dtype_top(scalar_type());
  const int64_t hi = to ? *to : (top == INT64_MAX ? INT64_MAX : top + 1);
  if (from >= hi)
    throw Error("[random_] expects 'from' to be less than 'to', but got from=" + std::to_string(from) +
                " >= to=" + std::to_string(hi) + ".");
  const double range = static_cast<double>(hi) - static_cast<double>(from);
  if (range <= 9007199254740992.0) {  // 2^53: exact in double
    Tensor u = rand(sizes(), TensorOptions().device(device()).dtype(kDouble));
    return copy_((u * range).floor() + static_cast<double>(from));
  }
  // wider (int64 only): 63 random bits from two 32-bit draws, reduced into the range
  TensorOptions lo = TensorOptions().device(device()).dtype(kLong);
  Tensor bits = randint(0, int64_t(1) << 31, sizes(), lo) * (int64_t(1) << 32) + randint(0, int64_t(1) << 32, sizes(), lo);
  const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  if (width >= static_cast<uint64_t>(INT64_MAX)) return copy_(bits + from);  // random_(): all 63 bits
  // the modulus as an int64 tensor: a Scalar would pass through double and round above 2^53
  int64_t w = static_cast<int64_t>(width);
  Tensor r = bits.remainder(from_blob(&w, {1}, TensorOptions().dtype(kLong)).to(device()));
  return copy_(r + from);
}

Tensor& Tensor::random_(int64_t to, std::optional<Generator> g) const { return random_(0, to, std::move(g)); }
Tensor& Tensor::random_(std::optional<Generator> g) const { return random_(0, std::nullopt, std::move(g)); }

Tensor& Tensor::exponential_(double lambd, std::optional<Generator> g) const {
  check_float(mut_self(), "exponential_");
  detail::GeneratorScope scope(g, device(), "exponential_");
  if (!(lambd > 0)) throw Error("[exponential_] expects lambda > 0.0, but found lambda=" + number_str(lambd) + ".");
  // -log(1 - u) / lambda with u in [0, 1): finite and >= 0
  return copy_((uniform_like(mut_self()) * -1.0).log1p() * (-1.0 / lambd));
}

Tensor& Tensor::geometric_(double p, std::optional<Generator> g) const {
  check_defined(mut_self(), "geometric_");
  detail::GeneratorScope scope(g, device(), "geometric_");
  if (!(p > 0 && p < 1)) throw Error("[geometric_] expects p to be in (0, 1), but got p=" + number_str(p) + ".");
  // the number of trials to the first success: ceil(log(1 - u) / log(1 - p)), at least 1
  Tensor k = ((uniform_like(mut_self()) * -1.0).log1p() / std::log1p(-p)).ceil().clamp_min(1);
  return copy_(k);
}

Tensor& Tensor::log_normal_(double mean, double std, std::optional<Generator> g) const {
  check_float(mut_self(), "log_normal_");
  detail::GeneratorScope scope(g, device(), "log_normal_");
  if (!(std > 0)) throw Error("[log_normal_] expects std > 0.0, but found std=" + number_str(std) + ".");
  return copy_((randn(sizes(), TensorOptions().device(device()).dtype(kDouble)) * std + mean).exp());
}

Tensor& Tensor::cauchy_(double median, double sigma, std::optional<Generator> g) const {
  check_float(mut_self(), "cauchy_");
  detail::GeneratorScope scope(g, device(), "cauchy_");
  if (!(sigma > 0)) throw Error("[cauchy_] expects sigma > 0.0, but found sigma=" + number_str(sigma) + ".");
  Tensor a = (rand(sizes(), TensorOptions().device(device()).dtype(kDouble)) - 0.5) * std::numbers::pi;
  return copy_(a.sin() / a.cos() * sigma + median);  // median + sigma * tan(pi (u - 1/2))
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement, std::optional<Generator> g) const {
  check_defined(*this, "multinomial");
  detail::GeneratorScope scope(g, device(), "multinomial");
  if (dim() != 1 && dim() != 2)
    throw Error("[multinomial] prob_dist must be 1 or 2 dim, got " + std::to_string(dim()) + " dims " +
                shape_str(sizes()) + ".");
  if (!is_floating_point())
    throw Error(std::string("[multinomial] only supports floating-point dtypes for input, got ") +
                dtype_name(scalar_type()) + ".");
  if (num_samples <= 0) throw Error("[multinomial] cannot sample n_sample <= 0 samples (got " + std::to_string(num_samples) + ").");
  const int64_t n = size(-1);
  if (n == 0) throw Error("[multinomial] the distribution has no categories (its last dimension is 0).");
  if (!replacement && num_samples > n)
    throw Error("[multinomial] cannot sample n_sample > prob_dist.size(-1) samples without replacement (" +
                std::to_string(num_samples) + " > " + std::to_string(n) + "); pass replacement=true.");
  Tensor p = (dim() == 1 ? unsqueeze(0) : *this).detach().to(kDouble);  // [rows, n]
  const int64_t rows = p.size(0);
  if (rows > 0) {
    if (!p.isfinite().all().item<bool>() || p.lt(0).any().item<bool>())
      throw Error("[multinomial] probability tensor contains either inf, nan or element < 0.");
    Tensor nonzero = p.gt(0).sum({1});
    if (nonzero.eq(0).any().item<bool>()) throw Error("[multinomial] invalid multinomial distribution (sum of probabilities <= 0).");
    if (!replacement && nonzero.lt(num_samples).any().item<bool>())
      throw Error("[multinomial] invalid multinomial distribution (with replacement=False, not enough non-negative "
                  "category to sample).");
  }
  Tensor out;
  TensorOptions d = TensorOptions().device(device()).dtype(kDouble);
  if (replacement) {
    // category i where cdf[i-1] <= u < cdf[i]: the number of cdf entries <= u (zero-weight ones never win)
    Tensor cdf = p.cumsum(1);                                      // [rows, n]
    Tensor u = rand({rows, num_samples}, d) * cdf.select(1, n - 1).unsqueeze(1);  // [rows, s]
    out = searchsorted(cdf, u, /*out_int32=*/false, /*right=*/true).clamp_max(n - 1);
  } else {
    // Gumbel top-k: the k largest log(p) + Gumbel noise are k draws without replacement
    Tensor g = (rand({rows, n}, d).clamp_min(1e-300).log() * -1.0).log() * -1.0;
    out = std::get<1>((p.log() + g).topk(num_samples, 1, true, true));
  }
  out = out.to(kLong);
  return dim() == 1 ? out.squeeze(0) : out;
}

Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  check_defined(*this, "isclose");
  check_defined(other, "isclose");
  if (scalar_type() != other.scalar_type())
    throw Error(std::string("[isclose] ") + dtype_name(scalar_type()) + " did not match " +
                dtype_name(other.scalar_type()) + "; convert one of them first.");
  if (rtol < 0) throw Error("[isclose] rtol must be greater than or equal to zero, but got " + number_str(rtol) + ".");
  if (atol < 0) throw Error("[isclose] atol must be greater than or equal to zero, but got " + number_str(atol) + ".");
  if (scalar_type() == kBool || !is_floating_point()) {
    Tensor a = to(kDouble), b = other.to(kDouble);
    return (a - b).abs().le((b.abs() * rtol) + atol);
  }
  Tensor close = eq(other);  // infinities of one sign are equal
  Tensor finite = isfinite().logical_and(other.isfinite());
  Tensor within = (*this - other).abs().le((other.abs() * rtol) + atol).logical_and(finite);
  close = close.logical_or(within);
  if (equal_nan) close = close.logical_or(isnan().logical_and(other.isnan()));
  return close;
}

Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options) {
  if (!(std >= 0)) throw Error("[normal] expects std >= 0.0, but found std " + number_str(std) + ".");
  return randn(size, options) * std + mean;
}

Tensor normal(double mean, double std, IntArrayRef size, std::optional<Generator> g, const TensorOptions& options) {
  if (!(std >= 0)) throw Error("[normal] expects std >= 0.0, but found std " + number_str(std) + ".");
  return randn(size, std::move(g), options) * std + mean;
}

Tensor normal(const Tensor& mean, double std, std::optional<Generator> g) {
  check_float(mean, "normal");
  if (!(std >= 0)) throw Error("[normal] expects std >= 0.0, but found std " + number_str(std) + ".");
  detail::GeneratorScope scope(g, mean.device(), "normal");
  return randn(mean.sizes(), mean.options()) * std + mean.detach();
}

Tensor normal(double mean, const Tensor& std, std::optional<Generator> g) {
  check_float(std, "normal");
  if (std.numel() > 0 && std.lt(0).any().item<bool>()) throw Error("[normal] expects all elements of std >= 0.0.");
  detail::GeneratorScope scope(g, std.device(), "normal");
  return randn(std.sizes(), std.options()) * std.detach() + mean;
}

Tensor normal(const Tensor& mean, const Tensor& std, std::optional<Generator> g) {
  check_float(mean, "normal");
  check_float(std, "normal");
  check_same_device("normal", {{"mean", &mean}, {"std", &std}});
  if (std.numel() > 0 && std.lt(0).any().item<bool>()) throw Error("[normal] expects all elements of std >= 0.0.");
  Tensor m = mean.detach(), s = std.detach();
  Tensor shape = m + s;  // broadcast
  detail::GeneratorScope scope(g, shape.device(), "normal");
  return randn(shape.sizes(), shape.options()) * s + m;
}

Tensor bernoulli(const Tensor& p, std::optional<Generator> g) { return p.bernoulli(std::move(g)); }
Tensor bernoulli(const Tensor& self, double p, std::optional<Generator> g) { return self.bernoulli(p, std::move(g)); }
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, std::optional<Generator> g) {
  return self.multinomial(num_samples, replacement, std::move(g));
}
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return self.isclose(other, rtol, atol, equal_nan);
}

Tensor poisson(const Tensor& rates, std::optional<Generator> g) {
  check_float(rates, "poisson");
  detail::GeneratorScope scope(g, rates.device(), "poisson");
  Tensor r = rates.detach().to(kCPU).to(kDouble).contiguous();
  const double* v = r.data_ptr<double>();
  for (int64_t i = 0; i < r.numel(); ++i)
    if (!(v[i] >= 0) || !std::isfinite(v[i]))
      throw Error("[poisson] expects every rate to be finite and >= 0, got " + number_str(v[i]) + " at flat index " +
                  std::to_string(i) + ".");
  // one 64-bit seed from locus's stream, so manual_seed makes the draws repeatable
  Tensor s = randint(0, int64_t(1) << 32, {2}, TensorOptions().dtype(kLong));
  std::mt19937_64 gen((static_cast<uint64_t>(s[0].item<int64_t>()) << 32) ^ static_cast<uint64_t>(s[1].item<int64_t>()));
  Tensor out = empty(r.sizes(), TensorOptions().dtype(kDouble));
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < r.numel(); ++i)
    o[i] = v[i] == 0 ? 0.0 : static_cast<double>(std::poisson_distribution<int64_t>(v[i])(gen));
  return out.to(rates.scalar_type()).to(rates.device());
}

}  // namespace locus
