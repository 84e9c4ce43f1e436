// Binary elementwise ops (tensor-tensor and tensor-scalar) and where.
//
// A run of the iterator is dispatched to one of four loops: both operands contiguous (vv), one of
// them a broadcast scalar (vs / sv; a stride-0 operand or the op's scalar), or fully strided.
// Integer semantics follow Python: floor division and remainder take the divisor's sign, and a
// zero divisor writes 0 rather than trapping (SIGFPE); INT_MIN / -1 wraps.
#include <cmath>
#include <limits>

#include "backends/cpu/kernels.h"
#include "backends/cpu/vec_math.h"

namespace locus::cpu {
namespace {

using backend::BinaryOp;

template <class T, class O, class F>
LOCUS_CPU_CLONES void bin_vv(O* __restrict o, const T* __restrict a, const T* __restrict b, int64_t n, F f) {
  using C = compute_t<T>;
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
}
template <class T, class O, class F>
LOCUS_CPU_CLONES void bin_vs(O* __restrict o, const T* __restrict a, compute_t<T> s, int64_t n, F f) {
  using C = compute_t<T>;
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(static_cast<C>(a[i]), s));
}
template <class T, class O, class F>
LOCUS_CPU_CLONES void bin_sv(O* __restrict o, compute_t<T> s, const T* __restrict b, int64_t n, F f) {
  using C = compute_t<T>;
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(s, static_cast<C>(b[i])));
}
template <class T, class O, class F>
void bin_strided(char* o, int64_t so, const char* a, int64_t sa, const char* b, int64_t sb, int64_t n, F f) {
  using C = compute_t<T>;
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<O*>(o + i * so) = static_cast<O>(
        f(static_cast<C>(*reinterpret_cast<const T*>(a + i * sa)), static_cast<C>(*reinterpret_cast<const T*>(b + i * sb))));
}

template <class T, class O, class F>
void run_binary(const TensorRef& out, const TensorRef& a, const TensorRef& b, int64_t grain, F f) {
  using C = compute_t<T>;
  const TensorRef* refs[3] = {&out, &a, &b};
  for_each_run<3>(refs, grain, [&](char* const* p, const int64_t* s, int64_t n) {
    O* o = reinterpret_cast<O*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    const T* y = reinterpret_cast<const T*>(p[2]);
    if (s[0] == sizeof(O)) {
      // gelu's backward on float: libmvec's vector erfc / exp / tanh where it loads (vec_math.h)
      if constexpr (std::is_same_v<T, float> && std::is_same_v<O, float> && requires { F::kTanhForm; })
        if ((s[1] == sizeof(T) || s[1] == 0) && s[2] == sizeof(T) &&
            vec_math::gelu_backward(o, x, s[1] == 0 ? 0 : 1, y, n, F::kTanhForm))
          return;
      if (s[1] == sizeof(T) && s[2] == sizeof(T)) return bin_vv<T, O>(o, x, y, n, f);
      if (s[1] == sizeof(T) && s[2] == 0) return bin_vs<T, O>(o, x, static_cast<C>(*y), n, f);
      if (s[1] == 0 && s[2] == sizeof(T)) return bin_sv<T, O>(o, static_cast<C>(*x), y, n, f);
    }
    bin_strided<T, O>(p[0], s[0], p[1], s[1], p[2], s[2], n, f);
  });
}

template <class T, class O, class F>
void run_binary_scalar(const TensorRef& out, const TensorRef& a, compute_t<T> sc, bool first, int64_t grain, F f) {
  const TensorRef* refs[2] = {&out, &a};
  for_each_run<2>(refs, grain, [&](char* const* p, const int64_t* s, int64_t n) {
    O* o = reinterpret_cast<O*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    if (s[0] == sizeof(O) && s[1] == sizeof(T)) {
      if (first) bin_sv<T, O>(o, sc, x, n, f);
      else bin_vs<T, O>(o, x, sc, n, f);
      return;
    }
    using C = compute_t<T>;
    for (int64_t i = 0; i < n; ++i) {
      C v = static_cast<C>(*reinterpret_cast<const T*>(p[1] + i * s[1]));
      *reinterpret_cast<O*>(p[0] + i * s[0]) = static_cast<O>(first ? f(sc, v) : f(v, sc));
    }
  });
}

// ---- ops over the compute type C ----------------------------------------------------------------
template <class C>
constexpr bool is_signed_int_v = std::is_integral_v<C> && std::is_signed_v<C>;

