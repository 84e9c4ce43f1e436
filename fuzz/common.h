#pragma once
// Shared by the checkpoint fuzz targets: parse the bytes as a file; a CheckpointError is the only
// acceptable failure, and a parsed catalog must describe views inside the input.
#include <cstdint>
#include <cstdlib>

#include "io/catalog.h"
#include "locus/error.h"

namespace locus::fuzz {

inline int parse(const uint8_t* data, size_t size, io::Catalog (*parser)(std::shared_ptr<io::MappedFile>)) {
  try {
    io::Catalog c = parser(io::MappedFile::view(data, size, "<fuzz>"));
    volatile uint8_t sink = 0;
    for (const auto& s : c.storages) {
      if (s.nbytes == 0) continue;
      if (s.data < data || s.data + s.nbytes > data + size) std::abort();  // a view outside the input
      sink = sink + s.data[0] + s.data[s.nbytes - 1];  // ASan checks both ends
    }
    for (const auto& t : c.tensors) io::check_view(c, t);
  } catch (const CheckpointError&) {
  }
  return 0;
}

}  // namespace locus::fuzz
