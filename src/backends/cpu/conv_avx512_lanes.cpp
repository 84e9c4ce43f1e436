// Float convolution kernels for AVX-512F with the output channels in the lanes (conv_avx512_lanes.h).
// Register block: up to 8 consecutive output positions of one output row x up to 3 vectors of 16
// output channels, or 6 x 4 at stride 2 on rows of 16+ (24 accumulators; blocking()); per input
// channel and window tap, the block's weight vectors are loaded and each position's input value
// broadcast. For each block, taps whose input row is
// outside the image are skipped, and within a tap's input row only the positions whose input
// column is inside it are computed: the first and last position of a row (pad <= 1 and a window
// reaching one column over the border, by far the common case) by their own instantiations, any
// other partial range on zero columns. Where no tap has another range (direct()), the kernels read
// the image itself; otherwise a copy with zero columns left and right (padded width w + 2*pw, no
// padded rows). While one image is computed, the next one's lines are prefetched into L2. Results
// go to a [positions, oc] tile, bias included, then are transposed to [oc, positions].
// Weight gradient: 6 input channels of one window tap x 4 vectors of 16 output channels, summed
// over the positions whose input is inside the image (a rectangle per tap), one broadcast input
// value per channel and four loads of the transposed output gradient per position. That gradient
// is transposed per 64-channel block, so a block's positions are read one after the other.
#include "backends/cpu/conv_avx512_lanes.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/line_vector.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))
#define LOCUS_AVX512_INLINE __attribute__((target("avx512f,fma"), always_inline)) inline

