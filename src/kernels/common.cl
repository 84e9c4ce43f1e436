/* Shared by every kernel file: the element type selected by -DDT_<name>, the scalar and
 * geometry structs the host mirrors (src/backends/gpu/gpu_backend.h), and strided indexing.
 *
 * T: storage type, A: arithmetic type (float for half/bfloat16, int for int8/int16/uint8/bool),
 * F: floating type for transcendental functions, ACC: accumulator for reductions.
 * LD(p, i) loads element i as A; ST(p, i, v) stores an A (bool stores v != 0). */
#define LOCUS_MAX_DIMS 8

/* dtype codes: the values of locus::ScalarType */
#define CODE_U8 0
#define CODE_I32 1
#define CODE_I64 2
#define CODE_F16 3
#define CODE_F32 4
#define CODE_F64 5
#define CODE_BOOL 6
#define CODE_BF16 7
#define CODE_I8 8
#define CODE_I16 9

DEVICE_FN float bf16_to_float(u16 b) { return AS_FLOAT(((u32)b) << 16); }
DEVICE_FN u16 float_to_bf16(float f) {
  u32 u = AS_UINT(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (u16)(u >> 16);
}

/* software binary16 conversions (round to nearest even), for values not in global memory */
DEVICE_FN float half_bits_to_float(u16 h) {
  u32 sign = ((u32)h & 0x8000u) << 16, e = ((u32)h >> 10) & 0x1fu, m = (u32)h & 0x3ffu;
  if (e == 0) {
    float f = (float)m * (1.0f / 16777216.0f);
    return AS_FLOAT(AS_UINT(f) | sign);
  }
  if (e == 31) return AS_FLOAT(sign | 0x7f800000u | (m << 13));
  return AS_FLOAT(sign | ((e + 112u) << 23) | (m << 13));
}
DEVICE_FN u16 float_to_half_bits(float f) {
  u32 u = AS_UINT(f);
  u32 sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return (u16)(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return (u16)(sign | 0x7c00u);
  if (a < 0x38800000u) {
    float scaled = AS_FLOAT(a) * 16777216.0f;
    u32 m = (u32)scaled;
    float rem = scaled - (float)m;
    if (rem > 0.5f || (rem == 0.5f && (m & 1u))) ++m;
    return (u16)(sign | m);
  }
  a += 0xc8000fffu + ((a >> 13) & 1u);
  return (u16)(sign | (a >> 13));
}

#if defined(DT_F32)
typedef float T; typedef float A; typedef float F; typedef float ACC;
#define T_CODE CODE_F32
#define IS_FLOAT 1
#define LD(p, i) ((p)[i])
#define ST(p, i, v) ((p)[i] = (v))
#elif defined(DT_F64)
typedef double T; typedef double A; typedef double F; typedef double ACC;
#define T_CODE CODE_F64
#define IS_FLOAT 1
#define LD(p, i) ((p)[i])
#define ST(p, i, v) ((p)[i] = (v))
#elif defined(DT_F16)
typedef u16 T; typedef float A; typedef float F; typedef float ACC;
#define T_CODE CODE_F16
#define IS_FLOAT 1
#define LD(p, i) LOAD_HALF((p), (i))
#define ST(p, i, v) STORE_HALF((p), (i), (v))
#elif defined(DT_BF16)
typedef u16 T; typedef float A; typedef float F; typedef float ACC;
#define T_CODE CODE_BF16
#define IS_FLOAT 1
#define LD(p, i) bf16_to_float((p)[i])
#define ST(p, i, v) ((p)[i] = float_to_bf16(v))
#elif defined(DT_I32)
typedef i32 T; typedef i32 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_I32
#define LD(p, i) ((p)[i])
#define ST(p, i, v) ((p)[i] = (T)(v))
#elif defined(DT_I64)
typedef i64 T; typedef i64 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_I64
#define LD(p, i) ((p)[i])
#define ST(p, i, v) ((p)[i] = (T)(v))
#elif defined(DT_U8)
typedef u8 T; typedef i32 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_U8
#define LD(p, i) ((A)(p)[i])
#define ST(p, i, v) ((p)[i] = (T)(v))
#elif defined(DT_I8)
typedef i8 T; typedef i32 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_I8
#define IS_SMALL_INT 1
#define LD(p, i) ((A)(p)[i])
#define ST(p, i, v) ((p)[i] = (T)(v))
#elif defined(DT_I16)
typedef i16 T; typedef i32 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_I16
#define IS_SMALL_INT 1
#define LD(p, i) ((A)(p)[i])
#define ST(p, i, v) ((p)[i] = (T)(v))
#elif defined(DT_BOOL)
typedef u8 T; typedef i32 A; typedef float F; typedef i64 ACC;
#define T_CODE CODE_BOOL
#define IS_BOOL 1
#define LD(p, i) ((A)((p)[i] != 0))
#define ST(p, i, v) ((p)[i] = (T)((v) != 0))
#else
#error "define one of DT_F32 DT_F64 DT_F16 DT_BF16 DT_I32 DT_I64 DT_I16 DT_I8 DT_U8 DT_BOOL"
#endif

#ifdef IS_FLOAT
#define IS_NAN(x) isnan(x)
#else
#define IS_NAN(x) 0
#endif

#ifdef DT_F64
#define FLIT(x) x
#else
#define FLIT(x) x##f
#endif

/* TO_A(v): converts any arithmetic value to A as a store into T would (bool: v != 0). */
#ifdef IS_BOOL
#define TO_A(v) ((A)((v) != 0))
#else
#define TO_A(v) ((A)(v))
#endif

/* FTO_A(v): a floating value converted to A as a store into T would. For int8/int16 as PyTorch's
 * x86 build does (the same on every device): truncate to int32, NaN and values outside int32's
 * range giving its minimum (whose low bits are 0), then wrap into T. */
#ifdef IS_SMALL_INT
DEVICE_FN A f32_to_small(float x) { return (x >= -2147483648.0f && x < 2147483648.0f) ? (A)(T)(i32)x : (A)0; }
#ifdef HAS_FP64
DEVICE_FN A f64_to_small(double x) { return (x >= -2147483648.0 && x < 2147483648.0) ? (A)(T)(i32)x : (A)0; }
#endif
#define FTO_A(v) f32_to_small(v)
#define DTO_A(v) f64_to_small(v)
#else
#define FTO_A(v) TO_A(v)
#define DTO_A(v) TO_A(v)
#endif

/* A host double in every representation a kernel may need (no double arguments on devices
 * without fp64). */
typedef struct {
  u64 dbits;  /* the double's bits */
  i64 l;      /* (int64) value, or value != 0 for bool */
  float f;    /* (float) value */
  i32 pad;
} Scalar;

#if defined(DT_F64)
#define SCALAR_A(s) AS_DOUBLE((s).dbits)
#elif defined(IS_FLOAT)
#define SCALAR_A(s) ((s).f)
#else
/* wrapped into T first, as PyTorch casts a scalar operand to the op's dtype (int8 > 200 is int8 > -56) */
#define SCALAR_A(s) ((A)(T)(s).l)
#endif

/* Broadcast elementwise geometry: all operands share sizes; strides per operand (elements).
 * `contiguous` is set when every operand is dense in row-major order. `row` > 0: a work-item per
 * row of that many elements along the last dim (GEOM_FOR_EACH), else one per element. */
typedef struct {
  i64 sizes[LOCUS_MAX_DIMS];
  i64 strides[4][LOCUS_MAX_DIMS];
  i64 numel;
  i32 ndim;
  i32 contiguous;
  i64 row;
} Geom;

/* Element offsets of linear index i for the first `nops` operands. */
DEVICE_FN void geom_offsets(const Geom* g, i64 i, int nops, i64* o) {
  for (int k = 0; k < nops; ++k) o[k] = g->contiguous ? i : 0;
  if (g->contiguous) return;
  for (int d = g->ndim - 1; d >= 0; --d) {
    i64 s = g->sizes[d];
    i64 c = i % s;
    i /= s;
    for (int k = 0; k < nops; ++k) o[k] += c * g->strides[k][d];
  }
}

/* Runs the statements (the trailing arguments) for every element of g that this work-item owns,
 * with o[k] the element offset of operand k < nops (o: a local i64 array of at least nops). With
 * g.row > 0 (the host's choice on CPU drivers, where geom_offsets' divisions per element cost
 * more than the op) an item takes whole rows and steps along each by the last dim's strides; the
 * statements must not `continue` or `break` the loop. */
#define GEOM_FOR_EACH(g, nops, o, ...)                                            \
  if ((g).row > 0) {                                                              \
    const i64 rows_ = (g).numel / (g).row;                                        \
    for (i64 r_ = GID(0); r_ < rows_; r_ += GSIZE(0)) {                           \
      geom_offsets(&(g), r_ * (g).row, (nops), o);                                \
      for (i64 j_ = 0; j_ < (g).row; ++j_) {                                      \
        __VA_ARGS__                                                               \
        for (int k_ = 0; k_ < (nops); ++k_) o[k_] += (g).strides[k_][(g).ndim - 1]; \
      }                                                                           \
    }                                                                             \
  } else {                                                                        \
    for (i64 i_ = GID(0); i_ < (g).numel; i_ += GSIZE(0)) {                       \
      geom_offsets(&(g), i_, (nops), o);                                          \
      __VA_ARGS__                                                                 \
    }                                                                             \
  }

#define TYPED(T_, base, off) ((GLOBAL T_*)((base) + (off)))

/* atomic *p += v for T, by compare-and-swap (1- and 2-byte types swap their 32-bit word). */
DEVICE_FN void atomic_add_T(GLOBAL T* p, A v) {
#if defined(DT_F32) || defined(DT_I32)
  GLOBAL u32* w = (GLOBAL u32*)p;
  u32 old = *(volatile GLOBAL u32*)w, assumed;
  do {
    assumed = old;
#if defined(DT_F32)
    u32 next = AS_UINT(AS_FLOAT(assumed) + v);
#else
    u32 next = (u32)((i32)assumed + v);
#endif
    old = ATOMIC_CAS32(w, assumed, next);
  } while (old != assumed);
#elif defined(DT_F64) || defined(DT_I64)
#ifdef HAS_INT64_ATOMICS
  GLOBAL u64* w = (GLOBAL u64*)p;
  u64 old = *(volatile GLOBAL u64*)w, assumed;
  do {
    assumed = old;
#if defined(DT_F64)
    u64 next = AS_U64(AS_DOUBLE(assumed) + v);
#else
    u64 next = (u64)((i64)assumed + v);
#endif
    old = ATOMIC_CAS64(w, assumed, next);
  } while (old != assumed);
#else
  *p = *p + v; /* not reached: the host refuses 64-bit scatter_add without 64-bit atomics */
#endif
#else
  /* u8, i8, i16, bool, f16, bf16: update the containing aligned 32-bit word */
  uptr addr = (uptr)p;
  GLOBAL u32* w = (GLOBAL u32*)(addr & ~(uptr)3);
  u32 shift = (u32)(addr & 3) * 8u;
  u32 mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  u32 old = *(volatile GLOBAL u32*)w, assumed;
  do {
    assumed = old;
    u32 cur = (assumed & mask) >> shift;
#if defined(DT_F16)
    u32 nb = (u32)float_to_half_bits(half_bits_to_float((u16)cur) + v);
#elif defined(DT_BF16)
    u32 nb = (u32)float_to_bf16(bf16_to_float((u16)cur) + v);
#elif defined(IS_BOOL)
    u32 nb = (cur != 0 || v != 0) ? 1u : 0u;
#elif defined(DT_I16)
    u32 nb = (u32)(u16)((A)cur + v);
#else
    u32 nb = (u32)(u8)((A)cur + v);
#endif
    u32 next = (assumed & ~mask) | ((nb << shift) & mask);
    old = ATOMIC_CAS32(w, assumed, next);
  } while (old != assumed);
#endif
}
