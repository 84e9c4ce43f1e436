// torch::special (locus/special.h) and the ATen names built on it (mvlgamma, igamma, igammac, i0,
// polygamma for n >= 2). Composed functions use differentiable ops on the tensor's device; the
// others are evaluated in float64 on a host copy (the standard series, asymptotic expansions and
// continued fractions below, or the C++17 special functions of libstdc++) and copied back.
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>

#include "autograd/record.h"
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/special.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = 1.1102230246251565e-16;

// ---- float64 evaluations ----------------------------------------------------------------------

// e^-|x| I_nu(|x|) for nu = 0, 1 from the large-argument expansion (|x| >= 700, where I overflows):
// 1 / sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k x^k).
double scaled_bessel_i_asymptotic(int nu, double x) {
  double sum = 1, term = 1;
  for (int k = 1; k < 30; ++k) {
    const double f = (4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    term *= -f;
    sum += term;
    if (std::fabs(term) < kEps * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2 * std::numbers::pi * x);
}
double bessel_i0(double x) { return std::isnan(x) ? x : std::cyl_bessel_i(0.0, std::fabs(x)); }
double bessel_i1(double x) {
  if (std::isnan(x)) return x;
  const double r = std::cyl_bessel_i(1.0, std::fabs(x));
  return x < 0 ? -r : r;
}
double bessel_i0e(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  return a < 700 ? std::exp(-a) * std::cyl_bessel_i(0.0, a) : scaled_bessel_i_asymptotic(0, a);
}
double bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  const double r = a < 700 ? std::exp(-a) * std::cyl_bessel_i(1.0, a) : scaled_bessel_i_asymptotic(1, a);
  return x < 0 ? -r : r;
}
// e^x K_nu(x), with K's large-argument expansion where e^x overflows.
double scaled_bessel_k(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return kInf;
  if (x < 700) return std::exp(x) * std::cyl_bessel_k(static_cast<double>(nu), x);
  double sum = 1, term = 1;
  for (int k = 1; k < 30; ++k) {
    term *= (4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    sum += term;
    if (std::fabs(term) < kEps * std::fabs(sum)) break;
  }
  return sum * std::sqrt(std::numbers::pi / (2 * x));
}

// exp(x^2) erfc(x): directly while erfc does not underflow, else its continued fraction
// erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))).
double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 25) return std::exp(x * x) * std::erfc(x);
  double t = x;
  for (int k = 60; k >= 1; --k) t = x + (k / 2.0) / t;
  return 1.0 / (std::sqrt(std::numbers::pi) * t);
}

