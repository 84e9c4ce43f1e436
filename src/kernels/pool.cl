/* 2-D max pooling of `planes` contiguous [h, w] planes: out [planes, oh*ow] gets each window's
 * maximum and idx (int64) its position y*w + x in the plane: the first maximum in row-major window
 * order, a NaN winning (the first NaN), padding never. max_pool2d_backward adds each output's
 * gradient at its index into a zeroed grad_in; the host runs it only for windows that do not
 * overlap (stride >= the dilated kernel extent), so no two outputs add into one element.
 * With by_rows (CPU drivers) a work-item takes a row of outputs, else one output: the index
 * arithmetic (64-bit divisions) per row, or per output where items must touch neighbours. */
#include "common.cl"

typedef struct {
  i64 h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
} PoolArgs;

KERNEL void max_pool2d(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* outb, i64 outo, GLOBAL uchar* idxb, i64 idxo,
                       PoolArgs p, i64 planes, int by_rows) {
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL i64* idx = TYPED(i64, idxb, idxo);
  const i64 l = p.oh * p.ow;
  const i64 items = by_rows ? planes * p.oh : planes * l;
  for (i64 it = GID(0); it < items; it += GSIZE(0)) {
    i64 q, oy, ox0, ox1;
    if (by_rows) {
      oy = it % p.oh;
      q = it / p.oh;
      ox0 = 0;
      ox1 = p.ow;
    } else {
      i64 t = it % l;
      q = it / l;
      oy = t / p.ow;
      ox0 = t % p.ow;
      ox1 = ox0 + 1;
    }
    GLOBAL T* plane = in + q * p.h * p.w;
    for (i64 ox = ox0; ox < ox1; ++ox) {
      A best = 0;
      i64 at = -1;
      for (i64 ki = 0; ki < p.kh; ++ki) {
        i64 y = oy * p.sh - p.ph + ki * p.dh;
        if (y < 0 || y >= p.h) continue;
        for (i64 kj = 0; kj < p.kw; ++kj) {
          i64 x = ox * p.sw - p.pw + kj * p.dw;
          if (x < 0 || x >= p.w) continue;
          A v = LD(plane, y * p.w + x);
          if (at < 0 || (!IS_NAN(best) && (IS_NAN(v) || v > best))) {
            best = v;
            at = y * p.w + x;
          }
        }
      }
      ST(out, q * l + oy * p.ow + ox, best);
      idx[q * l + oy * p.ow + ox] = at;
    }
  }
}

/* grad_in[q][idx[q][t]] += grad_out[q][t], one work-item per output t (grad_in zeroed before) */
KERNEL void max_pool2d_backward(GLOBAL uchar* gob, i64 goo, GLOBAL uchar* idxb, i64 idxo, GLOBAL uchar* gib,
                                i64 gio, i64 planes, i64 in_hw, i64 out_hw) {
  GLOBAL T* go = TYPED(T, gob, goo);
  GLOBAL i64* idx = TYPED(i64, idxb, idxo);
  GLOBAL T* gi = TYPED(T, gib, gio);
  const i64 n = planes * out_hw;
  for (i64 i = GID(0); i < n; i += GSIZE(0)) {
    i64 q = i / out_hw;
    i64 j = q * in_hw + idx[i];
    ST(gi, j, LD(gi, j) + LD(go, i));
  }
}
