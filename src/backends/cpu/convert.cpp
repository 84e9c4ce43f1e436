// Bulk float16/bfloat16 conversion (convert.h). Each vector loop handles whole vectors and leaves
// the tail to the portable loop; the fix-ups that make the instructions agree with half.h:
//  - float -> float16 (VCVTPS2PH): NaN lanes are replaced by sign | quiet NaN before converting,
//    so the payload is dropped (half.h gives sign | 0x7e00);
//  - float16 -> float (VCVTPH2PS) needs none: it quiets a signalling NaN and keeps the payload,
//    as half.h does;
//  - float -> bfloat16 (VCVTNEPS2BF16): NaN lanes become 0x7fc0, and denormal lanes, which the
//    instruction reads as zero, are rounded in integer arithmetic as half.h does (only when a
//    vector has one); the AVX2 path is that integer rounding on every lane;
//  - bfloat16 -> float is a 16-bit shift everywhere.
#include "backends/cpu/convert.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "locus/error.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define LOCUS_CONVERT_X86 1
#define LOCUS_TARGET_AVX2 __attribute__((target("avx2,f16c")))
#define LOCUS_TARGET_AVX512 __attribute__((target("avx2,f16c,avx512f,avx512bw,avx512vl,avx512bf16")))
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers: `__m512i __Y = __Y;`
#endif
#endif

namespace locus::cpu {
namespace {

void half_to_float_portable(const Half* s, float* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = Half::to_float(s[i].x);
}
void float_to_half_portable(const float* s, Half* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i].x = Half::from_float(s[i]);
}
void bf16_to_float_portable(const BFloat16* s, float* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = BFloat16::to_float(s[i].x);
}
void float_to_bf16_portable(const float* s, BFloat16* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i].x = BFloat16::from_float(s[i]);
}

#ifdef LOCUS_CONVERT_X86
LOCUS_TARGET_AVX2 void half_to_float_f16c(const Half* s, float* d, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
  half_to_float_portable(s + i, d + i, n - i);
}

LOCUS_TARGET_AVX2 void float_to_half_f16c(const float* s, Half* d, int64_t n) {
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0x80000000u)));
  const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(s + i);
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    x = _mm256_blendv_ps(x, _mm256_or_ps(_mm256_and_ps(x, sign), qnan), nan);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  }
  float_to_half_portable(s + i, d + i, n - i);
}

LOCUS_TARGET_AVX2 void bf16_to_float_avx2(const BFloat16* s, float* d, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm256_slli_epi32(u, 16));
  }
  bf16_to_float_portable(s + i, d + i, n - i);
}

// half.h's rounding, 8 lanes: (u + 0x7fff + ((u >> 16) & 1)) >> 16, NaN -> 0x7fc0.
LOCUS_TARGET_AVX2 void float_to_bf16_avx2(const float* s, BFloat16* d, int64_t n) {
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff), canon = _mm256_set1_epi32(0x7fc0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(s + i);
    __m256i u = _mm256_castps_si256(x);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, bias), odd), 16);
    r = _mm256_blendv_epi8(r, canon, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
    __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));  // all <= 0xffff
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), packed);
  }
  float_to_bf16_portable(s + i, d + i, n - i);
}

LOCUS_TARGET_AVX512 void bf16_to_float_avx512(const BFloat16* s, float* d, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    _mm512_storeu_si512(d + i, _mm512_slli_epi32(u, 16));
  }
  bf16_to_float_portable(s + i, d + i, n - i);
}

LOCUS_TARGET_AVX512 void float_to_bf16_avx512(const float* s, BFloat16* d, int64_t n) {
  const __m512i one = _mm512_set1_epi32(1), bias = _mm512_set1_epi32(0x7fff);
  const __m512i exp_bits = _mm512_set1_epi32(0x7f800000), mant_bits = _mm512_set1_epi32(0x007fffff);
  const __m256i canon = _mm256_set1_epi16(0x7fc0);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 x = _mm512_loadu_ps(s + i);
    __m256i r = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x));
    __m512i u = _mm512_castps_si512(x);
    // denormals: exponent bits zero, mantissa not
    __mmask16 den = _mm512_mask_test_epi32_mask(_mm512_testn_epi32_mask(u, exp_bits), u, mant_bits);
    if (den) {
      __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
      __m512i ri = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, bias), odd), 16);
      r = _mm256_mask_mov_epi16(r, den, _mm512_cvtepi32_epi16(ri));
    }
    r = _mm256_mask_mov_epi16(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), canon);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), r);
  }
  float_to_bf16_portable(s + i, d + i, n - i);
}
#endif

