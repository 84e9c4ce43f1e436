# Sourced by bench/run and bench/run-train: how the peer (PyTorch, libtorch) and locus are run.
# Sets CORETYPE, CORETYPE_WHY, openblas_env (the peer's settings) and clean_env (locus's: none set).
# shellcheck shell=bash disable=SC2034
# Debian's OpenBLAS 0.3.21 runs a generic kernel on AVX-512 CPUs it does not recognise unless
# OPENBLAS_CORETYPE=SkylakeX is set; on a CPU without AVX-512 that setting dies with SIGILL and its
# own detection is right (Haswell/Zen kernels). The peer gets whatever makes it fastest.
if [[ -n "${BENCH_OPENBLAS_CORETYPE+x}" ]]; then
  CORETYPE=$BENCH_OPENBLAS_CORETYPE
  CORETYPE_WHY="set by BENCH_OPENBLAS_CORETYPE"
elif grep -qw avx512f /proc/cpuinfo; then
  CORETYPE=SkylakeX
  CORETYPE_WHY="the CPU has AVX-512F, which this OpenBLAS does not detect by itself"
else
  CORETYPE=""
  CORETYPE_WHY="no AVX-512 on this CPU: OpenBLAS's own detection picks its AVX2 kernels (SkylakeX would die with SIGILL)"
fi
openblas_env=(OPENBLAS_NUM_THREADS=1)
[[ -n "$CORETYPE" ]] && openblas_env+=("OPENBLAS_CORETYPE=$CORETYPE")
# locus runs as users run it: none of these set.
clean_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS -u GOTO_NUM_THREADS
           -u BLIS_NUM_THREADS -u OMP_WAIT_POLICY -u LOCUS_DEVICE)

