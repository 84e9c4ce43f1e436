// Max pooling (forward with the positions of the maxima, and its backward), plane by plane.
//
// The CNN's 2x2 stride-2 pooling has its own paths. Float with AVX-512: one pass per output row
// that reads both input rows, takes the maxima of the pairs and then of the two rows, and writes
// the maxima with their positions (16 outputs a step, the row's tail by masks). Otherwise two
// passes (pool2x2_planes). The backward of windows that do not overlap (no padding, stride at
// least the window's span) zeroes each plane and stores each window's gradient at its maximum, no
// addition needed (float 2x2 with AVX-512: its own kernel writes every element; see there);
// overlapping windows add into a zeroed plane at the indices.
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers: `__m512i __Y = __Y;`
#endif
#endif

namespace locus::cpu {
namespace {

using P = backend::Backend::Im2Col;

// 2x2, stride-2 max pooling in two vectorisable passes: the horizontal pass takes the larger of
// each pair (in[2t], in[2t+1]) along the rows, over the whole plane at once when w is even (the
// pairs are then contiguous across rows), with the position it took (int32: narrow types would
// make the vectoriser's step wider than a row); the vertical pass takes the larger of two such
// rows. Ties go to the left, then to the top, and a NaN wins: exactly the first maximum in
// row-major order, as PyTorch's window scan. Both loops are branch-free: on real data every other
// branch would be mispredicted.
template <class T>
LOCUS_CPU_CLONES void pool_pairs(const T* __restrict in, compute_t<T>* __restrict h, int32_t* __restrict hp,
                                 int64_t n, int32_t base) {
  using C = compute_t<T>;
  for (int64_t t = 0; t < n; ++t) {
    const C a = static_cast<C>(in[2 * t]), b = static_cast<C>(in[2 * t + 1]);
    const int32_t take = (a == a) & !(b <= a);  // 0 or 1
    h[t] = take ? b : a;
    hp[t] = base + 2 * static_cast<int32_t>(t) + take;
  }
}

// The vertical pass over one output row: top pair maxima at h, bottom ones at h + ow.
template <class T>
LOCUS_CPU_CLONES void pool_rows(const compute_t<T>* __restrict h, const int32_t* __restrict hp, T* __restrict o,
                                int64_t* __restrict ix, int64_t ow) {
  using C = compute_t<T>;
  for (int64_t x = 0; x < ow; ++x) {
    const C a = h[x], b = h[ow + x];
    const bool take = (a == a) & !(b <= a);
    o[x] = static_cast<T>(take ? b : a);
    ix[x] = take ? hp[ow + x] : hp[x];
  }
}

// `planes` whole planes: the horizontal pass plane by plane (positions within the plane), then
// the vertical pass over all their output rows at once (rows of 7 or 14 are too short for a
// vector loop each). h and hp hold planes * 2 * oh * ow elements, plus 8 (the float kernel reads
// past the last row when rows are narrower than a vector). Needs p.h * p.w < 2^31.
// of: a float buffer of planes * oh * ow + 8 for 16-bit T (the float kernel's outputs, converted
// to T in one vector pass: a maximum is one of the inputs, so the conversion is exact), else null.
template <class T>
void pool2x2_planes(const T* in, T* o, int64_t* ix, int64_t planes, const P& p, compute_t<T>* h, int32_t* hp,
                    float* of) {
  const int64_t ow = p.ow, hl = 2 * p.oh * ow;  // pair maxima per plane
  for (int64_t q = 0; q < planes; ++q) {
    const T* plane = in + q * p.h * p.w;
    if (p.w == 2 * ow) {
      pool_pairs<T>(plane, h + q * hl, hp + q * hl, hl, 0);
    } else {
      for (int64_t y = 0; y < 2 * p.oh; ++y)
        pool_pairs<T>(plane + y * p.w, h + q * hl + y * ow, hp + q * hl + y * ow, ow, static_cast<int32_t>(y * p.w));
    }
  }
  const int64_t rows = planes * p.oh;
  static const bool avx2 = conv_avx2::available();
  if constexpr (std::is_same_v<T, float>) {
    if (avx2) return conv_avx2::max_pool_rows(h, hp, o, ix, ow, rows);
  } else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
    if (avx2) {
      conv_avx2::max_pool_rows(h, hp, of, ix, ow, rows);
      if constexpr (std::is_same_v<T, BFloat16>) return float_to_bf16(of, o, rows * ow);
      else return float_to_half(of, o, rows * ow);
    }
  }
  for (int64_t y = 0; y < rows; ++y) pool_rows<T>(h + 2 * y * ow, hp + 2 * y * ow, o + y * ow, ix + y * ow, ow);
}

#if defined(__x86_64__) || defined(__i386__)
#define LOCUS_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))

// AVX-512F/BW/VL/DQ, and LOCUS_CPU_ISA not capped below AVX-512 (as conv_avx512::available).
bool avx512_available() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                         conv_avx2::available() &&
                         parse_convert_level(std::getenv("LOCUS_CPU_ISA")) >= ConvertLevel::kAvx512Bf16;
  return ok;
}

