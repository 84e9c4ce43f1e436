#include "io/catalog.h"

#include <algorithm>
#include <cctype>
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

namespace {

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A zip archive: a local file header at the start and an end-of-central-directory record (22
// bytes and a comment of up to 65535 bytes) that ends exactly at the end of the file.
bool looks_like_zip(const uint8_t* d, size_t n) {
  if (n < 30 || std::memcmp(d, "PK\x03\x04", 4) != 0) return false;
  for (size_t i = n - 22;; --i) {
    if (std::memcmp(d + i, "PK\x05\x06", 4) == 0 && i + 22 + (d[i + 20] | (size_t(d[i + 21]) << 8)) == n) return true;
    if (i == 0 || n - i > 22 + 65535) return false;
  }
}

// safetensors: an 8-byte little-endian header length N that fits the file, then '{'.
bool looks_like_safetensors(const uint8_t* d, size_t n) {
  if (n < 10) return false;
  const uint64_t len = le64(d);
  return len >= 2 && len <= n - 8 && d[8] == '{';
}

std::string extension(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string e = path.substr(dot);
  for (char& ch : e) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return e;
}

}  // namespace

std::string describe_bytes(const uint8_t* d, size_t n) {
  const size_t k = std::min<size_t>(n, 16);
  std::string hex, text;
  static const char* digits = "0123456789abcdef";
  for (size_t i = 0; i < k; ++i) {
    if (i) hex += ' ';
    hex += digits[d[i] >> 4];
    hex += digits[d[i] & 15];
    text += d[i] >= 0x20 && d[i] < 0x7f ? static_cast<char>(d[i]) : '.';
  }
  return hex + " (\"" + text + "\")";
}

Catalog parse_any(std::shared_ptr<MappedFile> file) {
  const uint8_t* d = file->data();
  const size_t n = file->size();
  // Strongest evidence first: each format by its own structure.
  if (looks_like_zip(d, n)) return parse_pytorch(std::move(file));
  if (looks_like_safetensors(d, n)) return parse_safetensors(std::move(file));
  if (n >= 6 && std::memcmp(d, "\x93NUMPY", 6) == 0) return parse_npy(std::move(file));
  if (legacy_magic_length(d, n) != 0) return parse_pytorch_legacy(std::move(file));
  if (n >= 4 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5 && d[2] == 0x8a && d[3] == 0x0a)
    throw CheckpointError("[checkpoint] " + file->path() +
                          ": the file starts like torch.save's legacy format (a pickled 10-byte "
                          "integer) but not with its magic number 0x1950a86a20f9469cfc6c: its bytes begin " +
                          describe_bytes(d, n) + ". The file is corrupt, or not a PyTorch checkpoint.");
  if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5)
    throw CheckpointError(
        "[checkpoint] " + file->path() +
        ": this is a bare pickle without torch.save's magic number (pickle.dump wrote it, not torch.save), "
        "which locus does not read; save the state dict with torch.save or as safetensors.");
  // None of them. A file whose extension names a format gets that parser's reason as well
  // (a truncated .pt or .safetensors says where it stops).
  std::string what = "[checkpoint] " + file->path() + ": not a checkpoint locus recognises: ";
  what += n == 0 ? std::string("the file is empty")
                 : "its " + std::to_string(n) + " bytes begin " + describe_bytes(d, n);
  what += ". locus reads safetensors, PyTorch's zip checkpoints (torch.save: .pt, .pth, .bin) and NumPy .npy files.";
  const std::string ext = extension(file->path());
  Catalog (*parser)(std::shared_ptr<MappedFile>) = nullptr;
  if (ext == ".safetensors") parser = parse_safetensors;
  if (ext == ".pt" || ext == ".pth" || ext == ".bin" || (n >= 4 && std::memcmp(d, "PK\x03\x04", 4) == 0)) parser = parse_pytorch;
  if (ext == ".npy") parser = parse_npy;
  if (parser != nullptr) {
    try {
      parser(file);
    } catch (const CheckpointError& e) {
      what += std::string(" Read as its extension says: ") + e.what();
    }
  }
  throw CheckpointError(what);
}

