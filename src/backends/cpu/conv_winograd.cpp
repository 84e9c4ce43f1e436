// Winograd F(2x2, 3x3) for float convolutions with AVX-512F, or AVX2 + FMA. Each 2x2 block of
// outputs (a tile) is computed from the 4x4 input block under it as A^T [(G g G^T) . (B^T d B)] A,
// so the 36 multiplications of the direct sum become 16, as 16 matrix products over the channels
// (one per element xi of the 4x4 transformed tile):
//   M[xi][o][t] = sum_c U[xi][o][c] * V[xi][c][t],  U = G g G^T (per o, c),  V = B^T d B (per c, t)
// Images go in blocks (up to 4, fewer for large images or many channels, more for images of fewer
// than 8 tiles), their tiles side by side (t = image, tile row, tile column), so each product's rows
// are long: the products are conv_avx512's (or conv_avx2's) forward and weight-gradient kernels,
// reading the rows of V as their runs. A block's V and M stay within 4 MiB (L2), their 16 planes a
// cache line off a power of 2 apart. The transforms are vectorised over a tile row (up to 15
// tiles): with AVX-512, input rows are read as two vectors of 16 columns, the 4x4 blocks' columns
// picked with permutes; outputs are written a row at a time, the two columns of each tile
// interleaved with permutes. With AVX2, eight tiles a vector, from a zero-bordered copy of each
// channel (input_transform_avx2, grad_output_transform_avx2).
#include "backends/cpu/conv_winograd.h"

#include <algorithm>
#include <vector>

#include "backends/cpu/block_claims.h"
#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/line_vector.h"
#include "backends/cpu/parallel_for.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))
#define LOCUS_AVX2 __attribute__((target("avx2,fma")))

namespace locus::cpu::conv_winograd {
namespace {

constexpr int64_t kBlockImages = 4;   // images whose tiles go side by side in one product, at most
constexpr int64_t kBlockTiles = 1024;  // and fewer when their tiles would pass this (one at least),
constexpr int64_t kBlockFloats = int64_t{1} << 20;  // or their V and M this (4 MiB: in L2)
constexpr int64_t kMinTiles = 32;      // but more than kBlockImages when needed to reach this (2 vectors)
constexpr int64_t kMaxImageFloats = int64_t{2} << 20;  // one image's V and M at most (8 MiB), else not applied
constexpr int64_t kMaxWideTiles = 16;  // the weight gradient with 33+ channels: outputs up to 8x8 (measured
                                       // 1.5-2.5x faster than the direct kernels there, level at 12x12 and 16x16)
constexpr int64_t kMaxTileCols = 15;  // a tile row's columns, 2 * 15 + 2 input columns in 2 vectors
constexpr size_t kKeepBuffer = size_t{16} << 20;  // a thread's buffer kept between calls up to this size

struct Plan {
  const P& p;
  int64_t oc, th, tw;  // output channels; tile rows and columns of an image
  // images per block: a function of the geometry alone, so the sums per block (the weight
  // gradient's) are the same for any thread count
  int64_t images() const {
    const int64_t tiles = th * tw;
    return std::clamp<int64_t>(std::min(kBlockTiles / tiles, kBlockFloats / (16 * (p.c + oc) * tiles)), 1,
                               std::max(kBlockImages, (kMinTiles + tiles - 1) / tiles));
  }
  // floats between xi's blocks of rows of V (rows ld long) and of M or dM (ld tiles): one cache
  // line more than the rows, as 16 streams a power of 2 apart (32 or 64 KiB with 128+ channels)
  // would share L1's sets
  int64_t vplane(int64_t ld) const { return p.c * ld + 16; }
  int64_t mplane(int64_t ld) const { return oc * ld + 16; }
};

LOCUS_AVX512 inline __mmask16 lanes_below(int64_t n) {
  return n <= 0 ? __mmask16(0) : n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// V[xi][c][t0 + a*tw + b] of one image's channels (rows of V ld long, xi's block of rows C * ld).
LOCUS_AVX512 void input_transform(const Plan& g, const float* image, float* v, int64_t ld, int64_t t0) {
  const P& p = g.p;
  const __m512i even0 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd0 = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512i even1 = _mm512_setr_epi32(2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 0);
  const __m512i odd1 = _mm512_setr_epi32(3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 0);
  // input column q - pw for lane q of the two vectors: inside the image for pw <= q < pw + w
  const int64_t span = 2 * g.tw + 2;
  const __mmask16 lo = static_cast<__mmask16>(lanes_below(std::min(span, p.pw + p.w)) & ~lanes_below(p.pw)),
                  hi = static_cast<__mmask16>(lanes_below(std::min(span, p.pw + p.w) - 16) &
                                              ~lanes_below(p.pw - 16));
  const __mmask16 out = lanes_below(g.tw);
  const int64_t plane = g.vplane(ld);
  for (int64_t c = 0; c < p.c; ++c) {
    const float* ch = image + c * p.h * p.w - p.pw;
    for (int64_t a = 0; a < g.th; ++a) {
      __m512 r[4][2];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const int64_t y = 2 * a - p.ph + i;
        const bool in = y >= 0 && y < p.h;
        const float* row = ch + y * p.w;
        r[i][0] = _mm512_maskz_loadu_ps(in ? lo : __mmask16(0), in ? row : ch);
        r[i][1] = _mm512_maskz_loadu_ps(in ? hi : __mmask16(0), in ? row + 16 : ch);
      }
      float* dst = v + c * ld + t0 + a * g.tw;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {  // row i of B^T d, then its columns times B
        __m512 e[2];
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
          switch (i) {
            case 0: e[h] = _mm512_sub_ps(r[0][h], r[2][h]); break;
            case 1: e[h] = _mm512_add_ps(r[1][h], r[2][h]); break;
            case 2: e[h] = _mm512_sub_ps(r[2][h], r[1][h]); break;
            default: e[h] = _mm512_sub_ps(r[1][h], r[3][h]); break;
          }
        }
        const __m512 c0 = _mm512_permutex2var_ps(e[0], even0, e[1]), c1 = _mm512_permutex2var_ps(e[0], odd0, e[1]),
                     c2 = _mm512_permutex2var_ps(e[0], even1, e[1]), c3 = _mm512_permutex2var_ps(e[0], odd1, e[1]);
        float* d = dst + 4 * i * plane;
        _mm512_mask_storeu_ps(d, out, _mm512_sub_ps(c0, c2));
        _mm512_mask_storeu_ps(d + plane, out, _mm512_add_ps(c1, c2));
        _mm512_mask_storeu_ps(d + 2 * plane, out, _mm512_sub_ps(c2, c1));
        _mm512_mask_storeu_ps(d + 3 * plane, out, _mm512_sub_ps(c1, c3));
      }
    }
  }
}

// permutex2var indices picking lane 2q + s of the first source for q < tw, lane 2(q - tw) + s of
// the second for tw <= q < 2 tw (two tile rows' columns side by side), 0 past them.
LOCUS_AVX512 __m512i pair_columns(int64_t tw, int64_t s) {
  alignas(64) int32_t idx[16] = {};
  for (int64_t q = 0; q < 2 * tw && q < 16; ++q) idx[q] = static_cast<int32_t>(q < tw ? 2 * q + s : 16 + 2 * (q - tw) + s);
  return _mm512_load_si512(idx);
}

// input_transform for tile rows of at most 7 tiles (an input row's 16 columns in one vector):
// two tile rows a time, their tiles side by side in one vector (half the vector operations).
LOCUS_AVX512 void input_transform_pairs(const Plan& g, const float* image, float* v, int64_t ld, int64_t t0) {
  const P& p = g.p;
  const __m512i col[4] = {pair_columns(g.tw, 0), pair_columns(g.tw, 1), pair_columns(g.tw, 2), pair_columns(g.tw, 3)};
  const __mmask16 lo = static_cast<__mmask16>(lanes_below(std::min<int64_t>(2 * g.tw + 2, p.pw + p.w)) & ~lanes_below(p.pw));
  const int64_t plane = g.vplane(ld);
  for (int64_t c = 0; c < p.c; ++c) {
    const float* ch = image + c * p.h * p.w - p.pw;
    for (int64_t a = 0; a < g.th; a += 2) {
      __m512 r[6];
#pragma GCC unroll 6
      for (int i = 0; i < 6; ++i) {
        const int64_t y = 2 * a - p.ph + i;
        const bool in = y >= 0 && y < p.h;
        r[i] = _mm512_maskz_loadu_ps(in ? lo : __mmask16(0), in ? ch + y * p.w : ch);
      }
      const __mmask16 out = lanes_below((a + 1 < g.th ? 2 : 1) * g.tw);
      float* dst = v + c * ld + t0 + a * g.tw;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {  // row i of B^T d for both tile rows, then its columns times B
        __m512 e[2];
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
          const __m512* q = r + 2 * h;
          switch (i) {
            case 0: e[h] = _mm512_sub_ps(q[0], q[2]); break;
            case 1: e[h] = _mm512_add_ps(q[1], q[2]); break;
            case 2: e[h] = _mm512_sub_ps(q[2], q[1]); break;
            default: e[h] = _mm512_sub_ps(q[1], q[3]); break;
          }
        }
        const __m512 c0 = _mm512_permutex2var_ps(e[0], col[0], e[1]), c1 = _mm512_permutex2var_ps(e[0], col[1], e[1]),
                     c2 = _mm512_permutex2var_ps(e[0], col[2], e[1]), c3 = _mm512_permutex2var_ps(e[0], col[3], e[1]);
        float* d = dst + 4 * i * plane;
        _mm512_mask_storeu_ps(d, out, _mm512_sub_ps(c0, c2));
        _mm512_mask_storeu_ps(d + plane, out, _mm512_add_ps(c1, c2));
        _mm512_mask_storeu_ps(d + 2 * plane, out, _mm512_sub_ps(c2, c1));
        _mm512_mask_storeu_ps(d + 3 * plane, out, _mm512_sub_ps(c1, c3));
      }
    }
  }
}

