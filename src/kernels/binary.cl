/* out = a op b (mode 0), a op scalar (mode 1) or scalar op a (mode 2), for one dtype; op codes
 * are locus::backend::BinaryOp. Comparisons and logical ops write bool (u8). Operands in Geom:
 * 0 out, 1 a, 2 b. Integer division and remainder by zero give 0; FloorDivide and Remainder
 * follow Python (floor; remainder takes the divisor's sign); Maximum/Minimum propagate NaN. */
#include "common.cl"

#define B_ADD 0
#define B_SUB 1
#define B_MUL 2
#define B_DIV 3
#define B_POW 4
#define B_MAXIMUM 5
#define B_MINIMUM 6
#define B_REMAINDER 7
#define B_FLOOR_DIVIDE 8
#define B_EQ 9
#define B_NE 10
#define B_LT 11
#define B_LE 12
#define B_GT 13
#define B_GE 14
#define B_LOGICAL_AND 15
#define B_LOGICAL_OR 16
#define B_THRESHOLD_BACKWARD 17
#define B_ATAN2 18
/* ---- math batch (stop 45) ---- */
#define B_HYPOT 19
#define B_COPYSIGN 20
#define B_XLOGY 21
#define B_FMOD 22
#define B_TRUNC_DIVIDE 23
#define B_NEXTAFTER 24
/* ---- ops batch (stop 46) ---- */
#define B_BIT_AND 25
#define B_BIT_OR 26
#define B_BIT_XOR 27
#define B_LSHIFT 28
#define B_RSHIFT 29
/* ---- stop 58 ---- */
#define B_GELU_BACKWARD 30
#define B_GELU_TANH_BACKWARD 31
/* shift counts are masked as x86 does (PyTorch's cpu results): 31 for types up to 32 bits, 63 for int64 */
#ifdef DT_I64
#define SHIFT_MASK 63
#else
#define SHIFT_MASK 31
#endif

