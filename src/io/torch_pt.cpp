// PyTorch checkpoints (torch.save since 1.6): a zip archive "<name>/data.pkl" (the pickled
// object, storages as persistent ids), "<name>/data/<key>" (each storage's raw little-endian
// bytes) and "<name>/version". libtorch's torch::save and torch.jit.save write the same layout
// with a TorchScript module object in data.pkl (and its class definitions, compressed, under
// code/, which locus does not read): its attributes are read as a dict, so a module saved by
// libtorch gives "fc1.weight", a tensor "0", a vector of tensors "0", "1", ... The pickle goes through the restricted
// unpickler (pickle.h); nested dicts and lists of tensors are flattened with dotted names ("model.fc.weight"), and
// scalar leaves (an epoch number, a string) become metadata.
//
// The legacy format (torch.save before 1.6, or with _use_new_zipfile_serialization=False; every
// pytorch_model.bin saved before mid-2020): consecutive pickles, the magic number
// 0x1950a86a20f9469cfc6c, the protocol version 1001, sys_info {protocol_version, little_endian,
// type_sizes}, the object (persistent ids ('storage', type, root key, location, root numel,
// view_metadata)), the list of storage keys, then per key in that order an int64 element count and
// the raw little-endian bytes (unaligned: serialize.cpp copies them). view_metadata (view key,
// offset, size), which PyTorch before 1.0 wrote, makes a storage a slice of its root: its tensors
// become views of the root with the offset added, checked against the slice first.
#include <algorithm>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "io/catalog.h"
#include "io/pickle.h"
#include "io/zip.h"
#include "locus/device.h"
#include "locus/error.h"

namespace locus::io {
namespace {

// Format versions of the archive's "version" record that locus reads: torch.save writes 3 (the
// lowest version PyTorch's writer produces); 1 and 2 are older archives with the same layout.
constexpr long kMinVersion = 1, kMaxVersion = 3;

// torch.load restores a storage by its location tag (a device string): refuse a tag the device
// parser rejects instead of guessing what it meant ("cuda:01").
void check_location(const Catalog& c, const std::string& location, const std::string& tensor) {
  try {
    static_cast<void>(Device(location));
  } catch (const Error& err) {
    fail(c, "tensor '" + tensor + "' has storage location tag '" + location.substr(0, 64) +
                "', which is not a valid device string: " + err.what() +
                " The file was not written by torch.save, or was edited.");
  }
}

struct Builder {
  explicit Builder(Catalog& cat) : c(cat) {}
  Catalog& c;
  std::unordered_map<std::string, const ZipEntry*> records;
  std::string prefix;  // "archive/"
  std::unordered_map<const PyValue*, size_t> storages;
  // Flattening visits each path of the pickled value: shared sub-values (memo references) could
  // make that exponential in the file's size. A real checkpoint visits about one value per byte
  // of pickle at most.
  size_t visits_left = 0;
  // Legacy format: storages by root key (their bytes are found after the object pickle), and the
  // tensors on a storage view, checked against the view once the bytes are known.
  bool legacy = false;
  std::unordered_map<std::string, size_t> roots;
  std::vector<int64_t> root_numel;
  std::vector<std::string> first_user;
  struct ViewUse {
    size_t tensor;
    int64_t offset, size;
    std::string key;
  };
  std::vector<ViewUse> views;

  // A legacy persistent id: the root storage (created on first use, its bytes unknown yet), and
  // the tensor rebased onto it when the id is a view.
  void legacy_storage(const PyValue& s, TensorEntry& t) {
    const uint64_t es = element_size(s.dtype);
    auto it = roots.find(s.s);
    if (it == roots.end()) {
      if (static_cast<uint64_t>(s.i) > c.file->size() / es)
        fail(c, "storage '" + s.s.substr(0, 100) + "' (of tensor '" + t.name + "') claims " + std::to_string(s.i) +
                    " elements of " + dtype_name(s.dtype) + ", more than the whole file (" +
                    std::to_string(c.file->size()) + " bytes) holds.");
      check_location(c, s.location, t.name);
      StorageEntry e;
      e.nbytes = static_cast<uint64_t>(s.i) * es;
      e.dtype = s.dtype;
      e.location = s.location.substr(0, 64);
      c.storages.push_back(e);
      root_numel.push_back(s.i);
      first_user.push_back(t.name);
      it = roots.emplace(s.s, c.storages.size() - 1).first;
    }
    const size_t k = it->second;
    if (c.storages[k].dtype != s.dtype) fail(c, "storage '" + s.s.substr(0, 100) + "' is used with two dtypes.");
    if (root_numel[k] != s.i)
      fail(c, "storage '" + s.s.substr(0, 100) + "' is given two sizes (" + std::to_string(root_numel[k]) + " and " +
                  std::to_string(s.i) + " elements) by tensors '" + first_user[k] + "' and '" + t.name + "'.");
    if (c.storages[k].location != s.location.substr(0, 64))
      fail(c, "storage '" + s.s.substr(0, 100) + "' is given two locations ('" + c.storages[k].location + "' and '" +
                  s.location.substr(0, 64) + "').");
    t.storage = k;
    if (s.has_view) {
      if (s.view_offset < 0 || s.view_size < 0 || s.view_offset > root_numel[k] ||
          s.view_size > root_numel[k] - s.view_offset)
        fail(c, "tensor '" + t.name + "' is on storage view '" + s.view_key.substr(0, 100) + "' of elements [" +
                    std::to_string(s.view_offset) + ", " + std::to_string(s.view_offset) + "+" +
                    std::to_string(s.view_size) + ") of storage '" + s.s.substr(0, 100) + "', which holds " +
                    std::to_string(root_numel[k]) + " elements.");
      views.push_back({c.tensors.size(), s.view_offset, s.view_size, s.view_key.substr(0, 100)});
    }
  }

