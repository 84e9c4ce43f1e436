// Float convolution kernels (and 2x2 max pooling) for AVX2 + FMA, on the "wide" layout of
// conv.cpp (stride 1) and on its "shifted" one (conv_avx512.h; the same kernels, other offsets,
// rows of any length): column row r of an image is the contiguous run
// pad[offs[r] .. offs[r] + lw) of its zero-padded copy, so these kernels read the padded copy
// directly (an implicit GEMM: no columns are ever written). Register-blocked micro-kernels: up to 6
// rows x 16 positions by broadcast and FMA (the forward; the input gradient when it is not itself
// a forward convolution: rows of the output gradient, added at the offsets), 4 output channels x 3
// column rows reduced over the positions (the weight gradient), or, from the output gradient
// transposed, 3 column rows x 32 channels (6 x 16) in the lanes (the weight gradient where
// lanes_suit: no sums across lanes). Measured on the CNN's shapes (Zen 3, one thread): 72 GFLOP/s
// for conv 16->32 3x3 on 14x14 against 60 for copying columns + OpenBLAS, 72 against 26 for conv
// 1->16 on 28x28.
#include "backends/cpu/conv_avx2.h"

#include <algorithm>

#include "backends/cpu/convert.h"

namespace locus::cpu::conv_avx2 {
int64_t block_rows(int64_t n, int64_t b) {
  const int64_t blocks = (n + kRows - 1) / kRows;
  return n / blocks + (b < n % blocks ? 1 : 0);
}

}  // namespace locus::cpu::conv_avx2

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX2 __attribute__((target("avx2,fma")))

