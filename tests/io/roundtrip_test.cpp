// Round-trip properties of the checkpoint layer: whatever locus::save writes, locus::load reads
// back with the same names, dtypes, shapes, devices and bytes, for every safetensors header
// length save can produce (1..4096 bytes), every module type of the library and every device.
// Files go to /dev/shm (tmpfs) when it exists, so the sweep costs no disk syncs.
#include "test_paths.h"
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "io/catalog.h"
#include "io/zip.h"
#include "locus/npy.h"
#include "locus/serialize.h"
#include "testing.h"

using namespace locus;

namespace roundtrip_test {

namespace {

std::string scratch_dir() {
  static const std::string dir = [] {
    std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::string(LOCUS_BINARY_DIR);
    std::string d = base + "/locus-roundtrip-" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Removes the scratch folder when the test binary exits.
struct ScratchCleanup {
  ~ScratchCleanup() {
    std::error_code ec;
    std::filesystem::remove_all("/dev/shm/locus-roundtrip-" + std::to_string(::getpid()), ec);
  }
} scratch_cleanup;

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

uint64_t header_length(const std::string& path) {
  std::string raw = read_bytes(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0 && raw.size() >= 8; --i) n = (n << 8) | static_cast<unsigned char>(raw[static_cast<size_t>(i)]);
  return n;
}

// The tensor's bytes as they lie in memory when contiguous on the host (NaN-safe comparison).
std::string host_bytes(const Tensor& t) {
  Tensor c = t.detach().cpu().contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

// Same names, dtypes, shapes, devices and bytes (the order of names is the file's, not compared).
void expect_same_dict(const StateDict& want, const StateDict& got, const std::string& what) {
  SCOPED_TRACE(what);
  std::set<std::string> a, b;
  for (const auto& item : want) a.insert(item.key());
  for (const auto& item : got) b.insert(item.key());
  ASSERT_EQ(a, b);
  for (const auto& item : want) {
    const Tensor& w = item.value();
    const Tensor& g = got[item.key()];
    EXPECT_EQ(g.scalar_type(), w.scalar_type()) << item.key();
    EXPECT_EQ(g.sizes(), w.sizes()) << item.key();
    EXPECT_EQ(g.device(), w.device()) << item.key();
    EXPECT_EQ(host_bytes(g), host_bytes(w)) << item.key();
  }
}

const std::vector<ScalarType>& every_dtype() {
  static const std::vector<ScalarType> v = {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool};
  return v;
}

// Values that use every byte of the dtype (negative, fractional, large), deterministic in `seed`.
Tensor sample(ScalarType dt, std::vector<int64_t> sizes, int seed, Device d) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor x = arange(n, TensorOptions().dtype(kDouble)) * (0.37 + seed % 5) - 3.3 * (seed % 3);
  if (dt == kLong) x = x * 1e9;
  if (dt == kByte || dt == kBool) x = x.abs();
  return x.to(dt).reshape(sizes).to(d);
}

// Tensor sets of decreasing size; names include non-ASCII text (UTF-8 in the JSON header).
StateDict content(int variant, size_t tensors, Device d) {
  static const char* names[] = {"layer.0.weight", "gewicht.ü", "权重.bias", "emoji😀.running_mean", "a", "x y"};
  StateDict sd;
  for (size_t k = 0; k < tensors; ++k) {
    ScalarType dt = every_dtype()[static_cast<size_t>(variant + static_cast<int>(k)) % every_dtype().size()];
    std::vector<int64_t> shape = k == 0 ? std::vector<int64_t>{2, 3} : k == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{0, 3};
    sd.insert(std::string(names[static_cast<size_t>(variant + static_cast<int>(k)) % 6]) + std::to_string(k),
              sample(dt, shape, variant, d));
  }
  return sd;
}

// Saves `sd` with metadata {"": pad} (or none when pad_meta is false), the pad chosen so that the
// safetensors header is exactly `length` bytes. Returns false when save cannot produce that length.
bool save_with_header_length(const StateDict& sd, bool pad_meta, uint64_t length, const std::string& path, Metadata* meta) {
  meta->clear();
  if (pad_meta) (*meta)[""] = "";
  save(sd, path, *meta);
  const uint64_t got = header_length(path);
  if (got == length) return true;
  if (got > length || !pad_meta) return false;
  // save pads the JSON with spaces to a multiple of 8: one more pad byte, one more JSON byte.
  (*meta)[""] = std::string(length - got, 'x');
  save(sd, path, *meta);
  return header_length(path) == length;
}

// Every header length 1..4096 that save can produce, for content on `d`; returns the lengths it
// cannot produce.
std::vector<uint64_t> sweep_header_lengths(Device d, const std::vector<uint64_t>& lengths) {
  const std::string path = scratch_dir() + "/sweep-" + d.str() + ".safetensors";
  std::vector<uint64_t> impossible;
  for (uint64_t length : lengths) {
    const int variant = static_cast<int>(length / 8);
    bool done = false;
    StateDict sd;
    Metadata meta;
    // Richest first: three tensors, one tensor, metadata only, nothing.
    for (size_t tensors : {size_t(3), size_t(1), size_t(0)}) {
      sd = content(variant, tensors, d);
      if ((done = save_with_header_length(sd, true, length, path, &meta))) break;
    }
    if (!done) {
      sd = StateDict();
      done = save_with_header_length(sd, false, length, path, &meta);
    }
    if (!done) {
      impossible.push_back(length);
      continue;
    }
    StateDict back = load(path);
    expect_same_dict(sd, back, d.str() + " header length " + std::to_string(length));
    CheckpointInfo info = inspect(path);
    EXPECT_EQ(info.format, "safetensors");
    Metadata got_meta;
    for (const auto& [k, v] : info.metadata)
      if (k != "locus.devices") got_meta[k] = v;
    EXPECT_EQ(got_meta, meta) << "header length " << length;
    if (::testing::Test::HasFailure()) break;  // one failing length says enough
  }
  return impossible;
}

}  // namespace

class RoundTrip : public ::testing::TestWithParam<Device> {};

// The whole sweep on cpu; on the other devices the lengths whose first length byte is 0x80
// (the ones a legacy-pickle check misread) and a spread of others.
TEST_P(RoundTrip, EverySafetensorsHeaderLengthSaveCanProduce) {
  const Device d = GetParam();
  std::vector<uint64_t> lengths;
  if (d.is_cpu()) {
    for (uint64_t n = 1; n <= 4096; ++n) lengths.push_back(n);
  } else {
    lengths = {8, 16, 24, 128, 136, 256, 384, 640, 896, 1152, 1408, 1664, 2048, 4096};
  }
  std::vector<uint64_t> impossible = sweep_header_lengths(d, lengths);
  // save pads the JSON header with spaces to a multiple of 8 (the data starts 8-byte aligned), so
  // it never writes other lengths; and no header is 16 bytes: "{}" pads to 8, the smallest one
  // with anything in it, {"__metadata__":{"":""}}, is 24.
  std::vector<uint64_t> want;
  for (uint64_t n : lengths)
    if (n % 8 != 0 || n == 16) want.push_back(n);
  EXPECT_EQ(impossible, want);
}

// Files other writers produce may have any header length (padding is optional): every length
// from 2 ("{}") to 4096 is recognised as safetensors and read, whatever its first byte.
TEST(RoundTripBytes, EverySafetensorsHeaderLengthIsRecognised) {
  const std::string tensor = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const float data[2] = {1.5f, -2.0f};
  for (size_t length = 2; length <= 4096; ++length) {
    std::string header = length >= tensor.size() ? tensor : std::string("{}");
    header.append(length - header.size(), ' ');
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>(uint64_t(length) >> (8 * i));
    file += header;
    if (length >= tensor.size()) file.append(reinterpret_cast<const char*>(data), sizeof data);
    io::Catalog c;
    try {
      c = io::parse_any(io::MappedFile::view(reinterpret_cast<const uint8_t*>(file.data()), file.size()));
    } catch (const Error& e) {
      ADD_FAILURE() << "header length " << length << ": " << e.what();
      break;
    }
    EXPECT_EQ(c.format, "safetensors");
    ASSERT_EQ(c.tensors.size(), length >= tensor.size() ? 1u : 0u) << length;
  }
}

namespace {

// One instance of every module type in include/locus/nn/modules, with parameters or buffers
// where the type has any.
std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> every_module() {
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> m;
  m.emplace_back("ReLU", nn::ReLU().ptr());
  m.emplace_back("GELU", nn::GELU().ptr());
  m.emplace_back("Sigmoid", nn::Sigmoid().ptr());
  m.emplace_back("Tanh", nn::Tanh().ptr());
  m.emplace_back("Dropout", nn::Dropout(0.2).ptr());
  m.emplace_back("Functional", nn::Functional([](const Tensor& x) { return x * 2; }).ptr());
  m.emplace_back("Sequential", nn::Sequential(nn::Linear(3, 4), nn::ReLU(), nn::BatchNorm1d(4)).ptr());
  m.emplace_back("ModuleList", nn::ModuleList(nn::Linear(2, 2), nn::LayerNorm(std::vector<int64_t>{2})).ptr());
  m.emplace_back("ModuleDict", nn::ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
                                                  {"emb", nn::Embedding(5, 3).ptr()}, {"head", nn::Linear(3, 1).ptr()}})
                                   .ptr());
  m.emplace_back("Conv2d", nn::Conv2d(2, 3, 3).ptr());
  m.emplace_back("MaxPool2d", nn::MaxPool2d(2).ptr());
  m.emplace_back("AvgPool2d", nn::AvgPool2d(2).ptr());
  m.emplace_back("AdaptiveAvgPool2d", nn::AdaptiveAvgPool2d(1).ptr());
  m.emplace_back("Linear", nn::Linear(4, 2).ptr());
  m.emplace_back("Flatten", nn::Flatten().ptr());
  m.emplace_back("Embedding", nn::Embedding(7, 3).ptr());
  m.emplace_back("CrossEntropyLoss", nn::CrossEntropyLoss().ptr());
  m.emplace_back("NLLLoss", nn::NLLLoss().ptr());
  m.emplace_back("MSELoss", nn::MSELoss().ptr());
  m.emplace_back("BCEWithLogitsLoss", nn::BCEWithLogitsLoss().ptr());
  m.emplace_back("BatchNorm1d", nn::BatchNorm1d(3).ptr());
  m.emplace_back("BatchNorm2d", nn::BatchNorm2d(2).ptr());
  m.emplace_back("LayerNorm", nn::LayerNorm(std::vector<int64_t>{2, 3}).ptr());
  return m;
}

// The file formats locus::save writes a state dict to, chosen by extension.
std::vector<std::string> dict_formats() { return {".safetensors", ".pt", ".pth", ".bin"}; }

}  // namespace

TEST_P(RoundTrip, EveryModuleType) {
  const Device d = GetParam();
  manual_seed(7);
  auto modules = every_module();
  auto fresh = every_module();  // a second set, initialised differently, to load into
  for (size_t i = 0; i < modules.size(); ++i) {
    const auto& [name, m] = modules[i];
    m->to(d);
    fresh[i].second->to(d);
    // Buffers that are not left at their initial values (running statistics, the counter).
    for (auto& item : m->named_buffers()) {
      NoGradGuard g;
      Tensor b = item.value();
      b.copy_(sample(b.scalar_type(), std::vector<int64_t>(b.sizes().begin(), b.sizes().end()), static_cast<int>(i), d).abs());
    }
    for (const std::string& ext : dict_formats()) {
      const std::string path = scratch_dir() + "/module-" + name + "-" + d.str() + ext;
      save(*m, path);
      expect_same_dict(m->state_dict(), load(path), name + ext + " on " + d.str());
      load(*fresh[i].second, path);
      expect_same_dict(m->state_dict(), fresh[i].second->state_dict(), name + ext + " loaded into a module on " + d.str());
    }
  }
}

// PyTorch's format keeps views: strides, offsets and shared storages come back as they were.
TEST_P(RoundTrip, PyTorchFormatKeepsViewsAndSharing) {
  const Device d = GetParam();
  Tensor base = sample(kFloat, {4, 6}, 3, d);
  StateDict sd;
  sd.insert("base", base);
  sd.insert("transposed", base.t());
  sd.insert("row", base.select(0, 1));
  sd.insert("col", base.select(1, 2));
  sd.insert("sliced", base.slice(1, 1, 5, 2));
  sd.insert("alone", sample(kLong, {3}, 1, d));
  for (ScalarType dt : every_dtype()) sd.insert(std::string("dtype.") + dtype_name(dt), sample(dt, {2, 3}, 2, d).t());
  sd.insert("scalar", sample(kDouble, {}, 4, d));
  sd.insert("empty", sample(kHalf, {0, 5}, 4, d));
  const std::string path = scratch_dir() + "/views-" + d.str() + ".pt";
  save(sd, path);
  StateDict back = load(path);
  expect_same_dict(sd, back, "views on " + d.str());
  for (const char* name : {"transposed", "row", "col", "sliced"}) {
    EXPECT_TRUE(back[name].is_alias_of(back["base"])) << name << " shares base's storage again";
    EXPECT_EQ(back[name].strides(), sd[name].strides()) << name;
    EXPECT_EQ(back[name].storage_offset(), sd[name].storage_offset()) << name;
  }
  EXPECT_FALSE(back["alone"].is_alias_of(back["base"]));
  EXPECT_EQ(inspect(path).format, "pytorch");
  // The explicit format overrides the extension, both ways.
  save(sd, scratch_dir() + "/views.safetensors", CheckpointFormat::PyTorch);
  EXPECT_EQ(inspect(scratch_dir() + "/views.safetensors").format, "pytorch");
  save(sd, scratch_dir() + "/views-st.pt", CheckpointFormat::Safetensors);
  EXPECT_EQ(inspect(scratch_dir() + "/views-st.pt").format, "safetensors");
  expect_same_dict(sd, load(scratch_dir() + "/views-st.pt"), "safetensors named .pt");
  // Metadata travels as str entries of the pickled dict.
  save(sd, path, {{"epoch", "3"}, {"note", "ü"}});
  CheckpointInfo info = inspect(path);
  EXPECT_EQ(info.metadata, (std::vector<std::pair<std::string, std::string>>{{"epoch", "3"}, {"note", "ü"}}));
  EXPECT_EQ(load(path).size(), sd.size());
}

// .npy holds one tensor and no device: save(dict of one, "x.npy") then load_npy onto the same
// device gives the same dtype, shape and bytes for every dtype NumPy has (not bfloat16).
TEST_P(RoundTrip, NpyEveryDtype) {
  const Device d = GetParam();
  for (ScalarType dt : every_dtype()) {
    if (dt == kBFloat16) continue;
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 4}, std::vector<int64_t>{}, std::vector<int64_t>{0, 2}}) {
      Tensor t = sample(dt, shape, static_cast<int>(dt), d);
      if (t.dim() == 2) t = t.t();
      StateDict one;
      one.insert("x", t);
      const std::string path = scratch_dir() + "/one-" + d.str() + ".npy";
      save(one, path);
      StateDict want;
      want.insert("array", t);
      StateDict back;
      back.insert("array", load_npy(path, d));
      expect_same_dict(want, back, std::string("npy ") + dtype_name(dt) + " on " + d.str());
      expect_same_dict(want, load(path, d), std::string("npy via load ") + dtype_name(dt));
    }
  }
}