  size_t storage(const PyValue& s, const std::string& tensor) {
    auto it = storages.find(&s);
    if (it != storages.end()) return it->second;
    for (size_t i = 0; i < c.storages.size(); ++i)  // the same key pickled twice (not memoized)
      if (keys[i] == s.s) {
        if (c.storages[i].dtype != s.dtype) fail(c, "storage '" + s.s + "' is used with two dtypes.");
        storages[&s] = i;
        return i;
      }
    auto rec = records.find(prefix + "data/" + s.s);
    if (rec == records.end()) fail(c, "storage '" + s.s.substr(0, 100) + "' has no record " + prefix + "data/" + s.s.substr(0, 100) + " in the archive.");
    if (rec->second->compressed) fail(c, compressed_message(*rec->second));
    const uint64_t es = element_size(s.dtype);
    if (static_cast<uint64_t>(s.i) > rec->second->size / es)
      fail(c, "storage '" + s.s + "' should hold " + std::to_string(s.i) + " elements of " + dtype_name(s.dtype) + " (" +
                  std::to_string(static_cast<uint64_t>(s.i) * es) + " bytes) but its record has " + std::to_string(rec->second->size) + " bytes.");
    check_location(c, s.location, tensor);
    StorageEntry e;
    e.data = rec->second->data;
    e.nbytes = static_cast<uint64_t>(s.i) * es;
    e.dtype = s.dtype;
    e.location = s.location.substr(0, 64);
    c.storages.push_back(e);
    keys.push_back(s.s);
    storages[&s] = c.storages.size() - 1;
    return c.storages.size() - 1;
  }
  std::vector<std::string> keys;

  // The shortest digits that read back to the same double, as Python's repr prints everyday values
  // ("0.001", "1e-08", "3.0"; for large values the two may choose fixed and exponent notation
  // differently), so a value read from metadata (an optimizer's eps) is the value written.
  static std::string float_repr(double f) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, f);
    std::string out(buf, r.ptr);
    if (out.find_first_of(".eni") == std::string::npos) out += ".0";
    return out;
  }

  static std::string scalar(const PyValue& v) {
    switch (v.kind) {
      case PyValue::Kind::None: return "None";
      case PyValue::Kind::Bool: return v.i ? "True" : "False";
      case PyValue::Kind::Int: return std::to_string(v.i);
      case PyValue::Kind::Float: return float_repr(v.f);
      case PyValue::Kind::Str: return v.s;
      default: return "";
    }
  }

  // `root`: the pickled object itself (a bare tensor is named "tensor"); below it every value is
  // named by its path of keys, even an empty key.
  void walk(const PyValue& v, const std::string& name, bool root = false) {
    if (visits_left-- == 0)
      fail(c,
           "the pickle refers to its shared values so often that it names more entries than its size allows (a hostile "
           "file).");
    switch (v.kind) {
      case PyValue::Kind::Tensor: {
        TensorEntry t;
        t.name = root ? "tensor" : name;
        if (!v.refused.empty()) {
          if (const RefusedDtype* r = refused_dtype("pytorch", v.refused)) fail(c, refusal(*r, "pytorch", t.name));
          if (const RefusedDtype* r = refused_dtype("dtype", v.refused.substr(6)))
            fail(c, refusal(*r, "pytorch", t.name, v.refused));
          fail(c, "tensor '" + t.name + "' has dtype " + v.refused + ", which locus does not read.");
        }
        t.dtype = v.dtype;
        t.sizes = v.sizes;
        t.strides = v.strides;
        t.offset = v.i;
        if (legacy) {
          legacy_storage(*v.items.at(0), t);  // checked once the storages' bytes are known
        } else {
          t.storage = storage(*v.items.at(0), t.name);
          check_view(c, t);
        }
        c.tensors.push_back(std::move(t));
        return;
      }
      case PyValue::Kind::Dict:
      case PyValue::Kind::Object:  // a TorchScript module (libtorch's torch::save): its attributes
        for (size_t i = 0; i + 1 < v.items.size(); i += 2) {
          const PyValue& k = *v.items[i];
          if (k.kind != PyValue::Kind::Str && k.kind != PyValue::Kind::Int) fail(c, "a dict key is neither a string nor an integer.");
          walk(*v.items[i + 1], (root ? "" : name + ".") + scalar(k));
        }
        return;
      case PyValue::Kind::List:
      case PyValue::Kind::Tuple:
        for (size_t i = 0; i < v.items.size(); ++i) walk(*v.items[i], (root ? "" : name + ".") + std::to_string(i));
        return;
      case PyValue::Kind::Bytes:
      case PyValue::Kind::Global:
      case PyValue::Kind::Storage:
        fail(c, "'" + name + "' holds a " + (v.kind == PyValue::Kind::Bytes ? "bytes object" : "bare storage or class") + ", which a state dict never contains.");
      default:
        c.metadata.emplace_back(root ? "value" : name, scalar(v));
    }
  }
};

}  // namespace

