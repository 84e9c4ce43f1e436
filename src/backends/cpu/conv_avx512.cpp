// Float convolution kernels for AVX-512F on the shifted layout of conv_avx512.h (an implicit GEMM:
// the kernels read the shifted planes directly, no columns are written). Register-blocked with the
// 32 zmm registers:
//  - forward (and the input gradient, a forward convolution of the output gradient with the
//    flipped weight): kRows output channels x 2 vectors of 16 positions (28 accumulators), one
//    broadcast weight and two position loads per 2 x kRows FMAs; positions past l are computed
//    but not stored (masked), the runs being read in whole vectors;
//  - weight gradient: on the transposed output gradient, 6 column rows x 4 vectors of 16 output
//    channels (24 accumulators) summed over every position in registers, one broadcast input
//    value per row and four loads per step: no horizontal sums.
#include "backends/cpu/conv_avx512.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/convert.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))

namespace locus::cpu::conv_avx512 {

bool available() {
  // the cap of LOCUS_CPU_ISA alone (convert_level() also needs AVX-512 BF16, which these do not)
  static const bool ok = __builtin_cpu_supports("avx512f") && conv_avx2::available() &&
                         parse_convert_level(std::getenv("LOCUS_CPU_ISA")) >= ConvertLevel::kAvx512Bf16;
  return ok;
}

namespace {

constexpr int64_t kRows = 14;  // output channels per forward block
constexpr int kFwdVecs = 2;    // position vectors per forward block
constexpr int kGwRows = 6;     // column rows per weight-gradient block
constexpr int kGwVecs = 4;     // vectors of output channels per weight-gradient block

// Rows in block b of n rows split into blocks of at most kRows, as evenly as possible.
int64_t block_rows(int64_t n, int64_t b) {
  const int64_t blocks = (n + kRows - 1) / kRows;
  return n / blocks + (b < n % blocks ? 1 : 0);
}

LOCUS_AVX512 inline __mmask16 tail_mask(int64_t n) {  // the first min(n, 16) lanes
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// out[q][t0 + ..] for N channels q and V vectors of positions from t0, the last vector's lanes
// limited by `last`.
template <int N, int V>
LOCUS_AVX512 void fwd_block(const float* __restrict w, int64_t steps, const float* __restrict pad,
                            const int64_t* __restrict offs, const float* __restrict bias, float* __restrict out,
                            int64_t l, int64_t t0, __mmask16 last) {
  __m512 acc[N][V];
#pragma GCC unroll 16
  for (int q = 0; q < N; ++q) {
    const __m512 b = bias != nullptr ? _mm512_set1_ps(bias[q]) : _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[q][v] = b;
  }
  for (int64_t i = 0; i < steps; ++i) {
    const float* x = pad + offs[i] + t0;
    __m512 xv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) xv[v] = _mm512_loadu_ps(x + 16 * v);
    const float* wi = w + i * N;
#pragma GCC unroll 16
    for (int q = 0; q < N; ++q) {
      const __m512 s = _mm512_set1_ps(wi[q]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[q][v] = _mm512_fmadd_ps(s, xv[v], acc[q][v]);
    }
  }
#pragma GCC unroll 16
  for (int q = 0; q < N; ++q) {
    float* o = out + q * l + t0;
#pragma GCC unroll 4
    for (int v = 0; v < V - 1; ++v) _mm512_storeu_ps(o + 16 * v, acc[q][v]);
    _mm512_mask_storeu_ps(o + 16 * (V - 1), last, acc[q][V - 1]);
  }
}

// Positions [t, min(l, t + 16 * kFwdVecs)) of N channels.
template <int N>
void fwd_at(const float* w, int64_t steps, const float* pad, const int64_t* offs, const float* bias, float* out,
            int64_t l, int64_t t) {
  if (t + kFwdVecs * 16 <= l) return fwd_block<N, kFwdVecs>(w, steps, pad, offs, bias, out, l, t, 0xffff);
  if (kFwdVecs == 2 && t + 16 < l) return fwd_block<N, 2>(w, steps, pad, offs, bias, out, l, t, tail_mask(l - t - 16));
  fwd_block<N, 1>(w, steps, pad, offs, bias, out, l, t, tail_mask(l - t));
}

using FwdAt = void (*)(const float*, int64_t, const float*, const int64_t*, const float*, float*, int64_t, int64_t);
template <int... N>
FwdAt fwd_table(int n, std::integer_sequence<int, N...>) {
  static constexpr FwdAt table[] = {fwd_at<N + 1>...};
  return table[n - 1];
}

// gwt[rr][..] += sum_{m < ni} sum_t pad[m * ps + offs[rr] + t] * gyt[m * l * oc + t * oc][..] for R
// rows rr and V vectors of output channels, the last one's lanes limited by `last`: ni images
// summed in registers before gwt is read and written back.
template <int R, int V>
LOCUS_AVX512 void gw_block(const float* __restrict gyt, int64_t oc, const float* __restrict pad,
                           const int64_t* __restrict offs, int64_t l, float* __restrict gwt, __mmask16 last,
                           int64_t ni, int64_t ps) {
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int rr = 0; rr < R; ++rr)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[rr][v] = _mm512_setzero_ps();
  const float* g = gyt;
  for (int64_t m = 0; m < ni; ++m) {
    const float* x[R];
#pragma GCC unroll 8
    for (int rr = 0; rr < R; ++rr) x[rr] = pad + m * ps + offs[rr];
    for (int64_t t = 0; t < l; ++t, g += oc) {
      __m512 gv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V - 1; ++v) gv[v] = _mm512_loadu_ps(g + 16 * v);
      gv[V - 1] = _mm512_maskz_loadu_ps(last, g + 16 * (V - 1));
#pragma GCC unroll 8
      for (int rr = 0; rr < R; ++rr) {
        const __m512 s = _mm512_set1_ps(x[rr][t]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[rr][v] = _mm512_fmadd_ps(s, gv[v], acc[rr][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int rr = 0; rr < R; ++rr) {
    float* o = gwt + rr * oc;
#pragma GCC unroll 4
    for (int v = 0; v < V - 1; ++v) _mm512_storeu_ps(o + 16 * v, _mm512_add_ps(_mm512_loadu_ps(o + 16 * v), acc[rr][v]));
    float* e = o + 16 * (V - 1);
    _mm512_mask_storeu_ps(e, last, _mm512_add_ps(_mm512_maskz_loadu_ps(last, e), acc[rr][V - 1]));
  }
}

// One block of R rows over every output channel: V-vector blocks, then the rest in one block of
// 1 to V vectors.
template <int R>
void gw_rows(const float* gyt, int64_t oc, const float* pad, const int64_t* offs, int64_t l, float* gwt, int64_t ni,
             int64_t ps) {
  int64_t o = 0;
  for (; o + kGwVecs * 16 <= oc; o += kGwVecs * 16)
    gw_block<R, kGwVecs>(gyt + o, oc, pad, offs, l, gwt + o, 0xffff, ni, ps);
  const int64_t rest = oc - o;
  if (rest == 0) return;
  const __mmask16 last = tail_mask(rest - (rest - 1) / 16 * 16);
  switch ((rest + 15) / 16) {
    case 3: return gw_block<R, 3>(gyt + o, oc, pad, offs, l, gwt + o, last, ni, ps);
    case 2: return gw_block<R, 2>(gyt + o, oc, pad, offs, l, gwt + o, last, ni, ps);
    default: return gw_block<R, 1>(gyt + o, oc, pad, offs, l, gwt + o, last, ni, ps);
  }
}

}  // namespace

void pack_forward(const float* w, int64_t oc, int64_t k, float* packed) {
  for (int64_t o0 = 0, b = 0; o0 < oc; o0 += block_rows(oc, b++)) {
    const int64_t no = block_rows(oc, b);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t q = 0; q < no; ++q) packed[o0 * k + r * no + q] = w[(o0 + q) * k + r];
  }
}

void forward(const float* packed, int64_t oc, int64_t k, const float* pad, const int64_t* offs, const float* bias,
             float* out, int64_t l) {
  // (chunks of the steps, so that a chunk's slice of the runs stays in L1 across the channel
  // blocks, measured 1-3 % slower: the kernel runs at 96 % of the FMA peak as it is)
  for (int64_t o0 = 0, b = 0; o0 < oc; o0 += block_rows(oc, b++)) {
    const int64_t no = block_rows(oc, b);
    const FwdAt at = fwd_table(static_cast<int>(no), std::make_integer_sequence<int, kRows>{});
    for (int64_t t = 0; t < l; t += kFwdVecs * 16)
      at(packed + o0 * k, k, pad, offs, bias != nullptr ? bias + o0 : nullptr, out + o0 * l, l, t);
  }
}

void grad_weight(const float* gyt, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t l,
                 float* gwt, int64_t images, int64_t pad_stride) {
  for (int64_t r0 = 0; r0 < k; r0 += kGwRows) {
    float* dst = gwt + r0 * oc;
    const int64_t* o = offs + r0;
    switch (std::min<int64_t>(kGwRows, k - r0)) {
      case 6: gw_rows<6>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
      case 5: gw_rows<5>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
      case 4: gw_rows<4>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
      case 3: gw_rows<3>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
      case 2: gw_rows<2>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
      default: gw_rows<1>(gyt, oc, pad, o, l, dst, images, pad_stride); break;
    }
  }
}

LOCUS_AVX512 void add_stride2(float* dst, const float* src, int64_t n) {
  // src[x .. x + 16) to the even lanes of two vectors (maskz: GCC 12 warns on _mm512_permutexvar_ps)
  const __m512i lo = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  const __m512i hi = _mm512_setr_epi32(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
  for (int64_t x = 0; x < n; x += 16) {
    const int64_t m = std::min<int64_t>(16, n - x), span = 2 * m - 1;  // dst[2x .. 2x + span)
    const __m512 v = _mm512_maskz_loadu_ps(tail_mask(m), src + x);
    const __mmask16 k0 = static_cast<__mmask16>(0x5555 & tail_mask(span));
    const __mmask16 k1 = span > 16 ? static_cast<__mmask16>(0x5555 & tail_mask(span - 16)) : __mmask16(0);
    float* d = dst + 2 * x;
    _mm512_mask_storeu_ps(d, k0, _mm512_add_ps(_mm512_maskz_loadu_ps(k0, d), _mm512_maskz_permutexvar_ps(0xffff, lo, v)));
    if (k1 != 0)
      _mm512_mask_storeu_ps(d + 16, k1, _mm512_add_ps(_mm512_maskz_loadu_ps(k1, d + 16), _mm512_maskz_permutexvar_ps(0xffff, hi, v)));
  }
}

LOCUS_AVX512 void shift_plane(const float* src, int64_t ss, int64_t shift, float* plane, int64_t rows, int64_t n,
                              int64_t u0, int64_t u1, int64_t x0, int64_t x1) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  u1 = std::max(u0, std::min(u1, rows));
  for (int64_t xc = 0; xc < n; xc += 16) {  // a row's vectors: which lanes are inside the plane, which read src
    const __mmask16 store = tail_mask(n - xc);
    const __m512i x = _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int>(xc)));
    const __mmask16 read = store & _mm512_cmpge_epi32_mask(x, _mm512_set1_epi32(static_cast<int>(x0))) &
                           _mm512_cmplt_epi32_mask(x, _mm512_set1_epi32(static_cast<int>(x1)));
    float* d = plane + xc;
    int64_t u = 0;
    for (; u < std::min(u0, rows); ++u) _mm512_mask_storeu_ps(d + u * n, store, zero);
    const float* s = src + xc + shift;
    for (; u < u1; ++u, s += ss) _mm512_mask_storeu_ps(d + u * n, store, _mm512_maskz_loadu_ps(read, s));
    for (; u < rows; ++u) _mm512_mask_storeu_ps(d + u * n, store, zero);
  }
}

LOCUS_AVX512 void gather_even(const float* src, int64_t ss, float* dst, int64_t ds, int64_t rows, int64_t n) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int64_t x = 0; x < n; x += 16) {
    const int64_t m = std::min<int64_t>(16, n - x), count = 2 * m - 1;  // outputs, inputs read
    const __mmask16 lo_mask = tail_mask(count), hi_mask = count > 16 ? tail_mask(count - 16) : __mmask16(0),
                    out_mask = tail_mask(m);
    const float* s = src + 2 * x;
    float* d = dst + x;
    for (int64_t r = 0; r < rows; ++r, s += ss, d += ds) {
      const __m512 lo = _mm512_maskz_loadu_ps(lo_mask, s), hi = _mm512_maskz_loadu_ps(hi_mask, s + 16);
      _mm512_mask_storeu_ps(d, out_mask, _mm512_permutex2var_ps(lo, even, hi));
    }
  }
}

