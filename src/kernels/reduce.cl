/* Reductions over the trailing dims of `in` (op codes: locus::backend::ReduceOp) and softmax.
 * One work-item per output when the reduced extent is small (reduce_serial), one work-group
 * per output otherwise (reduce_group, RGROUP work-items, a tree in local memory), and for few
 * outputs over a long extent several work-groups per output and a combining pass
 * (reduce_partial, reduce_finish; the OpenCL backend uses them, the CUDA one not yet).
 * Accumulation: ACC (float for 16-bit floats, int64 for integers and bool). The output dtype
 * is T, int64 (integer sums, arg-reductions), bool (any/all) or another integer type (sum with a
 * dtype): out_code says which. */
#include "common.cl"

#define R_SUM 0
#define R_MEAN 1
#define R_MAX 2
#define R_MIN 3
#define R_ARGMAX 4
#define R_ARGMIN 5
#define R_PROD 6
#define R_ANY 7
#define R_ALL 8

#ifndef RGROUP
#define RGROUP 256
#endif

typedef struct {
  i64 sizes[LOCUS_MAX_DIMS];      /* in's sizes: the first out_ndim are out's */
  i64 in_strides[LOCUS_MAX_DIMS];
  i64 out_strides[LOCUS_MAX_DIMS];
  i64 out_numel;
  i64 red_numel;
  i32 in_ndim;
  i32 out_ndim;
} RGeom;

DEVICE_FN ACC r_init(int op) {
  switch (op) {
    case R_PROD: case R_ALL: return (ACC)1;
    default: return (ACC)0;
  }
}

/* combines value v (at reduced index vi) into (acc, ai); `first` marks an empty accumulator */
DEVICE_FN void r_combine(int op, ACC* acc, i64* ai, ACC v, i64 vi, int first) {
  switch (op) {
    case R_SUM: case R_MEAN: *acc += v; break;
    case R_PROD: *acc *= v; break;
    case R_ANY: *acc = (*acc != 0 || v != 0) ? 1 : 0; break;
    case R_ALL: *acc = (*acc != 0 && v != 0) ? 1 : 0; break;
    case R_MAX:
      if (first || (!IS_NAN(*acc) && (IS_NAN(v) || v > *acc))) *acc = v;
      break;
    case R_MIN:
      if (first || (!IS_NAN(*acc) && (IS_NAN(v) || v < *acc))) *acc = v;
      break;
    case R_ARGMAX: case R_ARGMIN: {
      /* first occurrence wins ties; NaN beats everything (the first NaN) */
      int take;
      if (first) take = 1;
      else if (IS_NAN(*acc)) take = IS_NAN(v) && vi < *ai;
      else if (IS_NAN(v)) take = 1;
      else if (v == *acc) take = vi < *ai;
      else take = op == R_ARGMAX ? v > *acc : v < *acc;
      if (take) { *acc = v; *ai = vi; }
      break;
    }
  }
}

DEVICE_FN void r_store(GLOBAL uchar* outb, i64 oo, int out_code, int op, ACC acc, i64 ai,
                       i64 n) {
  if (op == R_ARGMAX || op == R_ARGMIN) {
    ((GLOBAL i64*)outb)[oo] = ai;
    return;
  }
  if (op == R_MEAN) acc = acc / (ACC)n;
  if (out_code == CODE_I64) ((GLOBAL i64*)outb)[oo] = (i64)acc;
  else if (out_code == CODE_BOOL) ((GLOBAL u8*)outb)[oo] = (u8)(acc != 0);
  else if (out_code == CODE_F32) ((GLOBAL float*)outb)[oo] = (float)acc;
  else if (out_code != T_CODE && out_code == CODE_I32) ((GLOBAL i32*)outb)[oo] = (i32)acc;
  else if (out_code != T_CODE && out_code == CODE_I16) ((GLOBAL i16*)outb)[oo] = (i16)acc;
  else if (out_code != T_CODE && out_code == CODE_I8) ((GLOBAL i8*)outb)[oo] = (i8)acc;
  else if (out_code != T_CODE && out_code == CODE_U8) ((GLOBAL u8*)outb)[oo] = (u8)acc;
  else ST((GLOBAL T*)outb, oo, TO_A(acc));
}

