// Elementwise ops: device checks, PyTorch's type promotion, broadcasting, then one backend call.
#include <cmath>
#include <limits>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "ops/autocast.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {
namespace {

using backend::BinaryOp;
using backend::UnaryOp;

enum class Cat { Undefined, Bool, Int, Float };
Cat category(ScalarType t) {
  if (t == ScalarType::Undefined) return Cat::Undefined;
  if (t == kBool) return Cat::Bool;
  return locus::is_floating_point(t) ? Cat::Float : Cat::Int;
}
ScalarType promote_skip(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}
// PyTorch's combine_categories: the higher-priority class wins unless the lower one is of a
// higher category.
ScalarType combine(ScalarType higher, ScalarType lower) {
  if (category(higher) == Cat::Float) return higher;
  if (higher == kBool || category(lower) == Cat::Float) return promote_skip(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

// Result dtype of an op over tensors (dimensioned, or 0-dim) and a wrapped Scalar.
struct ResultType {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  void add(const Tensor& t) {
    if (t.dim() == 0) zero = promote_skip(zero, t.scalar_type());
    else dim = promote_skip(dim, t.scalar_type());
  }
  void add(const Scalar& s) {
    ScalarType st = s.isFloatingPoint() ? default_dtype() : (s.isBoolean() ? kBool : kLong);
    wrapped = promote_skip(wrapped, st);
  }
  ScalarType get() const { return combine(combine(dim, zero), wrapped); }
};

bool is_int_like(ScalarType t) { return !locus::is_floating_point(t); }

const char* binary_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::Pow: return "pow";
    case BinaryOp::Maximum: return "maximum";
    case BinaryOp::Minimum: return "minimum";
    case BinaryOp::Remainder: return "remainder";
    case BinaryOp::FloorDivide: return "floor_divide";
    case BinaryOp::Eq: return "eq";
    case BinaryOp::Ne: return "ne";
    case BinaryOp::Lt: return "lt";
    case BinaryOp::Le: return "le";
    case BinaryOp::Gt: return "gt";
    case BinaryOp::Ge: return "ge";
    case BinaryOp::LogicalAnd: return "logical_and";
    case BinaryOp::LogicalOr: return "logical_or";
    case BinaryOp::ThresholdBackward: return "threshold_backward";
    case BinaryOp::Atan2: return "atan2";
    case BinaryOp::Hypot: return "hypot";
    case BinaryOp::Copysign: return "copysign";
    case BinaryOp::Xlogy: return "xlogy";
    case BinaryOp::Fmod: return "fmod";
    case BinaryOp::TruncDivide: return "div";
    case BinaryOp::NextAfter: return "nextafter";
    case BinaryOp::BitAnd: return "bitwise_and";
    case BinaryOp::BitOr: return "bitwise_or";
    case BinaryOp::BitXor: return "bitwise_xor";
    case BinaryOp::LShift: return "bitwise_left_shift";
    case BinaryOp::RShift: return "bitwise_right_shift";
    case BinaryOp::GeluBackward:
    case BinaryOp::GeluTanhBackward: return "gelu_backward";
  }
  return "binary";
}

// The dtype the kernel computes in.
ScalarType compute_type(BinaryOp op, ScalarType common) {
  if ((op == BinaryOp::Div || op == BinaryOp::Atan2 || op == BinaryOp::Copysign || op == BinaryOp::Xlogy) &&
      is_int_like(common))
    return default_dtype();
  if (op == BinaryOp::Pow && common == kBool) return kLong;
  if ((op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul) && common == kBool)
    return op == BinaryOp::Sub ? ScalarType::Undefined : kBool;
  return common;
}

void check_out_cast(const char* op, ScalarType result, ScalarType out) {
  // PyTorch's canCast: no float -> integral, no non-bool -> bool.
  bool ok = !(locus::is_floating_point(result) && !locus::is_floating_point(out)) && !(result != kBool && out == kBool);
  if (!ok)
    throw Error("[" + std::string(op) + "] result type " + toString(result) +
                " can't be cast to the desired output type " + toString(out) + ".");
}

Tensor binary_impl(BinaryOp op, const Tensor& a, const Tensor& b, Tensor* out_inplace) {
  const char* name = binary_name(op);
  Device d = ops::check_same_device(name, {{"self", &a}, {"other", &b}});
  // A 0-dim cpu operand of an op on another device becomes a scalar.
  if (!d.is_cpu() && (ops::is_cpu_scalar(a) != ops::is_cpu_scalar(b))) {
    const Tensor& s = ops::is_cpu_scalar(a) ? a : b;
    const Tensor& t = ops::is_cpu_scalar(a) ? b : a;
    ResultType rt;
    rt.add(t);
    rt.add(s);
    ScalarType common = rt.get();
    ScalarType ct = compute_type(op, common);
    if (ct == ScalarType::Undefined)
      throw Error("[" + std::string(name) + "] subtraction with two bool tensors is not supported; use logical_xor() or cast to an integer dtype.");
    ScalarType od = backend::binary_is_comparison(op) ? kBool : ct;
    Tensor tc = ops::cast(t, ct);
    Tensor out = out_inplace && out_inplace->scalar_type() == od && out_inplace->is_contiguous() ? *out_inplace
                                                                                                   : detail::make_empty(t.sizes(), od, d);
    backend::TensorRef o = ops::ref(out, name), x = ops::ref(tc, name);
    backend::TensorRef* refs[] = {&o, &x};
    ops::coalesce(refs, 2);
    if (t.numel() > 0)
      ops::backend_for(d).binary_scalar(d.index(), ops::current_stream(d), op, o, x, s.item().toDouble(),
                                        ops::is_cpu_scalar(a));
    if (out_inplace == nullptr && autograd::should_record(tc, s)) {
      if (autograd::requires_grad_fast(s)) {  // the scalar gets its gradient too, on cpu
        Tensor sc = ops::cast(s, ct);
        if (ops::is_cpu_scalar(a)) autograd::on_binary(op, out, sc, tc);
        else autograd::on_binary(op, out, tc, sc);
      } else {
        autograd::on_binary_scalar(op, out, tc, s.item().toDouble(), ops::is_cpu_scalar(a));
      }
    }
    return out;
  }
  ResultType rt;
  rt.add(a);
  rt.add(b);
  ScalarType common = rt.get();
  ScalarType ct = compute_type(op, common);
  if (ct == ScalarType::Undefined)
    throw Error("[" + std::string(name) + "] subtraction with two bool tensors is not supported; use logical_xor() or cast to an integer dtype.");
  ScalarType od = backend::binary_is_comparison(op) ? kBool : ct;
  if (a.scalar_type() == ct && b.scalar_type() == ct && a.is_contiguous() && b.is_contiguous() &&
      a.sizes() == b.sizes() &&
      (out_inplace == nullptr || (out_inplace->scalar_type() == od && out_inplace->is_contiguous() &&
                                  out_inplace->sizes() == a.sizes()))) {
    // the common case (same shape and dtype, dense) without broadcasting, casts or coalescing
    Tensor out = out_inplace != nullptr ? *out_inplace : detail::make_empty(a.sizes(), od, d);
    if (out.numel() > 0)  // an empty result is still recorded: its gradients are empty or zeros
      ops::backend_for(d).binary(backend::device_index(d), ops::current_stream(d), op, ops::ref_flat(out),
                                 ops::ref_flat(a), ops::ref_flat(b));
    if (out_inplace == nullptr && autograd::should_record(a, b)) autograd::on_binary(op, out, a, b);
    return out;
  }
  DimVector shape = ops::broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor ac = ops::cast(a, ct), bc = ops::cast(b, ct);
  Tensor out;
  if (out_inplace != nullptr && out_inplace->scalar_type() == od && out_inplace->sizes() == shape.ref())
    out = *out_inplace;
  else
    out = detail::make_empty(shape, od, d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, name), x = ops::ref_broadcast(ac, shape, name), y = ops::ref_broadcast(bc, shape, name);
    backend::TensorRef* refs[] = {&o, &x, &y};
    ops::coalesce(refs, 3);
    ops::backend_for(d).binary(backend::device_index(d), ops::current_stream(d), op, o, x, y);
  }
  if (out_inplace == nullptr && autograd::should_record(ac, bc)) autograd::on_binary(op, out, ac, bc);
  return out;
}

