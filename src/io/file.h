#pragma once
// Files for checkpoints: a read-only memory map (MappedFile) and an atomic writer (AtomicFile:
// a temporary file in the target's folder, fsync, rename, fsync of the folder), so a crash never
// leaves a half-written checkpoint under the final name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace locus::io {

class MappedFile {
 public:
  /// Maps `path` privately (copy-on-write: the file is never modified). Throws CheckpointError
  /// naming the path and the system error when it cannot be opened or mapped.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  /// A view of memory the caller keeps alive (tests and fuzzers).
  static std::shared_ptr<MappedFile> view(const uint8_t* data, size_t size, std::string name = "<memory>");
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }

 private:
  MappedFile() = default;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::string path_;
};

class AtomicFile {
 public:
  /// Creates a temporary file next to `path`.
  explicit AtomicFile(std::string path);
  /// Removes the temporary file unless commit() ran.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const void* data, size_t n);
  /// fsync, rename over `path`, fsync the folder.
  void commit();

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

}  // namespace locus::io
