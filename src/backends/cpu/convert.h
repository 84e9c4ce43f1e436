#pragma once
// Bulk float16/bfloat16 <-> float32 conversion for the cpu kernels (casts, GEMM panels,
// convolution copies): the vector instructions this CPU has, chosen once at run time, and
// Half/BFloat16's per-element code (locus/half.h) everywhere else and for tails.
//
// Every path gives the same bits as half.h for every input: NaN becomes sign | 0x7e00 (float16)
// or 0x7fc0 (bfloat16) and a float16 NaN widens to a quiet NaN keeping its payload (as c10);
// ties round to even; float32 denormals round as any other value (VCVTNEPS2BF16 reads them as
// zero, so those lanes are redone in integer arithmetic). tests/backends/cpu/convert_test.cpp
// checks every 16-bit pattern and a large set of floats on every level this CPU has.
#include <cstdint>

#include "locus/half.h"

namespace locus::cpu {

/// The conversion code levels, each needing the CPU features of the one before plus its own.
enum class ConvertLevel : int {
  kPortable = 0,    // half.h, one element at a time
  kAvx2 = 1,        // F16C for float16, AVX2 integer rounding for bfloat16 (8 lanes)
  kAvx512Bf16 = 2,  // F16C for float16, AVX-512 BF16 VCVTNEPS2BF16 for bfloat16 (16 lanes)
};

/// The best level this CPU (and OS) supports, ignoring LOCUS_CPU_ISA. Never throws.
ConvertLevel convert_level_supported();
/// The level the converters below use: the supported one, capped by the environment variable
/// LOCUS_CPU_ISA (read once: "portable", "avx2", "avx512_bf16"; unset or empty: no cap). Throws
/// locus::Error naming the accepted values when LOCUS_CPU_ISA holds anything else.
ConvertLevel convert_level();
/// The name of the path `level` runs for float16 ("portable", "f16c") and for bfloat16
/// ("portable", "avx2", "avx512_bf16"), and both as one label ("f16c+avx512_bf16").
const char* half_convert_path(ConvertLevel level);
const char* bf16_convert_path(ConvertLevel level);
const char* convert_path(ConvertLevel level);
/// Parses a LOCUS_CPU_ISA value (throws locus::Error for an unknown one; "" is no cap).
ConvertLevel parse_convert_level(const char* value);

/// n elements from src to dst (any alignment; the ranges must not overlap), at convert_level().
void half_to_float(const Half* src, float* dst, int64_t n);
void float_to_half(const float* src, Half* dst, int64_t n);
void bf16_to_float(const BFloat16* src, float* dst, int64_t n);
void float_to_bf16(const float* src, BFloat16* dst, int64_t n);

/// The same at an explicit level, for tests and benchmarks: throws locus::Error when `level` is
/// above convert_level_supported().
void half_to_float(const Half* src, float* dst, int64_t n, ConvertLevel level);
void float_to_half(const float* src, Half* dst, int64_t n, ConvertLevel level);
void bf16_to_float(const BFloat16* src, float* dst, int64_t n, ConvertLevel level);
void float_to_bf16(const float* src, BFloat16* dst, int64_t n, ConvertLevel level);

/// Overloads on the 16-bit type, for templates over Half and BFloat16.
inline void to_float(const Half* src, float* dst, int64_t n) { half_to_float(src, dst, n); }
inline void to_float(const BFloat16* src, float* dst, int64_t n) { bf16_to_float(src, dst, n); }
inline void from_float(const float* src, Half* dst, int64_t n) { float_to_half(src, dst, n); }
inline void from_float(const float* src, BFloat16* dst, int64_t n) { float_to_bf16(src, dst, n); }

}  // namespace locus::cpu
