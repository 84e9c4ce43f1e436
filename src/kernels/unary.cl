/* out = op(in) for one dtype; op codes are locus::backend::UnaryOp. Strided via Geom
 * (operand 0: out, 1: in). Integer dtypes run floating functions through F. */
#include "common.cl"

#define U_NEG 0
#define U_ABS 1
#define U_EXP 2
#define U_LOG 3
#define U_SQRT 4
#define U_RELU 5
#define U_SIGMOID 6
#define U_TANH 7
#define U_CLAMP 8
#define U_POW 9
#define U_SIN 10
#define U_COS 11
#define U_RSQRT 12
#define U_RECIPROCAL 13
#define U_GELU 14
#define U_GELU_TANH 15
#define U_SIGN 16
#define U_SQUARE 17
#define U_LOG1P 18
#define U_EXPM1 19
#define U_FLOOR 20
#define U_CEIL 21
#define U_ROUND 22
#define U_LOGICAL_NOT 23
#define U_RELU_BACKWARD 24
#define U_ERF 25
#define U_LOG2 26
#define U_EXP2 27
/* ---- math batch (stop 45) ---- */
#define U_TAN 28
#define U_ASIN 29
#define U_ACOS 30
#define U_ATAN 31
#define U_SINH 32
#define U_COSH 33
#define U_ASINH 34
#define U_ACOSH 35
#define U_ATANH 36
#define U_LOG10 37
#define U_TRUNC 38
#define U_ERFC 39
#define U_ERFINV 40
#define U_LGAMMA 41
#define U_DIGAMMA 42
#define U_TRIGAMMA 43

/* erfinv: Giles' single-precision approximation, then two Newton steps on erf (full precision
 * in double); +-1 give +-inf, |y| > 1 NaN, as PyTorch. */
DEVICE_FN F locus_erfinv(F y) {
  if (y < FLIT(-1.0) || y > FLIT(1.0)) return sqrt(FLIT(1.0) - y * y); /* NaN */
  if (y == FLIT(1.0) || y == FLIT(-1.0)) return y / (FLIT(1.0) - fabs(y)); /* +-inf; NaN falls through */
  F w = -log((FLIT(1.0) - y) * (FLIT(1.0) + y));
  F p;
  if (w < FLIT(5.0)) {
    w = w - FLIT(2.5);
    p = FLIT(2.81022636e-08);
    p = FLIT(3.43273939e-07) + p * w;
    p = FLIT(-3.5233877e-06) + p * w;
    p = FLIT(-4.39150654e-06) + p * w;
    p = FLIT(0.00021858087) + p * w;
    p = FLIT(-0.00125372503) + p * w;
    p = FLIT(-0.00417768164) + p * w;
    p = FLIT(0.246640727) + p * w;
    p = FLIT(1.50140941) + p * w;
  } else {
    w = sqrt(w) - FLIT(3.0);
    p = FLIT(-0.000200214257);
    p = FLIT(0.000100950558) + p * w;
    p = FLIT(0.00134934322) + p * w;
    p = FLIT(-0.00367342844) + p * w;
    p = FLIT(0.00573950773) + p * w;
    p = FLIT(-0.0076224613) + p * w;
    p = FLIT(0.00943887047) + p * w;
    p = FLIT(1.00167406) + p * w;
    p = FLIT(2.83297682) + p * w;
  }
  F x = p * y;
  for (int k = 0; k < 2; ++k) x = x - (erf(x) - y) / (FLIT(1.12837916709551257390) * exp(-x * x));
  return x;
}

/* digamma as PyTorch's calc_digamma: the reflection for x < 0, the recurrence up to 10, then the
 * asymptotic series; digamma(+-0) = -+inf, negative integers NaN. */
DEVICE_FN F locus_digamma(F x) {
  const F pi = FLIT(3.14159265358979323846);
  if (x == (F)0) return FLIT(-1.0) / x; /* copysign(inf, -x) */
  F result = 0;
  if (x < (F)0) {
    if (x == trunc(x)) return sqrt(x); /* NaN at negative integers */
    F r = x - trunc(x);
    result = -pi / tan(pi * r);
    x = FLIT(1.0) - x;
  }
  while (x < FLIT(10.0)) {
    result -= FLIT(1.0) / x;
    x += FLIT(1.0);
  }
  if (x == FLIT(10.0)) return result + FLIT(2.25175258906672110764);
  F y = 0;
  if (x < FLIT(1.0e17)) {
    F z = FLIT(1.0) / (x * x);
    F q = FLIT(8.33333333333333333333E-2);
    q = q * z + FLIT(-2.10927960927960927961E-2);
    q = q * z + FLIT(7.57575757575757575758E-3);
    q = q * z + FLIT(-4.16666666666666666667E-3);
    q = q * z + FLIT(3.96825396825396825397E-3);
    q = q * z + FLIT(-8.33333333333333333333E-3);
    q = q * z + FLIT(8.33333333333333333333E-2);
    y = z * q;
  }
  return result + log(x) - FLIT(0.5) / x - y;
}

/* trigamma (polygamma(1, x)) as PyTorch's calc_trigamma: the reflection below 1/2, six steps of
 * the recurrence, then the asymptotic series. */