namespace {
// GCC 12's unpack and shuffle intrinsics pass _mm512_undefined_ps() as the mask source, which
// -Wuninitialized reports once inlined (GCC bug 105593): nothing here is uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
// dst[c * ds + r] = src[r * ss + c] for r, c < 16, in registers (unpack, then 128-bit lane shuffles).
// sums, when not null: sums[i] += src row i's 16 values (the stored vectors added up).
LOCUS_AVX512 void transpose_tile(const float* src, int64_t ss, float* dst, int64_t ds, float* sums) {
  __m512 r[16], t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * ss);
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]),
                  c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + 4 + j], 0x88);
      t[8 * i + 4 + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + 4 + j], 0xdd);
    }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd);
    _mm512_storeu_ps(dst + j * ds, r[j]);
    _mm512_storeu_ps(dst + (8 + j) * ds, r[8 + j]);
  }
  if (sums != nullptr) {  // a fixed tree: the same bits for any thread count
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) r[j] = _mm512_add_ps(r[j], r[8 + j]);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) r[j] = _mm512_add_ps(r[j], r[4 + j]);
    r[0] = _mm512_add_ps(_mm512_add_ps(r[0], r[2]), _mm512_add_ps(r[1], r[3]));
    _mm512_storeu_ps(sums, _mm512_add_ps(_mm512_loadu_ps(sums), r[0]));
  }
}
#pragma GCC diagnostic pop
}  // namespace

