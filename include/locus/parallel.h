#pragma once
// The one thread pool that serves elementwise ops, reductions and the BLAS.
#include <cstdint>
#include <functional>

namespace locus {
/// at::parallel_for: f(b, e) on disjoint sub-ranges covering [begin, end), each at least
/// grain_size long, on locus's CPU pool and the calling thread; inline (one call of the whole
/// range) when the range is shorter than two grains, with one thread, or inside another parallel
/// region. An exception thrown by f is rethrown on the calling thread after every range finished.
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const std::function<void(int64_t, int64_t)>& f);
/// True on a thread running a parallel_for body (at::in_parallel_region).
bool in_parallel_region();
/// at::get_num_interop_threads / set_num_interop_threads: locus runs no inter-op pool (ops run on
/// the calling thread, each over the one intra-op pool), so this is 1 until set; set only checks
/// and records n >= 1, which changes nothing.
int get_num_interop_threads();
void set_num_interop_threads(int n);
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
