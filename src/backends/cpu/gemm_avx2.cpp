// Float32 GEMM with AVX2 + FMA for small and medium products, without packing B: the AVX2
// counterpart of gemm_avx512.cpp (read its header comment for the why), for CPUs without
// AVX-512 such as AMD Zen 3. OpenBLAS packs A and B on every call and, for beta 0, first zeroes C
// in a pass of its own; for an MLP step's products (one side only 64 long) the two were 11 % of
// a whole Fashion-MNIST MLP epoch in a profile on Zen 3. Here:
//  - one broadcast tile for all: 6 rows x 2 vectors of 8 columns of C, 12 accumulators (with two
//    loads of B's row and one broadcast of A: 15 of the 16 ymm registers); per step of K two loads
//    of B's row and six broadcasts of A (a row of A for NN, six contiguous floats of A^T's row for
//    TN); masked loads and stores (vmaskmov) for the N tail, as a template variant. A panel of B
//    (kKc rows x 16 columns, 16 KB) is reused from L1 by every block of 6 rows; the panels after
//    the first along K add to C.
//  - NT (both operands contiguous along K): C^T = B A^T with the same tile, B's rows broadcast and
//    A^T, the small operand, transposed first into a per-thread buffer (8 x 8 blocks in registers);
//    for each block of 6 rows of B the tile walks C^T's 64-column panel in 16-column steps, so
//    the 6 rows' slice of B stays in L1 while A^T's panel (kKcNt x 64 floats) is reused for every
//    block. C^T's rows gather in a per-thread buffer and are written to C with alpha and beta
//    through 8 x 8 transposes in registers. (It only tied OpenBLAS on Zen 3, so routes() does not
//    send NT here; gemm() still serves it.)
// The pool splits the columns of C (rows of B for NT), so each thread reads only its own part of
// B, the larger operand in the weight products. Which shapes come here (routes()) was measured
// against OpenBLAS as gemm_f32 calls it, with bench/sgemm_route.cpp (docs/gemm.md).
#include "backends/cpu/gemm_avx2.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/gemm_avx512.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/line_vector.h"
#include "backends/cpu/parallel_for.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_AVX2 __attribute__((target("avx2,fma")))

namespace locus::cpu::gemm_avx2 {

bool available() {
  static const bool ok =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && convert_level() >= ConvertLevel::kAvx2;
  return ok;
}

namespace {

constexpr int kRows = 6;              // tile: rows of C (of C^T for NT)
constexpr int kVecs = 2;              // tile: vectors of 8 columns
constexpr int64_t kCols = 8 * kVecs;  // tile columns
constexpr int64_t kKc = 256;          // rows of B per panel for NN/TN (256 x 16 floats = 16 KB, in L1)
constexpr int64_t kKcNt = 96;         // rows of A^T per panel for NT (96 x 64 floats = 24 KB)
constexpr int64_t kNtPanel = 64;      // columns of C^T per NT panel
constexpr double kSplitFlops = 5e5;   // below this, one thread (as blas.cpp's kSplitMin)

// The first n (1 .. 8) lanes set, for vmaskmov.
LOCUS_AVX2 inline __m256i tail_mask(int n) {
  static const int32_t bits[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + 8 - n));
}

// Broadcast tile: c[i][0 .. 8V) (the last vector's first `tail` lanes only when Masked) = alpha *
// sum_p A(i, p) * b[p][..] + beta * c, for i < R; A(i, p) is a[i * lda + p], or a[p * lda + i]
// when TA. (Masked is a template argument: the masked load in the loop costs more than a plain one.)
template <int R, int V, bool TA, bool Masked>
LOCUS_AVX2 void bcast_tile(int64_t k, float alpha, const float* __restrict a, int64_t lda,
                           const float* __restrict b, int64_t ldb, float beta, float* __restrict c, int64_t ldc,
                           int tail) {
  const __m256i mask = Masked ? tail_mask(tail) : _mm256_set1_epi32(-1);
  __m256 acc[R][V];
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[i][v] = _mm256_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    __m256 bv[V];
#pragma GCC unroll 2
    for (int v = 0; v + 1 < V; ++v) bv[v] = _mm256_loadu_ps(bp + 8 * v);
    bv[V - 1] = Masked ? _mm256_maskload_ps(bp + 8 * (V - 1), mask) : _mm256_loadu_ps(bp + 8 * (V - 1));
#pragma GCC unroll 6
    for (int i = 0; i < R; ++i) {
      const __m256 ai = _mm256_broadcast_ss(TA ? a + p * lda + i : a + i * lda + p);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {
      float* cp = c + i * ldc + 8 * v;
      __m256 r = _mm256_mul_ps(va, acc[i][v]);
      if (Masked && v + 1 == V) {
        if (beta != 0) r = _mm256_fmadd_ps(vb, _mm256_maskload_ps(cp, mask), r);
        _mm256_maskstore_ps(cp, mask, r);
      } else {
        if (beta != 0) r = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cp), r);
        _mm256_storeu_ps(cp, r);
      }
    }
}

