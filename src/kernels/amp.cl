/* GradScaler's fused pass (PyTorch's _amp_foreach_non_finite_check_and_unscale_): up to
 * AMP_MAX_TENSORS contiguous tensors of T in one launch, every element multiplied in place by
 * inv_scale, and the float32 at found_inf set to 1 when any element is inf or NaN (found_inf is
 * only ever set, never cleared: the host zeroes it once per pass). Tensor k holds the launch's
 * elements [end[k-1], end[k]) (end[-1] = 0) at byte offset off[k] of its buffer bk. A grid-stride
 * loop over the concatenation: an item's tensor index only grows, so finding it is a forward scan.
 * Arithmetic in A (float for half and bfloat16: vload_half/vstore_half through LD/ST). */
#include "common.cl"

#ifdef IS_FLOAT /* floating dtypes only (the program is still built for the others: empty) */
#define AMP_MAX_TENSORS 16

typedef struct {
  i64 off[AMP_MAX_TENSORS];
  i64 end[AMP_MAX_TENSORS];
} AmpTable;

KERNEL void amp_unscale(GLOBAL uchar* b0, GLOBAL uchar* b1, GLOBAL uchar* b2, GLOBAL uchar* b3,
                        GLOBAL uchar* b4, GLOBAL uchar* b5, GLOBAL uchar* b6, GLOBAL uchar* b7,
                        GLOBAL uchar* b8, GLOBAL uchar* b9, GLOBAL uchar* b10, GLOBAL uchar* b11,
                        GLOBAL uchar* b12, GLOBAL uchar* b13, GLOBAL uchar* b14, GLOBAL uchar* b15,
                        AmpTable t, int count, float inv_scale, GLOBAL uchar* fb, i64 fo) {
  i64 total = t.end[count - 1];
  int k = 0, found = 0;
  for (i64 i = GID(0); i < total; i += GSIZE(0)) {
    while (i >= t.end[k]) ++k;
    GLOBAL uchar* b = k < 8 ? (k < 4 ? (k < 2 ? (k == 0 ? b0 : b1) : (k == 2 ? b2 : b3))
                                     : (k < 6 ? (k == 4 ? b4 : b5) : (k == 6 ? b6 : b7)))
                            : (k < 12 ? (k < 10 ? (k == 8 ? b8 : b9) : (k == 10 ? b10 : b11))
                                      : (k < 14 ? (k == 12 ? b12 : b13) : (k == 14 ? b14 : b15)));
    GLOBAL T* p = TYPED(T, b, t.off[k]);
    i64 j = i - (k == 0 ? 0 : t.end[k - 1]);
    A v = LD(p, j);
    if (isnan(v) || isinf(v)) found = 1;
    ST(p, j, v * (A)inv_scale);
  }
  if (found) *TYPED(float, fb, fo) = 1.0f;
}
#endif /* IS_FLOAT */
