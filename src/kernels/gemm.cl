/* C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], row-major, TILE x TILE tiles in local
 * memory; the fallback for dtypes CLBlast does not cover. Global size (n, m, batch) rounded up
 * to TILE; beta == 0 ignores C's contents. Accumulates in A. */
#include "common.cl"

#ifndef TILE
#define TILE 16
#endif

typedef struct {
  i64 m, n, k, lda, ldb, ldc, sa, sb, sc;
  i32 ta, tb;
} GemmArgs;

KERNEL void gemm_tiled(GLOBAL uchar* ab, i64 ao, GLOBAL uchar* bb, i64 bo, GLOBAL uchar* cb,
                       i64 co, GemmArgs g, Scalar alpha, Scalar beta, int beta_zero) {
  LOCAL A ta[TILE][TILE];
  LOCAL A tb[TILE][TILE];
  i64 bt = GROUP_ID(2);
  GLOBAL T* a = TYPED(T, ab, ao) + bt * g.sa;
  GLOBAL T* b = TYPED(T, bb, bo) + bt * g.sb;
  GLOBAL T* c = TYPED(T, cb, co) + bt * g.sc;
  int lx = (int)LID(0), ly = (int)LID(1);
  i64 col = GROUP_ID(0) * TILE + lx, row = GROUP_ID(1) * TILE + ly;
  A acc = 0;
  for (i64 k0 = 0; k0 < g.k; k0 += TILE) {
    i64 ka = k0 + lx, kb = k0 + ly;
    ta[ly][lx] = (row < g.m && ka < g.k) ? LD(a, g.ta ? ka * g.lda + row : row * g.lda + ka) : (A)0;
    tb[ly][lx] = (kb < g.k && col < g.n) ? LD(b, g.tb ? col * g.ldb + kb : kb * g.ldb + col) : (A)0;
    BARRIER();
    for (int t = 0; t < TILE; ++t) acc += ta[ly][t] * tb[t][lx];
    BARRIER();
  }
  if (row < g.m && col < g.n) {
    A r = SCALAR_A(alpha) * acc;
    if (!beta_zero) r += SCALAR_A(beta) * LD(c, row * g.ldc + col);
    ST(c, row * g.ldc + col, r);
  }
}
