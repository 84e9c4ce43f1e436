// Batched GEMM: float32/float64 go to the BLAS (blas.h) one batch entry at a time; half and
// bfloat16 are widened to float32 (convert.h's bulk conversion) around the float32 BLAS call;
// integer dtypes use a plain loop in int64.
#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using Gemm = backend::Backend::Gemm;

// Half/bfloat16 workspace: one per thread, kept between calls up to kKeepWorkspace bytes (so a
// training step's GEMMs neither allocate nor fault pages again); a larger one is freed when its
// call ends. It is not locus-counted memory: allocation statistics live above the backend
// boundary, which hands a kernel no allocator, and a workspace that only lives during the call
// would show in memory_stats as a transient the user cannot act on. Batch entries are widened in
// chunks of at most kKeepWorkspace bytes (at least one entry), so the workspace is bounded by
// max(16 MiB, one entry's float32 A, B and C) per thread.
constexpr size_t kKeepWorkspace = size_t{16} << 20;

struct Workspace {
  static std::unique_ptr<float[]>& buf() { static thread_local std::unique_ptr<float[]> b; return b; }
  static size_t& size() { static thread_local size_t s = 0; return s; }
  float* data;
  explicit Workspace(size_t n) {
    if (size() < n) {
      buf().reset();
      buf().reset(new float[n]);  // uninitialised: every element read is written first
      size() = n;
    }
    data = buf().get();
  }
  ~Workspace() {
    if (size() * sizeof(float) > kKeepWorkspace) {
      buf().reset();
      size() = 0;
    }
  }
};

// A rows x cols matrix with row stride ld, to a dense float matrix (one bulk conversion per row,
// or one for the whole matrix when it is dense).
template <class T>
void widen(const T* src, int64_t rows, int64_t cols, int64_t ld, float* dst) {
  if (ld == cols || rows == 1) return to_float(src, dst, rows * cols);
  for (int64_t r = 0; r < rows; ++r) to_float(src + r * ld, dst + r * cols, cols);
}

// float16/bfloat16: A, B (and C when beta != 0) widened exactly to float32, the float32 GEMM
// (gemm_f32_batch: float32 accumulation), and C rounded once to T. A broadcast operand
// (stride 0) is widened once for all entries.
template <class T>
void gemm_half(const Gemm& g) {
  const T* a = data_as<const T>(g.a);
  const T* b = data_as<const T>(g.b);
  T* c = data_as<T>(g.c);
  const int64_t ar = g.trans_a ? g.k : g.m, ac = g.trans_a ? g.m : g.k;
  const int64_t br = g.trans_b ? g.n : g.k, bc = g.trans_b ? g.k : g.n;
  const int64_t sa = ar * ac, sb = br * bc, sc = g.m * g.n;
  const bool one_a = g.stride_a == 0 || g.batch == 1, one_b = g.stride_b == 0 || g.batch == 1;
  const int64_t per_entry = (one_a ? 0 : sa) + (one_b ? 0 : sb) + sc;
  const int64_t fit = static_cast<int64_t>(kKeepWorkspace / sizeof(float)) - (one_a ? sa : 0) - (one_b ? sb : 0);
  const int64_t chunk = std::clamp<int64_t>(fit / std::max<int64_t>(per_entry, 1), 1, g.batch);
  Workspace ws(static_cast<size_t>((one_a ? sa : chunk * sa) + (one_b ? sb : chunk * sb) + chunk * sc));
  float* fa = ws.data;
  float* fb = fa + (one_a ? sa : chunk * sa);
  float* fc = fb + (one_b ? sb : chunk * sb);
  if (one_a) widen(a, ar, ac, g.lda, fa);
  if (one_b) widen(b, br, bc, g.ldb, fb);
  for (int64_t b0 = 0; b0 < g.batch; b0 += chunk) {
    const int64_t cnt = std::min(chunk, g.batch - b0);
    for (int64_t e = 0; e < cnt; ++e) {
      if (!one_a) widen(a + (b0 + e) * g.stride_a, ar, ac, g.lda, fa + e * sa);
      if (!one_b) widen(b + (b0 + e) * g.stride_b, br, bc, g.ldb, fb + e * sb);
      if (g.beta != 0) widen(c + (b0 + e) * g.stride_c, g.m, g.n, g.ldc, fc + e * sc);
    }
    gemm_f32_batch(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<float>(g.alpha), fa, ac, one_a ? 0 : sa, fb, bc,
                   one_b ? 0 : sb, static_cast<float>(g.beta), fc, g.n, sc, cnt);
    for (int64_t e = 0; e < cnt; ++e) {
      T* ci = c + (b0 + e) * g.stride_c;
      if (g.ldc == g.n) from_float(fc + e * sc, ci, sc);
      else
        for (int64_t r = 0; r < g.m; ++r) from_float(fc + e * sc + r * g.n, ci + r * g.ldc, g.n);
    }
  }
}

