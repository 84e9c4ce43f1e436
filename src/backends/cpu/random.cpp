// Philox 4x32-10 random fills, exactly as src/kernels/philox.h specifies, so a seed gives the
// same tensors on every backend. Values are computed in float32 (uniform, normal, bernoulli) and
// then converted to the output dtype; this file is compiled without FP contraction (CMakeLists.txt),
// so no fused multiply-add changes the float results against the GPU kernels. Normal values come
// from random_normal.h (vectorised, the same bits at every ISA level).
// Int ranges wider than 2^32 (not covered by philox.h) draw 64 bits from lanes (l, l ^ 1).
#include <cmath>

#include "backends/cpu/kernels.h"
#include "backends/cpu/random_normal.h"
#include "kernels/philox.h"

namespace locus::cpu {
namespace {

using backend::RandomKind;

inline float u24(uint32_t x) { return static_cast<float>(x >> 8) * LOCUS_PHILOX_U24_SCALE; }

// Value of element i for block `blk` (lane = i % 4).
struct Gen {
  RandomKind kind;
  float fa, fb;
  int64_t ia;
  uint64_t range;
  // Uniform and Bernoulli (normal values come a block at a time: normal_block)
  float value(const locus_philox_block& blk, int lane) const {
    if (kind == RandomKind::Bernoulli) return u24(blk.x[lane]) < fa ? 1.0f : 0.0f;
    return fa + (fb - fa) * u24(blk.x[lane]);
  }
  int64_t int_value(const locus_philox_block& blk, int lane) const {
    uint64_t v;
    if (range <= (uint64_t{1} << 32)) v = blk.x[lane] % range;
    else v = ((static_cast<uint64_t>(blk.x[lane]) << 32) | blk.x[lane ^ 1]) % range;
    return static_cast<int64_t>(static_cast<uint64_t>(ia) + v);
  }
};

template <class T>
void fill_random(T* out, int64_t n, uint64_t seed, uint64_t offset, const Gen& g) {
  const uint64_t c0 = offset / 4;
  const int64_t blocks = (n + 3) / 4;
  const ConvertLevel level = g.kind == RandomKind::Normal ? convert_level() : ConvertLevel::kPortable;
  parallel_for(0, blocks, kGrainMath / 4, [&](int64_t b, int64_t e) {
    if (g.kind == RandomKind::Normal) {
      if constexpr (std::is_same_v<T, float>) {
        normal_blocks(out + 4 * b, n, seed, c0, g.fa, g.fb, b, e, level);
      } else {  // float32 values a chunk at a time, then converted
        constexpr int64_t kChunk = 256;  // blocks
        float z[4 * kChunk];
        for (int64_t q = b; q < e; q += kChunk) {
          const int64_t qe = std::min(e, q + kChunk), i0 = 4 * q, m = std::min(4 * qe, n) - i0;
          normal_blocks(z, n, seed, c0, g.fa, g.fb, q, qe, level);
          for (int64_t i = 0; i < m; ++i) out[i0 + i] = convert<T>(z[i]);
        }
      }
      return;
    }
    for (int64_t q = b; q < e; ++q) {
      locus_philox_block blk = locus_philox(c0 + static_cast<uint64_t>(q), seed);
      int64_t i0 = q * 4;
      int lanes = static_cast<int>(std::min<int64_t>(4, n - i0));
      for (int l = 0; l < lanes; ++l) {
        if (g.kind == RandomKind::Int) out[i0 + l] = convert<T>(g.int_value(blk, l));
        else out[i0 + l] = convert<T>(g.value(blk, l));
      }
    }
  });
}

}  // namespace

void random(RandomKind kind, const TensorRef& out, uint64_t seed, uint64_t offset, double a, double b) {
  Gen g{kind, static_cast<float>(a), static_cast<float>(b), 0, 1};
  if (kind == RandomKind::Int) {
    if (!(b > a)) throw BackendError("[cpu random] an integer range needs high > low, got [" + std::to_string(a) + ", " + std::to_string(b) + ").");
    g.ia = static_cast<int64_t>(a);
    g.range = static_cast<uint64_t>(static_cast<int64_t>(b) - g.ia);
  }
  visit_dtype(out.dtype, "random", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    fill_random<T>(data_as<T>(out.buf), out.numel(), seed, offset, g);
  });
}

}  // namespace locus::cpu
