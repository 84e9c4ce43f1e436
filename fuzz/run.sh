#!/usr/bin/env bash
# Builds the fuzz targets (the checkpoint parsers, the IDX reader, the device-string parser and
# the .pt writer round trip: fuzz_pt_writer) (clang libFuzzer + ASan/UBSan when clang has it,
# else g++ sanitizers with the deterministic driver) and runs each from a corpus of real files
# (fuzz/corpus, written by PyTorch: fuzz/make_corpus.py; tests/io/fixtures; fuzz/seeds).
#   fuzz/run.sh BUILD_DIR SOURCE_DIR [RUNS]       a fixed number of inputs per target
#                                                 (ctest: fuzz.parsers, RUNS=20000)
#   fuzz/run.sh --minutes N BUILD_DIR SOURCE_DIR  N minutes per target (libFuzzer only), FUZZ_JOBS
#                                                 targets at a time (default 2), FUZZ_TARGETS to
#                                                 pick some; prints executions, coverage and
#                                                 corpus size per target (docs/reliability.md)
# Any crash, sanitizer report or leak fails the run; the input that caused it is left in
# BUILD_DIR/fuzz/crash-* (replay: BUILD_DIR/fuzz/fuzz_<target> FILE).
set -euo pipefail
minutes=0
if [[ ${1:-} == --minutes ]]; then minutes=$2; shift 2; fi
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd); runs=${3:-3000}
out="$build/fuzz"
mkdir -p "$out"
probe='extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }'
if command -v clang++ >/dev/null && echo "$probe" | clang++ -fsanitize=fuzzer -x c++ - -o "$out/probe" 2>/dev/null; then
  cxx=clang++; libfuzzer=ON
else
  cxx=g++; libfuzzer=OFF
  echo "fuzz: clang's libFuzzer is not available; using g++ sanitizers and the deterministic driver"
fi
cmake -S "$src/fuzz" -B "$out" -DCMAKE_CXX_COMPILER=$cxx -DLOCUS_FUZZ_LIBFUZZER=$libfuzzer \
  -DLOCUS_LIBRARY_DIR="$build" -DCMAKE_BUILD_TYPE=None >/dev/null
cmake --build "$out" -j2 >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
seeds_of() {
  case $1 in
    safetensors) ls "$src"/tests/io/fixtures/*.safetensors "$src"/fuzz/seeds/safetensors/* "$src"/fuzz/corpus/safetensors/* ;;
    pytorch) ls "$src"/tests/io/fixtures/*.pt "$src"/tests/io/fixtures/*.pth "$src"/fuzz/seeds/pytorch/* "$src"/fuzz/corpus/pytorch/* ;;
    pt_writer) ls "$src"/fuzz/seeds/pickle/* ;;  # any bytes describe tensors; these are varied
    pickle) ls "$src"/fuzz/seeds/pickle/* "$src"/fuzz/corpus/pickle/* ;;
    npy) ls "$src"/tests/io/fixtures/*.npy "$src"/fuzz/corpus/npy/* ;;
    idx) ls "$src"/fuzz/seeds/idx/* ;;
    device) ls "$src"/fuzz/seeds/device/* ;;
  esac
}
prepare() {  # a fresh working corpus for target $1 from its seeds
  local corpus="$out/corpus-$1"
  rm -rf "$corpus"; mkdir -p "$corpus"
  local f n=0
  for f in $(seeds_of $1); do n=$((n + 1)); cp "$f" "$corpus/$n-$(basename "$f")"; done
}
# The IDX target loads all of liblocus (backends, drivers), whose one-time allocations are not ours.
asan_of() { [[ $1 == idx ]] && echo detect_leaks=0:abort_on_error=0 || echo detect_leaks=1:abort_on_error=0; }
targets=${FUZZ_TARGETS:-safetensors pytorch pickle npy pt_writer idx device}

if (( minutes > 0 )); then
  [[ $libfuzzer == ON ]] || { echo "fuzz: --minutes needs clang's libFuzzer"; exit 1; }
  campaign() {  # one target for $minutes minutes; its summary line on stdout
    local t=$1 log="$out/campaign-$1.txt"
    prepare $t
    local start=$SECONDS rc=0
    ASAN_OPTIONS=$(asan_of $t) "$out/fuzz_$t" -max_total_time=$((minutes * 60)) -seed=$RANDOM -max_len=16384 \
      -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/crash-$t-" \
      "$out/corpus-$t" >"$log" 2>&1 || rc=$?
    local execs cov ft units
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo '?')
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo '?')
    units=$(ls "$out/corpus-$t" | wc -l)
    local verdict="no crash, no sanitizer report"
    (( rc == 0 )) || verdict="FAILED (exit $rc): $(ls "$out"/crash-$t-* 2>/dev/null | head -1)"
    echo "fuzz_$t: $(( (SECONDS - start) / 60 )) min, $execs executions, cov $cov, ft $ft, corpus $units files: $verdict"
    return $rc
  }
  status=0; running=0
  for t in $targets; do
    [[ -x "$out/fuzz_$t" ]] || { echo "fuzz_$t: not built"; continue; }
    campaign $t & running=$((running + 1))
    if (( running >= ${FUZZ_JOBS:-2} )); then wait -n || status=1; running=$((running - 1)); fi
  done
  while (( running > 0 )); do wait -n || status=1; running=$((running - 1)); done
  exit $status
fi

for t in $targets; do
  [[ -x "$out/fuzz_$t" ]] || { echo "fuzz_$t: not built (no locus library or no IDX reader)"; continue; }
  corpus="$out/corpus-$t"
  prepare $t
  export ASAN_OPTIONS=$(asan_of $t)
  if [[ $libfuzzer == ON ]]; then
    "$out/fuzz_$t" -runs=$runs -seed=1 -max_len=16384 -timeout=20 -rss_limit_mb=2048 -print_final_stats=0 \
      -artifact_prefix="$out/crash-$t-" "$corpus" 2>"$out/log-$t.txt" || { tail -60 "$out/log-$t.txt"; exit 1; }
    echo "fuzz_$t: $(grep -E '^Done' "$out/log-$t.txt" | tail -1) without a crash or sanitizer report"
  else
    "$out/fuzz_$t" -runs=$runs "$corpus" > "$out/log-$t.txt" 2>&1 || { tail -60 "$out/log-$t.txt"; exit 1; }
    echo "fuzz_$t: $(tail -1 "$out/log-$t.txt") without a crash or sanitizer report"
  fi
done