namespace locus::cpu::conv_avx2 {

bool available() {
  // LOCUS_CPU_ISA=generic/portable (convert_level()) turns them off as well: the tests run the
  // portable convolution and pooling on any CPU that way (backends.cpu_conv_generic)
  static const bool ok =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && convert_level() >= ConvertLevel::kAvx2;
  return ok;
}

namespace {

// The broadcast micro-kernel of both the forward and the input gradient: for N rows q,
//   acc[q][t0 .. t0+16) = sum_i w[i][q] * src_i[t0 ..]   (w packed [steps][N])
// where src_i is base + offs[i] (Gather: rows of the padded copy) or base + i * stride (rows of
// the output gradient); then dst row q, which is dst + q * stride (forward: stored) or
// dst + offs[q] (input gradient: added, one row after the other, as rows overlap there).
template <int N, bool Gather>
LOCUS_AVX2 void bcast_block(const float* __restrict w, int64_t steps, const float* __restrict base,
                            const int64_t* __restrict offs, int64_t stride, float* __restrict dst, int64_t t0,
                            const float* __restrict bias) {
  // the forward's sums start at the bias (row q's at bias[q]) where there is one
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
  if constexpr (Gather) {
    if (bias != nullptr) {
#define LOCUS_BIAS(q, A) \
  if constexpr (N > q) A = _mm256_broadcast_ss(bias + q);
      LOCUS_BIAS(0, a0) LOCUS_BIAS(1, a1) LOCUS_BIAS(2, a2) LOCUS_BIAS(3, a3) LOCUS_BIAS(4, a4) LOCUS_BIAS(5, a5)
#undef LOCUS_BIAS
    }
  }
  __m256 b0 = a0, b1 = a1, b2 = a2, b3 = a3, b4 = a4, b5 = a5;
  for (int64_t i = 0; i < steps; ++i) {
    const float* x = base + (Gather ? offs[i] : i * stride) + t0;
    const __m256 x0 = _mm256_loadu_ps(x), x1 = _mm256_loadu_ps(x + 8);
    const float* wi = w + i * N;
#define LOCUS_ROW(q, A, B)                              \
  if constexpr (N > q) {                                \
    const __m256 s = _mm256_broadcast_ss(wi + q);       \
    A = _mm256_fmadd_ps(s, x0, A);                      \
    B = _mm256_fmadd_ps(s, x1, B);                      \
  }
    LOCUS_ROW(0, a0, b0) LOCUS_ROW(1, a1, b1) LOCUS_ROW(2, a2, b2) LOCUS_ROW(3, a3, b3) LOCUS_ROW(4, a4, b4)
    LOCUS_ROW(5, a5, b5)
#undef LOCUS_ROW
  }
#define LOCUS_OUT(q, A, B)                                                              \
  if constexpr (N > q) {                                                                \
    float* p = (Gather ? dst + q * stride : dst + offs[q]) + t0;                        \
    if constexpr (Gather) {                                                             \
      _mm256_storeu_ps(p, A);                                                           \
      _mm256_storeu_ps(p + 8, B);                                                       \
    } else {                                                                            \
      _mm256_storeu_ps(p, _mm256_add_ps(_mm256_loadu_ps(p), A));                        \
      _mm256_storeu_ps(p + 8, _mm256_add_ps(_mm256_loadu_ps(p + 8), B));                \
    }                                                                                   \
  }
  LOCUS_OUT(0, a0, b0) LOCUS_OUT(1, a1, b1) LOCUS_OUT(2, a2, b2) LOCUS_OUT(3, a3, b3) LOCUS_OUT(4, a4, b4)
  LOCUS_OUT(5, a5, b5)
#undef LOCUS_OUT
}

template <bool Gather>
void bcast_any(int64_t rows, const float* w, int64_t steps, const float* base, const int64_t* offs, int64_t stride,
               float* dst, int64_t t, const float* bias = nullptr) {
  switch (rows) {
    case 6: return bcast_block<6, Gather>(w, steps, base, offs, stride, dst, t, bias);
    case 5: return bcast_block<5, Gather>(w, steps, base, offs, stride, dst, t, bias);
    case 4: return bcast_block<4, Gather>(w, steps, base, offs, stride, dst, t, bias);
    case 3: return bcast_block<3, Gather>(w, steps, base, offs, stride, dst, t, bias);
    case 2: return bcast_block<2, Gather>(w, steps, base, offs, stride, dst, t, bias);
    default: return bcast_block<1, Gather>(w, steps, base, offs, stride, dst, t, bias);
  }
}

// The forward's last 1 to 8 positions for N rows: bcast_block's sum on one vector of positions,
// into tail[q * 8 ..], in two sets of accumulators (even and odd steps: one set alone would wait on
// the FMA latency), instead of a whole block of kStep positions for a few (14x14 outputs: 196 =
// 12 * 16 + 4).
template <int N>
LOCUS_AVX2 void bcast_tail8(const float* __restrict w, int64_t steps, const float* __restrict base,
                            const int64_t* __restrict offs, float* __restrict tail, const float* __restrict bias) {
  __m256 e[N], o[N];
#pragma GCC unroll 6
  for (int q = 0; q < N; ++q) {
    e[q] = bias != nullptr ? _mm256_broadcast_ss(bias + q) : _mm256_setzero_ps();
    o[q] = _mm256_setzero_ps();
  }
  int64_t i = 0;
  for (; i + 2 <= steps; i += 2) {
    const __m256 x0 = _mm256_loadu_ps(base + offs[i]), x1 = _mm256_loadu_ps(base + offs[i + 1]);
    const float* wi = w + i * N;
#pragma GCC unroll 6
    for (int q = 0; q < N; ++q) {
      e[q] = _mm256_fmadd_ps(_mm256_broadcast_ss(wi + q), x0, e[q]);
      o[q] = _mm256_fmadd_ps(_mm256_broadcast_ss(wi + N + q), x1, o[q]);
    }
  }
  if (i < steps) {
    const __m256 x0 = _mm256_loadu_ps(base + offs[i]);
#pragma GCC unroll 6
    for (int q = 0; q < N; ++q) e[q] = _mm256_fmadd_ps(_mm256_broadcast_ss(w + i * N + q), x0, e[q]);
  }
#pragma GCC unroll 6
  for (int q = 0; q < N; ++q) _mm256_storeu_ps(tail + q * 8, _mm256_add_ps(e[q], o[q]));
}

void tail8_any(int64_t rows, const float* w, int64_t steps, const float* base, const int64_t* offs, float* tail,
               const float* bias) {
  switch (rows) {
    case 6: return bcast_tail8<6>(w, steps, base, offs, tail, bias);
    case 5: return bcast_tail8<5>(w, steps, base, offs, tail, bias);
    case 4: return bcast_tail8<4>(w, steps, base, offs, tail, bias);
    case 3: return bcast_tail8<3>(w, steps, base, offs, tail, bias);
    case 2: return bcast_tail8<2>(w, steps, base, offs, tail, bias);
    default: return bcast_tail8<1>(w, steps, base, offs, tail, bias);
  }
}

// The forward's last lw % kStep positions of `rows` rows at t: computed whole (their source runs
// read up to a vector past lw) into a buffer, then copied out; one vector's worth by bcast_tail8.
void forward_tail(int64_t rows, const float* w, int64_t steps, const float* base, const int64_t* offs, float* dst,
                  int64_t stride, int64_t t, int64_t n, const float* bias) {
  float tail[kRows * kStep];
  const int64_t width = n <= 8 ? 8 : kStep;  // of the buffer's rows
  if (n <= 8) tail8_any(rows, w, steps, base + t, offs, tail, bias);
  else bcast_any<true>(rows, w, steps, base + t, offs, kStep, tail, 0, bias);
  for (int64_t q = 0; q < rows; ++q)
    for (int64_t u = 0; u < n; ++u) dst[q * stride + t + u] = tail[q * width + u];
}

// out[i] = the sum of v[i]'s lanes for i < M (M a multiple of 4): eight at a time by a tree of
// hadds and one add of the halves, four at a time likewise (a scalar sum per vector costs about
// five times the instructions).
template <int M>
LOCUS_AVX2 inline __attribute__((always_inline)) void hsums(const __m256* v, float* out) {
  static_assert(M % 4 == 0);
  int i = 0;
  for (; i + 8 <= M; i += 8) {
    const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(v[i], v[i + 1]), _mm256_hadd_ps(v[i + 2], v[i + 3]));
    const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(v[i + 4], v[i + 5]), _mm256_hadd_ps(v[i + 6], v[i + 7]));
    _mm256_store_ps(out + i, _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31)));
  }
  if (i < M) {
    const __m256 u = _mm256_hadd_ps(_mm256_hadd_ps(v[i], v[i + 1]), _mm256_hadd_ps(v[i + 2], v[i + 3]));
    _mm_store_ps(out + i, _mm_add_ps(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1)));
  }
}

