// Reductions over trailing dims, and softmax.
//
// The kept (leading) and reduced (trailing) dims of `in` are coalesced separately, then one of
// three paths runs per output element:
//  - row:     the reduced elements are contiguous: a vectorised reduction with L independent
//             accumulators inside blocks of kBlock elements, blocks combined pairwise (float32
//             sums stay accurate to ~log2(n) roundings, as PyTorch's cascade sum);
//  - column:  one reduced dim, outputs contiguous in `in` (sum over dim 0 of a row-major
//             matrix): tiles of outputs accumulated row by row, which vectorises across outputs;
//  - general: reduced elements gathered kBlock at a time into a stack buffer, then the row path.
// Accumulation types: float for float32/half/bfloat16, double for float64, int64 for integers
// and bool (Sum/Prod). Max/Min propagate NaN; ArgMax/ArgMin return the first extreme, a NaN
// counting as the extreme (the first NaN wins).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LOCUS_SOFTMAX_AVX512 1
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's AVX-512 headers: `__m512 __Y = __Y;`
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace locus::cpu {
namespace {

using backend::ReduceOp;

constexpr int64_t kBlock = 4096;

template <class T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                     std::conditional_t<is_float_v<T>, float, int64_t>>;

template <class A>
inline A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A>) return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class A>
inline A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A>) return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}

