// load / save / inspect: a Catalog (io/catalog.h) becomes tensors on their target devices.
// Order of work in load: parse and check the whole file (no allocation), decide every storage's
// target device and check each is available, then allocate and copy storage by storage through
// two reused pinned staging chunks (the copy of one chunk overlaps the fill of the next).
#include "locus/serialize.h"

#include <algorithm>
#include <map>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/tensor_impl.h"
#include "io/catalog.h"
#include "io/npy.h"
#include "io/pickle.h"
#include "io/safetensors.h"
#include "io/zip.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/guard.h"
#include "locus/npy.h"
#include "locus/optim/optimizer.h"

namespace locus {
namespace {

constexpr int64_t kChunkBytes = 8 << 20;

std::string normalized(const std::string& location) {
  try {
    return Device(location).str();
  } catch (const Error&) {
    return location;
  }
}

void byteswap(uint8_t* p, uint64_t nbytes, size_t es) {
  for (uint64_t i = 0; i + es <= nbytes; i += es) std::reverse(p + i, p + i + es);
}

// A cpu tensor over a storage's bytes: in place when aligned, else a copy.
Tensor host_view(const io::StorageEntry& s) {
  const size_t es = element_size(s.dtype);
  const int64_t n = static_cast<int64_t>(s.nbytes / es);
  if (!s.big_endian && reinterpret_cast<uintptr_t>(s.data) % es == 0)
    return from_blob(const_cast<uint8_t*>(s.data), {n}, TensorOptions().dtype(s.dtype));
  Tensor t = empty({n}, TensorOptions().dtype(s.dtype));
  if (s.nbytes) std::memcpy(t.data_ptr(), s.data, s.nbytes);
  if (s.big_endian) byteswap(static_cast<uint8_t*>(t.data_ptr()), s.nbytes, es);
  return t;
}

Tensor copy_storage(const io::StorageEntry& s, Device target) {
  const size_t es = element_size(s.dtype);
  const int64_t n = static_cast<int64_t>(s.nbytes / es);
  Tensor out = empty({n}, TensorOptions().dtype(s.dtype).device(target));
  if (n == 0) return out;
  if (target.is_cpu()) {
    std::memcpy(out.data_ptr(), s.data, s.nbytes);
    if (s.big_endian) byteswap(static_cast<uint8_t*>(out.data_ptr()), s.nbytes, es);
    return out;
  }
  const int64_t chunk = std::min<int64_t>(n, std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(es)));
  Tensor staging[2];
  for (Tensor& st : staging) {
    try {
      st = empty({chunk}, TensorOptions().dtype(s.dtype).pinned_memory(true));
    } catch (const NotAvailableError&) {
      st = empty({chunk}, TensorOptions().dtype(s.dtype));
    }
  }
  for (int64_t off = 0, k = 0; off < n; off += chunk, ++k) {
    const int64_t len = std::min(chunk, n - off);
    Tensor st = staging[k % 2].narrow(0, 0, len);
    uint8_t* p = static_cast<uint8_t*>(st.data_ptr());  // waits for this buffer's previous copy
    std::memcpy(p, s.data + off * static_cast<int64_t>(es), static_cast<size_t>(len) * es);
    if (s.big_endian) byteswap(p, static_cast<uint64_t>(len) * es, es);
    out.narrow(0, off, len).copy_(st, /*non_blocking=*/true);
  }
  return out;
}

StateDict materialize(const io::Catalog& c, const MapLocation& map_location, LoadReport* report) {
  const std::string file = c.file ? c.file->path() : std::string("<memory>");
  std::vector<bool> used(c.storages.size(), false);
  std::vector<std::string> first_user(c.storages.size());
  for (const auto& t : c.tensors)
    if (!used[t.storage]) used[t.storage] = true, first_user[t.storage] = t.name;
  // 1. Decide every target and check it exists, before allocating anything.
  std::vector<Device> targets(c.storages.size(), Device(kCPU));
  std::set<std::string> checked;
  for (size_t i = 0; i < c.storages.size(); ++i) {
    if (!used[i]) continue;
    const io::StorageEntry& s = c.storages[i];
    bool mapped = false;
    Device d(kCPU);
    try {
      d = map_location.target(s.location, [&] { return host_view(s); }, &mapped);
    } catch (const CheckpointError&) {
      throw;
    } catch (const Error& e) {
      throw CheckpointError("[load] " + file + ": tensor '" + first_user[i] + "' was saved at location '" + s.location +
                            "', which is not a device locus knows (" + e.what() + "); pass map_location to choose one.");
    }
    if (!d.is_cpu() && !d.has_index()) d = resolve_device(d);
    targets[i] = d;
    if (!checked.insert(d.str() + "|" + s.location).second) continue;
    try {
      check_device_available(d);
    } catch (const Error& e) {
      if (!mapped)
        throw CheckpointError("[load] " + file + ": tensor '" + first_user[i] + "' was saved on " + s.location +
                              ", which this machine does not have (" + e.what() +
                              "). Pass map_location to load it elsewhere, e.g. locus::load(path, \"cpu\") or "
                              "locus::load(path, {{\"" + s.location + "\", \"cpu\"}}).");
      throw CheckpointError("[load] " + file + ": map_location sends tensor '" + first_user[i] + "' (saved on " + s.location + ") to " +
                            d.str() + ", which is not available: " + e.what());
    }
  }
  // 2. Copy each storage once; tensors are views of it (shared storages stay shared).
  std::vector<Tensor> storages(c.storages.size());
  for (size_t i = 0; i < c.storages.size(); ++i)
    if (used[i]) storages[i] = copy_storage(c.storages[i], targets[i]);
  StateDict out("Key");
  for (const auto& t : c.tensors) {
    const Tensor& st = storages[t.storage];
    Tensor v = t.numel() == 0 ? empty(t.sizes, TensorOptions().dtype(t.dtype).device(st.device()))
             : (t.offset == 0 && t.numel() == st.numel() && t.sizes.size() == 1 && (t.sizes[0] <= 1 || t.strides[0] == 1))
                   ? st
                   : st.as_strided(t.sizes, t.strides, t.offset);
    out.insert_or_assign(t.name, v);
    if (report) report->records.push_back({t.name, c.storages[t.storage].location, targets[t.storage], t.numel() * static_cast<int64_t>(element_size(t.dtype))});
  }
  return out;
}

std::string lower_ext(const std::string& path) {
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string e = path.substr(dot);
  for (char& ch : e) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return e;
}

}  // namespace