// gw[q][r] += sum_t gy[q][t] * pad[offs[r] + t], for NO output channels q and NR column rows r.
template <int NO, int NR>
LOCUS_AVX2 void gw_block(const float* __restrict gy, int64_t lw, const float* __restrict pad,
                         const int64_t* __restrict offs, float* __restrict gw, int64_t k) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c10 = c00, c11 = c00, c12 = c00, c20 = c00, c21 = c00,
         c22 = c00, c30 = c00, c31 = c00, c32 = c00;
  const float* p0 = pad + offs[0];
  const float* p1 = pad + offs[NR > 1 ? 1 : 0];
  const float* p2 = pad + offs[NR > 2 ? 2 : 0];
  int64_t t = 0;
#define LOCUS_ROW(q, C0, C1, C2, LOAD)                             \
  if constexpr (NO > q) {                                          \
    const __m256 g = LOAD(gy + q * lw + t);                        \
    C0 = _mm256_fmadd_ps(g, x0, C0);                               \
    if constexpr (NR > 1) C1 = _mm256_fmadd_ps(g, x1, C1);         \
    if constexpr (NR > 2) C2 = _mm256_fmadd_ps(g, x2, C2);         \
  }
#define LOCUS_STEP(LOAD)                                                                               \
  const __m256 x0 = LOAD(p0 + t);                                                                      \
  const __m256 x1 = NR > 1 ? LOAD(p1 + t) : x0;                                                        \
  const __m256 x2 = NR > 2 ? LOAD(p2 + t) : x0;                                                        \
  LOCUS_ROW(0, c00, c01, c02, LOAD) LOCUS_ROW(1, c10, c11, c12, LOAD) LOCUS_ROW(2, c20, c21, c22, LOAD) \
  LOCUS_ROW(3, c30, c31, c32, LOAD)
  for (; t + 8 <= lw; t += 8) {
    LOCUS_STEP(_mm256_loadu_ps)
  }
  if (t < lw) {  // the last lw % 8 positions by masked loads: nothing past the rows read
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(lw - t)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#define LOCUS_MASKED(p) _mm256_maskload_ps(p, m)
    LOCUS_STEP(LOCUS_MASKED)
#undef LOCUS_MASKED
  }
