// locus::cpu::gemm_f32 / gemm_f64 against a naive triple loop in double precision.
#include "backends/cpu/blas.h"
#include "locus/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace blas_test {

namespace {

using locus::cpu::gemm_f32;
using locus::cpu::gemm_f64;

template <class T>
void gemm_any(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
              int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    gemm_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    gemm_f64(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// One problem: op(A) is m x k, op(B) is k x n; A, B and C are stored row-major with padded row strides.
template <class T>
struct Problem {
  bool ta, tb;
  int64_t m, n, k, lda, ldb, ldc;
  std::vector<T> a, b, c;

  Problem(bool ta_, bool tb_, int64_t m_, int64_t n_, int64_t k_, int64_t pad, uint32_t seed)
      : ta(ta_), tb(tb_), m(m_), n(n_), k(k_) {
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
    const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
    lda = a_cols + pad;
    ldb = b_cols + pad;
    ldc = n + pad;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    // The padding holds NaN: a GEMM that reads or writes past the logical width shows it.
    const T nan = std::numeric_limits<T>::quiet_NaN();
    a.assign(size_t(std::max<int64_t>(a_rows * lda, 1)), nan);
    b.assign(size_t(std::max<int64_t>(b_rows * ldb, 1)), nan);
    c.assign(size_t(std::max<int64_t>(m * ldc, 1)), nan);
    for (int64_t i = 0; i < a_rows; ++i)
      for (int64_t j = 0; j < a_cols; ++j) a[size_t(i * lda + j)] = T(dist(rng));
    for (int64_t i = 0; i < b_rows; ++i)
      for (int64_t j = 0; j < b_cols; ++j) b[size_t(i * ldb + j)] = T(dist(rng));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[size_t(i * ldc + j)] = T(dist(rng));
  }
  T A(int64_t i, int64_t p) const { return ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)]; }
  T B(int64_t p, int64_t j) const { return tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)]; }

  // Runs the GEMM and checks every element of C (of every row_step-th row: large products), and
  // that the padding of C is untouched.
  void run_and_check(T alpha, T beta, int64_t row_step = 1) {
    std::vector<T> c0 = c;
    gemm_any<T>(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
    const double eps = std::is_same_v<T, float> ? 1e-5 : 1e-13;
    for (int64_t i = 0; i < m; i += row_step) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += double(A(i, p)) * double(B(p, j));
          mag += std::abs(double(A(i, p)) * double(B(p, j)));
        }
        const double old = c0[size_t(i * ldc + j)];
        const double scaled_old = beta == T(0) ? 0.0 : double(beta) * old;  // beta == 0: C's NaN must vanish
        const double want = double(alpha) * acc + scaled_old;
        const double tol = eps * (std::abs(double(alpha)) * mag + std::abs(scaled_old) + 1.0) * 4;
        const double got = c[size_t(i * ldc + j)];
        ASSERT_NEAR(got, want, tol) << "at (" << i << "," << j << ") m=" << m << " n=" << n << " k=" << k
                                    << " ta=" << ta << " tb=" << tb;
      }
      for (int64_t j = n; j < ldc && i * ldc + j < int64_t(c.size()); ++j)
        ASSERT_TRUE(std::isnan(c[size_t(i * ldc + j)])) << "padding of C written at (" << i << "," << j << ")";
    }
  }
};

template <class T>
class GemmTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTest, Types);

TYPED_TEST(GemmTest, AllTransposesOddSizes) {
  using T = TypeParam;
  const int64_t sizes[] = {1, 7, 33, 129};
  uint32_t seed = 1;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t m : sizes)
        for (int64_t n : sizes)
          for (int64_t k : sizes) {
            // All 64 shapes unpadded would be slow in the reference; every shape once, padding on half.
            Problem<T> p(ta, tb, m, n, k, (seed % 2) ? 3 : 0, seed);
            ++seed;
            p.run_and_check(T(1), T(0));
            if (::testing::Test::HasFatalFailure()) return;
          }
}