// A reducer: accumulator type A, identity, step (fold one element) and combine (fold partials).
template <class T>
struct SumR {
  using A = sum_acc_t<T>;
  static A identity() { return A(0); }
  static A step(A a, A x) { return wrap_add(a, x); }
  static A combine(A a, A b) { return wrap_add(a, b); }
};
template <class T>
struct ProdR {
  using A = sum_acc_t<T>;
  static A identity() { return A(1); }
  static A step(A a, A x) { return wrap_mul(a, x); }
  static A combine(A a, A b) { return wrap_mul(a, b); }
};
template <class T>
struct MaxR {
  using A = compute_t<T>;
  static A identity() {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  static A step(A a, A x) { return (x > a || x != x) ? x : a; }
  static A combine(A a, A b) { return step(a, b); }
};
template <class T>
struct MinR {
  using A = compute_t<T>;
  static A identity() {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  static A step(A a, A x) { return (x < a || x != x) ? x : a; }
  static A combine(A a, A b) { return step(a, b); }
};
template <class T>
struct AnyR {
  using A = bool;
  static A identity() { return false; }
  template <class X> static A step(A a, X x) { return a | (x != X(0)); }
  static A combine(A a, A b) { return a | b; }
};
template <class T>
struct AllR {
  using A = bool;
  static A identity() { return true; }
  template <class X> static A step(A a, X x) { return a & (x != X(0)); }
  static A combine(A a, A b) { return a & b; }
};

template <class R, class T>
inline typename R::A load_acc(const T& v) {
  using A = typename R::A;
  if constexpr (std::is_same_v<A, bool>) return static_cast<compute_t<T>>(v) != 0;
  else return static_cast<A>(static_cast<compute_t<T>>(v));
}

// L independent accumulators (4 vectors of 64 bytes), combined as a tree.
template <class T, class R>
LOCUS_CPU_CLONES typename R::A row_block(const T* __restrict x, int64_t n) {
  using A = typename R::A;
  constexpr int L = sizeof(A) >= 4 ? 256 / static_cast<int>(sizeof(A)) : 64;
  A acc[L];
  for (int j = 0; j < L; ++j) acc[j] = R::identity();
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) acc[j] = R::step(acc[j], load_acc<R>(x[i + j]));
  for (int w = L / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = R::combine(acc[j], acc[j + w]);
  A r = acc[0];
  for (; i < n; ++i) r = R::step(r, load_acc<R>(x[i]));
  return r;
}

template <class T, class R>
typename R::A row_reduce(const T* x, int64_t n) {
  if (n <= kBlock) return row_block<T, R>(x, n);
  int64_t h = (n / 2 + kBlock - 1) / kBlock * kBlock;
  // left half first: the order of a call's arguments is unspecified, and GCC evaluated the right
  // one first, so blocks were read from the end backwards and the hardware prefetchers, which
  // run ahead, fetched the wrong lines (a float32 sum of 16M: 3.4 -> 2.0 ms on one thread)
  typename R::A left = row_reduce<T, R>(x, h);
  return R::combine(left, row_reduce<T, R>(x + h, n - h));
}

// acc[j] = step(acc[j], row[j]) for a tile of contiguous outputs
template <class T, class R>
LOCUS_CPU_CLONES void col_step(typename R::A* __restrict acc, const T* __restrict row, int64_t m) {
  for (int64_t j = 0; j < m; ++j) acc[j] = R::step(acc[j], load_acc<R>(row[j]));
}

using Kept = Strides<2>;     // the kept dims: element strides in `in` and in `out`
using Reduced = Strides<1>;  // the reduced dims: element strides in `in`

// Element offsets of output o (row-major over the kept dims) in `in` and `out`.
inline void kept_offsets(const Kept& k, int64_t o, int64_t* in_off, int64_t* out_off) {
  int64_t off[2];
  k.offsets(o, off);
  *in_off = off[0];
  *out_off = off[1];
}

template <class O, class A>
void store_as(char* p, A v) {
  *reinterpret_cast<O*>(p) = convert<O>(v);
}

template <class T, class R>
void reduce_typed(const TensorRef& out, const TensorRef& in, const Kept& kept, const Reduced& red, int64_t R_n,
                  bool mean) {
  using A = typename R::A;
  void (*store)(char*, A) = nullptr;
  visit_dtype(out.dtype, "reduce", [&](auto tag) { store = &store_as<LOCUS_TYPE_OF(tag), A>; });
  const T* x = data_as<const T>(in.buf);
  char* o = data_ptr(out.buf);
  const int64_t oes = esize(out.dtype);
  const int64_t O_n = out.numel();
  auto finish = [&](A v) -> A {
    if constexpr (std::is_floating_point_v<A>) {
      if (mean) return v / static_cast<A>(R_n);
    }
    return v;
  };

  if (R_n == 0) {  // empty reduction: the identity (mean: 0/0 = NaN)
    A v = R::identity();
    if constexpr (std::is_floating_point_v<A>) {
      if (mean) v = std::numeric_limits<A>::quiet_NaN();
    }
    for (int64_t i = 0; i < O_n; ++i) {
      int64_t a, b;
      kept_offsets(kept, i, &a, &b);
      store(o + b * oes, v);
    }
    return;
  }

  const bool row = red.ndim == 0 || (red.ndim == 1 && red.st[0][0] == 1);
  if (row && O_n == 1) {  // full reduction of a contiguous range: split it over the threads
    int nt = static_cast<int>(std::min<int64_t>(num_threads(), R_n / kGrainCheap));
    if (nt <= 1 || in_parallel_region()) {
      store(o, finish(row_reduce<T, R>(x, R_n)));
      return;
    }
    // One slot per thread in an array, not a std::vector<A>: for A = bool (all, any) that packs
    // the slots into bits of one word, and threads storing their bit raced (TSan).
    std::unique_ptr<A[]> part(new A[static_cast<size_t>(nt)]);
    parallel_for(0, nt, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t lo = R_n * t / nt, hi = R_n * (t + 1) / nt;
        part[static_cast<size_t>(t)] = row_reduce<T, R>(x + lo, hi - lo);
      }
    });
    A v = part[0];
    for (int t = 1; t < nt; ++t) v = R::combine(v, part[static_cast<size_t>(t)]);
    store(o, finish(v));
    return;
  }