struct Add {
  template <class C> C operator()(C a, C b) const {
    if constexpr (is_signed_int_v<C>) {
      using U = wide_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
struct Sub {
  template <class C> C operator()(C a, C b) const {
    if constexpr (is_signed_int_v<C>) {
      using U = wide_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
    } else {
      return a - b;
    }
  }
};
struct Mul {
  template <class C> C operator()(C a, C b) const {
    if constexpr (is_signed_int_v<C>) {
      using U = wide_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};
struct Div { template <class C> C operator()(C a, C b) const { return a / b; } };
struct Atan2 { template <class C> C operator()(C a, C b) const { return std::atan2(a, b); } };
// ---- math batch (stop 45) ----
struct Hypot { template <class C> C operator()(C a, C b) const { return std::hypot(a, b); } };
struct Copysign { template <class C> C operator()(C a, C b) const { return std::copysign(a, b); } };
struct NextAfter { template <class C> C operator()(C a, C b) const { return std::nextafter(a, b); } };
// a * log(b), 0 where a is 0 (unless b is NaN), as torch.xlogy
struct Xlogy {
  template <class C> C operator()(C a, C b) const {
    if (b != b) return b;
    return a == C(0) ? C(0) : a * std::log(b);
  }
};
// C's fmod: the result takes the dividend's sign; an integer x % 0 is 0 (PyTorch raises on cpu)
struct Fmod {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) return std::fmod(a, b);
    else if constexpr (std::is_unsigned_v<C>) return b == 0 ? C(0) : static_cast<C>(a % b);
    else return (b == 0 || b == C(-1)) ? C(0) : static_cast<C>(a % b);
  }
};
// division rounded toward zero (div(rounding_mode="trunc")); an integer x / 0 is 0
struct TruncDivide {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) return std::trunc(a / b);
    else if constexpr (std::is_unsigned_v<C>) return b == 0 ? C(0) : static_cast<C>(a / b);
    else {
      if (b == 0) return C(0);
      if (b == C(-1)) return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(a));  // INT_MIN / -1 wraps
      return static_cast<C>(a / b);
    }
  }
};
// NaN-propagating, as torch.maximum / torch.minimum
struct Maximum { template <class C> C operator()(C a, C b) const { return (a > b || a != a) ? a : b; } };
struct Minimum { template <class C> C operator()(C a, C b) const { return (a < b || a != a) ? a : b; } };

struct FloorDivide {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      // Python's float floor division (PyTorch's div_floor_floating): exact where a/b rounds up
      if (b == 0) return a / b;
      C mod = std::fmod(a, b);
      C div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= C(1);
      if (div != 0) {
        C fl = std::floor(div);
        if (div - fl > C(0.5)) fl += C(1);
        return fl;
      }
      return std::copysign(C(0), a / b);
    } else if constexpr (std::is_unsigned_v<C>) {
      return b == 0 ? C(0) : static_cast<C>(a / b);
    } else {
      if (b == 0) return C(0);
      if (b == C(-1)) return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(a));  // INT_MIN / -1 wraps
      C q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    }
  }
};
struct Remainder {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      // as PyTorch's cpu kernel (and the GPU kernel): fmod, moved into the divisor's sign; keeps -0
      C mod = std::fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    } else if constexpr (std::is_unsigned_v<C>) {
      return b == 0 ? C(0) : static_cast<C>(a % b);
    } else {
      if (b == 0 || b == C(-1)) return C(0);
      C r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};
struct Pow {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(a, b);
    } else {
      if constexpr (std::is_signed_v<C>) {
        if (b < 0) {
          if (a == 1) return C(1);
          if (a == C(-1)) return (b & 1) ? C(-1) : C(1);
          return C(0);
        }
      }
      // repeated squaring in unsigned arithmetic: overflow wraps as in PyTorch
      using U = wide_unsigned_t<C>;
      U base = static_cast<U>(a), r = 1;
      auto e = static_cast<std::make_unsigned_t<C>>(b);
      while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
      }
      return static_cast<C>(r);
    }
  }
};
struct Eq { template <class C> bool operator()(C a, C b) const { return a == b; } };
struct Ne { template <class C> bool operator()(C a, C b) const { return a != b; } };
struct Lt { template <class C> bool operator()(C a, C b) const { return a < b; } };
struct Le { template <class C> bool operator()(C a, C b) const { return a <= b; } };
struct Gt { template <class C> bool operator()(C a, C b) const { return a > b; } };
struct Ge { template <class C> bool operator()(C a, C b) const { return a >= b; } };
struct LogicalAnd { template <class C> bool operator()(C a, C b) const { return (a != C(0)) & (b != C(0)); } };
struct LogicalOr { template <class C> bool operator()(C a, C b) const { return (a != C(0)) | (b != C(0)); } };
// ---- ops batch (stop 46) ----
struct BitAnd { template <class C> C operator()(C a, C b) const { return static_cast<C>(a & b); } };
struct BitOr { template <class C> C operator()(C a, C b) const { return static_cast<C>(a | b); } };
struct BitXor { template <class C> C operator()(C a, C b) const { return static_cast<C>(a ^ b); } };
// Shifts as PyTorch's cpu kernel computes them on x86: types up to 32 bits shifted as 32-bit
// values, the count masked to 31 (63 for 64-bit types), as the shift instructions do.
template <class T>
struct LShift {
  template <class C> C operator()(C a, C b) const {
    using W = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    constexpr int mask = sizeof(T) == 8 ? 63 : 31;
    return static_cast<C>(static_cast<T>(static_cast<W>(a) << (static_cast<int>(b) & mask)));
  }
};
template <class T>
struct RShift {
  template <class C> C operator()(C a, C b) const {
    using S = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;  // int8 sign-, uint8 zero-extended
    constexpr int mask = sizeof(T) == 8 ? 63 : 31;
    return static_cast<C>(static_cast<T>(static_cast<S>(a) >> (static_cast<int>(b) & mask)));
  }
};