// Tables of the tile instantiations: [rows - 1][vectors - 1].
using BcFn = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t, int);

template <bool TA, bool Masked, int R, int... V>
constexpr auto bc_row(std::integer_sequence<int, V...>) {
  return std::array<BcFn, sizeof...(V)>{&bcast_tile<R, V + 1, TA, Masked>...};
}
template <bool TA, bool Masked, int... R>
constexpr auto bc_table(std::integer_sequence<int, R...>) {
  return std::array{bc_row<TA, Masked, R + 1>(std::make_integer_sequence<int, kVecs>())...};
}
// [A transposed][N tail masked][rows - 1][vectors - 1]
constexpr std::array kBc = {
    std::array{bc_table<false, false>(std::make_integer_sequence<int, kRows>()),
               bc_table<false, true>(std::make_integer_sequence<int, kRows>())},
    std::array{bc_table<true, false>(std::make_integer_sequence<int, kRows>()),
               bc_table<true, true>(std::make_integer_sequence<int, kRows>())}};

// The tile for nc (1 .. 16) columns: its table entry and the lanes of its last vector.
struct Cols {
  int vecs, tail;
  explicit Cols(int64_t nc) : vecs(static_cast<int>((nc + 7) / 8)), tail(static_cast<int>(nc - 8 * ((nc + 7) / 8 - 1))) {}
};

// NN/TN on columns [j0, j1) of C: panels of kKc rows x 16 columns of B, each against every 6-row
// block of C; the panels after the first along K add to C (beta 1).
void gemm_bc(bool ta, int64_t m, int64_t j0, int64_t j1, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t j = j0; j < j1; j += kCols) {
    const Cols cols(std::min<int64_t>(kCols, j1 - j));
    const auto& table = kBc[ta][cols.tail != 8];
    int64_t p = 0;
    do {
      const int64_t kc = std::min<int64_t>(kKc, k - p);
      const float bt = p == 0 ? beta : 1.0f;
      for (int64_t i = 0; i < m; i += kRows) {
        const int64_t mr = std::min<int64_t>(kRows, m - i);
        const float* ap = ta ? a + p * lda + i : a + i * lda + p;
        table[mr - 1][cols.vecs - 1](kc, alpha, ap, lda, b + p * ldb + j, ldb, bt, c + i * ldc + j, ldc, cols.tail);
      }
      p += kc;
    } while (p < k);
  }
}

// One 8 x 8 block in registers: at[c * ldt + r] = a[r * lda + c].
LOCUS_AVX2 inline void transpose8(const float* a, int64_t lda, float* at, int64_t ldt) {
  __m256 r[8], t[8], s[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(a + i * lda);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {  // per 128-bit half: [x0 y0 x1 y1] and [x2 y2 x3 y3] of rows 2i, 2i+1
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {  // s[4h + q]: rows 4h .. 4h+3 of column q (low half) and q + 4 (high)
    s[4 * h] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
    s[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xee);
    s[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
    s[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    _mm256_storeu_ps(at + q * ldt, _mm256_permute2f128_ps(s[q], s[4 + q], 0x20));
    _mm256_storeu_ps(at + (q + 4) * ldt, _mm256_permute2f128_ps(s[q], s[4 + q], 0x31));
  }
}

// at[p * ldt + i] = a[i * lda + p] for i < m and p < k: 8 x 8 blocks in registers, the edges one
// element at a time.
LOCUS_AVX2 void transpose_a(const float* a, int64_t lda, int64_t m, int64_t k, float* at, int64_t ldt) {
  for (int64_t i0 = 0; i0 < m; i0 += 8) {
    const int64_t rows = std::min<int64_t>(8, m - i0);
    for (int64_t p = 0; p < k; p += 8) {
      const int64_t cols = std::min<int64_t>(8, k - p);
      if (rows == 8 && cols == 8) {
        transpose8(a + i0 * lda + p, lda, at + p * ldt + i0, ldt);
        continue;
      }
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) at[(p + c) * ldt + i0 + r] = a[(i0 + r) * lda + p + c];
    }
  }
}

// c[i * ldc + j] = alpha * ct[(j - j0) * ldt + i] + beta * c[i * ldc + j] (beta 0: C not read) for
// i < m, j in [j0, j1): 8 x 8 blocks transposed in registers, the edges one element at a time.
LOCUS_AVX2 void write_transposed(const float* ct, int64_t ldt, int64_t m, int64_t j0, int64_t j1, float alpha,
                                 float beta, float* c, int64_t ldc) {
  auto one = [&](int64_t i, int64_t j) {
    float& ci = c[i * ldc + j];
    ci = beta == 0 ? alpha * ct[(j - j0) * ldt + i] : alpha * ct[(j - j0) * ldt + i] + beta * ci;
  };
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  alignas(32) float blk[64];
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    int64_t j = j0;
    for (; j + 8 <= j1; j += 8) {
      transpose8(ct + (j - j0) * ldt + i, ldt, blk, 8);  // blk's row q: C's row i + q, columns j .. j + 7
#pragma GCC unroll 8
      for (int q = 0; q < 8; ++q) {
        float* cp = c + (i + q) * ldc + j;
        __m256 r = _mm256_mul_ps(va, _mm256_load_ps(blk + 8 * q));
        if (beta != 0) r = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cp), r);
        _mm256_storeu_ps(cp, r);
      }
    }
    for (int64_t q = i; q < i + 8; ++q)
      for (int64_t jj = j; jj < j1; ++jj) one(q, jj);
  }
  for (; i < m; ++i)
    for (int64_t j = j0; j < j1; ++j) one(i, j);
}