// The lanes < n of a 16-lane mask (0 <= n <= 16).
inline __mmask16 first_lanes(int64_t n) { return static_cast<__mmask16>(n >= 16 ? 0xffff : (1u << n) - 1); }

// The positions 2 * lane + row0 in lanes 0-7 and 2 * (lane - 8) + row1 in lanes 8-15.
LOCUS_AVX512 inline __m512i pair_columns(int64_t row0, int64_t row1) {
  const __m512i twice = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14);
  return _mm512_add_epi32(twice, _mm512_inserti64x4(_mm512_set1_epi32(static_cast<int32_t>(row0)),
                                                    _mm256_set1_epi32(static_cast<int32_t>(row1)), 1));
}

// One step of 16 windows: t0, t1 hold the 32 inputs of their top rows (window k: elements 2k and
// 2k + 1 of t0:t1), b0, b1 those of the bottom rows, `at` the position of each window's top-left
// element. The larger of each pair (the left one on a tie, a NaN winning), then of the two rows
// (the top one on a tie, a NaN winning): the first maximum in row-major order, as PyTorch's scan.
struct Pooled {
  __m512 v;
  __m512i at;
};
LOCUS_AVX512 inline Pooled pool16(__m512 t0, __m512 t1, __m512 b0, __m512 b1, __m512i at, int64_t w) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1)), one = _mm512_set1_epi32(1);
  const __m512 tl = _mm512_permutex2var_ps(t0, even, t1), tr = _mm512_permutex2var_ps(t0, odd, t1);
  const __m512 bl = _mm512_permutex2var_ps(b0, even, b1), br = _mm512_permutex2var_ps(b0, odd, b1);
  // take the right (bottom) one when the left (top) one is not NaN and the other is not <= it
  const __mmask16 tk = _kandn_mask16(_mm512_cmp_ps_mask(tr, tl, _CMP_LE_OQ), _mm512_cmp_ps_mask(tl, tl, _CMP_ORD_Q));
  const __mmask16 bk = _kandn_mask16(_mm512_cmp_ps_mask(br, bl, _CMP_LE_OQ), _mm512_cmp_ps_mask(bl, bl, _CMP_ORD_Q));
  const __m512 tv = _mm512_mask_blend_ps(tk, tl, tr), bv = _mm512_mask_blend_ps(bk, bl, br);
  const __mmask16 vk = _kandn_mask16(_mm512_cmp_ps_mask(bv, tv, _CMP_LE_OQ), _mm512_cmp_ps_mask(tv, tv, _CMP_ORD_Q));
  const __m512i ti = _mm512_mask_add_epi32(at, tk, at, one);
  const __m512i bc = _mm512_add_epi32(at, _mm512_set1_epi32(static_cast<int32_t>(w)));
  const __m512i bi = _mm512_mask_add_epi32(bc, bk, bc, one);
  return {_mm512_mask_blend_ps(vk, tv, bv), _mm512_mask_blend_epi32(vk, ti, bi)};
}

