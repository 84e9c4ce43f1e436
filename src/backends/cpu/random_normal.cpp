// Vectorised normal draws (random_normal.h). One kernel template, normal_group<O>, over three
// "ops" types: Scalar (W = 1, plain float and uint32_t), Avx2 (W = 8) and Avx512 (W = 16). The
// entry points for the vector levels carry the target attribute and `flatten`, so the template
// and the ops' intrinsics are inlined into them at that ISA.
//
// Per group of W blocks: Philox 4x32-10 on W counters at once (the 32x32->64 multiplies as
// even/odd VPMULUDQ), then for each of the two Box-Muller pairs u1 = ((x >> 8) + 1) 2^-24,
// u2 = (x >> 8) 2^-24, r = sqrt(-2 log u1), and cos and sin of a = fl(2 pi u2):
//  - log: Cephes' logf (mantissa in [sqrt(1/2), sqrt(2)), a degree-8 polynomial, the exponent
//    times ln 2 split in two parts);
//  - sincos: Cephes' sincosf (octant j = nearest even multiple of pi/4, a - j pi/4 in three
//    exact-product steps, degree-3 sin and cos polynomials on [-pi/4, pi/4], swap and signs by j).
// Vector lane 4k + p of a group holds block W/4 * p + k, so that the 4x4 unpacks of the four
// result vectors leave the blocks in memory order (no cross-lane shuffles).
#include "backends/cpu/random_normal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/philox.h"
#include "locus/error.h"

// The AVX paths rely on inlining (normal_range_* are `flatten`): the generic templates below pass
// __m256/__m512 values to the target-attributed helpers, which is only safe once everything is
// inlined into the AVX function. Without optimisation (a Debug build) GCC inlines nothing, the
// generic code calls the helpers with the non-AVX vector ABI and the draws crash; such builds take
// the scalar path, which gives the same numbers.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__OPTIMIZE__)
#include <immintrin.h>
#define LOCUS_NORMAL_X86 1
#define LOCUS_T2 __attribute__((target("avx2")))
#define LOCUS_T512 __attribute__((target("avx2,avx512f")))
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers: `__m512i __Y = __Y;`
#endif
// The templates below also exist, uncalled, outside the target functions they are flattened into.
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace locus::cpu {
namespace {

constexpr float kTwoPi = 6.28318530717958647692f;

struct Scalar {
  static constexpr int W = 1;
  using F = float;
  using U = uint32_t;
  using M = bool;
  static F set1(float v) { return v; }
  static U set1u(uint32_t v) { return v; }
  static U load_u(const uint32_t* p) { return *p; }
  static F add(F a, F b) { return a + b; }
  static F sub(F a, F b) { return a - b; }
  static F mul(F a, F b) { return a * b; }
  static F sqrt(F a) { return std::sqrt(a); }
  static U xor_u(U a, U b) { return a ^ b; }
  static U and_u(U a, U b) { return a & b; }
  static U or_u(U a, U b) { return a | b; }
  static U add_u(U a, U b) { return a + b; }
  static U sub_u(U a, U b) { return a - b; }
  template <int S> static U srl(U a) { return a >> S; }
  template <int S> static U sll(U a) { return a << S; }
  static F as_f(U a) { float f; std::memcpy(&f, &a, 4); return f; }
  static U as_u(F a) { uint32_t u; std::memcpy(&u, &a, 4); return u; }
  static F cvt_i(U a) { return static_cast<float>(static_cast<int32_t>(a)); }  // int32 -> float
  static U cvtt(F a) { return static_cast<uint32_t>(static_cast<int32_t>(a)); }  // truncate
  static M lt(F a, F b) { return a < b; }
  static M bit_set(U a, uint32_t bit) { return (a & bit) != 0; }
  static F select(M m, F a, F b) { return m ? a : b; }
  static U mulhilo(U a, uint32_t m, U* hi) {
    uint64_t p = static_cast<uint64_t>(a) * m;
    *hi = static_cast<uint32_t>(p >> 32);
    return static_cast<uint32_t>(p);
  }
  static void store4(F z0, F z1, F z2, F z3, float* d) { d[0] = z0, d[1] = z1, d[2] = z2, d[3] = z3; }
};

#ifdef LOCUS_NORMAL_X86
struct Avx2 {
  static constexpr int W = 8;
  using F = __m256;
  using U = __m256i;
  using M = __m256;
  LOCUS_T2 static F set1(float v) { return _mm256_set1_ps(v); }
  LOCUS_T2 static U set1u(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
  LOCUS_T2 static U load_u(const uint32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  LOCUS_T2 static F add(F a, F b) { return _mm256_add_ps(a, b); }
  LOCUS_T2 static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  LOCUS_T2 static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  LOCUS_T2 static F sqrt(F a) { return _mm256_sqrt_ps(a); }
  LOCUS_T2 static U xor_u(U a, U b) { return _mm256_xor_si256(a, b); }
  LOCUS_T2 static U and_u(U a, U b) { return _mm256_and_si256(a, b); }
  LOCUS_T2 static U or_u(U a, U b) { return _mm256_or_si256(a, b); }
  LOCUS_T2 static U add_u(U a, U b) { return _mm256_add_epi32(a, b); }
  LOCUS_T2 static U sub_u(U a, U b) { return _mm256_sub_epi32(a, b); }
  template <int S> LOCUS_T2 static U srl(U a) { return _mm256_srli_epi32(a, S); }
  template <int S> LOCUS_T2 static U sll(U a) { return _mm256_slli_epi32(a, S); }
  LOCUS_T2 static F as_f(U a) { return _mm256_castsi256_ps(a); }
  LOCUS_T2 static U as_u(F a) { return _mm256_castps_si256(a); }
  LOCUS_T2 static F cvt_i(U a) { return _mm256_cvtepi32_ps(a); }
  LOCUS_T2 static U cvtt(F a) { return _mm256_cvttps_epi32(a); }
  LOCUS_T2 static M lt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  LOCUS_T2 static M bit_set(U a, uint32_t bit) {
    U b = set1u(bit);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(a, b), b));
  }
  LOCUS_T2 static F select(M m, F a, F b) { return _mm256_blendv_ps(b, a, m); }
  LOCUS_T2 static U mulhilo(U a, uint32_t m, U* hi) {
    U mv = set1u(m);
    U pe = _mm256_mul_epu32(a, mv);                         // lanes 0, 2, ...: 64-bit products
    U po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), mv);  // lanes 1, 3, ...
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
    return _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
  }
  LOCUS_T2 static void store4(F z0, F z1, F z2, F z3, float* d) {
    F a = _mm256_unpacklo_ps(z0, z1), b = _mm256_unpackhi_ps(z0, z1);
    F c = _mm256_unpacklo_ps(z2, z3), e = _mm256_unpackhi_ps(z2, z3);
    _mm256_storeu_ps(d, _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(c))));
    _mm256_storeu_ps(d + 8, _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(c))));
    _mm256_storeu_ps(d + 16, _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(b), _mm256_castps_pd(e))));
    _mm256_storeu_ps(d + 24, _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(b), _mm256_castps_pd(e))));
  }
};