  if (!row && red.ndim == 1 && kept.ndim >= 1 && kept.st[0][kept.ndim - 1] == 1) {
    // columns: the innermost kept dim is contiguous in `in` (a reduction over a middle dim, such
    // as [outer, R, inner]): tiles of contiguous outputs, one pass over the rows each
    constexpr int64_t kTile = 256, kRows = 1024;
    const int64_t s = red.st[0][0], ostride = kept.st[1][kept.ndim - 1], inner = kept.sizes[kept.ndim - 1];
    const int64_t row_tiles = (inner + kTile - 1) / kTile, tiles = (O_n / inner) * row_tiles;
    parallel_for(0, tiles, std::max<int64_t>(1, kGrainCheap / (kTile * R_n)), [&](int64_t tb, int64_t te) {
      A acc[kTile], tot[kTile];
      for (int64_t t = tb; t < te; ++t) {
        int64_t q = t / row_tiles, j0 = t % row_tiles * kTile, m = std::min(kTile, inner - j0), a, b;
        kept_offsets(kept, q * inner, &a, &b);
        const T* base = x + a + j0;
        char* dst = o + (b + j0 * ostride) * oes;
        for (int64_t j = 0; j < m; ++j) tot[j] = R::identity();
        for (int64_t r0 = 0; r0 < R_n; r0 += kRows) {  // two levels keep float sums accurate
          for (int64_t j = 0; j < m; ++j) acc[j] = R::identity();
          int64_t r1 = std::min(R_n, r0 + kRows);
          for (int64_t r = r0; r < r1; ++r) col_step<T, R>(acc, base + r * s, m);
          for (int64_t j = 0; j < m; ++j) tot[j] = R::combine(tot[j], acc[j]);
        }
        for (int64_t j = 0; j < m; ++j) store(dst + j * ostride * oes, finish(tot[j]));
      }
    });
    return;
  }

  parallel_for(0, O_n, std::max<int64_t>(1, kGrainCheap / R_n), [&](int64_t ob, int64_t oe) {
    T buf[kBlock];
    for (int64_t i = ob; i < oe; ++i) {
      int64_t a, b;
      kept_offsets(kept, i, &a, &b);
      const T* base = x + a;
      A v;
      if (row) {
        v = row_reduce<T, R>(base, R_n);
      } else if (red.st[0][red.ndim - 1] == 1 && red.sizes[red.ndim - 1] >= 16) {
        // the innermost reduced dim is contiguous (a bias gradient's sum over N, H, W): reduce
        // each run in place, stepping through the outer reduced dims
        v = R::identity();
        red.runs(0, R_n, [&](const int64_t* off, int64_t n) { v = R::combine(v, row_reduce<T, R>(base + off[0], n)); });
      } else {  // gather kBlock reduced elements at a time
        v = R::identity();
        int64_t m = 0;
        red.each(0, R_n, [&](const int64_t* off) {
          buf[m++] = base[off[0]];
          if (m == kBlock) v = R::combine(v, row_block<T, R>(buf, m)), m = 0;
        });
        if (m > 0) v = R::combine(v, row_block<T, R>(buf, m));
      }
      store(o + b * oes, finish(v));
    }
  });
}