#ifndef IS_FLOAT
DEVICE_FN A ipow2(A x, A e) {
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

DEVICE_FN A binary_op(int op, A x, A y) {
  switch (op) {
    case B_ADD: return (A)(x + y);
    case B_SUB: return (A)(x - y);
    case B_MUL: return (A)(x * y);
#ifdef IS_FLOAT
    case B_DIV: return x / y;
    case B_POW: return (A)pow((F)x, (F)y);
    case B_ATAN2: return (A)atan2((F)x, (F)y);
    case B_HYPOT: return (A)hypot((F)x, (F)y);
    case B_COPYSIGN: return (A)copysign((F)x, (F)y);
    case B_XLOGY: return IS_NAN(y) ? y : (x == 0 ? (A)0 : (A)((F)x * log((F)y)));
    case B_FMOD: return (A)fmod((F)x, (F)y);
    case B_TRUNC_DIVIDE: return (A)trunc((F)x / (F)y);
    case B_NEXTAFTER: return (A)nextafter((F)x, (F)y);
    case B_GELU_BACKWARD: {  /* x * (Phi(y) + y phi(y)), Phi by erfc */
      F f = (F)y;
      F cdf = FLIT(0.5) * erfc(-f * FLIT(0.70710678118654752440));
      F pdf = exp(FLIT(-0.5) * f * f) * FLIT(0.39894228040143267794);
      return (A)((F)x * (cdf + f * pdf));
    }
    case B_GELU_TANH_BACKWARD: {
      F f = (F)y, f2 = f * f;
      F t = tanh(FLIT(0.79788456080286535588) * (f + FLIT(0.044715) * f2 * f));
      return (A)((F)x * (FLIT(0.5) * (FLIT(1.0) + t) +
                         FLIT(0.5) * FLIT(0.79788456080286535588) * f * (FLIT(1.0) - t * t) * (FLIT(1.0) + FLIT(3.0) * FLIT(0.044715) * f2)));
    }
    case B_MAXIMUM: return (IS_NAN(x) || IS_NAN(y)) ? x + y : (x > y ? x : y);
    case B_MINIMUM: return (IS_NAN(x) || IS_NAN(y)) ? x + y : (x < y ? x : y);
    case B_REMAINDER: {
      A r = fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
    case B_FLOOR_DIVIDE: {
      if (y == 0) return x / y;
      A m = fmod(x, y);
      A q = (x - m) / y;
      if (m != 0 && ((y < 0) != (m < 0))) q -= 1;
      if (q != 0) {
        A fq = floor(q);
        if (q - fq > FLIT(0.5)) fq += 1;
        return fq;
      }
      return copysign((A)0, x / y);
    }
#else
    case B_DIV:
      if (y == 0) return 0;
      if (y == -1) return (A)(-x);
      return (A)(x / y);
    case B_POW: return ipow2(x, y);
    case B_MAXIMUM: return x > y ? x : y;
    case B_MINIMUM: return x < y ? x : y;
    case B_REMAINDER: {
      if (y == 0 || y == -1) return 0;
      A r = (A)(x % y);
      if (r != 0 && ((r < 0) != (y < 0))) r = (A)(r + y);
      return r;
    }
    case B_FLOOR_DIVIDE: {
      if (y == 0) return 0;
      if (y == -1) return (A)(-x);
      A q = (A)(x / y);
      if ((x % y) != 0 && ((x < 0) != (y < 0))) q -= 1;
      return q;
    }
    case B_FMOD:
      if (y == 0 || y == -1) return 0;
      return (A)(x % y);
    case B_TRUNC_DIVIDE:
      if (y == 0) return 0;
      if (y == -1) return (A)(-x);
      return (A)(x / y);
    case B_BIT_AND: return (A)(x & y);
    case B_BIT_OR: return (A)(x | y);
    case B_BIT_XOR: return (A)(x ^ y);
    case B_LSHIFT: return (A)((u64)(i64)x << (y & SHIFT_MASK));  /* the low bits of A's shift */
    case B_RSHIFT: return (A)(x >> (y & SHIFT_MASK));  /* x is sign- (zero-) extended into A */
#endif
    case B_EQ: return x == y;
    case B_NE: return x != y;
    case B_LT: return x < y;
    case B_LE: return x <= y;
    case B_GT: return x > y;
    case B_GE: return x >= y;
    case B_LOGICAL_AND: return (x != 0) && (y != 0);
    case B_LOGICAL_OR: return (x != 0) || (y != 0);
    case B_THRESHOLD_BACKWARD: return y <= 0 ? (A)0 : x;  /* a NaN y passes x, as PyTorch */
  }
  return x;
}

KERNEL void binary(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* ab, i64 ao, GLOBAL uchar* bb,
                   i64 bo, Geom g, int op_arg, int mode, Scalar s) {
#ifdef FIXED_OP /* the host specializes hot launches: the op switch folds away */
  const int op = FIXED_OP;
  (void)op_arg;
#else
  int op = op_arg;
#endif
  GLOBAL T* a = TYPED(T, ab, ao);
  GLOBAL T* b = TYPED(T, bb, bo);
  int to_bool = op >= B_EQ && op <= B_LOGICAL_OR;
  A sv = SCALAR_A(s);
  if (g.contiguous && GSIZE(0) >= g.numel) {  /* fast path: one element per item, no loop */
    i64 i = GID(0);
    if (i >= g.numel) return;
    A x = LD(a, i);
    A y = mode == 0 ? LD(b, i) : sv;
    A r = mode == 2 ? binary_op(op, y, x) : binary_op(op, x, y);
    if (to_bool)
      TYPED(u8, outb, outo)[i] = (u8)(r != 0);
    else
      ST(TYPED(T, outb, outo), i, r);
    return;
  }
  i64 o[3];
  GEOM_FOR_EACH(g, mode == 0 ? 3 : 2, o, {
    A x = LD(a, o[1]);
    A y = mode == 0 ? LD(b, o[2]) : sv;
    A r = mode == 2 ? binary_op(op, y, x) : binary_op(op, x, y);
    if (to_bool)
      TYPED(u8, outb, outo)[o[0]] = (u8)(r != 0);
    else
      ST(TYPED(T, outb, outo), o[0], r);
  })
}