/* element offsets of output o: into out, and the base of its slice of in */
DEVICE_FN void r_out_offsets(const RGeom* g, i64 o, i64* oo, i64* io) {
  if (g->out_ndim == 1) { /* one kept dim: no division */
    *oo = o * g->out_strides[0];
    *io = o * g->in_strides[0];
    return;
  }
  *oo = 0;
  *io = 0;
  for (int d = g->out_ndim - 1; d >= 0; --d) {
    i64 c = o % g->sizes[d];
    o /= g->sizes[d];
    *oo += c * g->out_strides[d];
    *io += c * g->in_strides[d];
  }
}

DEVICE_FN i64 r_in_offset(const RGeom* g, i64 r) {
  if (g->in_ndim == g->out_ndim + 1) return r * g->in_strides[g->out_ndim]; /* one reduced dim */
  i64 off = 0;
  for (int d = g->in_ndim - 1; d >= g->out_ndim; --d) {
    i64 c = r % g->sizes[d];
    r /= g->sizes[d];
    off += c * g->in_strides[d];
  }
  return off;
}

KERNEL void reduce_serial(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, RGeom g,
                          int op, int out_code) {
  GLOBAL T* in = TYPED(T, inb, ino);
  for (i64 o = GID(0); o < g.out_numel; o += GSIZE(0)) {
    i64 oo, base;
    r_out_offsets(&g, o, &oo, &base);
    ACC acc = r_init(op);
    i64 ai = 0;
    for (i64 r = 0; r < g.red_numel; ++r)
      r_combine(op, &acc, &ai, (ACC)LD(in, base + r_in_offset(&g, r)), r, r == 0);
    r_store(outb + outo, oo, out_code, op, acc, ai, g.red_numel);
  }
}

/* One work-group's reduction of reduced indices [r0, r1) of the slice at `base`: each of the
 * RGROUP items combines every RGROUP-th element, then a tree in local memory; the result (and
 * whether the range was empty) lands in sacc[0], sidx[0], sfirst[0]. */
DEVICE_FN void r_group(GLOBAL T* in, const RGeom* g, i64 base, i64 r0, i64 r1, int op, LOCAL_PTR ACC* sacc,
                       LOCAL_PTR i64* sidx, LOCAL_PTR int* sfirst) {
  int l = (int)LID(0);
  ACC acc = r_init(op);
  i64 ai = 0;
  int first = 1;
  for (i64 r = r0 + l; r < r1; r += RGROUP) {
    r_combine(op, &acc, &ai, (ACC)LD(in, base + r_in_offset(g, r)), r, first);
    first = 0;
  }
  sacc[l] = acc;
  sidx[l] = ai;
  sfirst[l] = first;
  BARRIER();
  for (int w = RGROUP / 2; w > 0; w >>= 1) {
    if (l < w && !sfirst[l + w]) {
      ACC a2 = sacc[l];
      i64 i2 = sidx[l];
      r_combine(op, &a2, &i2, sacc[l + w], sidx[l + w], sfirst[l]);
      sacc[l] = a2;
      sidx[l] = i2;
      sfirst[l] = 0;
    }
    BARRIER();
  }
}

KERNEL void reduce_group(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, RGeom g,
                         int op, int out_code) {
  LOCAL ACC sacc[RGROUP];
  LOCAL i64 sidx[RGROUP];
  LOCAL int sfirst[RGROUP];
  i64 oo, base;
  r_out_offsets(&g, GROUP_ID(0), &oo, &base);
  r_group(TYPED(T, inb, ino), &g, base, 0, g.red_numel, op, sacc, sidx, sfirst);
  if (LID(0) == 0) r_store(outb + outo, oo, out_code, op, sacc[0], sidx[0], g.red_numel);
}

/* Few outputs over a long extent (a full sum, say): reduce_group's one work-group per output
 * would leave all but one of a GPU's compute units idle. Pass 1, reduce_partial: `parts`
 * work-groups per output, group (o, p) reducing the p-th of `parts` consecutive chunks of the
 * extent into slot o * parts + p of (pacc, pidx, pfirst). Pass 2, reduce_finish: one work-item per
 * output combines its slots in chunk order (so the first occurrence still wins arg ties) and
 * stores as reduce_group does. */