#undef LOCUS_STEP
#undef LOCUS_ROW
  // the NO * NR sums by hadd trees, eight (and four) at a time, then added into gw
  const __m256 acc[12] = {c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32};
  alignas(32) float sum[12];
  hsums<(NO * 3 + 3) / 4 * 4>(acc, sum);  // (the unused accumulators are zero)
#pragma GCC unroll 4
  for (int q = 0; q < NO; ++q)
#pragma GCC unroll 3
    for (int r = 0; r < NR; ++r) gw[q * k + r] += sum[q * 3 + r];
}

template <int NR>
void gw_rows(int64_t no, const float* gy, int64_t lw, const float* pad, const int64_t* offs, float* gw, int64_t k) {
  switch (no) {
    case 4: return gw_block<4, NR>(gy, lw, pad, offs, gw, k);
    case 3: return gw_block<3, NR>(gy, lw, pad, offs, gw, k);
    case 2: return gw_block<2, NR>(gy, lw, pad, offs, gw, k);
    default: return gw_block<1, NR>(gy, lw, pad, offs, gw, k);
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

void pack_grad_input(const float* w, int64_t oc, int64_t k, float* packed) {
  for (int64_t r0 = 0, b = 0; r0 < k; r0 += block_rows(k, b++)) {
    const int64_t nr = block_rows(k, b);
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t q = 0; q < nr; ++q) packed[r0 * oc + o * nr + q] = w[o * k + r0 + q];
  }
}

void forward(const float* packed, int64_t oc, int64_t k, const float* pad, const int64_t* offs, const float* bias,
             float* out, int64_t lw) {
  // Blocks of output channels outer, positions inner (the other order, positions outer, measured
  // slower end to end on the CNN's convolutions on Zen 3, although it reads the copy only once).
  const int64_t whole = lw / kStep * kStep;
  for (int64_t o0 = 0, b = 0; o0 < oc; o0 += block_rows(oc, b++)) {
    const float* bo = bias != nullptr ? bias + o0 : nullptr;
    for (int64_t t = 0; t < whole; t += kStep)
      bcast_any<true>(block_rows(oc, b), packed + o0 * k, k, pad, offs, lw, out + o0 * lw, t, bo);
    if (whole < lw)
      forward_tail(block_rows(oc, b), packed + o0 * k, k, pad, offs, out + o0 * lw, lw, whole, lw - whole, bo);
  }
}

void grad_input(const float* packed, int64_t oc, int64_t k, const float* gy, int64_t lw, const int64_t* offs,
                float* gpad) {
  for (int64_t r0 = 0, b = 0; r0 < k; r0 += block_rows(k, b++))
    for (int64_t t = 0; t < lw; t += kStep)
      bcast_any<false>(block_rows(k, b), packed + r0 * oc, oc, gy, offs + r0, lw, gpad, t);
}

void grad_weight(const float* gy, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t lw,
                 float* gw) {
  for (int64_t o0 = 0; o0 < oc; o0 += 4) {
    const int64_t no = std::min<int64_t>(4, oc - o0);
    for (int64_t r0 = 0; r0 < k; r0 += 3) {
      const float* g = gy + o0 * lw;
      float* dst = gw + o0 * k + r0;
      switch (std::min<int64_t>(3, k - r0)) {
        case 3: gw_rows<3>(no, g, lw, pad, offs + r0, dst, k); break;
        case 2: gw_rows<2>(no, g, lw, pad, offs + r0, dst, k); break;
        default: gw_rows<1>(no, g, lw, pad, offs + r0, dst, k); break;
      }
    }
  }
}

bool lanes_suit(int64_t oc, int64_t k) { return oc % 16 == 0 && k >= 64; }

LOCUS_AVX2 void transpose(const float* src, int64_t rows, int64_t cols, float* dst, float* sums) {
  for (int64_t r0 = 0; r0 < rows; r0 += 8) {
    const float* s = src + r0 * cols;
    __m256 total = _mm256_setzero_ps();  // row r0 + i's sum in lane i
    int64_t c0 = 0;
    for (; c0 + 8 <= cols; c0 += 8) {  // an 8x8 block by unpacks, shuffles and lane permutes
      const __m256 a0 = _mm256_loadu_ps(s + c0), a1 = _mm256_loadu_ps(s + cols + c0),
                   a2 = _mm256_loadu_ps(s + 2 * cols + c0), a3 = _mm256_loadu_ps(s + 3 * cols + c0),
                   a4 = _mm256_loadu_ps(s + 4 * cols + c0), a5 = _mm256_loadu_ps(s + 5 * cols + c0),
                   a6 = _mm256_loadu_ps(s + 6 * cols + c0), a7 = _mm256_loadu_ps(s + 7 * cols + c0);
      const __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1), t2 = _mm256_unpacklo_ps(a2, a3),
                   t3 = _mm256_unpackhi_ps(a2, a3), t4 = _mm256_unpacklo_ps(a4, a5), t5 = _mm256_unpackhi_ps(a4, a5),
                   t6 = _mm256_unpacklo_ps(a6, a7), t7 = _mm256_unpackhi_ps(a6, a7);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
                   u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
                   u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
                   u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
      const __m256 o[8] = {_mm256_permute2f128_ps(u0, u4, 0x20), _mm256_permute2f128_ps(u1, u5, 0x20),
                           _mm256_permute2f128_ps(u2, u6, 0x20), _mm256_permute2f128_ps(u3, u7, 0x20),
                           _mm256_permute2f128_ps(u0, u4, 0x31), _mm256_permute2f128_ps(u1, u5, 0x31),
                           _mm256_permute2f128_ps(u2, u6, 0x31), _mm256_permute2f128_ps(u3, u7, 0x31)};
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        _mm256_storeu_ps(dst + (c0 + i) * rows + r0, o[i]);
        total = _mm256_add_ps(total, o[i]);
      }
    }
    for (; c0 < cols; ++c0) {  // the last cols % 8 columns one by one
      float* d = dst + c0 * rows + r0;
      for (int64_t i = 0; i < 8; ++i) d[i] = s[i * cols + c0];
      total = _mm256_add_ps(total, _mm256_loadu_ps(d));
    }
    if (sums != nullptr) _mm256_storeu_ps(sums + r0, _mm256_add_ps(_mm256_loadu_ps(sums + r0), total));
  }
}

