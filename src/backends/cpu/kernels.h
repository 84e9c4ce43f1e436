#pragma once
// Shared helpers of the CPU kernels: data pointers, dtype dispatch, conversions and the strided
// N-operand iterator every elementwise family runs on.
//
// Iteration model (as PyTorch's TensorIterator, much reduced): the operands' dims are coalesced
// (size-1 dims dropped, dims merged where every operand is contiguous across them), then the
// element range [0, numel) is walked as "runs" along the innermost dim. A run hands the kernel one
// pointer and one byte stride per operand, so a contiguous tensor is a single run, a broadcast
// row is a run per row with a contiguous fast path inside, and only truly strided data takes
// the per-element path. Hot loops are compiled for AVX-512, AVX2 and baseline x86-64 with
// LOCUS_CPU_CLONES (target_clones: the loader picks the best one once).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "backends/cpu/parallel_for.h"
#include "core/backend.h"
#include "core/fault.h"
#include "locus/dtype.h"
#include "locus/error.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(LOCUS_NO_CLONES)
#define LOCUS_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LOCUS_CPU_CLONES
#endif

namespace locus::cpu {

using backend::Buffer;
using backend::TensorRef;
using backend::kMaxDims;

/// A fault point (LOCUS_FAULT=scratch:N, core/fault.h) before a kernel takes scratch memory
/// (std::vector, outside the allocator): the injected failure is the std::bad_alloc of a system
/// out of memory, which CpuBackend reports as the op's OutOfMemoryError, as it does a real one.
inline void scratch_fault_point() {
  if (fault::hit(fault::kScratch)) throw std::bad_alloc();
}

/// Elements below which an elementwise op never uses a second thread (per chunk grain).
constexpr int64_t kGrainCheap = 32768;
/// Grain for ops that cost a libm call per element (exp, tanh, erf, pow, ...).
constexpr int64_t kGrainMath = 4096;

/// Bytes per element (inline: element_size() is out of line and this is on every op's path).
inline int64_t esize(ScalarType t) {
  switch (t) {
    case kByte: case kChar: case kBool: return 1;
    case kShort: case kHalf: case kBFloat16: return 2;
    case kInt: case kFloat: return 4;
    default: return 8;
  }
}

inline char* data_ptr(const Buffer& b) { return static_cast<char*>(b.base) + b.offset; }
template <class T>
inline T* data_as(const Buffer& b) {
  return reinterpret_cast<T*>(data_ptr(b));
}

[[noreturn]] inline void unsupported(const char* what, ScalarType t) {
  throw BackendError(std::string("[cpu ") + what + "] dtype " + dtype_name(t) + " is not supported by this kernel.");
}

/// Calls f((T*)nullptr) with T the C++ type of `t`.
template <class F>
inline decltype(auto) visit_dtype(ScalarType t, const char* what, F&& f) {
  switch (t) {
    case kByte: return f(static_cast<uint8_t*>(nullptr));
    case kChar: return f(static_cast<int8_t*>(nullptr));
    case kShort: return f(static_cast<int16_t*>(nullptr));
    case kInt: return f(static_cast<int32_t*>(nullptr));
    case kLong: return f(static_cast<int64_t*>(nullptr));
    case kHalf: return f(static_cast<Half*>(nullptr));
    case kFloat: return f(static_cast<float*>(nullptr));
    case kDouble: return f(static_cast<double*>(nullptr));
    case kBool: return f(static_cast<bool*>(nullptr));
    case kBFloat16: return f(static_cast<BFloat16*>(nullptr));
    default: unsupported(what, t);
  }
}
#define LOCUS_TYPE_OF(tag) std::remove_pointer_t<decltype(tag)>

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

/// The type arithmetic on T happens in: float for Half/BFloat16, int for bool, T otherwise.
template <class T>
struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <> struct compute_type<bool> { using type = int; };
template <class T>
using compute_t = typename compute_type<T>::type;

/// Unsigned arithmetic wide enough for C's products: int8/int16 (and uint8) widen to 32 bits, so
/// that wrapping arithmetic never overflows a promoted signed int.
template <class C>
using wide_unsigned_t = std::make_unsigned_t<std::conditional_t<(sizeof(C) < 4), int32_t, C>>;

/// Value conversion with PyTorch's rules: to bool is `!= 0` (NaN is true), floating to integral
/// truncates toward zero (through int64, so out-of-range values wrap instead of being UB for
/// small types; int8/int16 through int32 as PyTorch's x86 build does: NaN and values outside
/// int32's range give int32's minimum, whose low bits are 0), 16-bit floats go through float.
template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<compute_t<From>>(v) != 0;
  } else if constexpr (std::is_integral_v<To> && is_float_v<From>) {
    using F = std::conditional_t<std::is_same_v<From, double>, double, float>;
    F f = static_cast<F>(v);
    if constexpr (std::is_same_v<To, int64_t>) {
      return static_cast<int64_t>(f);
    } else if constexpr (std::is_same_v<To, int8_t> || std::is_same_v<To, int16_t>) {
      if (!(f >= F(-2147483648.0) && f < F(2147483648.0))) return To(0);
      return static_cast<To>(static_cast<int32_t>(f));
    } else {
      return static_cast<To>(static_cast<int64_t>(f));
    }
  } else if constexpr (is_half_v<To>) {
    return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else {
    return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

/// `v` (a double handed across the backend boundary) as the compute type of T.
template <class T>
inline compute_t<T> scalar_as(double v) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, bool>) return v != 0 ? 1 : 0;
  else if constexpr (std::is_integral_v<C>) return static_cast<C>(static_cast<int64_t>(v));
  else return static_cast<C>(v);
}

