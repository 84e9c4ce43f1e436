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
// On a CPU with AVX2 + FMA but no AVX-512 (Zen 3), adam_range_avx2 does the same arithmetic 8
// elements a step: the same bits as on an AVX-512 CPU (the compiler's loop may contract
// differently), the divider's work per element a square root and one division, not two.
//
// Denormals. Where a parameter's gradient is 0 for many steps (the weights of an input pixel that
// is rarely lit), m decays by beta1 each step and passes through the denormal range (below
// 2^-126) after some 800 steps. On x86 a float multiply, division or FMA with a denormal operand
// or result takes a microcode assist (measured on the AVX-512 Xeon: 50-90 ns a vector, against
// ~3 ns): the Fashion-MNIST MLP's second and third epochs ran 1.4-1.8x slower than its first
// (PyTorch 2.15's too: 2.7-2.9 s against 1.7 s). A vector with a lane of m below 2^-100 therefore
// updates m and p in double (exact:: below), where nothing is denormal, with the float
// arithmetic's result to the bit: epochs 2-3 0.83-1.18 s -> 0.57-0.74 s, the same losses.
// (v decays by beta2 and reaches the denormal range only after ~80,000 steps without gradient;
// tiny gradients, g * g below 2^-126, still take the assists: both rare, both still exact.)
// AMD's Zen 4 takes no such assist: an FMA with denormal operands or result runs at full speed, a
// division with a denormal dividend at about half. There the double path is the slower one (1.78
// against 0.84 ns an element, one thread, every vector with a tiny lane), and its check alone costs
// 20% of the common case (0.43 against 0.36 ns): adam_denormal_path() (kernels.h) picks the float
// path on AMD CPUs, the double path elsewhere, as a template argument. The bits are the same.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LOCUS_ADAM_AVX512 1
// GCC 12's intrinsics (extract, cvtpd_ps, the masked forms) pass _mm512_undefined_*(), a
// self-initialised variable, which -Wmaybe-uninitialized reports once they are inlined here
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace locus::cpu {

namespace {
std::atomic<AdamDenormalPath> g_adam_denormal_path{AdamDenormalPath::kAuto};
}  // namespace

void set_adam_denormal_path(AdamDenormalPath path) { g_adam_denormal_path.store(path, std::memory_order_relaxed); }

AdamDenormalPath adam_denormal_path() {
  const AdamDenormalPath path = g_adam_denormal_path.load(std::memory_order_relaxed);
  if (path != AdamDenormalPath::kAuto) return path;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool amd = [] {
    __builtin_cpu_init();
    return __builtin_cpu_is("amd") != 0;
  }();
  return amd ? AdamDenormalPath::kFloat : AdamDenormalPath::kDouble;
#else
  return AdamDenormalPath::kDouble;
#endif
}

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
// Double-precision stand-ins for float operations whose operands or result may be denormal (see
// the top): in double nothing is denormal (float magnitudes are >= 2^-149, their products
// >= 2^-298), and the conversion back to float rounds once without an assist (measured: ~2.5 ns a
// vector, against 50-90 ns for a float multiply, division or FMA meeting the denormal range).
// A product of two floats is exact in double; other operations are rounded to odd (towards -inf
// and towards +inf: equal when exact, else the one with an odd last bit), which makes the second
// rounding, to float, give exactly the float operation's result (Boldo and Melquiond, "When
// double rounding is odd", 2005: 53 >= 24 + 2 bits), denormal results included.
namespace exact {
#define LOCUS_ADAM_TARGET __attribute__((target("avx512f,fma")))
using D = __m512d;  // 8 lanes
constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC, kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
LOCUS_ADAM_TARGET inline D odd(D down, D up) {
  const __mmask8 same = _mm512_cmp_pd_mask(down, up, _CMP_EQ_OQ);
  const __mmask8 down_odd = _mm512_test_epi64_mask(_mm512_castpd_si512(down), _mm512_set1_epi64(1));
  return _mm512_mask_blend_pd(static_cast<__mmask8>(~(same | down_odd)), down, up);
}
LOCUS_ADAM_TARGET inline D fma(D a, D b, D c) {  // a * b + c
  return odd(_mm512_fmadd_round_pd(a, b, c, kDown), _mm512_fmadd_round_pd(a, b, c, kUp));
}
LOCUS_ADAM_TARGET inline D fnma(D a, D b, D c) {  // c - a * b
  return odd(_mm512_fnmadd_round_pd(a, b, c, kDown), _mm512_fnmadd_round_pd(a, b, c, kUp));
}
LOCUS_ADAM_TARGET inline D div(D a, D b) {
  return odd(_mm512_div_round_pd(a, b, kDown), _mm512_div_round_pd(a, b, kUp));
}
LOCUS_ADAM_TARGET inline D to_float(D x) { return _mm512_cvtps_pd(_mm512_cvtpd_ps(x)); }  // rounded to nearest
LOCUS_ADAM_TARGET inline D half(__m512 x, int h) {  // lanes 8h .. 8h+7 in double
  return _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(x)
                                : _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
}
LOCUS_ADAM_TARGET inline __m512 join(D l, D h) {  // rounded to nearest
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(l))),
                                             _mm256_castps_pd(_mm512_cvtpd_ps(h)), 1));
}
}  // namespace exact

