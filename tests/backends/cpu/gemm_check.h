#pragma once
// The float32 GEMM kernels' checks (tests/backends/cpu/gemm_avx512_test.cpp, gemm_avx2_test.cpp):
// one product against a triple loop in double, and the shape sweeps both kernel sets run: M/N/K
// tails 1..17, K = 0, panels and multiples of 16, the MLP step's shapes, padded row strides,
// alpha != 1 and beta 0 (over NaN), 1 and other, for NN, TN and NT.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace locus_test_gemm {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;  // added to every row stride
  float alpha, beta;
};

inline std::string name(const Case& c) {
  return std::string(c.ta ? "T" : "N") + (c.tb ? "T" : "N") + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " pad=" + std::to_string(c.pad) +
         " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta);
}

// Runs one case through `fn` (gemm_avx512::gemm or cpu::gemm_f32) and checks C against double
// sums: every element within a bound on float rounding of its terms; C's padding untouched.
template <class Fn>
void check(const Case& c, uint32_t seed, Fn&& fn) {
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const int64_t lda = a_cols + c.pad, ldb = b_cols + c.pad, ldc = c.n + c.pad;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  // exactly sized buffers: a read past the last row's end would show under ASan
  std::vector<float> a(static_cast<size_t>(a_rows > 0 ? (a_rows - 1) * lda + a_cols : 0));
  std::vector<float> b(static_cast<size_t>(b_rows > 0 ? (b_rows - 1) * ldb + b_cols : 0));
  std::vector<float> cm(static_cast<size_t>((c.m - 1) * ldc + c.n));
  for (float& x : a) x = u(rng);
  for (float& x : b) x = u(rng);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < ldc && i * ldc + j < static_cast<int64_t>(cm.size()); ++j)
      cm[i * ldc + j] = j >= c.n ? 7.0f : c.beta == 0 ? nan : u(rng);  // beta 0 must overwrite NaN
  const std::vector<float> c0 = cm;
  fn(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a.data(), lda, b.data(), ldb, c.beta, cm.data(), ldc);
  auto A = [&](int64_t i, int64_t p) { return double(c.ta ? a[p * lda + i] : a[i * lda + p]); };
  auto B = [&](int64_t p, int64_t j) { return double(c.tb ? b[j * ldb + p] : b[p * ldb + j]); };
  int bad = 0;
  for (int64_t i = 0; i < c.m && bad < 5; ++i)
    for (int64_t j = 0; j < ldc && i * ldc + j < static_cast<int64_t>(cm.size()); ++j) {
      const float got = cm[i * ldc + j];
      if (j >= c.n) {  // padding
        if (got != 7.0f) ADD_FAILURE() << name(c) << ": wrote C's padding at " << i << "," << j, ++bad;
        continue;
      }
      double sum = 0, mag = 0;
      for (int64_t p = 0; p < c.k; ++p) sum += A(i, p) * B(p, j), mag += std::abs(A(i, p) * B(p, j));
      const double old = c.beta == 0 ? 0.0 : double(c0[i * ldc + j]);
      const double want = double(c.alpha) * sum + double(c.beta) * old;
      const double tol = 2e-7 * double(c.k + 4) * (std::abs(c.alpha) * mag + std::abs(c.beta * old)) + 1e-30;
      if (!(std::abs(got - want) <= tol))
        ADD_FAILURE() << name(c) << ": C[" << i << "," << j << "] = " << got << ", want " << want, ++bad;
    }
}

using GemmFn = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t,
                       float, float*, int64_t);

constexpr bool kTransposes[][2] = {{false, false}, {true, false}, {false, true}};  // NN, TN, NT

// Every m, n in 1..17 with K = 0, 1, 16, 17 (K tails and a whole vector), alpha 1.5, beta cycling
// 0, 1, -0.5 and strides cycling dense and padded.
inline void tails_one_to_seventeen(GemmFn fn) {
  const float betas[] = {0.0f, 1.0f, -0.5f};
  int idx = 0;
  for (auto [ta, tb] : kTransposes)
    for (int64_t k : {0, 1, 16, 17})
      for (int64_t m = 1; m <= 17; ++m)
        for (int64_t n = 1; n <= 17; ++n, ++idx)
          check({ta, tb, m, n, k, idx % 2 == 0 ? 0 : 3, 1.5f, betas[idx % 3]}, static_cast<uint32_t>(idx), fn);
}

// Wider N and K around the tiles and panels (N: 8- and 16-column vectors, 16- and 64-column
// panels, 6-row NT blocks; K: 96-, 128- and 256-row panels), and multiples of 16.
inline void panels_and_multiples_of_16(GemmFn fn) {
  const float betas[] = {0.0f, 1.0f, 0.25f};
  int idx = 0;
  for (auto [ta, tb] : kTransposes)
    for (int64_t m : {5, 16, 19, 48, 70})
      for (int64_t n : {15, 16, 31, 33, 64, 65, 79, 128})
        for (int64_t k : {2, 15, 31, 32, 95, 97, 127, 128, 129, 257}) {
          check({ta, tb, m, n, k, idx % 2 == 0 ? 0 : 5, idx % 4 == 0 ? 1.0f : -0.75f, betas[idx % 3]},
                static_cast<uint32_t>(1000 + idx), fn);
          ++idx;
        }
}

// The MLP step's products (784-256-128-10, batch 64) as the Linear layers make them, large enough
// to be split over the pool; the weight gradients with beta 1 as well (accumulation).
inline void mlp_shapes(GemmFn fn) {
  const Case cases[] = {
      {false, true, 64, 256, 784, 0, 1.0f, 0.0f},  {true, false, 256, 784, 64, 0, 1.0f, 0.0f},
      {true, false, 256, 784, 64, 0, 1.0f, 1.0f},  {false, true, 64, 128, 256, 0, 1.0f, 0.0f},
      {false, false, 64, 256, 128, 0, 1.0f, 0.0f}, {true, false, 128, 256, 64, 0, 1.0f, 1.0f},
      {false, true, 64, 10, 128, 0, 1.0f, 0.0f},   {false, false, 64, 128, 10, 0, 1.0f, 0.0f},
      {true, false, 10, 128, 64, 0, 1.0f, 0.0f},   {false, false, 64, 784, 256, 0, 1.0f, 0.0f},
      {false, true, 64, 256, 784, 9, 0.5f, 2.0f},  {true, false, 256, 784, 64, 1, -1.0f, 0.5f},
      {false, false, 64, 1568, 10, 0, 1.0f, 0.0f}, {true, false, 10, 1568, 64, 0, 1.0f, 0.0f},
  };
  uint32_t seed = 77;
  for (const Case& c : cases) check(c, seed++, fn);
}

}  // namespace locus_test_gemm
