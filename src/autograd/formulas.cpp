// Backward formulas of the core ops, written with locus ops so they run wherever the tensors are.
// Each recorder saves what its formula needs (the result only through saved_output: a detach()-ed
// alias that the node links back to itself while a graph of the backward is built) and skips the
// work for inputs that need no gradient. With create_graph the formulas record themselves, so
// gradients of gradients work, through the saved inputs and the saved results alike.
#include <cmath>
#include <numbers>

#include "autograd/record.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus::autograd {
namespace {

using backend::BinaryOp;
using backend::ReduceOp;
using backend::UnaryOp;

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (g.sizes() == shape) return g;
  int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < g.dim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && g.size(i) != 1)) dims.push_back(i);
  Tensor r = dims.empty() ? g : g.sum(dims, /*keepdim=*/true);
  return r.reshape(shape);
}

// A gradient for `like` from `g`, or undefined when `like` needs none.
Tensor maybe(bool need, const std::function<Tensor()>& f) { return need ? f() : Tensor(); }

}  // namespace

Tensor reduce_grad(const Tensor& g, const Tensor& like) {
  Tensor r = sum_to(g, like.sizes());
  if (r.scalar_type() != like.scalar_type()) r = r.to(like.scalar_type());
  if (r.device() != like.device()) r = r.to(like.device());  // a 0-dim cpu operand of a device op
  return r;
}

// What reduce_grad needs of an operand, kept instead of the operand where the formula reads no
// values (add, sub): the node holds no tensor, as PyTorch's, so the operands are freed with their
// last user and a second backward through the node works.
struct Like {
  DimVector sizes;
  ScalarType dtype;
  Device device;
  explicit Like(const Tensor& t) : sizes(t.sizes()), dtype(t.scalar_type()), device(t.device()) {}
};

Tensor reduce_grad(const Tensor& g, const Like& like) {
  Tensor r = sum_to(g, like.sizes);
  if (r.scalar_type() != like.dtype) r = r.to(like.dtype);
  if (r.device() != like.device) r = r.to(like.device);
  return r;
}

void on_binary(BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b) {
  bool na = requires_grad_fast(a), nb = requires_grad_fast(b);
  switch (op) {
    case BinaryOp::Add:
      record("AddBackward0", out, {&a, &b}, [la = Like(a), lb = Like(b), na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g, la); }), maybe(nb, [&] { return reduce_grad(g, lb); })};
      });
      return;
    case BinaryOp::Sub:
      record("SubBackward0", out, {&a, &b}, [la = Like(a), lb = Like(b), na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g, la); }), maybe(nb, [&] { return reduce_grad(g.neg(), lb); })};
      });
      return;
    case BinaryOp::Mul:
      record("MulBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g * b, a); }), maybe(nb, [&] { return reduce_grad(g * a, b); })};
      });
      return;
    case BinaryOp::Div:
      record("DivBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g / b, a); }),
                maybe(nb, [&] { return reduce_grad((g * a / (b * b)).neg(), b); })};
      });
      return;
    case BinaryOp::Pow: {
      Tensor o = saved_output(out);
      record("PowBackward1", out, {&a, &b}, [a, b, o, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g * b * a.pow(b - 1), a); }),
                maybe(nb, [&] { return reduce_grad((g * o * a.log()).masked_fill(a.eq(0), 0), b); })};
      });
      return;
    }
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      bool is_max = op == BinaryOp::Maximum;
      record(is_max ? "MaximumBackward0" : "MinimumBackward0", out, {&a, &b},
             [a, b, na, nb, is_max](const Tensor& g) -> variable_list {
               ScalarType t = g.scalar_type();
               Tensor wa = (is_max ? a.gt(b) : a.lt(b)).to(t) + a.eq(b).to(t) * 0.5;
               return {maybe(na, [&] { return reduce_grad(g * wa, a); }),
                       maybe(nb, [&] { return reduce_grad(g * (1 - wa), b); })};
             });
      return;
    }
    case BinaryOp::Remainder:
      record("RemainderBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g, a); }),
                maybe(nb, [&] { return reduce_grad((g * (a / b).floor()).neg(), b); })};
      });
      return;
    case BinaryOp::Atan2:  // d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2)
      record("Atan2Backward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        Tensor r = g / (a * a + b * b);
        return {maybe(na, [&] { return reduce_grad(r * b, a); }), maybe(nb, [&] { return reduce_grad((r * a).neg(), b); })};
      });
      return;
    // ---- math batch (stop 45) ----
    case BinaryOp::Hypot:  // a / hypot(a, b), b / hypot(a, b) (recomputed: differentiable again)
      record("HypotBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        Tensor r = g / a.hypot(b);
        return {maybe(na, [&] { return reduce_grad(r * a, a); }), maybe(nb, [&] { return reduce_grad(r * b, b); })};
      });
      return;
    case BinaryOp::Copysign: {  // copysign(a, b) / a where a != 0, else 0; nothing for b
      Tensor o = saved_output(out);
      record("CopysignBackward0", out, {&a, &b}, [a, b, o, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g * (o / a).masked_fill(a.eq(0), 0), a); }),
                maybe(nb, [&] { return reduce_grad(zeros_like(g), b); })};
      });
      return;
    }
    case BinaryOp::Xlogy:  // xlogy(g, b) (0 where a == 0 and b <= 0), g * a / b: PyTorch 1.13's formulas
      record("XlogyBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g.xlogy(b).masked_fill(a.eq(0).logical_and(b.le(0)), 0), a); }),
                maybe(nb, [&] { return reduce_grad(g * a / b, b); })};
      });
      return;
    case BinaryOp::Fmod:  // 1, -trunc(a / b)
      record("FmodBackward1", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(g, a); }),
                maybe(nb, [&] { return reduce_grad((g * a.div(b, "trunc")).neg(), b); })};
      });
      return;
    case BinaryOp::TruncDivide:
    case BinaryOp::FloorDivide:  // div with a rounding mode: zero gradients, as PyTorch
      record("DivBackward3", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
        return {maybe(na, [&] { return reduce_grad(zeros_like(g), a); }),
                maybe(nb, [&] { return reduce_grad(zeros_like(g), b); })};
      });
      return;
    default:
      return;  // comparisons and logical ops: not differentiable (bool results are never recorded)
  }
}