TYPED_TEST(GemmTest, AlphaBeta) {
  using T = TypeParam;
  const T alphas[] = {T(1), T(-0.5), T(2.25)};
  const T betas[] = {T(0), T(1), T(-1.5)};
  uint32_t seed = 100;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (T alpha : alphas)
        for (T beta : betas) {
          Problem<T> p(ta, tb, 33, 129, 7, 5, seed++);
          p.run_and_check(alpha, beta);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TYPED_TEST(GemmTest, AlphaZeroScalesC) {
  using T = TypeParam;
  Problem<T> p(false, false, 7, 33, 129, 1, 7);
  p.run_and_check(T(0), T(0.5));
}

TYPED_TEST(GemmTest, LargeAndPadded) {
  // Big enough for the threaded paths of any BLAS (and ours), with odd sizes and padded strides.
  using T = TypeParam;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Problem<T> p(ta, tb, 301, 257, 263, 11, 55 + 2 * ta + tb);
      p.run_and_check(T(1.5), T(-0.25));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TYPED_TEST(GemmTest, SkinnyShapes) {
  using T = TypeParam;
  const int64_t shapes[][3] = {{1, 513, 65}, {513, 1, 65}, {300, 2, 300}, {2, 300, 300}, {200, 200, 1}};
  uint32_t seed = 900;
  for (auto& s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Problem<T> p(ta, tb, s[0], s[1], s[2], 2, seed++);
        p.run_and_check(T(1), T(1));
        if (::testing::Test::HasFatalFailure()) return;
      }
}

TYPED_TEST(GemmTest, KZeroScalesC) {
  using T = TypeParam;
  for (T beta : {T(0), T(1), T(-2)}) {
    Problem<T> p(false, false, 7, 33, 0, 2, 3);
    std::vector<T> before = p.c;
    gemm_any<T>(false, false, p.m, p.n, 0, T(1), p.a.data(), p.lda, p.b.data(), p.ldb, beta, p.c.data(), p.ldc);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.ldc; ++j) {
        const size_t at = size_t(i * p.ldc + j);
        if (j >= p.n)
          EXPECT_TRUE(std::isnan(p.c[at]));
        else
          EXPECT_EQ(p.c[at], beta * before[at]);
      }
  }
}

TYPED_TEST(GemmTest, BetaZeroOverwritesNaN) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (int64_t k : {int64_t(0), int64_t(1), int64_t(33)})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Problem<T> p(ta, tb, 33, 7, k, 1, 11);
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j) p.c[size_t(i * p.ldc + j)] = nan;
        p.run_and_check(T(1), T(0));
        if (::testing::Test::HasFatalFailure()) return;
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j) ASSERT_FALSE(std::isnan(p.c[size_t(i * p.ldc + j)]));
      }
}

TYPED_TEST(GemmTest, EmptyShapesTouchNothing) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a(16, T(1)), b(16, T(1)), c(16, nan);
  gemm_any<T>(false, false, 0, 4, 4, T(1), a.data(), 4, b.data(), 4, T(0), c.data(), 4);
  gemm_any<T>(false, false, 4, 0, 4, T(1), a.data(), 4, b.data(), 4, T(0), c.data(), 4);
  gemm_any<T>(true, true, 0, 0, 0, T(1), a.data(), 1, b.data(), 1, T(0), c.data(), 1);
  for (T x : c) EXPECT_TRUE(std::isnan(x));
}