// Stores lanes < n (n <= 16) of v at o and of the int32 positions `at`, widened, at ix.
LOCUS_AVX512 inline void store_pooled(const Pooled& r, int64_t n, float* o, int64_t* ix) {
  const __mmask16 mn = first_lanes(n);
  _mm512_mask_storeu_ps(o, mn, r.v);
  _mm512_mask_storeu_epi64(ix, static_cast<__mmask8>(mn), _mm512_cvtepi32_epi64(_mm512_castsi512_si256(r.at)));
  _mm512_mask_storeu_epi64(ix + 8, static_cast<__mmask8>(mn >> 8), _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(r.at, 1)));
}

// 2x2 stride-2 max pooling of the planes [b, e) in one pass (float). Rows of 9 outputs and more:
// 16 outputs of a row a step (the row's tail by masks). Narrower rows (the CNN's 7): two rows a
// step, one in each half of the vectors, their outputs then packed together. Reads no input
// outside the windows, writes nothing past the planes' outputs.
LOCUS_AVX512 void pool2x2_avx512(const float* in, float* out, int64_t* ix, int64_t b, int64_t e, const P& p) {
  const int64_t hw = p.h * p.w, l = p.oh * p.ow, ow = p.ow, w = p.w;
  for (int64_t q = b; q < e; ++q) {
    const float* plane = in + q * hw;
    float* o = out + q * l;
    int64_t* oi = ix + q * l;
    if (ow <= 8) {
      const __mmask16 m = first_lanes(2 * ow), halves = static_cast<__mmask16>(first_lanes(ow) | first_lanes(ow) << 8);
      for (int64_t y = 0; y < p.oh; y += 2) {
        const bool two = y + 1 < p.oh;
        const float* top = plane + 2 * y * w;
        const __mmask16 m1 = two ? m : 0;
        const Pooled r = pool16(_mm512_maskz_loadu_ps(m, top), _mm512_maskz_loadu_ps(m1, top + 2 * w),
                                _mm512_maskz_loadu_ps(m, top + w), _mm512_maskz_loadu_ps(m1, top + 3 * w),
                                pair_columns(2 * y * w, 2 * (y + 1) * w), w);
        store_pooled({_mm512_maskz_compress_ps(halves, r.v), _mm512_maskz_compress_epi32(halves, r.at)},
                     two ? 2 * ow : ow, o + y * ow, oi + y * ow);
      }
      continue;
    }
    for (int64_t y = 0; y < p.oh; ++y) {
      const float* top = plane + 2 * y * w;
      const float* bot = top + w;
      for (int64_t x = 0; x < ow; x += 16) {
        const int64_t n = std::min<int64_t>(16, ow - x);
        const __mmask16 m0 = first_lanes(2 * n), m1 = first_lanes(2 * n - 16 > 0 ? 2 * n - 16 : 0);
        const int64_t at = 2 * y * w + 2 * x;
        const Pooled r = pool16(_mm512_maskz_loadu_ps(m0, top + 2 * x), _mm512_maskz_loadu_ps(m1, top + 2 * x + 16),
                                _mm512_maskz_loadu_ps(m0, bot + 2 * x), _mm512_maskz_loadu_ps(m1, bot + 2 * x + 16),
                                pair_columns(at, at + 16), w);
        store_pooled(r, n, o + y * ow + x, oi + y * ow + x);
      }
    }
  }
}