DEVICE_FN F locus_trigamma(F x) {
  const F pi = FLIT(3.14159265358979323846);
  F sign = FLIT(1.0), result = 0;
  if (x < FLIT(0.5)) {
    sign = FLIT(-1.0);
    F s = sin(pi * x);
    result -= (pi * pi) / (s * s);
    x = FLIT(1.0) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += FLIT(1.0) / (x * x);
    x += FLIT(1.0);
  }
  F ixx = FLIT(1.0) / (x * x);
  result += (FLIT(1.0) + FLIT(1.0) / (FLIT(2.0) * x) +
             ixx * (FLIT(1.0) / FLIT(6.0) - ixx * (FLIT(1.0) / FLIT(30.0) - ixx * (FLIT(1.0) / FLIT(42.0))))) / x;
  return sign * result;
}

#ifndef IS_FLOAT
DEVICE_FN A ipow(A x, i64 e) {
  if (e < 0) return x == 1 ? (A)1 : (x == -1 ? ((e & 1) ? (A)-1 : (A)1) : (A)0);
  A r = 1;
  while (e) {
    if (e & 1) r = (A)(r * x);
    x = (A)(x * x);
    e >>= 1;
  }
  return r;
}
#endif

DEVICE_FN A unary_op(int op, A x, Scalar pa, Scalar pb, int has_a, int has_b) {
  F f = (F)x;
  switch (op) {
    case U_NEG: return (A)(-x);
#ifdef IS_FLOAT
    case U_ABS: return fabs(x);
#else
    case U_ABS: return x < 0 ? (A)(-x) : x;
#endif
    case U_EXP: return (A)exp(f);
    case U_LOG: return (A)log(f);
    case U_SQRT: return (A)sqrt(f);
    case U_RELU: return x < 0 ? (A)0 : x;
    case U_SIGMOID: return (A)(FLIT(1.0) / (FLIT(1.0) + exp(-f)));
    case U_TANH: return (A)tanh(f);
    case U_CLAMP: {
      A r = x;
      if (has_a && r < SCALAR_A(pa)) r = SCALAR_A(pa);
      if (has_b && r > SCALAR_A(pb)) r = SCALAR_A(pb);
      return r;
    }
#ifdef IS_FLOAT
    case U_POW: return (A)pow(f, (F)SCALAR_A(pa));
#else
    case U_POW: return ipow(x, pa.l);
#endif
    case U_SIN: return (A)sin(f);
    case U_COS: return (A)cos(f);
    case U_RSQRT: return (A)(FLIT(1.0) / sqrt(f));
    case U_RECIPROCAL: return (A)(FLIT(1.0) / f);
    case U_GELU: return (A)(FLIT(0.5) * f * (FLIT(1.0) + erf(f * FLIT(0.70710678118654752440))));
    case U_GELU_TANH: {
      F inner = FLIT(0.79788456080286535588) * (f + FLIT(0.044715) * f * f * f);
      return (A)(FLIT(0.5) * f * (FLIT(1.0) + tanh(inner)));
    }
    case U_SIGN: return (A)((x > 0) - (x < 0));
    case U_SQUARE: return (A)(x * x);
    case U_LOG1P: return (A)log1p(f);
    case U_EXPM1: return (A)expm1(f);
    case U_ERF: return (A)erf(f);
    case U_LOG2: return (A)log2(f);
    case U_EXP2: return (A)exp2(f);
    case U_TAN: return (A)tan(f);
    case U_ASIN: return (A)asin(f);
    case U_ACOS: return (A)acos(f);
    case U_ATAN: return (A)atan(f);
    case U_SINH: return (A)sinh(f);
    case U_COSH: return (A)cosh(f);
    case U_ASINH: return (A)asinh(f);
    case U_ACOSH: return (A)acosh(f);
    case U_ATANH: return (A)atanh(f);
    case U_LOG10: return (A)log10(f);
    case U_ERFC: return (A)erfc(f);
    case U_ERFINV: return (A)locus_erfinv(f);
    case U_LGAMMA: return (A)lgamma(f);
    case U_DIGAMMA: return (A)locus_digamma(f);
    case U_TRIGAMMA: return (A)locus_trigamma(f);
#ifdef IS_FLOAT
    case U_FLOOR: return (A)floor(f);
    case U_CEIL: return (A)ceil(f);
    case U_ROUND: return (A)rint(f);
    case U_TRUNC: return (A)trunc(f);
#else
    case U_FLOOR: case U_CEIL: case U_ROUND: case U_TRUNC: return x;
#endif
    case U_LOGICAL_NOT: return (A)(x == 0);
    case U_RELU_BACKWARD: return (A)(x > 0);
  }
  return x;
}

KERNEL void unary(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, Geom g, int op_arg,
                  Scalar pa, Scalar pb, int has_a, int has_b) {
#ifdef FIXED_OP /* the host specializes hot launches: the op switch folds away */
  const int op = FIXED_OP;
  (void)op_arg;
#else
  int op = op_arg;
#endif
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL T* in = TYPED(T, inb, ino);
  if (g.contiguous && GSIZE(0) >= g.numel) { /* fast path: one element per item, no loop */
    i64 i = GID(0);
    if (i < g.numel) ST(out, i, unary_op(op, LD(in, i), pa, pb, has_a, has_b));
    return;
  }
  i64 o[2];
  GEOM_FOR_EACH(g, 2, o, {
    A x = LD(in, o[1]);
    ST(out, o[0], unary_op(op, x, pa, pb, has_a, has_b));
  })
}
