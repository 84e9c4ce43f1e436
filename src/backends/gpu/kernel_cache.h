#pragma once
// What every runtime's program cache shares: kernel names per dtype, and the on-disk cache of
// compiled programs. Folder: $LOCUS_KERNEL_CACHE, else $XDG_CACHE_HOME/locus/kernels, else
// ~/.cache/locus/kernels. A file holds an 8-byte magic (one per runtime), the payload size and
// an FNV-1a hash of the payload; it is named by a 128-bit hash of everything that went into
// the build. Writes are atomic (a temporary renamed into place); a bad file is deleted; an
// unwritable folder only disables the disk cache.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "locus/dtype.h"

namespace locus::gpu {

/// "f32", "f64", "f16", "bf16", "i32", "i64", "i16", "i8", "u8", "bool" ("undefined" otherwise).
const char* dtype_suffix(ScalarType dtype);
/// The kernels' dtype define: "-DDT_F32".
std::string dtype_define(ScalarType dtype);

/// The cache folder ("" when no variable names one).
std::string kernel_cache_dir();
/// "<folder>/<32 hex digits><ext>", the hash over `key` (the build's inputs) and `source`; ""
/// when there is no folder. The file may not exist yet.
std::string cache_file(const std::string& key, const std::string& source, const char* ext);
/// The verified payload of `path`, or "" when it is missing or corrupt (then deleted and
/// counted in `corrupt`). `magic` is 8 bytes. Never throws for file errors.
std::string read_cache(const std::string& path, const char* magic, std::atomic<int64_t>& corrupt);
/// Writes `size` bytes at `data` to `path` with `magic`, atomically; failures are ignored.
void write_cache(const std::string& path, const char* magic, const void* data, size_t size);
/// Deletes a cache file whose payload the driver rejected, counting it in `corrupt`.
void drop_cache(const std::string& path, std::atomic<int64_t>& corrupt) noexcept;

struct ProgramStats {
  int64_t built_from_source = 0;
  int64_t loaded_from_disk = 0;
  int64_t corrupt_entries = 0;  // deleted and rebuilt
};
struct ProgramCounters {
  std::atomic<int64_t> built{0}, loaded{0}, corrupt{0};
  ProgramStats stats() const { return {built.load(), loaded.load(), corrupt.load()}; }
};

/// A program through the disk cache at `path` ("" : no cache): `load(image)` turns a cached
/// payload into a program (a null one when the driver rejects it: the file is deleted and
/// counted corrupt); otherwise `build(image)` compiles it and leaves in `image` the payload to
/// cache ("" caches nothing). Build errors propagate; nothing is cached for them.
template <typename P, typename Load, typename Build>
P load_or_build(const std::string& path, const char* magic, ProgramCounters& n, Load&& load, Build&& build) {
  if (!path.empty()) {
    if (std::string image = read_cache(path, magic, n.corrupt); !image.empty()) {
      if (P p = load(image)) {
        ++n.loaded;
        return p;
      }
      drop_cache(path, n.corrupt);
    }
  }
  std::string image;
  P p = build(image);
  ++n.built;
  if (!path.empty() && !image.empty()) write_cache(path, magic, image.data(), image.size());
  return p;
}

/// One runtime's disk cache: its 8-byte magic ("LOCUSCL1"), file ending (".clbin") and counters.
class DiskCache {
 public:
  DiskCache(const char* magic, const char* ext) : magic_(magic), ext_(ext) {}
  /// The file for a build's inputs (cache_file).
  std::string file(const std::string& key, const std::string& source) const { return cache_file(key, source, ext_); }
  std::string read(const std::string& path) { return read_cache(path, magic_, counters_.corrupt); }
  void write(const std::string& path, const std::string& image) const {
    write_cache(path, magic_, image.data(), image.size());
  }
  template <typename P, typename Load, typename Build>
  P load_or_build(const std::string& path, Load&& load, Build&& build) {
    return gpu::load_or_build<P>(path, magic_, counters_, load, build);
  }
  ProgramStats stats() const { return counters_.stats(); }

 private:
  const char* magic_;
  const char* ext_;
  ProgramCounters counters_;
};

/// "binary.cl (f32)": names a program of shared source `file` built for `dtype` in messages.
inline std::string program_label(const char* file, ScalarType dtype) {
  return std::string(file) + " (" + dtype_suffix(dtype) + ")";
}

/// One device's programs (one per source file and build options: `pkey`) and their kernels (one
/// per name), each made once under one lock; a kernel reference stays valid until clear().
template <typename P, typename K>
class ProgramCache {
 public:
  /// Kernel `name` (labelled "name_<dtype>") of program `pkey`: `build()` makes the program on
  /// first use, `make(kernel, program)` fills the kernel's handle. A throw leaves nothing behind.
  template <typename Build, typename Make>
  K& get(const std::string& pkey, const char* name, ScalarType dtype, Build&& build, Make&& make) {
    std::string kkey = pkey + "|" + name;
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = kernels_.find(kkey); it != kernels_.end()) return *it->second;
    auto prog = programs_.find(pkey);
    if (prog == programs_.end()) prog = programs_.emplace(pkey, build()).first;
    auto k = std::make_unique<K>();
    k->label = std::string(name) + "_" + dtype_suffix(dtype);
    make(*k, prog->second);
    return *(kernels_[kkey] = std::move(k));
  }
  /// Releases every kernel and program (tests: the next use rebuilds or reloads).
  template <typename ReleaseKernel, typename ReleaseProgram>
  void clear(ReleaseKernel&& release_kernel, ReleaseProgram&& release_program) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [key, k] : kernels_) release_kernel(*k);
    kernels_.clear();
    for (auto& [key, p] : programs_) release_program(p);
    programs_.clear();
  }

 private:
  std::mutex mu_;
  std::map<std::string, P> programs_;
  std::map<std::string, std::unique_ptr<K>> kernels_;
};

/// Device `index`'s cache, one per device of a runtime's `devices` (a DeviceTable, which checks
/// the index), made on first call and never freed: drivers may be unloaded at exit.
template <typename P, typename K, typename Devices>
ProgramCache<P, K>& program_cache(Devices& devices, int index) {
  devices.device(index);
  static auto* caches = new std::vector<ProgramCache<P, K>>(static_cast<size_t>(devices.count()));
  return (*caches)[static_cast<size_t>(index)];
}

}  // namespace locus::gpu
