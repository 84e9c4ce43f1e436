// CPU GEMM: OpenBLAS, loaded at run time with the kernel chosen from cpuid (docs/gemm.md has the measurements).
//
// Why dlopen: Debian's OpenBLAS 0.3.21 is built with DYNAMIC_ARCH and picks its kernel in its load-time
// constructor, from its own CPU table. On CPUs newer than that table it falls back to a generic kernel
// (Prescott: 5-10x slower), unless OPENBLAS_CORETYPE is set in the environment *before the library loads*.
// Linking it normally runs that constructor before any locus code, so locus does not link it: the first
// GEMM reads cpuid, sets OPENBLAS_CORETYPE (only if the user has not set it, and only to a kernel whose
// instructions this CPU and OS support), dlopens libopenblas.so.0, and puts the environment back.
//   AVX-512 F/CD/BW/DQ/VL with zmm state enabled by the OS  -> SkylakeX
//   AVX2 + FMA with ymm state enabled                       -> Zen on AMD, Haswell otherwise
//   anything else                                           -> OpenBLAS's own detection
// (Forcing SkylakeX on a CPU without AVX-512 dies with SIGILL: the cpuid checks are not optional.)
//
// Threads: the BLAS runs with exactly blas_set_num_threads() threads (locus::set_num_threads calls it);
// locus calls it from outside its own parallel regions, so the BLAS's threads replace the pool's for the
// duration of a call instead of adding to them (the pool's spinning workers are parked first). Mid-sized
// products (kSplitMin to kSplitMax flops) run instead as single-threaded calls on blocks of C, side by
// side on the pool (docs/gemm.md, "Threads"). OpenBLAS's worker threads busy-wait for a while after each
// call; we shorten that (OPENBLAS_THREAD_TIMEOUT) so they do not steal the cores from the next locus op.
//
// Without OpenBLAS (or for shapes and strides a CBLAS cannot express: 32-bit overflow, zero or
// overlapping strides) a portable loop computes the same result, single-threaded.
//
// Large float32 products on AVX-512 CPUs (from kDnnlMin flops, on all threads; not A B^T) go to
// oneDNN's dnnl_sgemm instead (Debian's libdnnl2, loaded at run time the same way; absent, OpenBLAS serves):
// on an Intel Xeon (Sapphire/Emerald Rapids class, 2 vCPUs) it measured 10-25 % faster than
// OpenBLAS's SkylakeX kernel from 512 to 4096 (docs/gemm.md). Its OpenMP threads are told to
// spin only briefly after a call (GOMP_SPINCOUNT, unless the user set it or OpenMP was already
// loaded), as OpenBLAS's are, so they do not hold the cores the pool needs next. A forked child
// uses OpenBLAS only (GNU OpenMP hangs in a child whose parent ran a parallel region).
#include "backends/cpu/blas.h"
#include "backends/cpu/gemm_avx2.h"
#include "backends/cpu/gemm_avx512.h"
#include "backends/cpu/parallel_for.h"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

// Which library to load; a build (or the test of the portable path) can point it elsewhere.
#ifndef LOCUS_OPENBLAS_SONAME
#define LOCUS_OPENBLAS_SONAME "libopenblas.so.0"
#endif

