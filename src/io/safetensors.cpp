// safetensors (https://github.com/huggingface/safetensors, "Format"): an 8-byte little-endian
// header length N, N bytes of JSON (an object: tensor name -> {"dtype", "shape", "data_offsets"}
// plus an optional "__metadata__" object of strings), padded with spaces, then the data buffer.
// The checks follow the reference implementation: the header starts with '{', tensors tile the
// buffer exactly (sorted by offset, no gap, no overlap, nothing after the last), and each
// tensor's byte span equals its shape times its element size. Hostile input is bounded: the
// header at most 100 MB, JSON nesting at most 8 deep (checked before parsing), at most 64 dims.
#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "io/catalog.h"
#include "io/safetensors.h"
#include "locus/error.h"

namespace locus::io {
namespace {

constexpr uint64_t kMaxHeader = 100'000'000;
using json = nlohmann::json;

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Nesting depth of JSON text, ignoring brackets inside strings.
int json_depth(const char* p, size_t n) {
  int depth = 0, worst = 0;
  bool in_string = false;
  for (size_t i = 0; i < n; ++i) {
    char ch = p[i];
    if (in_string) {
      if (ch == '\\') ++i;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      worst = std::max(worst, ++depth);
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  return worst;
}

int64_t small_uint(const Catalog& c, const json& v, const std::string& what) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > (uint64_t(1) << 56))
    fail(c, what + " must be a non-negative integer below 2^56, got " + v.dump() + ".");
  return static_cast<int64_t>(v.get<uint64_t>());
}

}  // namespace

Catalog parse_safetensors(std::shared_ptr<MappedFile> file) {
  Catalog c = start_catalog("safetensors", file);
  const uint8_t* d = file->data();
  const uint64_t size = file->size();
  if (size < 8) fail(c, "the file is truncated: " + std::to_string(size) + " bytes cannot hold the 8-byte header length.");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | d[i];
  if (n > kMaxHeader) fail(c, "the header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kMaxHeader) + " bytes.");
  if (n > size - 8)
    fail(c, "the header length " + std::to_string(n) + " is longer than the file (" + std::to_string(size) +
                " bytes): the file is truncated or not safetensors.");
  const char* h = reinterpret_cast<const char*>(d + 8);
  if (n < 2 || h[0] != '{') fail(c, "the header does not start with '{': not a safetensors file.");
  if (json_depth(h, n) > 8) fail(c, "the header's JSON nests deeper than 8 levels.");
  const uint8_t* buffer = d + 8 + n;
  const uint64_t buffer_size = size - 8 - n;

  json header;
  try {
    header = json::parse(h, h + n);
  } catch (const json::exception& e) {
    fail(c, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(c, "the header is not a JSON object.");

  struct Span {
    uint64_t begin, end;
    size_t tensor;
  };
  std::vector<Span> spans;
  json devices;
  try {
    for (auto it = header.begin(); it != header.end(); ++it) {
      const std::string& name = it.key();
      const json& v = it.value();
      if (name == "__metadata__") {
        if (!v.is_object()) fail(c, "__metadata__ must be an object of strings.");
        for (auto m = v.begin(); m != v.end(); ++m) {
          if (!m.value().is_string()) fail(c, "__metadata__ value of '" + m.key() + "' is not a string.");
          c.metadata.emplace_back(m.key(), m.value().get<std::string>());
        }
        continue;
      }
      if (!v.is_object()) fail(c, "tensor '" + name + "' is not an object.");
      for (const char* k : {"dtype", "shape", "data_offsets"})
        if (!v.contains(k)) fail(c, "tensor '" + name + "' has no \"" + k + "\".");
      const json& dt = v["dtype"];
      if (!dt.is_string()) fail(c, "tensor '" + name + "' has a dtype that is not a string.");
      TensorEntry t;
      t.name = name;
      const std::string ds = dt.get<std::string>();
      if (!safetensors_dtype(ds, &t.dtype)) {
        static const char* known[] = {"U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "C64", "F4", "F6_E2M3", "F6_E3M2", "F8_E8M0"};
        bool is_known = std::any_of(std::begin(known), std::end(known), [&](const char* k) { return ds == k; });
        fail(c, "tensor '" + name + "' has " + (is_known ? "dtype '" + ds + "', which locus does not support" : "unknown dtype '" + ds + "'") +
                    " (locus reads F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL).");
      }
      const json& shape = v["shape"];
      if (!shape.is_array()) fail(c, "tensor '" + name + "' has a shape that is not an array.");
      if (shape.size() > 64) fail(c, "tensor '" + name + "' has more than 64 dimensions.");
      for (const json& s : shape) t.sizes.push_back(small_uint(c, s, "a dimension of tensor '" + name + "'"));
      const json& off = v["data_offsets"];
      if (!off.is_array() || off.size() != 2) fail(c, "tensor '" + name + "' needs data_offsets [begin, end].");
      uint64_t b = static_cast<uint64_t>(small_uint(c, off[0], "data_offsets of '" + name + "'"));
      uint64_t e = static_cast<uint64_t>(small_uint(c, off[1], "data_offsets of '" + name + "'"));
      if (e < b) fail(c, "tensor '" + name + "' has data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] that end before they begin.");
      if (e > buffer_size)
        fail(c, "tensor '" + name + "' has data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                    "] out of range: the data buffer holds " + std::to_string(buffer_size) + " bytes.");
      int64_t numel = 1;
      for (int64_t s : t.sizes)
        if (__builtin_mul_overflow(numel, s, &numel) || numel > (int64_t(1) << 56))
          fail(c, "tensor '" + name + "' has a shape whose element count overflows.");
      const uint64_t want = static_cast<uint64_t>(numel) * element_size(t.dtype);
      if (want != e - b)
        fail(c, "tensor '" + name + "' has shape " + shape_str(t.sizes) + " and dtype " + ds + " (" + std::to_string(want) +
                    " bytes) but its data_offsets span " + std::to_string(e - b) + " bytes.");
      t.strides = dense_strides(t.sizes);
      StorageEntry st;
      st.data = buffer + b;
      st.nbytes = e - b;
      st.dtype = t.dtype;
      t.storage = c.storages.size();
      c.storages.push_back(st);
      spans.push_back({b, e, c.tensors.size()});
      c.tensors.push_back(std::move(t));
    }
  } catch (const json::exception& e) {
    fail(c, std::string("malformed header: ") + e.what());
  }
  // The tensors tile the buffer: sorted by offset, each begins where the previous ended.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t at = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& s = spans[i];
    if (s.begin < at)
      fail(c, "tensors '" + c.tensors[spans[i - 1].tensor].name + "' and '" + c.tensors[s.tensor].name + "' overlap (data_offsets " +
                  std::to_string(s.begin) + " < " + std::to_string(at) + ").");
    if (s.begin > at) fail(c, "the data buffer has a gap at bytes [" + std::to_string(at) + ", " + std::to_string(s.begin) + ") before tensor '" + c.tensors[s.tensor].name + "'.");
    at = s.end;
  }
  if (at != buffer_size)
    fail(c, "the data buffer holds " + std::to_string(buffer_size) + " bytes but the tensors cover " + std::to_string(at) + ".");
  std::vector<TensorEntry> by_offset;  // the file's order, not the JSON object's
  for (const Span& s : spans) by_offset.push_back(std::move(c.tensors[s.tensor]));
  c.tensors = std::move(by_offset);
  // Where locus saved each tensor (absent: cpu), kept in the metadata by save().
  for (const auto& [k, v] : c.metadata) {
    if (k != kDevicesKey) continue;
    json dev;
    try {
      if (json_depth(v.data(), v.size()) > 2) fail(c, std::string(kDevicesKey) + " nests too deep.");
      dev = json::parse(v);
    } catch (const json::exception& e) {
      fail(c, std::string(kDevicesKey) + " is not a JSON object: " + e.what());
    }
    if (!dev.is_object()) fail(c, std::string(kDevicesKey) + " is not a JSON object of device strings.");
    for (auto& t : c.tensors) {
      auto it = dev.find(t.name);
      if (it == dev.end()) continue;
      if (!it->is_string() || it->get_ref<const std::string&>().size() > 64)
        fail(c, std::string(kDevicesKey) + " has no device string for '" + t.name + "'.");
      c.storages[t.storage].location = it->get<std::string>();
    }
  }
  for (const auto& t : c.tensors) check_view(c, t);
  return c;
}

std::string safetensors_header(const std::vector<SafetensorsHeaderEntry>& entries,
                               const std::vector<std::pair<std::string, std::string>>& metadata) {
  json h = json::object();
  if (!metadata.empty()) {
    json m = json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
    h["__metadata__"] = m;
  }
  for (const auto& e : entries) {
    if (e.name == "__metadata__") throw CheckpointError("[safetensors] a tensor cannot be named '__metadata__'.");
    if (h.contains(e.name)) throw CheckpointError("[safetensors] two tensors are named '" + e.name + "'.");
    h[e.name] = {{"dtype", safetensors_dtype(e.dtype)}, {"shape", e.sizes}, {"data_offsets", {e.begin, e.end}}};
  }
  std::string s = h.dump();
  s.append((8 - s.size() % 8) % 8, ' ');  // the data buffer starts 8-byte aligned
  return s;
}

}  // namespace locus::io