namespace {
// gwt[r][o0 + ..] += sum_t pad[offs[r] + t] * gyt[t][o0 + ..] for R rows r and V vectors of 8
// channels: R * V = 12 accumulators, V loads and R broadcasts a position.
template <int R, int V>
LOCUS_AVX2 void gw_lanes_block(const float* __restrict gyt, int64_t ld, int64_t l, const float* __restrict pad,
                               const int64_t* __restrict offs, float* __restrict gwt) {
  __m256 c[R][V];
  const float* p[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    p[r] = pad + offs[r];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) c[r][v] = _mm256_setzero_ps();
  }
  for (int64_t t = 0; t < l; ++t) {
    __m256 g[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) g[v] = _mm256_loadu_ps(gyt + t * ld + 8 * v);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(p[r] + t);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) c[r][v] = _mm256_fmadd_ps(x, g[v], c[r][v]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* d = gwt + r * ld + 8 * v;
      _mm256_storeu_ps(d, _mm256_add_ps(_mm256_loadu_ps(d), c[r][v]));
    }
}

// All k rows for V vectors of channels: blocks of 12 / V rows, then the rest.
template <int V>
void gw_lanes_rows(const float* gyt, int64_t ld, int64_t k, int64_t l, const float* pad, const int64_t* offs,
                   float* gwt) {
  constexpr int kR = 12 / V;
  int64_t r = 0;
  for (; r + kR <= k; r += kR) gw_lanes_block<kR, V>(gyt, ld, l, pad, offs + r, gwt + r * ld);
  for (; r < k; ++r) gw_lanes_block<1, V>(gyt, ld, l, pad, offs + r, gwt + r * ld);
}
}  // namespace