// relu's backward as PyTorch's threshold_backward: zero where the output is <= 0, the gradient elsewhere
// (a NaN output passes it on)
struct ThresholdBackward { template <class C> C operator()(C a, C b) const { return b <= C(0) ? C(0) : a; } };
// gelu's backward (PyTorch's GeluBackward0): a * (Phi(b) + b phi(b)), Phi by erfc (no cancellation
// for b << 0); and for the tanh approximation, the derivative of 0.5 b (1 + tanh(k (b + c b^3)))
struct GeluBackward {
  static constexpr bool kTanhForm = false;
  template <class C> C operator()(C a, C b) const {
    const C cdf = C(0.5) * std::erfc(-b * C(0.70710678118654752440));
    const C pdf = std::exp(C(-0.5) * b * b) * C(0.39894228040143267794);  // 1 / sqrt(2 pi)
    return a * (cdf + b * pdf);
  }
};
struct GeluTanhBackward {
  static constexpr bool kTanhForm = true;
  template <class C> C operator()(C a, C b) const {
    const C k = C(0.79788456080286535588), c = C(0.044715);  // sqrt(2 / pi)
    const C b2 = b * b, t = std::tanh(k * (b + c * b2 * b));
    return a * (C(0.5) * (C(1) + t) + C(0.5) * k * b * (C(1) - t * t) * (C(1) + C(3) * c * b2));
  }
};

// Elements below which a division never uses a second thread (per chunk): the divider makes it
// 0.1 ns an element on one thread (Zen 4, float), ten times an add's, so two threads pay from
// 16384 elements (a 64 x 784 batch divided by 255: 5.2 -> 3.0 us).
constexpr int64_t kGrainDivide = 8192;

