// libmvec's 16-lane erff, erfcf, expf and tanhf (vec_math.h). They are exported under the vector
// function ABI's names (_ZGVeN16v_<f>: AVX-512, one __m512 in and out, in zmm0), at most 4 ulp from
// the correctly rounded result; resolved once with dlsym, so a libc without them (before 2.35)
// leaves the scalar loops in place.
#include "backends/cpu/vec_math.h"

#include <dlfcn.h>

#include "backends/cpu/conv_avx512.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define LOCUS_AVX512 __attribute__((target("avx512f,fma")))

namespace locus::cpu::vec_math {
namespace {

using Fn = __m512 (*)(__m512);
struct Fns {
  Fn erf = nullptr, erfc = nullptr, exp = nullptr, tanh = nullptr;
};

const Fns* fns() {
  static const Fns* const loaded = []() -> const Fns* {
    if (!conv_avx512::available()) return nullptr;  // (AVX-512F, and LOCUS_CPU_ISA not capping it)
    void* h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return nullptr;
    static Fns f;
    f.erf = reinterpret_cast<Fn>(dlsym(h, "_ZGVeN16v_erff"));
    f.erfc = reinterpret_cast<Fn>(dlsym(h, "_ZGVeN16v_erfcf"));
    f.exp = reinterpret_cast<Fn>(dlsym(h, "_ZGVeN16v_expf"));
    f.tanh = reinterpret_cast<Fn>(dlsym(h, "_ZGVeN16v_tanhf"));
    return f.erf && f.erfc && f.exp && f.tanh ? &f : nullptr;
  }();
  return loaded;
}

inline __mmask16 lanes(int64_t left) { return left >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << left) - 1); }

}  // namespace

LOCUS_AVX512 bool gelu(float* o, const float* x, int64_t n, bool tanh_form) {
  const Fns* f = fns();
  if (f == nullptr) return false;
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

LOCUS_AVX512 bool gelu_backward(float* o, const float* g, int64_t gs, const float* x, int64_t n, bool tanh_form) {
  const Fns* f = fns();
  if (f == nullptr) return false;
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

}  // namespace locus::cpu::vec_math

#else  // not x86-64: the scalar loops serve

namespace locus::cpu::vec_math {
bool gelu(float*, const float*, int64_t, bool) { return false; }
bool gelu_backward(float*, const float*, int64_t, const float*, int64_t, bool) { return false; }
}  // namespace locus::cpu::vec_math

#endif
