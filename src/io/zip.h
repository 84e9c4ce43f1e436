#pragma once
// A minimal zip reader for PyTorch checkpoints: the central directory (zip64 too) and entries
// stored without compression, which is how torch.save writes them (each record 64-byte aligned
// so it can be mapped in place). Entries are views into the caller's bytes; nothing is copied.
// Every offset and size is checked against the buffer; a compressed or encrypted entry is
// reported, not inflated.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace locus::io {

struct ZipEntry {
  std::string name;
  const uint8_t* data = nullptr;  // the stored bytes
  uint64_t size = 0;
};

/// Throws CheckpointError via `fail` (which prefixes the format and file) on a malformed archive.
std::vector<ZipEntry> read_zip(const uint8_t* data, uint64_t size, const std::function<void(const std::string&)>& fail);

}  // namespace locus::io