KERNEL void reduce_partial(GLOBAL uchar* paccb, i64 pacco, GLOBAL uchar* pidxb, i64 pidxo, GLOBAL uchar* pfb,
                           i64 pfo, GLOBAL uchar* inb, i64 ino, RGeom g, int op, i64 parts) {
  LOCAL ACC sacc[RGROUP];
  LOCAL i64 sidx[RGROUP];
  LOCAL int sfirst[RGROUP];
  i64 slot = GROUP_ID(0);
  i64 o = slot / parts, p = slot % parts;
  i64 oo, base;
  r_out_offsets(&g, o, &oo, &base);
  i64 chunk = (g.red_numel + parts - 1) / parts;
  i64 r0 = p * chunk;
  i64 r1 = r0 + chunk < g.red_numel ? r0 + chunk : g.red_numel;
  r_group(TYPED(T, inb, ino), &g, base, r0, r1, op, sacc, sidx, sfirst);
  if (LID(0) == 0) {
    TYPED(ACC, paccb, pacco)[slot] = sacc[0];
    TYPED(i64, pidxb, pidxo)[slot] = sidx[0];
    TYPED(int, pfb, pfo)[slot] = sfirst[0];
  }
}

KERNEL void reduce_finish(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* paccb, i64 pacco, GLOBAL uchar* pidxb,
                          i64 pidxo, GLOBAL uchar* pfb, i64 pfo, RGeom g, int op, int out_code, i64 parts) {
  GLOBAL ACC* pacc = TYPED(ACC, paccb, pacco);
  GLOBAL i64* pidx = TYPED(i64, pidxb, pidxo);
  GLOBAL int* pfirst = TYPED(int, pfb, pfo);
  for (i64 o = GID(0); o < g.out_numel; o += GSIZE(0)) {
    i64 oo, base;
    r_out_offsets(&g, o, &oo, &base);
    ACC acc = r_init(op);
    i64 ai = 0;
    int first = 1;
    for (i64 p = 0; p < parts; ++p) {
      i64 q = o * parts + p;
      if (pfirst[q]) continue;
      r_combine(op, &acc, &ai, pacc[q], pidx[q], first);
      first = 0;
    }
    r_store(outb + outo, oo, out_code, op, acc, ai, g.red_numel);
  }
}

#ifdef IS_FLOAT
/* softmax over the middle dim of contiguous [outer, dim, inner]; one work-item per (outer,
 * inner) pair. Subtracts the max first. */
KERNEL void softmax_serial(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, i64 outer,
                           i64 dim, i64 inner, int log_softmax) {
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL T* in = TYPED(T, inb, ino);
  for (i64 t = GID(0); t < outer * inner; t += GSIZE(0)) {
    i64 base = (t / inner) * dim * inner + t % inner;
    A m = LD(in, base);
    for (i64 j = 1; j < dim; ++j) {
      A v = LD(in, base + j * inner);
      if (IS_NAN(v) || v > m) m = v;
    }
    A s = 0;
    for (i64 j = 0; j < dim; ++j) s += exp(LD(in, base + j * inner) - m);
    A ls = log(s);
    for (i64 j = 0; j < dim; ++j) {
      A v = LD(in, base + j * inner) - m;
      ST(out, base + j * inner, log_softmax ? v - ls : exp(v) / s);
    }
  }
}

/* the same with one work-group (RGROUP items) per row, for inner == 1 and long rows */
KERNEL void softmax_group(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, i64 dim,
                          int log_softmax) {
  LOCAL A sred[RGROUP];
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL T* in = TYPED(T, inb, ino);
  i64 base = GROUP_ID(0) * dim;
  int l = (int)LID(0);
  A m = LD(in, base);
  for (i64 j = l; j < dim; j += RGROUP) {
    A v = LD(in, base + j);
    if (IS_NAN(v) || v > m) m = v;
  }
  sred[l] = m;
  BARRIER();
  for (int w = RGROUP / 2; w > 0; w >>= 1) {
    if (l < w) {
      A v = sred[l + w];
      if (!IS_NAN(sred[l]) && (IS_NAN(v) || v > sred[l])) sred[l] = v;
    }
    BARRIER();
  }
  m = sred[0];
  BARRIER();
  A s = 0;
  for (i64 j = l; j < dim; j += RGROUP) s += exp(LD(in, base + j) - m);
  sred[l] = s;
  BARRIER();
  for (int w = RGROUP / 2; w > 0; w >>= 1) {
    if (l < w) sred[l] += sred[l + w];
    BARRIER();
  }
  s = sred[0];
  A ls = log(s);
  for (i64 j = l; j < dim; j += RGROUP) {
    A v = LD(in, base + j) - m;
    ST(out, base + j, log_softmax ? v - ls : exp(v) / s);
  }
}