Tensor binary_scalar_impl(BinaryOp op, const Tensor& a, const Scalar& s, bool scalar_first, Tensor* out_inplace) {
  const char* name = binary_name(op);
  Device d = a.device();
  ResultType rt;
  rt.add(a);
  rt.add(s);
  ScalarType common = rt.get();
  ScalarType ct = compute_type(op, common);
  if (ct == ScalarType::Undefined)
    throw Error("[" + std::string(name) + "] subtraction with bool tensors is not supported; use logical_xor() or cast to an integer dtype.");
  ScalarType od = backend::binary_is_comparison(op) ? kBool : ct;
  Tensor ac = ops::cast(a, ct);
  Tensor out;
  if (out_inplace != nullptr && out_inplace->scalar_type() == od) out = *out_inplace;
  else out = detail::make_empty(a.sizes(), od, d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, name), x = ops::ref(ac, name);
    backend::TensorRef* refs[] = {&o, &x};
    ops::coalesce(refs, 2);
    ops::backend_for(d).binary_scalar(backend::device_index(d), ops::current_stream(d), op, o, x, s.toDouble(), scalar_first);
  }
  if (out_inplace == nullptr && autograd::should_record(ac)) autograd::on_binary_scalar(op, out, ac, s.toDouble(), scalar_first);
  return out;
}

// In-place: compute straight into self when the result dtype matches, else through a temporary.
// f(me, out) is the op on `me` (self, or a clone of it when autograd records the op), computed
// into *out when out is given and its dtype fits, else into a new tensor.
// `other`: the op's tensor operand, when it has one (checked for a partial overlap with self).
using InplaceFn = std::function<Tensor(const Tensor& me, Tensor* out)>;

// An in-place op that autograd records: `r` (computed from a clone of self) is written into self,
// which becomes the output of r's node.
Tensor& commit_recorded(Tensor& self, const char* name, const Tensor& r) {
  autograd::check_inplace_graph(name, self);
  if (r.sizes() != self.sizes())
    throw Error("[" + std::string(name) + "] output with shape " + ops::shape_str(self.sizes()) +
                " doesn't match the broadcast shape " + ops::shape_str(r.sizes()) + ".");
  {
    NoGradGuard no_grad;
    self.copy_(r);
  }
  autograd::rebase_history(self, r);
  return self;
}

Tensor& inplace(Tensor& self, const char* name, ScalarType result, const InplaceFn& f, const Tensor* other = nullptr) {
  const bool recorded = autograd::should_record(self) || (other != nullptr && autograd::should_record(*other)) ||
                        autograd::view_of_graph(self);
  if (recorded) autograd::check_inplace_graph(name, self);
  check_out_cast(name, result, self.scalar_type());
  ops::check_no_internal_overlap(name, self);
  if (other != nullptr) ops::check_no_partial_overlap(name, self, *other);
  if (recorded) return commit_recorded(self, name, f(self.clone(), nullptr));  // the formula may save self's old values
  Tensor r = f(self, &self);
  if (!r.is_same(self)) {
    if (r.sizes() != self.sizes())
      throw Error("[" + std::string(name) + "] output with shape " + ops::shape_str(self.sizes()) +
                  " doesn't match the broadcast shape " + ops::shape_str(r.sizes()) + ".");
    self.copy_(r);
  } else {
    autograd::bump_version(self);
  }
  return self;
}

}  // namespace

ScalarType ops::result_type(std::initializer_list<const Tensor*> tensors) {
  ResultType rt;
  for (const Tensor* t : tensors) rt.add(*t);
  return rt.get();
}

Tensor& ops::assign_result(Tensor& self, const char* name, const std::function<Tensor(const Tensor& me)>& f) {
  const bool self_recorded = autograd::should_record(self) || autograd::view_of_graph(self);
  if (self_recorded) autograd::check_inplace_graph(name, self);
  ops::check_no_internal_overlap(name, self);
  // With autograd recording, the op runs on a clone: its formula may save self's values, which
  // the copy below overwrites. An operand other than self that requires grad shows in the result.
  Tensor r = f(self_recorded ? self.clone() : self);
  if (!self_recorded && r.requires_grad()) r = f(self.clone());
  check_out_cast(name, r.scalar_type(), self.scalar_type());
  if (r.requires_grad()) return commit_recorded(self, name, r);
  if (r.sizes() != self.sizes())
    throw Error("[" + std::string(name) + "] output with shape " + ops::shape_str(self.sizes()) +
                " doesn't match the broadcast shape " + ops::shape_str(r.sizes()) + ".");
  return self.copy_(r);
}

namespace {

ScalarType result_of(const Tensor& a, const Tensor& b) {
  ResultType rt;
  rt.add(a);
  rt.add(b);
  return rt.get();
}
ScalarType result_of(const Tensor& a, const Scalar& b) {
  ResultType rt;
  rt.add(a);
  rt.add(b);
  return rt.get();
}

Tensor unary_impl(UnaryOp op, const char* name, const Tensor& a, backend::UnaryParams p = {}, bool float_only = false) {
  Device d = a.device();
  ScalarType ct = a.scalar_type();
  if (float_only && !locus::is_floating_point(ct)) ct = default_dtype();
  Tensor ac = ops::cast(a, ct);
  Tensor out = detail::make_empty(a.sizes(), ct, d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, name), x = ops::ref(ac, name);
    backend::TensorRef* refs[] = {&o, &x};
    ops::coalesce(refs, 2);
    ops::backend_for(d).unary(backend::device_index(d), ops::current_stream(d), op, o, x, p);
  }
  if (autograd::should_record(ac)) autograd::on_unary(op, out, ac, p);
  return out;
}

}  // namespace

namespace ac = ops::autocast;

// ---- binary ---------------------------------------------------------------------------------
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  if (alpha.toDouble() == 1.0) return binary_impl(BinaryOp::Add, *this, o, nullptr);
  return binary_impl(BinaryOp::Add, *this, o.mul(alpha), nullptr);
}
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  if (alpha.toDouble() == 1.0) return binary_scalar_impl(BinaryOp::Add, *this, o, false, nullptr);
  return binary_scalar_impl(BinaryOp::Add, *this, Scalar(o.toDouble() * alpha.toDouble()), false, nullptr);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  if (alpha.toDouble() == 1.0) return binary_impl(BinaryOp::Sub, *this, o, nullptr);
  return binary_impl(BinaryOp::Sub, *this, o.mul(alpha), nullptr);
}
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  if (alpha.toDouble() == 1.0) return binary_scalar_impl(BinaryOp::Sub, *this, o, false, nullptr);
  return binary_scalar_impl(BinaryOp::Sub, *this, Scalar(o.toDouble() * alpha.toDouble()), false, nullptr);
}
Tensor Tensor::mul(const Tensor& o) const { return binary_impl(BinaryOp::Mul, *this, o, nullptr); }
Tensor Tensor::mul(const Scalar& o) const { return binary_scalar_impl(BinaryOp::Mul, *this, o, false, nullptr); }
Tensor Tensor::div(const Tensor& o) const { return binary_impl(BinaryOp::Div, *this, o, nullptr); }
Tensor Tensor::div(const Scalar& o) const { return binary_scalar_impl(BinaryOp::Div, *this, o, false, nullptr); }
Tensor Tensor::pow(const Tensor& o) const {
  if (auto c = ac::policy(ac::Op::Pow, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).pow(C(o)); });
  return binary_impl(BinaryOp::Pow, *this, o, nullptr);
}
Tensor Tensor::pow(const Scalar& e) const {
  if (auto c = ac::policy(ac::Op::Pow, device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).pow(e); });
  if (is_floating_point()) {
    backend::UnaryParams p;
    p.a = e.toDouble();
    return unary_impl(UnaryOp::PowScalar, "pow", *this, p);
  }
  return binary_scalar_impl(BinaryOp::Pow, *this, e, false, nullptr);
}
Tensor Tensor::remainder(const Tensor& o) const { return binary_impl(BinaryOp::Remainder, *this, o, nullptr); }
Tensor Tensor::remainder(const Scalar& o) const { return binary_scalar_impl(BinaryOp::Remainder, *this, o, false, nullptr); }
Tensor Tensor::maximum(const Tensor& o) const { return binary_impl(BinaryOp::Maximum, *this, o, nullptr); }
Tensor Tensor::minimum(const Tensor& o) const { return binary_impl(BinaryOp::Minimum, *this, o, nullptr); }