// The two rows of A^T M for the tiles at s: M's 16 planes (`plane` floats apart), lanes `in`.
LOCUS_AVX512 inline __attribute__((always_inline)) void at_rows(__mmask16 in, const float* s, int64_t plane,
                                                                __m512 (&r)[2][4]) {
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const __m512 m0 = _mm512_maskz_loadu_ps(in, s + j * plane), m1 = _mm512_maskz_loadu_ps(in, s + (4 + j) * plane),
                 m2 = _mm512_maskz_loadu_ps(in, s + (8 + j) * plane), m3 = _mm512_maskz_loadu_ps(in, s + (12 + j) * plane);
    r[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
    r[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
  }
}

// output_transform for tile rows of at most 7 tiles: two tile rows a time (their tiles are side by
// side in M's rows), four output rows.
LOCUS_AVX512 void output_transform_pairs(const Plan& g, const float* m, int64_t ld, int64_t t0, const float* bias,
                                         float* out) {
  const P& p = g.p;
  // output row 2a + 2h, column 2b + j: tile row a + h's column b of y_j
  alignas(64) int32_t idx[2][16] = {};
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t b = 0; b < g.tw; ++b) {
      idx[h][2 * b] = static_cast<int32_t>(h * g.tw + b);
      idx[h][2 * b + 1] = static_cast<int32_t>(16 + h * g.tw + b);
    }
  const __m512i mix[2] = {_mm512_load_si512(idx[0]), _mm512_load_si512(idx[1])};
  const __mmask16 row = lanes_below(p.ow);
  const int64_t plane = g.mplane(ld), l = p.oh * p.ow;
  for (int64_t o = 0; o < g.oc; ++o) {
    const __m512 b = bias != nullptr ? _mm512_set1_ps(bias[o]) : _mm512_setzero_ps();
    for (int64_t a = 0; a < g.th; a += 2) {
      const __mmask16 in = lanes_below((a + 1 < g.th ? 2 : 1) * g.tw);
      const float* s = m + o * ld + t0 + a * g.tw;
      __m512 r[2][4];
      at_rows(in, s, plane, r);
#pragma GCC unroll 2
      for (int i = 0; i < 2; ++i) {
        const __m512 y0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(r[i][0], r[i][1]), r[i][2]), b),
                     y1 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(r[i][1], r[i][2]), r[i][3]), b);
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
          const int64_t y = 2 * (a + h) + i;
          if (y < p.oh) _mm512_mask_storeu_ps(out + o * l + y * p.ow, row, _mm512_permutex2var_ps(y0, mix[h], y1));
        }
      }
    }
  }
}