// ---- MapLocation ------------------------------------------------------------------------------
MapLocation::MapLocation(Device device) : kind_(Kind::Device), device_(device) {}
MapLocation::MapLocation(std::map<std::string, std::string> mapping) : kind_(Kind::Mapping) {
  for (const auto& [from, to] : mapping) {
    static_cast<void>(Device(to));  // a bad target string throws here, quoting it
    mapping_[normalized(from)] = to;
  }
}
MapLocation::MapLocation(Function function) : kind_(Kind::Function), function_(std::move(function)) {
  if (!function_) kind_ = Kind::None;
}

Device MapLocation::target(const std::string& saved, const std::function<Tensor()>& storage, bool* mapped) const {
  *mapped = kind_ != Kind::None;
  switch (kind_) {
    case Kind::Device: return device_;
    case Kind::Function: return function_(storage(), saved);
    case Kind::Mapping: {
      auto it = mapping_.find(normalized(saved));
      if (it != mapping_.end()) return Device(it->second);
      *mapped = false;
      return Device(saved);
    }
    default: return Device(saved);
  }
}

std::string LoadReport::str() const {
  std::ostringstream os;
  size_t w = 4;
  int64_t total = 0;
  for (const auto& r : records) w = std::max(w, r.name.size());
  for (const auto& r : records) {
    os << r.name << std::string(w - r.name.size() + 2, ' ') << r.saved_location << " -> " << r.target.str() << "  " << r.bytes << " bytes\n";
    total += r.bytes;
  }
  os << records.size() << " tensors, " << total << " bytes\n";
  return os.str();
}

// ---- load / save / inspect --------------------------------------------------------------------
StateDict load(const std::string& path, const MapLocation& map_location, LoadReport* report) {
  io::Catalog c = io::parse_any(io::MappedFile::open(path));
  return materialize(c, map_location, report);
}

void load(nn::Module& module, const std::string& path, const MapLocation& map_location, bool strict) {
  module.load_state_dict(load(path, map_location), strict);
}