// The four quarters of 16 windows' input gradient, interleaved back into rows: g where the
// window's position minus its top-left one (rel) is 0, 1 (top row), w, w + 1 (bottom row), zero
// elsewhere. top[0] holds the top-row elements of windows 0-7, top[1] those of windows 8-15.
struct Spread {
  __m512 top[2], bot[2];
};
LOCUS_AVX512 inline Spread spread16(__m512 g, __m512i rel, int64_t w) {
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
  const __m512i wv = _mm512_set1_epi32(static_cast<int32_t>(w));
  const __m512 tl = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, _mm512_setzero_si512()), g);
  const __m512 tr = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, _mm512_set1_epi32(1)), g);
  const __m512 bl = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, wv), g);
  const __m512 br = _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(rel, _mm512_add_epi32(wv, _mm512_set1_epi32(1))), g);
  return {{_mm512_permutex2var_ps(tl, lo, tr), _mm512_permutex2var_ps(tl, hi, tr)},
          {_mm512_permutex2var_ps(bl, lo, br), _mm512_permutex2var_ps(bl, hi, br)}};
}

// Positions ix[0 .. n) (n <= 16), narrowed to int32.
LOCUS_AVX512 inline __m512i load_positions(const int64_t* ix, int64_t n) {
  const __mmask16 mn = first_lanes(n);
  const __m256i i0 = _mm512_cvtepi64_epi32(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(mn), ix));
  const __m256i i1 = _mm512_cvtepi64_epi32(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(mn >> 8), ix + 8));
  return _mm512_inserti64x4(_mm512_castsi256_si512(i0), i1, 1);
}

// The backward of pool2x2_avx512 for the planes [b, e), in the same steps: each element of gx
// stored, g where the window's position points, zero elsewhere (the column and row in no window
// too), over a plane zeroed just before (see below why).
LOCUS_AVX512 void pool2x2_bwd_avx512(const float* gy, const int64_t* ix, float* gx, int64_t b, int64_t e, const P& p) {
  const int64_t hw = p.h * p.w, l = p.oh * p.ow, ow = p.ow, w = p.w;
  for (int64_t q = b; q < e; ++q) {
    float* plane = gx + q * hw;
    // Zeroed first, although every element is written below: memset's string stores claim the
    // plane's cache lines without reading them, where the vector stores below would first read
    // each line from memory (the plane is a block just taken from the allocator, long evicted).
    // Measured in the CNN's training run (perf samples, 300 steps, one thread): 0.75x the time
    // of the stores alone, and 0.80x that of zeroing the plane and adding at the indices.
    std::memset(plane, 0, static_cast<size_t>(hw) * sizeof(float));
    const float* g = gy + q * l;
    const int64_t* at = ix + q * l;
    if (ow <= 8) {
      const __mmask16 m = first_lanes(2 * ow), halves = static_cast<__mmask16>(first_lanes(ow) | first_lanes(ow) << 8);
      for (int64_t y = 0; y < p.oh; y += 2) {
        const bool two = y + 1 < p.oh;
        const int64_t n = two ? 2 * ow : ow;
        const __m512 gv = _mm512_maskz_expand_ps(halves, _mm512_maskz_loadu_ps(first_lanes(n), g + y * ow));
        const __m512i pos = _mm512_maskz_expand_epi32(halves, load_positions(at + y * ow, n));
        const Spread s = spread16(gv, _mm512_sub_epi32(pos, pair_columns(2 * y * w, 2 * (y + 1) * w)), w);
        float* top = plane + 2 * y * w;
        _mm512_mask_storeu_ps(top, m, s.top[0]);
        _mm512_mask_storeu_ps(top + w, m, s.bot[0]);
        if (two) {
          _mm512_mask_storeu_ps(top + 2 * w, m, s.top[1]);
          _mm512_mask_storeu_ps(top + 3 * w, m, s.bot[1]);
        }
        if (w > 2 * ow)  // odd width: the last column is in no window
          for (int64_t r = 0; r < (two ? 4 : 2); ++r) top[r * w + w - 1] = 0.0f;
      }
    } else {
      for (int64_t y = 0; y < p.oh; ++y) {
        float* top = plane + 2 * y * w;
        float* bot = top + w;
        for (int64_t x = 0; x < ow; x += 16) {
          const int64_t n = std::min<int64_t>(16, ow - x), base = 2 * y * w + 2 * x;
          const __m512 gv = _mm512_maskz_loadu_ps(first_lanes(n), g + y * ow + x);
          const Spread s = spread16(gv, _mm512_sub_epi32(load_positions(at + y * ow + x, n), pair_columns(base, base + 16)), w);
          const __mmask16 m0 = first_lanes(2 * n), m1 = first_lanes(2 * n - 16 > 0 ? 2 * n - 16 : 0);
          _mm512_mask_storeu_ps(top + 2 * x, m0, s.top[0]);
          _mm512_mask_storeu_ps(top + 2 * x + 16, m1, s.top[1]);
          _mm512_mask_storeu_ps(bot + 2 * x, m0, s.bot[0]);
          _mm512_mask_storeu_ps(bot + 2 * x + 16, m1, s.bot[1]);
        }
        if (w > 2 * ow) top[w - 1] = bot[w - 1] = 0.0f;  // odd width: the last column is in no window
      }
    }
    if (p.h > 2 * p.oh) std::fill(plane + 2 * p.oh * w, plane + hw, 0.0f);  // odd height: the last row
  }
}
#else
bool avx512_available() { return false; }
void pool2x2_avx512(const float*, float*, int64_t*, int64_t, int64_t, const P&) {}
void pool2x2_bwd_avx512(const float*, const int64_t*, float*, int64_t, int64_t, const P&) {}
#endif

