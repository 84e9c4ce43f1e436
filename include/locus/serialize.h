#pragma once
// Checkpoints: saving and loading state dicts, as torch.save / torch.load and safetensors.
//
//   locus::save(model, "model.safetensors", {{"epoch", "3"}});    // any module or StateDict
//   locus::save(model, "model.pt");                               // torch.load reads it
//   locus::load(model, "model.safetensors");                      // into the module, strict
//   auto sd = locus::load("model.pt", "cpu");                     // map_location as torch.load
//   auto sd = locus::load("model.pt", {{"cuda:0", "opencl:0"}});
//
// Formats are recognised by content, not by name: safetensors, PyTorch's zip checkpoints
// (torch.save), NumPy .npy (one tensor named "array"); all three are read and written. A file
// that is none of them is a CheckpointError "not a checkpoint locus recognises" showing its first
// bytes. Files are mapped (mmap) and every offset, size and shape is checked before anything is
// allocated; a bad file is a CheckpointError "[format] file: what is wrong". Dtypes locus does
// not compute with (uint16/32/64, float8, complex) are refused naming the tensor and the
// conversion to make before saving; so are a .pt format version above 3 and a storage location
// tag that is not a device string.
//
// Devices: a tensor loads where it was saved (torch.load's rule; safetensors written by locus
// record the device in the metadata key "locus.devices", other safetensors files are cpu) unless
// map_location says otherwise. Every target device is checked before the first allocation; a
// checkpoint saved on a device this machine lacks fails naming that device and map_location.
// Each storage is copied from the mapped file to its device through a small reused pinned
// staging buffer: the checkpoint is never copied whole into host memory.
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "locus/archive.h"
#include "locus/device.h"
#include "locus/nn/module.h"
#include "locus/tensor.h"

namespace locus::optim {
class Optimizer;
}

namespace locus {

/// Parameters and buffers by name ("fc1.weight"), as Module::state_dict returns them.
using StateDict = OrderedDict<std::string, Tensor>;
/// safetensors "__metadata__": string keys and values.
using Metadata = std::map<std::string, std::string>;

/// torch.load's map_location: nothing (where it was saved), a device ("cpu", Device(kOpenCL, 0)),
/// a mapping of saved locations ({{"cuda:0", "cpu"}}; locations it lacks stay), or a function
/// given each storage (a cpu tensor viewing the file) and its saved location.
class MapLocation {
 public:
  using Function = std::function<Device(const Tensor& storage, const std::string& saved_location)>;
  MapLocation() = default;
  MapLocation(Device device);
  MapLocation(const char* device) : MapLocation(Device(device)) {}
  MapLocation(const std::string& device) : MapLocation(Device(device)) {}
  MapLocation(std::map<std::string, std::string> mapping);
  MapLocation(std::initializer_list<std::pair<const std::string, std::string>> mapping)
      : MapLocation(std::map<std::string, std::string>(mapping)) {}
  MapLocation(Function function);

  /// True when nothing was given (tensors go where they were saved).
  bool empty() const noexcept { return kind_ == Kind::None; }
  /// The device for a storage saved at `saved_location`; `storage` is only read by a function.
  /// `*mapped` tells whether map_location changed anything.
  Device target(const std::string& saved_location, const std::function<Tensor()>& storage, bool* mapped) const;