void transpose(const float* src, int64_t rows, int64_t cols, float* dst, float* row_sums) {
  // 16 x 16 tiles in registers; the edges element by element
  for (int64_t r0 = 0; r0 < rows; r0 += 16)
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      if (r0 + 16 <= rows && c0 + 16 <= cols) {
        transpose_tile(src + r0 * cols + c0, cols, dst + c0 * rows + r0, rows, row_sums ? row_sums + r0 : nullptr);
        continue;
      }
      const int64_t re = std::min<int64_t>(rows, r0 + 16), ce = std::min<int64_t>(cols, c0 + 16);
      for (int64_t c = c0; c < ce; ++c)
        for (int64_t r = r0; r < re; ++r) {
          dst[c * rows + r] = src[r * cols + c];
          if (row_sums) row_sums[r] += src[r * cols + c];
        }
    }
}
void transpose(const float* src, int64_t rows, int64_t cols, float* dst) { transpose(src, rows, cols, dst, nullptr); }

}  // namespace locus::cpu::conv_avx512

#else  // not x86: the other paths serve

namespace locus::cpu::conv_avx512 {
bool available() { return false; }
void pack_forward(const float*, int64_t, int64_t, float*) {}
void forward(const float*, int64_t, int64_t, const float*, const int64_t*, const float*, float*, int64_t) {}
void grad_weight(const float*, int64_t, int64_t, const float*, const int64_t*, int64_t, float*, int64_t, int64_t) {}
void shift_plane(const float*, int64_t, int64_t, float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t) {}
void gather_even(const float*, int64_t, float*, int64_t, int64_t, int64_t) {}
void add_stride2(float*, const float*, int64_t) {}
void transpose(const float*, int64_t, int64_t, float*) {}
void transpose(const float*, int64_t, int64_t, float*, float*) {}
}  // namespace locus::cpu::conv_avx512

#endif