template <class T>
void arg_reduce(const TensorRef& out, const TensorRef& in, const Kept& kept, const Reduced& red, int64_t R_n,
                bool is_max) {
  using C = compute_t<T>;
  const T* x = data_as<const T>(in.buf);
  char* o = data_ptr(out.buf);
  const int64_t oes = esize(out.dtype);
  void (*store)(char*, int64_t) = nullptr;
  visit_dtype(out.dtype, "reduce", [&](auto tag) { store = &store_as<LOCUS_TYPE_OF(tag), int64_t>; });
  const int64_t s = red.ndim == 0 ? 1 : red.st[0][0];
  if (red.ndim > 1) throw BackendError("[cpu reduce] argmax/argmin reduce exactly one trailing dim.");
  if (red.ndim == 1 && s != 1 && kept.ndim >= 1 && kept.st[0][kept.ndim - 1] == 1) {
    // columns (a middle dim, as in max pooling's [N*C, kh*kw, L]): tiles of contiguous outputs
    constexpr int64_t kTile = 256;
    const int64_t ostride = kept.st[1][kept.ndim - 1], inner = kept.sizes[kept.ndim - 1];
    const int64_t row_tiles = (inner + kTile - 1) / kTile, tiles = (out.numel() / inner) * row_tiles;
    parallel_for(0, tiles, std::max<int64_t>(1, kGrainCheap / (kTile * R_n)), [&](int64_t tb, int64_t te) {
      C best[kTile];
      int64_t bi[kTile];
      for (int64_t t = tb; t < te; ++t) {
        int64_t q = t / row_tiles, j0 = t % row_tiles * kTile, m = std::min(kTile, inner - j0), a, b;
        kept_offsets(kept, q * inner, &a, &b);
        const T* p = x + a + j0;
        for (int64_t j = 0; j < m; ++j) best[j] = static_cast<C>(p[j]), bi[j] = 0;
        for (int64_t r = 1; r < R_n; ++r) {
          const T* row = p + r * s;
          for (int64_t j = 0; j < m; ++j) {
            C v = static_cast<C>(row[j]);
            // the first NaN wins, and nothing replaces it
            bool take = best[j] == best[j] && (v != v || (is_max ? v > best[j] : v < best[j]));
            best[j] = take ? v : best[j];
            bi[j] = take ? r : bi[j];
          }
        }
        for (int64_t j = 0; j < m; ++j) store(o + (b + (j0 + j) * ostride) * oes, bi[j]);
      }
    });
    return;
  }
  parallel_for(0, out.numel(), std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(R_n, 1)), [&](int64_t ob, int64_t oe) {
    for (int64_t i = ob; i < oe; ++i) {
      int64_t a, b;
      kept_offsets(kept, i, &a, &b);
      const T* p = x + a;
      C best = static_cast<C>(p[0]);
      int64_t bi = 0;
      if (best == best) {
        for (int64_t r = 1; r < R_n; ++r) {
          C v = static_cast<C>(p[r * s]);
          if (v != v) {  // the first NaN wins
            bi = r;
            break;
          }
          if (is_max ? v > best : v < best) {
            best = v;
            bi = r;
          }
        }
      }
      store(o + b * oes, bi);
    }
  });
}

// ---- softmax ------------------------------------------------------------------------------------
// exp(x) for float in a form that vectorises (Cephes' expf: range reduction by ln 2, a degree-6
// polynomial, the exponent by bit arithmetic); within 2 ulp of std::exp. Below -87.3 (where the
// result would be denormal) it is 0, so softmax of -inf (a mask) is exactly 0; NaN stays NaN.
inline float exp_f32(float x) {
  const float hi = 88.3762626647949f, lo = -87.3365447505531f;
  float xc = x > hi ? hi : x;
  xc = xc < lo ? lo : xc;
  // round to nearest with the 1.5 * 2^23 trick (no floor call, so every target vectorises it)
  float fx = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - fx * 0.693359375f + fx * 2.12194440e-4f;
  float z = r * r;
  float y = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
             1.6666665459e-1f) * r + 5.0000001201e-1f;
  y = y * z + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(fx) + 127) << 23;
  float scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  y *= scale;
  y = x < lo ? 0.0f : y;
  y = x > hi ? __builtin_inff() : y;
  return x != x ? x : y;
}

LOCUS_CPU_CLONES void exp_shifted(float* __restrict y, const float* __restrict x, float shift, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_f32(x[i] - shift);
}
LOCUS_CPU_CLONES void scale_row(float* __restrict y, float s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= s;
}

// One float row: max, the exponentials into the output, their sum, then scaling (softmax) or
// (x - max) - log(sum) (log_softmax). Each pass vectorises; the sum keeps many accumulators.
inline void softmax_row_f32(float* y, const float* x, int64_t n, bool log) {
  float mx = row_reduce<float, MaxR<float>>(x, n);
  exp_shifted(y, x, mx, n);
  float sum = row_reduce<float, SumR<float>>(y, n);
  if (log) {
    float ls = std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mx) - ls;
  } else {
    scale_row(y, 1.0f / sum, n);
  }
}