LOCUS_INSTANTIATE_DEVICES(RoundTrip);

// The zip writer's zip64 form (used past 4 GiB; forced here on a small archive): locus's reader
// and Python's zipfile both read it, with each record 64-byte aligned and its CRC right.
TEST(ZipWriter, Zip64FormReadsBackInLocusAndPython) {
  for (bool zip64 : {false, true}) {
    std::string bytes;
    io::ZipWriter z([&](const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); }, zip64);
    z.add("archive/a", "hello", 5);
    z.add("archive/empty", nullptr, 0);
    std::string big(1000, 'x');
    z.add("archive/data/0", big.data(), big.size());
    z.finish();
    auto entries = io::read_zip(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                [](const std::string& what) { throw CheckpointError(what); });
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(entries[0].data), entries[0].size), "hello");
    EXPECT_EQ(entries[1].size, 0u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(entries[2].data), entries[2].size), big);
    for (const auto& e : entries) EXPECT_EQ((e.data - reinterpret_cast<const uint8_t*>(bytes.data())) % 64, 0) << e.name;
    const std::string path = scratch_dir() + (zip64 ? "/zip64.zip" : "/zip32.zip");
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    FILE* p = popen(("/usr/bin/python3 -c \"import zipfile; z = zipfile.ZipFile('" + path +
                     "'); assert z.testzip() is None; print(sorted((i.filename, i.file_size) for i in z.infolist()))\" 2>&1")
                        .c_str(),
                    "r");
    char buf[512] = {0};
    std::string out(buf, fread(buf, 1, sizeof buf - 1, p));
    EXPECT_EQ(pclose(p), 0) << out;
    EXPECT_EQ(out, "[('archive/a', 5), ('archive/data/0', 1000), ('archive/empty', 0)]\n");
  }
}

}  // namespace roundtrip_test
