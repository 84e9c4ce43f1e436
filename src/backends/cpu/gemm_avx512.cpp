// Float32 GEMM with AVX-512F for small and medium products, without packing B.
//
// What for: an MLP training step (Fashion-MNIST 784-256-128-10, batch 64) makes products such as
// 64x256x784 with B transposed (forward: y = x W^T, as addmm with beta 1), 256x784x64 with A
// transposed (weight gradient dY^T X) and 64x256x128 plain (input gradient dY W). OpenBLAS packs
// A and B on every call; at these sizes (one side only 64 long) packing the 784x256 weight,
// 800 KB, costs a large share of the product it is for. Here the larger operand is read where it
// lies:
//  - one broadcast tile for all: 6 rows x 4 vectors of 16 columns of C, 24 accumulators; per
//    step of K four loads of B's row and six broadcasts of A (a row of A for NN, six contiguous
//    floats of A^T's row for TN); masked loads and stores for the N tail (a template variant,
//    as a masked load in the loop costs a vector port). A panel of B (kKc rows x 64 columns,
//    32 KB) is reused from L1 by every block of 6 rows; the panels after the first along K add
//    to C.
//  - NT (both operands contiguous along K): C^T = B A^T with the same tile, B's rows broadcast
//    and A^T, the small operand (64 x 784 floats for the MLP), transposed first into a buffer
//    (16 x 16 blocks in registers; each thread transposes all of A into its own buffer, which
//    measured 0.8-0.9x the time of sharing one transposed on both threads at 64x256x784: the
//    shared one's lines crossed between the cores); C^T's rows gather in a per-thread buffer
//    and are written to C transposed with alpha and beta. Measured against a 3 x 8 dot-product
//    tile (24 accumulators along K, one horizontal sum per element): 1.25-1.35x OpenBLAS on the
//    MLP's forward against 1.0-1.05x, the B block of the dot tile not staying in L1 while A
//    streamed past it.
// The pool splits the columns of C (rows of B for NT), so each thread reads only its own part of
// B, the larger operand in the weight products. Which shapes come here (routes()) was measured
// against OpenBLAS as gemm_f32 calls it, with bench/sgemm_route.cpp (docs/gemm.md).
#include "backends/cpu/gemm_avx512.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/line_vector.h"
#include "backends/cpu/parallel_for.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))
// GCC 12's intrinsics (unpack, shuffle_f32x4, extract) pass _mm512_undefined_ps(), a
// self-initialised variable, which -Wuninitialized reports once they are inlined here
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace locus::cpu::gemm_avx512 {

bool available() {
  static const bool ok = __builtin_cpu_supports("avx512f") &&
                         parse_convert_level(std::getenv("LOCUS_CPU_ISA")) >= ConvertLevel::kAvx512Bf16;
  return ok;
}

namespace {

constexpr int kBcRows = 6;     // tile: rows of C (of C^T for NT)
constexpr int kBcVecs = 4;     // tile: vectors of 16 columns
constexpr int64_t kKc = 128;   // rows of B per panel (kKc x 64 floats = 32 KB, in L1)
constexpr double kSplitFlops = 5e5;  // below this, one thread (as blas.cpp's kSplitMin)
constexpr double kRowSplitB = 256 * 1024;  // NN/TN: split C by rows when B is at most this (bytes)

LOCUS_AVX512 inline __mmask16 tail_mask(int64_t n) {  // the first min(n, 16) lanes
  return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
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
using BcFn = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t, __mmask16);

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
    do {
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

// One 16 x 16 block: at[(p + c) * ldt + i0 + r] = a[(i0 + r) * lda + p + c] for r < rows, c < cols
// (rows beyond give zeros); Full (rows == cols == 16, the common case) without the tests.
template <bool Full>
LOCUS_AVX512 inline void transpose_block(const float* a, int64_t lda, int64_t rows, int64_t cols, float* at,
                                         int64_t ldt) {
  const __mmask16 km = tail_mask(cols);
  __m512 r[16], t[16], u[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i)
    r[i] = Full ? _mm512_loadu_ps(a + i * lda)
                : i < rows ? _mm512_maskz_loadu_ps(km, a + i * lda) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {  // per 128-bit lane L: [x 4L, y 4L, x 4L+1, y 4L+1] and the 2, 3 ones
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {  // u[4i + q], lane L: rows 4i .. 4i+3 of column 4L + q
    u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {  // column 4L + q: lane L of u[q], u[4+q], u[8+q], u[12+q]
    const __m512 v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x44), v1 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xee);
    const __m512 w0 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x44);
    const __m512 w1 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xee);
    const __m512 col[4] = {_mm512_shuffle_f32x4(v0, w0, 0x88), _mm512_shuffle_f32x4(v0, w0, 0xdd),
                           _mm512_shuffle_f32x4(v1, w1, 0x88), _mm512_shuffle_f32x4(v1, w1, 0xdd)};
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l)
      if (Full || 4 * l + q < cols) _mm512_storeu_ps(at + (4 * l + q) * ldt, col[l]);
  }
}

