#pragma once
// What every runtime's program cache shares: kernel names per dtype, and the on-disk cache of
// compiled programs. Folder: $LOCUS_KERNEL_CACHE, else $XDG_CACHE_HOME/locus/kernels, else
// ~/.cache/locus/kernels. A file holds an 8-byte magic (one per runtime), the payload size and
// an FNV-1a hash of the payload; it is named by a 128-bit hash of everything that went into
// the build. Writes are atomic (a temporary renamed into place); a bad file is deleted.
#include <atomic>
#include <cstdint>
#include <string>

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

}  // namespace locus::gpu
