// Fused optimizer updates: one pass over a parameter and its state instead of a dozen tensor ops
// (the Adam update was half of a small MLP's training step).
//
// Float Adam on AVX-512 (adam_range_avx512): the update is bound by the divider (a square root
// and two divisions per element: about 2 cycles an element, 12% of the MLP's epoch). The division
// of sqrt(v) by the constant sqrt(bias_correction2) is done instead as q = x * r, r = RN(1 / c),
// corrected once with two FMAs (q + (x - q * c) * r): Markstein's theorem gives the correctly
// rounded quotient, x / c exactly, when nothing under- or overflows. Checked here for every float
// x in [2^-100, 2^100] and 16 divisors (the bias corrections of steps 1 to 100000 among them);
// outside that range (x = sqrt(v) > 0 is never below 2^-75, as v is a float) a vector with such a
// lane takes the division. The other operations are adam_range's, with the FMAs written out (the
// compiler's contraction of adam_range may round an element an ulp differently): the update is
// that arithmetic to the bit (tests/backends/cpu/optim_test.cpp), about 1.2x faster than before.
#include <cmath>
#include <cstdlib>

#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LOCUS_ADAM_AVX512 1
#endif

namespace locus::cpu {
namespace {

// torch.optim.Adam / AdamW (single-tensor path), element by element, in T's precision. The
// variants are separate instantiations so that each inner loop is branch-free and vectorises.
template <class T, bool kAmsgrad, int kDecay /* 0 none, 1 on the gradient, 2 decoupled (AdamW) */>
LOCUS_CPU_CLONES void adam_range(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                                 T* __restrict mx, int64_t lo, int64_t hi, const backend::Backend::Adam& a) {
  const T b1 = static_cast<T>(a.beta1), b2 = static_cast<T>(a.beta2), wd = static_cast<T>(a.weight_decay);
  const T eps = static_cast<T>(a.eps), c1 = T(1) - b1, c2 = T(1) - b2;
  const T step = static_cast<T>(a.lr / a.bias_correction1), root_bc2 = static_cast<T>(std::sqrt(a.bias_correction2));
  const T decay = static_cast<T>(1 - a.lr * a.weight_decay);
  for (int64_t i = lo; i < hi; ++i) {
    T pi = p[i], gi = g[i];
    if constexpr (kDecay == 2) pi = pi * decay;
    if constexpr (kDecay == 1) gi = gi + pi * wd;
    T mi = m[i] * b1 + gi * c1;
    T vi = v[i] * b2 + gi * gi * c2;
    m[i] = mi;
    v[i] = vi;
    T s = vi;
    if constexpr (kAmsgrad) {
      s = mx[i] > vi ? mx[i] : vi;
      mx[i] = s;
    }
    T denom = std::sqrt(s) / root_bc2 + eps;
    p[i] = pi - step * (mi / denom);
  }
}

#ifdef LOCUS_ADAM_AVX512
// adam_range for float, 16 elements a step (the tail by masks), as described at the top.
template <bool kAmsgrad, int kDecay>
__attribute__((target("avx512f,fma"))) void adam_range_avx512(float* __restrict p, const float* __restrict g,
                                                              float* __restrict m, float* __restrict v,
                                                              float* __restrict mx, int64_t lo, int64_t hi,
                                                              const backend::Backend::Adam& a) {
  const float b1 = static_cast<float>(a.beta1), b2 = static_cast<float>(a.beta2);
  const float wd = static_cast<float>(a.weight_decay), eps = static_cast<float>(a.eps);
  const float step = static_cast<float>(a.lr / a.bias_correction1);
  const float root_bc2 = static_cast<float>(std::sqrt(a.bias_correction2));
  const float decay = static_cast<float>(1 - a.lr * a.weight_decay);
  const __m512 vb1 = _mm512_set1_ps(b1), vb2 = _mm512_set1_ps(b2), vc1 = _mm512_set1_ps(1.0f - b1),
               vc2 = _mm512_set1_ps(1.0f - b2), vwd = _mm512_set1_ps(wd), veps = _mm512_set1_ps(eps),
               vstep = _mm512_set1_ps(step), vdecay = _mm512_set1_ps(decay), vc = _mm512_set1_ps(root_bc2),
               vr = _mm512_set1_ps(1.0f / root_bc2), vhuge = _mm512_set1_ps(0x1p100f),
               vtiny = _mm512_set1_ps(0x1p-100f), vzero = _mm512_setzero_ps();
  for (int64_t i = lo; i < hi; i += 16) {
    const __mmask16 k = hi - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (hi - i)) - 1);
    __m512 pi = _mm512_maskz_loadu_ps(k, p + i), gi = _mm512_maskz_loadu_ps(k, g + i);
    if constexpr (kDecay == 2) pi = _mm512_mul_ps(pi, vdecay);
    if constexpr (kDecay == 1) gi = _mm512_fmadd_ps(pi, vwd, gi);
    const __m512 mi = _mm512_fmadd_ps(gi, vc1, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, m + i), vb1));
    const __m512 vi = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, v + i), vb2, _mm512_mul_ps(_mm512_mul_ps(gi, gi), vc2));
    _mm512_mask_storeu_ps(m + i, k, mi);
    _mm512_mask_storeu_ps(v + i, k, vi);
    __m512 s = vi;
    if constexpr (kAmsgrad) {
      const __m512 old = _mm512_maskz_loadu_ps(k, mx + i);
      s = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(old, vi, _CMP_GT_OQ), vi, old);  // mx > v ? mx : v
      _mm512_mask_storeu_ps(mx + i, k, s);
    }
    const __m512 x = _mm512_maskz_sqrt_ps(k, s);  // (maskz: GCC 12 warns on _mm512_sqrt_ps)
    const __m512 q = _mm512_mul_ps(x, vr);
    __m512 xc = _mm512_fmadd_ps(_mm512_fnmadd_ps(q, vc, x), vr, q);  // x / root_bc2, see the top
    const __mmask16 out = _mm512_cmp_ps_mask(x, vhuge, _CMP_GT_OQ) |
                          (_mm512_cmp_ps_mask(x, vtiny, _CMP_LT_OQ) & _mm512_cmp_ps_mask(x, vzero, _CMP_NEQ_OQ));
    if (out != 0) xc = _mm512_mask_div_ps(xc, out, x, vc);
    const __m512 denom = _mm512_add_ps(xc, veps);
    _mm512_mask_storeu_ps(p + i, k, _mm512_fnmadd_ps(vstep, _mm512_div_ps(mi, denom), pi));
  }
}
#endif

