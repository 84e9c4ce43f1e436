/* im2col for conv2d over a batch: in [N, C, H, W] -> out [N, C*kh*kw, oh*ow], both contiguous; and
 * col2im (reverse), which adds out back into in, summing the columns that read each input element
 * (no atomics, deterministic). One launch covers every image. Each work-item does one row: im2col
 * an output row (image, channel, ki, kj, oy: ow elements), col2im an input row (image, channel, y:
 * w elements), so the index arithmetic (64-bit divisions) is paid per row, not per element; per
 * element it took most of a PoCL training step. */
#include "common.cl"

typedef struct {
  i64 n, c, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
} Im2ColArgs;

KERNEL void im2col(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* outb, i64 outo, Im2ColArgs p) {
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* out = TYPED(T, outb, outo);
  i64 cols = p.oh * p.ow;
  i64 lines = p.n * p.c * p.kh * p.kw * p.oh;
  for (i64 l = GID(0); l < lines; l += GSIZE(0)) {
    i64 oy = l % p.oh, q = l / p.oh;
    i64 kj = q % p.kw;
    q /= p.kw;
    i64 ki = q % p.kh;
    q /= p.kh; /* image * C + channel */
    GLOBAL T* dst = out + ((q * p.kh + ki) * p.kw + kj) * cols + oy * p.ow;
    i64 y = oy * p.sh - p.ph + ki * p.dh;
    if (y < 0 || y >= p.h) {
      for (i64 ox = 0; ox < p.ow; ++ox) ST(dst, ox, (A)0);
      continue;
    }
    GLOBAL T* src = in + (q * p.h + y) * p.w;
    i64 x0 = kj * p.dw - p.pw;
    for (i64 ox = 0; ox < p.ow; ++ox) {
      i64 x = ox * p.sw + x0;
      A v = 0;
      if (x >= 0 && x < p.w) v = LD(src, x);
      ST(dst, ox, v);
    }
  }
}

KERNEL void col2im(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* outb, i64 outo, Im2ColArgs p) {
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* out = TYPED(T, outb, outo);
  i64 cols = p.oh * p.ow;
  i64 lines = p.n * p.c * p.h;
  for (i64 l = GID(0); l < lines; l += GSIZE(0)) {
    i64 y = l % p.h, q = l / p.h; /* q: image * C + channel */
    GLOBAL T* row = in + l * p.w;
    GLOBAL T* col = out + q * p.kh * p.kw * cols; /* this image's and channel's column rows */
    for (i64 x = 0; x < p.w; ++x) {
      A acc = LD(row, x);
      for (i64 ki = 0; ki < p.kh; ++ki) {
        i64 ty = y + p.ph - ki * p.dh, oy = ty;
        if (ty < 0) continue;
        if (p.sh != 1) {
          if (ty % p.sh != 0) continue;
          oy = ty / p.sh;
        }
        if (oy >= p.oh) continue;
        for (i64 kj = 0; kj < p.kw; ++kj) {
          i64 tx = x + p.pw - kj * p.dw, ox = tx;
          if (tx < 0) continue;
          if (p.sw != 1) {
            if (tx % p.sw != 0) continue;
            ox = tx / p.sw;
          }
          if (ox >= p.ow) continue;
          acc += LD(col, (ki * p.kw + kj) * cols + oy * p.ow + ox);
        }
      }
      ST(row, x, acc);
    }
  }
}