void on_binary_scalar(BinaryOp op, Tensor& out, const Tensor& a, double s, bool scalar_first) {
  switch (op) {
    case BinaryOp::Add:
      record("AddBackward1", out, {&a}, [](const Tensor& g) -> variable_list { return {g}; });
      return;
    case BinaryOp::Sub:
      if (scalar_first) record("RsubBackward1", out, {&a}, [](const Tensor& g) -> variable_list { return {g.neg()}; });
      else record("SubBackward1", out, {&a}, [](const Tensor& g) -> variable_list { return {g}; });
      return;
    case BinaryOp::Mul:
      record("MulBackward1", out, {&a}, [s](const Tensor& g) -> variable_list { return {g * s}; });
      return;
    case BinaryOp::Div:
      if (scalar_first)
        record("ReciprocalBackward0", out, {&a}, [a, s](const Tensor& g) -> variable_list { return {(g * s / (a * a)).neg()}; });
      else
        record("DivBackward1", out, {&a}, [s](const Tensor& g) -> variable_list { return {g / s}; });
      return;
    case BinaryOp::Pow:
      if (scalar_first) {  // s^a ln s, recomputed (differentiable again); 0 where s is 0 and a >= 0, as PyTorch
        record("PowBackward2", out, {&a}, [a, s](const Tensor& g) -> variable_list {
          Tensor r = locus::pow(s, a) * std::log(s);
          return {g * (s == 0 ? where(a.ge(0), 0.0, r) : r)};
        });
      } else {
        record("PowBackward0", out, {&a}, [a, s](const Tensor& g) -> variable_list {
          if (s == 0) return {zeros_like(g)};
          return {g * s * a.pow(s - 1)};
        });
      }
      return;
    case BinaryOp::Remainder:
      if (scalar_first)
        record("RemainderBackward1", out, {&a}, [a, s](const Tensor& g) -> variable_list { return {(g * (s / a).floor()).neg()}; });
      else
        record("RemainderBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {g}; });
      return;
    case BinaryOp::Atan2:  // atan2(s, a) or atan2(a, s)
      record("Atan2Backward0", out, {&a}, [a, s, scalar_first](const Tensor& g) -> variable_list {
        Tensor r = g / (a * a + s * s);
        return {scalar_first ? (r * s).neg() : r * s};
      });
      return;
    // ---- math batch (stop 45) ----
    case BinaryOp::Hypot:
      record("HypotBackward0", out, {&a}, [a, s](const Tensor& g) -> variable_list {
        return {g * a / (a * a + s * s).sqrt()};
      });
      return;
    case BinaryOp::Copysign:
      if (scalar_first) {  // copysign(s, a): nothing flows to the sign
        record("CopysignBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {zeros_like(g)}; });
      } else {
        Tensor o = saved_output(out);
        record("CopysignBackward1", out, {&a}, [a, o](const Tensor& g) -> variable_list {
          return {g * (o / a).masked_fill(a.eq(0), 0)};
        });
      }
      return;
    case BinaryOp::Xlogy:
      if (scalar_first)  // xlogy(s, a): s / a
        record("XlogyBackward1", out, {&a}, [a, s](const Tensor& g) -> variable_list { return {g * s / a}; });
      else  // xlogy(a, s): xlogy(g, s), 0 where a == 0 and s <= 0
        record("XlogyBackward2", out, {&a}, [a, s](const Tensor& g) -> variable_list {
          Tensor r = g.xlogy(s);
          return {s <= 0 ? r.masked_fill(a.eq(0), 0) : r};
        });
      return;
    case BinaryOp::Fmod:
      if (scalar_first)  // fmod(s, a): -trunc(s / a)
        record("FmodBackward1", out, {&a}, [a, s](const Tensor& g) -> variable_list {
          return {(g * (s / a).trunc()).neg()};
        });
      else
        record("FmodBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {g}; });
      return;
    case BinaryOp::TruncDivide:
    case BinaryOp::FloorDivide:
      record("DivBackward3", out, {&a}, [](const Tensor& g) -> variable_list { return {zeros_like(g)}; });
      return;
    default:
      return;
  }
}

void on_unary(UnaryOp op, Tensor& out, const Tensor& a, const backend::UnaryParams& p) {
  Tensor o;
  switch (op) {
    case UnaryOp::Neg:
      record("NegBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {g.neg()}; });
      return;
    case UnaryOp::Abs:
      record("AbsBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.sign()}; });
      return;
    case UnaryOp::Exp:
      o = saved_output(out);
      record("ExpBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * o}; });
      return;
    case UnaryOp::Log:
      record("LogBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g / a}; });
      return;
    case UnaryOp::Sqrt:
      o = saved_output(out);
      record("SqrtBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g / (o * 2)}; });
      return;
    case UnaryOp::Rsqrt:
      o = saved_output(out);
      record("RsqrtBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * o.pow(3) * -0.5}; });
      return;
    case UnaryOp::Sin:
      record("SinBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.cos()}; });
      return;
    case UnaryOp::Cos:
      record("CosBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {(g * a.sin()).neg()}; });
      return;
    case UnaryOp::Square:
      record("PowBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a * 2}; });
      return;
    case UnaryOp::Reciprocal:
      o = saved_output(out);
      record("ReciprocalBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {(g * o * o).neg()}; });
      return;
    case UnaryOp::Relu:
      o = saved_output(out);
      record("ReluBackward0", out, {&a}, [o](const Tensor& g) -> variable_list {
        // one fused pass, unless a graph of the backward is being built (it has no derivative)
        if (!should_record(g)) return {ops::threshold_backward(g, o)};
        return {g * o.le(0).logical_not()};  // a NaN output passes the gradient, as threshold_backward
      });
      return;
    case UnaryOp::Sigmoid:
      o = saved_output(out);
      record("SigmoidBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * o * (1 - o)}; });
      return;
    case UnaryOp::Tanh:
      o = saved_output(out);
      record("TanhBackward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * (1 - o * o)}; });
      return;
    case UnaryOp::Clamp:
      record("ClampBackward1", out, {&a}, [a, p](const Tensor& g) -> variable_list {
        Tensor mask;
        if (p.has_a) mask = a.ge(p.a);
        if (p.has_b) mask = mask.defined() ? mask.logical_and(a.le(p.b)) : a.le(p.b);
        return {g * mask};
      });
      return;
    case UnaryOp::PowScalar: {
      double e = p.a;
      record("PowBackward0", out, {&a}, [a, e](const Tensor& g) -> variable_list {
        if (e == 0) return {zeros_like(g)};
        return {g * e * a.pow(e - 1)};
      });
      return;
    }
    case UnaryOp::Log1p:
      record("Log1PBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g / (a + 1)}; });
      return;
    case UnaryOp::Expm1:
      o = saved_output(out);
      record("Expm1Backward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * (o + 1)}; });
      return;
    case UnaryOp::Log2:  // 1 / (a ln 2)
      record("Log2Backward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {g / (a * 0.69314718055994530942)};
      });
      return;
    case UnaryOp::Exp2:  // 2^a ln 2
      o = saved_output(out);
      record("Exp2Backward0", out, {&a}, [o](const Tensor& g) -> variable_list { return {g * o * 0.69314718055994530942}; });
      return;
    case UnaryOp::Erf:  // 2 / sqrt(pi) * exp(-a^2)
      record("ErfBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {g * a.square().neg().exp() * 1.12837916709551257390};
      });
      return;
    case UnaryOp::Gelu:
      record("GeluBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        // one fused pass, unless a graph of the backward is being built (then differentiable ops)
        if (!should_record(g, a)) return {ops::gelu_backward(g, a, false)};
        // d/dx x*Phi(x) = Phi(x) + x*phi(x), Phi(x) = erfc(-x / sqrt 2) / 2 (no 0 / 0 at x = 0, whose
        // derivative was NaN when Phi was gelu(x) / x)
        Tensor cdf = (a * -0.70710678118654752440).erfc() * 0.5;
        Tensor pdf = (a * a * -0.5).exp() * (1.0 / std::sqrt(2.0 * std::numbers::pi));
        return {g * (cdf + a * pdf)};
      });
      return;
    case UnaryOp::GeluTanh:
      record("GeluBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        if (!should_record(g, a)) return {ops::gelu_backward(g, a, true)};
        const double k = std::sqrt(2.0 / std::numbers::pi), c = 0.044715;
        Tensor a2 = a * a;
        Tensor t = ((a + a2 * a * c) * k).tanh();
        Tensor d = (t + 1) * 0.5 + a * (1 - t * t) * (a2 * (3 * c) + 1) * (0.5 * k);
        return {g * d};
      });
      return;
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
      record("SignBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {zeros_like(g)}; });
      return;
    // ---- math batch (stop 45) ----
    case UnaryOp::Trunc:
      record("TruncBackward0", out, {&a}, [](const Tensor& g) -> variable_list { return {zeros_like(g)}; });
      return;
    case UnaryOp::Tan:  // 1 + tan^2 (tan recomputed: differentiable again)
      record("TanBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * (a.tan().square() + 1)}; });
      return;
    case UnaryOp::Asin:  // 1 / sqrt(1 - a^2)
      record("AsinBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * (1 - a * a).rsqrt()}; });
      return;
    case UnaryOp::Acos:
      record("AcosBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {(g * (1 - a * a).rsqrt()).neg()};
      });
      return;
    case UnaryOp::Atan:
      record("AtanBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g / (a * a + 1)}; });
      return;
    case UnaryOp::Sinh:
      record("SinhBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.cosh()}; });
      return;
    case UnaryOp::Cosh:
      record("CoshBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.sinh()}; });
      return;
    case UnaryOp::Asinh:
      record("AsinhBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * (a * a + 1).rsqrt()}; });
      return;
    case UnaryOp::Acosh:
      record("AcoshBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * (a * a - 1).rsqrt()}; });
      return;
    case UnaryOp::Atanh:
      record("AtanhBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g / (1 - a * a)}; });
      return;
    case UnaryOp::Log10:  // 1 / (a ln 10)
      record("Log10Backward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {g / (a * 2.30258509299404568402)};
      });
      return;
    case UnaryOp::Erfc:  // -2 / sqrt(pi) * exp(-a^2)
      record("ErfcBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {g * a.square().neg().exp() * -1.12837916709551257390};
      });
      return;
    case UnaryOp::Erfinv:  // sqrt(pi) / 2 * exp(erfinv(a)^2)
      record("ErfinvBackward0", out, {&a}, [a](const Tensor& g) -> variable_list {
        return {g * a.erfinv().square().exp() * 0.88622692545275801365};
      });
      return;
    case UnaryOp::Lgamma:
      record("LgammaBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.digamma()}; });
      return;
    case UnaryOp::Digamma:  // trigamma
      record("DigammaBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.polygamma(1)}; });
      return;
    case UnaryOp::Trigamma:
      record("PolygammaBackward0", out, {&a}, [a](const Tensor& g) -> variable_list { return {g * a.polygamma(2)}; });
      return;
    default:
      return;
  }
}

void on_where(Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  bool na = requires_grad_fast(a), nb = requires_grad_fast(b);
  Tensor c = cond;
  record("WhereBackward0", out, {&a, &b}, [c, a, b, na, nb](const Tensor& g) -> variable_list {
    Tensor cc = c.device() == g.device() ? c : c.to(g.device());
    return {maybe(na, [&] { return reduce_grad(where(cc, g, 0), a); }),
            maybe(nb, [&] { return reduce_grad(where(cc, 0, g), b); })};
  });
}

namespace {
// g (the gradient of a reduction) with the reduced dims put back as size 1.
Tensor unreduce(const Tensor& g, const std::vector<bool>& red, bool keepdim, int64_t nd) {
  if (keepdim || nd == 0) return g;
  Tensor r = g;
  for (int64_t i = 0; i < nd; ++i)
    if (red[i]) r = r.unsqueeze(i);
  return r;
}
}  // namespace

void on_reduce(ReduceOp op, Tensor& out, const Tensor& in, const std::vector<bool>& red, bool keepdim, bool no_dim_form) {
  int64_t nd = in.dim();
  DimVector in_sizes(in.sizes());
  switch (op) {
    case ReduceOp::Sum:
      record(no_dim_form ? "SumBackward0" : "SumBackward1", out, {&in}, [red, keepdim, nd, in_sizes](const Tensor& g) -> variable_list {
        return {unreduce(g, red, keepdim, nd).expand(in_sizes)};
      });
      return;
    case ReduceOp::Mean: {
      int64_t n = 1;
      for (int64_t i = 0; i < nd; ++i)
        if (red[i]) n *= in.size(i);
      record(no_dim_form ? "MeanBackward0" : "MeanBackward1", out, {&in}, [red, keepdim, nd, in_sizes, n](const Tensor& g) -> variable_list {
        return {(unreduce(g, red, keepdim, nd) / static_cast<double>(n)).expand(in_sizes)};
      });
      return;
    }
    case ReduceOp::Max:
    case ReduceOp::Min: {
      Tensor o = saved_output(out);
      record(op == ReduceOp::Max ? "AmaxBackward0" : "AminBackward0", out, {&in},
             [in, o, red, keepdim, nd](const Tensor& g) -> variable_list {
               // spread evenly over ties, as PyTorch does for amax/amin and full max/min
               std::vector<int64_t> dims;
               for (int64_t i = 0; i < nd; ++i)
                 if (red[i]) dims.push_back(i);
               Tensor mask = in.eq(unreduce(o, red, keepdim, nd)).to(g.scalar_type());
               Tensor count = nd == 0 ? mask : mask.sum(dims, /*keepdim=*/true);
               return {unreduce(g, red, keepdim, nd) * mask / count};
             });
      return;
    }
    case ReduceOp::Prod: {
      Tensor o = saved_output(out);
      record("ProdBackward0", out, {&in}, [in, o, red, keepdim, nd](const Tensor& g) -> variable_list {
        return {unreduce(g, red, keepdim, nd) * unreduce(o, red, keepdim, nd) / in};
      });
      return;
    }
    default:
      return;
  }
}

void on_max_dim(Tensor& values, const Tensor& in, const Tensor& indices, int64_t dim, bool keepdim) {
  Tensor idx = indices;
  int64_t d = locus::detail::wrap_dim(dim, in.dim(), "max");
  DimVector in_sizes(in.sizes());
  ScalarType t = in.scalar_type();
  record("MaxBackward0", values, {&in}, [idx, d, keepdim, in_sizes, t](const Tensor& g) -> variable_list {
    if (in_sizes.size() == 0) return {g};
    Tensor gk = keepdim ? g : g.unsqueeze(d);
    Tensor ik = keepdim ? idx : idx.unsqueeze(d);
    return {zeros(in_sizes, TensorOptions().dtype(t).device(g.device())).scatter_add(d, ik, gk)};
  });
}

void on_softmax(Tensor& out, const Tensor& in, int64_t dim, bool log) {
  Tensor o = saved_output(out);
  if (log) {
    record("LogSoftmaxBackward0", out, {&in}, [o, dim](const Tensor& g) -> variable_list {
      return {g - o.exp() * g.sum(IntArrayRef(dim), /*keepdim=*/true)};
    });
  } else {
    record("SoftmaxBackward0", out, {&in}, [o, dim](const Tensor& g) -> variable_list {
      Tensor go = g * o;
      return {go - o * go.sum(IntArrayRef(dim), /*keepdim=*/true)};
    });
  }
}

void on_mm(Tensor& out, const Tensor& a, const Tensor& b) {
  bool na = requires_grad_fast(a), nb = requires_grad_fast(b);
  record("MmBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
    return {maybe(na, [&] { return g.mm(b.t()); }), maybe(nb, [&] { return a.t().mm(g); })};
  });
}

void on_bmm(Tensor& out, const Tensor& a, const Tensor& b) {
  bool na = requires_grad_fast(a), nb = requires_grad_fast(b);
  record("BmmBackward0", out, {&a, &b}, [a, b, na, nb](const Tensor& g) -> variable_list {
    return {maybe(na, [&] { return g.bmm(b.transpose(1, 2)); }), maybe(nb, [&] { return a.transpose(1, 2).bmm(g); })};
  });
}

void on_addmm(Tensor& out, const Tensor& self, const Tensor& m1, const Tensor& m2, double beta, double alpha) {
  bool ns = requires_grad_fast(self), n1 = requires_grad_fast(m1), n2 = requires_grad_fast(m2);
  record("AddmmBackward0", out, {&self, &m1, &m2},
         [self, m1, m2, ns, n1, n2, beta, alpha](const Tensor& g) -> variable_list {
           return {maybe(ns, [&] { return reduce_grad(beta == 1 ? g : g * beta, self); }),
                   maybe(n1, [&] { Tensor r = g.mm(m2.t()); return alpha == 1 ? r : r * alpha; }),
                   maybe(n2, [&] { Tensor r = m1.t().mm(g); return alpha == 1 ? r : r * alpha; })};
         });
}

void on_reshape(Tensor& out, const Tensor& in) {
  DimVector s(in.sizes());
  record("ViewBackward0", out, {&in}, [s](const Tensor& g) -> variable_list { return {g.reshape(s)}; });
}

void on_transpose(Tensor& out, const Tensor& in, int64_t d0, int64_t d1) {
  record("TransposeBackward0", out, {&in}, [d0, d1](const Tensor& g) -> variable_list {
    return {g.dim() == 0 ? g : g.transpose(d0, d1)};
  });
}

void on_permute(Tensor& out, const Tensor& in, IntArrayRef dims) {
  int64_t n = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inv(n);
  for (int64_t i = 0; i < n; ++i) inv[locus::detail::wrap_dim(dims[i], n, "permute")] = i;
  record("PermuteBackward0", out, {&in}, [inv](const Tensor& g) -> variable_list { return {g.permute(inv)}; });
}

void on_expand(Tensor& out, const Tensor& in) {
  DimVector s(in.sizes());
  record("ExpandBackward0", out, {&in}, [s](const Tensor& g) -> variable_list { return {sum_to(g, s)}; });
}

void on_restrict(Tensor& out, const Tensor& in, std::function<Tensor(const Tensor&)> replay) {
  DimVector s(in.sizes());
  ScalarType t = in.scalar_type();
  record("SliceBackward0", out, {&in}, [s, t, replay](const Tensor& g) -> variable_list {
    Tensor base = zeros(s, TensorOptions().dtype(t).device(g.device()));
    replay(base).copy_(g);  // recorded (CopySlices) when building a graph of the gradient
    return {base};
  });
}

void on_as_strided(Tensor& out, const Tensor& in) {
  // Each output element reads one storage position; each input element is one storage position.
  // The gradient of a position is the sum over the output elements that read it, shared evenly
  // by the input elements that alias it (PyTorch's rule for overlapping inputs).
  DimVector in_sizes(in.sizes()), in_strides(in.strides()), out_sizes(out.sizes()), out_strides(out.strides());
  int64_t in_off = in.storage_offset(), out_off = out.storage_offset();
  int64_t capacity = static_cast<int64_t>(in.impl()->storage->nbytes / in.element_size());
  ScalarType t = in.scalar_type();
  record("AsStridedBackward0", out, {&in},
         [=](const Tensor& g) -> variable_list {
           TensorOptions lo = TensorOptions().dtype(kLong).device(g.device());
           TensorOptions fo = TensorOptions().dtype(t).device(g.device());
           Tensor positions = arange(capacity, lo);
           Tensor read = positions.as_strided(out_sizes, out_strides, out_off).reshape({-1});
           Tensor held = positions.as_strided(in_sizes, in_strides, in_off).reshape({-1});
           Tensor per_position = zeros({capacity}, fo).scatter_add(0, read, g.to(t).reshape({-1}));
           Tensor aliases = zeros({capacity}, fo).scatter_add(0, held, ones({held.numel()}, fo));
           return {(per_position.gather(0, held) / aliases.gather(0, held)).reshape(in_sizes)};
         });
}

void on_to(Tensor& out, const Tensor& in) {
  Device d = in.device();
  ScalarType t = in.scalar_type();
  // The forward moved explicitly, so the backward moves the gradient back explicitly.
  record("ToCopyBackward0", out, {&in}, [d, t](const Tensor& g) -> variable_list { return {g.to(d, t)}; });
}

void on_copy_(const Tensor& self, const Tensor& src) {
  Tensor out = self.detach();  // the node's output; self takes its place below
  DimVector s(src.sizes());
  ScalarType t = src.scalar_type();
  Device d = src.device();
  const bool has_self = requires_grad_fast(self);
  record("CopyBackwards", out, {&self, &src}, [s, t, d, has_self](const Tensor& g) -> variable_list {
    return {has_self ? zeros_like(g) : Tensor(), sum_to(g, s).to(d, t)};
  });
  rebase_history(self, out);
}

// The part of a tensor shaped like a view's contiguous base that the view covers.
struct ViewGeometry {
  DimVector sizes, strides;
  int64_t offset;  // in elements, from the base's first
  Tensor of(const Tensor& like_base) const {
    return like_base.as_strided(sizes, strides, like_base.storage_offset() + offset);
  }
};

void on_view_of_base(Tensor& nv, const Tensor& base) {
  if (!base.is_contiguous()) {  // storage positions, whatever the layout
    on_as_strided(nv, base);
    return;
  }
  ViewGeometry v{DimVector(nv.sizes()), DimVector(nv.strides()), nv.storage_offset() - base.storage_offset()};
  DimVector s(base.sizes());
  ScalarType t = base.scalar_type();
  record("AsStridedBackward0", nv, {&base}, [v, s, t](const Tensor& g) -> variable_list {
    Tensor out = zeros(s, TensorOptions().dtype(t).device(g.device()));
    v.of(out).copy_(g);  // recorded (CopySlices) when building a graph of the gradient
    return {out};
  });
}

void rebase_view(const Tensor& self, const Tensor& r) {
  Tensor base(self.impl()->view_base);
  ViewGeometry v{DimVector(self.sizes()), DimVector(self.strides()), self.storage_offset() - base.storage_offset()};
  const bool r_grad = requires_grad_fast(r), base_grad = requires_grad_fast(base);
  const ScalarType rt = r.scalar_type();
  // CopySlices: base = its old values with the view's part replaced by r. (check_inplace_graph
  // made sure the base is contiguous: the view's geometry then indexes a contiguous gradient.)
  Tensor out = base.detach();
  record("torch::autograd::CopySlices", out, {&base, &r}, [v, r_grad, base_grad, rt](const Tensor& g) -> variable_list {
    Tensor gc = g.contiguous();
    Tensor gr = r_grad ? v.of(gc).to(rt) : Tensor();
    Tensor gb;
    if (base_grad) {
      Tensor keep = ones_like(gc);
      {
        NoGradGuard no_grad;
        v.of(keep).zero_();
      }
      gb = gc * keep;
    }
    return {gb, gr};
  });
  rebase_history(base, out);  // base is no view: takes out's history
  refresh_view(self);
}

void on_clone(Tensor& out, const Tensor& in) {
  record("CloneBackward0", out, {&in}, [](const Tensor& g) -> variable_list { return {g}; });
}

void on_index_select(Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx) {
  DimVector s(in.sizes());
  ScalarType t = in.scalar_type();
  Tensor i = idx;
  record("IndexSelectBackward0", out, {&in}, [s, t, i, dim](const Tensor& g) -> variable_list {
    DimVector shape(g.dim(), 1);
    shape[dim] = i.numel();
    Tensor ie = i.reshape(shape).expand(g.sizes()).contiguous();
    return {zeros(s, TensorOptions().dtype(t).device(g.device())).scatter_add(dim, ie, g)};
  });
}

void on_gather(Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx) {
  DimVector s(in.sizes());
  ScalarType t = in.scalar_type();
  Tensor i = idx;
  record("GatherBackward0", out, {&in}, [s, t, i, dim](const Tensor& g) -> variable_list {
    return {zeros(s, TensorOptions().dtype(t).device(g.device())).scatter_add(dim, i, g)};
  });
}

void on_scatter_add(Tensor& out, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor& src) {
  bool ns = requires_grad_fast(self), nsrc = requires_grad_fast(src);
  Tensor i = idx;
  DimVector ss(src.sizes());
  record("ScatterAddBackward0", out, {&self, &src}, [i, dim, ns, nsrc, ss, src](const Tensor& g) -> variable_list {
    return {maybe(ns, [&] { return g; }), maybe(nsrc, [&] {
              Tensor r = g.gather(dim, i);
              if (r.sizes() == ss.ref()) return r;
              Tensor full = zeros(ss, TensorOptions().dtype(src.scalar_type()).device(g.device()));
              NoGradGuard no_grad;
              Tensor v = full;
              for (int64_t k = 0; k < r.dim(); ++k) v = v.narrow(k, 0, r.size(k));
              v.copy_(r);
              return full;
            })};
  });
}

void on_scatter(Tensor& out, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src) {
  bool ns = requires_grad_fast(self), nsrc = src != nullptr && requires_grad_fast(*src);
  Tensor i = idx;
  Tensor none;
  const Tensor& s = src != nullptr ? *src : none;
  DimVector ss(src != nullptr ? src->sizes() : IntArrayRef{});
  ScalarType st = src != nullptr ? src->scalar_type() : self.scalar_type();
  auto fn = [i, dim, ns, nsrc, ss, st](const Tensor& g) -> variable_list {
    variable_list r{maybe(ns, [&] { return g.scatter(dim, i, 0); })};
    r.push_back(maybe(nsrc, [&] {
      Tensor gs = g.gather(dim, i);
      if (gs.sizes() == ss.ref()) return gs;
      Tensor full = zeros(ss, TensorOptions().dtype(st).device(g.device()));
      NoGradGuard no_grad;
      Tensor v = full;
      for (int64_t k = 0; k < gs.dim(); ++k) v = v.narrow(k, 0, gs.size(k));
      v.copy_(gs);
      return full;
    }));
    return r;
  };
  if (src != nullptr) record("ScatterBackward0", out, {&self, &s}, fn);
  else record("ScatterBackward1", out, {&self}, [fn](const Tensor& g) -> variable_list { return {fn(g)[0]}; });
}

void on_cat(Tensor& out, const std::vector<const Tensor*>& parts, int64_t dim) {
  bool any = false;
  for (const Tensor* p : parts) any = any || requires_grad_fast(*p);
  if (!any || !detail::grad_enabled) return;
  std::vector<int64_t> lens;
  std::vector<bool> need;
  for (const Tensor* p : parts) {
    lens.push_back(p->size(dim));
    need.push_back(requires_grad_fast(*p));
  }
  std::vector<ScalarType> types;
  for (const Tensor* p : parts) types.push_back(p->scalar_type());
  auto fn = [lens, need, types, dim](const Tensor& g) -> variable_list {
    variable_list r;
    int64_t off = 0;
    for (size_t k = 0; k < lens.size(); ++k) {
      r.push_back(need[k] ? g.narrow(dim, off, lens[k]).to(types[k]) : Tensor());
      off += lens[k];
    }
    return r;
  };
  record("CatBackward0", out, parts, fn);
}

}  // namespace locus::autograd