#ifdef LOCUS_SOFTMAX_AVX512
// exp_f32 on 16 lanes: the same reduction and polynomial (FMAs written out), the power of two by
// vscalefps; lanes below -87.3 give 0, above 88.4 infinity. A NaN passes through every step (the
// clamps take it as their second operand, which vmaxps/vminps return when one is NaN).
__attribute__((target("avx512f"))) inline __m512 exp_f32x16(__m512 x) {
  const __m512 hi = _mm512_set1_ps(88.3762626647949f), lo = _mm512_set1_ps(-87.3365447505531f);
  const __m512 xc = _mm512_min_ps(hi, _mm512_max_ps(lo, x));
  const __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fmadd_ps(fx, _mm512_set1_ps(2.12194440e-4f), r);
  const __m512 z = _mm512_mul_ps(r, r);
  __m512 y = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
  y = _mm512_add_ps(_mm512_fmadd_ps(y, z, r), _mm512_set1_ps(1.0f));
  y = _mm512_scalef_ps(y, fx);
  y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ), y, _mm512_setzero_ps());
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ), y, _mm512_set1_ps(__builtin_inff()));
}

// softmax_row_f32 in three passes instead of four: the max, the exponentials stored and summed in
// the same pass (four accumulators), then the scaling or (x - max) - log(sum). vmaxps drops a NaN
// from the max, but the NaN's exponential is NaN, so the sum is, and the whole row comes out NaN
// as PyTorch's (log_softmax too: its log(sum) is NaN). A row of 1000 floats stays in L1 across the
// passes; the time is the exponentials' arithmetic.
__attribute__((target("avx512f"))) void softmax_row_avx512(float* y, const float* x, int64_t n,
                                                           bool log) {
  const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
  __m512 m0 = ninf, m1 = ninf;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    m0 = _mm512_max_ps(m0, a);
    m1 = _mm512_max_ps(m1, b);
  }
  for (; i < n; i += 16) {
    const __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    const __m512 a = _mm512_mask_loadu_ps(ninf, k, x + i);
    m0 = _mm512_max_ps(m0, a);
  }
  const float mx = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
  const __m512 vmx = _mm512_set1_ps(mx);
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512 e0 = exp_f32x16(_mm512_sub_ps(_mm512_loadu_ps(x + i), vmx));
    const __m512 e1 = exp_f32x16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), vmx));
    const __m512 e2 = exp_f32x16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 32), vmx));
    const __m512 e3 = exp_f32x16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 48), vmx));
    _mm512_storeu_ps(y + i, e0);
    _mm512_storeu_ps(y + i + 16, e1);
    _mm512_storeu_ps(y + i + 32, e2);
    _mm512_storeu_ps(y + i + 48, e3);
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
    s2 = _mm512_add_ps(s2, e2);
    s3 = _mm512_add_ps(s3, e3);
  }
  for (; i < n; i += 16) {
    const __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    const __m512 e = exp_f32x16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), vmx));
    _mm512_mask_storeu_ps(y + i, k, e);
    s0 = _mm512_mask_add_ps(s0, k, s0, e);
  }
  const float sum = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
  if (log) {
    const __m512 ls = _mm512_set1_ps(std::log(sum));
    for (i = 0; i < n; i += 16) {
      const __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
      const __m512 v = _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), vmx), ls);
      _mm512_mask_storeu_ps(y + i, k, v);
    }
  } else {
    const __m512 inv = _mm512_set1_ps(1.0f / sum);
    for (i = 0; i < n; i += 16) {
      const __mmask16 k = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
      _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv));
    }
  }
}

// exp_f32 on 8 lanes with AVX2 + FMA: the same reduction and polynomial, the power of two by
// exponent bits as exp_f32 builds it; the same results for lanes below -87.3 (0), above 88.4
// (infinity) and NaN (kept).
__attribute__((target("avx2,fma"))) inline __m256 exp_f32x8(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f), lo = _mm256_set1_ps(-87.3365447505531f);
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
  const __m256 fx = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fmadd_ps(fx, _mm256_set1_ps(2.12194440e-4f), r);
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_add_ps(_mm256_fmadd_ps(y, z, r), _mm256_set1_ps(1.0f));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
  y = _mm256_mul_ps(y, _mm256_castsi256_ps(bits));
  y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

