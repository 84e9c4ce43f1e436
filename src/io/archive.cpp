// libtorch's tensor archives over locus's state-dict checkpoints (archive.h).
#include "locus/archive.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include "io/load_internal.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/serialize.h"

namespace locus::serialize {
namespace {

std::string key_list(const OrderedDict<std::string, Tensor>& d) {
  std::string s;
  for (const auto& item : d) s += (s.empty() ? "" : ", ") + item.key();
  return s.empty() ? "no tensors" : s;
}

}  // namespace

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  if (!tensor.defined())
    throw Error("[OutputArchive::write] the tensor for key '" + key + "' is undefined; write defined tensors only.");
  tensors_.insert_or_assign(key, tensor.detach());
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& item : nested.tensors_) tensors_.insert_or_assign(key + "." + item.key(), item.value());
}

void OutputArchive::save_to(const std::string& path) const { locus::save(tensors_, path); }

void OutputArchive::save_to(std::ostream& stream) const { locus::save(tensors_, stream); }

void InputArchive::load_from(const std::string& path, std::optional<Device> device) {
  tensors_ = io::load_with_metadata(path, device ? MapLocation(*device) : MapLocation(), &metadata_);
  path_ = path;
}

void InputArchive::load_from(std::istream& stream, std::optional<Device> device) {
  locus::detail::StreamCheckpoint file;
  file.fill_from(stream);
  load_from(file.path(), device);
  path_ = "<stream>";
}

void InputArchive::load_from(const char* data, size_t size, std::optional<Device> device) {
  if (data == nullptr && size > 0) throw CheckpointError("[InputArchive::load_from] data is null with size " + std::to_string(size) + ".");
  std::istringstream in(std::string(data == nullptr ? "" : data, size));
  load_from(in, device);
  path_ = "<memory>";
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) const {
  const Tensor* found = tensors_.find(key);
  if (!found) return false;
  if (tensor.defined()) {
    NoGradGuard no_grad;
    tensor.set_data(*found);
  } else {
    tensor = *found;
  }
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) const {
  if (!try_read(key, tensor, is_buffer))
    throw CheckpointError("[InputArchive::read] no tensor '" + key + "' in " +
                          (path_.empty() ? std::string("the archive (load_from was not called)") : "'" + path_ + "'") +
                          "; it holds: " + key_list(tensors_) + ".");
}

bool InputArchive::try_read(const std::string& key, InputArchive& nested) const {
  OrderedDict<std::string, Tensor> sub("Archive key");
  std::string prefix = key + ".";
  for (const auto& item : tensors_)
    if (item.key().compare(0, prefix.size(), prefix) == 0) sub.insert(item.key().substr(prefix.size()), item.value());
  if (sub.is_empty()) return false;
  nested.tensors_ = std::move(sub);
  nested.metadata_.clear();
  for (const auto& [k, v] : metadata_)
    if (k.compare(0, prefix.size(), prefix) == 0) nested.metadata_.emplace_back(k.substr(prefix.size()), v);
  nested.path_ = path_;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& nested) const {
  if (!try_read(key, nested))
    throw CheckpointError("[InputArchive::read] no archive '" + key + "' (no key starts with '" + key + ".') in '" +
                          path_ + "'; it holds: " + key_list(tensors_) + ".");
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> k;
  for (const auto& item : tensors_) k.push_back(item.key());
  return k;
}

}  // namespace locus::serialize

namespace locus {

namespace detail {

StreamCheckpoint::StreamCheckpoint() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string name = (dir / "locus-stream-XXXXXX.pt").string();
  int fd = ::mkstemps(name.data(), 3);
  if (fd < 0)
    throw CheckpointError("[save/load] cannot create a temporary file in " + dir.string() + " for a stream: " +
                          std::strerror(errno) + "; set TMPDIR to a writable folder.");
  ::close(fd);
  path_ = std::move(name);
}

StreamCheckpoint::~StreamCheckpoint() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

void StreamCheckpoint::copy_to(std::ostream& out) const {
  std::ifstream in(path_, std::ios::binary);
  out << in.rdbuf();
  if (!in || !out) throw Error("[save] writing the checkpoint to the stream failed (the stream is in a failed state).");
}

void StreamCheckpoint::fill_from(std::istream& in) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  if (in.peek() == std::char_traits<char>::eof())
    throw CheckpointError("[load] the stream is empty (nothing left to read); a checkpoint written by save(value, stream) starts where the stream is.");
  out << in.rdbuf();
  out.flush();
  if (!out) throw CheckpointError("[load] copying the stream to " + path_ + " failed: " + std::strerror(errno) + ".");
}

}  // namespace detail

void save(const Tensor& tensor, const std::string& path) {
  serialize::OutputArchive a;
  a.write("0", tensor);
  a.save_to(path);
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  serialize::OutputArchive a;
  for (size_t i = 0; i < tensors.size(); ++i) a.write(std::to_string(i), tensors[i]);
  a.save_to(path);
}

void load(Tensor& tensor, const std::string& path, std::optional<Device> device) {
  serialize::InputArchive a;
  a.load_from(path, device);
  a.read("0", tensor);
}

void load(std::vector<Tensor>& tensors, const std::string& path, std::optional<Device> device) {
  serialize::InputArchive a;
  a.load_from(path, device);
  for (size_t i = 0;; ++i) {
    Tensor t;
    if (!a.try_read(std::to_string(i), t)) break;
    tensors.push_back(std::move(t));
  }
}

}  // namespace locus
