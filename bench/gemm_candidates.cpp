// gemm_candidates: measures the CPU SGEMM candidates for locus (docs/gemm.md has the results).
// Standalone, not part of the CMake build. Every BLAS is loaded with dlopen, so one binary measures
// them all and nothing is linked that could pick a kernel before the environment is set.
//
// Build (from the repository root):
//   g++ -O2 -std=c++20 -march=x86-64 -Isrc -Iinclude -Ibuild/generated bench/gemm_candidates.cpp
//       -o /tmp/gemm_candidates -Lbuild -llocus -Wl,-rpath,$PWD/build -ldl -lpthread      (one line)
// (the locus candidate calls liblocus's gemm_f32; a configured and built `build` folder)
//
// Run:  /tmp/gemm_candidates CANDIDATE THREADS [REPEATS] [SIZE...]      (default sizes 256 512 1024 2048)
//   peak            FMA throughput loop (AVX2 ymm and, where the CPU has it, AVX-512 zmm): the FP32 peak
//   openblas        libopenblas.so.0, cblas_sgemm, openblas_set_num_threads(THREADS); whatever
//                   OPENBLAS_CORETYPE the environment holds (run once without it, once with it)
//   openblas-split  OpenBLAS with 1 thread, the N dimension split over THREADS std::threads of ours
//   blis            BLIS (libblis.so.4 as installed: Debian's OpenMP variant), bli_thread_set_num_threads
//   dnnl            oneDNN (libdnnl.so.2), dnnl_sgemm, threads via omp_set_num_threads (libgomp)
//   locus           locus::cpu::gemm_f32 from src/backends/cpu/blas.cpp (the chosen path)
// Each size: warm-up, then REPEATS timed calls (default 9); prints the median and best GFLOP/s.
// With BENCH_AFTER=1 in the environment it measures instead how a GEMM slows the work that follows it
// (see after_gemm below).
// C = A @ B, row-major, square, no transposes, alpha=1, beta=0; 2*n^3 flops per call.
#include "backends/cpu/blas.h"

#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111;
using cblas_sgemm_t = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                               float*, int);
using dnnl_sgemm_t = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                             int64_t, float, float*, int64_t);

void* open_or_die(const char* name) {
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
    std::exit(2);
  }
  return h;
}
template <class F>
F sym_or_die(void* h, const char* name) {
  void* p = dlsym(h, name);
  if (!p) {
    std::fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// ---- FMA peak ------------------------------------------------------------------------------------
// Ten named accumulators (not an array, which -O2 keeps in memory): ten independent FMA chains per
// thread hide the FMA latency on two FMA pipes.
#define LOCUS_FMA10(T, FMA, ZERO, RED)                                                     \
  T c0 = ZERO, c1 = ZERO, c2 = ZERO, c3 = ZERO, c4 = ZERO, c5 = ZERO, c6 = ZERO, c7 = ZERO, \
    c8 = ZERO, c9 = ZERO;                                                                  \
  /* opaque to the compiler, so it cannot merge the ten identical chains into fewer */     \
  __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4));                 \
  __asm__ volatile("" : "+x"(c5), "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9));                 \
  for (long it = 0; it < iters; ++it) {                                                    \
    c0 = FMA(c0, a, b); c1 = FMA(c1, a, b); c2 = FMA(c2, a, b); c3 = FMA(c3, a, b);         \
    c4 = FMA(c4, a, b); c5 = FMA(c5, a, b); c6 = FMA(c6, a, b); c7 = FMA(c7, a, b);         \
    c8 = FMA(c8, a, b); c9 = FMA(c9, a, b);                                                \
    __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4));               \
    __asm__ volatile("" : "+x"(c5), "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9));               \
  }                                                                                        \
  return RED(c0) + RED(c1) + RED(c2) + RED(c3) + RED(c4) + RED(c5) + RED(c6) + RED(c7) +   \
         RED(c8) + RED(c9);
