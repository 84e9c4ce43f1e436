#pragma once
// Vectorised float math for the elementwise kernels whose scalar libm calls dominated them (gelu
// and its backward: erff, erfcf, expf and tanhf per element): glibc's libmvec (2.35 and later, 16
// lanes with AVX-512, 8 with AVX2 + FMA), loaded at run time like the BLAS. src/backends/cpu/vec_math.cpp.
#include <cstdint>

namespace locus::cpu::vec_math {

/// o[i] = gelu(x[i]) for i < n (erf form, or the tanh approximation), on the calling thread; false,
/// having done nothing, where neither AVX-512F nor AVX2 + FMA is used (LOCUS_CPU_ISA) or libmvec lacks
/// the functions.
bool gelu(float* o, const float* x, int64_t n, bool tanh_form);
/// o[i] = g[i * gs] * gelu'(x[i]) for i < n (gs 1, or 0: one gradient for all, as a sum's
/// backward gives); false as gelu.
bool gelu_backward(float* o, const float* g, int64_t gs, const float* x, int64_t n, bool tanh_form);

}  // namespace locus::cpu::vec_math