// softmax_row_avx512 with AVX2 + FMA (eight lanes; rows' last n % 8 through the portable steps):
// the max, the exponentials stored and summed in one pass, then the scaling or (x - max) - log(sum).
// vmaxps may drop a NaN from the max, but its exponential is NaN, so the sum is and the whole row
// comes out NaN, as PyTorch's.
__attribute__((target("avx2,fma"))) void softmax_row_avx2(float* y, const float* x, int64_t n, bool log) {
  const int64_t n8 = n / 8 * 8;
  __m256 m0 = _mm256_set1_ps(-__builtin_inff()), m1 = m0;
  int64_t i = 0;
  for (; i + 16 <= n8; i += 16) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    m0 = _mm256_max_ps(m0, a);
    m1 = _mm256_max_ps(m1, b);
  }
  for (; i < n8; i += 8) {
    const __m256 a = _mm256_loadu_ps(x + i);
    m0 = _mm256_max_ps(m0, a);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_max_ps(m0, m1));
  float mx = lanes[0];
  for (int l = 1; l < 8; ++l) mx = MaxR<float>::step(mx, lanes[l]);
  for (i = n8; i < n; ++i) mx = MaxR<float>::step(mx, x[i]);
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (i = 0; i + 32 <= n8; i += 32) {
    const __m256 e0 = exp_f32x8(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx));
    const __m256 e1 = exp_f32x8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vmx));
    const __m256 e2 = exp_f32x8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 16), vmx));
    const __m256 e3 = exp_f32x8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 24), vmx));
    _mm256_storeu_ps(y + i, e0);
    _mm256_storeu_ps(y + i + 8, e1);
    _mm256_storeu_ps(y + i + 16, e2);
    _mm256_storeu_ps(y + i + 24, e3);
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
    s2 = _mm256_add_ps(s2, e2);
    s3 = _mm256_add_ps(s3, e3);
  }
  for (; i < n8; i += 8) {
    const __m256 e = exp_f32x8(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx));
    _mm256_storeu_ps(y + i, e);
    s0 = _mm256_add_ps(s0, e);
  }
  _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (i = n8; i < n; ++i) sum += y[i] = exp_f32(x[i] - mx);
  if (log) {
    const float ls = std::log(sum);
    const __m256 vls = _mm256_set1_ps(ls);
    for (i = 0; i < n8; i += 8)
      _mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx), vls));
    for (; i < n; ++i) y[i] = (x[i] - mx) - ls;
  } else {
    const float inv = 1.0f / sum;
    const __m256 vinv = _mm256_set1_ps(inv);
    for (i = 0; i < n8; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), vinv));
    for (; i < n; ++i) y[i] *= inv;
  }
}
#endif

