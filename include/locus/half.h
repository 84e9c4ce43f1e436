#pragma once
// 16-bit floating point storage types. Arithmetic happens in float.
#include <cstdint>
#include <cstring>

namespace locus {

/// IEEE 754 binary16. float -> half rounds to nearest even; NaN becomes sign | 0x7e00 (as c10).
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(from_float(f)) {}
  operator float() const { return to_float(x); }
  static Half from_bits(uint16_t b) { Half h; h.x = b; return h; }

  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t absu = u & 0x7fffffffu;
    if (absu >= 0x7f800000u) return static_cast<uint16_t>(sign | (absu > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (absu >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (absu < 0x38800000u) {                                              // subnormal or zero
      float a; std::memcpy(&a, &absu, 4);
      float scaled = a * 16777216.0f;  // 2^24: exact multiple of the smallest half subnormal
      uint32_t m = static_cast<uint32_t>(scaled);
      float rem = scaled - static_cast<float>(m);
      if (rem > 0.5f || (rem == 0.5f && (m & 1u))) ++m;
      return static_cast<uint16_t>(sign | m);
    }
    uint32_t mant_odd = (absu >> 13) & 1u;
    absu += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (absu >> 13));
  }
  static float to_float(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
      if (mant == 0) { u = sign; }
      else {
        float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
        std::memcpy(&u, &f, 4);
        u |= sign;
      }
    } else if (exp == 31) {  // inf, or a NaN made quiet with its payload kept (as c10 and F16C)
      u = sign | 0x7f800000u | (mant << 13) | (mant != 0 ? 0x400000u : 0u);
    } else {
      u = sign | ((exp + 112) << 23) | (mant << 13);
    }
    float f; std::memcpy(&f, &u, 4);
    return f;
  }
};

/// bfloat16: the upper half of a float32, rounded to nearest even; NaN becomes 0x7fc0 (as c10).
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(from_float(f)) {}
  operator float() const { return to_float(x); }
  static BFloat16 from_bits(uint16_t b) { BFloat16 h; h.x = b; return h; }

  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  static float to_float(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f; std::memcpy(&f, &u, 4);
    return f;
  }
};

}  // namespace locus
