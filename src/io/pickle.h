#pragma once
// A restricted unpickler for PyTorch state dicts. It runs no code: it builds plain values and
// accepts only the opcodes of protocols 2-4 that such a pickle uses and only these globals:
// collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter,
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
  int depth = 1;
  bool frozen = false;           // inside another value: no longer mutable
};

/// Unpickles `data`. `fail` throws (it prefixes the format and file name).
PyRef unpickle(const uint8_t* data, size_t size, const std::function<void(const std::string&)>& fail);

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