 private:
  enum class Kind { None, Device, Mapping, Function } kind_ = Kind::None;
  Device device_ = Device(kCPU);
  std::map<std::string, std::string> mapping_;
  Function function_;
};

/// One tensor that load() placed.
struct LoadRecord {
  std::string name;
  std::string saved_location;  // as the file says: "cpu", "cuda:0", "opencl:1"
  Device target = Device(kCPU);
  int64_t bytes = 0;           // the tensor's bytes
};
struct LoadReport {
  std::vector<LoadRecord> records;
  /// One line per tensor: "fc.weight  cuda:0 -> cpu  4096 bytes", then a total.
  std::string str() const;
};

/// Loads every tensor of a checkpoint (safetensors, .pt/.pth, .npy) as torch.load does.
StateDict load(const std::string& path, const MapLocation& map_location = {}, LoadReport* report = nullptr);
/// Loads a checkpoint into `module` (Module::load_state_dict; the module stays on its device).
void load(nn::Module& module, const std::string& path, const MapLocation& map_location = {}, bool strict = true);
template <typename M>
void load(const nn::ModuleHolder<M>& module, const std::string& path, const MapLocation& map_location = {}, bool strict = true) {
  load(static_cast<nn::Module&>(*module.ptr()), path, map_location, strict);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void load(const std::shared_ptr<M>& module, const std::string& path, const MapLocation& map_location = {}, bool strict = true) {
  load(static_cast<nn::Module&>(*module), path, map_location, strict);
}

/// The file format save() writes. Auto picks it from the extension: .pt, .pth, .bin: PyTorch's
/// zip format (torch.load reads it, weights_only=True included); .npy: NumPy (a dict of exactly
/// one tensor, no metadata; it loads back named "array"); anything else: safetensors.
enum class CheckpointFormat { Auto, Safetensors, PyTorch, Npy };

/// Writes `dict` atomically (temporary file, fsync, rename: an error or a full disk leaves any
/// previous file untouched), streaming one storage at a time. Tensors on any device, any layout.
///  - safetensors: each tensor's bytes, contiguous; each device is kept in the metadata
///    ("locus.devices", only when some tensor is not on cpu).
///  - PyTorch: as torch.save(state_dict): tensors keep their strides and offsets and tensors that
///    share a storage share one record; each storage's location tag is its device ("opencl:0");
///    metadata entries are str values in the pickled dict (torch.load shows them as such).
void save(const StateDict& dict, const std::string& path, const Metadata& metadata = {});
/// The same in the given format, whatever the extension.
void save(const StateDict& dict, const std::string& path, CheckpointFormat format, const Metadata& metadata = {});
void save(const nn::Module& module, const std::string& path, const Metadata& metadata = {});
void save(const nn::Module& module, const std::string& path, CheckpointFormat format, const Metadata& metadata = {});
template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path, const Metadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module.ptr()), path, metadata);
}
template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path, CheckpointFormat format, const Metadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module.ptr()), path, format, metadata);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void save(const std::shared_ptr<M>& module, const std::string& path, const Metadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module), path, metadata);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void save(const std::shared_ptr<M>& module, const std::string& path, CheckpointFormat format, const Metadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module), path, format, metadata);
}

/// An optimizer's state (Optimizer::state_dict: each parameter's step and moments, each group's
/// learning rate), as libtorch's torch::save(optimizer, path); the formats are save()'s.
void save(const optim::Optimizer& optimizer, const std::string& path, const Metadata& metadata = {});
/// Loads a state saved from an optimizer over the same parameters (in the same order) into
/// `optimizer` (Optimizer::load_state_dict). State tensors go to their parameters' devices.
/// Also reads libtorch's optimizer archives (its torch::save(optimizer), libtorch 1.5 and later:
/// Adam, AdamW, SGD, RMSprop, Adagrad) as libtorch's torch::load does: the state matched to the
/// parameters by position, group by group; the optimizer keeps its own options, as in libtorch.
/// Anything that does not fit (the groups, their sizes, the kind of optimizer, a state's shape)
/// throws CheckpointError and leaves the optimizer as it was.
void load(optim::Optimizer& optimizer, const std::string& path, const MapLocation& map_location = {});

/// What a checkpoint holds, read from its header without loading any tensor.
struct TensorInfo {
  std::string name;
  ScalarType dtype = kFloat;
  std::vector<int64_t> sizes;
  std::string saved_location;
  int64_t bytes = 0;
};
struct CheckpointInfo {
  std::string format;  // "safetensors", "pytorch", "npy"
  std::vector<TensorInfo> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};
CheckpointInfo inspect(const std::string& path);

namespace detail {
/// A temporary file for the stream forms of save and load (removed when it goes).
class StreamCheckpoint {
 public:
  StreamCheckpoint();
  ~StreamCheckpoint();
  StreamCheckpoint(const StreamCheckpoint&) = delete;
  StreamCheckpoint& operator=(const StreamCheckpoint&) = delete;
  /// Its path (".pt": a save through it writes PyTorch's zip format).
  const std::string& path() const noexcept { return path_; }
  /// Copies the file to `out`; Error when the stream fails.
  void copy_to(std::ostream& out) const;
  /// Replaces the file by what is left in `in`; CheckpointError when it is empty.
  void fill_from(std::istream& in);

 private:
  std::string path_;
};
}  // namespace detail

/// libtorch's torch::save(value, stream): whatever save(value, path) takes (a tensor, a vector of
/// tensors, a module, an optimizer, a state dict), written to `stream` in PyTorch's zip format.
template <typename Value>
void save(const Value& value, std::ostream& stream) {
  detail::StreamCheckpoint file;
  save(value, file.path());
  file.copy_to(stream);
}

/// libtorch's torch::load(value, stream): load(value, path) from the bytes left in `stream`
/// (any format locus reads).
template <typename Value, typename... Rest>
void load(Value& value, std::istream& stream, Rest&&... rest) {
  detail::StreamCheckpoint file;
  file.fill_from(stream);
  load(value, file.path(), std::forward<Rest>(rest)...);
}
template <typename Value, typename... Rest>
void load(const Value& value, std::istream& stream, Rest&&... rest) {  // a module holder
  detail::StreamCheckpoint file;
  file.fill_from(stream);
  load(value, file.path(), std::forward<Rest>(rest)...);
}

}  // namespace locus