// One image's outputs from M[xi][o][t0 + a*tw + b] (rows `ld` long, xi's block of rows oc * ld).
LOCUS_AVX512 void output_transform(const Plan& g, const float* m, int64_t ld, int64_t t0, const float* bias,
                                   float* out) {
  const P& p = g.p;
  const __m512i mix_lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i mix_hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const __mmask16 in = lanes_below(g.tw), lo = lanes_below(p.ow), hi = lanes_below(p.ow - 16);
  const int64_t plane = g.mplane(ld), l = p.oh * p.ow;
  for (int64_t o = 0; o < g.oc; ++o) {
    const __m512 b = bias != nullptr ? _mm512_set1_ps(bias[o]) : _mm512_setzero_ps();
    for (int64_t a = 0; a < g.th; ++a) {
      const float* s = m + o * ld + t0 + a * g.tw;
      __m512 r[2][4];
      at_rows(in, s, plane, r);
#pragma GCC unroll 2
      for (int i = 0; i < 2; ++i) {
        const int64_t y = 2 * a + i;
        if (y >= p.oh) break;
        const __m512 y0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(r[i][0], r[i][1]), r[i][2]), b),
                     y1 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(r[i][1], r[i][2]), r[i][3]), b);
        float* d = out + o * l + y * p.ow;
        _mm512_mask_storeu_ps(d, lo, _mm512_permutex2var_ps(y0, mix_lo, y1));
        if (hi != 0) _mm512_mask_storeu_ps(d + 16, hi, _mm512_permutex2var_ps(y0, mix_hi, y1));
      }
    }
  }
}

// The transforms for AVX2 machines, eight tiles of a tile row a vector. Each channel is first
// copied into a zero-bordered plane (rows `rs` apart), so that every read is a whole vector; an
// input row's 16 + 2 columns under eight tiles are split into even and odd ones (deinterleave), so
// tile b's four columns are lanes b of E, O, E1 (E a tile on) and O1. The stores write whole
// vectors: lanes past a tile row's last tile land on the next tile rows' first tiles (written
// after); a vector reaching past the image's last tile is stored masked (the next image may be
// another thread's, or the block's last tile end a row).
LOCUS_AVX2 inline void deinterleave(__m256 lo, __m256 hi, __m256& even, __m256& odd) {
  const __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)),
               o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
  odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
}

// Stores v at d, only its first `n` lanes when `masked` (else all eight).
LOCUS_AVX2 inline void store_tiles(float* d, __m256 v, bool masked, __m256i n) {
  if (masked) _mm256_maskstore_ps(d, _mm256_cmpgt_epi32(n, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)), v);
  else _mm256_storeu_ps(d, v);
}

LOCUS_AVX2 void input_transform_avx2(const Plan& g, const float* image, float* v, int64_t ld, int64_t t0) {
  const P& p = g.p;
  const int64_t tw = g.tw, plane = g.vplane(ld), groups = (tw + 7) / 8;
  const int64_t rows = 2 * g.th + 2, rs = 16 * groups + 8;  // the bordered plane: the tiles' rows, 2 columns past
  // the image's rows [y0, y1) and columns [x0, x1) in the bordered plane, the rest 0
  const int64_t y0 = std::min(p.ph, rows), y1 = std::min(p.ph + p.h, rows), x0 = std::min(p.pw, rs),
                x1 = std::min(p.pw + p.w, rs);
  // zeroed when the geometry changes: each channel's copy writes the same elements
  thread_local LineVector<float> bordered;
  thread_local int64_t zeroed[6] = {};
  const int64_t key[6] = {rows, rs, y0, y1, x0, x1};
  if (!std::equal(key, key + 6, zeroed)) {
    bordered.assign(static_cast<size_t>(rows * rs), 0.f);
    std::copy(key, key + 6, zeroed);
  }
  float* const bp = bordered.data();
  for (int64_t c = 0; c < p.c; ++c) {
    const float* ch = image + c * p.h * p.w + (y0 - p.ph) * p.w + (x0 - p.pw);
    if (x1 - x0 >= 8) {
      conv_avx2::copy_rows(ch, p.w, bp + y0 * rs + x0, rs, y1 - y0, x1 - x0, nullptr);
    } else {
      for (int64_t y = y0; y < y1; ++y)
        std::copy(ch + (y - y0) * p.w, ch + (y - y0) * p.w + (x1 - x0), bp + y * rs + x0);
    }
    for (int64_t a = 0; a < g.th; ++a)
      for (int64_t q = 0; q < groups; ++q) {
        __m256 e[4], o[4], e1[4], o1[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          const float* r = bp + (2 * a + i) * rs + 16 * q;
          deinterleave(_mm256_loadu_ps(r), _mm256_loadu_ps(r + 8), e[i], o[i]);
          deinterleave(_mm256_loadu_ps(r + 2), _mm256_loadu_ps(r + 10), e1[i], o1[i]);
        }
        float* dst = v + c * ld + t0 + a * tw + 8 * q;
        const int64_t left = g.th * tw - (a * tw + 8 * q);  // tiles from dst to the image's end
        const bool last = left < 8;
        const __m256i lanes = _mm256_set1_epi32(static_cast<int32_t>(left));
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {  // row i of B^T d, then its columns times B
          __m256 re, ro, re1, ro1;
          switch (i) {
            case 0:
              re = _mm256_sub_ps(e[0], e[2]); ro = _mm256_sub_ps(o[0], o[2]);
              re1 = _mm256_sub_ps(e1[0], e1[2]); ro1 = _mm256_sub_ps(o1[0], o1[2]);
              break;
            case 1:
              re = _mm256_add_ps(e[1], e[2]); ro = _mm256_add_ps(o[1], o[2]);
              re1 = _mm256_add_ps(e1[1], e1[2]); ro1 = _mm256_add_ps(o1[1], o1[2]);
              break;
            case 2:
              re = _mm256_sub_ps(e[2], e[1]); ro = _mm256_sub_ps(o[2], o[1]);
              re1 = _mm256_sub_ps(e1[2], e1[1]); ro1 = _mm256_sub_ps(o1[2], o1[1]);
              break;
            default:
              re = _mm256_sub_ps(e[1], e[3]); ro = _mm256_sub_ps(o[1], o[3]);
              re1 = _mm256_sub_ps(e1[1], e1[3]); ro1 = _mm256_sub_ps(o1[1], o1[3]);
              break;
          }
          float* d = dst + 4 * i * plane;
          store_tiles(d, _mm256_sub_ps(re, re1), last, lanes);
          store_tiles(d + plane, _mm256_add_ps(ro, re1), last, lanes);
          store_tiles(d + 2 * plane, _mm256_sub_ps(re1, ro), last, lanes);
          store_tiles(d + 3 * plane, _mm256_sub_ps(ro, ro1), last, lanes);
        }
      }
  }
}

