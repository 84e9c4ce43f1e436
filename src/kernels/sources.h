#pragma once
// The shared kernel sources (src/kernels/*.cl and the preludes), embedded in the library by
// cmake/embed_kernels.cmake so that the OpenCL and CUDA backends compile them at run time.
#include <string>
#include <string_view>
#include <vector>

namespace locus::kernels {

/// The text of one embedded file ("binary.cl", "prelude_opencl.h", ...); throws locus::Error
/// naming the known files when `name` is not one.
std::string_view source(std::string_view name);

/// `name` with every `#include "x"` of an embedded file replaced by that file's text (each file
/// once), preceded by `prelude`'s text: a complete translation unit for a runtime compiler.
std::string expand(std::string_view name, std::string_view prelude);

/// Names of all embedded files, sorted.
std::vector<std::string> names();

namespace detail {
struct EmbeddedSource {
  const char* name;
  const char* text;
};
extern const EmbeddedSource kEmbedded[];
extern const int kEmbeddedCount;
}  // namespace detail

}  // namespace locus::kernels
