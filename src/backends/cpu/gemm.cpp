// Batched GEMM: float32/float64 go to the BLAS (blas.h) one batch entry at a time; half and
// bfloat16 are widened to float32 around a BLAS call; integer dtypes use a plain loop in int64.
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using Gemm = backend::Backend::Gemm;

// Copies a rows x cols matrix with row stride ld into a dense float matrix.
template <class T>
void widen(const T* src, int64_t rows, int64_t cols, int64_t ld, float* dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[r * cols + c] = static_cast<float>(src[r * ld + c]);
}

template <class T>
void gemm_half(const Gemm& g) {
  const T* a = data_as<const T>(g.a);
  const T* b = data_as<const T>(g.b);
  T* c = data_as<T>(g.c);
  int64_t ar = g.trans_a ? g.k : g.m, ac = g.trans_a ? g.m : g.k;
  int64_t br = g.trans_b ? g.n : g.k, bc = g.trans_b ? g.k : g.n;
  std::vector<float> fa(static_cast<size_t>(ar * ac)), fb(static_cast<size_t>(br * bc)), fc(static_cast<size_t>(g.m * g.n));
  for (int64_t i = 0; i < g.batch; ++i) {
    widen(a + i * g.stride_a, ar, ac, g.lda, fa.data());
    widen(b + i * g.stride_b, br, bc, g.ldb, fb.data());
    T* ci = c + i * g.stride_c;
    if (g.beta != 0) widen(ci, g.m, g.n, g.ldc, fc.data());
    gemm_f32(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<float>(g.alpha), fa.data(), ac, fb.data(), bc,
             static_cast<float>(g.beta), fc.data(), g.n);
    for (int64_t r = 0; r < g.m; ++r)
      for (int64_t col = 0; col < g.n; ++col) ci[r * g.ldc + col] = T(fc[static_cast<size_t>(r * g.n + col)]);
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