TYPED_TEST(GemmTest, ZeroStrideRowsBroadcast) {
  // An expanded operand (every row the same, row stride 0) is not expressible in CBLAS; still correct.
  using T = TypeParam;
  for (bool tb : {false, true}) {
    Problem<T> p(false, tb, 5, 9, 6, 0, 21);
    p.lda = 0;  // A(i, p) = a[p] for every i
    p.run_and_check(T(1), T(0.5));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(GemmTest, ConcurrentCallsFromSeveralThreads) {
  using T = TypeParam;
  std::vector<Problem<T>> ps;
  for (int t = 0; t < 4; ++t) ps.emplace_back(t & 1, t & 2, 150 + t, 140, 130, 1, 500 + t);
  std::vector<std::vector<T>> expect;
  for (auto& p : ps) {  // serial run on a copy gives the expected result
    Problem<T> q = p;
    gemm_any<T>(q.ta, q.tb, q.m, q.n, q.k, T(1), q.a.data(), q.lda, q.b.data(), q.ldb, T(0), q.c.data(), q.ldc);
    expect.push_back(q.c);
  }
  std::vector<std::thread> threads;
  for (auto& p : ps)
    threads.emplace_back([&p] {
      for (int r = 0; r < 10; ++r)
        gemm_any<T>(p.ta, p.tb, p.m, p.n, p.k, T(1), p.a.data(), p.lda, p.b.data(), p.ldb, T(0), p.c.data(),
                    p.ldc);
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < ps.size(); ++i)
    for (int64_t r = 0; r < ps[i].m; ++r)
      for (int64_t j = 0; j < ps[i].n; ++j) {
        const size_t at = size_t(r * ps[i].ldc + j);
        const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-10;
        ASSERT_NEAR(ps[i].c[at], expect[i][at], tol);
      }
}

TYPED_TEST(GemmTest, MidSizedProductsSplitAtBlockEdges) {
  // Products of about 0.5 to 64 MFLOP run as single-threaded calls on blocks of C's rows (or
  // columns, whichever is longer) side by side on the pool, block edges on multiples of 16. With 3
  // threads: 70 rows or columns -> [0, 16) [16, 32) [32, 70); 33 -> [0, 16) [16, 33); 31 -> one
  // block (not split: the BLAS's own call). Every transpose, padded strides, beta.
  using T = TypeParam;
  const int n0 = locus::get_num_threads();
  locus::set_num_threads(3);
  const int64_t shapes[][3] = {{70, 40, 300}, {40, 70, 300}, {33, 20, 900}, {20, 33, 900}, {31, 31, 600}};
  uint32_t seed = 1300;
  for (auto& s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Problem<T> p(ta, tb, s[0], s[1], s[2], 3, seed++);
        p.run_and_check(T(1.25), T(-0.5));
        if (::testing::Test::HasFatalFailure()) break;
      }
  locus::set_num_threads(n0);
}

TEST(Blas, LargeFloatProducts) {
  // From 0.25 GFLOP a float product goes to oneDNN on AVX-512 CPUs where libdnnl.so.2 loads
  // (gemm_f32_large_name says which), else to OpenBLAS: every transpose, padded strides, alpha and
  // beta, beta 0 over a C of NaN, and the thread count changed between calls; every 7th row checked.
  std::printf("[large sgemm] %s\n", *locus::cpu::gemm_f32_large_name() ? locus::cpu::gemm_f32_large_name() : "(the BLAS)");
  const int n0 = locus::get_num_threads();
  uint32_t seed = 2000;
  for (int threads : {2, 1})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        locus::set_num_threads(threads);
        Problem<float> p(ta, tb, 67, 1031, 2050, 5, seed++);  // 2 * 67 * 1031 * 2050 = 0.28 GFLOP
        p.run_and_check(1.25f, -0.5f, 7);
        if (::testing::Test::HasFatalFailure()) break;
        Problem<float> q(ta, tb, 67, 1031, 2050, 5, seed++);
        std::fill(q.c.begin(), q.c.end(), std::numeric_limits<float>::quiet_NaN());
        q.run_and_check(0.75f, 0.f, 7);
        if (::testing::Test::HasFatalFailure()) break;
      }
  locus::set_num_threads(n0);
}

TEST(Blas, LargeProductsInAForkedChild) {
  // A large product before fork() (oneDNN's OpenMP threads, where it serves) and in the child:
  // GNU OpenMP hangs in a child whose parent ran a parallel region, so the child must not use it.
  // The child checks its result and exits; alarm() turns a hang into a failure.
  Problem<float> p(false, false, 512, 512, 512, 0, 2100);
  p.run_and_check(1.f, 0.f, 64);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(60);
    Problem<float> q(false, false, 512, 512, 512, 0, 2101);
    q.run_and_check(1.f, 0.f, 64);
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << ": SIGALRM 14 means it hung)";
  if (WIFEXITED(status)) EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Blas, LeavesTheEnvironmentAsItWas) {
  // The libraries are loaded with OPENBLAS_* (and GOMP_SPINCOUNT) defaults set only around the dlopen.
  const char* names[] = {"OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT", "GOMP_SPINCOUNT"};
  std::vector<std::string> before;
  for (const char* n : names) before.push_back(std::getenv(n) ? std::getenv(n) : "<unset>");
  float a = 2, b = 3, c = 0;
  gemm_f32(false, false, 1, 1, 1, 1.f, &a, 1, &b, 1, 0.f, &c, 1);
  EXPECT_EQ(c, 6.f);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(std::getenv(names[i]) ? std::getenv(names[i]) : "<unset>", before[i]);
}

TEST(Blas, NameAndThreadCount) {
  locus::cpu::blas_set_num_threads(1);
  const std::string one = locus::cpu::blas_name();
  EXPECT_FALSE(one.empty());
  EXPECT_NE(one.find("1 thread"), std::string::npos) << one;
  // Still correct after changing the count, and the count shows in the name.
  locus::cpu::blas_set_num_threads(2);
  const std::string two = locus::cpu::blas_name();
  if (two.find("portable") == std::string::npos) {  // the portable loops are single-threaded
    EXPECT_NE(two.find("2 threads"), std::string::npos) << two;
  }
  std::printf("[blas_name] %s\n", two.c_str());
  Problem<float> p(false, true, 129, 129, 129, 0, 77);
  p.run_and_check(1.f, 0.f);
  locus::cpu::blas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace

}  // namespace blas_test