// adam_range for float, 16 elements a step (the tail by masks), as described at the top.
template <bool kAmsgrad, int kDecay, bool kExactM>
LOCUS_ADAM_TARGET void adam_range_avx512(float* __restrict p, const float* __restrict g, float* __restrict m,
                                         float* __restrict v, float* __restrict mx, int64_t lo, int64_t hi,
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
  // the m and p updates by way of double where a lane of m is below 2^-100 (vtiny; see the top)
  const __m512d db1 = _mm512_set1_pd(b1), dc1 = _mm512_set1_pd(1.0f - b1), dstep = _mm512_set1_pd(step);
  for (int64_t i = lo; i < hi; i += 16) {
    const __mmask16 k = hi - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (hi - i)) - 1);
    __m512 pi = _mm512_maskz_loadu_ps(k, p + i), gi = _mm512_maskz_loadu_ps(k, g + i);
    if constexpr (kDecay == 2) pi = _mm512_mul_ps(pi, vdecay);
    if constexpr (kDecay == 1) gi = _mm512_fmadd_ps(pi, vwd, gi);
    const __m512 m0 = _mm512_maskz_loadu_ps(k, m + i);
    // a lane of m below 2^-100 (m decaying where the gradient is 0): the m and p updates in double
    // where the CPU takes assists on denormals (kExactM; adam_denormal_path())
    const bool small_m = kExactM && (_mm512_cmp_ps_mask(_mm512_abs_ps(m0), vtiny, _CMP_LT_OQ) &
                                     _mm512_cmp_ps_mask(m0, vzero, _CMP_NEQ_OQ)) != 0;
    const __m512 mi = small_m ? vzero : _mm512_fmadd_ps(gi, vc1, _mm512_mul_ps(m0, vb1));
    const __m512 vi = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, v + i), vb2, _mm512_mul_ps(_mm512_mul_ps(gi, gi), vc2));
    if (!small_m) _mm512_mask_storeu_ps(m + i, k, mi);
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
    if (small_m) {  // the same operations in double (exact:: above)
      exact::D nm[2], np[2];
      for (int h = 0; h < 2; ++h) {
        const exact::D mb = exact::to_float(_mm512_mul_pd(exact::half(m0, h), db1));
        nm[h] = exact::to_float(exact::fma(exact::half(gi, h), dc1, mb));
        const exact::D q = exact::to_float(exact::div(nm[h], exact::half(denom, h)));
        np[h] = exact::fnma(dstep, q, exact::half(pi, h));
      }
      _mm512_mask_storeu_ps(m + i, k, exact::join(nm[0], nm[1]));
      _mm512_mask_storeu_ps(p + i, k, exact::join(np[0], np[1]));
      continue;
    }
    _mm512_mask_storeu_ps(p + i, k, _mm512_fnmadd_ps(vstep, _mm512_div_ps(mi, denom), pi));
  }
}