namespace locus::cpu {
namespace {

// CBLAS as OpenBLAS exports it (LP64 build: blasint is int; the enums are ints).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                          int);
using dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                          double*, int);

struct Blas {
  sgemm_fn sgemm = nullptr;
  dgemm_fn dgemm = nullptr;
  void (*set_threads)(int) = nullptr;  // nullptr: the library cannot change its thread count
  std::string base;                    // "OpenBLAS 0.3.21 (SkylakeX kernel", without the thread count
};

std::atomic<int> g_threads{int(std::max(1u, std::thread::hardware_concurrency()))};
std::shared_mutex g_mu;  // gemm calls share it; changing the BLAS's thread count takes it alone
Blas g_blas;             // written once, inside g_once
std::once_flag g_once;
std::atomic<bool> g_loaded{false};

// oneDNN's sgemm (row-major; dnnl_dim_t is int64_t) and OpenMP's thread count, for large products.
using dnnl_sgemm_fn = int (*)(char, char, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                              int64_t, float, float*, int64_t);
struct Dnnl {
  dnnl_sgemm_fn sgemm = nullptr;
  void (*omp_set_num_threads)(int) = nullptr;
  std::string name;  // "oneDNN 2.6.3"
};
Dnnl g_dnnl;  // written once, inside blas()'s load
constexpr double kDnnlMin = 2.5e8;  // flops (a 500^3 product); measured from 512^3 (docs/gemm.md)
// Set in the child of a fork(): GNU OpenMP does not survive one (a child's first parallel region
// waits forever for its parent's team), so a forked child leaves oneDNN alone and OpenBLAS, which
// re-makes its threads after a fork, serves its large products.
std::atomic<bool> g_forked_child{false};
[[maybe_unused]] const bool g_fork_watch = (pthread_atfork(nullptr, nullptr, [] { g_forked_child.store(true); }), true);

// ---- which OpenBLAS kernel this CPU can run ------------------------------------------------------
const char* coretype_for_this_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return nullptr;
  const bool amd = b == 0x68747541;  // "Auth"enticAMD
  if (a < 7 || !__get_cpuid(1, &a, &b, &c, &d)) return nullptr;
  const bool fma = c & bit_FMA, avx = c & bit_AVX, osxsave = c & bit_OSXSAVE;
  if (!avx || !osxsave) return nullptr;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const bool os_ymm = (xcr0_lo & 0x06) == 0x06;  // SSE + AVX state
  const bool os_zmm = (xcr0_lo & 0xe6) == 0xe6;  // + opmask, ZMM_Hi256, Hi16_ZMM
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return nullptr;
  const bool avx2 = b & bit_AVX2;
  const unsigned avx512 = bit_AVX512F | bit_AVX512CD | bit_AVX512BW | bit_AVX512DQ | bit_AVX512VL;
  if (os_zmm && (b & avx512) == avx512 && avx2 && fma) return "SkylakeX";
  if (os_ymm && avx2 && fma) return amd ? "Zen" : "Haswell";
#endif
  return nullptr;
}

// Sets NAME=VALUE unless the user set NAME; restores on destruction.
class EnvDefault {
 public:
  EnvDefault(const char* name, const char* value) : name_(name) {
    if (value && !std::getenv(name)) set_ = setenv(name, value, 0) == 0;
  }
  ~EnvDefault() {
    if (set_) unsetenv(name_);
  }
  EnvDefault(const EnvDefault&) = delete;
  EnvDefault& operator=(const EnvDefault&) = delete;

 private:
  const char* name_;
  bool set_ = false;
};

template <class F>
F sym(void* h, const char* name) {
  return reinterpret_cast<F>(dlsym(h, name));
}

