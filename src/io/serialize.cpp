// load / save / inspect: a Catalog (io/catalog.h) becomes tensors on their target devices.
// Order of work in load: parse and check the whole file (no allocation), decide every storage's
// target device and check each is available, then allocate and copy storage by storage through
// two reused pinned staging chunks (the copy of one chunk overlaps the fill of the next).
#include "locus/serialize.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <cstring>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/tensor_impl.h"
#include "io/catalog.h"
#include "io/npy.h"
#include "io/load_internal.h"
#include "io/pickle.h"
#include "io/safetensors.h"
#include "io/zip.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/guard.h"
#include "locus/npy.h"
#include "locus/optim/adagrad.h"
#include "locus/optim/adam.h"
#include "locus/optim/optimizer.h"
#include "locus/optim/rmsprop.h"
#include "locus/optim/sgd.h"

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

StateDict io::load_with_metadata(const std::string& path, const MapLocation& map_location,
                                 std::vector<std::pair<std::string, std::string>>* metadata) {
  io::Catalog c = io::parse_any(io::MappedFile::open(path));
  StateDict out = materialize(c, map_location, nullptr);
  *metadata = c.metadata;
  return out;
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

namespace {

// libtorch's torch::save(optimizer) (format "1.5.0", libtorch 1.5 and later) writes each param
// group's parameters as their TensorImpl addresses in the writing process
// ("param_groups.param_groups/<g>.params/<j>") with the group's options, and keys each parameter's
// state by that address ("state.<address>.exp_avg", "state.<address>.step"). libtorch's
// torch::load matches them to the optimizer's parameters by position, group by group, and keeps
// the optimizer's options; so does this. Everything is checked first: a file that does not fit
// the optimizer leaves it as it was.
using RawOptions = std::map<std::string, std::string>;

// Checks that a group's saved options are those of the optimizer's kind (libtorch 1.13 reads them
// but keeps the optimizer's own, and so does this: a program that re-applies its schedule after
// loading, as libtorch programs do, would otherwise apply it twice).
void check_libtorch_options(const optim::OptimizerOptions& o, const RawOptions& raw, const std::string& where) {
  auto expect = [&](const char* kind, std::initializer_list<const char*> keys) {
    std::set<std::string> want(keys.begin(), keys.end()), have;
    for (const auto& [k, v] : raw) have.insert(k);
    if (want == have) return;
    auto list = [](const std::set<std::string>& s) {
      std::string out;
      for (const auto& k : s) out += (out.empty() ? "" : ", ") + k;
      return out.empty() ? std::string("none") : out;
    };
    throw CheckpointError(where + " has the options " + list(have) + ", but this optimizer is " + kind +
                          " (options " + list(want) + "); load the archive into the kind of optimizer that wrote it.");
  };
  if (dynamic_cast<const optim::AdamOptions*>(&o)) return expect("an Adam", {"lr", "betas.0", "betas.1", "eps", "weight_decay", "amsgrad"});
  if (dynamic_cast<const optim::AdamWOptions*>(&o)) return expect("an AdamW", {"lr", "betas.0", "betas.1", "eps", "weight_decay", "amsgrad"});
  if (dynamic_cast<const optim::SGDOptions*>(&o)) return expect("an SGD", {"lr", "momentum", "dampening", "weight_decay", "nesterov"});
  if (dynamic_cast<const optim::RMSpropOptions*>(&o))
    return expect("an RMSprop", {"lr", "alpha", "eps", "weight_decay", "momentum", "centered"});
  if (dynamic_cast<const optim::AdagradOptions*>(&o))
    return expect("an Adagrad", {"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"});
  throw CheckpointError(where + ": locus reads libtorch's archives of Adam, AdamW, SGD, RMSprop and Adagrad; this optimizer "
                        "is none of them (libtorch 1.13 cannot save an LBFGS). Save it with locus instead.");
}

void load_libtorch_optimizer(optim::Optimizer& optimizer, const StateDict& saved,
                             const std::map<std::string, std::string>& meta, const std::string& where) {
  const std::string file = where + ": libtorch's optimizer archive (format " + meta.at("pytorch_version").substr(0, 16) + ")";
  auto count = [&](const std::string& key) -> int64_t {
    const Tensor* t = saved.find(key);
    if (!t || t->numel() != 1 || !isIntegralType(t->scalar_type(), false))
      throw CheckpointError(file + " has no count '" + key + "'; the file is not an optimizer archive libtorch wrote.");
    return t->item<int64_t>();
  };
  const std::string groups_key = "param_groups.param_groups/";
  const int64_t groups = count(groups_key + "size");
  auto& mine = optimizer.param_groups();
  if (groups != static_cast<int64_t>(mine.size()))
    throw CheckpointError(file + " has " + std::to_string(groups) + " parameter group(s), the optimizer " +
                          std::to_string(mine.size()) + "; build the optimizer with the groups it was saved with.");
  std::map<std::string, int64_t> index;  // the writer's address of each parameter -> its flat index here
  OrderedDict<std::string, Tensor> sd("State");
  int64_t flat = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const std::string gk = groups_key + std::to_string(g) + ".";
    const int64_t n = count(gk + "params/size");
    if (n != static_cast<int64_t>(mine[static_cast<size_t>(g)].params().size()))
      throw CheckpointError(file + ": parameter group " + std::to_string(g) + " holds " + std::to_string(n) +
                            " parameter(s), the optimizer's " + std::to_string(mine[static_cast<size_t>(g)].params().size()) +
                            "; build the optimizer over the same parameters, in the same order, as the one that was saved.");
    for (int64_t j = 0; j < n; ++j, ++flat) {
      auto it = meta.find(gk + "params/" + std::to_string(j));
      if (it == meta.end()) throw CheckpointError(file + " does not name parameter " + std::to_string(j) + " of group " + std::to_string(g) + ".");
      if (!index.emplace(it->second, flat).second)
        throw CheckpointError(file + " names the parameter '" + it->second.substr(0, 40) + "' twice.");
    }
    RawOptions raw;
    const std::string ok = gk + "options.";
    for (auto it = meta.lower_bound(ok); it != meta.end() && it->first.compare(0, ok.size(), ok) == 0; ++it)
      raw[it->first.substr(ok.size())] = it->second;
    if (!mine[static_cast<size_t>(g)].has_options())
      throw CheckpointError(file + ": parameter group " + std::to_string(g) + " of the optimizer has no options.");
    check_libtorch_options(mine[static_cast<size_t>(g)].options(), raw, file + ", parameter group " + std::to_string(g));
  }
  // "state.<address>.<name>" -> "state.<index>.<name>", the step from the metadata
  auto state_key = [&](const std::string& key, std::string* name) -> int64_t {
    const size_t dot = key.find('.', 6);
    if (key.rfind("state.", 0) != 0 || dot == std::string::npos) return -1;
    auto it = index.find(key.substr(6, dot - 6));
    if (it == index.end())
      throw CheckpointError(file + " holds state ('" + key.substr(0, 80) + "') for a parameter none of its groups names.");
    *name = key.substr(dot + 1);
    return it->second;
  };
  for (const auto& [key, value] : meta) {
    std::string name;
    const int64_t i = state_key(key, &name);
    if (i < 0) continue;
    if (name != "step")
      throw CheckpointError(file + ": state entry '" + key.substr(0, 80) + "' is '" + value.substr(0, 40) + "', not a tensor; only the step is a number.");
    char* end = nullptr;
    const long long step = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || end != value.c_str() + value.size() || step < 0)
      throw CheckpointError(file + ": the step '" + key.substr(0, 80) + "' is '" + value.substr(0, 40) + "', not a count.");
    sd.insert("state." + std::to_string(i) + ".step", full({}, static_cast<int64_t>(step), TensorOptions().dtype(kLong)));
  }
  for (const auto& item : saved) {
    std::string name;
    const int64_t i = state_key(item.key(), &name);
    if (i < 0) continue;
    sd.insert("state." + std::to_string(i) + "." + name, item.value());
  }
  try {
    optimizer.load_state_dict(sd);
  } catch (const CheckpointError&) {
    throw;
  } catch (const Error& e) {
    throw CheckpointError(file + ": " + e.what());
  }
}

}  // namespace