// Eight tiles a vector from M's 16 planes (read a vector past the last tile: M's rows are followed
// by more rows or the planes' and buffer's slack; those lanes are not written), the two output
// columns of each tile interleaved. Output rows are stored as whole vectors, the lanes past a row
// landing on the rows (and channels) after it, written later; but the rows whose vectors would
// reach past the image's end go through a buffer.
LOCUS_AVX2 void output_transform_avx2(const Plan& g, const float* m, int64_t ld, int64_t t0, const float* bias,
                                      float* out) {
  const P& p = g.p;
  const int64_t tw = g.tw, plane = g.mplane(ld), l = p.oh * p.ow, groups = (tw + 7) / 8;
  float row[2][2 * kMaxTileCols + 2];  // rows through the buffer
  const int64_t span = (p.ow + 7) / 8 * 8;  // floats a row's stores write
  for (int64_t o = 0; o < g.oc; ++o) {
    const __m256 b = _mm256_set1_ps(bias != nullptr ? bias[o] : 0.f);
    for (int64_t a = 0; a < g.th; ++a) {
      for (int64_t q = groups - 1; q >= 0; --q) {  // a row's second group (its lanes past the row) first
        const float* s = m + o * ld + t0 + a * tw + 8 * q;
        __m256 r[2][4];  // the two rows of A^T M
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          const __m256 m0 = _mm256_loadu_ps(s + j * plane), m1 = _mm256_loadu_ps(s + (4 + j) * plane),
                       m2 = _mm256_loadu_ps(s + (8 + j) * plane), m3 = _mm256_loadu_ps(s + (12 + j) * plane);
          r[0][j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
          r[1][j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
        }
#pragma GCC unroll 2
        for (int i = 0; i < 2; ++i) {  // then times A
          const __m256 y0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(r[i][0], r[i][1]), r[i][2]), b),
                       y1 = _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(r[i][1], r[i][2]), r[i][3]), b);
          const __m256 lo = _mm256_unpacklo_ps(y0, y1), hi = _mm256_unpackhi_ps(y0, y1);
          const int64_t y = 2 * a + i;
          if (y >= p.oh) break;
          float* d = o * l + y * p.ow + span > g.oc * l ? row[i] : out + o * l + y * p.ow;
          _mm256_storeu_ps(d + 16 * q, _mm256_permute2f128_ps(lo, hi, 0x20));
          if (16 * q + 8 < p.ow) _mm256_storeu_ps(d + 16 * q + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
        }
      }
      for (int64_t i = 0; i < 2 && 2 * a + i < p.oh; ++i)
        if (o * l + (2 * a + i) * p.ow + span > g.oc * l)
          std::copy(row[i], row[i] + p.ow, out + o * l + (2 * a + i) * p.ow);
    }
  }
}

// dM[xi][o][t0 + a*tw + b] = (A dY A^T)[xi] for one image's tiles (rows of dM `ld` long, xi's
// block mplane(ld) floats), dY the 2x2 blocks of gy [oc, oh*ow] (0 past the outputs), eight tiles
// a vector from a zero-bordered copy of each output channel; gb_sums[o] += the sum of gy's row o
// when not null. Stores as input_transform_avx2's: those reaching past the image's tiles masked.
LOCUS_AVX2 void grad_output_transform_avx2(const Plan& g, const float* gy, float* dm, int64_t ld, int64_t t0,
                                           float* gb_sums) {
  const P& p = g.p;
  const int64_t tw = g.tw, plane = g.mplane(ld), l = p.oh * p.ow, groups = (tw + 7) / 8;
  const int64_t rows = 2 * g.th, rs = 16 * groups;
  thread_local LineVector<float> bordered;
  thread_local int64_t zeroed[4] = {};
  const int64_t key[4] = {rows, rs, p.oh, p.ow};
  if (!std::equal(key, key + 4, zeroed)) {  // zeroed when the geometry changes, as input_transform_avx2's
    bordered.assign(static_cast<size_t>(rows * rs), 0.f);
    std::copy(key, key + 4, zeroed);
  }
  float* const bp = bordered.data();
  for (int64_t o = 0; o < g.oc; ++o) {
    const float* src = gy + o * l;
    if (gb_sums != nullptr) {
      __m256 acc = _mm256_setzero_ps();
      int64_t i = 0;
      for (; i + 8 <= l; i += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(src + i));
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, acc);
      float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
      for (; i < l; ++i) sum += src[i];
      gb_sums[o] += sum;
    }
    if (p.ow >= 8) {
      conv_avx2::copy_rows(src, p.ow, bp, rs, p.oh, p.ow, nullptr);
    } else {
      for (int64_t y = 0; y < p.oh; ++y) std::copy(src + y * p.ow, src + (y + 1) * p.ow, bp + y * rs);
    }
    for (int64_t a = 0; a < g.th; ++a)
      for (int64_t q = 0; q < groups; ++q) {
        __m256 y[2][2];  // rows 2a + i, columns 2b + j
#pragma GCC unroll 2
        for (int i = 0; i < 2; ++i) {
          const float* r = bp + (2 * a + i) * rs + 16 * q;
          deinterleave(_mm256_loadu_ps(r), _mm256_loadu_ps(r + 8), y[i][0], y[i][1]);
        }
        // rows of A dY: dY0, dY0 + dY1, dY0 - dY1, -dY1; then the same on columns
        __m256 z[4][2];
#pragma GCC unroll 2
        for (int j = 0; j < 2; ++j) {
          z[0][j] = y[0][j];
          z[1][j] = _mm256_add_ps(y[0][j], y[1][j]);
          z[2][j] = _mm256_sub_ps(y[0][j], y[1][j]);
          z[3][j] = _mm256_sub_ps(_mm256_setzero_ps(), y[1][j]);
        }
        float* d = dm + o * ld + t0 + a * tw + 8 * q;
        const int64_t left = g.th * tw - (a * tw + 8 * q);
        const bool last = left < 8;
        const __m256i lanes = _mm256_set1_epi32(static_cast<int32_t>(left));
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          float* r = d + 4 * i * plane;
          store_tiles(r, z[i][0], last, lanes);
          store_tiles(r + plane, _mm256_add_ps(z[i][0], z[i][1]), last, lanes);
          store_tiles(r + 2 * plane, _mm256_sub_ps(z[i][0], z[i][1]), last, lanes);
          store_tiles(r + 3 * plane, _mm256_sub_ps(_mm256_setzero_ps(), z[i][1]), last, lanes);
        }
      }
  }
}