// NT as C^T = B A^T on columns [j0, j1) of C, from at = A^T (k x ldt, transpose_a): the broadcast
// tiles with B's rows as the broadcast side, on 64-column panels of C^T and kKcNt-row panels of
// at, into a buffer of C^T's rows (ct), then written to C transposed with alpha and beta.
void gemm_nt_transposed(int64_t m, int64_t j0, int64_t j1, int64_t k, float alpha, const float* at, int64_t ldt,
                        const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  static thread_local LineVector<float> buf;
  const int64_t rows = j1 - j0;
  if (buf.size() < static_cast<size_t>(rows * ldt)) buf.resize(static_cast<size_t>(rows * ldt));
  float* ct = buf.data();
  for (int64_t i = 0; i < m; i += kNtPanel) {
    const int64_t nc = std::min<int64_t>(kNtPanel, m - i);
    int64_t p = 0;
    do {
      const int64_t kc = std::min<int64_t>(kKcNt, k - p);
      const float bt = p == 0 ? 0.0f : 1.0f;
      for (int64_t j = j0; j < j1; j += kRows) {
        const int64_t r = std::min<int64_t>(kRows, j1 - j);
        for (int64_t s = 0; s < nc; s += kCols) {
          const Cols cols(std::min<int64_t>(kCols, nc - s));
          kBc[false][cols.tail != 8][r - 1][cols.vecs - 1](kc, 1.0f, b + j * ldb + p, ldb, at + p * ldt + i + s, ldt,
                                                          bt, ct + (j - j0) * ldt + i + s, ldt, cols.tail);
        }
      }
      p += kc;
    } while (p < k);
  }
  write_transposed(ct, ldt, m, j0, j1, alpha, beta, c, ldc);
}

}  // namespace

bool routes(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
  if (!available() || gemm_avx512::available() || (trans_a && trans_b)) return false;
  // measured with bench/sgemm_route on Zen 3 (docs/gemm.md): NN and TN ahead of OpenBLAS where K is
  // short, 1.7-2.2x for the MLP's weight gradients (k = 64) and 1.8x for its input gradient
  // (k = 128), 1.3x at 64 x 784 x 256, 2-3.7x at k = 10 (OpenBLAS's zeroing pass and packing are
  // most of its time there); behind from k = 256 with more than 64 rows (256 cubed 0.86x) and on
  // the large products (nn_512 0.72x). NT (Linear's forward) only tied, 0.96-0.98x: it stays there.
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (trans_b || m < 8 || n < 16 || flops > 40e6) return false;
  return k <= 128 || (k <= 256 && m <= 64);
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
    // each thread transposes all of A (short) into its own buffer, as gemm_avx512.cpp measured best
    const int64_t ldt = (m + 7) / 8 * 8;
    auto run = [&](int64_t lo, int64_t hi) {
      scratch_fault_point();
      static thread_local LineVector<float> at_buf;
      if (at_buf.size() < static_cast<size_t>(k * ldt)) at_buf.resize(static_cast<size_t>(k * ldt));
      float* at = at_buf.data();
      transpose_a(a, lda, m, k, at, ldt);
      gemm_nt_transposed(m, lo * kRows, std::min(n, hi * kRows), k, alpha, at, ldt, b, ldb, beta, c, ldc);
    };
    const int64_t units = (n + kRows - 1) / kRows;
    if (flops < kSplitFlops)
      run(0, units);
    else
      parallel_for(0, units, 1, run);
    return;
  }
  auto run = [&](int64_t lo, int64_t hi) {  // shares of whole 16-column tiles
    gemm_bc(trans_a, m, lo * kCols, std::min(n, hi * kCols), k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  const int64_t units = (n + kCols - 1) / kCols;
  if (flops < kSplitFlops)
    run(0, units);
  else
    parallel_for(0, units, 1, run);
}

}  // namespace locus::cpu::gemm_avx2

#else  // not x86: OpenBLAS serves

namespace locus::cpu::gemm_avx2 {
bool available() { return false; }
bool routes(bool, bool, int64_t, int64_t, int64_t) { return false; }
void gemm(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float, float*,
          int64_t) {}
}  // namespace locus::cpu::gemm_avx2

#endif