namespace {

void save_safetensors(const StateDict& dict, const std::string& path, const Metadata& metadata) {
  std::vector<io::SafetensorsHeaderEntry> entries;
  std::vector<Tensor> tensors;
  nlohmann::json devices = nlohmann::json::object();
  bool any_device = false;
  for (const auto& item : dict) {
    const Tensor& t = item.value();
    if (!t.defined()) throw CheckpointError("[save] " + path + ": tensor '" + item.key() + "' is undefined.");
    if (!io::safetensors_dtype(t.scalar_type()))
      throw CheckpointError("[save] " + path + ": tensor '" + item.key() + "' has dtype " + dtype_name(t.scalar_type()) + ", which safetensors cannot hold.");
    entries.push_back({item.key(), t.scalar_type(), std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), 0, 0});
    tensors.push_back(t);
    devices[item.key()] = t.device().str();
    any_device |= !t.device().is_cpu();
  }
  // Widest elements first (stable): every tensor starts aligned to its element size.
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return element_size(entries[a].dtype) > element_size(entries[b].dtype); });
  uint64_t at = 0;
  std::vector<io::SafetensorsHeaderEntry> sorted;
  for (size_t i : order) {
    io::SafetensorsHeaderEntry e = entries[i];
    e.begin = at;
    at += static_cast<uint64_t>(tensors[i].nbytes());
    e.end = at;
    sorted.push_back(std::move(e));
  }
  std::vector<std::pair<std::string, std::string>> meta(metadata.begin(), metadata.end());
  if (metadata.count(io::kDevicesKey)) throw CheckpointError(std::string("[save] metadata key '") + io::kDevicesKey + "' is reserved for locus.");
  if (any_device) meta.emplace_back(io::kDevicesKey, devices.dump());
  const std::string header = io::safetensors_header(sorted, meta);
  io::AtomicFile f(path);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  f.write(len, 8);
  f.write(header.data(), header.size());
  NoGradGuard no_grad;
  for (size_t i : order) {
    Tensor host = tensors[i].detach().to(Device(kCPU)).contiguous();
    if (host.nbytes()) f.write(host.data_ptr(), host.nbytes());
  }
  f.commit();
}

// PyTorch's zip format, as torch.save writes it: archive/data.pkl, archive/byteorder, one
// archive/data/<key> record per storage (64-byte aligned, stored), archive/version. Tensors that
// share a storage share its record; each storage is copied to the host and written in turn.
void save_pytorch(const StateDict& dict, const std::string& path, const Metadata& metadata) {
  std::vector<io::PickleTensor> tensors;
  std::vector<io::PickleStorage> storages;
  std::vector<Tensor> whole;  // a 1-d view of each storage, in full
  std::map<std::pair<const void*, ScalarType>, size_t> seen;
  for (const auto& item : dict) {
    const Tensor& t = item.value();
    if (!t.defined()) throw CheckpointError("[save] " + path + ": tensor '" + item.key() + "' is undefined.");
    if (!io::storage_class(t.scalar_type()))
      throw CheckpointError("[save] " + path + ": tensor '" + item.key() + "' has dtype " + dtype_name(t.scalar_type()) +
                            ", which a PyTorch checkpoint cannot hold.");
    if (metadata.count(item.key()))
      throw CheckpointError("[save] " + path + ": '" + item.key() + "' is both a tensor and a metadata key.");
    const std::shared_ptr<Storage>& st = t.impl()->storage;
    const size_t es = element_size(t.scalar_type());
    auto [it, fresh] = seen.try_emplace({st.get(), t.scalar_type()}, storages.size());
    if (fresh) {
      const int64_t numel = st ? static_cast<int64_t>(st->nbytes / es) : 0;
      storages.push_back({t.scalar_type(), t.device().str(), static_cast<uint64_t>(numel)});
      whole.push_back(numel > 0 ? t.detach().as_strided({numel}, {1}, 0) : Tensor());
    }
    io::PickleTensor pt;
    pt.name = item.key();
    pt.sizes.assign(t.sizes().begin(), t.sizes().end());
    pt.strides.assign(t.strides().begin(), t.strides().end());
    pt.offset = t.storage_offset();
    pt.storage = it->second;
    tensors.push_back(std::move(pt));
  }
  const std::string pkl = io::pickle_state_dict(tensors, storages, std::vector<std::pair<std::string, std::string>>(metadata.begin(), metadata.end()));
  io::AtomicFile f(path);
  io::ZipWriter zip([&f](const void* p, size_t n) { f.write(p, n); });
  zip.add("archive/data.pkl", pkl.data(), pkl.size());
  zip.add("archive/byteorder", "little", 6);
  NoGradGuard no_grad;
  for (size_t i = 0; i < storages.size(); ++i) {
    Tensor host = whole[i].defined() ? whole[i].to(Device(kCPU)).contiguous() : Tensor();
    zip.add("archive/data/" + std::to_string(i), host.defined() ? host.data_ptr() : nullptr, host.defined() ? host.nbytes() : 0);
  }
  zip.add("archive/version", "3\n", 2);
  zip.finish();
  f.commit();
}