inline bool is_contiguous(const TensorRef& t) {
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

/// The one stride walk of the cpu kernels: N stride sets over one shape, coalesced as dims are
/// added (outermost first): a dim of size 1 is dropped, and a dim merges into the previous kept
/// one when every set is contiguous across the two. Strides are in any unit (bytes, elements).
/// A set with stride 1 in one dim and 0 elsewhere yields the position along that dim.
template <int N>
struct Strides {
  // (arrays left uninitialised on purpose: only [0, ndim) is used, and zeroing them showed up
  // as half the cost of a 1-element op)
  int ndim = 0;
  int64_t sizes[kMaxDims];    // innermost last
  int64_t st[N][kMaxDims];

  void add(int64_t size, const int64_t (&s)[N]) {
    if (size == 1) return;
    bool merge = ndim > 0;
    for (int k = 0; k < N && merge; ++k) merge = st[k][ndim - 1] == s[k] * size;
    if (!merge) sizes[ndim++] = size;
    else sizes[ndim - 1] *= size;
    for (int k = 0; k < N; ++k) st[k][ndim - 1] = s[k];
  }
  /// off[k] = the offset of row-major position i in set k.
  void offsets(int64_t i, int64_t (&off)[N]) const {
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      int64_t p = i % sizes[d];
      i /= sizes[d];
      for (int k = 0; k < N; ++k) off[k] += p * st[k][d];
    }
  }
  /// run(off, n) for the runs covering positions [begin, end): n positions from offsets `off`,
  /// stepping by the innermost strides (st[k][ndim - 1]; a walk with no dims is one position).
  template <class F>
  void runs(int64_t begin, int64_t end, F&& run) const {
    const int64_t zero[N] = {};
    runs_from(zero, begin, end, run);
  }
  /// The same walk from `start` (offsets, or pointers: T is int64_t or char*): run(const T* at, n).
  template <class T, class F>
  void runs_from(const T (&start)[N], int64_t begin, int64_t end, F&& run) const {
    T off[N];
    int64_t idx[kMaxDims];
    for (int k = 0; k < N; ++k) off[k] = start[k];
    int64_t rem = begin;
    for (int d = ndim - 1; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * st[k][d];
    }
    if (ndim == 0) {
      if (begin < end) run(static_cast<const T*>(off), int64_t{1});
      return;
    }
    // the first run may start inside the innermost dim; every later one is a whole row of it,
    // so the steady state costs one carry and one compare per run (runs can be short: 64 floats)
    const int last = ndim - 1;
    const int64_t len = sizes[last];
    int64_t left = end - begin;
    if (left <= 0) return;
    int64_t n = std::min(len - idx[last], left);
    run(static_cast<const T*>(off), n);
    left -= n;
    if (left == 0) return;
    for (int k = 0; k < N; ++k) off[k] -= idx[last] * st[k][last];
    for (;;) {
      for (int d = last - 1; d >= 0; --d) {  // carry into the outer dims
        for (int k = 0; k < N; ++k) off[k] += st[k][d];
        if (++idx[d] < sizes[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= sizes[d] * st[k][d];
        idx[d] = 0;
      }
      if (left <= len) {
        run(static_cast<const T*>(off), left);
        return;
      }
      run(static_cast<const T*>(off), len);
      left -= len;
    }
  }
  /// f(off) for each position in [begin, end).
  template <class F>
  void each(int64_t begin, int64_t end, F&& f) const {
    int64_t step[N];
    for (int k = 0; k < N; ++k) step[k] = ndim > 0 ? st[k][ndim - 1] : 0;
    runs(begin, end, [&](const int64_t* start, int64_t n) {
      int64_t off[N];
      for (int k = 0; k < N; ++k) off[k] = start[k];
      for (int64_t j = 0; j < n; ++j) {
        f(static_cast<const int64_t*>(off));
        for (int k = 0; k < N; ++k) off[k] += step[k];
      }
    });
  }
};

/// for_each_run's walk with its callback behind a function pointer: compiled once per operand
/// count N (explicit instantiations in src/backends/cpu/iterate.cpp), not once per operation x
/// dtype. Inlined into every caller, the walk's three paths (contiguous, one run, runs) each took
/// a copy of the caller's loops: most of binary.cpp's compile time.
using RunFn = void (*)(void* ctx, char* const* p, const int64_t* s, int64_t n);

template <int N>
void for_each_run_erased(const TensorRef* const (&refs)[N], int64_t grain, RunFn run, void* ctx) {
  bool contiguous = true;  // the common case needs no iterator at all
  for (int k = 0; k < N && contiguous; ++k) contiguous = is_contiguous(*refs[k]);
  if (contiguous) {
    parallel_for(0, refs[0]->numel(), grain, [&](int64_t b, int64_t e) {
      char* p[N];
      int64_t s[N];
      for (int k = 0; k < N; ++k) {
        s[k] = esize(refs[k]->dtype);
        p[k] = data_ptr(refs[k]->buf) + b * s[k];
      }
      run(ctx, p, s, e - b);
    });
    return;
  }
  Strides<N> it;
  int64_t es[N];
  for (int k = 0; k < N; ++k) es[k] = esize(refs[k]->dtype);
  for (int d = 0; d < refs[0]->ndim; ++d) {
    int64_t s[N];
    for (int k = 0; k < N; ++k) s[k] = refs[k]->strides[d] * es[k];
    it.add(refs[0]->sizes[d], s);
  }
  char* base[N];
  int64_t s[N];
  for (int k = 0; k < N; ++k) {
    base[k] = data_ptr(refs[k]->buf);
    s[k] = it.ndim == 0 ? es[k] : it.st[k][it.ndim - 1];
  }
  if (it.ndim <= 1) {  // one run: one uniform stride per operand
    parallel_for(0, refs[0]->numel(), grain, [&](int64_t b, int64_t e) {
      char* p[N];
      for (int k = 0; k < N; ++k) p[k] = base[k] + b * s[k];
      run(ctx, p, s, e - b);
    });
    return;
  }
  // pointers walked directly (recomputing them from offsets per run cost 1.5x on a [64, 256] + [256])
  parallel_for(0, refs[0]->numel(), grain, [&](int64_t b, int64_t e) {
    it.runs_from(base, b, e, [&](char* const* p, int64_t n) { run(ctx, p, s, n); });
  });
}
extern template void for_each_run_erased<1>(const TensorRef* const (&)[1], int64_t, RunFn, void*);
extern template void for_each_run_erased<2>(const TensorRef* const (&)[2], int64_t, RunFn, void*);
extern template void for_each_run_erased<3>(const TensorRef* const (&)[3], int64_t, RunFn, void*);
extern template void for_each_run_erased<4>(const TensorRef* const (&)[4], int64_t, RunFn, void*);

/// Calls run(char* p[N], const int64_t s[N], int64_t n) over every run of the operands (operand 0
/// is the output), splitting the elements over the pool above `grain` elements per thread.
template <int N, class F>
void for_each_run(const TensorRef* const (&refs)[N], int64_t grain, F&& run) {
  using Fn = std::remove_reference_t<F>;
  for_each_run_erased<N>(
      refs, grain,
      [](void* c, char* const* p, const int64_t* s, int64_t n) { (*static_cast<Fn*>(c))(p, s, n); },
      const_cast<void*>(static_cast<const void*>(&run)));
}

// Entry points of the op-family files (called by CpuBackend).
void unary(backend::UnaryOp op, const TensorRef& out, const TensorRef& in, const backend::UnaryParams& p);
void binary(backend::BinaryOp op, const TensorRef& out, const TensorRef& a, const TensorRef& b);
void binary_scalar(backend::BinaryOp op, const TensorRef& out, const TensorRef& a, double s, bool scalar_first);
void where(const TensorRef& out, const TensorRef& cond, const TensorRef& a, const TensorRef& b);
void copy(const TensorRef& out, const TensorRef& in);
void fill(const TensorRef& out, double value);
void fill_linear(const TensorRef& out, double start, double step);
void reduce(backend::ReduceOp op, const TensorRef& out, const TensorRef& in);
void softmax(const TensorRef& out, const TensorRef& in, int64_t outer, int64_t dim, int64_t inner, bool log);
// cross_entropy's fused forward and backward (Backend::log_softmax_nll), float and double (false
// for other dtypes): src/backends/cpu/reduce.cpp.
bool log_softmax_nll(ScalarType dtype, Buffer logits, Buffer target, Buffer logp, Buffer loss, Buffer count,
                     Buffer bad, int64_t n, int64_t c, int64_t ignore_index, bool mean);
bool log_softmax_nll_backward(ScalarType dtype, Buffer logp, Buffer target, Buffer grad_loss, Buffer count,
                              Buffer grad_in, int64_t n, int64_t c, int64_t ignore_index, bool mean);
void gemm(const backend::Backend::Gemm& g);
void random(backend::RandomKind kind, const TensorRef& out, uint64_t seed, uint64_t offset, double a, double b);
void index(backend::IndexOp op, const TensorRef& out, const TensorRef& in, const TensorRef& idx, int dim);
void im2col(ScalarType dtype, Buffer in, Buffer out, const backend::Backend::Im2Col& p, bool reverse);
void adam_step(ScalarType dtype, Buffer param, Buffer grad, Buffer exp_avg, Buffer exp_avg_sq, Buffer max_sq,
               int64_t n, const backend::Backend::Adam& a);
// How float Adam on AVX-512 updates a vector with a lane of m below 2^-100 (m decaying where the
// gradient is 0; src/backends/cpu/optim.cpp). kDouble: in double, for CPUs whose float arithmetic
// takes a microcode assist on denormals (Intel's: 50-90 ns a vector). kFloat: in float, which AMD's
// Zen 4 runs at about twice its normal cost, half the double path's. Both give the same bits.
// kAuto (the default) resolves to kFloat on AMD CPUs, kDouble elsewhere; set by tests and benchmarks.
enum class AdamDenormalPath { kAuto, kFloat, kDouble };
void set_adam_denormal_path(AdamDenormalPath path);
AdamDenormalPath adam_denormal_path();  // kFloat or kDouble
// GradScaler's fused unscale and inf/NaN check: src/backends/cpu/amp.cpp.
void non_finite_check_and_unscale(ScalarType dtype, const Buffer* tensors, const int64_t* numels, int count,
                                  float inv_scale, Buffer found_inf);
// 2-D convolution, groups 1, float and double (false for other dtypes): src/backends/cpu/conv.cpp (max pooling: pool.cpp).
bool conv2d(ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out, int64_t oc,
            const backend::Backend::Im2Col& p);
bool conv2d_backward(ScalarType dtype, Buffer in, Buffer weight, Buffer grad_out, Buffer grad_in, Buffer grad_weight,
                     Buffer grad_bias, int64_t oc, const backend::Backend::Im2Col& p);
void max_pool2d_backward(ScalarType dtype, Buffer grad_out, Buffer indices, Buffer grad_in, int64_t planes,
                         const backend::Backend::Im2Col& p);
void max_pool2d(ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes,
                const backend::Backend::Im2Col& p);

}  // namespace locus::cpu
