// Unary elementwise ops. Each op is a functor over the compute type (float for 16-bit floats);
// ops that only make sense on floating types (exp, tanh, ...) are instantiated for those only,
// since the op layer promotes integer inputs to a floating dtype before calling them.
#include <cmath>
#include <limits>

#include "backends/cpu/kernels.h"
#include "backends/cpu/vec_math.h"

namespace locus::cpu {
namespace {

using backend::UnaryOp;
using backend::UnaryParams;

template <class T, class F>
LOCUS_CPU_CLONES void map_contig(T* __restrict o, const T* __restrict a, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(f(static_cast<compute_t<T>>(a[i])));
}

template <class T, class F>
void map_strided(char* o, int64_t so, const char* a, int64_t sa, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<T*>(o + i * so) = static_cast<T>(f(static_cast<compute_t<T>>(*reinterpret_cast<const T*>(a + i * sa))));
}

template <class T, class F>
void run_map(const TensorRef& out, const TensorRef& in, int64_t grain, F f) {
  const TensorRef* refs[2] = {&out, &in};
  for_each_run<2>(refs, grain, [&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T))
      map_contig<T>(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]), n, f);
    else
      map_strided<T>(p[0], s[0], p[1], s[1], n, f);
  });
}

// gelu: on contiguous float runs libmvec's vector erf / tanh where it loads (vec_math.h), else f.
template <class T, class F>
void run_gelu(const TensorRef& out, const TensorRef& in, bool tanh_form, F f) {
  const TensorRef* refs[2] = {&out, &in};
  for_each_run<2>(refs, kGrainMath, [&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      if constexpr (std::is_same_v<T, float>)
        if (vec_math::gelu(reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]), n, tanh_form)) return;
      return map_contig<T>(reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]), n, f);
    }
    map_strided<T>(p[0], s[0], p[1], s[1], n, f);
  });
}

// Two's-complement negation without signed-overflow UB.
template <class C>
inline C neg_wrap(C x) {
  if constexpr (std::is_integral_v<C> && std::is_signed_v<C>)
    return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(x));
  else
    return -x;
}

// ---- ops valid on every dtype -------------------------------------------------------------------
struct Neg { template <class C> C operator()(C x) const { return neg_wrap(x); } };
struct Abs {
  template <class C> C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return std::fabs(x);
    else if constexpr (std::is_unsigned_v<C>) return x;
    else return x < 0 ? neg_wrap(x) : x;
  }
};
struct Relu { template <class C> C operator()(C x) const { return x < C(0) ? C(0) : x; } };  // NaN stays NaN
struct Square {
  template <class C> C operator()(C x) const {
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>) {
      using U = wide_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(x) * static_cast<U>(x));
    } else {
      return x * x;
    }
  }
};
struct Sign { template <class C> C operator()(C x) const { return static_cast<C>((C(0) < x) - (x < C(0))); } };
struct Floor { template <class C> C operator()(C x) const { if constexpr (std::is_floating_point_v<C>) return std::floor(x); else return x; } };
struct Ceil { template <class C> C operator()(C x) const { if constexpr (std::is_floating_point_v<C>) return std::ceil(x); else return x; } };
// round half to even, as torch.round
struct Round { template <class C> C operator()(C x) const { if constexpr (std::is_floating_point_v<C>) return std::nearbyint(x); else return x; } };
struct Trunc {
  template <class C> C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) return std::trunc(x);
    else return x;
  }
};
struct LogicalNot { template <class C> C operator()(C x) const { return static_cast<C>(x == C(0)); } };
template <class C>
struct Clamp {
  C lo, hi;
  bool has_lo, has_hi;
  C operator()(C x) const {
    if (has_lo) x = x < lo ? lo : x;
    if (has_hi) x = x > hi ? hi : x;
    return x;
  }
};

