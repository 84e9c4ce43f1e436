#pragma once
#include <string>
#include <vector>

#include "locus/dtype.h"

namespace locus::io {
/// The .npy 1.0 preamble and header for a C-ordered little-endian array (bfloat16: CheckpointError).
std::string npy_header(ScalarType dtype, const std::vector<int64_t>& sizes);
}  // namespace locus::io
