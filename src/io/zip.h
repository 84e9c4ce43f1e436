#pragma once
// A minimal zip reader and writer for PyTorch checkpoints: the central directory (zip64 too) and entries
// stored without compression, which is how torch.save writes them (each record 64-byte aligned
// so it can be mapped in place). Entries are views into the caller's bytes; nothing is copied.
// Every offset and size is checked against the buffer; an encrypted entry is refused, and a
// compressed one is listed (its bytes checked to lie in the file) but never inflated: the reader
// of a record that must be read refuses it (compressed_message).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace locus::io {

struct ZipEntry {
  std::string name;
  const uint8_t* data = nullptr;  // the stored bytes (nullptr when compressed)
  uint64_t size = 0;
  bool compressed = false;        // deflated (libtorch's code/ records): listed, never inflated
  uint64_t method = 0;            // the compression method
};

/// What to say when a record that must be read is compressed.
std::string compressed_message(const ZipEntry& e);

/// Throws CheckpointError via `fail` (which prefixes the format and file) on a malformed archive.
std::vector<ZipEntry> read_zip(const uint8_t* data, uint64_t size, const std::function<void(const std::string&)>& fail);

/// Writes a zip archive as PyTorch's writer does: entries stored (no compression) with their
/// CRC-32, each entry's data 64-byte aligned in the file (padding in a local extra field "FB"),
/// zip64 fields where a size or offset needs them (or everywhere, with `force_zip64`). Bytes go
/// to `sink` in order, one entry at a time; nothing is buffered but the central directory.
class ZipWriter {
 public:
  using Sink = std::function<void(const void* data, size_t size)>;
  explicit ZipWriter(Sink sink, bool force_zip64 = false) : sink_(std::move(sink)), force_zip64_(force_zip64) {}
  void add(const std::string& name, const void* data, uint64_t size);
  /// Writes the central directory; the archive is complete after this.
  void finish();

 private:
  struct Written {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
  };
  void put(const std::string& bytes);
  Sink sink_;
  bool force_zip64_;
  uint64_t at_ = 0;
  std::vector<Written> written_;
};

}  // namespace locus::io