template <class T>
void softmax_typed(T* out, const T* in, int64_t outer, int64_t dim, int64_t inner, bool log) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, float>) {
    if (inner == 1) {  // rows of float: vectorised passes (max, exp into out, sum, scale)
      void (*row)(float*, const float*, int64_t, bool) = softmax_row_f32;
#ifdef LOCUS_SOFTMAX_AVX512
      if (conv_avx512::available()) row = softmax_row_avx512;  // AVX-512F, unless LOCUS_CPU_ISA caps it
      else if (conv_avx2::available()) row = softmax_row_avx2;  // AVX2 + FMA, unless capped below avx2
#endif
      parallel_for(0, outer, std::max<int64_t>(1, kGrainMath / std::max<int64_t>(dim, 1)), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) row(out + r * dim, in + r * dim, dim, log);
      });
      return;
    }
  }
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kGrainMath / std::max<int64_t>(dim, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T* x = in + r * dim;
        T* y = out + r * dim;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t i = 0; i < dim; ++i) mx = MaxR<C>::step(mx, static_cast<C>(x[i]));
        C sum = 0;
        for (int64_t i = 0; i < dim; ++i) sum += std::exp(static_cast<C>(x[i]) - mx);
        if (log) {  // (x - max) - log(sum): exact first step, no rounding of max + log(sum)
          C ls = std::log(sum);
          for (int64_t i = 0; i < dim; ++i) y[i] = static_cast<T>((static_cast<C>(x[i]) - mx) - ls);
        } else {
          C inv = C(1) / sum;
          for (int64_t i = 0; i < dim; ++i) y[i] = static_cast<T>(std::exp(static_cast<C>(x[i]) - mx) * inv);
        }
      }
    });
    return;
  }
  constexpr int64_t kTile = 128;
  int64_t tiles = (inner + kTile - 1) / kTile;
  parallel_for(0, outer * tiles, std::max<int64_t>(1, kGrainMath / std::max<int64_t>(dim * kTile, 1)), [&](int64_t b, int64_t e) {
    C mx[kTile], sum[kTile];
    for (int64_t t = b; t < e; ++t) {
      int64_t r = t / tiles, i0 = (t % tiles) * kTile, m = std::min(kTile, inner - i0);
      const T* x = in + r * dim * inner + i0;
      T* y = out + r * dim * inner + i0;
      for (int64_t j = 0; j < m; ++j) {
        mx[j] = -std::numeric_limits<C>::infinity();
        sum[j] = 0;
      }
      for (int64_t d = 0; d < dim; ++d)
        for (int64_t j = 0; j < m; ++j) mx[j] = MaxR<C>::step(mx[j], static_cast<C>(x[d * inner + j]));
      for (int64_t d = 0; d < dim; ++d)
        for (int64_t j = 0; j < m; ++j) sum[j] += std::exp(static_cast<C>(x[d * inner + j]) - mx[j]);
      if (log) {
        for (int64_t j = 0; j < m; ++j) sum[j] = std::log(sum[j]);
        for (int64_t d = 0; d < dim; ++d)
          for (int64_t j = 0; j < m; ++j)
            y[d * inner + j] = static_cast<T>((static_cast<C>(x[d * inner + j]) - mx[j]) - sum[j]);
      } else {
        for (int64_t j = 0; j < m; ++j) sum[j] = C(1) / sum[j];
        for (int64_t d = 0; d < dim; ++d)
          for (int64_t j = 0; j < m; ++j)
            y[d * inner + j] = static_cast<T>(std::exp(static_cast<C>(x[d * inner + j]) - mx[j]) * sum[j]);
      }
    }
  });
}

}  // namespace

void reduce(ReduceOp op, const TensorRef& out, const TensorRef& in) {
  const int nk = out.ndim;
  if (in.ndim < nk) throw BackendError("[cpu reduce] the input has fewer dims than the output.");
  Kept kept;
  Reduced red;
  for (int d = 0; d < nk; ++d) kept.add(in.sizes[d], {in.strides[d], out.strides[d]});
  int64_t R_n = 1;
  for (int d = nk; d < in.ndim; ++d) {
    red.add(in.sizes[d], {in.strides[d]});
    R_n *= in.sizes[d];
  }
  visit_dtype(in.dtype, "reduce", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    switch (op) {
      case ReduceOp::Sum: return reduce_typed<T, SumR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::Mean:
        if constexpr (is_float_v<T>) return reduce_typed<T, SumR<T>>(out, in, kept, red, R_n, true);
        else unsupported("reduce mean", in.dtype);
      case ReduceOp::Prod: return reduce_typed<T, ProdR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::Max: return reduce_typed<T, MaxR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::Min: return reduce_typed<T, MinR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::Any: return reduce_typed<T, AnyR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::All: return reduce_typed<T, AllR<T>>(out, in, kept, red, R_n, false);
      case ReduceOp::ArgMax: return arg_reduce<T>(out, in, kept, red, R_n, true);
      case ReduceOp::ArgMin: return arg_reduce<T>(out, in, kept, red, R_n, false);
    }
    throw BackendError("[cpu reduce] unknown op " + std::to_string(static_cast<int>(op)) + ".");
  });
}