/* cross_entropy without class weights (Backend::log_softmax_nll), in one work-group of RGROUP
 * items, each taking rows l, l + RGROUP, ...: logp = log_softmax(x) per row, the picked terms and
 * the counted rows summed in local memory; bad = the first row whose target is neither in [0, c)
 * nor ignore (or -1). A batch of rows is small next to what one group can do. */
KERNEL void log_softmax_nll(GLOBAL uchar* xb, i64 xo, GLOBAL uchar* tb, i64 to, GLOBAL uchar* lpb, i64 lpo,
                            GLOBAL uchar* lossb, i64 losso, GLOBAL uchar* countb, i64 counto, GLOBAL uchar* badb,
                            i64 bado, i64 n, i64 c, i64 ignore, int mean) {
  LOCAL A ssum[RGROUP];
  LOCAL A scnt[RGROUP];
  LOCAL i64 sbad[RGROUP];
  GLOBAL T* x = TYPED(T, xb, xo);
  GLOBAL i64* tg = TYPED(i64, tb, to);
  GLOBAL T* lp = TYPED(T, lpb, lpo);
  int l = (int)LID(0);
  A acc = 0, cnt = 0;
  i64 bad = -1;
  for (i64 i = l; i < n; i += RGROUP) {
    i64 base = i * c;
    A m = LD(x, base);
    for (i64 j = 1; j < c; ++j) {
      A v = LD(x, base + j);
      if (IS_NAN(v) || v > m) m = v;
    }
    A s = 0;
    for (i64 j = 0; j < c; ++j) s += exp(LD(x, base + j) - m);
    A ls = log(s);
    for (i64 j = 0; j < c; ++j) ST(lp, base + j, (LD(x, base + j) - m) - ls);
    i64 t = tg[i];
    if (t == ignore) continue;
    if (t < 0 || t >= c) {
      if (bad < 0) bad = i;
      continue;
    }
    acc -= (LD(x, base + t) - m) - ls;
    cnt += 1;
  }
  ssum[l] = acc;
  scnt[l] = cnt;
  sbad[l] = bad;
  BARRIER();
  for (int w = RGROUP / 2; w > 0; w >>= 1) {
    if (l < w) {
      ssum[l] += ssum[l + w];
      scnt[l] += scnt[l + w];
      i64 b = sbad[l + w];
      if (b >= 0 && (sbad[l] < 0 || b < sbad[l])) sbad[l] = b;
    }
    BARRIER();
  }
  if (l == 0) {
    ST(TYPED(T, lossb, losso), 0, mean ? ssum[0] / scnt[0] : ssum[0]);
    ST(TYPED(T, countb, counto), 0, scnt[0]);
    TYPED(i64, badb, bado)[0] = sbad[0];
  }
}

/* its gradient, one work-item per element: (exp(logp) - onehot) * scale on counted rows, else 0 */
KERNEL void log_softmax_nll_backward(GLOBAL uchar* lpb, i64 lpo, GLOBAL uchar* tb, i64 to, GLOBAL uchar* gb, i64 go,
                                     GLOBAL uchar* countb, i64 counto, GLOBAL uchar* outb, i64 outo, i64 n, i64 c,
                                     i64 ignore, int mean) {
  GLOBAL T* lp = TYPED(T, lpb, lpo);
  GLOBAL i64* tg = TYPED(i64, tb, to);
  GLOBAL T* out = TYPED(T, outb, outo);
  A scale = LD(TYPED(T, gb, go), 0);
  if (mean) scale = scale / LD(TYPED(T, countb, counto), 0);
  for (i64 k = GID(0); k < n * c; k += GSIZE(0)) {
    i64 i = k / c, t = tg[i];
    A v = 0;
    if (t != ignore && t >= 0 && t < c) {
      v = exp(LD(lp, k)) * scale;
      if (k - i * c == t) v -= scale;
    }
    ST(out, k, v);
  }
}
#endif /* IS_FLOAT */