template <class T>
void gemm_int(const Gemm& g) {
  const T* a = data_as<const T>(g.a);
  const T* b = data_as<const T>(g.b);
  T* c = data_as<T>(g.c);
  const int64_t alpha = static_cast<int64_t>(g.alpha), beta = static_cast<int64_t>(g.beta);
  parallel_for(0, g.batch * g.m, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(g.n * g.k, 1)), [&](int64_t lo, int64_t hi) {
    std::vector<uint64_t> acc(static_cast<size_t>(g.n));  // unsigned: overflow wraps as in PyTorch
    for (int64_t row = lo; row < hi; ++row) {
      int64_t bi = row / g.m, i = row % g.m;
      const T* ab = a + bi * g.stride_a;
      const T* bb = b + bi * g.stride_b;
      T* cr = c + bi * g.stride_c + i * g.ldc;
      std::fill(acc.begin(), acc.end(), 0);
      for (int64_t p = 0; p < g.k; ++p) {
        uint64_t av = static_cast<uint64_t>(static_cast<int64_t>(g.trans_a ? ab[p * g.lda + i] : ab[i * g.lda + p]));
        if (g.trans_b) {
          for (int64_t j = 0; j < g.n; ++j) acc[static_cast<size_t>(j)] += av * static_cast<uint64_t>(static_cast<int64_t>(bb[j * g.ldb + p]));
        } else {
          const T* br = bb + p * g.ldb;
          for (int64_t j = 0; j < g.n; ++j) acc[static_cast<size_t>(j)] += av * static_cast<uint64_t>(static_cast<int64_t>(br[j]));
        }
      }
      for (int64_t j = 0; j < g.n; ++j) {
        uint64_t v = static_cast<uint64_t>(alpha) * acc[static_cast<size_t>(j)];
        if (beta != 0) v += static_cast<uint64_t>(beta) * static_cast<uint64_t>(static_cast<int64_t>(cr[j]));
        cr[j] = static_cast<T>(static_cast<int64_t>(v));
      }
    }
  });
}

}  // namespace

void gemm(const Gemm& g) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0) return;
  switch (g.dtype) {
    case kFloat: {
      const float* a = data_as<const float>(g.a);
      const float* b = data_as<const float>(g.b);
      float* c = data_as<float>(g.c);
      gemm_f32_batch(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<float>(g.alpha), a, g.lda, g.stride_a, b, g.ldb,
                     g.stride_b, static_cast<float>(g.beta), c, g.ldc, g.stride_c, g.batch);
      return;
    }
    case kDouble: {
      const double* a = data_as<const double>(g.a);
      const double* b = data_as<const double>(g.b);
      double* c = data_as<double>(g.c);
      for (int64_t i = 0; i < g.batch; ++i)
        gemm_f64(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, a + i * g.stride_a, g.lda, b + i * g.stride_b, g.ldb,
                 g.beta, c + i * g.stride_c, g.ldc);
      return;
    }
    case kHalf: return gemm_half<Half>(g);
    case kBFloat16: return gemm_half<BFloat16>(g);
    case kByte: return gemm_int<uint8_t>(g);
    case kChar: return gemm_int<int8_t>(g);
    case kShort: return gemm_int<int16_t>(g);
    case kInt: return gemm_int<int32_t>(g);
    case kLong: return gemm_int<int64_t>(g);
    default: unsupported("gemm", g.dtype);
  }
}

}  // namespace locus::cpu
