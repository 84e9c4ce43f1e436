/* The index family (op codes: locus::backend::IndexOp) for data dtype T; indices are int64.
 * Geom operands: 0 out, 1 in (src for scatter_add), 2 index. IndexSelect passes index strides
 * that are zero except along `dim`, which turns it into a gather. Iteration runs over out's
 * shape (gather, index_select) or index's shape (scatter_add, atomically: duplicates add up). */
#include "common.cl"

#define I_INDEX_SELECT 0
#define I_GATHER 1
#define I_SCATTER_ADD 2

KERNEL void index_op(GLOBAL uchar* outb, i64 outo, GLOBAL uchar* inb, i64 ino, GLOBAL uchar* ib,
                     i64 io, Geom g, int op, int dim, i64 dim_size) {
  GLOBAL T* out = TYPED(T, outb, outo);
  GLOBAL T* in = TYPED(T, inb, ino);
  GLOBAL i64* idx = TYPED(i64, ib, io);
  int scatter = op == I_SCATTER_ADD;
  for (i64 i = GID(0); i < g.numel; i += GSIZE(0)) {
    i64 rem = i, oo = 0, inoff = 0, ioff = 0, c_dim = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
      i64 c = rem % g.sizes[d];
      rem /= g.sizes[d];
      ioff += c * g.strides[2][d];
      if (d == dim) {
        c_dim = c;
      } else {
        oo += c * g.strides[0][d];
        inoff += c * g.strides[1][d];
      }
    }
    i64 k = idx[ioff];
    if (k < 0) k += dim_size;
    if (scatter) {
      atomic_add_T(out + oo + k * g.strides[0][dim], LD(in, inoff + c_dim * g.strides[1][dim]));
    } else {
      out[oo + c_dim * g.strides[0][dim]] = in[inoff + k * g.strides[1][dim]];
    }
  }
}
