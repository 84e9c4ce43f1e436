// libmvec's erff, erfcf, expf and tanhf, 16 lanes with AVX-512 or 8 with AVX2 + FMA (vec_math.h).
// They are exported under the vector function ABI's names (_ZGVeN16v_<f>: one __m512 in and out,
// in zmm0; _ZGVdN8v_<f>: one __m256, in ymm0), at most 4 ulp from the correctly rounded result;
// resolved once with dlsym, so a libc without them (before 2.35) leaves the scalar loops in place.
#include "backends/cpu/vec_math.h"

#include <dlfcn.h>

#include <string>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))
#define LOCUS_AVX2 __attribute__((target("avx2,fma")))

namespace locus::cpu::vec_math {
namespace {

// The four functions of one width (16: AVX-512, 8: AVX2), resolved by dlsym under the vector
// ABI's prefix. (The width, not the vector type, is the template argument: GCC drops a vector
// type's attributes from template arguments, with a warning.)
template <int Lanes>
struct Vec;
template <>
struct Vec<16> {
  using type = __m512;
};
template <>
struct Vec<8> {
  using type = __m256;
};
template <int Lanes>
struct Fns {
  using V = typename Vec<Lanes>::type;
  using Fn = V (*)(V);
  Fn erf = nullptr, erfc = nullptr, exp = nullptr, tanh = nullptr;
  explicit Fns(const char* prefix) {
    void* h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return;
    auto sym = [&](const char* name) { return reinterpret_cast<Fn>(dlsym(h, (std::string(prefix) + name).c_str())); };
    erf = sym("erff"), erfc = sym("erfcf"), exp = sym("expf"), tanh = sym("tanhf");
  }
  bool complete() const { return erf && erfc && exp && tanh; }
};
using Fns16 = Fns<16>;
using Fns8 = Fns<8>;

// The AVX-512 ones (AVX-512F, and LOCUS_CPU_ISA not capping it), else null.
const Fns16* fns16() {
  static const Fns16* const loaded = []() -> const Fns16* {
    if (!conv_avx512::available()) return nullptr;
    static const Fns16 f("_ZGVeN16v_");
    return f.complete() ? &f : nullptr;
  }();
  return loaded;
}
// The AVX2 ones where AVX-512 is not used (an AVX2 CPU, or LOCUS_CPU_ISA=avx2), else null.
const Fns8* fns8() {
  static const Fns8* const loaded = []() -> const Fns8* {
    if (fns16() != nullptr || !conv_avx2::available()) return nullptr;
    static const Fns8 f("_ZGVdN8v_");
    return f.complete() ? &f : nullptr;
  }();
  return loaded;
}

// The first min(left, 8) lanes of a mask for AVX2's masked loads and stores.
LOCUS_AVX2 inline __m256i lanes8(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left < 8 ? left : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

LOCUS_AVX2 bool gelu8(const Fns8* f, float* o, const float* x, int64_t n, bool tanh_form) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f), rsqrt2 = _mm256_set1_ps(0.70710678118654752440f),
               k = _mm256_set1_ps(0.79788456080286535588f), c = _mm256_set1_ps(0.044715f);
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i m = lanes8(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m), hv = _mm256_mul_ps(half, v);
    __m256 s;
    if (tanh_form) s = _mm256_add_ps(one, f->tanh(_mm256_mul_ps(k, _mm256_fmadd_ps(_mm256_mul_ps(c, v), _mm256_mul_ps(v, v), v))));
    else s = _mm256_add_ps(one, f->erf(_mm256_mul_ps(v, rsqrt2)));
    _mm256_maskstore_ps(o + i, m, _mm256_mul_ps(hv, s));
  }
  return true;
}

LOCUS_AVX2 bool gelu_backward8(const Fns8* f, float* o, const float* g, int64_t gs, const float* x, int64_t n, bool tanh_form) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.f), mrsqrt2 = _mm256_set1_ps(-0.70710678118654752440f),
               mhalf = _mm256_set1_ps(-0.5f), rsqrt2pi = _mm256_set1_ps(0.39894228040143267794f),
               k = _mm256_set1_ps(0.79788456080286535588f), c = _mm256_set1_ps(0.044715f), c3 = _mm256_set1_ps(3 * 0.044715f);
  for (int64_t i = 0; i < n; i += 8) {
    const __m256i m = lanes8(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m), v2 = _mm256_mul_ps(v, v);
    const __m256 gv = gs == 0 ? _mm256_set1_ps(*g) : _mm256_maskload_ps(g + i, m);
    __m256 d;
    if (tanh_form) {
      const __m256 t = f->tanh(_mm256_mul_ps(k, _mm256_fmadd_ps(_mm256_mul_ps(c, v), v2, v)));
      const __m256 a = _mm256_mul_ps(half, _mm256_add_ps(one, t));
      const __m256 b = _mm256_mul_ps(_mm256_mul_ps(half, _mm256_mul_ps(k, v)), _mm256_fnmadd_ps(t, t, one));
      d = _mm256_fmadd_ps(b, _mm256_fmadd_ps(c3, v2, one), a);
    } else {
      const __m256 cdf = _mm256_mul_ps(half, f->erfc(_mm256_mul_ps(v, mrsqrt2)));
      const __m256 pdf = _mm256_mul_ps(f->exp(_mm256_mul_ps(mhalf, v2)), rsqrt2pi);
      d = _mm256_fmadd_ps(v, pdf, cdf);
    }
    _mm256_maskstore_ps(o + i, m, _mm256_mul_ps(gv, d));
  }
  return true;
}

