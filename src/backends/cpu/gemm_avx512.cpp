// Float32 GEMM with AVX-512F/VL for small and medium products, with no packing.
//
// What for: an MLP training step (Fashion-MNIST 784-256-128-10, batch 64) makes products such as
// 64x256x784 with B transposed (forward: y = x W^T), 256x784x64 with A transposed (weight
// gradient dY^T X) and 64x256x128 plain (input gradient dY W). OpenBLAS packs A and B on every
// call; at these sizes (one operand only 64 rows or columns) packing the 784x256 weight, 800 KB,
// costs about as much as the product it is used for. These kernels read both operands where
// they lie:
//  - NT (A and B both contiguous along K): a dot-product tile of 3 rows of A x 8 rows of B,
//    24 accumulators of 16 partial sums along K (masked loads for the K tail), summed
//    horizontally once at the end (8 accumulators into one 8-float row of C at a time). The 8
//    rows of B (8 x K floats: 25 KB at K = 784) stay in L1 while A's rows stream from L2.
//  - NN and TN (B contiguous along N): a broadcast tile of 6 rows x 4 vectors of 16 columns,
//    24 accumulators; per step of K, four loads of B's row and six broadcasts of A (a row of A
//    for NN, six contiguous floats of A^T's row for TN); masked loads and stores for the N tail.
//    A panel of B (kKc rows x 64 columns) is reused from L1 by every block of 6 rows.
// The pool splits the columns of C (rows of B for NT), so each thread reads only its own part of
// B, the larger operand in the weight products. Which shapes come here (routes()) was measured
// against OpenBLAS as gemm_f32 calls it, with bench/sgemm_route.cpp (docs/gemm.md).
#include "backends/cpu/gemm_avx512.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#include "backends/cpu/convert.h"
#include "backends/cpu/parallel_for.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
// GCC 12's intrinsics (unpack, shuffle_f32x4, extract) pass _mm512_undefined_ps(), a
// self-initialised variable, which -Wuninitialized reports once they are inlined here
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace locus::cpu::gemm_avx512 {

bool available() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                         parse_convert_level(std::getenv("LOCUS_CPU_ISA")) >= ConvertLevel::kAvx512Bf16;
  return ok;
}

