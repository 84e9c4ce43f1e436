/* Direct 2-D convolution (float32/float64, groups 1): the forward with its bias, the input
 * gradient (the same kernel over grad_out with the weight flipped and transposed), and the weight
 * and bias gradients; im2col.cl + the vendor GEMM do every other case (src/backends/gpu/conv.cpp
 * picks). Layouts are contiguous NCHW; weight [oc, c, kh, kw].
 *
 * conv2d_tiled: a work-group computes a tile of LSIZE(0) x LSIZE(1) output pixels of one image for
 * CONV_OC output channels, a work-item per pixel holding its CONV_OC sums in registers. Per step
 * CONV_IC input channels of the tile's input window (halo included) and their weights are staged in
 * local memory with coalesced loads (consecutive items, consecutive x); every staged input element
 * is then used kh*kw*CONV_OC times from local memory. With `flip` it computes the input gradient:
 * in = grad_out [n, c = oc of the forward, oh, ow], out = grad_in, padding (kh-1)*dh - ph (stride 1
 * only, so every output reads a plain window of grad_out).
 *
 * conv2d_weight_grad: grad_weight[co][r] = sum over images and pixels of grad_out[co][j] * col[r][j],
 * col being im2col's column matrix, never stored. A work-item per column r = (ci, ki, kj) holds
 * CW_CO channels' sums; each step stages a block of CW_P output pixels: the input window under it
 * for the channels of the group's columns, and those pixels of CW_CO channels of grad_out, both
 * with coalesced loads; a column then reads its values from the window. The bias's
 * gradient is one more column, of ones. Work-groups split the images (split-K); with `parts` > 0 each
 * writes its partial sums and conv2d_weight_grad_sum adds them in a fixed order (deterministic, no
 * atomics), else the one split writes the gradients. */
#include "common.cl"

#define CONV_OC 16     /* output channels per work-item (registers) */
#define CONV_PX 4      /* output rows per work-item: independent sums, each staged weight used 4 times */
#define CONV_IC 4      /* input channels staged in local memory per step */
#define CONV_TILE 1024 /* staged input elements per channel; the host keeps the window within it */
#define CONV_KK 25     /* the largest kh * kw */
#define CW_CO 16       /* conv2d_weight_grad: output channels per work-item (registers) and group */
#define CW_P 32        /* pixels staged per step */
#define CW_ILP 4       /* with CONV_STEP_SUMS: independent sums per channel (pixels pp, pp+1, ...) */
#define CW_XS 4096     /* staged input elements per step; the host keeps the window within it */
/* The per-channel loops are unrolled so that the sums become registers: kept as an array they were
 * a memory operand on PoCL, each step waiting on the previous one's store */
#define UNROLL _Pragma("unroll")
/* CONV_STEP_SUMS (the host's build option for CPU drivers, Caps::row_items): the kernels add each
 * step's products into sums private to the step, then those into `acc`. A CPU driver (PoCL) keeps
 * `acc`, live across barriers, in memory, and adding into it directly made each tap wait on a
 * store; a GPU keeps `acc` in registers, and a second copy would only cost it registers. */
#ifdef CONV_STEP_SUMS
#define CONV_SUM(r, o) sum[r][o]
#else
#define CONV_SUM(r, o) acc[r][o]
#endif

typedef struct {
  i64 n, c, h, w, oc, oh, ow;
  i32 kh, kw, sh, sw, ph, pw, dh, dw;
  i32 flip, bias, ocb, per_split, parts, want_w;
} ConvArgs;