void grad_weight_lanes(const float* gyt, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t l,
                       float* gwt) {
  int64_t o0 = 0;
  for (; o0 + 32 <= oc; o0 += 32) gw_lanes_rows<4>(gyt + o0, oc, k, l, pad, offs, gwt + o0);
  if (o0 < oc) gw_lanes_rows<2>(gyt + o0, oc, k, l, pad, offs, gwt + o0);  // 16 channels (lanes_suit)
}

namespace {
// Eight outputs of max_pool_rows at x.
LOCUS_AVX2 inline void pool_eight(const float* h, const int32_t* hp, float* out, int64_t* ix, int64_t ow, int64_t x) {
  const __m256 a = _mm256_loadu_ps(h + x), b = _mm256_loadu_ps(h + ow + x);
  // take the bottom one when the top one is not NaN and the bottom one is not <= it
  const __m256 take = _mm256_andnot_ps(_mm256_cmp_ps(b, a, _CMP_LE_OQ), _mm256_cmp_ps(a, a, _CMP_ORD_Q));
  _mm256_storeu_ps(out + x, _mm256_blendv_ps(a, b, take));
  const __m256i at = _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hp + x))),
                       _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hp + ow + x))), take));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(ix + x), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(ix + x + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
}
}  // namespace

LOCUS_AVX2 void max_pool_rows(const float* h, const int32_t* hp, float* out, int64_t* ix, int64_t ow, int64_t rows) {
  if (ow >= 8) {
    for (int64_t r = 0; r < rows; ++r, h += 2 * ow, hp += 2 * ow, out += ow, ix += ow) {
      int64_t x = 0;
      for (; x + 8 <= ow; x += 8) pool_eight(h, hp, out, ix, ow, x);
      if (x < ow) pool_eight(h, hp, out, ix, ow, ow - 8);  // the last 8 again, overlapping: same values twice
    }
    return;
  }
  // Narrow rows: eight outputs from the row's start, the ones past its end landing on the next
  // rows', which are written next; the last rows, whose eight would pass the end, through a buffer.
  int64_t r = 0;
  for (; r * ow + 8 <= rows * ow; ++r, h += 2 * ow, hp += 2 * ow, out += ow, ix += ow) pool_eight(h, hp, out, ix, ow, 0);
  for (; r < rows; ++r, h += 2 * ow, hp += 2 * ow, out += ow, ix += ow) {
    float o8[8];
    int64_t i8[8];
    pool_eight(h, hp, o8, i8, ow, 0);
    for (int64_t x = 0; x < ow; ++x) out[x] = o8[x], ix[x] = i8[x];
  }
}

