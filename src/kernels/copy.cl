/* Strided copy with conversion into T (the input's dtype code is an argument), fill,
 * fill_linear and where. Geom operands: copy 0 out, 1 in; where 0 out, 1 cond, 2 a, 3 b. */
#include "common.cl"

/* element j of the input p (dtype code in_code) as A */
DEVICE_FN A load_as_A(GLOBAL uchar* p, i64 j, int in_code) {
  A v = 0;
  switch (in_code) {
    case CODE_U8: v = TO_A(((GLOBAL u8*)p)[j]); break;
    case CODE_BOOL: v = TO_A(((GLOBAL u8*)p)[j] != 0); break;
    case CODE_I8: v = TO_A(((GLOBAL i8*)p)[j]); break;
    case CODE_I16: v = TO_A(((GLOBAL i16*)p)[j]); break;
    case CODE_I32: v = TO_A(((GLOBAL i32*)p)[j]); break;
    case CODE_I64: v = TO_A(((GLOBAL i64*)p)[j]); break;
    case CODE_F32: v = FTO_A(((GLOBAL float*)p)[j]); break;
    case CODE_F16: v = FTO_A(LOAD_HALF((GLOBAL u16*)p, j)); break;
    case CODE_BF16: v = FTO_A(bf16_to_float(((GLOBAL u16*)p)[j])); break;
#ifdef HAS_FP64
    case CODE_F64: {
#if defined(DT_F16) || defined(DT_BF16)
      /* round once, from double to the 16-bit type, via float only when exact enough */
      v = (A)(float)((GLOBAL double*)p)[j];
#else
      v = DTO_A(((GLOBAL double*)p)[j]);
#endif
      break;
    }
#endif
  }
  return v;
}

KERNEL void copy_cast(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, Geom g,
                      int in_code) {
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL uchar* p = inb + ino;
  i64 o[2];
  GEOM_FOR_EACH(g, 2, o, { ST(out, o[0], load_as_A(p, o[1], in_code)); })
}

KERNEL void fill(GLOBAL uchar* outb, i64 outo, Geom g, Scalar value) {
  GLOBAL T* out = TYPED(T, outb, outo);
  A v = SCALAR_A(value);
  if (g.contiguous && GSIZE(0) >= g.numel) { /* fast path: one element per item, no loop */
    if (GID(0) < g.numel) ST(out, GID(0), v);
    return;
  }
  i64 o[1];
  GEOM_FOR_EACH(g, 1, o, { ST(out, o[0], v); })
}

/* contiguous out[i] = start + i * step, computed in double where the device has it */
KERNEL void fill_linear(GLOBAL uchar* outb, i64 outo, i64 n, Scalar start, Scalar step) {
  GLOBAL T* out = TYPED(T, outb, outo);
  for (i64 i = GID(0); i < n; i += GSIZE(0)) {
#if defined(HAS_FP64)
    double v = AS_DOUBLE(start.dbits) + (double)i * AS_DOUBLE(step.dbits);
    ST(out, i, DTO_A(v));
#elif defined(IS_FLOAT)
    ST(out, i, start.f + (float)i * step.f);
#else
    ST(out, i, TO_A(start.l + i * step.l));
#endif
  }
}

KERNEL void where_select(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* cb, i64 co, GLOBAL uchar* ab,
                         i64 ao, GLOBAL uchar* bb, i64 bo, Geom g) {
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL u8* cond = TYPED(u8, cb, co);
  GLOBAL T* a = TYPED(T, ab, ao);
  GLOBAL T* b = TYPED(T, bb, bo);
  i64 o[4];
  GEOM_FOR_EACH(g, 4, o, { out[o[0]] = cond[o[1]] ? a[o[2]] : b[o[3]]; })
}