KERNEL void conv2d_tiled(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* wb, i64 wo, GLOBAL uchar* bb, i64 bo,
                         GLOBAL uchar* outb, i64 outo, ConvArgs p) {
  LOCAL A xs[CONV_IC * CONV_TILE];
  LOCAL A ws[CONV_IC * CONV_KK * CONV_OC];
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* wt = TYPED(T, wb, wo);
  GLOBAL T* bias = TYPED(T, bb, bo);
  GLOBAL T* out = TYPED(T, outb, outo);
  const int tw = (int)LSIZE(0), th = (int)LSIZE(1), lx = (int)LID(0), ly = (int)LID(1);
  const int kk = p.kh * p.kw, rows = th * CONV_PX; /* output rows per group */
  const int in_tw = (tw - 1) * p.sw + (p.kw - 1) * p.dw + 1, in_th = (rows - 1) * p.sh + (p.kh - 1) * p.dh + 1;
  const int plane = in_tw * in_th;
  const i64 img = GROUP_ID(2) / p.ocb, oc0 = (GROUP_ID(2) % p.ocb) * CONV_OC;
  const i64 oy0 = GROUP_ID(1) * rows + ly * CONV_PX, ox = GROUP_ID(0) * tw + lx;
  const i64 y0 = GROUP_ID(1) * rows * p.sh - p.ph, x0 = GROUP_ID(0) * tw * p.sw - p.pw;
  GLOBAL T* src = in + img * p.c * p.h * p.w;
  A acc[CONV_PX][CONV_OC];
  UNROLL for (int r = 0; r < CONV_PX; ++r) UNROLL for (int o = 0; o < CONV_OC; ++o) acc[r][o] = 0;
  for (i64 c0 = 0; c0 < p.c; c0 += CONV_IC) {
    const int nc = p.c - c0 < CONV_IC ? (int)(p.c - c0) : CONV_IC;
    BARRIER(); /* the previous step's readers are done */
    for (int row = ly; row < nc * in_th; row += th) { /* xs[ci][ty][tx], items along x */
      const int ci = row / in_th;
      const i64 y = y0 + (row - ci * in_th);
      const int yin = y >= 0 && y < p.h;
      for (int tx = lx; tx < in_tw; tx += tw) {
        const i64 x = x0 + tx;
        A v = 0;
        if (yin && x >= 0 && x < p.w) v = LD(src, ((c0 + ci) * p.h + y) * p.w + x);
        xs[row * in_tw + tx] = v;
      }
    }
    for (int ci = 0; ci < nc; ++ci) { /* ws[ci][tap][o] */
      for (int i = ly * tw + lx; i < kk * CONV_OC; i += tw * th) {
        const int o = i % CONV_OC, r = i / CONV_OC; /* powers of two: no divisions */
        const i64 co = oc0 + o, cc = c0 + ci;
        A v = 0;
        if (co < p.oc) v = p.flip ? LD(wt, (cc * p.oc + co) * kk + (kk - 1 - r)) : LD(wt, (co * p.c + cc) * kk + r);
        ws[ci * kk * CONV_OC + i] = v;
      }
    }
    BARRIER();
#ifdef CONV_STEP_SUMS
    A sum[CONV_PX][CONV_OC];
    UNROLL for (int r = 0; r < CONV_PX; ++r) UNROLL for (int o = 0; o < CONV_OC; ++o) sum[r][o] = 0;
#endif
    for (int ci = 0; ci < nc; ++ci) {
      for (int ki = 0; ki < p.kh; ++ki) {
        const int xrow = ci * plane + (ly * CONV_PX * p.sh + ki * p.dh) * in_tw + lx * p.sw;
        const int wrow = (ci * kk + ki * p.kw) * CONV_OC;
        for (int kj = 0; kj < p.kw; ++kj) {
          UNROLL for (int r = 0; r < CONV_PX; ++r) {
            const A v = xs[xrow + r * p.sh * in_tw + kj * p.dw];
            UNROLL for (int o = 0; o < CONV_OC; ++o) CONV_SUM(r, o) += v * ws[wrow + kj * CONV_OC + o];
          }
        }
      }
    }
#ifdef CONV_STEP_SUMS
    UNROLL for (int r = 0; r < CONV_PX; ++r) UNROLL for (int o = 0; o < CONV_OC; ++o) acc[r][o] += sum[r][o];
#endif
  }
  if (ox >= p.ow) return;
  UNROLL for (int r = 0; r < CONV_PX; ++r) {
    const i64 oy = oy0 + r;
    if (oy >= p.oh) break;
    GLOBAL T* dst = out + ((img * p.oc + oc0) * p.oh + oy) * p.ow + ox;
    UNROLL for (int o = 0; o < CONV_OC; ++o) {
      if (oc0 + o >= p.oc) break;
      A v = acc[r][o];
      if (p.bias) v += LD(bias, oc0 + o);
      ST(dst, (i64)o * p.oh * p.ow, v);
    }
  }
}