// ---- floating-only ops --------------------------------------------------------------------------
struct Exp { template <class C> C operator()(C x) const { return std::exp(x); } };
struct Log { template <class C> C operator()(C x) const { return std::log(x); } };
struct Sqrt { template <class C> C operator()(C x) const { return std::sqrt(x); } };
struct Rsqrt { template <class C> C operator()(C x) const { return C(1) / std::sqrt(x); } };
struct Reciprocal { template <class C> C operator()(C x) const { return C(1) / x; } };
struct Sin { template <class C> C operator()(C x) const { return std::sin(x); } };
struct Cos { template <class C> C operator()(C x) const { return std::cos(x); } };
struct Tanh { template <class C> C operator()(C x) const { return std::tanh(x); } };
struct Log1p { template <class C> C operator()(C x) const { return std::log1p(x); } };
struct Expm1 { template <class C> C operator()(C x) const { return std::expm1(x); } };
struct Erf { template <class C> C operator()(C x) const { return std::erf(x); } };
struct Log2 { template <class C> C operator()(C x) const { return std::log2(x); } };
struct Exp2 { template <class C> C operator()(C x) const { return std::exp2(x); } };
// ---- math batch (stop 45) ----
struct Tan { template <class C> C operator()(C x) const { return std::tan(x); } };
struct Asin { template <class C> C operator()(C x) const { return std::asin(x); } };
struct Acos { template <class C> C operator()(C x) const { return std::acos(x); } };
struct Atan { template <class C> C operator()(C x) const { return std::atan(x); } };
struct Sinh { template <class C> C operator()(C x) const { return std::sinh(x); } };
struct Cosh { template <class C> C operator()(C x) const { return std::cosh(x); } };
struct Asinh { template <class C> C operator()(C x) const { return std::asinh(x); } };
struct Acosh { template <class C> C operator()(C x) const { return std::acosh(x); } };
struct Atanh { template <class C> C operator()(C x) const { return std::atanh(x); } };
struct Log10 { template <class C> C operator()(C x) const { return std::log10(x); } };
struct Erfc { template <class C> C operator()(C x) const { return std::erfc(x); } };
struct Lgamma { template <class C> C operator()(C x) const { return std::lgamma(x); } };
// Giles' single-precision approximation, then two Newton steps on erf (full precision in double);
// +-1 give +-inf and |y| > 1 NaN, as PyTorch. The same steps as locus_erfinv in unary.cl.
struct Erfinv {
  template <class C> C operator()(C y) const {
    if (y < C(-1) || y > C(1)) return std::numeric_limits<C>::quiet_NaN();
    if (y == C(1) || y == C(-1)) return std::copysign(std::numeric_limits<C>::infinity(), y);
    C w = -std::log((C(1) - y) * (C(1) + y)), p;
    if (w < C(5)) {
      w -= C(2.5);
      p = C(2.81022636e-08);
      for (C c : {C(3.43273939e-07), C(-3.5233877e-06), C(-4.39150654e-06), C(0.00021858087), C(-0.00125372503),
                  C(-0.00417768164), C(0.246640727), C(1.50140941)})
        p = c + p * w;
    } else {
      w = std::sqrt(w) - C(3);
      p = C(-0.000200214257);
      for (C c : {C(0.000100950558), C(0.00134934322), C(-0.00367342844), C(0.00573950773), C(-0.0076224613),
                  C(0.00943887047), C(1.00167406), C(2.83297682)})
        p = c + p * w;
    }
    C x = p * y;
    for (int k = 0; k < 2; ++k) x -= (std::erf(x) - y) / (C(1.12837916709551257390) * std::exp(-x * x));
    return x;
  }
};
// PyTorch's calc_digamma: the reflection for x < 0, the recurrence up to 10, then the asymptotic
// series; digamma(+-0) = -+inf, NaN at negative integers. The same steps as locus_digamma in unary.cl.
struct Digamma {
  template <class C> C operator()(C x) const {
    const C pi = C(3.14159265358979323846);
    if (x == C(0)) return std::copysign(std::numeric_limits<C>::infinity(), -x);
    C result = 0;
    if (x < C(0)) {
      if (x == std::trunc(x)) return std::numeric_limits<C>::quiet_NaN();
      C r = x - std::trunc(x);
      result = -pi / std::tan(pi * r);
      x = C(1) - x;
    }
    while (x < C(10)) {
      result -= C(1) / x;
      x += C(1);
    }
    if (x == C(10)) return result + C(2.25175258906672110764);
    C y = 0;
    if (x < C(1e17)) {
      C z = C(1) / (x * x), q = C(8.33333333333333333333E-2);
      for (C c : {C(-2.10927960927960927961E-2), C(7.57575757575757575758E-3), C(-4.16666666666666666667E-3),
                  C(3.96825396825396825397E-3), C(-8.33333333333333333333E-3), C(8.33333333333333333333E-2)})
        q = q * z + c;
      y = z * q;
    }
    return result + std::log(x) - C(0.5) / x - y;
  }
};
// PyTorch's calc_trigamma (polygamma(1, x)): the reflection below 1/2, six steps of the recurrence,
// then the asymptotic series. The same steps as locus_trigamma in unary.cl.
struct Trigamma {
  template <class C> C operator()(C x) const {
    const C pi = C(3.14159265358979323846);
    C sign = 1, result = 0;
    if (x < C(0.5)) {
      sign = -1;
      C s = std::sin(pi * x);
      result -= (pi * pi) / (s * s);
      x = C(1) - x;
    }
    for (int i = 0; i < 6; ++i) {
      result += C(1) / (x * x);
      x += C(1);
    }
    C ixx = C(1) / (x * x);
    result += (C(1) + C(1) / (C(2) * x) + ixx * (C(1) / C(6) - ixx * (C(1) / C(30) - ixx * (C(1) / C(42))))) / x;
    return sign * result;
  }
};
// 1 / (1 + e^-x) without overflow for large |x|
struct Sigmoid {
  template <class C> C operator()(C x) const {
    if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
    C e = std::exp(x);
    return e / (C(1) + e);
  }
};
struct Gelu {
  template <class C> C operator()(C x) const {
    return x * C(0.5) * (C(1) + std::erf(x * C(0.70710678118654752440)));
  }
};
struct GeluTanh {
  template <class C> C operator()(C x) const {
    const C k = C(0.79788456080286535588);  // sqrt(2 / pi)
    return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
  }
};
template <class C>
struct PowScalar {
  C e;
  C operator()(C x) const { return std::pow(x, e); }
};