// What forward() runs on this CPU: the transforms, the weights' packing and the 16 products
// M[xi] = U[xi] V[xi] (conv_avx512's forward kernel on AVX-512, conv_avx2's on AVX2; both take
// rows of V as runs, read in whole vectors of 16 past t up to ld).
struct Kernels {
  void (*input)(const Plan&, const float*, float*, int64_t, int64_t);
  void (*output)(const Plan&, const float*, int64_t, int64_t, const float*, float*);
  void (*pack)(const float*, int64_t, int64_t, float*);
  void (*product)(const float* u, int64_t oc, int64_t c, const float* v, const int64_t* offs, float* m, int64_t t);
};
const Kernels& kernels() {
  static const Kernels avx512{
      [](const Plan& g, const float* image, float* v, int64_t ld, int64_t t0) {
        if (g.tw <= 7) input_transform_pairs(g, image, v, ld, t0);  // an input row in one vector
        else input_transform(g, image, v, ld, t0);
      },
      [](const Plan& g, const float* m, int64_t ld, int64_t t0, const float* bias, float* out) {
        if (g.tw <= 7) output_transform_pairs(g, m, ld, t0, bias, out);
        else output_transform(g, m, ld, t0, bias, out);
      },
      conv_avx512::pack_forward,
      [](const float* u, int64_t oc, int64_t c, const float* v, const int64_t* offs, float* m, int64_t t) {
        conv_avx512::forward(u, oc, c, v, offs, nullptr, m, t);
      }};
  static const Kernels avx2{input_transform_avx2, output_transform_avx2, conv_avx2::pack_forward,
                            [](const float* u, int64_t oc, int64_t c, const float* v, const int64_t* offs, float* m,
                               int64_t t) { conv_avx2::forward(u, oc, c, v, offs, nullptr, m, t); }};
  return conv_avx512::available() ? avx512 : avx2;
}

// U = G g G^T for every (o, c), packed for the forward kernel (kernels()): xi's block at xi * oc * c, in a
// buffer of the calling thread kept between calls (a 256 x 256 weight's is 4 MiB: allocating and
// faulting it per call cost as much as the transform). With `flip`, w is the weight [c, oc, 3, 3]
// of the convolution whose input gradient this one is: window (o, c) is w's (c, o) reversed. The
// transform runs on the pool's threads by output channels, the packing by xi.
LineVector<float>& packed_weight_buffer() {
  thread_local LineVector<float> packed;
  return packed;
}
const float* transformed_weight(const float* w, int64_t oc, int64_t c, bool flip) {
  const int64_t n = oc * c;
  // planes np apart: n is often a large power of 2, and 25 streams that far apart would share
  // L1's sets (the transform measured 4-5x slower so)
  const int64_t np = n + 16;
  scratch_fault_point();
  thread_local LineVector<float> taps, u;  // w's nine taps as planes [9][np], then U [16][np]
  taps.resize(static_cast<size_t>(9 * np));
  u.resize(static_cast<size_t>(16 * np));
  LineVector<float>& packed = packed_weight_buffer();
  packed.resize(static_cast<size_t>(16 * n));
  float* const k = taps.data();
  float* const uu = u.data();
  // the taps: window (o, ch) at q = o * c + ch; flipped, w's window (ch, o) reversed
  parallel_for(0, flip ? c : oc, std::max<int64_t>(1, 4096 / (flip ? oc : c)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      if (flip) {  // r: w's first index (this convolution's input channel)
        for (int64_t o = 0; o < oc; ++o) {
          const float* src = w + (r * oc + o) * 9;
          for (int t = 0; t < 9; ++t) k[t * np + o * c + r] = src[8 - t];
        }
      } else {
        for (int64_t ch = 0; ch < c; ++ch) {
          const float* src = w + (r * c + ch) * 9;
          for (int t = 0; t < 9; ++t) k[t * np + r * c + ch] = src[t];
        }
      }
    }
  });
  // U = G g G^T plane by plane (vectorised over q)
  parallel_for(0, n, 4096, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      float gk[4][3];  // G g
      for (int j = 0; j < 3; ++j) {
        const float a = k[j * np + q], b = k[(3 + j) * np + q], d = k[(6 + j) * np + q];
        gk[0][j] = a;
        gk[1][j] = 0.5f * (a + b + d);
        gk[2][j] = 0.5f * (a - b + d);
        gk[3][j] = d;
      }
      for (int i = 0; i < 4; ++i) {  // (G g) G^T
        const float* r = gk[i];
        uu[(4 * i) * np + q] = r[0];
        uu[(4 * i + 1) * np + q] = 0.5f * (r[0] + r[1] + r[2]);
        uu[(4 * i + 2) * np + q] = 0.5f * (r[0] - r[1] + r[2]);
        uu[(4 * i + 3) * np + q] = r[2];
      }
    }
  });
  parallel_for(0, 16, 1, [&](int64_t x0, int64_t x1) {
    for (int64_t xi = x0; xi < x1; ++xi) kernels().pack(uu + xi * np, oc, c, packed.data() + xi * n);
  });
  if (u.size() * sizeof(float) > kKeepBuffer) {
    LineVector<float>().swap(u);
    LineVector<float>().swap(taps);
  }
  return packed.data();  // (trimmed by the caller when done)
}