namespace {

constexpr int kDotRows = 3;    // NT tile: rows of A
constexpr int kDotCols = 8;    // NT tile: rows of B (columns of C)
constexpr int kBcRows = 6;     // NN/TN tile: rows of C
constexpr int kBcVecs = 4;     // NN/TN tile: vectors of 16 columns
constexpr int64_t kKc = 128;   // NN/TN: rows of B per panel (kKc x 64 floats = 32 KB, in L1)
constexpr double kSplitFlops = 5e5;  // below this, one thread (as blas.cpp's kSplitMin)

LOCUS_AVX512 inline __mmask16 tail_mask(int64_t n) {  // the first min(n, 16) lanes
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// Per 128-bit lane: [x 0+2, y 0+2, x 1+3, y 1+3].
LOCUS_AVX512 __attribute__((always_inline)) inline __m512 pair(__m512 x, __m512 y) {
  return _mm512_add_ps(_mm512_unpacklo_ps(x, y), _mm512_unpackhi_ps(x, y));
}
// Of two pair()s (of v0, v1 and v2, v3), per 128-bit lane: that lane's sums of v0, v1, v2, v3.
LOCUS_AVX512 __attribute__((always_inline)) inline __m512 quad(__m512 x, __m512 y) {
  return _mm512_add_ps(_mm512_shuffle_ps(x, y, _MM_SHUFFLE(1, 0, 1, 0)), _mm512_shuffle_ps(x, y, _MM_SHUFFLE(3, 2, 3, 2)));
}

// [sum(v0), ..., sum(v7)]: the 8 horizontal sums in one transpose-and-add tree.
LOCUS_AVX512 __attribute__((always_inline)) inline __m256 hsum8(__m512 v0, __m512 v1, __m512 v2, __m512 v3, __m512 v4,
                                                                __m512 v5, __m512 v6, __m512 v7) {
  const __m512 q[2] = {quad(pair(v0, v1), pair(v2, v3)), quad(pair(v4, v5), pair(v6, v7))};
  // lanes [q0 l0+l1, q0 l2+l3, q1 l0+l1, q1 l2+l3], then [q0 total, q1 total] in 256 bits
  const __m512 z = _mm512_add_ps(_mm512_shuffle_f32x4(q[0], q[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm512_shuffle_f32x4(q[0], q[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512 w = _mm512_shuffle_f32x4(z, z, _MM_SHUFFLE(3, 1, 2, 0));
  return _mm256_add_ps(_mm512_castps512_ps256(w), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(w), 1)));
}

// acc[i][j] += a row i * b row j over 16 lanes of K; lanes outside the mask `m` (0: all of them)
// are not read. Plain loads when m is 0: a masked load takes a vector port on some cores.
template <int R, int C>
LOCUS_AVX512 __attribute__((always_inline)) inline void dot_step(__m512 (&acc)[R][kDotCols], const float* a,
                                                                 int64_t lda, const float* b, int64_t ldb,
                                                                 __mmask16 m) {
  auto load = [m](const float* q) LOCUS_AVX512 { return m == 0 ? _mm512_loadu_ps(q) : _mm512_maskz_loadu_ps(m, q); };
  __m512 av[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) av[i] = load(a + i * lda);
#pragma GCC unroll 8
  for (int j = 0; j < C; ++j) {
    __m512 bv = load(b + j * ldb);
    __asm__("" : "+v"(bv));  // one load, not one folded into each of the R FMAs
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) acc[i][j] = _mm512_fmadd_ps(av[i], bv, acc[i][j]);
  }
}

// NT tile: c[i][j] = alpha * dot(a row i, b row j) + beta * c[i][j] for i < R, j < C (<= 8).
template <int R, int C>
LOCUS_AVX512 void dot_tile(int64_t k, float alpha, const float* __restrict a, int64_t lda, const float* __restrict b,
                           int64_t ldb, float beta, float* __restrict c, int64_t ldc) {
  __m512 acc[R][kDotCols];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < kDotCols; ++j) acc[i][j] = _mm512_setzero_ps();
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) dot_step<R, C>(acc, a + p, lda, b + p, ldb, 0);
  if (p < k) dot_step<R, C>(acc, a + p, lda, b + p, ldb, tail_mask(k - p));  // masked: the K tail
  const __mmask8 cm = static_cast<__mmask8>((1u << C) - 1);
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
    __m256 r = _mm256_mul_ps(va, hsum8(acc[i][0], acc[i][1], acc[i][2], acc[i][3], acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    if (beta != 0) r = _mm256_fmadd_ps(vb, _mm256_maskz_loadu_ps(cm, c + i * ldc), r);
    _mm256_mask_storeu_ps(c + i * ldc, cm, r);
  }
}

// Broadcast tile: c[i][0 .. 16V) (the last vector masked by `last` when Masked) = alpha *
// sum_p A(i, p) * b[p][..] + beta * c, for i < R; A(i, p) is a[i * lda + p], or a[p * lda + i]
// when TA. (Masked is a template argument: a masked load in the loop costs a vector port.)
template <int R, int V, bool TA, bool Masked>
LOCUS_AVX512 void bcast_tile(int64_t k, float alpha, const float* __restrict a, int64_t lda,
                             const float* __restrict b, int64_t ldb, float beta, float* __restrict c, int64_t ldc,
                             __mmask16 last) {
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[i][v] = _mm512_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    __m512 bv[V];
#pragma GCC unroll 4
    for (int v = 0; v + 1 < V; ++v) bv[v] = _mm512_loadu_ps(bp + 16 * v);
    bv[V - 1] = Masked ? _mm512_maskz_loadu_ps(last, bp + 16 * (V - 1)) : _mm512_loadu_ps(bp + 16 * (V - 1));
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m512 ai = _mm512_set1_ps(TA ? a[p * lda + i] : a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __mmask16 m = Masked && v + 1 == V ? last : __mmask16(0xffff);
      float* cp = c + i * ldc + 16 * v;
      __m512 r = _mm512_mul_ps(va, acc[i][v]);
      if (beta != 0) r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m, cp), r);
      _mm512_mask_storeu_ps(cp, m, r);
    }
}

// Tables of the tile instantiations: [rows - 1][cols - 1].
using DotFn = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t);
using BcFn = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t, __mmask16);

template <int R, int... C>
constexpr auto dot_row(std::integer_sequence<int, C...>) {
  return std::array<DotFn, sizeof...(C)>{&dot_tile<R, C + 1>...};
}
template <int... R>
constexpr auto dot_table(std::integer_sequence<int, R...>) {
  return std::array{dot_row<R + 1>(std::make_integer_sequence<int, kDotCols>())...};
}
constexpr auto kDot = dot_table(std::make_integer_sequence<int, kDotRows>());