template <class T>
void dispatch_pow(const TensorRef& out, const TensorRef& in, double e) {
  using C = compute_t<T>;
  if (e == 2) return run_map<T>(out, in, kGrainCheap, Square{});
  if (e == 1) return run_map<T>(out, in, kGrainCheap, [](C x) { return x; });
  if (e == 0.5) return run_map<T>(out, in, kGrainMath, Sqrt{});
  if (e == -1) return run_map<T>(out, in, kGrainCheap, Reciprocal{});
  if (e == 3) return run_map<T>(out, in, kGrainCheap, [](C x) { return x * x * x; });
  if (e == -0.5) return run_map<T>(out, in, kGrainMath, Rsqrt{});
  if (e == -2) return run_map<T>(out, in, kGrainCheap, [](C x) { return C(1) / (x * x); });
  run_map<T>(out, in, kGrainMath, PowScalar<C>{static_cast<C>(e)});
}

template <class T>
void unary_float(UnaryOp op, const TensorRef& out, const TensorRef& in, const UnaryParams& p) {
  switch (op) {
    case UnaryOp::Exp: return run_map<T>(out, in, kGrainMath, Exp{});
    case UnaryOp::Log: return run_map<T>(out, in, kGrainMath, Log{});
    case UnaryOp::Sqrt: return run_map<T>(out, in, kGrainMath, Sqrt{});
    case UnaryOp::Rsqrt: return run_map<T>(out, in, kGrainMath, Rsqrt{});
    case UnaryOp::Reciprocal: return run_map<T>(out, in, kGrainCheap, Reciprocal{});
    case UnaryOp::Sin: return run_map<T>(out, in, kGrainMath, Sin{});
    case UnaryOp::Cos: return run_map<T>(out, in, kGrainMath, Cos{});
    case UnaryOp::Tanh: return run_map<T>(out, in, kGrainMath, Tanh{});
    case UnaryOp::Log1p: return run_map<T>(out, in, kGrainMath, Log1p{});
    case UnaryOp::Expm1: return run_map<T>(out, in, kGrainMath, Expm1{});
    case UnaryOp::Erf: return run_map<T>(out, in, kGrainMath, Erf{});
    case UnaryOp::Log2: return run_map<T>(out, in, kGrainMath, Log2{});
    case UnaryOp::Exp2: return run_map<T>(out, in, kGrainMath, Exp2{});
    case UnaryOp::Tan: return run_map<T>(out, in, kGrainMath, Tan{});
    case UnaryOp::Asin: return run_map<T>(out, in, kGrainMath, Asin{});
    case UnaryOp::Acos: return run_map<T>(out, in, kGrainMath, Acos{});
    case UnaryOp::Atan: return run_map<T>(out, in, kGrainMath, Atan{});
    case UnaryOp::Sinh: return run_map<T>(out, in, kGrainMath, Sinh{});
    case UnaryOp::Cosh: return run_map<T>(out, in, kGrainMath, Cosh{});
    case UnaryOp::Asinh: return run_map<T>(out, in, kGrainMath, Asinh{});
    case UnaryOp::Acosh: return run_map<T>(out, in, kGrainMath, Acosh{});
    case UnaryOp::Atanh: return run_map<T>(out, in, kGrainMath, Atanh{});
    case UnaryOp::Log10: return run_map<T>(out, in, kGrainMath, Log10{});
    case UnaryOp::Erfc: return run_map<T>(out, in, kGrainMath, Erfc{});
    case UnaryOp::Erfinv: return run_map<T>(out, in, kGrainMath, Erfinv{});
    case UnaryOp::Lgamma: return run_map<T>(out, in, kGrainMath, Lgamma{});
    case UnaryOp::Digamma: return run_map<T>(out, in, kGrainMath, Digamma{});
    case UnaryOp::Trigamma: return run_map<T>(out, in, kGrainMath, Trigamma{});
    case UnaryOp::Sigmoid: return run_map<T>(out, in, kGrainMath, Sigmoid{});
    case UnaryOp::Gelu: return run_gelu<T>(out, in, false, Gelu{});
    case UnaryOp::GeluTanh: return run_gelu<T>(out, in, true, GeluTanh{});
    case UnaryOp::PowScalar: return dispatch_pow<T>(out, in, p.a);
    default: break;
  }
  throw BackendError("[cpu unary] op " + std::to_string(static_cast<int>(op)) + " is not a unary kernel.");
}

}  // namespace