// Calls k.template operator()<T, O>(functor, grain) for op on dtype T.
template <class T, class K>
void dispatch_op(BinaryOp op, ScalarType dt, const char* what, K&& k) {
  switch (op) {
    case BinaryOp::Add: return k.template operator()<T, T>(Add{}, kGrainCheap);
    case BinaryOp::Sub: return k.template operator()<T, T>(Sub{}, kGrainCheap);
    case BinaryOp::Mul: return k.template operator()<T, T>(Mul{}, kGrainCheap);
    case BinaryOp::Div:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(Div{}, kGrainDivide);
      else unsupported(what, dt);  // the op layer promotes integer true division to float
    case BinaryOp::Pow: return k.template operator()<T, T>(Pow{}, kGrainMath);
    case BinaryOp::Atan2:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(Atan2{}, kGrainMath);
      else unsupported(what, dt);  // the op layer promotes integers to float
    case BinaryOp::Hypot:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(Hypot{}, kGrainMath);
      else unsupported(what, dt);  // the op layer promotes integers to float
    case BinaryOp::Copysign:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(Copysign{}, kGrainCheap);
      else unsupported(what, dt);
    case BinaryOp::Xlogy:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(Xlogy{}, kGrainMath);
      else unsupported(what, dt);
    case BinaryOp::NextAfter:
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
        return k.template operator()<T, T>(NextAfter{}, kGrainCheap);
      else unsupported(what, dt);  // the op layer refuses other dtypes
    case BinaryOp::Fmod: return k.template operator()<T, T>(Fmod{}, kGrainMath);
    case BinaryOp::TruncDivide: return k.template operator()<T, T>(TruncDivide{}, kGrainMath);
    case BinaryOp::Maximum: return k.template operator()<T, T>(Maximum{}, kGrainCheap);
    case BinaryOp::Minimum: return k.template operator()<T, T>(Minimum{}, kGrainCheap);
    case BinaryOp::Remainder: return k.template operator()<T, T>(Remainder{}, kGrainMath);
    case BinaryOp::FloorDivide: return k.template operator()<T, T>(FloorDivide{}, kGrainMath);
    case BinaryOp::Eq: return k.template operator()<T, bool>(Eq{}, kGrainCheap);
    case BinaryOp::Ne: return k.template operator()<T, bool>(Ne{}, kGrainCheap);
    case BinaryOp::Lt: return k.template operator()<T, bool>(Lt{}, kGrainCheap);
    case BinaryOp::Le: return k.template operator()<T, bool>(Le{}, kGrainCheap);
    case BinaryOp::Gt: return k.template operator()<T, bool>(Gt{}, kGrainCheap);
    case BinaryOp::Ge: return k.template operator()<T, bool>(Ge{}, kGrainCheap);
    case BinaryOp::LogicalAnd: return k.template operator()<T, bool>(LogicalAnd{}, kGrainCheap);
    case BinaryOp::LogicalOr: return k.template operator()<T, bool>(LogicalOr{}, kGrainCheap);
    case BinaryOp::ThresholdBackward: return k.template operator()<T, T>(ThresholdBackward{}, kGrainCheap);
    case BinaryOp::GeluBackward:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(GeluBackward{}, kGrainMath);
      else unsupported(what, dt);  // (autograd calls it on gelu's float input)
    case BinaryOp::GeluTanhBackward:
      if constexpr (is_float_v<T>) return k.template operator()<T, T>(GeluTanhBackward{}, kGrainMath);
      else unsupported(what, dt);
    // ---- ops batch (stop 46) ---- (the op layer refuses floats, and bool shifts)
    case BinaryOp::BitAnd:
      if constexpr (!is_float_v<T>) return k.template operator()<T, T>(BitAnd{}, kGrainCheap);
      else unsupported(what, dt);
    case BinaryOp::BitOr:
      if constexpr (!is_float_v<T>) return k.template operator()<T, T>(BitOr{}, kGrainCheap);
      else unsupported(what, dt);
    case BinaryOp::BitXor:
      if constexpr (!is_float_v<T>) return k.template operator()<T, T>(BitXor{}, kGrainCheap);
      else unsupported(what, dt);
    case BinaryOp::LShift:
      if constexpr (!is_float_v<T> && !std::is_same_v<T, bool>)
        return k.template operator()<T, T>(LShift<T>{}, kGrainCheap);
      else unsupported(what, dt);
    case BinaryOp::RShift:
      if constexpr (!is_float_v<T> && !std::is_same_v<T, bool>)
        return k.template operator()<T, T>(RShift<T>{}, kGrainCheap);
      else unsupported(what, dt);
  }
  throw BackendError("[cpu " + std::string(what) + "] unknown op " + std::to_string(static_cast<int>(op)) + ".");
}

template <class O>
void where_loop(const TensorRef& out, const TensorRef& cond, const TensorRef& a, const TensorRef& b) {
  const TensorRef* refs[4] = {&out, &cond, &a, &b};
  for_each_run<4>(refs, kGrainCheap, [&](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(O) && s[1] == 1 && s[2] == sizeof(O) && s[3] == sizeof(O)) {
      O* __restrict o = reinterpret_cast<O*>(p[0]);
      const bool* __restrict c = reinterpret_cast<const bool*>(p[1]);
      const O* __restrict x = reinterpret_cast<const O*>(p[2]);
      const O* __restrict y = reinterpret_cast<const O*>(p[3]);
      for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<O*>(p[0] + i * s[0]) = *reinterpret_cast<const uint8_t*>(p[1] + i * s[1])
                                                    ? *reinterpret_cast<const O*>(p[2] + i * s[2])
                                                    : *reinterpret_cast<const O*>(p[3] + i * s[3]);
  });
}

}  // namespace

void binary(BinaryOp op, const TensorRef& out, const TensorRef& a, const TensorRef& b) {
  visit_dtype(a.dtype, "binary", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    dispatch_op<T>(op, a.dtype, "binary", [&]<class T2, class O, class F>(F f, int64_t grain) {
      run_binary<T2, O>(out, a, b, grain, f);
    });
  });
}

void binary_scalar(BinaryOp op, const TensorRef& out, const TensorRef& a, double s, bool scalar_first) {
  visit_dtype(a.dtype, "binary_scalar", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    compute_t<T> sc = scalar_as<T>(s);
    dispatch_op<T>(op, a.dtype, "binary_scalar", [&]<class T2, class O, class F>(F f, int64_t grain) {
      run_binary_scalar<T2, O>(out, a, sc, scalar_first, grain, f);
    });
  });
}

void where(const TensorRef& out, const TensorRef& cond, const TensorRef& a, const TensorRef& b) {
  switch (esize(out.dtype)) {
    case 1: return where_loop<uint8_t>(out, cond, a, b);
    case 2: return where_loop<uint16_t>(out, cond, a, b);
    case 4: return where_loop<uint32_t>(out, cond, a, b);
    default: return where_loop<uint64_t>(out, cond, a, b);
  }
}

}  // namespace locus::cpu