Catalog parse_pytorch(std::shared_ptr<MappedFile> file) {
  if (legacy_magic_length(file->data(), file->size()) != 0) return parse_pytorch_legacy(std::move(file));
  Catalog c = start_catalog("pytorch", file);
  auto failer = [&c](const std::string& what) { fail(c, what); };
  std::vector<ZipEntry> entries = read_zip(file->data(), file->size(), failer);
  Builder b(c);
  const ZipEntry* pkl = nullptr;
  for (const ZipEntry& e : entries) {
    b.records.emplace(e.name, &e);
    const size_t slash = e.name.find('/');
    if (pkl == nullptr && slash != std::string::npos && e.name.substr(slash) == "/data.pkl") {
      pkl = &e;
      b.prefix = e.name.substr(0, slash + 1);
    }
  }
  if (pkl == nullptr) fail(c, "the archive has no <name>/data.pkl: it is a zip file but not a PyTorch checkpoint.");
  auto order = b.records.find(b.prefix + "byteorder");
  auto version = b.records.find(b.prefix + "version");
  for (const ZipEntry* e : {pkl, order != b.records.end() ? order->second : nullptr, version != b.records.end() ? version->second : nullptr})
    if (e != nullptr && e->compressed) fail(c, compressed_message(*e));
  if (order != b.records.end() && std::string(reinterpret_cast<const char*>(order->second->data), order->second->size) != "little")
    fail(c, "the checkpoint was written on a big-endian machine, which locus does not read.");
  // The format version (torch.save writes "3"): refuse a newer one rather than misread it.
  if (version != b.records.end()) {
    std::string v(reinterpret_cast<const char*>(version->second->data), std::min<uint64_t>(version->second->size, 32));
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r' || v.back() == ' ')) v.pop_back();
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
      fail(c, "the version record holds '" + v + "', not a format version number.");
    const long n = std::stol(v);
    if (n < kMinVersion || n > kMaxVersion)
      fail(c, "the archive is format version " + v + ", which locus does not read (it knows versions " + std::to_string(kMinVersion) +
                  " to " + std::to_string(kMaxVersion) + ", what torch.save writes). Re-save the state dict with a PyTorch that writes version " +
                  std::to_string(kMaxVersion) + ", or as safetensors.");
  }
  PyRef root = unpickle(pkl->data, pkl->size, failer);
  if (root->kind != PyValue::Kind::Dict && root->kind != PyValue::Kind::Tensor && root->kind != PyValue::Kind::Object)
    fail(c, "data.pkl holds neither a dict of tensors, a tensor nor a TorchScript module.");
  b.visits_left = 1024 + pkl->size;
  b.walk(*root, "", true);
  return c;
}

size_t legacy_magic_length(const uint8_t* d, size_t n) {
  // PROTO 2..5, an optional FRAME, LONG1 of 10 bytes holding 0x1950a86a20f9469cfc6c, STOP.
  static const uint8_t kMagic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, '.'};
  if (n < 2 || d[0] != 0x80 || d[1] < 2 || d[1] > 5) return 0;
  size_t p = 2;
  if (n > p && d[p] == 0x95) p += 9;
  if (n < p || n - p < sizeof kMagic || std::memcmp(d + p, kMagic, sizeof kMagic) != 0) return 0;
  return p + sizeof kMagic;
}

