#include "io/catalog.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "locus/error.h"

namespace locus::io {

void fail(const Catalog& c, const std::string& what) {
  throw CheckpointError("[" + c.format + "] " + (c.file ? c.file->path() : std::string("<memory>")) + ": " + what);
}

void check_view(const Catalog& c, const TensorEntry& t) {
  if (t.storage >= c.storages.size()) fail(c, "tensor '" + t.name + "' refers to a storage that does not exist.");
  const StorageEntry& s = c.storages[t.storage];
  if (t.sizes.size() != t.strides.size())
    fail(c, "tensor '" + t.name + "' has " + std::to_string(t.sizes.size()) + " sizes but " +
                std::to_string(t.strides.size()) + " strides.");
  if (t.sizes.size() > 64) fail(c, "tensor '" + t.name + "' has " + std::to_string(t.sizes.size()) + " dimensions (at most 64).");
  if (t.dtype != s.dtype) fail(c, "tensor '" + t.name + "' has a dtype other than its storage's.");
  const int64_t storage_numel = static_cast<int64_t>(s.nbytes / element_size(s.dtype));
  if (t.offset < 0) fail(c, "tensor '" + t.name + "' has a negative storage offset.");
  int64_t numel = 1, extent = 0;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] < 0) fail(c, "tensor '" + t.name + "' has a negative size.");
    if (t.strides[i] < 0) fail(c, "tensor '" + t.name + "' has a negative stride.");
    if (__builtin_mul_overflow(numel, t.sizes[i], &numel) || numel > (int64_t(1) << 56))
      fail(c, "tensor '" + t.name + "' has too many elements (the shape overflows).");
  }
  if (numel > 0) {
    for (size_t i = 0; i < t.sizes.size(); ++i) {
      int64_t span;
      if (__builtin_mul_overflow(t.sizes[i] - 1, t.strides[i], &span) || __builtin_add_overflow(extent, span, &extent))
        fail(c, "tensor '" + t.name + "' has strides that overflow.");
    }
    int64_t last;
    if (__builtin_add_overflow(t.offset, extent, &last) || last >= storage_numel)
      fail(c, "tensor '" + t.name + "' reaches element " + std::to_string(last) + " but its storage holds " +
                  std::to_string(storage_numel) + " elements.");
  }
}

Catalog start_catalog(const char* format, std::shared_ptr<MappedFile> file) {
  Catalog c;
  c.format = format;
  c.file = std::move(file);
  if (c.file->size() == 0) fail(c, "the file is empty.");
  return c;
}

std::vector<int64_t> dense_strides(const std::vector<int64_t>& sizes, bool column_major) {
  const size_t n = sizes.size();
  std::vector<int64_t> st(n, 1);
  int64_t acc = 1;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = column_major ? k : n - 1 - k;
    st[i] = acc;
    if (acc != 0 && __builtin_mul_overflow(acc, std::max<int64_t>(sizes[i], 1), &acc)) acc = 0;
  }
  return st;
}

Catalog parse_any(std::shared_ptr<MappedFile> file) {
  const uint8_t* d = file->data();
  size_t n = file->size();
  if (n >= 4 && std::memcmp(d, "PK\x03\x04", 4) == 0) return parse_pytorch(std::move(file));
  if (n >= 6 && std::memcmp(d, "\x93NUMPY", 6) == 0) return parse_npy(std::move(file));
  if (n >= 2 && d[0] == 0x80 && d[1] <= 5)
    throw CheckpointError("[checkpoint] " + file->path() +
                          ": this is a bare pickle (torch.save with _use_new_zipfile_serialization=False, the "
                          "format before PyTorch 1.6), which locus does not read; re-save it with a current torch.save.");
  return parse_safetensors(std::move(file));
}

const char* safetensors_dtype(ScalarType t) {
  switch (t) {
    case kFloat: return "F32";
    case kDouble: return "F64";
    case kHalf: return "F16";
    case kBFloat16: return "BF16";
    case kLong: return "I64";
    case kInt: return "I32";
    case kByte: return "U8";
    case kChar: return "I8";
    case kShort: return "I16";
    case kBool: return "BOOL";
    default: return nullptr;
  }
}

bool safetensors_dtype(const std::string& s, ScalarType* out) {
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool})
    if (s == safetensors_dtype(t)) {
      *out = t;
      return true;
    }
  return false;
}

}  // namespace locus::io