struct Avx512 {
  static constexpr int W = 16;
  using F = __m512;
  using U = __m512i;
  using M = __mmask16;
  LOCUS_T512 static F set1(float v) { return _mm512_set1_ps(v); }
  LOCUS_T512 static U set1u(uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }
  LOCUS_T512 static U load_u(const uint32_t* p) { return _mm512_loadu_si512(p); }
  LOCUS_T512 static F add(F a, F b) { return _mm512_add_ps(a, b); }
  LOCUS_T512 static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  LOCUS_T512 static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  LOCUS_T512 static F sqrt(F a) { return _mm512_sqrt_ps(a); }
  LOCUS_T512 static U xor_u(U a, U b) { return _mm512_xor_si512(a, b); }
  LOCUS_T512 static U and_u(U a, U b) { return _mm512_and_si512(a, b); }
  LOCUS_T512 static U or_u(U a, U b) { return _mm512_or_si512(a, b); }
  LOCUS_T512 static U add_u(U a, U b) { return _mm512_add_epi32(a, b); }
  LOCUS_T512 static U sub_u(U a, U b) { return _mm512_sub_epi32(a, b); }
  template <int S> LOCUS_T512 static U srl(U a) { return _mm512_srli_epi32(a, S); }
  template <int S> LOCUS_T512 static U sll(U a) { return _mm512_slli_epi32(a, S); }
  LOCUS_T512 static F as_f(U a) { return _mm512_castsi512_ps(a); }
  LOCUS_T512 static U as_u(F a) { return _mm512_castps_si512(a); }
  LOCUS_T512 static F cvt_i(U a) { return _mm512_cvtepi32_ps(a); }
  LOCUS_T512 static U cvtt(F a) { return _mm512_cvttps_epi32(a); }
  LOCUS_T512 static M lt(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  LOCUS_T512 static M bit_set(U a, uint32_t bit) { return _mm512_test_epi32_mask(a, set1u(bit)); }
  LOCUS_T512 static F select(M m, F a, F b) { return _mm512_mask_blend_ps(m, b, a); }
  LOCUS_T512 static U mulhilo(U a, uint32_t m, U* hi) {
    U mv = set1u(m);
    U pe = _mm512_mul_epu32(a, mv);
    U po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), mv);
    *hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
    return _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
  }
  LOCUS_T512 static void store4(F z0, F z1, F z2, F z3, float* d) {
    F a = _mm512_unpacklo_ps(z0, z1), b = _mm512_unpackhi_ps(z0, z1);
    F c = _mm512_unpacklo_ps(z2, z3), e = _mm512_unpackhi_ps(z2, z3);
    _mm512_storeu_ps(d, _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(c))));
    _mm512_storeu_ps(d + 16, _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(c))));
    _mm512_storeu_ps(d + 32, _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(b), _mm512_castps_pd(e))));
    _mm512_storeu_ps(d + 48, _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(b), _mm512_castps_pd(e))));
  }
};
#endif

