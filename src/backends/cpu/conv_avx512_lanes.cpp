// Float convolution kernels for AVX-512F with the output channels in the lanes (conv_avx512_lanes.h).
// Register block: kPos consecutive output positions of one output row x up to 3 vectors of 16
// output channels (24 accumulators); per input channel and window tap, three weight vectors are
// loaded and each position's input value broadcast. The image is copied once with zero columns
// left and right (padded width w + 2*pw, no padded rows); for each block, taps whose input row is
// outside the image are skipped, and within a tap's input row only the positions whose input
// column is inside it are computed: the first and last position of a row (pad <= 1 and a window
// reaching one column over the border, by far the common case) by their own instantiations, any
// other partial range on the zero columns. Results go to a [positions, oc] tile, bias included,
// then are transposed to [oc, positions].
#include "backends/cpu/conv_avx512_lanes.h"

#include <algorithm>
#include <utility>

#include "backends/cpu/conv_avx512.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))
#define LOCUS_AVX512_INLINE __attribute__((target("avx512f,fma"), always_inline)) inline

namespace locus::cpu::conv_lanes {
namespace {

constexpr int kPos = 8;    // output positions per block (one output row's)
constexpr int kVecs = 3;   // vectors of 16 output channels per block
constexpr int64_t kLanes = 16;

int64_t round16(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

inline __mmask16 tail_mask(int64_t n) {  // the first min(n, 16) lanes
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// acc[p] += w[c] * x[c * xs + p] for positions LO <= p < HI, over n input channels; w advances by
// 16 * V floats per channel.
template <int Pn, int V, int LO, int HI>
LOCUS_AVX512_INLINE void taps(__m512 (&acc)[Pn][V], const float* __restrict w, const float* __restrict x, int64_t xs,
                              int64_t n) {
  for (int64_t c = 0; c < n; ++c, w += 16 * V, x += xs) {
    __m512 wv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) wv[v] = _mm512_loadu_ps(w + 16 * v);
#pragma GCC unroll 8
    for (int q = LO; q < HI; ++q) {
      const __m512 b = _mm512_set1_ps(x[q]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[q][v] = _mm512_fmadd_ps(wv[v], b, acc[q][v]);
    }
  }
}

// Output row y, positions [x0, x0 + Pn), channels of one block of V vectors (w: its packed weight,
// [kh*kw][c][16*V]); `tile` at the block's first position and channel, rows ldt apart; `last`
// limits the last vector's channels.
template <int Pn, int V>
LOCUS_AVX512 void block(const float* __restrict w, const P& p, int64_t wp, const float* __restrict img, int64_t y,
                        int64_t x0, const float* __restrict bias, float* __restrict tile, int64_t ldt, __mmask16 last) {
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
    const int64_t iy = y - p.ph + i * p.dh;
    if (iy < 0 || iy >= p.h) continue;
    for (int64_t j = 0; j < p.kw; ++j) {
      // positions x0 + q whose input column x0 + q - pw + j*dw is inside the image
      const int64_t shift = j * p.dw - p.pw + x0;
      const int64_t lo = std::max<int64_t>(0, -shift), hi = std::min<int64_t>(Pn, p.w - shift);
      if (hi <= lo) continue;
      const float* wt = w + (i * p.kw + j) * cw;
      const float* xt = img + iy * wp + x0 + j * p.dw;  // padded column = input column + pw
      if (lo == 0 && hi == Pn) taps<Pn, V, 0, Pn>(acc, wt, xt, xs, p.c);
      else if (lo == 1 && hi == Pn) taps<Pn, V, 1, Pn>(acc, wt, xt, xs, p.c);
      else if (lo == 0 && hi == Pn - 1) taps<Pn, V, 0, Pn - 1>(acc, wt, xt, xs, p.c);
      else taps<Pn, V, 0, Pn>(acc, wt, xt, xs, p.c);  // the rest on the zero columns
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

using Block = void (*)(const float*, const P&, int64_t, const float*, int64_t, int64_t, const float*, float*, int64_t,
                       __mmask16);
template <int V, int... Q>
Block block_for(int pos, std::integer_sequence<int, Q...>) {
  static constexpr Block table[] = {block<Q + 1, V>...};
  return table[pos - 1];
}
Block block_for(int pos, int vecs) {
  const auto seq = std::make_integer_sequence<int, kPos>{};
  if (vecs == 3) return block_for<3>(pos, seq);
  if (vecs == 2) return block_for<2>(pos, seq);
  return block_for<1>(pos, seq);
}

// The channel blocks: [o0, o0 + 16 * vecs), 3 vectors each, then the rest.
template <class F>
void for_channel_blocks(int64_t oc, F&& f) {
  for (int64_t o0 = 0; o0 < oc; o0 += kVecs * kLanes) f(o0, static_cast<int>(std::min<int64_t>(kVecs, (oc - o0 + 15) / 16)));
}

}  // namespace

bool suits(const P& p, int64_t oc) {
  if (!conv_avx512::available() || p.sh != 1 || p.sw != 1) return false;
  return p.c >= 64 && oc >= 64 && p.ow % kPos == 0 && p.oh * p.ow <= 256;
}

int64_t packed_size(const P& p, int64_t oc) { return round16(oc) * p.c * p.kh * p.kw; }

void pack(const float* w, int64_t oc, const P& p, float* packed) {
  const int64_t win = p.kh * p.kw, k = p.c * win;
  for_channel_blocks(oc, [&](int64_t o0, int vecs) {
    const int64_t width = 16 * vecs;
    float* dst = packed + o0 * k;
    for (int64_t t = 0; t < win; ++t)
      for (int64_t c = 0; c < p.c; ++c)
        for (int64_t q = 0; q < width; ++q)
          dst[(t * p.c + c) * width + q] = o0 + q < oc ? w[((o0 + q) * p.c + c) * win + t] : 0.f;
  });
}

int64_t scratch_size(const P& p, int64_t oc) { return p.c * p.h * (p.w + 2 * p.pw) + p.oh * p.ow * oc; }

void forward(const float* packed, int64_t oc, const P& p, const float* image, const float* bias, float* scratch,
             float* out) {
  const int64_t wp = p.w + 2 * p.pw, k = p.c * p.kh * p.kw, l = p.oh * p.ow;
  float* img = scratch;
  float* tile = scratch + p.c * p.h * wp;
  for (int64_t r = 0; r < p.c * p.h; ++r) {  // the image with pw zero columns on either side
    float* d = img + r * wp;
    std::fill(d, d + p.pw, 0.f);
    std::copy_n(image + r * p.w, p.w, d + p.pw);
    std::fill(d + p.pw + p.w, d + wp, 0.f);
  }
  for_channel_blocks(oc, [&](int64_t o0, int vecs) {
    const __mmask16 last = tail_mask(oc - o0 - 16 * (vecs - 1));
    const float* w = packed + o0 * k;
    const float* b = bias != nullptr ? bias + o0 : nullptr;
    for (int64_t y = 0; y < p.oh; ++y)
      for (int64_t x0 = 0; x0 < p.ow; x0 += kPos) {
        const int pos = static_cast<int>(std::min<int64_t>(kPos, p.ow - x0));
        block_for(pos, vecs)(w, p, wp, img, y, x0, b, tile + (y * p.ow + x0) * oc + o0, oc, last);
      }
  });
  conv_avx512::transpose(tile, l, oc, out);
}

}  // namespace locus::cpu::conv_lanes

#else  // not x86: the other paths serve

namespace locus::cpu::conv_lanes {
bool suits(const P&, int64_t) { return false; }
int64_t packed_size(const P&, int64_t) { return 0; }
void pack(const float*, int64_t, const P&, float*) {}
int64_t scratch_size(const P&, int64_t) { return 0; }
void forward(const float*, int64_t, const P&, const float*, const float*, float*, float*) {}
}  // namespace locus::cpu::conv_lanes

#endif
