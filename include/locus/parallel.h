#pragma once
// The one thread pool that serves elementwise ops, reductions and the BLAS.
namespace locus {
/// Threads used by CPU kernels (default: the number of cores).
int get_num_threads();
/// Sets the CPU kernel thread count (and the BLAS's); n >= 1.
void set_num_threads(int n);
/// Denormal floats flushed to zero by the CPU (x86: MXCSR's FTZ and DAZ bits), as
/// torch.set_flush_denormal / at::globalContext().setFlushDenormal: set on the calling thread and
/// on every worker of locus's CPU pool (before its next job); other threads keep their own mode,
/// the BLAS's own threads (OpenBLAS, oneDNN: the largest products) among them.
/// Off by default, as in PyTorch. Returns false, changing nothing, where the CPU has no such mode.
/// Why: on x86 a float operation with a denormal operand or result takes a microcode assist
/// (50-90 ns a vector against ~3 ns). locus's fused Adam already avoids them in its decaying
/// moments, exactly (src/backends/cpu/optim.cpp); this mode removes them everywhere else too, at
/// the price of results that differ from the exact ones below 2^-126.
bool set_flush_denormal(bool on);
}  // namespace locus