// log(x) for x in (0, 1] (a normal float): Cephes' logf.
template <class O>
inline typename O::F log_f32(typename O::F x) {
  using F = typename O::F;
  using U = typename O::U;
  U bits = O::as_u(x);
  U e = O::sub_u(O::template srl<23>(bits), O::set1u(126));  // x = m 2^e, m in [0.5, 1)
  F m = O::as_f(O::or_u(O::and_u(bits, O::set1u(0x007fffffu)), O::set1u(0x3f000000u)));
  auto small = O::lt(m, O::set1(0.707106781186547524f));  // then m 2^e = (2m) 2^(e-1)
  F t = O::sub(O::select(small, O::add(m, m), m), O::set1(1.0f));
  F fe = O::sub(O::cvt_i(e), O::select(small, O::set1(1.0f), O::set1(0.0f)));
  F z = O::mul(t, t);
  F y = O::set1(7.0376836292E-2f);
  y = O::add(O::mul(y, t), O::set1(-1.1514610310E-1f));
  y = O::add(O::mul(y, t), O::set1(1.1676998740E-1f));
  y = O::add(O::mul(y, t), O::set1(-1.2420140846E-1f));
  y = O::add(O::mul(y, t), O::set1(1.4249322787E-1f));
  y = O::add(O::mul(y, t), O::set1(-1.6668057665E-1f));
  y = O::add(O::mul(y, t), O::set1(2.0000714765E-1f));
  y = O::add(O::mul(y, t), O::set1(-2.4999993993E-1f));
  y = O::add(O::mul(y, t), O::set1(3.3333331174E-1f));
  y = O::mul(O::mul(y, t), z);
  y = O::add(y, O::mul(fe, O::set1(-2.12194440E-4f)));
  y = O::sub(y, O::mul(z, O::set1(0.5f)));
  F r = O::add(t, y);
  return O::add(r, O::mul(fe, O::set1(0.693359375f)));
}

// cos and sin of a in [0, 2 pi]: Cephes' sincosf.
template <class O>
inline void sincos_f32(typename O::F a, typename O::F* c, typename O::F* s) {
  using F = typename O::F;
  using U = typename O::U;
  U j = O::cvtt(O::mul(a, O::set1(1.27323954473516f)));  // a / (pi/4), a >= 0
  j = O::and_u(O::add_u(j, O::set1u(1)), O::set1u(~1u));  // to even: |x| <= pi/4 below
  F y = O::cvt_i(j);
  F x = O::sub(a, O::mul(y, O::set1(0.78515625f)));  // y * the three parts of pi/4 are exact
  x = O::sub(x, O::mul(y, O::set1(2.4187564849853515625e-4f)));
  x = O::sub(x, O::mul(y, O::set1(3.77489497744594108e-8f)));
  F z = O::mul(x, x);
  F ps = O::set1(-1.9515295891E-4f);
  ps = O::add(O::mul(ps, z), O::set1(8.3321608736E-3f));
  ps = O::add(O::mul(ps, z), O::set1(-1.6666654611E-1f));
  ps = O::add(O::mul(O::mul(ps, z), x), x);
  F pc = O::set1(2.443315711809948E-5f);
  pc = O::add(O::mul(pc, z), O::set1(-1.388731625493765E-3f));
  pc = O::add(O::mul(pc, z), O::set1(4.166664568298827E-2f));
  pc = O::mul(O::mul(pc, z), z);
  pc = O::sub(pc, O::mul(z, O::set1(0.5f)));
  pc = O::add(pc, O::set1(1.0f));
  // octant j (even): 2 swaps sin and cos; sin is negative for j & 4, cos for (j + 2) & 4
  auto swap = O::bit_set(j, 2);
  F sv = O::select(swap, pc, ps), cv = O::select(swap, ps, pc);
  U sign = O::set1u(4);
  *s = O::as_f(O::xor_u(O::as_u(sv), O::template sll<29>(O::and_u(j, sign))));
  *c = O::as_f(O::xor_u(O::as_u(cv), O::template sll<29>(O::and_u(O::add_u(j, O::set1u(2)), sign))));
}

