// NumPy .npy (numpy/lib/format.py, versions 1.0-3.0): "\x93NUMPY", major, minor, a little-endian
// header length (2 bytes in 1.0, 4 in 2.0/3.0), then a Python dict literal
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces to a 64-byte boundary and ended by '\n', then the raw array. The literal
// is parsed by a small strict reader (never eval), accepting exactly these three keys.
#include <cctype>
#include <cstring>

#include "io/catalog.h"
#include "io/npy.h"
#include "locus/error.h"

namespace locus::io {
namespace {

struct Lit {
  const char* p;
  const char* end;
  const Catalog& c;
  void ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  }
  bool eat(char ch) {
    ws();
    if (p < end && *p == ch) {
      ++p;
      return true;
    }
    return false;
  }
  void expect(char ch) {
    if (!eat(ch)) fail(c, std::string("the header is not a valid dict literal: expected '") + ch + "'.");
  }
  std::string str() {
    ws();
    if (p >= end || (*p != '\'' && *p != '"')) fail(c, "the header is not a valid dict literal: expected a string.");
    char q = *p++;
    const char* s = p;
    while (p < end && *p != q) {
      if (*p == '\\') fail(c, "the header has an escaped string, which numpy never writes.");
      ++p;
    }
    if (p >= end) fail(c, "the header has an unterminated string.");
    return std::string(s, p++);
  }
  std::string word() {
    ws();
    const char* s = p;
    while (p < end && std::isalnum(static_cast<unsigned char>(*p))) ++p;
    return std::string(s, p);
  }
};

bool descr_dtype(const std::string& d, ScalarType* t, bool* big) {
  if (d.size() < 3) return false;
  const char order = d[0];
  const std::string kind = d.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  *big = order == '>';
  static const std::pair<const char*, ScalarType> table[] = {{"f4", kFloat}, {"f8", kDouble}, {"f2", kHalf}, {"i8", kLong},
                                                             {"i4", kInt},   {"u1", kByte},   {"b1", kBool},
                                                             {"i2", kShort}, {"i1", kChar}};
  for (const auto& [k, v] : table)
    if (kind == k) {
      *t = v;
      if (element_size(v) == 1) *big = false;
      return true;
    }
  return false;
}

}  // namespace

Catalog parse_npy(std::shared_ptr<MappedFile> file) {
  Catalog c = start_catalog("npy", file);
  const uint8_t* d = file->data();
  const uint64_t size = file->size();
  if (size < 10 || std::memcmp(d, "\x93NUMPY", 6) != 0) fail(c, "not an .npy file (no \\x93NUMPY magic) or truncated.");
  const int major = d[6];
  uint64_t hlen, start;
  if (major == 1) {
    hlen = d[8] | (uint64_t(d[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) fail(c, "the file is truncated inside the header length.");
    hlen = d[8] | (uint64_t(d[9]) << 8) | (uint64_t(d[10]) << 16) | (uint64_t(d[11]) << 24);
    start = 12;
  } else {
    fail(c, "format version " + std::to_string(major) + "." + std::to_string(d[7]) + " is unknown (locus reads 1.0 to 3.0).");
  }
  if (hlen > size - start)
    fail(c, "the header length " + std::to_string(hlen) + " is longer than the file (" + std::to_string(size) + " bytes).");
  Lit l{reinterpret_cast<const char*>(d + start), reinterpret_cast<const char*>(d + start + hlen), c};
  std::string descr;
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  TensorEntry t;
  t.name = "array";
  l.expect('{');
  while (!l.eat('}')) {
    std::string key = l.str();
    l.expect(':');
    if (key == "descr" && !have_descr) {
      descr = l.str();
      have_descr = true;
    } else if (key == "fortran_order" && !have_order) {
      std::string w = l.word();
      if (w != "True" && w != "False") fail(c, "fortran_order is neither True nor False.");
      fortran = w == "True";
      have_order = true;
    } else if (key == "shape" && !have_shape) {
      l.expect('(');
      while (!l.eat(')')) {
        std::string w = l.word();
        if (w.empty() || w.size() > 17 || w.find_first_not_of("0123456789") != std::string::npos)
          fail(c, "the shape holds '" + w.substr(0, 40) + "', not a non-negative integer.");
        t.sizes.push_back(std::stoll(w));
        if (t.sizes.size() > 64) fail(c, "the shape has more than 64 dimensions.");
        if (!l.eat(',')) {
          l.expect(')');
          break;
        }
      }
      have_shape = true;
    } else {
      fail(c, "the header has an unexpected or repeated key '" + key.substr(0, 40) + "'.");
    }
    if (!l.eat(',')) {
      l.expect('}');
      break;
    }
  }
  if (!have_descr || !have_order || !have_shape) fail(c, "the header lacks one of 'descr', 'fortran_order', 'shape'.");
  StorageEntry s;
  if (!descr_dtype(descr, &s.dtype, &s.big_endian)) {
    const RefusedDtype* r = descr.size() >= 2 ? refused_dtype("npy", descr.substr(1)) : nullptr;
    if (r != nullptr && std::string("<>|=").find(descr[0]) != std::string::npos) fail(c, refusal(*r, "npy", "array", "'" + descr + "'"));
  }
  if (!descr_dtype(descr, &s.dtype, &s.big_endian))
    fail(c, "dtype '" + descr.substr(0, 40) + "' is not supported (locus reads <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1, either byte order).");
  t.dtype = s.dtype;
  int64_t numel = 1;
  for (int64_t x : t.sizes)
    if (__builtin_mul_overflow(numel, x, &numel) || numel > (int64_t(1) << 56)) fail(c, "the shape's element count overflows.");
  const uint64_t want = static_cast<uint64_t>(numel) * element_size(s.dtype), have = size - start - hlen;
  if (want != have)
    fail(c, "the shape and dtype need " + std::to_string(want) + " bytes of data but the file has " + std::to_string(have) +
                (want > have ? " (truncated)." : "."));
  s.data = d + start + hlen;
  s.nbytes = want;
  t.strides = dense_strides(t.sizes, fortran);
  c.storages.push_back(s);
  c.tensors.push_back(t);
  check_view(c, t);
  return c;
}

std::string npy_header(ScalarType dtype, const std::vector<int64_t>& sizes) {
  const char* descr = nullptr;
  switch (dtype) {
    case kFloat: descr = "<f4"; break;
    case kDouble: descr = "<f8"; break;
    case kHalf: descr = "<f2"; break;
    case kLong: descr = "<i8"; break;
    case kInt: descr = "<i4"; break;
    case kByte: descr = "|u1"; break;
    case kChar: descr = "|i1"; break;
    case kShort: descr = "<i2"; break;
    case kBool: descr = "|b1"; break;
    default:
      throw CheckpointError(std::string("[npy] NumPy has no ") + dtype_name(dtype) +
                            " dtype; convert the tensor first, e.g. .to(locus::kFloat32).");
  }
  std::string shape = "(";
  for (size_t i = 0; i < sizes.size(); ++i) shape += std::to_string(sizes[i]) + (sizes.size() == 1 ? "," : i + 1 < sizes.size() ? ", " : "");
  shape += ")";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  if (dict.size() > 65535) throw CheckpointError("[npy] the header is too long for format 1.0.");
  return out + dict;
}

}  // namespace locus::io