void load() {
  const char* core = coretype_for_this_cpu();
  std::string threads = std::to_string(g_threads.load());
  void* h = nullptr;
  {
    EnvDefault coretype("OPENBLAS_CORETYPE", core);
    // Start exactly our thread count of workers, and let them sleep soon after a call: 2^20 TSC cycles
    // (~0.4 ms) of spinning instead of OpenBLAS's 2^28 (~0.1 s), which keeps them warm across
    // back-to-back GEMMs but gives the cores back to the pool soon after the last one.
    EnvDefault nthreads("OPENBLAS_NUM_THREADS", threads.c_str());
    EnvDefault timeout("OPENBLAS_THREAD_TIMEOUT", "20");
    h = dlopen(LOCUS_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  }
  if (h) {
    g_blas.sgemm = sym<sgemm_fn>(h, "cblas_sgemm");
    g_blas.dgemm = sym<dgemm_fn>(h, "cblas_dgemm");
    g_blas.set_threads = sym<void (*)(int)>(h, "openblas_set_num_threads");
    auto config = sym<const char* (*)()>(h, "openblas_get_config");
    auto corename = sym<const char* (*)()>(h, "openblas_get_corename");
    if (!g_blas.sgemm || !g_blas.dgemm) {
      g_blas = Blas{};
    } else {
      std::string version = "OpenBLAS";
      if (config) {  // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "OpenBLAS 0.3.21"
        std::string s = config();
        size_t sp = s.find(' ', s.find(' ') + 1);
        version = s.substr(0, sp);
      }
      g_blas.base = version + " (" + (corename ? corename() : "?") + " kernel";
    }
  }
  if (!g_blas.sgemm) g_blas.base = "portable loops (no OpenBLAS found";
  if (gemm_avx512::available()) {  // oneDNN for the large float32 products
    const bool omp_loaded = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr;
    EnvDefault spin("GOMP_SPINCOUNT", omp_loaded ? nullptr : "10000");
    if (void* d = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL)) {
      g_dnnl.sgemm = sym<dnnl_sgemm_fn>(d, "dnnl_sgemm");
      g_dnnl.omp_set_num_threads = sym<void (*)(int)>(d, "omp_set_num_threads");
      struct Version {
        int major, minor, patch;
      };
      auto version = sym<const Version* (*)()>(d, "dnnl_version");
      if (!g_dnnl.sgemm || !g_dnnl.omp_set_num_threads) g_dnnl = Dnnl{};
      else
        g_dnnl.name = version ? "oneDNN " + std::to_string(version()->major) + "." + std::to_string(version()->minor) +
                                    "." + std::to_string(version()->patch)
                              : "oneDNN";
    }
  }
  std::unique_lock lock(g_mu);  // a blas_set_num_threads racing with this load is applied here or there
  if (g_blas.set_threads) g_blas.set_threads(g_threads.load());
  g_loaded.store(true);
}

const Blas& blas() {
  std::call_once(g_once, load);
  return g_blas;
}

// ---- the portable path ----------------------------------------------------------------------------
template <class T>
void scale_c(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    if (beta == T(0))
      std::fill(ci, ci + n, T(0));  // overwrites NaN, as BLAS does for beta == 0
    else if (beta != T(1))
      for (int64_t j = 0; j < n; ++j) ci[j] *= beta;
  }
}

template <class T>
void gemm_portable(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                   int64_t ldb, T beta, T* c, int64_t ldc) {
  scale_c(m, n, beta, c, ldc);
  if (k == 0 || alpha == T(0)) return;
  auto A = [&](int64_t i, int64_t p) { return ta ? a[p * lda + i] : a[i * lda + p]; };
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    if (!tb) {  // rows of B are contiguous: C[i,:] += alpha*A[i,p] * B[p,:]
      for (int64_t p = 0; p < k; ++p) {
        const T s = alpha * A(i, p);
        const T* bp = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) ci[j] += s * bp[j];
      }
    } else {  // B^T: column j of op(B) is row j of B, contiguous in p
      for (int64_t j = 0; j < n; ++j) {
        const T* bj = b + j * ldb;
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += A(i, p) * bj[p];
        ci[j] += alpha * acc;
      }
    }
  }
}

// Whether a row-major leading dimension fits a stored rows x cols matrix: at least its width (a
// stride that does not matter, for a single row, is raised to it).
bool fix_ld(int64_t& ld, int64_t rows, int64_t cols) {
  const int64_t need = std::max<int64_t>(1, cols);
  if (rows <= 1) ld = std::max(ld, need);
  return ld >= need;
}

// Whether a row-major CBLAS call accepts this problem: 32-bit sizes and strides, each leading
// dimension fixed by fix_ld.
bool cblas_can(int64_t m, int64_t n, int64_t k, int64_t& lda, int64_t a_rows, int64_t a_cols, int64_t& ldb,
               int64_t b_rows, int64_t b_cols, int64_t& ldc) {
  auto fix = [](int64_t& ld, int64_t rows, int64_t cols) { return fix_ld(ld, rows, cols) && ld <= INT_MAX; };
  return m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && fix(lda, a_rows, a_cols) && fix(ldb, b_rows, b_cols) &&
         fix(ldc, m, n);
}

