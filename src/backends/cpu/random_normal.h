#pragma once
// Normal draws of the Philox stream (src/kernels/philox.h: Box-Muller over lanes (0, 1) and
// (2, 3) of each block), W blocks at a time in vector registers: 16 with AVX-512, 8 with AVX2, one
// in the portable code. Every level runs the same float32 operations in the same order (no fused
// multiply-add, a log and a sincos of our own made of adds, multiplies and bit operations, IEEE
// sqrt), so all levels give the same bits, on any x86-64 CPU and any thread count;
// tests/backends/cpu/random_test.cpp checks each level this CPU has against the portable one.
// Against the formula evaluated in double precision the values are within a few float32 ulps.
#include <cstdint>

#include "backends/cpu/convert.h"

namespace locus::cpu {

/// out[i] = mean + stdv * z_i for the elements i in [0, n) of a draw at generator offset `offset`
/// (a multiple of 4) with key `seed`, on the calling thread at `level` (convert.h's levels:
/// kAvx2 runs the AVX2 code, kAvx512Bf16 the AVX-512F code). Throws locus::Error when `level`
/// is above convert_level_supported().
void normal_fill(float* out, int64_t n, uint64_t seed, uint64_t offset, float mean, float stdv, ConvertLevel level);

/// The same for the blocks [qb, qe) of a draw of n elements at counter c0 = offset / 4: the
/// elements [4 qb, min(4 qe, n)), written from `out` on (out points at element 4 qb), at an
/// already checked level. What the backend's random fill runs on each thread's range.
void normal_blocks(float* out, int64_t n, uint64_t seed, uint64_t c0, float mean, float stdv, int64_t qb, int64_t qe,
                   ConvertLevel level);

}  // namespace locus::cpu