namespace locus::cpu::conv_lanes {
namespace {

constexpr int kPos = 8;    // output positions per block (one output row's)
constexpr int kVecs = 3;   // vectors of 16 output channels per block
constexpr int64_t kLanes = 16;
// Stride 2: each input channel's weights are prefetched this many channels ahead (below).
constexpr int64_t kPrefetchChannels = 8;

int64_t round16(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

inline __mmask16 tail_mask(int64_t n) {  // the first min(n, 16) lanes
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// The positions [lo, hi) of the block of pn at x0 whose input column for tap column j, shift + q *
// s (shift: position 0's, (x0 * s) - pw + j * dw), is inside the image; block() and direct().
struct TapRange {
  int64_t shift, lo, hi;
};
inline TapRange tap_range(const P& p, int64_t x0, int64_t pn, int64_t j, int64_t s) {
  const int64_t shift = j * p.dw - p.pw + x0 * s;
  return {shift, std::clamp<int64_t>((-shift + s - 1) / s, 0, pn), std::clamp<int64_t>((p.w - shift + s - 1) / s, 0, pn)};
}

// acc[p] += w[c] * x[c * xs + p * S] for positions LO <= p < HI, over n input channels (S: the
// stride along the row); w advances by 16 * V floats per channel. At stride 2 the weights are
// prefetched into L1 kPrefetchChannels channels ahead: a block reads 9 x c x 16V floats of them
// (108 KiB at 64 -> 48 channels, more than L1), and on an Intel Xeon (AVX-512, 2 vCPUs) the
// 64 -> 128 stride-2 forward on 32x32 went from 9.1-9.8 to 8.5-9.4 ms (three A/B runs of
// alternated builds, docs/benchmarks.md, stop 56); at stride 1 (16x16 and 8x8 images) it changed
// nothing in the forward and cost 5 % in the 16x16 forward + backward, so it is off there.
template <int Pn, int V, int LO, int HI, int S>
LOCUS_AVX512_INLINE void taps(__m512 (&acc)[Pn][V], const float* __restrict w, const float* __restrict x, int64_t xs,
                              int64_t n) {  // (x: position LO's input)
  for (int64_t c = 0; c < n; ++c, w += 16 * V, x += xs) {
    if constexpr (S == 2) {  // (an address past the weights' end is never read: no pointer formed)
      const uintptr_t ahead = reinterpret_cast<uintptr_t>(w) + sizeof(float) * 16 * V * kPrefetchChannels;
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) _mm_prefetch(reinterpret_cast<const char*>(ahead + 64 * v), _MM_HINT_T0);
    }
    __m512 wv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) wv[v] = _mm512_loadu_ps(w + 16 * v);
#pragma GCC unroll 8
    for (int q = LO; q < HI; ++q) {
      const __m512 b = _mm512_set1_ps(x[(q - LO) * S]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[q][v] = _mm512_fmadd_ps(wv[v], b, acc[q][v]);
    }
  }
}

// Output row y, positions [x0, x0 + Pn), channels of one block of V vectors (w: its packed weight,
// [kh*kw][c][16*V]); `tile` at the block's first position and channel, rows ldt apart; `last`
// limits the last vector's channels. S: the stride (p.sh == p.sw == S). img: the image with zero
// columns (zc = p.pw of them each side, rows wp = w + 2 pw long), or the image itself (zc = 0,
// wp = w) where every tap's positions are one of the three ranges below (direct()).
template <int Pn, int V, int S>
LOCUS_AVX512 void block(const float* __restrict w, const P& p, int64_t wp, int64_t zc, const float* __restrict img,
                        int64_t y, int64_t x0, const float* __restrict bias, float* __restrict tile, int64_t ldt,
                        __mmask16 last) {
  __m512 acc[Pn][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    const __m512 b = bias == nullptr ? _mm512_setzero_ps()
                     : v < V - 1     ? _mm512_loadu_ps(bias + 16 * v)
                                     : _mm512_maskz_loadu_ps(last, bias + 16 * v);
#pragma GCC unroll 8
    for (int q = 0; q < Pn; ++q) acc[q][v] = b;
  }
  const int64_t xs = p.h * wp, cw = p.c * 16 * V;
  for (int64_t i = 0; i < p.kh; ++i) {
    const int64_t iy = y * S - p.ph + i * p.dh;
    if (iy < 0 || iy >= p.h) continue;
    for (int64_t j = 0; j < p.kw; ++j) {
      const auto [shift, lo, hi] = tap_range(p, x0, Pn, j, S);
      if (hi <= lo) continue;
      const float* wt = w + (i * p.kw + j) * cw;
      // the input of the range's first position: its column in img's row is input column + zc
      const int64_t at = iy * wp + shift + zc;
      if (lo == 0 && hi == Pn) taps<Pn, V, 0, Pn, S>(acc, wt, img + at, xs, p.c);
      else if (lo == 1 && hi == Pn) taps<Pn, V, 1, Pn, S>(acc, wt, img + (at + S), xs, p.c);
      else if (lo == 0 && hi == Pn - 1) taps<Pn, V, 0, Pn - 1, S>(acc, wt, img + at, xs, p.c);
      else taps<Pn, V, 0, Pn, S>(acc, wt, img + at, xs, p.c);  // the rest on the zero columns (zc = pw only)
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < Pn; ++q) {
    float* o = tile + q * ldt;
#pragma GCC unroll 4
    for (int v = 0; v < V - 1; ++v) _mm512_storeu_ps(o + 16 * v, acc[q][v]);
    _mm512_mask_storeu_ps(o + 16 * (V - 1), last, acc[q][V - 1]);
  }
}

using Block = void (*)(const float*, const P&, int64_t, int64_t, const float*, int64_t, int64_t, const float*, float*,
                       int64_t, __mmask16);
template <int V, int S, int... Q>
Block block_for(int pos, std::integer_sequence<int, Q...>) {
  static constexpr Block table[] = {block<Q + 1, V, S>...};
  return table[pos - 1];
}
template <int S>
Block block_for(int pos, int vecs) {
  const auto seq = std::make_integer_sequence<int, kPos>{};
  if (vecs == 4) return block_for<4, S>(pos, std::make_integer_sequence<int, 6>{});  // (blocking())
  if (vecs == 3) return block_for<3, S>(pos, seq);
  if (vecs == 2) return block_for<2, S>(pos, seq);
  return block_for<1, S>(pos, seq);
}
Block block_for(int pos, int vecs, int64_t stride) {
  return stride == 2 ? block_for<2>(pos, vecs) : block_for<1>(pos, vecs);
}

// A forward's register block: up to `vecs` vectors of 16 output channels x up to `pos` positions
// of one output row. Stride 2 on rows of 16 outputs or more: 4 x 6 (24 accumulators, as 3 x 8, but
// 128 channels are two whole blocks instead of 48 + 48 + 32, and the 2-vector block was the least
// efficient: 80 % of the FMA peak against 91 %). Batch 64 unless said, medians of alternated runs
// on an Intel Xeon (AVX-512, 2 vCPUs): 32 -> 64 on 32x32 0.88x the time, 64 -> 128 on 32x32
// 0.97x, 64 -> 128 on 64x64 (batch 16) 0.85x; on 16x16 (rows of 8 outputs: blocks of 4) 1.15x
// slower, so rows under 16 keep 3 x 8.
struct Blocking {
  int vecs, pos;
};
Blocking blocking(const P& p) { return p.sw == 2 && p.ow >= 16 ? Blocking{4, 6} : Blocking{kVecs, kPos}; }

// The channel blocks: [o0, o0 + 16 * vecs), `most` vectors each, then the rest.
template <class F>
void for_channel_blocks(int64_t oc, int most, F&& f) {
  for (int64_t o0 = 0; o0 < oc; o0 += most * kLanes) f(o0, static_cast<int>(std::min<int64_t>(most, (oc - o0 + 15) / 16)));
}
// The position blocks of a row of ow outputs: as few as `most` allows, sizes within one of each other.
int64_t position_blocks(int64_t ow, int most) { return (ow + most - 1) / most; }
template <class F>
void for_position_blocks(int64_t ow, int most, F&& f) {
  const int64_t nb = position_blocks(ow, most);
  for (int64_t b = 0, x0 = 0; b < nb; ++b) {
    const int64_t pn = ow / nb + (b < ow % nb ? 1 : 0);
    f(x0, pn);
    x0 += pn;
  }
}

constexpr int kGwRows = 6;  // input channels per weight-gradient block (one window tap)
constexpr int kGwVecs = 4;  // vectors of 16 output channels per weight-gradient block

// gwt[rr * ldg][..] += (= with `store`) the sum over the images m < ni and the positions (y, x),
// y0 <= y < y1, x0 <= x < x1, of img[m * is + rr * xs + y * wp + x] * gyt[m * gs + (y * ow + x) * ld][..]
// for R channels rr and V vectors of output channels (the last one's lanes limited by `last`): one
// window tap's rows, over the positions whose input is inside the image only; img points into the
// first image's padded copy at the tap's shift, gyt at a block of its transposed output gradient
// (ld channels a position). Summing several small images in registers before gwt is read and
// written back: at 8x8 one image gives a tap only 49 to 64 positions, and the read-modify-write
// of 24 vectors of gwt (in L2) per 6 x 64 block cost a fifth of the kernel's time.
template <int R, int V>
LOCUS_AVX512 void gw_block(const float* __restrict gyt, int64_t ld, int64_t ow, const float* __restrict img,
                           int64_t xs, int64_t wp, int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t ni,
                           int64_t gs, int64_t is, float* __restrict gwt, int64_t ldg, __mmask16 last, bool store) {
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int rr = 0; rr < R; ++rr)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[rr][v] = _mm512_setzero_ps();
  for (int64_t m = 0; m < ni; ++m) {
    for (int64_t y = y0; y < y1; ++y) {
      const float* g = gyt + m * gs + (y * ow + x0) * ld;
      const float* x = img + m * is + y * wp + x0;
      for (int64_t t = 0; t < x1 - x0; ++t, g += ld) {
        __m512 gv[V];
#pragma GCC unroll 4
        for (int v = 0; v < V - 1; ++v) gv[v] = _mm512_loadu_ps(g + 16 * v);
        gv[V - 1] = _mm512_maskz_loadu_ps(last, g + 16 * (V - 1));
#pragma GCC unroll 8
        for (int rr = 0; rr < R; ++rr) {
          const __m512 s = _mm512_set1_ps(x[rr * xs + t]);
#pragma GCC unroll 4
          for (int v = 0; v < V; ++v) acc[rr][v] = _mm512_fmadd_ps(s, gv[v], acc[rr][v]);
        }
      }
    }
  }
  if (store) {
#pragma GCC unroll 8
    for (int rr = 0; rr < R; ++rr) {
      float* o = gwt + rr * ldg;
#pragma GCC unroll 4
      for (int v = 0; v < V - 1; ++v) _mm512_storeu_ps(o + 16 * v, acc[rr][v]);
      _mm512_mask_storeu_ps(o + 16 * (V - 1), last, acc[rr][V - 1]);
    }
    return;
  }
#pragma GCC unroll 8
  for (int rr = 0; rr < R; ++rr) {
    float* o = gwt + rr * ldg;
#pragma GCC unroll 4
    for (int v = 0; v < V - 1; ++v) _mm512_storeu_ps(o + 16 * v, _mm512_add_ps(_mm512_loadu_ps(o + 16 * v), acc[rr][v]));
    float* e = o + 16 * (V - 1);
    _mm512_mask_storeu_ps(e, last, _mm512_add_ps(_mm512_maskz_loadu_ps(last, e), acc[rr][V - 1]));
  }
}

using GwBlock = void (*)(const float*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, float*, int64_t, __mmask16, bool);
template <int V, int... R>
GwBlock gw_block_for(int rows, std::integer_sequence<int, R...>) {
  static constexpr GwBlock table[] = {gw_block<R + 1, V>...};
  return table[rows - 1];
}
GwBlock gw_block_for(int rows, int vecs) {
  const auto seq = std::make_integer_sequence<int, kGwRows>{};
  switch (vecs) {
    case 4: return gw_block_for<4>(rows, seq);
    case 3: return gw_block_for<3>(rows, seq);
    case 2: return gw_block_for<2>(rows, seq);
    default: return gw_block_for<1>(rows, seq);
  }
}

// The image with pw zero columns on either side: [c, h, w + 2*pw]; rows in masked vectors (a
// memmove call per 8-float row cost 1 % of the 8x8 forward).
LOCUS_AVX512 void pad_columns(const P& p, const float* image, float* img) {
  const int64_t wp = p.w + 2 * p.pw;
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t r = 0; r < p.c * p.h; ++r) {
    float* d = img + r * wp;
    const float* src = image + r * p.w;
    for (int64_t x = 0; x < wp; x += 16) _mm512_mask_storeu_ps(d + x, tail_mask(wp - x), zero);
    for (int64_t x = 0; x < p.w; x += 16) {
      const __mmask16 m = tail_mask(p.w - x);
      _mm512_mask_storeu_ps(d + p.pw + x, m, _mm512_maskz_loadu_ps(m, src + x));
    }
  }
}

}  // namespace

namespace {
bool suits_shape(const P& p, int64_t oc, bool any_width = false) {
  // Measured faster than the shifted layout's kernels (one thread, batch 64, forward and forward +
  // backward) by 3-15 % from 32->64 channels at 8x8 and 16x16 to 128->256 at 8x8, and 3 % at
  // 64->128 on 32x32; 16->32 at 16x16 measured 0-4 % faster too, but the small-channel shapes stay
  // on the shifted layout (rows of 14, 28 positions are not whole blocks either). Without padding
  // there is nothing to skip: 256->256 1x1 at 8x8 measured 2-3 % slower here.
  return conv_avx512::available() && p.c >= 32 && oc >= 32 && (any_width || p.ow % kPos == 0) && p.oh * p.ow <= 1024 &&
         (p.ph > 0 || p.pw > 0);
}
}  // namespace

bool suits(const P& p, int64_t oc) { return p.sh == 1 && p.sw == 1 && suits_shape(p, oc); }

bool forward_suits(const P& p, int64_t oc) {
  // Stride 2 as well: 64->128 on 32x32 (16x16 outputs), batch 64, measured 10 % faster than the
  // shifted layout on one thread (33.5 -> 30.3 ms), 5-8 % on two; that layout copies each channel
  // into six planes (three columns x two row phases) first. And at stride 2 rows of any width
  // (position blocks balanced, for_position_blocks): batch 16, 128 -> 256 on 28x28 (rows of 14)
  // 0.9x the shifted layout's time, 64 -> 128 on 56x56 (rows of 28) 0.72x.
  if (p.sh == 2 && p.sw == 2) return suits_shape(p, oc, true);
  return p.sh == 1 && p.sw == 1 && suits_shape(p, oc);
}

int64_t packed_size(const P& p, int64_t oc) { return round16(oc) * p.c * p.kh * p.kw; }

namespace {
// pack() for blocks of at most `vecs` vectors.
void pack_blocks(const float* w, int64_t oc, const P& p, float* packed, bool flip, int vecs) {
  const int64_t win = p.kh * p.kw, k = p.c * win;
  // w's element (output channel o, input channel c, tap t) is w[o * so + c * sc + t * st + s0]
  const int64_t so = flip ? win : p.c * win, sc = flip ? oc * win : win, st = flip ? -1 : 1, s0 = flip ? win - 1 : 0;
  parallel_for(0, p.c, std::max<int64_t>(1, kGrainCheap / (round16(oc) * win)), [&](int64_t cb, int64_t ce) {
    for_channel_blocks(oc, vecs, [&](int64_t o0, int vecs) {
      const int64_t width = 16 * vecs, n = std::min<int64_t>(width, oc - o0);
      float* dst = packed + o0 * k;
      for (int64_t c = cb; c < ce; ++c)
        for (int64_t t = 0; t < win; ++t) {
          float* d = dst + (t * p.c + c) * width;
          const float* src = w + o0 * so + c * sc + t * st + s0;
          for (int64_t q = 0; q < n; ++q) d[q] = src[q * so];
          std::fill(d + n, d + width, 0.f);
        }
    });
  });
}
}  // namespace

void pack(const float* w, int64_t oc, const P& p, float* packed, bool flip) {
  pack_blocks(w, oc, p, packed, flip, blocking(p).vecs);
}

int64_t scratch_size(const P& p, int64_t oc) { return p.c * p.h * (p.w + 2 * p.pw) + p.oh * p.ow * oc; }

// True when each tap of every block (of at most pos positions) covers positions [0, Pn), [1, Pn)
// or [0, Pn - 1) of the block, or none (block's `taps` cases): the kernels then read no zero
// column, so they can read the image itself instead of a copy with zero columns.
bool direct(const P& p, int pos) {
  const int64_t s = p.sw;
  bool ok = true;
  for_position_blocks(p.ow, pos, [&](int64_t x0, int64_t pn) {
    for (int64_t j = 0; j < p.kw; ++j) {
      const auto [shift, lo, hi] = tap_range(p, x0, pn, j, s);
      if (hi > lo && !(lo == 0 && hi == pn) && !(lo == 1 && hi == pn) && !(lo == 0 && hi == pn - 1)) ok = false;
    }
  });
  return ok;
}

namespace {
// The blocks of one image's convolution (packed for bk, oc output channels, geometry p) from img
// (the image itself, or its copy with zc zero columns, rows wp long): the result of output
// position (y, x), bias included, to tile row row(y, x) (oc floats a row), a block's positions
// ldt floats apart. next: as forward.
template <class Row>
void run_blocks(const float* packed, int64_t oc, const P& p, Blocking bk, const float* img, int64_t wp, int64_t zc,
                const float* bias, float* tile, Row row, int64_t ldt, const float* next) {
  const int64_t k = p.c * p.kh * p.kw;
  // the next image's lines, a share before each block (blocks: channel blocks x rows x row blocks)
  const int64_t lines = next != nullptr ? (p.c * p.h * p.w * static_cast<int64_t>(sizeof(float)) + 63) / 64 : 0;
  const int64_t calls = (oc + bk.vecs * kLanes - 1) / (bk.vecs * kLanes) * p.oh * position_blocks(p.ow, bk.pos);
  const int64_t share = (lines + calls - 1) / calls;
  int64_t fetched = 0;
  const char* ahead = reinterpret_cast<const char*>(next);
  for_channel_blocks(oc, bk.vecs, [&](int64_t o0, int vecs) {
    const __mmask16 last = tail_mask(oc - o0 - 16 * (vecs - 1));
    const float* w = packed + o0 * k;
    const float* b = bias != nullptr ? bias + o0 : nullptr;
    for (int64_t y = 0; y < p.oh; ++y)
      for_position_blocks(p.ow, bk.pos, [&](int64_t x0, int64_t pn) {
        for (const int64_t end = std::min(lines, fetched + share); fetched < end; ++fetched)
          _mm_prefetch(ahead + 64 * fetched, _MM_HINT_T1);
        block_for(static_cast<int>(pn), vecs, p.sw)(w, p, wp, zc, img, y, x0, b, tile + row(y, x0) * oc + o0, ldt, last);
      });
  });
}
}  // namespace

void forward(const float* packed, int64_t oc, const P& p, const float* image, const float* bias, float* scratch,
             float* out, const float* next) {
  // the image itself where no tap reads a zero column (at stride 2 its copy was 9 % of the
  // forward, the input read from memory: 64 -> 128 on 32x32), else a copy with zero columns
  const Blocking bk = blocking(p);
  const bool as_is = direct(p, bk.pos);
  const int64_t wp = as_is ? p.w : p.w + 2 * p.pw, zc = as_is ? 0 : p.pw;
  float* tile = scratch + p.c * p.h * (p.w + 2 * p.pw);
  if (!as_is) pad_columns(p, image, scratch);
  run_blocks(packed, oc, p, bk, as_is ? image : scratch, wp, zc, bias, tile,
             [&](int64_t y, int64_t x) { return y * p.ow + x; }, oc, next);
  conv_avx512::transpose(tile, p.oh * p.ow, oc, out);
}

namespace {
// One parity class (a, b) of a stride-2 convolution's input gradient: the input rows 2u + a and
// columns 2v + b. Only the window rows i = i0, i0 + 2, ... (i = a + ph mod 2) and columns j0, j0 + 2,
// ... meet them; taken in reverse, their output-gradient rows and columns ascend, so the class is
// a stride-1 convolution of gy [oc, oh, ow] with geometry q (q.kh x q.kw taps) into [c, q.oh, q.ow].
struct Phase {
  P q;
  int64_t a, b, i0, j0;
};
Phase phase(const P& p, int64_t oc, int64_t a, int64_t b) {
  Phase f{P{}, a, b, (a + p.ph) % 2, (b + p.pw) % 2};
  P& q = f.q;
  q.c = oc, q.h = p.oh, q.w = p.ow;
  q.kh = p.kh > f.i0 ? (p.kh - f.i0 + 1) / 2 : 0;
  q.kw = p.kw > f.j0 ? (p.kw - f.j0 + 1) / 2 : 0;
  // gy row for class row u and tap r: (2u + a + ph - i) / 2 with i = i0 + 2 (kh' - 1 - r)
  q.ph = q.kh - 1 - (a + p.ph - f.i0) / 2;
  q.pw = q.kw - 1 - (b + p.pw - f.j0) / 2;
  q.oh = (p.h - a + 1) / 2, q.ow = (p.w - b + 1) / 2;
  return f;
}
// The classes' blocking: 4 vectors x 6 on rows of 16 or more (64 input channels are one block).
Blocking phase_blocking(const P& q) { return q.ow >= 16 ? Blocking{4, 6} : Blocking{kVecs, kPos}; }
}  // namespace

bool grad_input_suits(const P& p, int64_t oc) {
  // Against the path it replaced (GEMM + col2im), the input gradient alone, batch 64, medians of
  // alternated runs on an Intel Xeon (AVX-512, 2 vCPUs), the time: 32 -> 32 on 32x32 0.64x, 32 -> 64
  // 0.69x, 64 -> 128 0.78x, 128 -> 64 0.73x; 64 -> 128 on 16x16 0.72x, 128 -> 256 0.77x; 256 -> 512
  // on 8x8 0.89x; 64 -> 128 on 64x64 (batch 16) 0.80x.
  if (!conv_avx512::available() || p.sh != 2 || p.sw != 2 || p.dh != 1 || p.dw != 1) return false;
  if (p.c < 32 || oc < 32 || p.h * p.w > 4096) return false;
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b) {
      const Phase f = phase(p, oc, a, b);
      // every class has taps, reads gy itself (no zero columns: direct()) and no negative padding
      if (f.q.kh < 1 || f.q.kw < 1 || f.q.ph < 0 || f.q.pw < 0 || f.q.oh < 1 || f.q.ow < 1) return false;
      if (!direct(f.q, phase_blocking(f.q).pos)) return false;
    }
  return true;
}