// dM[xi][t0 + a*tw + b][o] = (A dY A^T)[xi] for one image's tiles, dY its output gradient's 2x2
// blocks read from gyt [oh*ow, oc] (0 past the outputs); rows of dM oc long, xi's block ld rows.
LOCUS_AVX512 void grad_output_transform(const Plan& g, const float* gyt, float* dm, int64_t ld, int64_t t0) {
  const P& p = g.p;
  const int64_t oc = g.oc, plane = g.mplane(ld);
  for (int64_t o = 0; o < oc; o += 16) {
    const __mmask16 lanes = lanes_below(oc - o);
    for (int64_t a = 0; a < g.th; ++a)
      for (int64_t b = 0; b < g.tw; ++b) {
        __m512 y[2][2];
#pragma GCC unroll 2
        for (int i = 0; i < 2; ++i)
#pragma GCC unroll 2
          for (int j = 0; j < 2; ++j) {
            const int64_t yy = 2 * a + i, xx = 2 * b + j;
            y[i][j] = yy < p.oh && xx < p.ow ? _mm512_maskz_loadu_ps(lanes, gyt + (yy * p.ow + xx) * oc + o)
                                             : _mm512_setzero_ps();
          }
        // rows of A dY: dY0, dY0 + dY1, dY0 - dY1, -dY1; then the same on columns
        __m512 z[4][2];
#pragma GCC unroll 2
        for (int j = 0; j < 2; ++j) {
          z[0][j] = y[0][j];
          z[1][j] = _mm512_add_ps(y[0][j], y[1][j]);
          z[2][j] = _mm512_sub_ps(y[0][j], y[1][j]);
          z[3][j] = _mm512_sub_ps(_mm512_setzero_ps(), y[1][j]);
        }
        float* d = dm + (t0 + a * g.tw + b) * oc + o;
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          float* r = d + 4 * i * plane;
          _mm512_mask_storeu_ps(r, lanes, z[i][0]);
          _mm512_mask_storeu_ps(r + plane, lanes, _mm512_add_ps(z[i][0], z[i][1]));
          _mm512_mask_storeu_ps(r + 2 * plane, lanes, _mm512_sub_ps(z[i][0], z[i][1]));
          _mm512_mask_storeu_ps(r + 3 * plane, lanes, _mm512_sub_ps(_mm512_setzero_ps(), z[i][1]));
        }
      }
  }
}

LineVector<float>& thread_buffer() {
  thread_local LineVector<float> buf;
  return buf;
}

// What grad_weight runs on this CPU: the transform of one image's output gradient into dM, and the
// 16 products dU[xi] += dM[xi] V[xi]^T over a block's t tiles. With AVX-512, dM is [xi][t][oc]
// (from gy transposed through `scratch`, [l, oc]) and dU [xi][c][oc]; with AVX2 (by_output), dM is
// [xi][oc][t] (from gy as it is), its rows t long, and dU [xi][oc][c].
struct GradKernels {
  void (*grad_output)(const Plan&, const float* gy, float* dm, int64_t ld, int64_t t0, float* scratch, float* gb_sums);
  void (*product)(const float* dm, int64_t oc, int64_t c, const float* v, const int64_t* offs, int64_t t, float* du);
  bool by_output;
};
const GradKernels& grad_kernels() {
  static const GradKernels avx512{
      [](const Plan& g, const float* gy, float* dm, int64_t ld, int64_t t0, float* scratch, float* gb_sums) {
        conv_avx512::transpose(gy, g.oc, g.p.oh * g.p.ow, scratch, gb_sums);
        grad_output_transform(g, scratch, dm, ld, t0);
      },
      [](const float* dm, int64_t oc, int64_t c, const float* v, const int64_t* offs, int64_t t, float* du) {
        conv_avx512::grad_weight(dm, oc, c, v, offs, t, du);
      },
      false};
  static const GradKernels avx2{
      [](const Plan& g, const float* gy, float* dm, int64_t ld, int64_t t0, float*, float* gb_sums) {
        grad_output_transform_avx2(g, gy, dm, ld, t0, gb_sums);
      },
      conv_avx2::grad_weight, true};
  return conv_avx512::available() ? avx512 : avx2;
}

}  // namespace

namespace {
bool geometry_applies(const P& p) {
  return (conv_avx512::available() || conv_avx2::available()) && p.kh == 3 && p.kw == 3 && p.sh == 1 &&
         p.sw == 1 && p.dh == 1 && p.dw == 1 && p.ph <= 2 && p.pw <= 2 && p.oh >= 1 && p.ow >= 1 &&
         (p.ow + 1) / 2 <= kMaxTileCols &&
         p.n >= num_threads();
}
}  // namespace

bool applies(const P& p, int64_t oc) {
  const int64_t tiles = ((p.oh + 1) / 2) * ((p.ow + 1) / 2);
  // With AVX2, whose transforms cost more against the products, only where 1/c + 1/oc <= 1/16 (32
  // channels both ways, 24 -> 48): level with the direct kernels at 16 -> 32 on 14x14 (Zen 3), 10-35 %
  // faster from 32 -> 32 on 14x14 to 128 -> 256 on 8x8.
  const bool enough = conv_avx512::available() || p.c * oc >= 16 * (p.c + oc);
  return geometry_applies(p) && p.c >= 8 && oc >= 8 && enough && 16 * (p.c + oc) * tiles <= kMaxImageFloats;
}