template <class T, bool kAmsgrad>
void adam_typed(T* p, const T* g, T* m, T* v, T* mx, int64_t n, const backend::Backend::Adam& a) {
  int decay = a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1;
#ifdef LOCUS_ADAM_AVX512
  if constexpr (std::is_same_v<T, float>) {
    if (conv_avx512::available()) {  // AVX-512F, and LOCUS_CPU_ISA not capped below it
      return parallel_for(0, n, kGrainMath, [&](int64_t lo, int64_t hi) {
        if (decay == 0) adam_range_avx512<kAmsgrad, 0>(p, g, m, v, mx, lo, hi, a);
        else if (decay == 1) adam_range_avx512<kAmsgrad, 1>(p, g, m, v, mx, lo, hi, a);
        else adam_range_avx512<kAmsgrad, 2>(p, g, m, v, mx, lo, hi, a);
      });
    }
  }
#endif
  parallel_for(0, n, kGrainMath, [&](int64_t lo, int64_t hi) {
    if (decay == 0) adam_range<T, kAmsgrad, 0>(p, g, m, v, mx, lo, hi, a);
    else if (decay == 1) adam_range<T, kAmsgrad, 1>(p, g, m, v, mx, lo, hi, a);
    else adam_range<T, kAmsgrad, 2>(p, g, m, v, mx, lo, hi, a);
  });
}

}  // namespace

void adam_step(ScalarType dtype, Buffer param, Buffer grad, Buffer exp_avg, Buffer exp_avg_sq, Buffer max_sq,
               int64_t n, const backend::Backend::Adam& a) {
  auto run = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* p = data_as<T>(param);
    const T* g = data_as<const T>(grad);
    T* m = data_as<T>(exp_avg);
    T* v = data_as<T>(exp_avg_sq);
    if (max_sq.base != nullptr) adam_typed<T, true>(p, g, m, v, data_as<T>(max_sq), n, a);
    else adam_typed<T, false>(p, g, m, v, nullptr, n, a);
  };
  if (dtype == kFloat) run(static_cast<float*>(nullptr));
  else if (dtype == kDouble) run(static_cast<double*>(nullptr));
  else unsupported("adam_step", dtype);
}

}  // namespace locus::cpu
