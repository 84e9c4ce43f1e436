/* im2col for conv2d over a batch: in [N, C, H, W] -> out [N, C*kh*kw, oh*ow], both contiguous; and
 * col2im (reverse), which adds out back into in: one work-item per input element, summing the
 * columns that read it (no atomics, deterministic). One launch covers every image. */
#include "common.cl"

typedef struct {
  i64 n, c, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
} Im2ColArgs;

KERNEL void im2col(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* outb, i64 outo, Im2ColArgs p) {
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* out = TYPED(T, outb, outo);
  i64 cols = p.oh * p.ow;
  i64 per = p.c * p.kh * p.kw * cols;  /* elements of one image's columns */
  i64 total = p.n * per;
  for (i64 i = GID(0); i < total; i += GSIZE(0)) {
    i64 img = i / per, r = i % per;
    i64 row = r / cols, col = r % cols;
    i64 kj = row % p.kw, ki = (row / p.kw) % p.kh, ch = row / (p.kw * p.kh);
    i64 y = (col / p.ow) * p.sh - p.ph + ki * p.dh;
    i64 x = (col % p.ow) * p.sw - p.pw + kj * p.dw;
    A v = 0;
    if (y >= 0 && y < p.h && x >= 0 && x < p.w) v = LD(in, ((img * p.c + ch) * p.h + y) * p.w + x);
    ST(out, i, v);
  }
}

KERNEL void col2im(GLOBAL uchar* inb, i64 ino, GLOBAL uchar* outb, i64 outo, Im2ColArgs p) {
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL T* out = TYPED(T, outb, outo);
  i64 cols = p.oh * p.ow;
  i64 total = p.n * p.c * p.h * p.w;
  for (i64 i = GID(0); i < total; i += GSIZE(0)) {
    i64 x = i % p.w, y = (i / p.w) % p.h, ch = (i / (p.w * p.h)) % p.c, img = i / (p.w * p.h * p.c);
    i64 base = img * p.c * p.kh * p.kw * cols; /* this image's columns */
    A acc = LD(in, i);
    for (i64 ki = 0; ki < p.kh; ++ki) {
      i64 ty = y + p.ph - ki * p.dh;
      if (ty < 0 || ty % p.sh != 0) continue;
      i64 oy = ty / p.sh;
      if (oy >= p.oh) continue;
      for (i64 kj = 0; kj < p.kw; ++kj) {
        i64 tx = x + p.pw - kj * p.dw;
        if (tx < 0 || tx % p.sw != 0) continue;
        i64 ox = tx / p.sw;
        if (ox >= p.ow) continue;
        acc += LD(out, base + ((ch * p.kh + ki) * p.kw + kj) * cols + oy * p.ow + ox);
      }
    }
    ST(in, i, acc);
  }
}
