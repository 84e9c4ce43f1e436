#pragma once
// The one thread pool that serves elementwise ops, reductions and the BLAS.
namespace locus {
/// Threads used by CPU kernels (default: the number of cores).
int get_num_threads();
/// Sets the CPU kernel thread count (and the BLAS's); n >= 1.
void set_num_threads(int n);
/// Denormal floats flushed to zero by the CPU (x86: MXCSR's FTZ and DAZ bits), as
/// torch.set_flush_denormal / at::globalContext().setFlushDenormal: set on the calling thread and
/// on every worker of locus's CPU pool (before its next job); other threads keep their own mode.
/// Off by default, as in PyTorch. Returns false, changing nothing, where the CPU has no such mode.
/// Why: in Adam's moments (exp_avg decays by beta1 each step where a gradient is 0) values pass
/// through the denormal range, where x86 multiplies take a microcode assist of ~100 cycles;
/// the Fashion-MNIST MLP's later epochs ran 1.5-1.8x slower than its first (PyTorch's too).
bool set_flush_denormal(bool on);
}  // namespace locus