CheckpointFormat format_of(const std::string& path) {
  const std::string ext = lower_ext(path);
  if (ext == ".pt" || ext == ".pth" || ext == ".bin") return CheckpointFormat::PyTorch;
  if (ext == ".npy") return CheckpointFormat::Npy;
  return CheckpointFormat::Safetensors;
}

}  // namespace

void save(const StateDict& dict, const std::string& path, CheckpointFormat format, const Metadata& metadata) {
  if (format == CheckpointFormat::Auto) format = format_of(path);
  switch (format) {
    case CheckpointFormat::PyTorch: return save_pytorch(dict, path, metadata);
    case CheckpointFormat::Npy:
      if (dict.size() != 1 || !metadata.empty())
        throw CheckpointError("[save] " + path + ": an .npy file holds one tensor and no metadata, but the state dict has " +
                              std::to_string(dict.size()) + " tensors" + (metadata.empty() ? "" : " and metadata") +
                              "; save it as .safetensors or .pt, or pass one tensor to locus::save_npy.");
      return save_npy(dict[0].value(), path);
    default: return save_safetensors(dict, path, metadata);
  }
}

void save(const StateDict& dict, const std::string& path, const Metadata& metadata) {
  save(dict, path, CheckpointFormat::Auto, metadata);
}

void save(const nn::Module& module, const std::string& path, CheckpointFormat format, const Metadata& metadata) {
  save(module.state_dict(), path, format, metadata);
}

void save(const nn::Module& module, const std::string& path, const Metadata& metadata) {
  save(module.state_dict(), path, metadata);
}

void save(const optim::Optimizer& optimizer, const std::string& path, const Metadata& metadata) {
  save(optimizer.state_dict(), path, metadata);
}

void load(optim::Optimizer& optimizer, const std::string& path, const MapLocation& map_location) {
  io::Catalog c = io::parse_any(io::MappedFile::open(path));
  // libtorch's torch::save(optimizer) writes "pytorch_version" and keys its state by the
  // parameters' addresses in the writing process ("state.0x55d0c0a1b2c0.exp_avg")
  for (const auto& [key, value] : c.metadata)
    if (key == "pytorch_version")
      throw CheckpointError("[load] " + path + ": an optimizer archive written by libtorch's torch::save(optimizer) (format " +
                            value.substr(0, 16) + "), whose state is keyed by the parameters' memory addresses in the "
                            "process that wrote it; locus cannot match them to parameters. Load the model's weights "
                            "(torch::load(model, path) reads libtorch's model archives) and start the optimizer afresh, "
                            "or save the optimizer with locus.");
  optimizer.load_state_dict(materialize(c, map_location, nullptr));
}

CheckpointInfo inspect(const std::string& path) {
  io::Catalog c = io::parse_any(io::MappedFile::open(path));
  CheckpointInfo info;
  info.format = c.format;
  info.metadata = c.metadata;
  for (const auto& t : c.tensors)
    info.tensors.push_back({t.name, t.dtype, t.sizes, c.storages[t.storage].location, t.numel() * static_cast<int64_t>(element_size(t.dtype))});
  return info;
}

// ---- .npy ------------------------------------------------------------------------------------
void save_npy(const Tensor& tensor, const std::string& path) {
  if (!tensor.defined()) throw CheckpointError("[npy] " + path + ": the tensor is undefined.");
  const std::string header = io::npy_header(tensor.scalar_type(), std::vector<int64_t>(tensor.sizes().begin(), tensor.sizes().end()));
  NoGradGuard no_grad;
  Tensor host = tensor.detach().to(Device(kCPU)).contiguous();
  io::AtomicFile f(path);
  f.write(header.data(), header.size());
  if (host.nbytes()) f.write(host.data_ptr(), host.nbytes());
  f.commit();
}

Tensor load_npy(const std::string& path, const MapLocation& map_location) {
  io::Catalog c = io::parse_npy(io::MappedFile::open(path));
  return materialize(c, map_location, nullptr)[0].value();
}

}  // namespace locus
