#pragma once
// libtorch's tensor archives: torch::save / torch::load of a tensor or a list of tensors, and
// torch::serialize::OutputArchive / InputArchive, stored as a locus checkpoint (serialize.h).
//
//   torch::save(t, "t.pt");                      // one tensor, key "0"
//   torch::load(t, "t.pt");                      // t takes the saved tensor (libtorch's rule below)
//   torch::save(std::vector<Tensor>{a, b}, "v.pt");   // keys "0", "1", ...
//   torch::serialize::OutputArchive ar; ar.write("w", w); ar.save_to("a.pt");
//   torch::serialize::InputArchive in; in.load_from("a.pt"); in.read("w", w);
//
// The file is a state dict in the format save() picks from the extension (.pt/.pth/.bin:
// PyTorch's zip format, which Python's torch.load reads as a dict of tensors; else safetensors),
// not libtorch's TorchScript archive: libtorch cannot read it. InputArchive reads libtorch's
// archives too (their tensors, and their other values as metadata: an optimizer's, a module's
// flags). Nested archives (write(key, archive)) are stored flat, their keys prefixed with "key.".
//
// Devices, as libtorch's InputArchive::read: a tensor loads where it was saved unless
// load_from(path, device) names a device. read(key, t) into a defined t replaces t's data in
// place (Tensor::set_data: every handle to t sees it, requires_grad is kept), so t moves to the
// loaded tensor's device, dtype and shape; into an undefined t it assigns. Errors (missing file,
// missing key, a file that is not a checkpoint) are CheckpointError naming the file and key.
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "locus/device.h"
#include "locus/nn/ordered_dict.h"
#include "locus/tensor.h"

namespace locus::serialize {

/// Collects named tensors, then writes them to one file (libtorch's OutputArchive).
class OutputArchive {
 public:
  /// Stores `tensor` under `key` (a later write of the same key replaces it). `is_buffer` is
  /// accepted for libtorch's signature; locus keeps parameters and buffers in one namespace.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Stores every tensor of `nested` under "key.<its key>".
  void write(const std::string& key, const OutputArchive& nested);
  /// Writes the archive (atomically: a failure leaves any previous file untouched).
  void save_to(const std::string& path) const;
  /// Writes the archive to `stream` (PyTorch's zip format), as libtorch's.
  void save_to(std::ostream& stream) const;
  /// The tensors written so far, in order.
  const OrderedDict<std::string, Tensor>& tensors() const { return tensors_; }

 private:
  OrderedDict<std::string, Tensor> tensors_{"Archive key"};
};

/// Reads the tensors of one file (libtorch's InputArchive).
class InputArchive {
 public:
  /// Loads every tensor of `path` (any format locus reads), onto `device` when given, else
  /// where each was saved. A missing or unreadable file is a CheckpointError.
  void load_from(const std::string& path, std::optional<Device> device = std::nullopt);
  /// The same from the bytes left in `stream`, or from `size` bytes at `data`, as libtorch's.
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt);
  void load_from(const char* data, size_t size, std::optional<Device> device = std::nullopt);
  /// The tensor under `key` into `tensor` (see the top of this file). A missing key is a
  /// CheckpointError listing the keys the file holds.
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  /// As read, but false (leaving `tensor` untouched) when `key` is absent.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  /// The nested archive written under `key` (every tensor whose key starts with "key.").
  void read(const std::string& key, InputArchive& nested) const;
  bool try_read(const std::string& key, InputArchive& nested) const;
  /// Every key, in file order.
  std::vector<std::string> keys() const;
  /// The file's values that are not tensors, as text (a locus extension; libtorch's archives keep
  /// an optimizer's steps and options here), with a nested archive's prefix removed.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  /// The file this archive was loaded from ("" before load_from).
  const std::string& path() const { return path_; }

 private:
  OrderedDict<std::string, Tensor> tensors_{"Archive key"};
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::string path_;
};

}  // namespace locus::serialize

namespace locus {

/// torch::save(tensor, path): `tensor` under key "0".
void save(const Tensor& tensor, const std::string& path);
/// torch::save(tensors, path): tensors[i] under key "i".
void save(const std::vector<Tensor>& tensors, const std::string& path);
/// torch::load(tensor, path[, device]): InputArchive::read("0", tensor).
void load(Tensor& tensor, const std::string& path, std::optional<Device> device = std::nullopt);
/// torch::load(tensors, path[, device]): appends the tensors under "0", "1", ... up to the first
/// missing index, as libtorch does (it does not clear `tensors` first).
void load(std::vector<Tensor>& tensors, const std::string& path, std::optional<Device> device = std::nullopt);
/// torch::save(archive-writing object) helpers: operator<< / >> as libtorch's.
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& a, const Tensor& t) {
  a.write("0", t);
  return a;
}
inline serialize::InputArchive& operator>>(serialize::InputArchive& a, Tensor& t) {
  a.read("0", t);
  return a;
}

}  // namespace locus