bool is_2x2(const P& p) {
  return p.kh == 2 && p.kw == 2 && p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 && p.dh == 1 && p.dw == 1 &&
         p.h * p.w < (int64_t{1} << 31);
}

template <class T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const P& p) {
  using C = compute_t<T>;
  const int64_t hw = p.h * p.w, l = p.oh * p.ow;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(l * p.kh * p.kw, 1)),
               [&](int64_t b, int64_t e) {
    if (is_2x2(p)) {
      if constexpr (std::is_same_v<T, float>) {
        static const bool avx512 = avx512_available();
        if (avx512) return pool2x2_avx512(in, out, indices, b, e, p);
        static const bool avx2 = conv_avx2::available();
        if (avx2 && p.ow >= 8)
          return conv_avx2::max_pool2x2(in + b * hw, out + b * l, indices + b * l, e - b, p.h, p.w, p.oh, p.ow);
      }
      // the common 2x2 pool: every window inside the plane, no bounds to check; planes in groups
      // whose pair maxima (h, with their positions) stay in the first-level cache
      const int64_t group = std::max<int64_t>(1, 4096 / (2 * l));
      std::vector<C> h(static_cast<size_t>(group * 2 * l + 8));
      std::vector<int32_t> hp(h.size());
      std::vector<float> of(is_half_v<T> ? static_cast<size_t>(group * l + 8) : 0);
      for (int64_t q = b; q < e; q += group)
        pool2x2_planes<T>(in + q * hw, out + q * l, indices + q * l, std::min(group, e - q), p, h.data(), hp.data(),
                          of.data());
      return;
    }
    for (int64_t q = b; q < e; ++q) {
      const T* plane = in + q * hw;
      T* o = out + q * l;
      int64_t* ix = indices + q * l;
      for (int64_t y = 0; y < p.oh; ++y) {
        // the window rows inside the plane
        int64_t y0 = y * p.sh - p.ph, i0 = 0, i1 = p.kh;
        while (i0 < i1 && y0 + i0 * p.dh < 0) ++i0;
        while (i1 > i0 && y0 + (i1 - 1) * p.dh >= p.h) --i1;
        for (int64_t x = 0; x < p.ow; ++x) {
          int64_t x0 = x * p.sw - p.pw, j0 = 0, j1 = p.kw;
          while (j0 < j1 && x0 + j0 * p.dw < 0) ++j0;
          while (j1 > j0 && x0 + (j1 - 1) * p.dw >= p.w) --j1;
          int64_t best_at = -1;
          C best = C(0);
          for (int64_t i = i0; i < i1; ++i) {
            int64_t at_row = (y0 + i * p.dh) * p.w + x0;
            for (int64_t j = j0; j < j1; ++j) {
              int64_t at = at_row + j * p.dw;
              C v = static_cast<C>(plane[at]);
              if (best_at < 0 || (best == best && (v > best || v != v))) best = v, best_at = at;
            }
          }
          // a window entirely in the padding (possible only with padding >= kernel): -inf, as PyTorch
          o[y * p.ow + x] = best_at < 0 ? static_cast<T>(-std::numeric_limits<float>::infinity()) : static_cast<T>(best);
          ix[y * p.ow + x] = best_at < 0 ? 0 : best_at;
        }
      }
    }
  });
}