// The Hurwitz zeta function sum_{k >= 0} (q + k)^-x, by Euler-Maclaurin summation: the first
// terms directly, then the integral of the tail and its Bernoulli-number corrections.
double hurwitz_zeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;  // (q + k)^-x of a negative base
  }
  // (2j)! / B_2j for j = 1..12
  static const double kFactorialOverBernoulli[] = {
      12.0,          -720.0,          30240.0,          -1209600.0,       47900160.0,      -1.8924375803183791606e9,
      7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
      1.8152105401943546773e17, -7.1661652561756670113e18};
  double s = std::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < kEps) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  double rising = 1.0, k = 0.0;
  for (double c : kFactorialOverBernoulli) {
    rising *= x + k;
    b /= w;
    const double t = rising * b / c;
    s += t;
    if (std::fabs(t / s) < kEps) break;
    k += 1.0;
    rising *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

double polygamma_n(int64_t n, double x) {
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * std::tgamma(static_cast<double>(n) + 1) * hurwitz_zeta(static_cast<double>(n) + 1, x);
}

// The regularized incomplete gamma functions: the series of P for x < a + 1, else the continued
// fraction of Q (modified Lentz).
double gamma_prefactor(double a, double x) { return std::exp(-x + a * std::log(x) - std::lgamma(a)); }
double igam_series(double a, double x) {
  double ap = a, sum = 1.0 / a, term = sum;
  for (int i = 0; i < 10000; ++i) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  return sum * gamma_prefactor(a, x);
}
double igamc_fraction(double a, double x) {
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return gamma_prefactor(a, x) * h;
}
double gammainc(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 0.0;
  if (std::isinf(x)) return 1.0;
  return x < a + 1 ? igam_series(a, x) : 1.0 - igamc_fraction(a, x);
}
double gammaincc(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1.0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : 1.0;
  if (std::isinf(x)) return 0.0;
  return x < a + 1 ? 1.0 - igam_series(a, x) : igamc_fraction(a, x);
}

double bessel_j(int nu, double x) {
  if (std::isnan(x)) return x;
  const double r = std::cyl_bessel_j(static_cast<double>(nu), std::fabs(x));
  return (nu == 1 && x < 0) ? -r : r;
}
double bessel_y(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return -kInf;
  return std::cyl_neumann(static_cast<double>(nu), x);
}
double bessel_k(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return kNaN;
  if (x == 0) return kInf;
  return std::cyl_bessel_k(static_cast<double>(nu), x);
}

// ---- orthogonal polynomials of integer degree (three-term recurrences) -------------------------
enum class Poly { T, U, V, W, H, He, L, P };
double polynomial(Poly kind, double x, double nd) {
  if (std::isnan(x) || std::isnan(nd)) return kNaN;
  const int64_t n = static_cast<int64_t>(nd);
  if (n < 0) return 0.0;
  const bool even = n % 2 == 0;
  switch (kind) {  // the endpoints exactly
    case Poly::T: if (std::fabs(x) == 1) return (x > 0 || even) ? 1.0 : -1.0; break;
    case Poly::U: if (std::fabs(x) == 1) return (x > 0 || even) ? n + 1.0 : -(n + 1.0); break;
    case Poly::V: if (std::fabs(x) == 1) return x > 0 ? 1.0 : (even ? 2.0 * n + 1 : -(2.0 * n + 1)); break;
    case Poly::W: if (std::fabs(x) == 1) return x > 0 ? 2.0 * n + 1 : (even ? 1.0 : -1.0); break;
    case Poly::P: if (std::fabs(x) == 1) return (x > 0 || even) ? 1.0 : -1.0; break;
    default: break;
  }
  double p0 = 1, p1 = 0;
  switch (kind) {
    case Poly::T: p1 = x; break;
    case Poly::U: p1 = 2 * x; break;
    case Poly::V: p1 = 2 * x - 1; break;
    case Poly::W: p1 = 2 * x + 1; break;
    case Poly::H: p1 = 2 * x; break;
    case Poly::He: p1 = x; break;
    case Poly::L: p1 = 1 - x; break;
    case Poly::P: p1 = x; break;
  }
  if (n == 0) return p0;
  for (int64_t k = 1; k < n; ++k) {
    double p2 = 0;
    const double kd = static_cast<double>(k);
    switch (kind) {
      case Poly::T: case Poly::U: case Poly::V: case Poly::W: p2 = 2 * x * p1 - p0; break;
      case Poly::H: p2 = 2 * x * p1 - 2 * kd * p0; break;
      case Poly::He: p2 = x * p1 - kd * p0; break;
      case Poly::L: p2 = ((2 * kd + 1 - x) * p1 - kd * p0) / (kd + 1); break;
      case Poly::P: p2 = ((2 * kd + 1) * x * p1 - kd * p0) / (kd + 1); break;
    }
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

// ---- host evaluation --------------------------------------------------------------------------

ScalarType float_result(ScalarType t) { return is_floating_point(t) ? t : default_dtype(); }
void check_input(const char* op, const Tensor& x) {
  if (!x.defined()) throw Error("[special." + std::string(op) + "] the tensor is undefined.");
}

Tensor host_unary(const char* op, const Tensor& x, const std::function<double(double)>& f) {
  check_input(op, x);
  Tensor h = x.detach().to(Device(kCPU), kDouble).contiguous();
  Tensor r = empty(h.sizes(), TensorOptions().dtype(kDouble));
  const double* a = h.data_ptr<double>();
  double* o = r.data_ptr<double>();
  for (int64_t i = 0; i < h.numel(); ++i) o[i] = f(a[i]);
  return r.to(x.device(), float_result(x.scalar_type()));
}

Tensor host_binary(const char* op, const Tensor& x, const Tensor& y, const std::function<double(double, double)>& f) {
  check_input(op, x);
  check_input(op, y);
  Device d = check_same_device(op, {{"self", &x}, {"other", &y}});
  DimVector shape = ops::broadcast_shapes(x.sizes(), y.sizes(), op);
  Tensor hx = x.detach().to(Device(kCPU), kDouble).expand(shape).contiguous();
  Tensor hy = y.detach().to(Device(kCPU), kDouble).expand(shape).contiguous();
  Tensor r = empty(shape, TensorOptions().dtype(kDouble));
  const double* a = hx.data_ptr<double>();
  const double* b = hy.data_ptr<double>();
  double* o = r.data_ptr<double>();
  for (int64_t i = 0; i < r.numel(); ++i) o[i] = f(a[i], b[i]);
  return r.to(d, float_result(result_type(x, y)));
}

// A Scalar operand as a 0-dim tensor beside `like` (PyTorch's wrapped number).
Tensor wrap(const Scalar& s, const Tensor& like) {
  ScalarType t = s.isFloatingPoint() ? default_dtype() : (s.isBoolean() ? kBool : kLong);
  return full({}, s, TensorOptions().dtype(t).device(like.defined() ? like.device() : Device(kCPU)));
}

void not_differentiable(const char* name, Tensor& out, std::initializer_list<const Tensor*> inputs) {
  std::string n = name;
  autograd::record("NotImplemented", out, inputs, [n](const Tensor&) -> autograd::variable_list {
    throw Error("[backward] the derivative for 'special." + n + "' is not implemented (as in PyTorch); detach() "
                "its input.");
  });
}

}  // namespace

namespace special {

Tensor gammaln(const Tensor& self) { return self.lgamma(); }
Tensor psi(const Tensor& self) { return self.digamma(); }
Tensor digamma(const Tensor& self) { return self.digamma(); }
Tensor erf(const Tensor& self) { return self.erf(); }
Tensor erfc(const Tensor& self) { return self.erfc(); }
Tensor erfinv(const Tensor& self) { return self.erfinv(); }
Tensor expit(const Tensor& self) { return self.sigmoid(); }
Tensor exp2(const Tensor& self) { return self.exp2(); }
Tensor expm1(const Tensor& self) { return self.expm1(); }
Tensor logit(const Tensor& self, std::optional<double> eps) { return self.logit(eps); }
Tensor sinc(const Tensor& self) { return self.sinc(); }
Tensor round(const Tensor& self) { return self.round(); }
Tensor log1p(const Tensor& self) { return self.log1p(); }
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim) { return self.logsumexp(dims, keepdim); }
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return self.log_softmax(dim, dtype);
}
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { return self.softmax(dim, dtype); }
Tensor xlogy(const Tensor& self, const Tensor& other) { return self.xlogy(other); }
Tensor xlogy(const Scalar& self, const Tensor& other) { return locus::xlogy(self, other); }
Tensor xlogy(const Tensor& self, const Scalar& other) { return self.xlogy(other); }
Tensor polygamma(int64_t n, const Tensor& self) { return self.polygamma(n); }

Tensor ndtr(const Tensor& self) {
  check_input("ndtr", self);
  Tensor x = self.is_floating_point() ? self : self.to(default_dtype());
  return (x * -std::numbers::sqrt2 / 2).erfc() * 0.5;
}
Tensor ndtri(const Tensor& self) {
  check_input("ndtri", self);
  Tensor p = self.is_floating_point() ? self : self.to(default_dtype());
  return (p * 2 - 1).erfinv() * std::numbers::sqrt2;
}
Tensor log_ndtr(const Tensor& self) {
  check_input("log_ndtr", self);
  Tensor x = self.is_floating_point() ? self : self.to(default_dtype());
  // log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below -1 (no underflow), log1p(-erfc(x / sqrt 2) / 2) above;
  // each branch sees only its own range, so the other's gradient stays finite
  Tensor lo = x.clamp_max(-1.0), hi = x.clamp_min(-1.0);
  Tensor left = (erfcx(lo * -std::numbers::sqrt2 / 2) / 2).log() - lo * lo / 2;
  Tensor right = ((hi * std::numbers::sqrt2 / 2).erfc() / -2).log1p();
  return where(x < -1.0, left, right);
}
Tensor entr(const Tensor& self) {
  check_input("entr", self);
  Tensor x = self.is_floating_point() ? self : self.to(default_dtype());
  Tensor safe = where(x > 0, x, ones_like(x));
  Tensor pos = -safe * safe.log();
  return where(x.isnan(), x, where(x > 0, pos, where(x == 0, zeros_like(x), full_like(x, -kInf))));
}
Tensor xlog1py(const Tensor& self, const Tensor& other) {
  check_input("xlog1py", self);
  check_input("xlog1py", other);
  check_same_device("xlog1py", {{"self", &self}, {"other", &other}});
  ScalarType t = float_result(result_type(self, other));
  Tensor x = self.to(t), y = other.to(t);
  Tensor r = where(x == 0, zeros_like(x * y), x * y.log1p());
  return where(y.isnan(), y.expand_as(r), r);
}
Tensor xlog1py(const Scalar& self, const Tensor& other) { return xlog1py(wrap(self, other), other); }
Tensor xlog1py(const Tensor& self, const Scalar& other) { return xlog1py(self, wrap(other, self)); }

Tensor multigammaln(const Tensor& self, int64_t p) {
  check_input("multigammaln", self);
  if (p < 1) throw Error("[special.multigammaln] p has to be greater than or equal to 1, got " + std::to_string(p) + ".");
  Tensor a = self.is_floating_point() ? self : self.to(default_dtype());
  if (a.numel() > 0 && !(a > (p - 1) / 2.0).all().item<bool>())
    throw Error("[special.multigammaln] All elements must be greater than (p-1)/2 = " + std::to_string((p - 1) / 2.0) +
                ".");
  Tensor r = full_like(a, p * (p - 1) / 4.0 * std::log(std::numbers::pi));
  for (int64_t i = 0; i < p; ++i) r = r + (a - i / 2.0).lgamma();
  return r;
}

Tensor i0(const Tensor& self) {
  Tensor out = host_unary("i0", self, bessel_i0);
  if (autograd::should_record(self))
    autograd::record("I0Backward0", out, {&self}, [self](const Tensor& g) -> autograd::variable_list {
      return {g * i1(self)};
    });
  return out;
}
Tensor i0e(const Tensor& self) {
  Tensor out = host_unary("i0e", self, bessel_i0e);
  if (autograd::should_record(self))
    autograd::record("SpecialI0EBackward0", out, {&self}, [self](const Tensor& g) -> autograd::variable_list {
      return {g * (i1e(self) - self.sign() * i0e(self))};
    });
  return out;
}
Tensor i1(const Tensor& self) {
  Tensor out = host_unary("i1", self, bessel_i1);
  if (autograd::should_record(self))
    autograd::record("SpecialI1Backward0", out, {&self}, [self](const Tensor& g) -> autograd::variable_list {
      Tensor safe = where(self == 0, ones_like(self), self);
      return {g * where(self == 0, full_like(self, 0.5), special::i0(self) - i1(safe) / safe)};
    });
  return out;
}
Tensor i1e(const Tensor& self) {
  Tensor out = host_unary("i1e", self, bessel_i1e);
  if (autograd::should_record(self))
    autograd::record("SpecialI1EBackward0", out, {&self}, [self](const Tensor& g) -> autograd::variable_list {
      Tensor safe = where(self == 0, ones_like(self), self);
      return {g * where(self == 0, full_like(self, 0.5), i0e(self) - i1e(safe) * (safe.sign() + safe.reciprocal()))};
    });
  return out;
}
Tensor erfcx(const Tensor& self) {
  Tensor out = host_unary("erfcx", self, locus::erfcx);
  if (autograd::should_record(self))
    autograd::record("SpecialErfcxBackward0", out, {&self}, [self](const Tensor& g) -> autograd::variable_list {
      return {g * (self * erfcx(self) * 2 - 2 / std::sqrt(std::numbers::pi))};
    });
  return out;
}

Tensor zeta(const Tensor& self, const Tensor& other) {
  Tensor out = host_binary("zeta", self, other, hurwitz_zeta);
  if (autograd::should_record(self, other)) {
    const bool nx = autograd::requires_grad_fast(self);
    autograd::record("SpecialZetaBackward0", out, {&self, &other},
                     [self, other, nx](const Tensor& g) -> autograd::variable_list {
                       if (nx)
                         throw Error("[backward] the derivative of special.zeta with respect to its first argument "
                                     "is not implemented (as in PyTorch); detach() it.");
                       return {Tensor(), autograd::reduce_grad(g * -self * zeta(self + 1, other), other)};
                     });
  }
  return out;
}
Tensor zeta(const Scalar& self, const Tensor& other) { return zeta(wrap(self, other), other); }
Tensor zeta(const Tensor& self, const Scalar& other) { return zeta(self, wrap(other, self)); }

Tensor gammainc(const Tensor& self, const Tensor& other) {
  Tensor out = host_binary("gammainc", self, other, locus::gammainc);
  if (autograd::should_record(self, other)) {
    const bool na = autograd::requires_grad_fast(self);
    autograd::record("IgammaBackward0", out, {&self, &other}, [self, other, na](const Tensor& g) -> autograd::variable_list {
      if (na)
        throw Error("[backward] the derivative of gammainc with respect to its first argument (a) is not implemented "
                    "(as in PyTorch); detach() it.");
      Tensor d = (-other + (self - 1) * other.log() - self.lgamma()).exp();
      return {Tensor(), autograd::reduce_grad(g * d, other)};
    });
  }
  return out;
}
Tensor gammaincc(const Tensor& self, const Tensor& other) {
  Tensor out = host_binary("gammaincc", self, other, locus::gammaincc);
  if (autograd::should_record(self, other)) {
    const bool na = autograd::requires_grad_fast(self);
    autograd::record("IgammacBackward0", out, {&self, &other}, [self, other, na](const Tensor& g) -> autograd::variable_list {
      if (na)
        throw Error("[backward] the derivative of gammaincc with respect to its first argument (a) is not "
                    "implemented (as in PyTorch); detach() it.");
      Tensor d = (-other + (self - 1) * other.log() - self.lgamma()).exp();
      return {Tensor(), autograd::reduce_grad(-g * d, other)};
    });
  }
  return out;
}

#define LOCUS_SPECIAL_HOST_UNARY(name, f)                                        \
  Tensor name(const Tensor& self) {                                              \
    Tensor out = host_unary(#name, self, f);                                     \
    if (autograd::should_record(self)) not_differentiable(#name, out, {&self}); \
    return out;                                                                  \
  }
LOCUS_SPECIAL_HOST_UNARY(bessel_j0, [](double x) { return bessel_j(0, x); })
LOCUS_SPECIAL_HOST_UNARY(bessel_j1, [](double x) { return bessel_j(1, x); })
LOCUS_SPECIAL_HOST_UNARY(bessel_y0, [](double x) { return bessel_y(0, x); })
LOCUS_SPECIAL_HOST_UNARY(bessel_y1, [](double x) { return bessel_y(1, x); })
LOCUS_SPECIAL_HOST_UNARY(modified_bessel_i0, bessel_i0)
LOCUS_SPECIAL_HOST_UNARY(modified_bessel_i1, bessel_i1)
LOCUS_SPECIAL_HOST_UNARY(modified_bessel_k0, [](double x) { return bessel_k(0, x); })
LOCUS_SPECIAL_HOST_UNARY(modified_bessel_k1, [](double x) { return bessel_k(1, x); })
LOCUS_SPECIAL_HOST_UNARY(scaled_modified_bessel_k0, [](double x) { return scaled_bessel_k(0, x); })
LOCUS_SPECIAL_HOST_UNARY(scaled_modified_bessel_k1, [](double x) { return scaled_bessel_k(1, x); })
LOCUS_SPECIAL_HOST_UNARY(spherical_bessel_j0, [](double x) { return x == 0 ? 1.0 : std::sin(x) / x; })
#undef LOCUS_SPECIAL_HOST_UNARY

#define LOCUS_SPECIAL_POLYNOMIAL(name, kind, shifted)                                                       \
  Tensor name(const Tensor& x, const Tensor& n) {                                                           \
    Tensor out = host_binary(#name, x, n, [](double xv, double nv) {                                        \
      return polynomial(kind, shifted ? 2 * xv - 1 : xv, nv);                                               \
    });                                                                                                     \
    if (autograd::should_record(x, n)) not_differentiable(#name, out, {&x, &n});                            \
    return out;                                                                                             \
  }                                                                                                         \
  Tensor name(const Scalar& x, const Tensor& n) { return name(wrap(x, n), n); }                             \
  Tensor name(const Tensor& x, const Scalar& n) { return name(x, wrap(n, x)); }
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t, Poly::T, false)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u, Poly::U, false)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v, Poly::V, false)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w, Poly::W, false)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t, Poly::T, true)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u, Poly::U, true)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v, Poly::V, true)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w, Poly::W, true)
LOCUS_SPECIAL_POLYNOMIAL(hermite_polynomial_h, Poly::H, false)
LOCUS_SPECIAL_POLYNOMIAL(hermite_polynomial_he, Poly::He, false)
LOCUS_SPECIAL_POLYNOMIAL(laguerre_polynomial_l, Poly::L, false)
LOCUS_SPECIAL_POLYNOMIAL(legendre_polynomial_p, Poly::P, false)
#undef LOCUS_SPECIAL_POLYNOMIAL

}  // namespace special

Tensor mvlgamma(const Tensor& self, int64_t p) { return special::multigammaln(self, p); }
Tensor igamma(const Tensor& a, const Tensor& x) { return special::gammainc(a, x); }
Tensor igammac(const Tensor& a, const Tensor& x) { return special::gammaincc(a, x); }
Tensor i0(const Tensor& self) { return special::i0(self); }

namespace detail {
// polygamma(n, x) for n >= 2 (Tensor::polygamma): (-1)^(n+1) n! zeta(n + 1, x), differentiable.
Tensor polygamma_high(int64_t n, const Tensor& self) {
  Tensor out = host_unary("polygamma", self, [n](double x) { return polygamma_n(n, x); });
  if (autograd::should_record(self))
    autograd::record("PolygammaBackward0", out, {&self}, [n, self](const Tensor& g) -> autograd::variable_list {
      return {g * self.polygamma(n + 1)};
    });
  return out;
}
}  // namespace detail

}  // namespace locus