// at[p * ldt + i] = a[i * lda + p] for i < m and p in [p0, p1) (p0 a multiple of 16), 16 x 16
// blocks transposed in registers; lanes of at from m up to the next multiple of 16 get zeros.
LOCUS_AVX512 void transpose_a(const float* a, int64_t lda, int64_t m, int64_t p0, int64_t p1, float* at,
                              int64_t ldt) {
  for (int64_t i0 = 0; i0 < m; i0 += 16) {  // along A's rows: each load and store a steady stride
    const int64_t rows = std::min<int64_t>(16, m - i0);
    for (int64_t p = p0; p < p1; p += 16) {
      const int64_t cols = std::min<int64_t>(16, p1 - p);
      if (rows == 16 && cols == 16)
        transpose_block<true>(a + i0 * lda + p, lda, 16, 16, at + p * ldt + i0, ldt);
      else
        transpose_block<false>(a + i0 * lda + p, lda, rows, cols, at + p * ldt + i0, ldt);
    }
  }
}

// Software prefetch of B's rows in the NT product, one 6-row block ahead, when a thread's share
// of B is larger than kPrefetchFrom bytes. Each block reads kc floats of six rows that lie ldb
// floats apart, a few lines per 4 KiB page: too short a run for the hardware's stream prefetchers,
// so with B far larger than L2 (a 4096 x 4096 Linear weight: 32 MiB a thread) every block started
// on misses. Measured on an Intel Xeon (AVX-512, 2 vCPUs; docs/gemm.md): 64 x 4096 x 4096 from
// 10.0-11.2 to 9.4-9.9 ms a call (bench/side_by_side's linear_4096_b64_f), while at 64 x 1024 x
// 1024 and 64 x 2048 x 2048 (2 and 8 MiB a thread) it cost 7 % (bench/sgemm_route): off there.
// Towards L2 (_MM_HINT_T1): ahead of L1's hint by a little in the same runs.
constexpr int64_t kPrefetchFrom = int64_t{16} << 20;

// The lines holding [row, row + cols) of `rows` rows ldb floats apart.
inline void prefetch_rows(const float* b, int64_t rows, int64_t ldb, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const auto lo = reinterpret_cast<uintptr_t>(b + r * ldb) & ~uintptr_t{63};
    const auto hi = reinterpret_cast<uintptr_t>(b + r * ldb + cols);
    for (uintptr_t l = lo; l < hi; l += 64) _mm_prefetch(reinterpret_cast<const char*>(l), _MM_HINT_T1);
  }
}

// NT as C^T = B A^T on columns [j0, j1) of C, from at = A^T (k x ldt, transpose_a): the broadcast
// tiles with B's rows as the broadcast side, on 64-row panels of C and kKc-row panels of at (in
// L1), into a buffer of C^T's rows (ct), then written to C transposed with alpha and beta.
void gemm_nt_transposed(int64_t m, int64_t j0, int64_t j1, int64_t k, float alpha, const float* at, int64_t ldt,
                        const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  static thread_local LineVector<float> buf;
  const int64_t rows = j1 - j0;
  if (buf.size() < static_cast<size_t>(rows * ldt)) buf.resize(static_cast<size_t>(rows * ldt));
  float* ct = buf.data();
  const bool prefetch = rows * k * static_cast<int64_t>(sizeof(float)) > kPrefetchFrom;
  constexpr int64_t kPanel = 16 * kBcVecs;
  for (int64_t i = 0; i < m; i += kPanel) {
    const int64_t nc = std::min<int64_t>(kPanel, m - i);
    const int64_t vecs = (nc + 15) / 16;
    const __mmask16 last = tail_mask(nc - 16 * (vecs - 1));
    const auto& table = kBc[false][last != 0xffff];
    int64_t p = 0;
    do {
      const int64_t kc = std::min<int64_t>(kKc, k - p);
      for (int64_t j = j0; j < j1; j += kBcRows) {
        const int64_t r = std::min<int64_t>(kBcRows, j1 - j);
        if (prefetch && j + kBcRows < j1)
          prefetch_rows(b + (j + kBcRows) * ldb + p, std::min<int64_t>(kBcRows, j1 - j - kBcRows), ldb, kc);
        table[r - 1][vecs - 1](kc, 1.0f, b + j * ldb + p, ldb, at + p * ldt + i, ldt, p == 0 ? 0.0f : 1.0f,
                               ct + (j - j0) * ldt + i, ldt, last);
      }
      p += kc;
    } while (p < k);
  }
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * ldc;
    if (beta == 0)
      for (int64_t j = j0; j < j1; ++j) ci[j] = alpha * ct[(j - j0) * ldt + i];
    else
      for (int64_t j = j0; j < j1; ++j) ci[j] = alpha * ct[(j - j0) * ldt + i] + beta * ci[j];
  }
}

}  // namespace