namespace {
// The larger of each pair (v[2t], v[2t+1]) of the 16 floats at p, as pool_pairs: the second when
// the first is not NaN and the second is not <= it; *take gets -1 in the lanes that took it.
LOCUS_AVX2 inline __m256 pair_max(const float* p, __m256i* take) {
  const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8);
  // evens and odds, in the order 0 1 4 5 | 2 3 6 7 of the pairs: put right by one permute
  const __m256 a = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(v0, v1, 0x88)), 0xd8));
  const __m256 b = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(v0, v1, 0xdd)), 0xd8));
  const __m256 t = _mm256_andnot_ps(_mm256_cmp_ps(b, a, _CMP_LE_OQ), _mm256_cmp_ps(a, a, _CMP_ORD_Q));
  *take = _mm256_castps_si256(t);
  return _mm256_blendv_ps(a, b, t);
}

// Eight outputs at output column x of the row pair at `top` (input row y0, width w).
LOCUS_AVX2 inline void pool2x2_eight(const float* top, int64_t w, int64_t y0, int64_t x, float* out, int64_t* ix) {
  __m256i ta, tb;
  const __m256 a = pair_max(top + 2 * x, &ta), b = pair_max(top + w + 2 * x, &tb);
  // positions: 2x + 2t (+1 where the pair's second was taken; take is -1 there), in row y0 or y0 + 1
  const __m256i cols = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(y0 * w + 2 * x)),
                                        _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
  const __m256i pa = _mm256_sub_epi32(cols, ta);
  const __m256i pb = _mm256_sub_epi32(_mm256_add_epi32(cols, _mm256_set1_epi32(static_cast<int32_t>(w))), tb);
  const __m256 t = _mm256_andnot_ps(_mm256_cmp_ps(b, a, _CMP_LE_OQ), _mm256_cmp_ps(a, a, _CMP_ORD_Q));
  _mm256_storeu_ps(out + x, _mm256_blendv_ps(a, b, t));
  const __m256i at = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(pa), _mm256_castsi256_ps(pb), t));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(ix + x), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(ix + x + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
}
}  // namespace

LOCUS_AVX2 void max_pool2x2(const float* in, float* out, int64_t* ix, int64_t planes, int64_t h, int64_t w,
                            int64_t oh, int64_t ow) {
  for (int64_t q = 0; q < planes; ++q, in += h * w)
    for (int64_t r = 0; r < oh; ++r, out += ow, ix += ow) {
      const float* top = in + 2 * r * w;
      int64_t x = 0;
      for (; x + 8 <= ow; x += 8) pool2x2_eight(top, w, 2 * r, x, out, ix);
      if (x < ow) pool2x2_eight(top, w, 2 * r, ow - 8, out, ix);  // the last 8 again, overlapping
    }
}

namespace {
// The lanes of a vector of src (step 1), or of one of the two read for eight outputs at step 2,
// whose output position first + lane / step lies in [x0, x1); at step 2 only the even lanes.
LOCUS_AVX2 inline __m256i lanes_inside(int64_t first, int step, int64_t x0, int64_t x1) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i x = _mm256_add_epi32(step == 1 ? lane : _mm256_srli_epi32(lane, 1),
                                     _mm256_set1_epi32(static_cast<int32_t>(first)));
  __m256i in = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(x0)), x),
                                   _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(x1)), x));
  if (step == 2) in = _mm256_and_si256(in, _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0));
  return in;
}
}  // namespace

