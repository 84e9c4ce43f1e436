// libFuzzer target: the .pt writer round trip. The input describes storages (dtype, bytes,
// location), tensors viewing them (sizes, strides, offset) and string entries; they are written
// with the writer save() uses (pickle_state_dict + ZipWriter, zip64 or not) and parsed back with
// parse_pytorch, which must accept the archive and return exactly what was written.
#include <cstring>
#include <set>

#include "fuzz/common.h"
#include "io/pickle.h"
#include "io/zip.h"

namespace {

struct Input {
  const uint8_t* d;
  size_t n, at = 0;
  uint8_t byte() { return at < n ? d[at++] : 0; }
  std::string text(size_t max) {
    std::string s;
    for (size_t k = byte() % (max + 1); k > 0; --k) s += static_cast<char>(byte());
    return s;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locus;
  Input in{data, size};
  std::vector<ScalarType> dtypes;
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool})
    if (io::storage_class(t)) dtypes.push_back(t);
  static const char* locations[] = {"cpu", "opencl:0", "opencl:1", "cuda:0"};
  std::vector<io::PickleStorage> storages;
  std::vector<std::string> bytes;
  for (int k = 1 + in.byte() % 3; k > 0; --k) {
    io::PickleStorage s;
    s.dtype = dtypes[in.byte() % dtypes.size()];
    s.location = locations[in.byte() % 4];
    s.numel = in.byte() % 17;
    std::string b(s.numel * element_size(s.dtype), '\0');
    for (char& ch : b) ch = static_cast<char>(in.byte());
    storages.push_back(s);
    bytes.push_back(b);
  }
  std::vector<io::PickleTensor> tensors;
  std::set<std::string> names;
  for (int k = in.byte() % 5; k > 0; --k) {
    io::PickleTensor t;
    t.name = in.text(6);
    t.storage = in.byte() % storages.size();
    t.offset = in.byte() % 5;
    int64_t numel = 1, last = t.offset;
    for (int dim = in.byte() % 4; dim > 0; --dim) {
      t.sizes.push_back(in.byte() % 5);
      t.strides.push_back(in.byte() % 7);
      numel *= t.sizes.back();
      last += (t.sizes.back() - 1) * t.strides.back();
    }
    // Only views inside their storage, with distinct names: what save() is given.
    if ((numel > 0 && last >= static_cast<int64_t>(storages[t.storage].numel)) || !names.insert(t.name).second) continue;
    tensors.push_back(t);
  }
  std::vector<std::pair<std::string, std::string>> strings;
  for (int k = in.byte() % 3; k > 0; --k) {
    std::string key = in.text(4), value = in.text(8);
    if (names.insert(key).second) strings.emplace_back(key, value);
  }
  const bool zip64 = in.byte() & 1;

  std::string file;
  io::ZipWriter zip([&](const void* p, size_t len) { file.append(static_cast<const char*>(p), len); }, zip64);
  const std::string pkl = io::pickle_state_dict(tensors, storages, strings);
  zip.add("archive/data.pkl", pkl.data(), pkl.size());
  zip.add("archive/byteorder", "little", 6);
  for (size_t i = 0; i < storages.size(); ++i) zip.add("archive/data/" + std::to_string(i), bytes[i].data(), bytes[i].size());
  zip.add("archive/version", "3\n", 2);
  zip.finish();

  io::Catalog c;
  try {
    c = io::parse_any(io::MappedFile::view(reinterpret_cast<const uint8_t*>(file.data()), file.size(), "<fuzz>"));
  } catch (const CheckpointError& e) {
    std::fprintf(stderr, "what the writer wrote does not parse: %s\n", e.what());
    std::abort();
  }
  auto check = [](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "round trip differs: %s\n", what);
      std::abort();
    }
  };
  check(c.format == "pytorch", "format");
  check(c.tensors.size() == tensors.size(), "tensor count");
  for (size_t i = 0; i < tensors.size(); ++i) {
    const io::TensorEntry& t = c.tensors[i];
    const io::PickleTensor& w = tensors[i];
    const io::StorageEntry& s = c.storages[t.storage];
    check(t.name == w.name, "name");
    check(t.dtype == storages[w.storage].dtype, "dtype");
    check(t.sizes == w.sizes && t.strides == w.strides && t.offset == w.offset, "view");
    check(s.location == storages[w.storage].location, "location");
    check(s.nbytes == bytes[w.storage].size() && (s.nbytes == 0 || std::memcmp(s.data, bytes[w.storage].data(), s.nbytes) == 0), "bytes");
    check((s.data - reinterpret_cast<const uint8_t*>(file.data())) % 64 == 0 || s.nbytes == 0, "alignment");
  }
  check(c.metadata == strings, "strings");
  return 0;
}