bool routes(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
  if (!available() || (trans_a && trans_b)) return false;
  // measured with bench/sgemm_route (docs/gemm.md): ahead of OpenBLAS up to a few tens of MFLOP
  // (larger ones, as 512 squares, gain from its packing), with at least 16 rows and columns; NT
  // (A transposed into a buffer first) only for short A (m <= 128) and k of 512 to 1024, and at
  // any size for A of at most 64 rows and k from 256 (a Linear layer's forward on a batch of up to
  // 64: 64 x 4096 x 4096 in 0.75-0.85x OpenBLAS's time, 16 and 32 rows 0.77x, 64 x 2048 x 2048
  // 0.77-0.81x; 96 rows lost, 1.2x; since each thread transposes A itself, 64 x 256 x 128 0.85-0.97x,
  // 32 x 256 x 1024 0.7-0.8x, 16 x 256 x 256 0.5-0.75x, while k = 128 still lost, 1.1x at
  // 64 x 128 x 1024); NN and TN from k = 16 (below, both are bound by writing C)
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (m < 16 || n < 16) return false;
  if (trans_b && m <= 64 && k >= 256) return true;
  if (flops > 40e6) return false;
  if (trans_b) return m <= 128 && k >= 512 && k <= 1024;
  return k >= 16;
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = beta * C, A and B not touched (they may be empty: no pointer into them is formed)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (trans_b) {
    // Each thread transposes all of A into its own buffer (A is short: m <= 128): the transposed
    // lines stay in that core's cache, instead of half of them being read from the other core's
    // after a shared transpose (and invalidated there by the next call's), and one parallel
    // region serves instead of two.
    const int64_t ldt = (m + 15) / 16 * 16;
    auto run = [&](int64_t lo, int64_t hi) {
      scratch_fault_point();
      static thread_local LineVector<float> at_buf;
      if (at_buf.size() < static_cast<size_t>(k * ldt)) at_buf.resize(static_cast<size_t>(k * ldt));
      float* at = at_buf.data();
      transpose_a(a, lda, m, 0, k, at, ldt);
      gemm_nt_transposed(m, lo * kBcRows, std::min(n, hi * kBcRows), k, alpha, at, ldt, b, ldb, beta, c, ldc);
    };
    const int64_t units = (n + kBcRows - 1) / kBcRows;
    if (flops < kSplitFlops)
      run(0, units);
    else
      parallel_for(0, units, 1, run);
    return;
  }
  // Threads take shares of C's rows (blocks of 8) where each can read all of B (at most
  // kRowSplitB bytes) and C has 32 rows or more, else shares of whole 16-column vectors. By rows,
  // each thread writes whole rows of C, as the ops after it (elementwise, Adam) split it: in the
  // MLP's step Adam took 0.9x the time when the weight gradient (256 x 784 x 64) was split so;
  // bench/sgemm_route on the Intel Xeon model 167 (docs/gemm.md): 128 and 256 squares, 128 x 256
  // x 64 and 64 x 1568 x 10 1.1-1.45x the GFLOP/s, 64 x 256 x 784 (B 784 KB) 0.93x, hence the bound.
  if (flops >= kSplitFlops && m >= 32 && static_cast<double>(k) * static_cast<double>(n) * sizeof(float) <= kRowSplitB) {
    auto run_rows = [&](int64_t lo, int64_t hi) {
      const int64_t r0 = lo * 8, r1 = std::min(m, hi * 8);
      gemm_bc(trans_a, r1 - r0, 0, n, k, alpha, trans_a ? a + r0 : a + r0 * lda, lda, b, ldb, beta, c + r0 * ldc, ldc);
    };
    parallel_for(0, (m + 7) / 8, 1, run_rows);
    return;
  }
  auto run = [&](int64_t lo, int64_t hi) {  // shares of whole 16-column vectors
    gemm_bc(trans_a, m, lo * 16, std::min(n, hi * 16), k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  const int64_t units = (n + 15) / 16;
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
