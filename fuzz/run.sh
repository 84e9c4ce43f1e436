#!/usr/bin/env bash
# Builds the fuzz targets (the parsers, and the .pt writer round trip: fuzz_pt_writer) (clang libFuzzer + ASan/UBSan when clang has it, else g++ sanitizers
# with the deterministic driver) and runs each for a fixed number of inputs from the seeds.
#   fuzz/run.sh BUILD_DIR SOURCE_DIR [RUNS]      (ctest: fuzz.parsers, RUNS=20000)
# Any crash, sanitizer report or leak fails the run; the input that caused it is left in
# BUILD_DIR/fuzz/crash-* (replay: BUILD_DIR/fuzz/fuzz_<target> FILE).
set -euo pipefail
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
    safetensors) ls "$src"/tests/io/fixtures/*.safetensors "$src"/fuzz/seeds/safetensors/* ;;
    pytorch) ls "$src"/tests/io/fixtures/*.pt "$src"/tests/io/fixtures/*.pth "$src"/fuzz/seeds/pytorch/* ;;
    pt_writer) ls "$src"/fuzz/seeds/pickle/* ;;  # any bytes describe tensors; these are varied
    pickle) ls "$src"/fuzz/seeds/pickle/* ;;
    npy) ls "$src"/tests/io/fixtures/*.npy ;;
    idx) ls "$src"/fuzz/seeds/idx/* ;;
  esac
}
for t in safetensors pytorch pickle npy pt_writer idx; do
  [[ -x "$out/fuzz_$t" ]] || { echo "fuzz_$t: not built (no locus library or no IDX reader)"; continue; }
  corpus="$out/corpus-$t"
  rm -rf "$corpus"; mkdir -p "$corpus"
  cp $(seeds_of $t) "$corpus"/
  extra=()
  # The IDX target loads all of liblocus (backends, drivers), whose one-time allocations are not ours.
  [[ $t == idx ]] && export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
  if [[ $libfuzzer == ON ]]; then
    "$out/fuzz_$t" -runs=$runs -seed=1 -max_len=16384 -timeout=20 -rss_limit_mb=2048 -print_final_stats=0 \
      -artifact_prefix="$out/crash-$t-" "$corpus" 2>"$out/log-$t.txt" || { tail -60 "$out/log-$t.txt"; exit 1; }
    echo "fuzz_$t: $(grep -E '^Done' "$out/log-$t.txt" | tail -1) without a crash or sanitizer report"
  else
    "$out/fuzz_$t" -runs=$runs "$corpus" > "$out/log-$t.txt" 2>&1 || { tail -60 "$out/log-$t.txt"; exit 1; }
    echo "fuzz_$t: $(tail -1 "$out/log-$t.txt") without a crash or sanitizer report"
  fi
done
