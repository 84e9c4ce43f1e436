/* Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
 * Shared, byte for byte, by the CPU backend (C++), OpenCL C and CUDA (NVRTC), so one seed gives
 * the same random tensors on every device type.
 *
 * The stream: element i of a tensor drawn at generator offset `off` (a multiple of 4) uses
 * counter c = off/4 + i/4 (c0 = low 32 bits, c1 = high 32 bits, c2 = c3 = 0), key = seed
 * (k0 = low, k1 = high), and lane i%4 of the output block.
 *   uniform: u = (lane >> 8) * 2^-24 in [0, 1); value = a + (b - a) * u, computed in float32.
 *   normal:  lanes (0,1) and (2,3) form Box-Muller pairs: u1 = ((x0 >> 8) + 1) * 2^-24 in (0, 1],
 *            u2 = (x1 >> 8) * 2^-24; r = sqrt(-2 ln u1); z0 = r cos(2 pi u2), z1 = r sin(2 pi u2);
 *            value = a + b * z, in float32.
 *   int:     a + (lane mod (b - a)) for b - a <= 2^32.
 *   bernoulli: 1 if uniform < a else 0.
 * Before including, define LOCUS_PHILOX_U32, LOCUS_PHILOX_U64 and LOCUS_PHILOX_FN (function
 * qualifiers) when the defaults (C++) do not apply. */
#ifndef LOCUS_PHILOX_H
#define LOCUS_PHILOX_H

#ifndef LOCUS_PHILOX_U32
#include <cstdint>
#define LOCUS_PHILOX_U32 uint32_t
#define LOCUS_PHILOX_U64 uint64_t
#define LOCUS_PHILOX_FN static inline
#endif

typedef struct {
  LOCUS_PHILOX_U32 x[4];
} locus_philox_block;

LOCUS_PHILOX_FN LOCUS_PHILOX_U32 locus_mulhilo(LOCUS_PHILOX_U32 a, LOCUS_PHILOX_U32 b,
                                               LOCUS_PHILOX_U32* hi) {
  LOCUS_PHILOX_U64 p = (LOCUS_PHILOX_U64)a * (LOCUS_PHILOX_U64)b;
  *hi = (LOCUS_PHILOX_U32)(p >> 32);
  return (LOCUS_PHILOX_U32)p;
}

/* One 4x32 block for counter `ctr` and key `seed`. */
LOCUS_PHILOX_FN locus_philox_block locus_philox(LOCUS_PHILOX_U64 ctr, LOCUS_PHILOX_U64 seed) {
  LOCUS_PHILOX_U32 c0 = (LOCUS_PHILOX_U32)ctr, c1 = (LOCUS_PHILOX_U32)(ctr >> 32), c2 = 0, c3 = 0;
  LOCUS_PHILOX_U32 k0 = (LOCUS_PHILOX_U32)seed, k1 = (LOCUS_PHILOX_U32)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    LOCUS_PHILOX_U32 hi0, hi1;
    LOCUS_PHILOX_U32 lo0 = locus_mulhilo(0xD2511F53u, c0, &hi0);
    LOCUS_PHILOX_U32 lo1 = locus_mulhilo(0xCD9E8D57u, c2, &hi1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  locus_philox_block out;
  out.x[0] = c0; out.x[1] = c1; out.x[2] = c2; out.x[3] = c3;
  return out;
}

#define LOCUS_PHILOX_U24_SCALE (1.0f / 16777216.0f)

#endif