#define LOCUS_INPLACE_T(fn, OP)                                                                  \
  Tensor& Tensor::fn(const Tensor& o) const {                                                    \
    ops::check_same_device(#fn, {{"self", this}, {"other", &o}});                                \
    return inplace(mut_self(), #fn, result_of(*this, o), [&](const Tensor& me, Tensor* s) { return binary_impl(OP, me, o, s); }, &o); \
  }                                                                                              \
  Tensor& Tensor::fn(const Scalar& o) const {                                                    \
    return inplace(mut_self(), #fn, result_of(*this, o), [&](const Tensor& me, Tensor* s) { return binary_scalar_impl(OP, me, o, false, s); }); \
  }
LOCUS_INPLACE_T(mul_, BinaryOp::Mul)
LOCUS_INPLACE_T(div_, BinaryOp::Div)
#undef LOCUS_INPLACE_T

Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  ops::check_same_device("add_", {{"self", this}, {"other", &o}});
  Tensor other = alpha.toDouble() == 1.0 ? o : o.mul(alpha);
  return inplace(mut_self(), "add_", result_of(mut_self(), o), [&](const Tensor& me, Tensor* s) { return binary_impl(BinaryOp::Add, me, other, s); },
                 &o);
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  Scalar v = alpha.toDouble() == 1.0 ? o : Scalar(o.toDouble() * alpha.toDouble());
  return inplace(mut_self(), "add_", result_of(mut_self(), o), [&](const Tensor& me, Tensor* s) { return binary_scalar_impl(BinaryOp::Add, me, v, false, s); });
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  ops::check_same_device("sub_", {{"self", this}, {"other", &o}});
  Tensor other = alpha.toDouble() == 1.0 ? o : o.mul(alpha);
  return inplace(mut_self(), "sub_", result_of(mut_self(), o), [&](const Tensor& me, Tensor* s) { return binary_impl(BinaryOp::Sub, me, other, s); },
                 &o);
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  Scalar v = alpha.toDouble() == 1.0 ? o : Scalar(o.toDouble() * alpha.toDouble());
  return inplace(mut_self(), "sub_", result_of(mut_self(), o), [&](const Tensor& me, Tensor* s) { return binary_scalar_impl(BinaryOp::Sub, me, v, false, s); });
}

// ---- comparisons ----------------------------------------------------------------------------
#define LOCUS_CMP(fn, OP)                                                                         \
  Tensor Tensor::fn(const Tensor& o) const { return binary_impl(OP, *this, o, nullptr); }         \
  Tensor Tensor::fn(const Scalar& o) const { return binary_scalar_impl(OP, *this, o, false, nullptr); }
LOCUS_CMP(eq, BinaryOp::Eq)
LOCUS_CMP(ne, BinaryOp::Ne)
LOCUS_CMP(lt, BinaryOp::Lt)
LOCUS_CMP(le, BinaryOp::Le)
LOCUS_CMP(gt, BinaryOp::Gt)
LOCUS_CMP(ge, BinaryOp::Ge)
#undef LOCUS_CMP
Tensor Tensor::logical_and(const Tensor& o) const { return binary_impl(BinaryOp::LogicalAnd, *this, o, nullptr); }
Tensor Tensor::logical_or(const Tensor& o) const { return binary_impl(BinaryOp::LogicalOr, *this, o, nullptr); }
Tensor Tensor::logical_not() const { return unary_impl(UnaryOp::LogicalNot, "logical_not", ops::cast(*this, kBool)); }

// ---- unary ----------------------------------------------------------------------------------
// A unary op with a float result that autocast lists (`op`, autocast.h): inside an autocast region
// on a device type whose policy casts it, the method again on the cast input; else the kernel.
namespace {
Tensor float_unary(const Tensor& x, ac::Op op, UnaryOp kernel, const char* name, Tensor (Tensor::*method)() const) {
  if (auto c = ac::policy(op, x.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return (C(x).*method)(); });
  return unary_impl(kernel, name, x, {}, true);
}
}  // namespace
Tensor Tensor::neg() const {
  if (scalar_type() == kBool) throw Error("[neg] negation, the `-` operator, on a bool tensor is not supported; use logical_not().");
  return unary_impl(UnaryOp::Neg, "neg", *this);
}
Tensor Tensor::abs() const { return unary_impl(UnaryOp::Abs, "abs", *this); }
Tensor Tensor::exp() const { return float_unary(*this, ac::Op::Exp, UnaryOp::Exp, "exp", &Tensor::exp); }
Tensor Tensor::log() const { return float_unary(*this, ac::Op::Log, UnaryOp::Log, "log", &Tensor::log); }
Tensor Tensor::sqrt() const { return unary_impl(UnaryOp::Sqrt, "sqrt", *this, {}, true); }
Tensor Tensor::rsqrt() const { return float_unary(*this, ac::Op::Rsqrt, UnaryOp::Rsqrt, "rsqrt", &Tensor::rsqrt); }
Tensor Tensor::sin() const { return unary_impl(UnaryOp::Sin, "sin", *this, {}, true); }
Tensor Tensor::cos() const { return unary_impl(UnaryOp::Cos, "cos", *this, {}, true); }
Tensor Tensor::square() const { return unary_impl(UnaryOp::Square, "square", *this); }
Tensor Tensor::reciprocal() const { return float_unary(*this, ac::Op::Reciprocal, UnaryOp::Reciprocal, "reciprocal", &Tensor::reciprocal); }
Tensor Tensor::relu() const { return unary_impl(UnaryOp::Relu, "relu", *this); }
Tensor Tensor::sigmoid() const { return unary_impl(UnaryOp::Sigmoid, "sigmoid", *this, {}, true); }
Tensor Tensor::tanh() const { return unary_impl(UnaryOp::Tanh, "tanh", *this, {}, true); }
Tensor Tensor::sign() const { return unary_impl(UnaryOp::Sign, "sign", *this); }
Tensor Tensor::floor() const { return unary_impl(UnaryOp::Floor, "floor", *this); }
Tensor Tensor::ceil() const { return unary_impl(UnaryOp::Ceil, "ceil", *this); }
Tensor Tensor::round() const { return unary_impl(UnaryOp::Round, "round", *this); }
Tensor Tensor::log1p() const { return float_unary(*this, ac::Op::Log1p, UnaryOp::Log1p, "log1p", &Tensor::log1p); }
Tensor Tensor::expm1() const { return float_unary(*this, ac::Op::Expm1, UnaryOp::Expm1, "expm1", &Tensor::expm1); }
Tensor Tensor::erf() const { return unary_impl(UnaryOp::Erf, "erf", *this, {}, true); }
Tensor Tensor::log2() const { return float_unary(*this, ac::Op::Log2, UnaryOp::Log2, "log2", &Tensor::log2); }
Tensor Tensor::exp2() const { return unary_impl(UnaryOp::Exp2, "exp2", *this, {}, true); }
Tensor Tensor::atan2(const Tensor& other) const { return binary_impl(BinaryOp::Atan2, *this, other, nullptr); }
Tensor Tensor::clamp(std::optional<Scalar> mn, std::optional<Scalar> mx) const {
  if (!mn && !mx) throw Error("[clamp] at least one of 'min' or 'max' must not be None.");
  backend::UnaryParams p;
  p.has_a = mn.has_value();
  p.has_b = mx.has_value();
  if (mn) p.a = mn->toDouble();
  if (mx) p.b = mx->toDouble();
  ScalarType rt = scalar_type();
  if (!locus::is_floating_point(rt) && ((mn && mn->isFloatingPoint()) || (mx && mx->isFloatingPoint()))) rt = default_dtype();
  if (mn) ops::check_scalar_fits("clamp", mn->toDouble(), rt);
  if (mx) ops::check_scalar_fits("clamp", mx->toDouble(), rt);
  return unary_impl(UnaryOp::Clamp, "clamp", ops::cast(*this, rt), p);
}
Tensor& Tensor::clamp_(std::optional<Scalar> mn, std::optional<Scalar> mx) const {
  return copy_(autograd::inplace_source("clamp_", *this).clamp(mn, mx));
}

// In-place unary forms: the out-of-place op, then PyTorch's cast check against this tensor's
// dtype (an integer tensor's sqrt_() is refused, not truncated) and the copy back.
#define LOCUS_UNARY_INPLACE(fn, to_float)                                                          \
  Tensor& Tensor::fn##_() const {                                                                        \
    ScalarType rt = (to_float) && !locus::is_floating_point(scalar_type()) ? default_dtype() : scalar_type(); \
    return inplace(mut_self(), #fn "_", rt, [&](const Tensor& me, Tensor*) { return me.fn(); });                            \
  }
LOCUS_UNARY_INPLACE(neg, false)
LOCUS_UNARY_INPLACE(abs, false)
LOCUS_UNARY_INPLACE(square, false)
LOCUS_UNARY_INPLACE(sign, false)
LOCUS_UNARY_INPLACE(floor, false)
LOCUS_UNARY_INPLACE(ceil, false)
LOCUS_UNARY_INPLACE(round, false)
LOCUS_UNARY_INPLACE(exp, true)
LOCUS_UNARY_INPLACE(log, true)
LOCUS_UNARY_INPLACE(sqrt, true)
LOCUS_UNARY_INPLACE(rsqrt, true)
LOCUS_UNARY_INPLACE(sin, true)
LOCUS_UNARY_INPLACE(cos, true)
LOCUS_UNARY_INPLACE(reciprocal, true)
LOCUS_UNARY_INPLACE(sigmoid, true)
LOCUS_UNARY_INPLACE(tanh, true)
LOCUS_UNARY_INPLACE(log1p, true)
LOCUS_UNARY_INPLACE(log2, true)
LOCUS_UNARY_INPLACE(exp2, true)
LOCUS_UNARY_INPLACE(expm1, true)
LOCUS_UNARY_INPLACE(erf, true)
#undef LOCUS_UNARY_INPLACE
Tensor& Tensor::relu_() const {
  if (autograd::should_record(*this) || autograd::view_of_graph(*this)) autograd::check_inplace_graph("relu_", *this);
  return copy_(relu());  // relu's formula reads its result, not self
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return copy_(autograd::inplace_source("masked_fill_", *this).masked_fill(mask, value));
}

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  ops::check_same_device("masked_fill", {{"self", this}, {"mask", &mask}});
  if (mask.scalar_type() != kBool)
    throw Error(std::string("[masked_fill] expected the mask to be bool, got ") + dtype_name(mask.scalar_type()) + ".");
  Tensor v = full({}, value, TensorOptions().dtype(scalar_type()).device(device()));
  return locus::where(mask, v, *this);
}

// ---- where ----------------------------------------------------------------------------------
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Device d = ops::check_same_device("where", {{"condition", &cond}, {"self", &a}, {"other", &b}});
  if (cond.scalar_type() != kBool && cond.scalar_type() != kByte)
    throw Error(std::string("[where] expected condition to be a bool tensor, got ") + dtype_name(cond.scalar_type()) + ".");
  ScalarType ct = result_of(a, b);
  DimVector shape = ops::broadcast_shapes(ops::broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  auto on_device = [&](const Tensor& t, ScalarType dt) { return ops::cast(t.device() == d ? t : t.to(d), dt); };
  Tensor c = on_device(cond, kBool), ac = on_device(a, ct), bc = on_device(b, ct);
  Tensor out = detail::make_empty(shape, ct, d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, "where"), rc = ops::ref_broadcast(c, shape, "where"),
                       ra = ops::ref_broadcast(ac, shape, "where"), rb = ops::ref_broadcast(bc, shape, "where");
    backend::TensorRef* refs[] = {&o, &rc, &ra, &rb};
    ops::coalesce(refs, 4);
    ops::backend_for(d).where(backend::device_index(d), ops::current_stream(d), o, rc, ra, rb);
  }
  if (autograd::should_record(ac, bc)) autograd::on_where(out, c, ac, bc);
  return out;
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return locus::where(cond, a, full({}, b, TensorOptions().dtype(result_of(a, b)).device(a.device())));
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return locus::where(cond, full({}, a, TensorOptions().dtype(result_of(b, a)).device(b.device())), b);
}