// adam_range for float with AVX2 + FMA (a CPU without AVX-512, such as Zen 3), 8 elements a step:
// adam_range_avx512's arithmetic (the corrected reciprocal for the division by root_bc2, the FMAs
// written out), so the same bits on both kinds of CPU, without its double path for denormal
// moments (AVX2 has no per-instruction rounding; adam_range has none either, and AMD's CPUs need
// none). The range check is cheaper than adam_range_avx512's: x = sqrt(s) of a float s is 0, NaN,
// inf or within [2^-75, 2^64], inside the corrected reciprocal's range, where 0 and NaN come out
// right as they are; only inf (inf - inf in the correction) needs the blend. A per-vector test and
// branch on the full range, as the AVX-512 kernel has, made this loop slower than the compiler's
// (two divisions) on Zen 3; without it about as fast or up to 1.2x faster (docs/benchmarks.md,
// stop 52). The tail, under 8 elements, one at a time with the same operations (a scalar division
// is the quotient the corrected reciprocal gives).
#define LOCUS_ADAM_AVX2 __attribute__((target("avx2,fma")))
template <bool kAmsgrad, int kDecay>
LOCUS_ADAM_AVX2 void adam_range_avx2(float* __restrict p, const float* __restrict g, float* __restrict m,
                                     float* __restrict v, float* __restrict mx, int64_t lo, int64_t hi,
                                     const backend::Backend::Adam& a) {
  const float b1 = static_cast<float>(a.beta1), b2 = static_cast<float>(a.beta2);
  const float wd = static_cast<float>(a.weight_decay), eps = static_cast<float>(a.eps);
  const float c1 = 1.0f - b1, c2 = 1.0f - b2;
  const float step = static_cast<float>(a.lr / a.bias_correction1);
  const float root_bc2 = static_cast<float>(std::sqrt(a.bias_correction2));
  const float decay = static_cast<float>(1 - a.lr * a.weight_decay);
  const __m256 vb1 = _mm256_set1_ps(b1), vb2 = _mm256_set1_ps(b2), vc1 = _mm256_set1_ps(c1), vc2 = _mm256_set1_ps(c2),
               vwd = _mm256_set1_ps(wd), veps = _mm256_set1_ps(eps), vstep = _mm256_set1_ps(step),
               vdecay = _mm256_set1_ps(decay), vc = _mm256_set1_ps(root_bc2), vr = _mm256_set1_ps(1.0f / root_bc2);
  const __m256 vinf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  int64_t i = lo;
  for (; i + 8 <= hi; i += 8) {
    __m256 pi = _mm256_loadu_ps(p + i), gi = _mm256_loadu_ps(g + i);
    if constexpr (kDecay == 2) pi = _mm256_mul_ps(pi, vdecay);
    if constexpr (kDecay == 1) gi = _mm256_fmadd_ps(pi, vwd, gi);
    const __m256 mi = _mm256_fmadd_ps(gi, vc1, _mm256_mul_ps(_mm256_loadu_ps(m + i), vb1));
    const __m256 vi = _mm256_fmadd_ps(_mm256_loadu_ps(v + i), vb2, _mm256_mul_ps(_mm256_mul_ps(gi, gi), vc2));
    _mm256_storeu_ps(m + i, mi);
    _mm256_storeu_ps(v + i, vi);
    __m256 s = vi;
    if constexpr (kAmsgrad) {
      const __m256 old = _mm256_loadu_ps(mx + i);
      s = _mm256_blendv_ps(vi, old, _mm256_cmp_ps(old, vi, _CMP_GT_OQ));  // mx > v ? mx : v
      _mm256_storeu_ps(mx + i, s);
    }
    const __m256 x = _mm256_sqrt_ps(s);
    const __m256 q = _mm256_mul_ps(x, vr);
    __m256 xc = _mm256_fmadd_ps(_mm256_fnmadd_ps(q, vc, x), vr, q);  // x / root_bc2, see the top
    xc = _mm256_blendv_ps(xc, x, _mm256_cmp_ps(x, vinf, _CMP_EQ_OQ));  // inf / root_bc2 is inf
    const __m256 denom = _mm256_add_ps(xc, veps);
    _mm256_storeu_ps(p + i, _mm256_fnmadd_ps(vstep, _mm256_div_ps(mi, denom), pi));
  }
  for (; i < hi; ++i) {
    float pi = p[i], gi = g[i];
    if constexpr (kDecay == 2) pi = pi * decay;
    if constexpr (kDecay == 1) gi = std::fma(pi, wd, gi);
    const float mi = std::fma(gi, c1, m[i] * b1);
    const float gg = gi * gi;
    const float vi = std::fma(v[i], b2, gg * c2);
    m[i] = mi;
    v[i] = vi;
    float s = vi;
    if constexpr (kAmsgrad) s = mx[i] = mx[i] > vi ? mx[i] : vi;
    const float xc = std::sqrt(s) / root_bc2;
    const float denom = xc + eps;
    p[i] = std::fma(-step, mi / denom, pi);
  }
}
#endif

template <class T, bool kAmsgrad>
void adam_typed(T* p, const T* g, T* m, T* v, T* mx, int64_t n, const backend::Backend::Adam& a) {
  int decay = a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1;
#ifdef LOCUS_ADAM_AVX512
  if constexpr (std::is_same_v<T, float>) {
    if (conv_avx512::available()) {  // AVX-512F, and LOCUS_CPU_ISA not capped below it
      const auto run = [&](auto exact) {
        parallel_for(0, n, kGrainMath, [&](int64_t lo, int64_t hi) {
          if (decay == 0) adam_range_avx512<kAmsgrad, 0, decltype(exact)::value>(p, g, m, v, mx, lo, hi, a);
          else if (decay == 1) adam_range_avx512<kAmsgrad, 1, decltype(exact)::value>(p, g, m, v, mx, lo, hi, a);
          else adam_range_avx512<kAmsgrad, 2, decltype(exact)::value>(p, g, m, v, mx, lo, hi, a);
        });
      };
      if (adam_denormal_path() == AdamDenormalPath::kDouble) return run(std::true_type{});
      return run(std::false_type{});
    }
    if (conv_avx2::available()) {  // AVX2 and FMA, and LOCUS_CPU_ISA not capped below it
      parallel_for(0, n, kGrainMath, [&](int64_t lo, int64_t hi) {
        if (decay == 0) adam_range_avx2<kAmsgrad, 0>(p, g, m, v, mx, lo, hi, a);
        else if (decay == 1) adam_range_avx2<kAmsgrad, 1>(p, g, m, v, mx, lo, hi, a);
        else adam_range_avx2<kAmsgrad, 2>(p, g, m, v, mx, lo, hi, a);
      });
      return;
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