constexpr int kChains = 10;
__attribute__((target("avx2,fma"))) double fma_loop_ymm(long iters) {
  const __m256 a = _mm256_set1_ps(1.0000001f), b = _mm256_set1_ps(0.9999999f);
  LOCUS_FMA10(__m256, _mm256_fmadd_ps, _mm256_setzero_ps(), _mm256_cvtss_f32)
}
__attribute__((target("avx512f"))) double fma_loop_zmm(long iters) {
  const __m512 a = _mm512_set1_ps(1.0000001f), b = _mm512_set1_ps(0.9999999f);
  LOCUS_FMA10(__m512, _mm512_fmadd_ps, _mm512_setzero_ps(), _mm512_cvtss_f32)
}
void peak(int threads) {
  const long iters = 100'000'000;
  auto run = [&](bool zmm) {
    std::vector<std::thread> ts;
    std::vector<double> sink(threads);
    double t0 = now();
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] { sink[t] = zmm ? fma_loop_zmm(iters) : fma_loop_ymm(iters); });
    for (auto& t : ts) t.join();
    double dt = now() - t0;
    double flops = double(threads) * iters * kChains * (zmm ? 16 : 8) * 2;
    std::printf("peak %s threads=%d  %.1f GFLOP/s  (sink %g)\n", zmm ? "avx512" : "avx2", threads, flops / dt * 1e-9,
                sink[0]);
  };
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) run(false);
  if (__builtin_cpu_supports("avx512f")) run(true);
}