// Windows that do not overlap: each position of a plane is in one window at most, so its gradient
// is zero but at the one maximum of its window, written once. The plane is zeroed first, by
// memset (whose string stores claim its cache lines without reading them), then each window's
// gradient is stored at its maximum. Measured in the CNN's training run on an AVX2 CPU (perf
// samples, 400 steps): 19% of the samples when every element of the plane was compared with its
// window's position, instead of this.
template <class T>
void bwd_disjoint(const T* __restrict g, const int64_t* __restrict at, T* __restrict plane, int64_t hw, int64_t l) {
  std::memset(static_cast<void*>(plane), 0, static_cast<size_t>(hw) * sizeof(T));
  for (int64_t t = 0; t < l; ++t) plane[at[t]] = g[t];
}

template <class T>
void max_pool_bwd(const T* gy, const int64_t* ix, T* gx, int64_t planes, const P& p) {
  using C = compute_t<T>;
  const int64_t in_hw = p.h * p.w, out_hw = p.oh * p.ow;
  // windows that do not overlap and have no padding (a window in the padding alone has position 0)
  const bool disjoint = (p.kh - 1) * p.dh < p.sh && (p.kw - 1) * p.dw < p.sw && p.ph == 0 && p.pw == 0;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(in_hw, 1)), [&](int64_t b, int64_t e) {
    if constexpr (std::is_same_v<T, float>) {
      static const bool avx512 = avx512_available();
      if (avx512 && is_2x2(p)) return pool2x2_bwd_avx512(gy, ix, gx, b, e, p);
    }
    for (int64_t q = b; q < e; ++q) {
      T* plane = gx + q * in_hw;
      const T* g = gy + q * out_hw;
      const int64_t* at = ix + q * out_hw;
      if (disjoint) {
        bwd_disjoint<T>(g, at, plane, in_hw, out_hw);
        continue;
      }
      std::fill(plane, plane + in_hw, T(0));
      for (int64_t t = 0; t < out_hw; ++t)
        plane[at[t]] = static_cast<T>(static_cast<C>(plane[at[t]]) + static_cast<C>(g[t]));
    }
  });
}

}  // namespace

void max_pool2d_backward(ScalarType dtype, Buffer grad_out, Buffer indices, Buffer grad_in, int64_t planes,
                         const P& p) {
  if (planes * p.h * p.w == 0) return;
  visit_dtype(dtype, "max_pool2d_backward", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, bool>) unsupported("max_pool2d_backward", dtype);
    else
      max_pool_bwd<T>(data_as<const T>(grad_out), data_as<const int64_t>(indices), data_as<T>(grad_in), planes, p);
  });
}

void max_pool2d(ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes, const P& p) {
  if (planes * p.oh * p.ow == 0) return;
  visit_dtype(dtype, "max_pool2d", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, bool>) unsupported("max_pool2d", dtype);
    else max_pool<T>(data_as<const T>(in), data_as<T>(out), data_as<int64_t>(indices), planes, p);
  });
}

}  // namespace locus::cpu
