// Strided copy with dtype conversion (every pair of the 8 dtypes), fill and fill_linear.
// Same-dtype copies move bytes (memcpy per contiguous run); converting copies go through
// convert<To, From> in kernels.h, which fixes the rules (bool is != 0, float -> int truncates);
// contiguous float32 <-> float16/bfloat16 runs use convert.h's bulk conversion (same bits).
#include <cmath>
#include <cstring>

#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

constexpr int64_t kGrainBytes = 1 << 20;  // memcpy: split above 1 MiB per thread

template <class To, class From>
LOCUS_CPU_CLONES void convert_contig(To* __restrict o, const From* __restrict a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = convert<To>(a[i]);
}

template <class To, class From>
void convert_copy(const TensorRef& out, const TensorRef& in) {
  const TensorRef* refs[2] = {&out, &in};
  for_each_run<2>(refs, kGrainCheap, [](char* const* p, const int64_t* s, int64_t n) {
    if constexpr (std::is_same_v<To, float> && is_half_v<From>) {  // widen: F16C / AVX-512 (convert.h)
      if (s[0] == sizeof(To) && s[1] == sizeof(From))
        return to_float(reinterpret_cast<const From*>(p[1]), reinterpret_cast<float*>(p[0]), n);
    } else if constexpr (is_half_v<To> && std::is_same_v<From, float>) {  // round
      if (s[0] == sizeof(To) && s[1] == sizeof(From))
        return from_float(reinterpret_cast<const float*>(p[1]), reinterpret_cast<To*>(p[0]), n);
    }
    if (s[0] == sizeof(To) && s[1] == sizeof(From))
      return convert_contig<To, From>(reinterpret_cast<To*>(p[0]), reinterpret_cast<const From*>(p[1]), n);
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<To*>(p[0] + i * s[0]) = convert<To>(*reinterpret_cast<const From*>(p[1] + i * s[1]));
  });
}

template <class U>
void byte_copy(const TensorRef& out, const TensorRef& in) {
  const TensorRef* refs[2] = {&out, &in};
  for_each_run<2>(refs, kGrainBytes / static_cast<int64_t>(sizeof(U)), [](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(U) && s[1] == sizeof(U)) {
      std::memcpy(p[0], p[1], static_cast<size_t>(n) * sizeof(U));
      return;
    }
    if (s[0] == sizeof(U) && s[1] == 0) {  // broadcast (expand(...).contiguous())
      U v = *reinterpret_cast<const U*>(p[1]);
      U* o = reinterpret_cast<U*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      return;
    }
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<U*>(p[0] + i * s[0]) = *reinterpret_cast<const U*>(p[1] + i * s[1]);
  });
}

template <class T>
LOCUS_CPU_CLONES void fill_contig(T* __restrict o, T v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = v;
}

template <class T>
void fill_typed(const TensorRef& out, T v) {
  const TensorRef* refs[1] = {&out};
  for_each_run<1>(refs, kGrainBytes / static_cast<int64_t>(sizeof(T)), [v](char* const* p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T)) return fill_contig<T>(reinterpret_cast<T*>(p[0]), v, n);
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
  });
}

}  // namespace

void copy(const TensorRef& out, const TensorRef& in) {
  if (out.dtype == in.dtype) {
    switch (esize(out.dtype)) {
      case 1: return byte_copy<uint8_t>(out, in);
      case 2: return byte_copy<uint16_t>(out, in);
      case 4: return byte_copy<uint32_t>(out, in);
      default: return byte_copy<uint64_t>(out, in);
    }
  }
  visit_dtype(out.dtype, "copy", [&](auto to_tag) {
    using To = LOCUS_TYPE_OF(to_tag);
    visit_dtype(in.dtype, "copy", [&](auto from_tag) {
      using From = LOCUS_TYPE_OF(from_tag);
      convert_copy<To, From>(out, in);
    });
  });
}

void fill(const TensorRef& out, double value) {
  visit_dtype(out.dtype, "fill", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    fill_typed<T>(out, convert<T>(value));
  });
}

void fill_linear(const TensorRef& out, double start, double step) {
  visit_dtype(out.dtype, "fill_linear", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    T* o = data_as<T>(out.buf);
    int64_t n = out.numel(), stride = out.ndim > 0 ? out.strides[out.ndim - 1] : 1;
    if (out.ndim > 1) stride = 1;  // contiguous by contract; a 1-D ref may carry any stride
    bool exact_int = std::is_integral_v<T> && start == std::trunc(start) && step == std::trunc(step) &&
                     std::fabs(start) < 9.2e18 && std::fabs(step) < 9.2e18;
    parallel_for(0, n, kGrainCheap, [&](int64_t b, int64_t e) {
      if (exact_int) {  // int64 arithmetic: no rounding beyond 2^53
        int64_t s0 = static_cast<int64_t>(start), st = static_cast<int64_t>(step);
        for (int64_t i = b; i < e; ++i)
          o[i * stride] = convert<T>(static_cast<int64_t>(static_cast<uint64_t>(s0) + static_cast<uint64_t>(st) * static_cast<uint64_t>(i)));
      } else {
        for (int64_t i = b; i < e; ++i) o[i * stride] = convert<T>(start + static_cast<double>(i) * step);
      }
    });
  });
}

}  // namespace locus::cpu