int64_t grad_input_packed_size(const P& p, int64_t oc) { return round16(p.c) * oc * p.kh * p.kw; }

void grad_input_pack(const float* w, int64_t oc, const P& p, float* packed) {
  LineVector<float> wq;
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b) {
      const Phase f = phase(p, oc, a, b);
      const P& q = f.q;
      // the class's weight [c, oc, kh', kw']: w[o][ch][i0 + 2 (kh' - 1 - r)][j0 + 2 (kw' - 1 - t)]
      wq.assign(static_cast<size_t>(p.c * oc * q.kh * q.kw), 0.f);
      for (int64_t ch = 0; ch < p.c; ++ch)
        for (int64_t o = 0; o < oc; ++o)
          for (int64_t r = 0; r < q.kh; ++r)
            for (int64_t t = 0; t < q.kw; ++t)
              wq[static_cast<size_t>(((ch * oc + o) * q.kh + r) * q.kw + t)] =
                  w[((o * p.c + ch) * p.kh + f.i0 + 2 * (q.kh - 1 - r)) * p.kw + f.j0 + 2 * (q.kw - 1 - t)];
      pack_blocks(wq.data(), p.c, q, packed, false, phase_blocking(q).vecs);
      packed += packed_size(q, p.c);
    }
}

int64_t grad_input_scratch_size(const P& p, int64_t) { return p.h * p.w * p.c; }

