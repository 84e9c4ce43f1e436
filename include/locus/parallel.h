#pragma once
// The one thread pool that serves elementwise ops, reductions and the BLAS.
namespace locus {
/// Threads used by CPU kernels (default: the number of cores).
int get_num_threads();
/// Sets the CPU kernel thread count (and the BLAS's); n >= 1.
void set_num_threads(int n);
}  // namespace locus