namespace {
// Dtypes a checkpoint may hold that locus refuses (a format's own table is asked first, so a
// dtype locus gains is read once it is in that table).
const RefusedDtype kRefused[] = {
    {"uint16", "U16", "u2", "torch.UInt16Storage", "t.to(torch.int32)", "a.astype(np.int32)"},
    {"uint32", "U32", "u4", "torch.UInt32Storage", "t.to(torch.int64)", "a.astype(np.int64)"},
    {"uint64", "U64", "u8", "torch.UInt64Storage", "t.to(torch.int64) (values above 2**63-1 do not fit)", "a.astype(np.int64) (values above 2**63-1 do not fit)"},
    {"float8_e4m3fn", "F8_E4M3", nullptr, "torch.Float8_e4m3fnStorage", "t.to(torch.float32)", nullptr},
    {"float8_e5m2", "F8_E5M2", nullptr, "torch.Float8_e5m2Storage", "t.to(torch.float32)", nullptr},
    {"float8_e4m3fnuz", nullptr, nullptr, "torch.Float8_e4m3fnuzStorage", "t.to(torch.float32)", nullptr},
    {"float8_e5m2fnuz", nullptr, nullptr, "torch.Float8_e5m2fnuzStorage", "t.to(torch.float32)", nullptr},
    {"float8_e8m0fnu", "F8_E8M0", nullptr, "torch.Float8_e8m0fnuStorage", "t.to(torch.float32)", nullptr},
    {"float6_e2m3", "F6_E2M3", nullptr, nullptr, "t.to(torch.float32)", nullptr},
    {"float6_e3m2", "F6_E3M2", nullptr, nullptr, "t.to(torch.float32)", nullptr},
    {"float4_e2m1", "F4", nullptr, nullptr, "t.to(torch.float32)", nullptr},
    {"complex32", nullptr, nullptr, "torch.ComplexHalfStorage", "torch.view_as_real(t) (float16 pairs in a last dimension of 2)", nullptr},
    {"complex64", "C64", "c8", "torch.ComplexFloatStorage", "torch.view_as_real(t) (float32 pairs in a last dimension of 2)",
     "np.stack([a.real, a.imag], -1) (float32 pairs in a last dimension of 2)"},
    {"complex128", nullptr, "c16", "torch.ComplexDoubleStorage", "torch.view_as_real(t) (float64 pairs in a last dimension of 2)",
     "np.stack([a.real, a.imag], -1) (float64 pairs in a last dimension of 2)"},
    {"float128", nullptr, "f16", nullptr, nullptr, "a.astype(np.float64)"},
    {"qint8", nullptr, nullptr, "torch.QInt8Storage", "t.dequantize()", nullptr},
    {"quint8", nullptr, nullptr, "torch.QUInt8Storage", "t.dequantize()", nullptr},
    {"qint32", nullptr, nullptr, "torch.QInt32Storage", "t.dequantize()", nullptr},
};

const char* spelling(const RefusedDtype& r, const std::string& format) {
  return format == "safetensors" ? r.safetensors : format == "npy" ? r.numpy : format == "dtype" ? r.name : r.torch;
}
}  // namespace

const RefusedDtype* refused_dtype(const std::string& format, const std::string& code) {
  for (const RefusedDtype& r : kRefused) {
    const char* s = spelling(r, format);
    if (s != nullptr && code == s) return &r;
  }
  return nullptr;
}

std::string refusal(const RefusedDtype& r, const std::string& format, const std::string& tensor, const std::string& spelled) {
  std::string m = (format == "npy" ? std::string("the array") : "tensor '" + tensor + "'") + " has dtype " + r.name + " (" +
                  (spelled.empty() ? std::string(spelling(r, format)) : spelled) + "), which locus does not compute with. ";
  if (format == "npy") m += std::string("Convert it in NumPy with ") + r.numpy_fix + " before saving";
  else m += std::string("Convert it in PyTorch with ") + r.torch_fix + " before saving";
  if (format == "safetensors") {
    std::string list;
    for (const char* code : {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"}) {
      ScalarType t;
      if (safetensors_dtype(code, &t)) list += std::string(list.empty() ? "" : ", ") + code;
    }
    m += " (locus reads " + list + ")";
  }
  return m + ".";
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