KERNEL void conv2d_weight_grad(GLOBAL uchar* xb, i64 xo, GLOBAL uchar* gyb, i64 gyo, GLOBAL uchar* gwb, i64 gwo,
                               GLOBAL uchar* gbb, i64 gbo, GLOBAL uchar* partb, i64 parto, ConvArgs p) {
  LOCAL A xs[CW_XS];        /* the input window of a step, for the channels of the group's columns */
  LOCAL A gs[CW_P * CW_CO]; /* gs[pixel][channel]: the step's grad_out */
  LOCAL int poff[CW_P];     /* each pixel's offset in the window */
  LOCAL int py[CW_P];       /* and its row and column in the block */
  LOCAL int px[CW_P];
  GLOBAL T* x = TYPED(T, xb, xo);
  GLOBAL T* gy = TYPED(T, gyb, gyo);
  GLOBAL T* gw = TYPED(T, gwb, gwo);
  GLOBAL T* gb = TYPED(T, gbb, gbo);
  GLOBAL T* part = TYPED(T, partb, parto);
  const int lx = (int)LID(0), nr = (int)LSIZE(0);
  const int kk = p.kh * p.kw;
  const i64 ckk = p.c * kk, rows = ckk + p.bias; /* the bias's gradient: a column of ones */
  const i64 r0 = GROUP_ID(0) * nr, r = r0 + lx, co0 = GROUP_ID(1) * CW_CO;
  /* a step: sr output rows x scw output columns of one image */
  const int ow = (int)p.ow, oh = (int)p.oh;
  const int scw = ow < CW_P ? ow : CW_P, sr = CW_P / scw;
  const int in_w = (scw - 1) * p.sw + (p.kw - 1) * p.dw + 1, in_h = (sr - 1) * p.sh + (p.kh - 1) * p.dh + 1;
  const int win = in_w * in_h;
  /* the channels the group's columns read: c_lo, c_lo + 1, ... (c_n of them) */
  const i64 c_lo = r0 < ckk ? r0 / kk : 0;
  const i64 r_end = r0 + nr < ckk ? r0 + nr : ckk;
  const int c_n = r0 < ckk ? (int)((r_end - 1) / kk - c_lo + 1) : 0;
  int xoff = 0; /* this column's (ci, ki, kj) in the window */
  if (r < ckk) {
    const i64 ci = r / kk;
    const int q = (int)(r - ci * kk), ki = q / p.kw, kj = q - ki * p.kw;
    xoff = (int)(ci - c_lo) * win + ki * p.dh * in_w + kj * p.dw;
  }
  const A other = r < ckk ? (A)0 : (r < rows ? (A)1 : (A)0); /* what a non-input column holds */
  for (int pp = lx; pp < CW_P; pp += nr) {
    poff[pp] = (pp / scw) * p.sh * in_w + (pp % scw) * p.sw;
    py[pp] = pp < sr * scw ? pp / scw : oh; /* pixels past the block: rows that fail oy < oh */
    px[pp] = pp % scw;
  }
  /* the window's elements lx, lx + nr, ... as (channel, row, column), stepped without divisions */
  const int sx = nr % in_w, sy = nr / in_w;
  const int tx0 = lx % in_w, ty0 = (lx / in_w) % in_h, ch0 = lx / win;
  const i64 n0 = GROUP_ID(2) * p.per_split;
  const i64 n1 = n0 + p.per_split < p.n ? n0 + p.per_split : p.n;
  A acc[CW_CO];
  UNROLL for (int q = 0; q < CW_CO; ++q) acc[q] = 0;
  for (i64 img = n0; img < n1; ++img) {
    GLOBAL T* xi = x + (img * p.c + c_lo) * p.h * p.w;
    GLOBAL T* gi = gy + img * p.oc * p.oh * p.ow;
    for (int yc = 0; yc < oh; yc += sr) {
      for (int xc = 0; xc < ow; xc += scw) {
        BARRIER();
        const i64 y0 = (i64)yc * p.sh - p.ph, x0 = (i64)xc * p.sw - p.pw;
        int tx = tx0, ty = ty0, ch = ch0;
        for (int e = lx; e < c_n * win; e += nr) {
          const i64 y = y0 + ty, xx = x0 + tx;
          A v = 0;
          if (y >= 0 && y < p.h && xx >= 0 && xx < p.w) v = LD(xi, (ch * p.h + y) * p.w + xx);
          xs[e] = v;
          tx += sx;
          ty += sy;
          if (tx >= in_w) tx -= in_w, ++ty;
          while (ty >= in_h) ty -= in_h, ++ch;
        }
        for (int e = lx; e < CW_P * CW_CO; e += nr) { /* consecutive items on consecutive pixels */
          const int pp = e % CW_P, o = e / CW_P, oy = yc + py[pp], ox = xc + px[pp];
          const i64 co = co0 + o;
          A v = 0;
          if (oy < oh && ox < ow && co < p.oc) v = LD(gi, (co * p.oh + oy) * p.ow + ox);
          gs[pp * CW_CO + o] = v;
        }
        BARRIER();
#ifdef CONV_STEP_SUMS
        /* this step's sums (see CONV_STEP_SUMS), in CW_ILP independent chains */
        A sum[CW_ILP][CW_CO];
        UNROLL for (int k = 0; k < CW_ILP; ++k) UNROLL for (int q = 0; q < CW_CO; ++q) sum[k][q] = 0;
        for (int pp = 0; pp < CW_P; pp += CW_ILP) {
          UNROLL for (int k = 0; k < CW_ILP; ++k) {
            const A v = r < ckk ? xs[xoff + poff[pp + k]] : other;
            UNROLL for (int q = 0; q < CW_CO; ++q) sum[k][q] += v * gs[(pp + k) * CW_CO + q];
          }
        }
        UNROLL for (int k = 0; k < CW_ILP; ++k) UNROLL for (int q = 0; q < CW_CO; ++q) acc[q] += sum[k][q];
#else
        for (int pp = 0; pp < CW_P; ++pp) {
          const A v = r < ckk ? xs[xoff + poff[pp]] : other;
          UNROLL for (int q = 0; q < CW_CO; ++q) acc[q] += v * gs[pp * CW_CO + q];
        }
#endif
      }
    }
  }
  if (r >= rows) return;
  UNROLL for (int q = 0; q < CW_CO; ++q) {
    const i64 co = co0 + q;
    if (co >= p.oc) break;
    if (p.parts > 0) ST(part, (GROUP_ID(2) * p.oc + co) * rows + r, acc[q]);
    else if (r < ckk) { if (p.want_w) ST(gw, co * ckk + r, acc[q]); }
    else ST(gb, co, acc[q]);
  }
}

/* grad_weight and grad_bias from conv2d_weight_grad's `parts` partial sums, added in order */
KERNEL void conv2d_weight_grad_sum(GLOBAL uchar* partb, i64 parto, GLOBAL uchar* gwb, i64 gwo, GLOBAL uchar* gbb,
                                   i64 gbo, ConvArgs p) {
  GLOBAL T* part = TYPED(T, partb, parto);
  GLOBAL T* gw = TYPED(T, gwb, gwo);
  GLOBAL T* gb = TYPED(T, gbb, gbo);
  const i64 ckk = p.c * p.kh * p.kw, rows = ckk + p.bias, total = p.oc * rows;
  for (i64 i = GID(0); i < total; i += GSIZE(0)) {
    const i64 co = i / rows, r = i - co * rows;
    A s = 0;
    for (int k = 0; k < p.parts; ++k) s += LD(part, k * total + i);
    if (r < ckk) { if (p.want_w) ST(gw, co * ckk + r, s); }
    else ST(gb, co, s);
  }
}
