/* Philox 4x32-10 random fill of a contiguous out (kinds: locus::backend::RandomKind); the
 * stream is specified in philox.h and is identical on every backend. Work-item b fills elements
 * 4b .. 4b+3 from counter ctr0 + b. */
#include "common.cl"
#define LOCUS_PHILOX_U32 u32
#define LOCUS_PHILOX_U64 u64
#define LOCUS_PHILOX_FN DEVICE_FN
#include "philox.h"

#define RK_UNIFORM 0
#define RK_NORMAL 1
#define RK_INT 2
#define RK_BERNOULLI 3

KERNEL void random_fill(GLOBAL uchar* outb, i64 outo, i64 n, u64 seed, u64 ctr0, int kind,
                        Scalar a, Scalar b, u64 range) {
  GLOBAL T* out = TYPED(T, outb, outo);
  i64 nblocks = (n + 3) / 4;
  for (i64 blk = GID(0); blk < nblocks; blk += GSIZE(0)) {
    locus_philox_block x = locus_philox(ctr0 + (u64)blk, seed);
    float z[4];
    if (kind == RK_NORMAL) {
      for (int p = 0; p < 4; p += 2) {
        float u1 = (float)((x.x[p] >> 8) + 1u) * LOCUS_PHILOX_U24_SCALE;
        float u2 = (float)(x.x[p + 1] >> 8) * LOCUS_PHILOX_U24_SCALE;
        float r = sqrt(-2.0f * log(u1));
        float th = 6.28318530717958647692f * u2;
        z[p] = r * cos(th);
        z[p + 1] = r * sin(th);
      }
    }
    for (int lane = 0; lane < 4; ++lane) {
      i64 i = blk * 4 + lane;
      if (i >= n) break;
      u32 w = x.x[lane];
      float u = (float)(w >> 8) * LOCUS_PHILOX_U24_SCALE;
      A v;
      if (kind == RK_UNIFORM) v = TO_A(a.f + (b.f - a.f) * u);
      else if (kind == RK_NORMAL) v = TO_A(a.f + b.f * z[lane]);
      else if (kind == RK_INT) {
        /* ranges beyond 2^32 (not in philox.h) take 64 bits from lanes (l, l ^ 1), as on cpu */
        u64 bits = range <= ((u64)1 << 32) ? (u64)w : (((u64)w << 32) | (u64)x.x[lane ^ 1]);
        v = TO_A((i64)((u64)a.l + bits % range));
      }
      else v = TO_A(u < a.f ? 1 : 0);
      ST(out, i, v);
    }
  }
}
