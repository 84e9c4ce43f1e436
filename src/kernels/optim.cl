/* Adam / AdamW (torch.optim's single-tensor arithmetic, as the cpu backend's fused kernel does it)
 * for one parameter, out of place: reads the parameter p, its gradient g and the moments m, v
 * (and the running maximum mx for AMSGrad) and writes the new values to np, nm, nv (nmx), leaving
 * the inputs alone, so that an optimizer step that fails part way changes nothing (the host swaps
 * the outputs in afterwards). One launch per parameter instead of a dozen elementwise ones.
 * decay: 0 none, 1 on the gradient (Adam), 2 decoupled (AdamW). Arithmetic in A. */
#include "common.cl"

#ifdef IS_FLOAT /* floating dtypes only (the program is still built for the others: empty) */
typedef struct {
  Scalar beta1, beta2, weight_decay, eps;
  Scalar step;     /* lr / bias_correction1 */
  Scalar root_bc2; /* sqrt(bias_correction2) */
  Scalar decay;    /* 1 - lr * weight_decay */
} AdamArgs;

KERNEL void adam_step(GLOBAL uchar* npb, i64 npo, GLOBAL uchar* nmb, i64 nmo, GLOBAL uchar* nvb, i64 nvo,
                      GLOBAL uchar* nxb, i64 nxo, GLOBAL uchar* pb, i64 po, GLOBAL uchar* gb, i64 go,
                      GLOBAL uchar* mb, i64 mo, GLOBAL uchar* vb, i64 vo, GLOBAL uchar* xb, i64 xo, i64 n,
                      AdamArgs a, int amsgrad, int decay) {
  GLOBAL T* np = TYPED(T, npb, npo);
  GLOBAL T* nm = TYPED(T, nmb, nmo);
  GLOBAL T* nv = TYPED(T, nvb, nvo);
  GLOBAL T* nx = TYPED(T, nxb, nxo);
  GLOBAL T* p = TYPED(T, pb, po);
  GLOBAL T* g = TYPED(T, gb, go);
  GLOBAL T* m = TYPED(T, mb, mo);
  GLOBAL T* v = TYPED(T, vb, vo);
  GLOBAL T* x = TYPED(T, xb, xo);
  const A b1 = SCALAR_A(a.beta1), b2 = SCALAR_A(a.beta2), wd = SCALAR_A(a.weight_decay), eps = SCALAR_A(a.eps);
  const A c1 = (A)1 - b1, c2 = (A)1 - b2;
  const A step = SCALAR_A(a.step), root_bc2 = SCALAR_A(a.root_bc2), dec = SCALAR_A(a.decay);
  for (i64 i = GID(0); i < n; i += GSIZE(0)) {
    A pi = LD(p, i), gi = LD(g, i);
    if (decay == 2) pi = pi * dec;
    if (decay == 1) gi = gi + pi * wd;
    A mi = LD(m, i) * b1 + gi * c1;
    A vi = LD(v, i) * b2 + gi * gi * c2;
    ST(nm, i, mi);
    ST(nv, i, vi);
    A s = vi;
    if (amsgrad) {
      A xi = LD(x, i);
      s = xi > vi ? xi : vi;
      ST(nx, i, s);
    }
    A denom = sqrt(s) / root_bc2 + eps;
    ST(np, i, pi - step * (mi / denom));
  }
}
#endif
