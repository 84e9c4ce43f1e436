# Sourced by bench/run and bench/run-train: how the peer (PyTorch, libtorch) and locus are run.
# Sets CORETYPE, CORETYPE_WHY, openblas_env (the peer's settings) and clean_env (locus's: none set).
# shellcheck shell=bash disable=SC2034
# Debian's OpenBLAS 0.3.21 runs a generic kernel on AVX-512 CPUs it does not recognise (the AVX-512
# Xeons seen so far) unless OPENBLAS_CORETYPE=SkylakeX is set; on a CPU without AVX-512 that setting
# dies with SIGILL. Some AVX-512 CPUs it does recognise: on the AMD EPYC with AVX-512 and
# AVX512_BF16 (Zen 4 class) it picks Cooperlake by itself, and forcing SkylakeX there ran sgemm no
# faster (256: 24-25 vs 24-27 GFLOP/s, 512: 43 vs 46-53, 1024: 45-48 vs 47-50; paired, under load).
# So ask OpenBLAS what it detects (OPENBLAS_VERBOSE=2 prints "Core: <name>" when the library that
# torch 1.13 links, libblas.so.3, is loaded) and force SkylakeX only when the CPU has AVX-512F and
# OpenBLAS picked a kernel without it. The peer gets whatever makes it fastest.
detected_core=$(OPENBLAS_VERBOSE=2 /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libblas.so.3")' 2>&1 \
                  | sed -n 's/^Core: *//p' | head -1) || detected_core=""
if [[ -n "${BENCH_OPENBLAS_CORETYPE+x}" ]]; then
  CORETYPE=$BENCH_OPENBLAS_CORETYPE
  CORETYPE_WHY="set by BENCH_OPENBLAS_CORETYPE"
elif ! grep -qw avx512f /proc/cpuinfo; then
  CORETYPE=""
  CORETYPE_WHY="no AVX-512 on this CPU: OpenBLAS's own detection picks its AVX2 kernels (SkylakeX would die with SIGILL)"
elif [[ "$detected_core" =~ ^(SkylakeX|Cooperlake|SapphireRapids)$ ]]; then
  CORETYPE=""
  CORETYPE_WHY="OpenBLAS detects this AVX-512 CPU by itself as $detected_core (forcing SkylakeX measured no faster here)"
else
  CORETYPE=SkylakeX
  CORETYPE_WHY="the CPU has AVX-512F, which this OpenBLAS does not detect by itself (it picked ${detected_core:-an unknown core})"
fi
openblas_env=(OPENBLAS_NUM_THREADS=1)
[[ -n "$CORETYPE" ]] && openblas_env+=("OPENBLAS_CORETYPE=$CORETYPE")
# locus runs as users run it: none of these set.
clean_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS -u GOTO_NUM_THREADS
           -u BLIS_NUM_THREADS -u OMP_WAIT_POLICY -u LOCUS_DEVICE)