template <bool TA, bool Masked, int R, int... V>
constexpr auto bc_row(std::integer_sequence<int, V...>) {
  return std::array<BcFn, sizeof...(V)>{&bcast_tile<R, V + 1, TA, Masked>...};
}
template <bool TA, bool Masked, int... R>
constexpr auto bc_table(std::integer_sequence<int, R...>) {
  return std::array{bc_row<TA, Masked, R + 1>(std::make_integer_sequence<int, kBcVecs>())...};
}
// [A transposed][N tail masked][rows - 1][vectors - 1]
constexpr std::array kBc = {
    std::array{bc_table<false, false>(std::make_integer_sequence<int, kBcRows>()),
               bc_table<false, true>(std::make_integer_sequence<int, kBcRows>())},
    std::array{bc_table<true, false>(std::make_integer_sequence<int, kBcRows>()),
               bc_table<true, true>(std::make_integer_sequence<int, kBcRows>())}};

// NT on columns [j0, j1) of C: blocks of 8 rows of B (in L1), each against every 3-row block of A.
void gemm_nt(int64_t m, int64_t j0, int64_t j1, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
             int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t j = j0; j < j1; j += kDotCols) {
    const int64_t nc = std::min<int64_t>(kDotCols, j1 - j);
    for (int64_t i = 0; i < m; i += kDotRows) {
      const int64_t mr = std::min<int64_t>(kDotRows, m - i);
      kDot[mr - 1][nc - 1](k, alpha, a + i * lda, lda, b + j * ldb, ldb, beta, c + i * ldc + j, ldc);
    }
  }
}

// NN/TN on columns [j0, j1) of C: panels of kKc rows x 64 columns of B, each against every 6-row
// block of C; the panels after the first along K add to C (beta 1).
void gemm_bc(bool ta, int64_t m, int64_t j0, int64_t j1, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  constexpr int64_t kPanel = 16 * kBcVecs;
  for (int64_t j = j0; j < j1; j += kPanel) {
    const int64_t nc = std::min<int64_t>(kPanel, j1 - j);
    const int64_t vecs = (nc + 15) / 16;
    const __mmask16 last = tail_mask(nc - 16 * (vecs - 1));
    const auto& table = kBc[ta][last != 0xffff];
    int64_t p = 0;
    do {  // once at least, so that k == 0 still gives C = beta * C
      const int64_t kc = std::min<int64_t>(kKc, k - p);
      const float bt = p == 0 ? beta : 1.0f;
      for (int64_t i = 0; i < m; i += kBcRows) {
        const int64_t mr = std::min<int64_t>(kBcRows, m - i);
        const float* ap = ta ? a + p * lda + i : a + i * lda + p;
        table[mr - 1][vecs - 1](kc, alpha, ap, lda, b + p * ldb + j, ldb, bt, c + i * ldc + j, ldc, last);
      }
      p += kc;
    } while (p < k);
  }
}

}  // namespace

bool routes(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
  if (!available() || (trans_a && trans_b)) return false;
  // measured with bench/sgemm_route (docs/gemm.md): ahead of OpenBLAS up to a few tens of MFLOP
  // (larger ones, as 512 squares, gain from its packing), with at least 16 rows and columns; NT
  // (dot products, one horizontal sum per element) only for short A (m <= 128) and k of 128 to
  // 1024; NN and TN from k = 16 (below, both are bound by writing C)
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (m < 16 || n < 16 || flops > 40e6) return false;
  if (trans_b) return m <= 128 && k >= 128 && k <= 1024;
  return k >= 16;
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const bool dot = !trans_a && trans_b;
  const int64_t unit = dot ? kDotCols : 16;  // columns of C per share: whole tiles
  auto run = [&](int64_t lo, int64_t hi) {
    const int64_t j0 = lo * unit, j1 = std::min(n, hi * unit);
    if (dot)
      gemm_nt(m, j0, j1, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
      gemm_bc(trans_a, m, j0, j1, k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  const int64_t units = (n + unit - 1) / unit;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (flops < kSplitFlops)
    run(0, units);
  else
    parallel_for(0, units, 1, run);
}

}  // namespace locus::cpu::gemm_avx512

#else  // not x86: OpenBLAS serves

namespace locus::cpu::gemm_avx512 {
bool available() { return false; }
bool routes(bool, bool, int64_t, int64_t, int64_t) { return false; }
void gemm(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float, float*,
          int64_t) {}
}  // namespace locus::cpu::gemm_avx512

#endif