// The blocks q .. q + W - 1 (counters c0 + q + ...), 4 W values in memory order to d.
template <class O>
inline void normal_group(uint64_t ctr, uint64_t seed, float mean, float stdv, float* d) {
  using F = typename O::F;
  using U = typename O::U;
  constexpr int W = O::W;
  uint32_t lo[W], hi[W];
  for (int i = 0; i < W; ++i) {
    uint64_t c = ctr + static_cast<uint64_t>(W >= 4 ? W / 4 * (i % 4) + i / 4 : i);
    lo[i] = static_cast<uint32_t>(c);
    hi[i] = static_cast<uint32_t>(c >> 32);
  }
  U c0 = O::load_u(lo), c1 = O::load_u(hi), c2 = O::set1u(0), c3 = O::set1u(0);
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {  // philox.h's rounds, W counters at once
    U hi0, hi1;
    U lo0 = O::mulhilo(c0, 0xD2511F53u, &hi0);
    U lo1 = O::mulhilo(c2, 0xCD9E8D57u, &hi1);
    c0 = O::xor_u(O::xor_u(hi1, c1), O::set1u(k0));
    c1 = lo1;
    c2 = O::xor_u(O::xor_u(hi0, c3), O::set1u(k1));
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  const F scale = O::set1(LOCUS_PHILOX_U24_SCALE), fa = O::set1(mean), fb = O::set1(stdv);
  F z[4];
  const U x[4] = {c0, c1, c2, c3};
  for (int p = 0; p < 4; p += 2) {
    F u1 = O::mul(O::cvt_i(O::add_u(O::template srl<8>(x[p]), O::set1u(1))), scale);
    F u2 = O::mul(O::cvt_i(O::template srl<8>(x[p + 1])), scale);
    F r = O::sqrt(O::mul(O::set1(-2.0f), log_f32<O>(u1)));
    F c, s;
    sincos_f32<O>(O::mul(O::set1(kTwoPi), u2), &c, &s);
    z[p] = O::add(fa, O::mul(fb, O::mul(r, c)));
    z[p + 1] = O::add(fa, O::mul(fb, O::mul(r, s)));
  }
  O::store4(z[0], z[1], z[2], z[3], d);
}

template <class O>
inline void normal_range(float* out, int64_t n, uint64_t seed, uint64_t c0, float mean, float stdv, int64_t qb,
                         int64_t qe) {
  constexpr int W = O::W;
  float tmp[4 * W];
  for (int64_t q = qb; q < qe; q += W) {
    const uint64_t ctr = c0 + static_cast<uint64_t>(q);
    float* d = out + 4 * (q - qb);
    if (q + W <= qe && 4 * (q + W) <= n) {
      normal_group<O>(ctr, seed, mean, stdv, d);
    } else {  // the last group: whole, into tmp; the elements of [qb, qe) and [0, n) kept
      normal_group<O>(ctr, seed, mean, stdv, tmp);
      std::copy(tmp, tmp + (std::min(4 * qe, n) - 4 * q), d);
    }
  }
}

#ifdef LOCUS_NORMAL_X86
__attribute__((target("avx2"), flatten)) void normal_range_avx2(float* out, int64_t n, uint64_t seed, uint64_t c0,
                                                                 float mean, float stdv, int64_t qb, int64_t qe) {
  normal_range<Avx2>(out, n, seed, c0, mean, stdv, qb, qe);
}
__attribute__((target("avx2,avx512f"), flatten)) void normal_range_avx512(float* out, int64_t n, uint64_t seed,
                                                                          uint64_t c0, float mean, float stdv,
                                                                          int64_t qb, int64_t qe) {
  normal_range<Avx512>(out, n, seed, c0, mean, stdv, qb, qe);
}
#endif

}  // namespace

void normal_blocks(float* out, int64_t n, uint64_t seed, uint64_t c0, float mean, float stdv, int64_t qb, int64_t qe,
                   ConvertLevel level) {
#ifdef LOCUS_NORMAL_X86
  if (level == ConvertLevel::kAvx512Bf16) return normal_range_avx512(out, n, seed, c0, mean, stdv, qb, qe);
  if (level == ConvertLevel::kAvx2) return normal_range_avx2(out, n, seed, c0, mean, stdv, qb, qe);
#endif
  normal_range<Scalar>(out, n, seed, c0, mean, stdv, qb, qe);
}

void normal_fill(float* out, int64_t n, uint64_t seed, uint64_t offset, float mean, float stdv, ConvertLevel level) {
  if (level > convert_level_supported())
    throw Error(std::string("[cpu random] level ") + convert_path(level) + " is above what this CPU supports (" +
                convert_path(convert_level_supported()) + "). Ask for convert_level_supported() or lower.");
  normal_blocks(out, n, seed, offset / 4, mean, stdv, 0, (n + 3) / 4, level);
}

}  // namespace locus::cpu