// Products of kSplitMin to kSplitMax flops are split over the pool (gemm_impl); blocks are
// multiples of kSplitStep rows or columns.
constexpr double kSplitMin = 5e5, kSplitMax = 64e6;  // below kSplitMin OpenBLAS runs one thread (m*n*k < 2^18)
constexpr int64_t kSplitStep = 16;

// True on a thread running a blas_side_by_side body: g_mu is held (unique) by that call, and the
// BLAS runs one thread, for the whole batch.
thread_local bool t_side_by_side = false;

// g_mu is taken shared around the BLAS call, except inside blas_side_by_side, which holds it.
template <class T, class Fn>
void gemm_impl(Fn Blas::*fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
               const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == T(0)) {  // no product: C = beta * C, without reading A or B
    scale_c(m, n, beta, c, ldc);
    return;
  }
  const Blas& lib = blas();
  if (lib.*fn && cblas_can(m, n, k, lda, ta ? k : m, ta ? m : k, ldb, tb ? n : k, tb ? k : n, ldc)) {
    // A mid-sized product runs as single-threaded calls side by side on the pool, each on a block
    // of C's rows (or columns), not on the BLAS's own threads: those would then spin next to the
    // pool's after the call, three threads on two cores, and the pool's workers would have to sleep
    // while they run (and be woken after: tens of microseconds each time on a virtual machine).
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    if (!t_side_by_side && flops >= kSplitMin && flops < kSplitMax) {
      const bool by_rows = m >= n;
      const int64_t dim = by_rows ? m : n;
      const int64_t parts = std::min<int64_t>(num_threads(), dim / kSplitStep);
      auto part = [&](int64_t i) {
        // block edges on multiples of kSplitStep (the kernels' register blocks stay whole)
        const int64_t lo = i * dim / parts / kSplitStep * kSplitStep;
        const int64_t hi = i + 1 == parts ? dim : (i + 1) * dim / parts / kSplitStep * kSplitStep;
        if (by_rows)
          gemm_impl<T>(fn, ta, tb, hi - lo, n, k, alpha, ta ? a + lo : a + lo * lda, lda, b, ldb, beta, c + lo * ldc,
                       ldc);
        else
          gemm_impl<T>(fn, ta, tb, m, hi - lo, k, alpha, a, lda, tb ? b + lo * ldb : b + lo, ldb, beta, c + lo, ldc);
      };
      if (parts >= 2 && blas_side_by_side(parts, part)) return;
    }
    std::shared_lock lock(g_mu, std::defer_lock);
    if (!t_side_by_side) {
      lock.lock();
      // OpenBLAS runs larger products on its own threads: the pool's spinning workers make way
      if (flops >= kSplitMin && g_threads.load(std::memory_order_relaxed) > 1) detail::park_workers();
    }
    (lib.*fn)(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, int(m), int(n), int(k), alpha, a, int(lda),
              b, int(ldb), beta, c, int(ldc));
    return;
  }
  gemm_portable(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Large products through oneDNN (see the top of the file); false, having done nothing, when it
// does not serve this call.
bool gemm_f32_dnnl(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0 || alpha == 0) return false;
  // not A B^T (Linear's forward): with a large B^T OpenBLAS was faster (64 x 4096 x 4096: oneDNN
  // 1.2-1.27x OpenBLAS's time, 512 x 4096 x 4096: 1.07x; only squares to 1024 won, 0.82-0.9x)
  if (tb && !ta) return false;
  if (2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kDnnlMin) return false;
  if (t_side_by_side || in_parallel_region() || g_forked_child.load(std::memory_order_relaxed)) return false;
  blas();  // loads oneDNN too
  if (!g_dnnl.sgemm) return false;
  // (64-bit sizes and strides: dnnl_dim_t)
  if (!fix_ld(lda, ta ? k : m, ta ? m : k) || !fix_ld(ldb, tb ? n : k, tb ? k : n) || !fix_ld(ldc, m, n)) return false;
  std::shared_lock lock(g_mu);
  const int threads = g_threads.load(std::memory_order_relaxed);
  if (threads > 1) detail::park_workers();  // oneDNN's threads take the cores for the call
  g_dnnl.omp_set_num_threads(threads);      // (per calling thread in OpenMP: set on every call)
  return g_dnnl.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) == 0;
}

}  // namespace