ConvertLevel detect() {
#ifdef LOCUS_CONVERT_X86
  __builtin_cpu_init();
  unsigned a = 0, b = 0, c = 0, d = 0;
  // F16C is CPUID.1:ECX[29], AVX512_BF16 is CPUID.(7,1):EAX[5] (read directly: not every
  // compiler's __builtin_cpu_supports knows them); the OS-state checks come with "avx2"/"avx512f".
  const bool f16c = __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1u);
  if (!f16c || !__builtin_cpu_supports("avx2")) return ConvertLevel::kPortable;
  const bool bf16 = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1u);
  if (bf16 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return ConvertLevel::kAvx512Bf16;
  return ConvertLevel::kAvx2;
#else
  return ConvertLevel::kPortable;
#endif
}

ConvertLevel checked(ConvertLevel level) {
  if (level > convert_level_supported())
    throw Error(std::string("[cpu convert] level ") + convert_path(level) + " is above what this CPU supports (" +
                convert_path(convert_level_supported()) + "). Ask for convert_level_supported() or lower.");
  return level;
}

}  // namespace

ConvertLevel convert_level_supported() {
  static const ConvertLevel level = detect();
  return level;
}

ConvertLevel parse_convert_level(const char* value) {
  if (value == nullptr || *value == '\0') return ConvertLevel::kAvx512Bf16;  // no cap
  const std::string v = value;
  if (v == "portable" || v == "generic") return ConvertLevel::kPortable;
  if (v == "avx2") return ConvertLevel::kAvx2;
  if (v == "avx512_bf16" || v == "avx512") return ConvertLevel::kAvx512Bf16;
  throw Error("[cpu] LOCUS_CPU_ISA='" + v +
              "' is not a cpu code level: use generic (or portable), avx2 or avx512 (or avx512_bf16) (the highest "
              "level used; unset: the best this CPU has).");
}

ConvertLevel convert_level() {
  static const ConvertLevel level = [] {
    ConvertLevel cap = parse_convert_level(std::getenv("LOCUS_CPU_ISA"));
    return std::min(cap, convert_level_supported());
  }();
  return level;
}

const char* half_convert_path(ConvertLevel level) {
  return level == ConvertLevel::kPortable ? "portable" : "f16c";
}
const char* bf16_convert_path(ConvertLevel level) {
  switch (level) {
    case ConvertLevel::kAvx512Bf16: return "avx512_bf16";
    case ConvertLevel::kAvx2: return "avx2";
    default: return "portable";
  }
}
const char* convert_path(ConvertLevel level) {
  switch (level) {
    case ConvertLevel::kAvx512Bf16: return "f16c+avx512_bf16";
    case ConvertLevel::kAvx2: return "f16c+avx2";
    default: return "portable";
  }
}

void half_to_float(const Half* src, float* dst, int64_t n, ConvertLevel level) {
#ifdef LOCUS_CONVERT_X86
  if (checked(level) != ConvertLevel::kPortable) return half_to_float_f16c(src, dst, n);
#endif
  half_to_float_portable(src, dst, n);
}
void float_to_half(const float* src, Half* dst, int64_t n, ConvertLevel level) {
#ifdef LOCUS_CONVERT_X86
  if (checked(level) != ConvertLevel::kPortable) return float_to_half_f16c(src, dst, n);
#endif
  float_to_half_portable(src, dst, n);
}
void bf16_to_float(const BFloat16* src, float* dst, int64_t n, ConvertLevel level) {
#ifdef LOCUS_CONVERT_X86
  switch (checked(level)) {
    case ConvertLevel::kAvx512Bf16: return bf16_to_float_avx512(src, dst, n);
    case ConvertLevel::kAvx2: return bf16_to_float_avx2(src, dst, n);
    default: break;
  }
#endif
  bf16_to_float_portable(src, dst, n);
}
void float_to_bf16(const float* src, BFloat16* dst, int64_t n, ConvertLevel level) {
#ifdef LOCUS_CONVERT_X86
  switch (checked(level)) {
    case ConvertLevel::kAvx512Bf16: return float_to_bf16_avx512(src, dst, n);
    case ConvertLevel::kAvx2: return float_to_bf16_avx2(src, dst, n);
    default: break;
  }
#endif
  float_to_bf16_portable(src, dst, n);
}

void half_to_float(const Half* src, float* dst, int64_t n) { half_to_float(src, dst, n, convert_level()); }
void float_to_half(const float* src, Half* dst, int64_t n) { float_to_half(src, dst, n, convert_level()); }
void bf16_to_float(const BFloat16* src, float* dst, int64_t n) { bf16_to_float(src, dst, n, convert_level()); }
void float_to_bf16(const float* src, BFloat16* dst, int64_t n) { float_to_bf16(src, dst, n, convert_level()); }

}  // namespace locus::cpu
