#pragma once
// What a checkpoint parser produces: where every storage lies in the mapped file and how every
// tensor views a storage, checked against the file's bounds, with nothing allocated. Parsers
// (safetensors.cpp, torch_pt.cpp, npy.cpp) depend only on this header, the error types and
// dtypes, so the fuzzers build them alone; serialize.cpp turns a Catalog into tensors.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/file.h"
#include "locus/dtype.h"

namespace locus::io {

struct StorageEntry {
  const uint8_t* data = nullptr;  // inside the mapped file
  uint64_t nbytes = 0;            // a multiple of element_size(dtype)
  ScalarType dtype = kFloat;
  std::string location = "cpu";   // where it was saved, as torch writes it ("cpu", "cuda:0")
  bool big_endian = false;        // .npy '>' arrays: swapped when loaded
};

struct TensorEntry {
  std::string name;
  ScalarType dtype = kFloat;
  std::vector<int64_t> sizes, strides;  // strides in elements, non-negative
  int64_t offset = 0;                   // in elements, into the storage
  size_t storage = 0;                   // index into Catalog::storages
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

struct Catalog {
  std::string format;  // "safetensors", "pytorch", "npy"
  std::shared_ptr<MappedFile> file;
  std::vector<StorageEntry> storages;
  std::vector<TensorEntry> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// Throws CheckpointError "[<format>] <file>: <what>".
[[noreturn]] void fail(const Catalog& c, const std::string& what);

/// An empty catalog of `format` for `file`; every parser starts here (an empty file fails).
Catalog start_catalog(const char* format, std::shared_ptr<MappedFile> file);

/// Row-major (or column-major) strides for `sizes`; strides that would overflow (possible only
/// when some size is 0, so no element exists) are 0.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& sizes, bool column_major = false);

/// Checks that `t` (sizes, strides, offset) stays inside its storage and that the element count
/// does not overflow; throws naming the tensor otherwise.
void check_view(const Catalog& c, const TensorEntry& t);

Catalog parse_safetensors(std::shared_ptr<MappedFile> file);
/// A zip checkpoint, or a legacy one (it starts with torch.save's magic number): parse_pytorch_legacy.
Catalog parse_pytorch(std::shared_ptr<MappedFile> file);
/// The legacy format (torch.save before PyTorch 1.6, or with _use_new_zipfile_serialization=False).
Catalog parse_pytorch_legacy(std::shared_ptr<MappedFile> file);
/// The length of the legacy format's first pickle (torch.save's magic number) at the start of
/// `d`, or 0 when `d` does not start with it.
size_t legacy_magic_length(const uint8_t* d, size_t n);
Catalog parse_npy(std::shared_ptr<MappedFile> file);
/// Picks the parser by each format's structure, strongest evidence first: a zip archive (local
/// header and end-of-central-directory record: pytorch), safetensors (an 8-byte length that fits
/// the file, then '{'), .npy (\x93NUMPY), then torch.save's legacy format (its magic number; any
/// other pickle is refused). Anything else is a
/// CheckpointError "not a checkpoint locus recognises" showing the first bytes (and, when the
/// file's extension names a format, that parser's reason).
Catalog parse_any(std::shared_ptr<MappedFile> file);
/// Up to 16 bytes as hex and printable text: `80 02 7d ("..}")`.
std::string describe_bytes(const uint8_t* d, size_t n);

/// A dtype that checkpoints hold and locus does not compute with: how each format spells it, and
/// the conversion to suggest. Every format refuses these naming the tensor (refusal()).
struct RefusedDtype {
  const char* name;         // "uint16"
  const char* safetensors;  // "U16" (nullptr: the format has none)
  const char* numpy;        // "u2"
  const char* torch;        // "torch.UInt16Storage"
  const char* torch_fix;    // "t.to(torch.int32)"
  const char* numpy_fix;    // "a.astype(np.int32)"
};
/// The entry whose spelling in `format` ("safetensors", "npy", "pytorch"; "dtype": its name,
/// "uint16", as PyTorch 2.x pickles a torch.dtype) is `code`, if any.
const RefusedDtype* refused_dtype(const std::string& format, const std::string& code);
/// "tensor 'w' has dtype uint16 (U16), which locus does not compute with. Convert it in PyTorch
/// with t.to(torch.int32) before saving; locus reads ..."
/// `spelled`: how the file spells it, when not the table's spelling ("'<u2'" for .npy).
std::string refusal(const RefusedDtype& r, const std::string& format, const std::string& tensor, const std::string& spelled = "");

/// safetensors dtype strings ("F32", "BF16", ...); nullptr / false for ones locus lacks.
const char* safetensors_dtype(ScalarType t);
bool safetensors_dtype(const std::string& s, ScalarType* out);

}  // namespace locus::io