void softmax(const TensorRef& out, const TensorRef& in, int64_t outer, int64_t dim, int64_t inner, bool log) {
  if (outer * dim * inner == 0) return;
  visit_dtype(in.dtype, "softmax", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (is_float_v<T>) softmax_typed<T>(data_as<T>(out.buf), data_as<const T>(in.buf), outer, dim, inner, log);
    else unsupported("softmax", in.dtype);
  });
}

namespace {

template <class T>
void log_softmax_nll_typed(const T* x, const int64_t* t, T* logp, T* loss, T* count, int64_t* bad, int64_t n,
                           int64_t c, int64_t ignore_index, bool mean) {
  using C = compute_t<T>;
  softmax_typed<T>(logp, x, n, c, 1, true);
  C sum = 0;
  int64_t rows = 0;
  *bad = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (t[i] == ignore_index) continue;
    if (t[i] < 0 || t[i] >= c) {
      if (*bad < 0) *bad = i;
      continue;
    }
    sum -= static_cast<C>(logp[i * c + t[i]]);
    ++rows;
  }
  *count = static_cast<T>(rows);
  *loss = static_cast<T>(mean ? sum / static_cast<C>(rows) : sum);  // 0 / 0: NaN, as PyTorch
}

template <class T>
void log_softmax_nll_backward_typed(const T* logp, const int64_t* t, const T* grad_loss, const T* count, T* grad_in,
                                    int64_t n, int64_t c, int64_t ignore_index, bool mean) {
  using C = compute_t<T>;
  const C scale = mean ? static_cast<C>(*grad_loss) / static_cast<C>(*count) : static_cast<C>(*grad_loss);
  parallel_for(0, n, std::max<int64_t>(1, kGrainMath / std::max<int64_t>(c, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T* g = grad_in + i * c;
      if (t[i] == ignore_index) {
        std::fill(g, g + c, T(0));
        continue;
      }
      const T* lp = logp + i * c;
      for (int64_t j = 0; j < c; ++j) g[j] = static_cast<T>(std::exp(static_cast<C>(lp[j])) * scale);
      g[t[i]] = static_cast<T>(static_cast<C>(g[t[i]]) - scale);
    }
  });
}

}  // namespace

bool log_softmax_nll(ScalarType dtype, Buffer logits, Buffer target, Buffer logp, Buffer loss, Buffer count,
                     Buffer bad, int64_t n, int64_t c, int64_t ignore_index, bool mean) {
  if (dtype == kFloat)
    log_softmax_nll_typed<float>(data_as<const float>(logits), data_as<const int64_t>(target), data_as<float>(logp),
                                 data_as<float>(loss), data_as<float>(count), data_as<int64_t>(bad), n, c,
                                 ignore_index, mean);
  else if (dtype == kDouble)
    log_softmax_nll_typed<double>(data_as<const double>(logits), data_as<const int64_t>(target),
                                  data_as<double>(logp), data_as<double>(loss), data_as<double>(count),
                                  data_as<int64_t>(bad), n, c, ignore_index, mean);
  else
    return false;
  return true;
}

bool log_softmax_nll_backward(ScalarType dtype, Buffer logp, Buffer target, Buffer grad_loss, Buffer count,
                              Buffer grad_in, int64_t n, int64_t c, int64_t ignore_index, bool mean) {
  if (dtype == kFloat)
    log_softmax_nll_backward_typed<float>(data_as<const float>(logp), data_as<const int64_t>(target),
                                          data_as<const float>(grad_loss), data_as<const float>(count),
                                          data_as<float>(grad_in), n, c, ignore_index, mean);
  else if (dtype == kDouble)
    log_softmax_nll_backward_typed<double>(data_as<const double>(logp), data_as<const int64_t>(target),
                                           data_as<const double>(grad_loss), data_as<const double>(count),
                                           data_as<double>(grad_in), n, c, ignore_index, mean);
  else
    return false;
  return true;
}

}  // namespace locus::cpu
