#pragma once
// A restricted unpickler for PyTorch state dicts. It runs no code: it builds plain values and
// accepts only the opcodes of protocols 2-4 that such a pickle uses and only these globals:
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 (and _rebuild_tensor, PyTorch 0.3's),
// torch._utils._rebuild_tensor_v3 (PyTorch 2.x's, over a torch.storage.UntypedStorage, with a torch.<dtype>),
// torch._utils._rebuild_parameter,
// the typed storage classes (torch.FloatStorage, ...) and TorchScript's module classes
// (`__torch__.<path>.<Class>`, what libtorch's torch::save and torch.jit.save write: an object
// made by NEWOBJ with no arguments whose attributes BUILD sets from a dict, read as that dict).
// Anything else is a CheckpointError naming the opcode or the global. Hostile input is bounded: nesting at most 32 deep, a container
// cannot be changed once it is inside another (so no cycles), the memo and stack are capped.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "locus/dtype.h"

namespace locus::io {

struct PyValue;
using PyRef = std::shared_ptr<PyValue>;

struct PyValue {
  enum class Kind { None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Global, Storage, Tensor, Object };
  Kind kind = Kind::None;
  int64_t i = 0;                 // Bool, Int; Storage: numel; Tensor: storage offset; Object: 1 once built
  double f = 0;                  // Float
  std::string s;                 // Str, Bytes, Global ("module.name"); Storage: key; Object: its class
  std::vector<PyRef> items;      // Tuple, List; Dict, Object: key, value, key, value...; Tensor: {storage}
  ScalarType dtype = kFloat;     // Storage, Tensor
  std::string location;          // Storage
  std::string refused;           // Storage, Tensor: a storage class locus refuses ("torch.UInt16Storage")
  std::vector<int64_t> sizes, strides;  // Tensor
  // Storage, legacy format only: a view of the root storage (key s) pickled with view_metadata
  // (view key, offset, size in elements), as PyTorch before 1.0 wrote one.
  bool has_view = false;
  bool untyped = false;  // Storage: torch.storage.UntypedStorage (numel counts bytes)
  std::string view_key;
  int64_t view_offset = 0, view_size = 0;
  int depth = 1;
  bool frozen = false;           // inside another value: no longer mutable
};

struct UnpickleOptions {
  const char* name = "data.pkl";  // how messages name the pickle
  /// The legacy format (torch.save(..., _use_new_zipfile_serialization=False)): persistent ids
  /// have a sixth item, view_metadata (None or (view key, offset, size)).
  bool legacy = false;
  /// Where the pickle's STOP opcode ends: the file's next pickle starts there (legacy format).
  size_t* consumed = nullptr;
};

/// Unpickles `data`. `fail` throws (it prefixes the format and file name).
PyRef unpickle(const uint8_t* data, size_t size, const std::function<void(const std::string&)>& fail,
               const UnpickleOptions& options = {});

/// torch's storage class for a dtype ("torch.FloatStorage"); nullptr for a dtype it has none for.
const char* storage_class(ScalarType t);

/// What the writer pickles: storages by index, tensors viewing them, string entries.
struct PickleStorage {
  ScalarType dtype = kFloat;
  std::string location;  // "cpu", "opencl:0"
  uint64_t numel = 0;
};
struct PickleTensor {
  std::string name;
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  size_t storage = 0;  // index: its record is data/<index>
};

/// data.pkl as torch.save writes it (pickle protocol 2): an OrderedDict of name ->
/// torch._utils._rebuild_tensor_v2(<persistent id ('storage', torch.<T>Storage, '<index>',
/// location, numel)>, offset, size, stride, False, OrderedDict()), then the `strings` entries as
/// str values. Only opcodes torch.load(weights_only=True) of PyTorch 1.13 accepts are used.
std::string pickle_state_dict(const std::vector<PickleTensor>& tensors, const std::vector<PickleStorage>& storages,
                              const std::vector<std::pair<std::string, std::string>>& strings);

}  // namespace locus::io