inline __mmask16 lanes(int64_t left) { return left >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << left) - 1); }

LOCUS_AVX512 bool gelu16(const Fns16* f, float* o, const float* x, int64_t n, bool tanh_form) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f), rsqrt2 = _mm512_set1_ps(0.70710678118654752440f),
               k = _mm512_set1_ps(0.79788456080286535588f), c = _mm512_set1_ps(0.044715f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i), hv = _mm512_mul_ps(half, v);
    __m512 s;  // 1 + erf(v / sqrt 2), or 1 + tanh(k (v + c v^3))
    if (tanh_form) s = _mm512_add_ps(one, f->tanh(_mm512_mul_ps(k, _mm512_fmadd_ps(_mm512_mul_ps(c, v), _mm512_mul_ps(v, v), v))));
    else s = _mm512_add_ps(one, f->erf(_mm512_mul_ps(v, rsqrt2)));
    _mm512_mask_storeu_ps(o + i, m, _mm512_mul_ps(hv, s));
  }
  return true;
}

LOCUS_AVX512 bool gelu_backward16(const Fns16* f, float* o, const float* g, int64_t gs, const float* x, int64_t n,
                                   bool tanh_form) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.f), mrsqrt2 = _mm512_set1_ps(-0.70710678118654752440f),
               mhalf = _mm512_set1_ps(-0.5f), rsqrt2pi = _mm512_set1_ps(0.39894228040143267794f),
               k = _mm512_set1_ps(0.79788456080286535588f), c = _mm512_set1_ps(0.044715f), c3 = _mm512_set1_ps(3 * 0.044715f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = lanes(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i), v2 = _mm512_mul_ps(v, v);
    const __m512 gv = gs == 0 ? _mm512_set1_ps(*g) : _mm512_maskz_loadu_ps(m, g + i);
    __m512 d;
    if (tanh_form) {  // 0.5 (1 + t) + 0.5 k v (1 - t^2) (1 + 3 c v^2), t = tanh(k (v + c v^3))
      const __m512 t = f->tanh(_mm512_mul_ps(k, _mm512_fmadd_ps(_mm512_mul_ps(c, v), v2, v)));
      const __m512 a = _mm512_mul_ps(half, _mm512_add_ps(one, t));
      const __m512 b = _mm512_mul_ps(_mm512_mul_ps(half, _mm512_mul_ps(k, v)), _mm512_fnmadd_ps(t, t, one));
      d = _mm512_fmadd_ps(b, _mm512_fmadd_ps(c3, v2, one), a);
    } else {  // Phi(v) + v phi(v), Phi by erfc (exact in the negative tail)
      const __m512 cdf = _mm512_mul_ps(half, f->erfc(_mm512_mul_ps(v, mrsqrt2)));
      const __m512 pdf = _mm512_mul_ps(f->exp(_mm512_mul_ps(mhalf, v2)), rsqrt2pi);
      d = _mm512_fmadd_ps(v, pdf, cdf);
    }
    _mm512_mask_storeu_ps(o + i, m, _mm512_mul_ps(gv, d));
  }
  return true;
}

}  // namespace

// (no target attribute here: nothing of AVX-512 may run before the CPU is known to have it)
bool gelu(float* o, const float* x, int64_t n, bool tanh_form) {
  if (const Fns16* f = fns16()) return gelu16(f, o, x, n, tanh_form);
  if (const Fns8* f = fns8()) return gelu8(f, o, x, n, tanh_form);
  return false;
}

bool gelu_backward(float* o, const float* g, int64_t gs, const float* x, int64_t n, bool tanh_form) {
  if (const Fns16* f = fns16()) return gelu_backward16(f, o, g, gs, x, n, tanh_form);
  if (const Fns8* f = fns8()) return gelu_backward8(f, o, g, gs, x, n, tanh_form);
  return false;
}

}  // namespace locus::cpu::vec_math

#else  // not x86-64: the scalar loops serve

namespace locus::cpu::vec_math {
bool gelu(float*, const float*, int64_t, bool) { return false; }
bool gelu_backward(float*, const float*, int64_t, const float*, int64_t, bool) { return false; }
}  // namespace locus::cpu::vec_math

#endif