LOCUS_AVX2 void shift_plane(const float* src, int64_t ss, int64_t shift, float* plane, int64_t rows, int64_t n,
                            int64_t u0, int64_t u1, int64_t x0, int64_t x1, int64_t sw) {
  const __m256 zero = _mm256_setzero_ps();
  u0 = std::clamp<int64_t>(u0, 0, rows);
  u1 = std::clamp(u1, u0, rows);
  for (int64_t xc = 0; xc < n; xc += 8) {  // a row's vectors (the last one overlapping): which lanes read src
    const int64_t at = std::min(xc, n - 8);
    float* d = plane + at;
    int64_t u = 0;
    for (; u < u0; ++u) _mm256_storeu_ps(d + u * n, zero);
    // the lanes outside [x0, x1) read nothing (masked), however far they lie outside src's row
    const float* s = src + at * sw + shift;
    if (sw == 1) {
      const __m256i read = lanes_inside(at, 1, x0, x1);
      for (; u < u1; ++u, s += ss) _mm256_storeu_ps(d + u * n, _mm256_maskload_ps(s, read));
    } else {  // the even elements of two vectors: [lo0 lo2 hi0 hi2 | lo4 lo6 hi4 hi6], then 64-bit pairs reordered
      const __m256i lo = lanes_inside(at, 2, x0, x1), hi = lanes_inside(at + 4, 2, x0, x1);
      for (; u < u1; ++u, s += ss) {
        const __m256 e = _mm256_shuffle_ps(_mm256_maskload_ps(s, lo), _mm256_maskload_ps(s + 8, hi), 0x88);
        _mm256_storeu_ps(d + u * n, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xd8)));
      }
    }
    for (; u < rows; ++u) _mm256_storeu_ps(d + u * n, zero);
  }
}

LOCUS_AVX2 void copy_rows(const float* src, int64_t ss, float* dst, int64_t ds, int64_t rows, int64_t n,
                          const float* add) {
  for (int64_t r = 0; r < rows; ++r, src += ss, dst += ds) {
    int64_t t = 0;
    if (add == nullptr) {
      for (; t + 8 <= n; t += 8) _mm256_storeu_ps(dst + t, _mm256_loadu_ps(src + t));
      if (t < n) _mm256_storeu_ps(dst + n - 8, _mm256_loadu_ps(src + n - 8));  // the last 8 again, overlapping
    } else {
      const __m256 a = _mm256_broadcast_ss(add);
      for (; t + 8 <= n; t += 8) _mm256_storeu_ps(dst + t, _mm256_add_ps(_mm256_loadu_ps(src + t), a));
      if (t < n) _mm256_storeu_ps(dst + n - 8, _mm256_add_ps(_mm256_loadu_ps(src + n - 8), a));
    }
  }
}

}  // namespace locus::cpu::conv_avx2

#else  // not x86: the GEMM path serves

namespace locus::cpu::conv_avx2 {
bool available() { return false; }
void pack_forward(const float*, int64_t, int64_t, float*) {}
void pack_grad_input(const float*, int64_t, int64_t, float*) {}
void forward(const float*, int64_t, int64_t, const float*, const int64_t*, const float*, float*, int64_t) {}
void grad_input(const float*, int64_t, int64_t, const float*, int64_t, const int64_t*, float*) {}
void grad_weight(const float*, int64_t, int64_t, const float*, const int64_t*, int64_t, float*) {}
void max_pool_rows(const float*, const int32_t*, float*, int64_t*, int64_t, int64_t) {}
void copy_rows(const float*, int64_t, float*, int64_t, int64_t, int64_t, const float*) {}
void shift_plane(const float*, int64_t, int64_t, float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                 int64_t) {}
bool lanes_suit(int64_t, int64_t) { return false; }
void transpose(const float*, int64_t, int64_t, float*, float*) {}
void grad_weight_lanes(const float*, int64_t, int64_t, const float*, const int64_t*, int64_t, float*) {}
void max_pool2x2(const float*, float*, int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t) {}
}  // namespace locus::cpu::conv_avx2

#endif