// ---- free functions and operators ---------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return a.add(b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return a.sub(b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
Tensor pow(const Tensor& a, const Scalar& b) { return a.pow(b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }
Tensor neg(const Tensor& a) { return a.neg(); }
Tensor abs(const Tensor& a) { return a.abs(); }
Tensor exp(const Tensor& a) { return a.exp(); }
Tensor log(const Tensor& a) { return a.log(); }
Tensor sqrt(const Tensor& a) { return a.sqrt(); }
Tensor relu(const Tensor& a) { return a.relu(); }
Tensor sigmoid(const Tensor& a) { return a.sigmoid(); }
Tensor tanh(const Tensor& a) { return a.tanh(); }
Tensor rsqrt(const Tensor& a) { return a.rsqrt(); }
Tensor sin(const Tensor& a) { return a.sin(); }
Tensor cos(const Tensor& a) { return a.cos(); }
Tensor square(const Tensor& a) { return a.square(); }
Tensor reciprocal(const Tensor& a) { return a.reciprocal(); }
Tensor sign(const Tensor& a) { return a.sign(); }
Tensor floor(const Tensor& a) { return a.floor(); }
Tensor ceil(const Tensor& a) { return a.ceil(); }
Tensor round(const Tensor& a) { return a.round(); }
Tensor log1p(const Tensor& a) { return a.log1p(); }
Tensor log2(const Tensor& a) { return a.log2(); }
Tensor exp2(const Tensor& a) { return a.exp2(); }
Tensor atan2(const Tensor& a, const Tensor& b) { return a.atan2(b); }
Tensor expm1(const Tensor& a) { return a.expm1(); }
Tensor erf(const Tensor& a) { return a.erf(); }
Tensor clamp(const Tensor& a, std::optional<Scalar> mn, std::optional<Scalar> mx) { return a.clamp(mn, mx); }
Tensor clamp_min(const Tensor& a, const Scalar& mn) { return a.clamp_min(mn); }
Tensor clamp_max(const Tensor& a, const Scalar& mx) { return a.clamp_max(mx); }
// NaN is the one value not equal to itself; integers are never NaN
Tensor Tensor::isnan() const { return locus::is_floating_point(scalar_type()) ? ne(*this) : ne(*this).logical_and(eq(*this)); }
Tensor isnan(const Tensor& a) { return a.isnan(); }
Tensor Tensor::isinf() const {
  return locus::is_floating_point(scalar_type()) ? abs().eq(std::numeric_limits<double>::infinity()) : ne(*this);
}
// x - x is 0 exactly where x is finite (NaN for NaN and for either infinity)
Tensor Tensor::isfinite() const { return locus::is_floating_point(scalar_type()) ? sub(*this).eq(0) : eq(*this); }
Tensor isinf(const Tensor& a) { return a.isinf(); }
Tensor isfinite(const Tensor& a) { return a.isfinite(); }
Tensor eq(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor ne(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor lt(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor le(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor gt(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor ge(const Tensor& a, const Tensor& b) { return a.ge(b); }

Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return binary_scalar_impl(BinaryOp::Sub, b, a, true, nullptr); }
Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return binary_scalar_impl(BinaryOp::Div, b, a, true, nullptr); }
Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return a.ge(b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

namespace ops {
Tensor threshold_backward(const Tensor& grad, const Tensor& input) {
  return binary_impl(BinaryOp::ThresholdBackward, grad, input, nullptr);
}
Tensor gelu_backward(const Tensor& grad, const Tensor& input, bool tanh_approximation) {
  return binary_impl(tanh_approximation ? BinaryOp::GeluTanhBackward : BinaryOp::GeluBackward, grad, input, nullptr);
}

Tensor gelu(const Tensor& input, bool tanh_approximation) {
  UnaryOp op = tanh_approximation ? UnaryOp::GeluTanh : UnaryOp::Gelu;
  Tensor a = input.is_floating_point() ? input : input.to(default_dtype());
  Device d = a.device();
  Tensor out = detail::make_empty(a.sizes(), a.scalar_type(), d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, "gelu"), x = ops::ref(a, "gelu");
    backend::TensorRef* refs[] = {&o, &x};
    ops::coalesce(refs, 2);
    ops::backend_for(d).unary(device_index(d), ops::current_stream(d), op, o, x, {});
  }
  if (autograd::should_record(a)) autograd::on_unary(op, out, a, {});
  return out;
}
}  // namespace ops

// ---- math batch (stop 45) ----------------------------------------------------------------------
namespace {
constexpr double kPi = 3.14159265358979323846;

void require_float(const char* name, const Tensor& t) {
  if (!locus::is_floating_point(t.scalar_type()))
    throw Error("[" + std::string(name) + "] expected a floating-point tensor, got " +
                locus::toString(t.scalar_type()) + "; convert it first, e.g. x.to(torch::kFloat).");
}
// The rounding modes of div(): nullopt (true division), "trunc" or "floor".
BinaryOp rounding_op(const char* name, std::optional<std::string_view> mode) {
  if (!mode) return BinaryOp::Div;
  if (*mode == "trunc") return BinaryOp::TruncDivide;
  if (*mode == "floor") return BinaryOp::FloorDivide;
  throw Error("[" + std::string(name) + "] expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
              std::string(*mode) + "'.");
}
ScalarType rounding_result(BinaryOp op, ScalarType common) {
  return op == BinaryOp::Div && is_int_like(common) ? default_dtype() : common;
}
}  // namespace

Tensor Tensor::tan() const { return float_unary(*this, ac::Op::Tan, UnaryOp::Tan, "tan", &Tensor::tan); }
Tensor Tensor::asin() const { return float_unary(*this, ac::Op::Asin, UnaryOp::Asin, "asin", &Tensor::asin); }
Tensor Tensor::acos() const { return float_unary(*this, ac::Op::Acos, UnaryOp::Acos, "acos", &Tensor::acos); }
Tensor Tensor::atan() const { return unary_impl(UnaryOp::Atan, "atan", *this, {}, true); }
Tensor Tensor::sinh() const { return float_unary(*this, ac::Op::Sinh, UnaryOp::Sinh, "sinh", &Tensor::sinh); }
Tensor Tensor::cosh() const { return float_unary(*this, ac::Op::Cosh, UnaryOp::Cosh, "cosh", &Tensor::cosh); }
Tensor Tensor::asinh() const { return unary_impl(UnaryOp::Asinh, "asinh", *this, {}, true); }
Tensor Tensor::acosh() const { return unary_impl(UnaryOp::Acosh, "acosh", *this, {}, true); }
Tensor Tensor::atanh() const { return unary_impl(UnaryOp::Atanh, "atanh", *this, {}, true); }
Tensor Tensor::log10() const { return float_unary(*this, ac::Op::Log10, UnaryOp::Log10, "log10", &Tensor::log10); }
Tensor Tensor::trunc() const { return unary_impl(UnaryOp::Trunc, "trunc", *this); }
Tensor Tensor::fix() const { return trunc(); }
Tensor Tensor::frac() const {
  require_float("frac", *this);
  return sub(trunc());
}
Tensor Tensor::erfc() const { return unary_impl(UnaryOp::Erfc, "erfc", *this, {}, true); }
Tensor Tensor::erfinv() const { return float_unary(*this, ac::Op::Erfinv, UnaryOp::Erfinv, "erfinv", &Tensor::erfinv); }
Tensor Tensor::lgamma() const { return unary_impl(UnaryOp::Lgamma, "lgamma", *this, {}, true); }
Tensor Tensor::digamma() const { return unary_impl(UnaryOp::Digamma, "digamma", *this, {}, true); }
namespace detail {
Tensor polygamma_high(int64_t n, const Tensor& self);
}
Tensor Tensor::polygamma(int64_t n) const {
  if (n < 0) throw Error("[polygamma] polygamma(n, x) does not support negative n, got " + std::to_string(n) + ".");
  if (n == 0) return digamma();
  if (n == 1) return unary_impl(UnaryOp::Trigamma, "polygamma", *this, {}, true);
  return detail::polygamma_high(n, *this);  // special.cpp: from the Hurwitz zeta function
}
Tensor& Tensor::polygamma_(int64_t n) const {
  ScalarType rt = is_floating_point() ? scalar_type() : default_dtype();
  return inplace(mut_self(), "polygamma_", rt, [&](const Tensor& me, Tensor*) { return me.polygamma(n); });
}
Tensor Tensor::logit(std::optional<double> eps) const {
  Tensor x = is_floating_point() ? *this : to(default_dtype());
  if (eps) x = x.clamp(*eps, 1.0 - *eps);
  return x.div(x.neg().add(1)).log();  // log(x / (1 - x)), as PyTorch
}
Tensor Tensor::sinc() const {
  // sin(pi x) / (pi x), 1 at 0; the division sees 1 where x is 0 so that its gradient stays finite there
  Tensor x = is_floating_point() ? *this : to(default_dtype());
  Tensor zero = x.eq(0);
  Tensor px = locus::where(zero, 1.0, x) * kPi;
  return locus::where(zero, 1.0, px.sin() / px);
}
Tensor Tensor::deg2rad() const { return (is_floating_point() ? *this : to(default_dtype())).mul(kPi / 180.0); }
Tensor Tensor::rad2deg() const { return (is_floating_point() ? *this : to(default_dtype())).mul(180.0 / kPi); }
Tensor Tensor::signbit() const {
  if (scalar_type() == kBool) return zeros_like(*this);
  if (!is_floating_point()) return lt(0);
  // copysign(1, x) reads the sign bit: true for -0.0 and a NaN with its sign bit set, as std::signbit
  return binary_scalar_impl(BinaryOp::Copysign, detach(), 1.0, true, nullptr).lt(0);
}
Tensor Tensor::sgn() const { return sign(); }
Tensor Tensor::arcsin() const { return asin(); }
Tensor Tensor::arccos() const { return acos(); }
Tensor Tensor::arctan() const { return atan(); }
Tensor Tensor::arcsinh() const { return asinh(); }
Tensor Tensor::arccosh() const { return acosh(); }
Tensor Tensor::arctanh() const { return atanh(); }
Tensor Tensor::absolute() const { return abs(); }
Tensor Tensor::negative() const { return neg(); }
Tensor Tensor::clip(std::optional<Scalar> min, std::optional<Scalar> max) const { return clamp(min, max); }

#define LOCUS_UNARY_INPLACE(fn, to_float)                                                          \
  Tensor& Tensor::fn##_() const {                                                                        \
    ScalarType rt = (to_float) && !locus::is_floating_point(scalar_type()) ? default_dtype() : scalar_type(); \
    return inplace(mut_self(), #fn "_", rt, [&](const Tensor& me, Tensor*) { return me.fn(); });                            \
  }
LOCUS_UNARY_INPLACE(tan, true)
LOCUS_UNARY_INPLACE(asin, true)
LOCUS_UNARY_INPLACE(acos, true)
LOCUS_UNARY_INPLACE(atan, true)
LOCUS_UNARY_INPLACE(sinh, true)
LOCUS_UNARY_INPLACE(cosh, true)
LOCUS_UNARY_INPLACE(asinh, true)
LOCUS_UNARY_INPLACE(acosh, true)
LOCUS_UNARY_INPLACE(atanh, true)
LOCUS_UNARY_INPLACE(log10, true)
LOCUS_UNARY_INPLACE(trunc, false)
LOCUS_UNARY_INPLACE(fix, false)
LOCUS_UNARY_INPLACE(frac, false)
LOCUS_UNARY_INPLACE(erfc, true)
LOCUS_UNARY_INPLACE(erfinv, true)
LOCUS_UNARY_INPLACE(lgamma, true)
LOCUS_UNARY_INPLACE(digamma, true)
LOCUS_UNARY_INPLACE(sinc, true)
LOCUS_UNARY_INPLACE(deg2rad, true)
LOCUS_UNARY_INPLACE(rad2deg, true)
LOCUS_UNARY_INPLACE(sgn, false)
LOCUS_UNARY_INPLACE(arcsin, true)
LOCUS_UNARY_INPLACE(arccos, true)
LOCUS_UNARY_INPLACE(arctan, true)
LOCUS_UNARY_INPLACE(arcsinh, true)
LOCUS_UNARY_INPLACE(arccosh, true)
LOCUS_UNARY_INPLACE(arctanh, true)
LOCUS_UNARY_INPLACE(absolute, false)
LOCUS_UNARY_INPLACE(negative, false)
#undef LOCUS_UNARY_INPLACE
Tensor& Tensor::logit_(std::optional<double> eps) const {
  ScalarType rt = is_floating_point() ? scalar_type() : default_dtype();
  return inplace(mut_self(), "logit_", rt, [&](const Tensor& me, Tensor*) { return me.logit(eps); });
}
Tensor& Tensor::clip_(std::optional<Scalar> min, std::optional<Scalar> max) const { return clamp_(min, max); }

Tensor Tensor::hypot(const Tensor& other) const {
  ops::check_same_device("hypot", {{"self", this}, {"other", &other}});
  if (!locus::is_floating_point(result_of(*this, other)))
    throw Error("[hypot] expected floating-point inputs, got " + std::string(locus::toString(scalar_type())) + " and " +
                locus::toString(other.scalar_type()) + "; convert them first, e.g. x.to(torch::kFloat).");
  return binary_impl(BinaryOp::Hypot, *this, other, nullptr);
}
Tensor Tensor::fmod(const Tensor& other) const { return binary_impl(BinaryOp::Fmod, *this, other, nullptr); }
Tensor Tensor::fmod(const Scalar& other) const {
  return binary_scalar_impl(BinaryOp::Fmod, *this, other, false, nullptr);
}
Tensor Tensor::copysign(const Tensor& other) const { return binary_impl(BinaryOp::Copysign, *this, other, nullptr); }
Tensor Tensor::copysign(const Scalar& other) const {
  return binary_scalar_impl(BinaryOp::Copysign, *this, other, false, nullptr);
}
Tensor Tensor::xlogy(const Tensor& other) const { return binary_impl(BinaryOp::Xlogy, *this, other, nullptr); }
Tensor Tensor::xlogy(const Scalar& other) const {
  return binary_scalar_impl(BinaryOp::Xlogy, *this, other, false, nullptr);
}
Tensor Tensor::nextafter(const Tensor& other) const {
  ops::check_same_device("nextafter", {{"self", this}, {"other", &other}});
  ScalarType rt = result_of(*this, other);
  if (rt != kFloat && rt != kDouble)
    throw Error(std::string("[nextafter] expected float32 or float64 inputs, got ") + locus::toString(rt) + ".");
  return binary_impl(BinaryOp::NextAfter, *this, other, nullptr);
}
Tensor Tensor::logical_xor(const Tensor& other) const {
  ops::check_same_device("logical_xor", {{"self", this}, {"other", &other}});
  return ops::cast(*this, kBool).ne(ops::cast(other, kBool));
}
Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
  return binary_impl(rounding_op("div", rounding_mode), *this, other, nullptr);
}
Tensor Tensor::div(const Scalar& other, std::optional<std::string_view> rounding_mode) const {
  return binary_scalar_impl(rounding_op("div", rounding_mode), *this, other, false, nullptr);
}
Tensor Tensor::floor_divide(const Tensor& other) const {
  return binary_impl(BinaryOp::FloorDivide, *this, other, nullptr);
}
Tensor Tensor::floor_divide(const Scalar& other) const {
  return binary_scalar_impl(BinaryOp::FloorDivide, *this, other, false, nullptr);
}
Tensor Tensor::true_divide(const Tensor& other) const { return div(other); }
Tensor Tensor::true_divide(const Scalar& other) const { return div(other); }
Tensor Tensor::float_power(const Tensor& exponent) const { return to(kDouble).pow(exponent.to(kDouble)); }
Tensor Tensor::float_power(const Scalar& exponent) const { return to(kDouble).pow(exponent.toDouble()); }
Tensor Tensor::ldexp(const Tensor& other) const { return mul(locus::pow(2.0, other)); }

#define LOCUS_INPLACE_T(fn)                                                                          \
  Tensor& Tensor::fn##_(const Tensor& o) const {                                                           \
    ops::check_same_device(#fn "_", {{"self", this}, {"other", &o}});                                \
    ops::check_no_partial_overlap(#fn "_", mut_self(), o);                                                \
    return ops::assign_result(mut_self(), #fn "_", [&](const Tensor& me) { return me.fn(o); });                                 \
  }
LOCUS_INPLACE_T(hypot)
LOCUS_INPLACE_T(fmod)
LOCUS_INPLACE_T(copysign)
LOCUS_INPLACE_T(xlogy)
LOCUS_INPLACE_T(nextafter)
LOCUS_INPLACE_T(floor_divide)
LOCUS_INPLACE_T(true_divide)
LOCUS_INPLACE_T(ldexp)
#undef LOCUS_INPLACE_T
Tensor& Tensor::logical_xor_(const Tensor& o) const {
  ops::check_same_device("logical_xor_", {{"self", this}, {"other", &o}});
  return inplace(mut_self(), "logical_xor_", scalar_type(), [&](const Tensor& me, Tensor*) { return me.logical_xor(o); }, &o);
}
Tensor& Tensor::fmod_(const Scalar& o) const {
  return inplace(mut_self(), "fmod_", result_of(mut_self(), o), [&](const Tensor& me, Tensor*) { return me.fmod(o); });
}
Tensor& Tensor::copysign_(const Scalar& o) const {
  ScalarType rt = is_floating_point() ? scalar_type() : default_dtype();
  return inplace(mut_self(), "copysign_", rt, [&](const Tensor& me, Tensor*) { return me.copysign(o); });
}
Tensor& Tensor::xlogy_(const Scalar& o) const {
  ScalarType rt = is_floating_point() ? scalar_type() : default_dtype();
  return inplace(mut_self(), "xlogy_", rt, [&](const Tensor& me, Tensor*) { return me.xlogy(o); });
}
Tensor& Tensor::floor_divide_(const Scalar& o) const {
  return inplace(mut_self(), "floor_divide_", result_of(mut_self(), o), [&](const Tensor& me, Tensor*) { return me.floor_divide(o); });
}
Tensor& Tensor::true_divide_(const Scalar& o) const { return div_(o); }
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string_view> rounding_mode) const {
  ops::check_same_device("div_", {{"self", this}, {"other", &o}});
  BinaryOp op = rounding_op("div_", rounding_mode);
  ScalarType rt = rounding_result(op, result_of(mut_self(), o));
  return inplace(mut_self(), "div_", rt, [&](const Tensor& me, Tensor*) { return me.div(o, rounding_mode); }, &o);
}
Tensor& Tensor::div_(const Scalar& o, std::optional<std::string_view> rounding_mode) const {
  BinaryOp op = rounding_op("div_", rounding_mode);
  ScalarType rt = rounding_result(op, result_of(mut_self(), o));
  return inplace(mut_self(), "div_", rt, [&](const Tensor& me, Tensor*) { return me.div(o, rounding_mode); });
}
Tensor& Tensor::float_power_(const Tensor& o) const {
  ops::check_same_device("float_power_", {{"self", this}, {"other", &o}});
  if (scalar_type() != kDouble)
    throw Error(std::string("[float_power_] the base must be float64 for an in-place float_power, got ") +
                locus::toString(scalar_type()) + "; use float_power() instead.");
  return inplace(mut_self(), "float_power_", kDouble, [&](const Tensor& me, Tensor*) { return me.float_power(o); }, &o);
}
Tensor& Tensor::float_power_(const Scalar& o) const {
  if (scalar_type() != kDouble)
    throw Error(std::string("[float_power_] the base must be float64 for an in-place float_power, got ") +
                locus::toString(scalar_type()) + "; use float_power() instead.");
  return inplace(mut_self(), "float_power_", kDouble, [&](const Tensor& me, Tensor*) { return me.float_power(o); });
}

Tensor tan(const Tensor& a) { return a.tan(); }
Tensor asin(const Tensor& a) { return a.asin(); }
Tensor acos(const Tensor& a) { return a.acos(); }
Tensor atan(const Tensor& a) { return a.atan(); }
Tensor sinh(const Tensor& a) { return a.sinh(); }
Tensor cosh(const Tensor& a) { return a.cosh(); }
Tensor asinh(const Tensor& a) { return a.asinh(); }
Tensor acosh(const Tensor& a) { return a.acosh(); }
Tensor atanh(const Tensor& a) { return a.atanh(); }
Tensor arcsin(const Tensor& a) { return a.asin(); }
Tensor arccos(const Tensor& a) { return a.acos(); }
Tensor arctan(const Tensor& a) { return a.atan(); }
Tensor arcsinh(const Tensor& a) { return a.asinh(); }
Tensor arccosh(const Tensor& a) { return a.acosh(); }
Tensor arctanh(const Tensor& a) { return a.atanh(); }
Tensor log10(const Tensor& a) { return a.log10(); }
Tensor trunc(const Tensor& a) { return a.trunc(); }
Tensor fix(const Tensor& a) { return a.trunc(); }
Tensor frac(const Tensor& a) { return a.frac(); }
Tensor erfc(const Tensor& a) { return a.erfc(); }
Tensor erfinv(const Tensor& a) { return a.erfinv(); }
Tensor lgamma(const Tensor& a) { return a.lgamma(); }
Tensor digamma(const Tensor& a) { return a.digamma(); }
Tensor polygamma(int64_t n, const Tensor& a) { return a.polygamma(n); }
Tensor logit(const Tensor& a, std::optional<double> eps) { return a.logit(eps); }
Tensor sinc(const Tensor& a) { return a.sinc(); }
Tensor deg2rad(const Tensor& a) { return a.deg2rad(); }
Tensor rad2deg(const Tensor& a) { return a.rad2deg(); }
Tensor signbit(const Tensor& a) { return a.signbit(); }
Tensor sgn(const Tensor& a) { return a.sign(); }
Tensor absolute(const Tensor& a) { return a.abs(); }
Tensor negative(const Tensor& a) { return a.neg(); }
Tensor clip(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) { return a.clamp(min, max); }
Tensor hypot(const Tensor& a, const Tensor& b) { return a.hypot(b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return a.fmod(b); }
Tensor fmod(const Tensor& a, const Scalar& b) { return a.fmod(b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor remainder(const Tensor& a, const Scalar& b) { return a.remainder(b); }
Tensor remainder(const Scalar& a, const Tensor& b) {
  return binary_scalar_impl(BinaryOp::Remainder, b, a, true, nullptr);
}
Tensor copysign(const Tensor& a, const Tensor& b) { return a.copysign(b); }
Tensor copysign(const Tensor& a, const Scalar& b) { return a.copysign(b); }
Tensor xlogy(const Tensor& a, const Tensor& b) { return a.xlogy(b); }
Tensor xlogy(const Tensor& a, const Scalar& b) { return a.xlogy(b); }
Tensor xlogy(const Scalar& a, const Tensor& b) { return binary_scalar_impl(BinaryOp::Xlogy, b, a, true, nullptr); }
Tensor nextafter(const Tensor& a, const Tensor& b) { return a.nextafter(b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
Tensor logical_not(const Tensor& a) { return a.logical_not(); }
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  return a.div(b, rounding_mode);
}
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode) {
  return a.div(b, rounding_mode);
}
Tensor floor_divide(const Tensor& a, const Tensor& b) { return a.floor_divide(b); }
Tensor floor_divide(const Tensor& a, const Scalar& b) { return a.floor_divide(b); }
Tensor true_divide(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor true_divide(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor pow(const Scalar& self, const Tensor& exponent) {
  if (auto c = ac::policy(ac::Op::Pow, exponent.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return locus::pow(self, C(exponent)); });
  return binary_scalar_impl(BinaryOp::Pow, exponent, self, true, nullptr);
}
Tensor float_power(const Tensor& a, const Tensor& b) { return a.float_power(b); }
Tensor float_power(const Tensor& a, const Scalar& b) { return a.float_power(b); }
Tensor float_power(const Scalar& a, const Tensor& b) { return locus::pow(a.toDouble(), b.to(kDouble)); }
Tensor ldexp(const Tensor& a, const Tensor& b) { return a.ldexp(b); }

// ---- ops batch (stop 46) ----------------------------------------------------------------------
namespace {

// PyTorch's dtype dispatch of the bitwise kernels: bool and integers (shifts: integers only).
void check_bitwise(const char* name, ScalarType rt, bool shift) {
  if (locus::is_floating_point(rt) || (shift && rt == kBool))
    throw Error("[" + std::string(name) + "] not implemented for '" + locus::toString(rt) + "': " +
                (shift ? "shifts take integer tensors" : "bitwise ops take bool and integer tensors") +
                "; convert first, e.g. x.to(torch::kLong).");
}
bool is_shift(BinaryOp op) { return op == BinaryOp::LShift || op == BinaryOp::RShift; }

Tensor bitwise(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = binary_name(op);
  ops::check_same_device(name, {{"self", &a}, {"other", &b}});
  check_bitwise(name, result_of(a, b), is_shift(op));
  return binary_impl(op, a, b, nullptr);
}
// An integer scalar beyond 2^53 does not survive the backends' double operand: it goes as a 0-dim
// tensor of the result dtype on a's device instead (converted from int64 exactly, wrapped as PyTorch).
bool exact_in_double(const Scalar& s) {
  if (!s.isIntegral(false)) return true;
  int64_t v = s.toLong();
  return v >= -(int64_t{1} << 53) && v <= (int64_t{1} << 53);
}
Tensor scalar_tensor(const Tensor& a, const Scalar& s, ScalarType rt) {
  return tensor(s.toLong()).to(rt).to(a.device());
}
Tensor bitwise(BinaryOp op, const Tensor& a, const Scalar& b, bool scalar_first = false) {
  ScalarType rt = result_of(a, b);
  check_bitwise(binary_name(op), rt, is_shift(op));
  if (!exact_in_double(b)) {
    Tensor st = scalar_tensor(a, b, rt);
    return scalar_first ? binary_impl(op, st, a, nullptr) : binary_impl(op, a, st, nullptr);
  }
  return binary_scalar_impl(op, a, b, scalar_first, nullptr);
}
Tensor& bitwise_(BinaryOp op, const char* name, Tensor& self, const Tensor& o) {
  ops::check_same_device(name, {{"self", &self}, {"other", &o}});
  ScalarType rt = result_of(self, o);
  check_bitwise(name, rt, is_shift(op));
  return inplace(self, name, rt, [&](const Tensor& me, Tensor* s) { return binary_impl(op, me, o, s); }, &o);
}
Tensor& bitwise_(BinaryOp op, const char* name, Tensor& self, const Scalar& o) {
  ScalarType rt = result_of(self, o);
  check_bitwise(name, rt, is_shift(op));
  if (!exact_in_double(o)) {
    Tensor st = scalar_tensor(self, o, rt);
    return inplace(self, name, rt, [&](const Tensor& me, Tensor* s) { return binary_impl(op, me, st, s); });
  }
  return inplace(self, name, rt, [&](const Tensor& me, Tensor* s) { return binary_scalar_impl(op, me, o, false, s); });
}
// ~x: x ^ -1 in x's dtype (x ^ true for bool)
Scalar all_ones(const Tensor& t) { return t.scalar_type() == kBool ? Scalar(true) : Scalar(int64_t{-1}); }

}  // namespace

Tensor Tensor::bitwise_and(const Tensor& o) const { return bitwise(BinaryOp::BitAnd, *this, o); }
Tensor Tensor::bitwise_and(const Scalar& o) const { return bitwise(BinaryOp::BitAnd, *this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return bitwise(BinaryOp::BitOr, *this, o); }
Tensor Tensor::bitwise_or(const Scalar& o) const { return bitwise(BinaryOp::BitOr, *this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return bitwise(BinaryOp::BitXor, *this, o); }
Tensor Tensor::bitwise_xor(const Scalar& o) const { return bitwise(BinaryOp::BitXor, *this, o); }
Tensor Tensor::bitwise_left_shift(const Tensor& o) const { return bitwise(BinaryOp::LShift, *this, o); }
Tensor Tensor::bitwise_left_shift(const Scalar& o) const { return bitwise(BinaryOp::LShift, *this, o); }
Tensor Tensor::bitwise_right_shift(const Tensor& o) const { return bitwise(BinaryOp::RShift, *this, o); }
Tensor Tensor::bitwise_right_shift(const Scalar& o) const { return bitwise(BinaryOp::RShift, *this, o); }
Tensor Tensor::bitwise_not() const {
  check_bitwise("bitwise_not", scalar_type(), false);
  return binary_scalar_impl(BinaryOp::BitXor, *this, all_ones(*this), false, nullptr);
}
Tensor& Tensor::bitwise_and_(const Tensor& o) const { return bitwise_(BinaryOp::BitAnd, "bitwise_and_", mut_self(), o); }
Tensor& Tensor::bitwise_and_(const Scalar& o) const { return bitwise_(BinaryOp::BitAnd, "bitwise_and_", mut_self(), o); }
Tensor& Tensor::bitwise_or_(const Tensor& o) const { return bitwise_(BinaryOp::BitOr, "bitwise_or_", mut_self(), o); }
Tensor& Tensor::bitwise_or_(const Scalar& o) const { return bitwise_(BinaryOp::BitOr, "bitwise_or_", mut_self(), o); }
Tensor& Tensor::bitwise_xor_(const Tensor& o) const { return bitwise_(BinaryOp::BitXor, "bitwise_xor_", mut_self(), o); }
Tensor& Tensor::bitwise_xor_(const Scalar& o) const { return bitwise_(BinaryOp::BitXor, "bitwise_xor_", mut_self(), o); }
Tensor& Tensor::bitwise_left_shift_(const Tensor& o) const {
  return bitwise_(BinaryOp::LShift, "bitwise_left_shift_", mut_self(), o);
}
Tensor& Tensor::bitwise_left_shift_(const Scalar& o) const {
  return bitwise_(BinaryOp::LShift, "bitwise_left_shift_", mut_self(), o);
}
Tensor& Tensor::bitwise_right_shift_(const Tensor& o) const {
  return bitwise_(BinaryOp::RShift, "bitwise_right_shift_", mut_self(), o);
}
Tensor& Tensor::bitwise_right_shift_(const Scalar& o) const {
  return bitwise_(BinaryOp::RShift, "bitwise_right_shift_", mut_self(), o);
}
Tensor& Tensor::bitwise_not_() const {
  check_bitwise("bitwise_not_", scalar_type(), false);
  Scalar ones = all_ones(mut_self());
  return inplace(mut_self(), "bitwise_not_", scalar_type(),
                 [&](const Tensor& me, Tensor* s) { return binary_scalar_impl(BinaryOp::BitXor, me, ones, false, s); });
}

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return a.bitwise_and(b); }
Tensor bitwise_and(const Tensor& a, const Scalar& b) { return a.bitwise_and(b); }
Tensor bitwise_and(const Scalar& a, const Tensor& b) { return bitwise(BinaryOp::BitAnd, b, a, true); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return a.bitwise_or(b); }
Tensor bitwise_or(const Tensor& a, const Scalar& b) { return a.bitwise_or(b); }
Tensor bitwise_or(const Scalar& a, const Tensor& b) { return bitwise(BinaryOp::BitOr, b, a, true); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return a.bitwise_xor(b); }
Tensor bitwise_xor(const Tensor& a, const Scalar& b) { return a.bitwise_xor(b); }
Tensor bitwise_xor(const Scalar& a, const Tensor& b) { return bitwise(BinaryOp::BitXor, b, a, true); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) { return a.bitwise_left_shift(b); }
Tensor bitwise_left_shift(const Tensor& a, const Scalar& b) { return a.bitwise_left_shift(b); }
Tensor bitwise_left_shift(const Scalar& a, const Tensor& b) { return bitwise(BinaryOp::LShift, b, a, true); }
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) { return a.bitwise_right_shift(b); }
Tensor bitwise_right_shift(const Tensor& a, const Scalar& b) { return a.bitwise_right_shift(b); }
Tensor bitwise_right_shift(const Scalar& a, const Tensor& b) { return bitwise(BinaryOp::RShift, b, a, true); }
Tensor bitwise_not(const Tensor& a) { return a.bitwise_not(); }
Tensor operator&(const Tensor& a, const Tensor& b) { return a.bitwise_and(b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return a.bitwise_and(b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return b.bitwise_and(a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return a.bitwise_or(b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return a.bitwise_or(b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return b.bitwise_or(a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return a.bitwise_xor(b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return a.bitwise_xor(b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return b.bitwise_xor(a); }
Tensor operator<<(const Tensor& a, const Tensor& b) { return a.bitwise_left_shift(b); }
Tensor operator<<(const Tensor& a, const Scalar& b) { return a.bitwise_left_shift(b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return a.bitwise_right_shift(b); }
Tensor operator>>(const Tensor& a, const Scalar& b) { return a.bitwise_right_shift(b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return a.remainder(b); }
// as libtorch's: a tensor like b filled with a (truncated into an integer b's dtype, as fill_ does
// there), then its remainder by b, in b's dtype
Tensor operator%(const Scalar& a, const Tensor& b) {
  Scalar v = a;
  if (b.scalar_type() == kBool) v = Scalar(a.toDouble() != 0);
  else if (!b.is_floating_point() && a.isFloatingPoint()) v = Scalar(static_cast<int64_t>(a.toDouble()));
  return full_like(b, v).remainder(b);
}
// ---- end ops batch (stop 46) ----

}  // namespace locus