void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // small and medium products on AVX-512: own kernels without packing (gemm_avx512.h); alpha 0
  // and k 0 stay below (they must not read A or B)
  if (m > 0 && n > 0 && k > 0 && alpha != 0 && ldc >= n && gemm_avx512::routes(trans_a, trans_b, m, n, k))
    return gemm_avx512::gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  // and on AVX2 without AVX-512, the products with a short K (gemm_avx2.h)
  if (m > 0 && n > 0 && k > 0 && alpha != 0 && ldc >= n && gemm_avx2::routes(trans_a, trans_b, m, n, k))
    return gemm_avx2::gemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (gemm_f32_dnnl(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  gemm_f32_blas(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

const char* gemm_f32_large_name() {
  blas();
  static const std::string name =
      g_dnnl.sgemm ? g_dnnl.name + " dnnl_sgemm (float32 products from 0.25 GFLOP, not A B^T)" : std::string();
  return name.c_str();
}

void gemm_f32_blas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemm_impl(&Blas::sgemm, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  gemm_impl(&Blas::dgemm, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

bool blas_side_by_side(int64_t chunks, const std::function<void(int64_t)>& fn) {
  const Blas& lib = blas();
  if (chunks < 2 || num_threads() < 2 || in_parallel_region() || !lib.sgemm || !lib.set_threads) return false;
  std::unique_lock lock(g_mu);  // the BLAS's thread count changes for the duration: no other call meanwhile
  lib.set_threads(1);
  struct Restore {
    const Blas& lib;
    ~Restore() { lib.set_threads(g_threads.load()); }
  } restore{lib};
  parallel_for(0, chunks, 1, [&](int64_t lo, int64_t hi) {
    struct Flag {
      Flag() { t_side_by_side = true; }
      ~Flag() { t_side_by_side = false; }
    } flag;
    for (int64_t i = lo; i < hi; ++i) fn(i);
  });
  return true;
}

void gemm_f32_batch(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                    int64_t stride_a, const float* b, int64_t ldb, int64_t stride_b, float beta, float* c, int64_t ldc,
                    int64_t stride_c, int64_t batch) {
  auto one = [&](int64_t i) {
    gemm_f32(ta, tb, m, n, k, alpha, a + i * stride_a, lda, b + i * stride_b, ldb, beta, c + i * stride_c, ldc);
  };
  // below ~8 MFLOP an entry gains little from the BLAS's own threads; side by side it gains them all
  if (2.0 * static_cast<double>(m) * n * k < 8e6 && blas_side_by_side(batch, one)) return;
  for (int64_t i = 0; i < batch; ++i) one(i);
}

const char* blas_name() {
  // Names are interned per thread count, so the pointer stays valid for the life of the process.
  static std::mutex mu;
  static std::map<int, std::string> names;
  const Blas& lib = blas();
  const int t = lib.set_threads ? g_threads.load() : 1;
  std::lock_guard lock(mu);
  auto [it, fresh] = names.try_emplace(t);
  if (fresh) it->second = lib.base + ", " + std::to_string(t) + (t == 1 ? " thread)" : " threads)");
  return it->second.c_str();
}

void blas_set_num_threads(int n) {
  n = std::max(1, n);
  std::unique_lock lock(g_mu);  // waits for running calls: OpenBLAS must not change its count mid-call
  g_threads.store(n);
  // Before the first GEMM this only records the count: the library is loaded when first needed.
  if (g_loaded.load() && g_blas.set_threads) g_blas.set_threads(n);
}

}  // namespace locus::cpu