bool grad_weight_applies(const P& p, int64_t oc) {
  const int64_t tiles = ((p.oh + 1) / 2) * ((p.ow + 1) / 2);
  return applies(p, oc) && ((p.c <= 32 && oc <= 32) || tiles <= kMaxWideTiles);
}

void forward(const float* x, const float* w, const float* bias, float* y, int64_t oc, const P& p, bool flip) {
  const Plan g{p, oc, (p.oh + 1) / 2, (p.ow + 1) / 2};
  const int64_t tiles = g.th * g.tw;
  const float* const u = transformed_weight(w, oc, p.c, flip);
  const int64_t per_block = g.images(), blocks = (p.n + per_block - 1) / per_block;
  const int64_t image_in = p.c * p.h * p.w, image_out = oc * p.oh * p.ow;
  auto block = [&](int64_t b) {
    const int64_t i0 = b * per_block, nb = std::min(per_block, p.n - i0);
    const Kernels& k = kernels();
    const int64_t t = nb * tiles, ld = (t + conv_avx512::kStep - 1) / conv_avx512::kStep * conv_avx512::kStep;
    scratch_fault_point();
    LineVector<float>& buf = thread_buffer();
    const size_t need = static_cast<size_t>(16 * g.vplane(ld) + 16 * g.mplane(t) + conv_avx512::kStep);
    if (buf.size() < need) buf.resize(need);
    float* v = buf.data();
    float* m = v + 16 * g.vplane(ld);
    for (int64_t xi = 0; xi < 16; ++xi)  // the runs' last vectors
      for (int64_t c = 0; c < p.c; ++c) {
        float* row = v + xi * g.vplane(ld) + c * ld;
        std::fill(row + t, row + ld, 0.f);
      }
    for (int64_t i = 0; i < nb; ++i) k.input(g, x + (i0 + i) * image_in, v, ld, i * tiles);
    std::vector<int64_t> offs(static_cast<size_t>(p.c));
    for (int64_t c = 0; c < p.c; ++c) offs[static_cast<size_t>(c)] = c * ld;
    for (int64_t xi = 0; xi < 16; ++xi)
      k.product(u + xi * oc * p.c, oc, p.c, v + xi * g.vplane(ld), offs.data(), m + xi * g.mplane(t), t);
    for (int64_t i = 0; i < nb; ++i) k.output(g, m, t, i * tiles, bias, y + (i0 + i) * image_out);
  };
  // blocks handed to the threads as they come free, each thread's own share first (BlockClaims: a
  // shared machine's core taken away for a while holds no one up)
  const int64_t threads = std::min<int64_t>(blocks, num_threads());
  BlockClaims claims(blocks, threads);
  parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t b; (b = claims.next(t)) >= 0;) block(b);
    if (thread_buffer().size() * sizeof(float) > kKeepBuffer) LineVector<float>().swap(thread_buffer());
  });
  if (packed_weight_buffer().size() * sizeof(float) > kKeepBuffer) LineVector<float>().swap(packed_weight_buffer());
}

namespace {

// gw [oc, c, 3, 3] = G^T dU G from dU (total: [xi][oc][c] when by_output, else transposed,
// [xi][c][oc]), on the pool's threads.
void weight_from_du(const float* total, int64_t oc, int64_t c, bool by_output, float* gw) {
  parallel_for(0, c, std::max<int64_t>(1, 2048 / oc), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch)
      for (int64_t o = 0; o < oc; ++o) {
        float du[4][4], h[4][3];
        for (int xi = 0; xi < 16; ++xi)
          du[xi / 4][xi % 4] = by_output ? total[(xi * oc + o) * c + ch] : total[(xi * c + ch) * oc + o];
        for (int i = 0; i < 4; ++i) {  // dU G: columns of G [[1,0,0],[.5,.5,.5],[.5,-.5,.5],[0,0,1]]
          h[i][0] = du[i][0] + 0.5f * (du[i][1] + du[i][2]);
          h[i][1] = 0.5f * (du[i][1] - du[i][2]);
          h[i][2] = 0.5f * (du[i][1] + du[i][2]) + du[i][3];
        }
        float* k = gw + (o * c + ch) * 9;
        for (int j = 0; j < 3; ++j) {  // G^T (dU G)
          k[j] = h[0][j] + 0.5f * (h[1][j] + h[2][j]);
          k[3 + j] = 0.5f * (h[1][j] - h[2][j]);
          k[6 + j] = 0.5f * (h[1][j] + h[2][j]) + h[3][j];
        }
      }
  });
}

