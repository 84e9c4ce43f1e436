#pragma once
// Random numbers: one counter-based Philox 4x32-10 stream per process (the default generator), so
// a seed gives the same tensors on every device type (a model initialised on opencl:0 equals one
// initialised on cpu). Generator objects with streams of their own: locus/generator.h.
#include <cstdint>

namespace locus {

/// Seeds the generator and resets its offset.
void manual_seed(uint64_t seed);
/// The current seed.
uint64_t initial_seed();

}  // namespace locus