void grad_input(const float* packed, int64_t oc, const P& p, const float* gy, float* scratch, float* gx,
                const float* next) {
  // each class's results to the tile rows of their input positions, then one transpose
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b) {
      const Phase f = phase(p, oc, a, b);
      run_blocks(packed, p.c, f.q, phase_blocking(f.q), gy, f.q.w, 0, nullptr, scratch,
                 [&](int64_t u, int64_t v) { return (2 * u + a) * p.w + 2 * v + b; }, 2 * p.c,
                 a == 1 && b == 1 ? next : nullptr);
      packed += packed_size(f.q, p.c);
    }
  conv_avx512::transpose(scratch, p.h * p.w, p.c, gx);
}

int64_t grad_weight_scratch_size(const P& p, int64_t oc, int64_t images) {
  return images * (p.oh * p.ow * oc + p.c * p.h * (p.w + 2 * p.pw));
}

void grad_weight(const float* gy, int64_t oc, const P& p, const float* image, float* scratch, float* gwt,
                 float* bias_sums, bool store, int64_t images) {
  const int64_t wp = p.w + 2 * p.pw, xs = p.h * wp, win = p.kh * p.kw, l = p.oh * p.ow;
  const int64_t gs = l * oc, is = p.c * xs;  // one image's transposed gradient and padded copy
  // each image's gy transposed per block of 64 channels: block o0 is [l, width] at gyt + m * gs +
  // o0 * l, so a block's positions are read one after the other
  float* gyt = scratch;
  scratch += images * gs;
  for (int64_t m = 0; m < images; ++m) {
    for (int64_t o0 = 0; o0 < oc; o0 += kGwVecs * kLanes)
      conv_avx512::transpose(gy + m * gs + o0 * l, std::min<int64_t>(kGwVecs * kLanes, oc - o0), l,
                             gyt + m * gs + o0 * l, bias_sums != nullptr ? bias_sums + o0 : nullptr);
    pad_columns(p, image + m * p.c * p.h * p.w, scratch + m * is);
  }
  for (int64_t i = 0; i < p.kh; ++i) {
    // output rows y whose input row y - ph + i*dh is inside the image
    const int64_t dy = i * p.dh - p.ph;
    const int64_t y0 = std::max<int64_t>(0, -dy), y1 = std::min<int64_t>(p.oh, p.h - dy);
    for (int64_t j = 0; j < p.kw; ++j) {
      const int64_t dx = j * p.dw - p.pw;
      const int64_t x0 = std::max<int64_t>(0, -dx), x1 = std::min<int64_t>(p.ow, p.w - dx);
      if (y1 <= y0 || x1 <= x0) {  // a tap that meets only padding: its rows are 0
        if (store)
          for (int64_t c = 0; c < p.c; ++c) std::fill_n(gwt + (c * win + i * p.kw + j) * oc, oc, 0.f);
        continue;
      }
      // img rows y + dy, columns x + dx + pw (padded)
      const float* base = scratch + dy * wp + (dx + p.pw);
      for (int64_t c0 = 0; c0 < p.c; c0 += kGwRows) {
        const int rows = static_cast<int>(std::min<int64_t>(kGwRows, p.c - c0));
        for (int64_t o0 = 0; o0 < oc; o0 += kGwVecs * kLanes) {
          const int vecs = static_cast<int>(std::min<int64_t>(kGwVecs, (oc - o0 + 15) / 16));
          gw_block_for(rows, vecs)(gyt + o0 * l, std::min<int64_t>(kGwVecs * kLanes, oc - o0), p.ow, base + c0 * xs, xs, wp, y0, y1, x0, x1,
                                   images, gs, is, gwt + (c0 * win + i * p.kw + j) * oc + o0, win * oc,
                                   tail_mask(oc - o0 - 16 * (vecs - 1)), store);
        }
      }
    }
  }
}

}  // namespace locus::cpu::conv_lanes

#else  // not x86: the other paths serve

namespace locus::cpu::conv_lanes {
bool suits(const P&, int64_t) { return false; }
bool forward_suits(const P&, int64_t) { return false; }
int64_t packed_size(const P&, int64_t) { return 0; }
void pack(const float*, int64_t, const P&, float*, bool) {}
int64_t scratch_size(const P&, int64_t) { return 0; }
void forward(const float*, int64_t, const P&, const float*, const float*, float*, float*, const float*) {}
bool grad_input_suits(const P&, int64_t) { return false; }
int64_t grad_input_packed_size(const P&, int64_t) { return 0; }
void grad_input_pack(const float*, int64_t, const P&, float*) {}
int64_t grad_input_scratch_size(const P&, int64_t) { return 0; }
void grad_input(const float*, int64_t, const P&, const float*, float*, float*, const float*) {}
int64_t grad_weight_scratch_size(const P&, int64_t, int64_t) { return 0; }
void grad_weight(const float*, int64_t, const P&, const float*, float*, float*, float*, bool, int64_t) {}
}  // namespace locus::cpu::conv_lanes

#endif
