#pragma once
// The IDX reader behind datasets::MNIST (src/data/mnist.cpp), also driven by fuzz/fuzz_idx.cpp.
#include <string>

#include "locus/tensor.h"

namespace locus::data::datasets::detail {

/// Reads one IDX file (plain or gzip) whose element type is unsigned byte and whose rank is
/// `expected_dims`; returns a uint8 tensor of its shape, wrapping the bytes read (not a block of
/// the cpu allocator: see mnist.cpp). Throws locus::Error naming `path`.
Tensor read_idx(const std::string& path, int expected_dims);

}  // namespace locus::data::datasets::detail