Catalog parse_pytorch_legacy(std::shared_ptr<MappedFile> file) {
  Catalog c = start_catalog("pytorch", file);
  auto failer = [&c](const std::string& what) { fail(c, what); };
  const uint8_t* d = file->data();
  const size_t n = file->size();
  size_t p = legacy_magic_length(d, n);
  if (p == 0)
    fail(c, "the file does not start with torch.save's magic number 0x1950a86a20f9469cfc6c: its bytes begin " +
                describe_bytes(d, n) + ". It is not a PyTorch checkpoint of the legacy (pre-1.6) format.");
  // Each pickle starts where the previous one's STOP ended; `name` says which one a message is about.
  auto next = [&](const char* name, bool legacy) {
    size_t used = 0;
    PyRef v = unpickle(d + p, n - p, failer, UnpickleOptions{name, legacy, &used});
    p += used;
    return v;
  };
  PyRef version = next("the legacy format's protocol version", false);
  if (version->kind != PyValue::Kind::Int || version->i != 1001)
    fail(c, "the legacy format's protocol version is " +
                (version->kind == PyValue::Kind::Int ? std::to_string(version->i) : "not an integer") +
                "; torch.save wrote 1001, the only version torch.load (and locus) reads.");
  PyRef info = next("the legacy format's sys_info", false);
  if (info->kind != PyValue::Kind::Dict) fail(c, "the legacy format's sys_info is not a dict.");
  for (size_t i = 0; i + 1 < info->items.size(); i += 2) {
    const PyValue &k = *info->items[i], &v = *info->items[i + 1];
    if (k.kind == PyValue::Kind::Str && k.s == "little_endian" && !(v.kind == PyValue::Kind::Bool && v.i == 1))
      fail(c,
           "sys_info says the checkpoint was written on a big-endian machine (little_endian is not True), which locus "
           "does not read.");
  }
  PyRef root = next("the object pickle", true);
  if (root->kind != PyValue::Kind::Dict && root->kind != PyValue::Kind::Tensor)
    fail(c, "the object pickle holds neither a dict of tensors nor a tensor.");
  Builder b(c);
  b.legacy = true;
  b.visits_left = 1024 + p;
  b.walk(*root, "", true);
  PyRef keys = next("the storage key list", false);
  if (keys->kind != PyValue::Kind::List) fail(c, "the storage key list is not a list.");
  std::vector<bool> read(c.storages.size(), false);
  for (size_t i = 0; i < keys->items.size(); ++i) {
    const PyValue& k = *keys->items[i];
    if (k.kind != PyValue::Kind::Str) fail(c, "the storage key list holds something other than a string.");
    const std::string key = k.s.substr(0, 100);
    auto it = b.roots.find(k.s);
    if (it == b.roots.end()) fail(c, "the storage key list names storage '" + key + "', which no tensor uses.");
    const size_t s = it->second;
    if (read[s]) fail(c, "the storage key list names storage '" + key + "' twice.");
    read[s] = true;
    const std::string which =
        "storage '" + key + "' (number " + std::to_string(i + 1) + " of " + std::to_string(keys->items.size()) + ")";
    if (n - p < 8)
      fail(c, which + " is truncated: its element count needs 8 bytes at byte " + std::to_string(p) +
                  " but the file ends at byte " + std::to_string(n) + ".");
    uint64_t count = 0;
    for (int j = 7; j >= 0; --j) count = (count << 8) | d[p + j];
    p += 8;
    if (count != static_cast<uint64_t>(b.root_numel[s]))
      fail(c, which + " holds " + std::to_string(static_cast<int64_t>(count)) + " elements in the file, but tensor '" +
                  b.first_user[s] + "' says " + std::to_string(b.root_numel[s]) + ".");
    StorageEntry& e = c.storages[s];
    if (e.nbytes > n - p)
      fail(c, which + " is truncated: its " + std::to_string(e.nbytes) + " bytes start at byte " + std::to_string(p) +
                  " but the file ends at byte " + std::to_string(n) + ".");
    e.data = d + p;
    p += e.nbytes;
  }
  for (size_t s = 0; s < c.storages.size(); ++s)
    if (!read[s])
      fail(c, "the storage of tensor '" + b.first_user[s] +
                  "' is missing from the storage key list: its bytes are not in the file.");
  for (const Builder::ViewUse& v : b.views) {  // within the view first, then rebased onto the root
    TensorEntry& t = c.tensors[v.tensor];
    Catalog slice{c.format, c.file, {c.storages[t.storage]}, {}, {}};
    slice.storages[0].nbytes = static_cast<uint64_t>(v.size) * element_size(t.dtype);
    TensorEntry in_view = t;
    in_view.storage = 0;
    in_view.name = t.name + "' on storage view '" + v.key;
    check_view(slice, in_view);
    if (__builtin_add_overflow(t.offset, v.offset, &t.offset))
      fail(c, "tensor '" + t.name + "' has a storage offset that overflows.");
  }
  for (const TensorEntry& t : c.tensors) check_view(c, t);
  return c;
}

}  // namespace locus::io