void io::load_optimizer_state(optim::Optimizer& optimizer, const StateDict& tensors,
                              const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& where,
                              bool among_others) {
  // libtorch's archive: its format version and its groups' count (a locus file may carry any metadata)
  std::map<std::string, std::string> meta(metadata.begin(), metadata.end());
  if (meta.count("pytorch_version") && tensors.contains("param_groups.param_groups/size"))
    return load_libtorch_optimizer(optimizer, tensors, meta, where);
  if (!among_others) return optimizer.load_state_dict(tensors);
  StateDict mine("State");  // an archive may hold a model's tensors beside the optimizer's
  for (const auto& item : tensors)
    if (item.key().rfind("state.", 0) == 0 || item.key().rfind("param_groups.", 0) == 0) mine.insert(item.key(), item.value());
  if (mine.is_empty())  // every optimizer's state_dict() has at least its groups' lr
    throw CheckpointError(where + " holds no optimizer state (no 'state.' or 'param_groups.' entry); was the optimizer "
                          "saved into it (optimizer.save(archive)), or under a key (read(key, nested) first)?");
  optimizer.load_state_dict(mine);
}

void load(optim::Optimizer& optimizer, const std::string& path, const MapLocation& map_location) {
  std::vector<std::pair<std::string, std::string>> metadata;
  const StateDict tensors = io::load_with_metadata(path, map_location, &metadata);
  io::load_optimizer_state(optimizer, tensors, metadata, "[load] " + path, false);
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