// BENCH_AFTER=1: what a GEMM costs the op that follows it. THREADS std::threads (a stand-in for locus's
// pool) each run ~5 ms of scalar work right after a GEMM of size n returns; the median time of that work
// is compared with the same work when no GEMM ran before it. A BLAS whose threads keep spinning after
// the call shows up as a slower "after".
using GemmFn = std::function<void(int, int, int, const float*, const float*, float*)>;
double pool_work(int threads) {
  double t0 = now();
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([] {
      volatile double x = 1.0;
      for (int i = 0; i < 2'000'000; ++i) x = x * 1.0000001 + 1e-9;
    });
  for (auto& t : ts) t.join();
  return now() - t0;
}
int after_gemm(const GemmFn& gemm, int threads, int n, const std::string& label) {
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  gemm(n, n, n, a.data(), b.data(), c.data());  // load the library, start its threads
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<double> alone, after;
  for (int r = 0; r < 21; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // longer than any BLAS spin timeout
    alone.push_back(pool_work(threads));
  }
  for (int r = 0; r < 21; ++r) {
    gemm(n, n, n, a.data(), b.data(), c.data());
    after.push_back(pool_work(threads));
  }
  std::sort(alone.begin(), alone.end());
  std::sort(after.begin(), after.end());
  std::printf("# %s, %d thread(s): work after a GEMM of n=%d\n", label.c_str(), threads, n);
  std::printf("after n=%d  alone %.2f ms  after-gemm %.2f ms  ratio %.2f\n", n, alone[10] * 1e3, after[10] * 1e3,
              after[10] / alone[10]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s peak|openblas|openblas-split|blis|dnnl|locus THREADS [REPEATS] [SIZE...]\n",
                 argv[0]);
    return 2;
  }
  const std::string cand = argv[1];
  const int threads = std::atoi(argv[2]);
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 9;
  std::vector<int> sizes;
  for (int i = 4; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 512, 1024, 2048};
  if (cand == "peak") {
    peak(threads);
    return 0;
  }

  // The candidate as a function (m, n, k, A, B, C) with row-major C = A @ B.
  GemmFn gemm;
  std::string label = cand;
  if (cand == "openblas" || cand == "openblas-split") {
    void* h = open_or_die("libopenblas.so.0");
    auto sg = sym_or_die<cblas_sgemm_t>(h, "cblas_sgemm");
    auto set_threads = sym_or_die<void (*)(int)>(h, "openblas_set_num_threads");
    auto corename = sym_or_die<char* (*)()>(h, "openblas_get_corename");
    const char* env = std::getenv("OPENBLAS_CORETYPE");
    label += std::string(" core=") + corename() + " OPENBLAS_CORETYPE=" + (env ? env : "(unset)");
    if (cand == "openblas") {
      set_threads(threads);
      gemm = [sg](int m, int n, int k, const float* a, const float* b, float* c) {
        sg(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.f, a, k, b, n, 0.f, c, n);
      };
    } else {
      set_threads(1);
      gemm = [sg, threads](int m, int n, int k, const float* a, const float* b, float* c) {
        // Column panels, multiples of 16 floats so no two threads write one cache line.
        int per = ((n + threads - 1) / threads + 15) / 16 * 16;
        std::vector<std::thread> ts;
        for (int t = 1; t < threads; ++t) {
          int j0 = t * per, j1 = std::min(n, j0 + per);
          if (j0 < j1)
            ts.emplace_back([=] { sg(kRowMajor, kNoTrans, kNoTrans, m, j1 - j0, k, 1.f, a, k, b + j0, n, 0.f, c + j0, n); });
        }
        sg(kRowMajor, kNoTrans, kNoTrans, m, std::min(n, per), k, 1.f, a, k, b, n, 0.f, c, n);
        for (auto& t : ts) t.join();
      };
    }
  } else if (cand == "blis") {
    void* h = open_or_die("libblis.so.4");
    auto sg = sym_or_die<cblas_sgemm_t>(h, "cblas_sgemm");
    sym_or_die<void (*)(long)>(h, "bli_thread_set_num_threads")(threads);
    auto arch_id = sym_or_die<int (*)()>(h, "bli_arch_query_id");
    auto arch_str = sym_or_die<const char* (*)(int)>(h, "bli_arch_string");
    auto ver = sym_or_die<const char* (*)()>(h, "bli_info_get_version_str");
    label += std::string(" ") + ver() + " arch=" + arch_str(arch_id());
    gemm = [sg](int m, int n, int k, const float* a, const float* b, float* c) {
      sg(kRowMajor, kNoTrans, kNoTrans, m, n, k, 1.f, a, k, b, n, 0.f, c, n);
    };
  } else if (cand == "dnnl") {
    void* gomp = open_or_die("libgomp.so.1");
    sym_or_die<void (*)(int)>(gomp, "omp_set_num_threads")(threads);
    void* h = open_or_die("libdnnl.so.2");
    auto sg = sym_or_die<dnnl_sgemm_t>(h, "dnnl_sgemm");
    gemm = [sg](int m, int n, int k, const float* a, const float* b, float* c) {
      sg('N', 'N', m, n, k, 1.f, a, k, b, n, 0.f, c, n);
    };
  } else if (cand == "locus") {
    locus::cpu::blas_set_num_threads(threads);
    gemm = [](int m, int n, int k, const float* a, const float* b, float* c) {
      locus::cpu::gemm_f32(false, false, m, n, k, 1.f, a, k, b, n, 0.f, c, n);
    };
    gemm(1, 1, 1, std::vector<float>(1).data(), std::vector<float>(1).data(), std::vector<float>(1).data());
    label += std::string(" [") + locus::cpu::blas_name() + "]";
  } else {
    std::fprintf(stderr, "unknown candidate %s\n", cand.c_str());
    return 2;
  }

  if (std::getenv("BENCH_AFTER")) return after_gemm(gemm, threads, sizes[0], label);
  std::printf("# %s, %d thread(s), %d repeats\n", label.c_str(), threads, repeats);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int n : sizes) {
    std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
    for (auto& x : a) x = dist(rng);
    for (auto& x : b) x = dist(rng);
    // Warm up: at least 0.2 s or 3 calls (threads spun up, pages touched, clocks raised).
    double t0 = now();
    for (int i = 0; i < 3 || now() - t0 < 0.2; ++i) gemm(n, n, n, a.data(), b.data(), c.data());
    // Small sizes: time batches so one sample is at least ~20 ms.
    double one = now();
    gemm(n, n, n, a.data(), b.data(), c.data());
    one = now() - one;
    int batch = std::max(1, int(0.02 / std::max(one, 1e-6)));
    std::vector<double> gf;
    for (int r = 0; r < repeats; ++r) {
      double s = now();
      for (int i = 0; i < batch; ++i) gemm(n, n, n, a.data(), b.data(), c.data());
      double dt = (now() - s) / batch;
      gf.push_back(2.0 * n * n * double(n) / dt * 1e-9);
    }
    std::sort(gf.begin(), gf.end());
    // Spot check one element against a double-precision dot product.
    int i = n / 3, j = n / 2;
    double ref = 0;
    for (int p = 0; p < n; ++p) ref += double(a[size_t(i) * n + p]) * b[size_t(p) * n + j];
    double err = std::abs(ref - c[size_t(i) * n + j]);
    std::printf("n=%5d  median %7.1f  best %7.1f GFLOP/s  (batch %d, check err %.1e)\n", n, gf[gf.size() / 2],
                gf.back(), batch, err);
  }
  return 0;
}
