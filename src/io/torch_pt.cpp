// PyTorch checkpoints (torch.save since 1.6): a zip archive "<name>/data.pkl" (the pickled
// object, storages as persistent ids), "<name>/data/<key>" (each storage's raw little-endian
// bytes) and "<name>/version". libtorch's torch::save and torch.jit.save write the same layout
// with a TorchScript module object in data.pkl (and its class definitions, compressed, under
// code/, which locus does not read): its attributes are read as a dict, so a module saved by
// libtorch gives "fc1.weight", a tensor "0", a vector of tensors "0", "1", ... The pickle goes through the restricted unpickler (pickle.h);
// nested dicts and lists of tensors are flattened with dotted names ("model.fc.weight"), and
// scalar leaves (an epoch number, a string) become metadata.
#include <algorithm>
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

struct Builder {
  Catalog& c;
  std::unordered_map<std::string, const ZipEntry*> records;
  std::string prefix;  // "archive/"
  std::unordered_map<const PyValue*, size_t> storages;

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
    // torch.load restores a storage by its location tag (a device string): refuse a tag the
    // device parser rejects instead of guessing what it meant ("cuda:01").
    try {
      static_cast<void>(Device(s.location));
    } catch (const Error& err) {
      fail(c, "tensor '" + tensor + "' has storage location tag '" + s.location.substr(0, 64) + "', which is not a valid device string: " +
                  err.what() + " The file was not written by torch.save, or was edited.");
    }
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

  static std::string scalar(const PyValue& v) {
    switch (v.kind) {
      case PyValue::Kind::None: return "None";
      case PyValue::Kind::Bool: return v.i ? "True" : "False";
      case PyValue::Kind::Int: return std::to_string(v.i);
      case PyValue::Kind::Float: return std::to_string(v.f);
      case PyValue::Kind::Str: return v.s;
      default: return "";
    }
  }

  // `root`: the pickled object itself (a bare tensor is named "tensor"); below it every value is
  // named by its path of keys, even an empty key.
  void walk(const PyValue& v, const std::string& name, bool root = false) {
    switch (v.kind) {
      case PyValue::Kind::Tensor: {
        TensorEntry t;
        t.name = root ? "tensor" : name;
        if (!v.refused.empty()) fail(c, refusal(*refused_dtype("pytorch", v.refused), "pytorch", t.name));
        t.dtype = v.dtype;
        t.sizes = v.sizes;
        t.strides = v.strides;
        t.offset = v.i;
        t.storage = storage(*v.items.at(0), t.name);
        check_view(c, t);
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
  Catalog c = start_catalog("pytorch", file);
  auto failer = [&c](const std::string& what) { fail(c, what); };
  std::vector<ZipEntry> entries = read_zip(file->data(), file->size(), failer);
  Builder b{c, {}, {}, {}, {}};
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
  b.walk(*root, "", true);
  return c;
}

}  // namespace locus::io