void unary(UnaryOp op, const TensorRef& out, const TensorRef& in, const UnaryParams& p) {
  visit_dtype(in.dtype, "unary", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    using C = compute_t<T>;
    switch (op) {
      case UnaryOp::Neg: return run_map<T>(out, in, kGrainCheap, Neg{});
      case UnaryOp::Abs: return run_map<T>(out, in, kGrainCheap, Abs{});
      case UnaryOp::Relu: return run_map<T>(out, in, kGrainCheap, Relu{});
      case UnaryOp::Square: return run_map<T>(out, in, kGrainCheap, Square{});
      case UnaryOp::Sign: return run_map<T>(out, in, kGrainCheap, Sign{});
      case UnaryOp::Floor: return run_map<T>(out, in, kGrainCheap, Floor{});
      case UnaryOp::Ceil: return run_map<T>(out, in, kGrainCheap, Ceil{});
      case UnaryOp::Round: return run_map<T>(out, in, kGrainCheap, Round{});
      case UnaryOp::Trunc: return run_map<T>(out, in, kGrainCheap, Trunc{});
      case UnaryOp::LogicalNot: return run_map<T>(out, in, kGrainCheap, LogicalNot{});
      case UnaryOp::Clamp:
        return run_map<T>(out, in, kGrainCheap, Clamp<C>{scalar_as<T>(p.a), scalar_as<T>(p.b), p.has_a, p.has_b});
      default:
        if constexpr (is_float_v<T>) return unary_float<T>(op, out, in, p);
        else unsupported("unary", in.dtype);
    }
  });
}

}  // namespace locus::cpu
