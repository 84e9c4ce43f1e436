#!/usr/bin/env bash
# Installs the built locus into a fresh temporary prefix and checks what a user of the install
# meets: the installed tools run (install RPATH), the library has a versioned SONAME and links
# no CUDA library, locus.pc and locus/version.h agree with the project version, the LICENSE is
# there, and an outside project that asks for C++17 finds locus with find_package, is raised to
# C++20, and builds and runs both a locus program and a libtorch program that includes
# <locus/torch.h> (on every device present).   usage: run.sh <build-dir> <source-dir>
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package test: $*" >&2; exit 1; }
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

# the installed tools run from the prefix alone (no LD_LIBRARY_PATH)
env -u LD_LIBRARY_PATH "$prefix/bin/locus-info" > "$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "P/bin/locus-info failed"; }
version=$(sed -n 's/^project(locus VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
grep -q "^locus $version " "$work/info.txt" || { cat "$work/info.txt"; fail "locus-info does not say version $version"; }

# versioned SONAME, no CUDA library linked
lib=$(find "$prefix" -name "liblocus.so.$version" | head -1)
[[ -n "$lib" ]] || fail "liblocus.so.$version not installed"
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[[ "$soname" == liblocus.so.* && "$soname" != "liblocus.so.$version" ]] || fail "unexpected SONAME '$soname'"
if ldd "$lib" | grep -E 'lib(cuda|nvrtc|cublas)'; then fail "liblocus links a CUDA library (it must dlopen them)"; fi

# pkg-config and version.h
pc=$(find "$prefix" -name locus.pc | head -1)
[[ -n "$pc" ]] || fail "locus.pc not installed"
[[ "$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --modversion locus)" == "$version" ]] || fail "locus.pc version"
[[ "$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=includedir locus)" -ef "$prefix/include" ]] ||
  fail "locus.pc includedir is not $prefix/include"
grep -q "#define LOCUS_VERSION \"$version\"" "$prefix/include/locus/version.h" || fail "locus/version.h"
[[ -f "$prefix/share/doc/locus/LICENSE" ]] || fail "LICENSE not installed"

# an outside CMake project (C++17 requested), built against the install
cmake -S "$src/tests/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/consumer/consumer")
echo "$out"
[[ "$out" == *"C++ 2020"* ]] || fail "the consumer was not raised to C++20"
for device in $("$prefix/bin/locus-info" --json | sed -n 's/.*{"device": "\([^"]*\)".*/\1/p'); do
  "$work/consumer/torch_program" "$device"
done