// grad_weight with more than 32 channels either way: 16 transformed weights of that size are too
// many to sum per block of images (at 128->256, 2 MiB a block, 16 blocks: measured 2x slower than
// the direct kernels). Instead the blocks run one after the other, each in two parallel steps:
// its images' transforms (V and dM of the block, shared), then the 16 products, xi by xi across
// the threads, each added into the one dU[xi]. Each dU[xi] is summed in block order whichever
// thread computes it: the same bits for any thread count.
void grad_weight_wide(const Plan& g, const float* x, const float* gy, float* gw, float* gb) {
  const P& p = g.p;
  const int64_t oc = g.oc, tiles = g.th * g.tw, l = p.oh * p.ow;
  const int64_t per_block = g.images(), blocks = (p.n + per_block - 1) / per_block;
  const int64_t image_in = p.c * p.h * p.w, image_out = oc * l;
  const int64_t ld = per_block * tiles;  // V's rows and dM's planes sized for a whole block
  LineVector<float> buf(static_cast<size_t>(16 * g.vplane(ld) + 16 * g.mplane(ld) + 16 * p.c * oc));
  float* const v = buf.data();
  float* const dm = v + 16 * g.vplane(ld);
  float* const du = dm + 16 * g.mplane(ld);  // [xi][c][oc], zeroed by the vector
  LineVector<float> bias_sums(static_cast<size_t>(gb != nullptr ? p.n * oc : 0), 0.f);  // [image][oc]
  std::vector<int64_t> offs(static_cast<size_t>(p.c));
  for (int64_t c = 0; c < p.c; ++c) offs[static_cast<size_t>(c)] = c * ld;
  const Kernels& k = kernels();
  const GradKernels& gk = grad_kernels();
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t i0 = b * per_block, nb = std::min(per_block, p.n - i0);
    const int64_t dl = gk.by_output ? nb * tiles : ld;  // dM's rows (by output channel) or planes' rows
    parallel_for(0, nb, 1, [&](int64_t lo, int64_t hi) {
      scratch_fault_point();
      LineVector<float>& scratch = thread_buffer();
      if (scratch.size() < static_cast<size_t>(l * oc)) scratch.resize(static_cast<size_t>(l * oc));
      for (int64_t i = lo; i < hi; ++i) {
        k.input(g, x + (i0 + i) * image_in, v, ld, i * tiles);
        gk.grad_output(g, gy + (i0 + i) * image_out, dm, dl, i * tiles, scratch.data(),
                       gb != nullptr ? bias_sums.data() + (i0 + i) * oc : nullptr);
      }
    });
    parallel_for(0, 16, 1, [&](int64_t x0, int64_t x1) {
      for (int64_t xi = x0; xi < x1; ++xi)
        gk.product(dm + xi * g.mplane(dl), oc, p.c, v + xi * g.vplane(ld), offs.data(), nb * tiles,
                   du + xi * p.c * oc);
    });
  }
  if (thread_buffer().size() * sizeof(float) > kKeepBuffer) LineVector<float>().swap(thread_buffer());
  weight_from_du(du, oc, p.c, gk.by_output, gw);
  if (gb != nullptr) {
    std::fill_n(gb, oc, 0.f);
    for (int64_t i = 0; i < p.n; ++i)
      for (int64_t o = 0; o < oc; ++o) gb[o] += bias_sums[static_cast<size_t>(i * oc + o)];
  }
}

}  // namespace

void grad_weight(const float* x, const float* gy, float* gw, float* gb, int64_t oc, const P& p) {
  const Plan g{p, oc, (p.oh + 1) / 2, (p.ow + 1) / 2};
  if (p.c > 32 || oc > 32) return grad_weight_wide(g, x, gy, gw, gb);
  const int64_t tiles = g.th * g.tw, l = p.oh * p.ow;
  const int64_t per_block = g.images(), blocks = (p.n + per_block - 1) / per_block;
  const int64_t image_in = p.c * p.h * p.w, image_out = oc * l;
  // block b's sums: dU transposed ([xi][c][oc]), then the bias gradient
  // (in a buffer of the calling thread kept between calls, each block's zeroed by the thread that
  // runs it: a new zeroed vector, 0.5 MiB for the CNN's 16 -> 32, was faulted in and zeroed on the
  // calling thread alone, with the other threads waiting)
  const int64_t size = 16 * p.c * oc + oc;
  scratch_fault_point();
  thread_local LineVector<float> kept;
  if (kept.size() < static_cast<size_t>(blocks * size)) kept.resize(static_cast<size_t>(blocks * size));
  float* const sums = kept.data();
  auto block = [&](int64_t b) {
    const int64_t i0 = b * per_block, nb = std::min(per_block, p.n - i0);
    const int64_t t = nb * tiles, ld = (t + conv_avx512::kStep - 1) / conv_avx512::kStep * conv_avx512::kStep;
    scratch_fault_point();
    LineVector<float>& buf = thread_buffer();
    const size_t need = static_cast<size_t>(16 * g.vplane(ld) + 16 * g.mplane(t) + l * oc + conv_avx512::kStep);
    if (buf.size() < need) buf.resize(need);
    float* v = buf.data();
    float* dm = v + 16 * g.vplane(ld);
    float* gyt = dm + 16 * g.mplane(t);
    float* sum = sums + b * size;
    std::fill_n(sum, size, 0.f);
    const Kernels& k = kernels();
    const GradKernels& gk = grad_kernels();
    for (int64_t i = 0; i < nb; ++i) {
      k.input(g, x + (i0 + i) * image_in, v, ld, i * tiles);
      gk.grad_output(g, gy + (i0 + i) * image_out, dm, t, i * tiles, gyt,
                     gb != nullptr ? sum + 16 * p.c * oc : nullptr);
    }
    std::vector<int64_t> offs(static_cast<size_t>(p.c));
    for (int64_t c = 0; c < p.c; ++c) offs[static_cast<size_t>(c)] = c * ld;
    for (int64_t xi = 0; xi < 16; ++xi)
      gk.product(dm + xi * g.mplane(t), oc, p.c, v + xi * g.vplane(ld), offs.data(), t, sum + xi * p.c * oc);
  };
  const int64_t threads = std::min<int64_t>(blocks, num_threads());
  BlockClaims claims(blocks, threads);
  parallel_for(0, threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t b; (b = claims.next(t)) >= 0;) block(b);
    if (thread_buffer().size() * sizeof(float) > kKeepBuffer) LineVector<float>().swap(thread_buffer());
  });
  // the blocks' sums into block 0's, each element in block order (the same bits for any thread
  // count), on the pool's threads; then gw = G^T dU G
  float* const total = sums;
  parallel_for(0, size, 4096, [&](int64_t q0, int64_t q1) {
    for (int64_t b = 1; b < blocks; ++b) {
      const float* __restrict sb = sums + b * size;
      for (int64_t q = q0; q < q1; ++q) total[q] += sb[q];
    }
  });
  weight_from_du(total, oc, p.c, grad_kernels().by_output, gw);
  if (gb != nullptr) std::copy_n(total + 16 * p.c * oc, oc, gb);
  if (kept.size() * sizeof(float) > kKeepBuffer) LineVector<float>().swap(kept);
}

}  // namespace locus::cpu::conv_winograd

#else  // not x86

namespace locus::cpu::conv_winograd {
bool applies(const P&, int64_t) { return false; }
bool grad_weight_applies(const P&, int64_t) { return false; }
void forward(const float*, const float*, const float*, float*, int64_t, const P&, bool) {}
void grad_weight(const float*, const float*, float*, float*, int64_t, const P&) {}
}  // namespace locus::cpu::conv_winograd

#endif
