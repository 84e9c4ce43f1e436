// PyTorch's legacy checkpoint format (torch.save before 1.6, or _use_new_zipfile_serialization=False):
// the fixtures of tests/io/make_legacy_fixtures.py (PyTorch 1.13), each compared with torch.load's
// value for it (legacy_X.ref.pt: that value re-saved in the zip format), on every device; hostile
// variants of them, each refused with a CheckpointError that says what is wrong.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/catalog.h"
#include "test_paths.h"
#include "testing.h"

using namespace locus;
using namespace std::string_literals;

namespace legacy_test {

namespace {

const std::string kDir = std::string(LOCUS_SOURCE_DIR) + "/tests/io/fixtures/";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string tmp_file(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(LOCUS_BINARY_DIR) + "/legacy-test-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Replaces the first `from` in `s` (which must be there) by `to`.
std::string patched(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "fixture bytes changed: no " << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

void expect_same(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  ASSERT_EQ(a.scalar_type(), b.scalar_type()) << what;
  EXPECT_TRUE(a.cpu().equal(b.cpu())) << what << "\n" << a << "\n" << b;
}

Tensor ar(int64_t n, ScalarType dt, double scale = 0.25, double shift = -1.0) {
  return (arange(n, TensorOptions().dtype(kDouble)) * scale + shift).to(dt);
}

// The legacy file loaded on `dev` holds what torch.load gives: the same names in the same order,
// dtypes, shapes and values.
StateDict expect_as_torch_load(const std::string& name, const Device& dev, const MapLocation& where,
                               const std::string& dir = kDir) {
  const std::string stem = name.substr(0, name.rfind('.'));
  StateDict got = load(dir + name, where), want = load(dir + stem + ".ref.pt");
  EXPECT_EQ(got.keys(), want.keys()) << name;
  for (const auto& item : want) {
    EXPECT_EQ(got[item.key()].device(), dev) << name << " " << item.key();
    expect_same(got[item.key()], item.value(), name + " " + item.key());
  }
  return got;
}

class LegacyCheckpoint : public ::testing::TestWithParam<Device> {};

TEST_P(LegacyCheckpoint, EveryFixtureAsTorchLoad) {
  const Device dev = GetParam();
  for (const char* name : {"legacy_dtypes.pt", "legacy_model.pt", "legacy_views.pt", "legacy_checkpoint.pth",
                           "legacy_tensor.pt", "legacy_storage_view.pt", "legacy_protocol4.pt"})
    expect_as_torch_load(name, dev, dev);
  expect_as_torch_load("legacy_cuda.pt", dev, {{"cuda:0", dev.str()}});
}

TEST_P(LegacyCheckpoint, ValuesAndViews) {
  const Device dev = GetParam();
  // Independently of torch: the fixtures' arange-based values.
  StateDict d = load(kDir + "legacy_dtypes.pt", dev);
  ASSERT_EQ(d.size(), 10u);
  expect_same(d["f32"], ar(6, kFloat).reshape({2, 3}), "f32");
  expect_same(d["f64"], ar(5, kDouble, 0.1, 0), "f64");
  expect_same(d["f16"], ar(4, kHalf), "f16");
  expect_same(d["bf16"], ar(4, kBFloat16), "bf16");
  expect_same(d["i64"], arange(-3, 3, TensorOptions().dtype(kLong)) * (int64_t(1) << 40), "i64");
  expect_same(d["i32"], arange(-2, 2, TensorOptions().dtype(kInt)), "i32");
  expect_same(d["i16"], arange(-300, 300, 100, TensorOptions().dtype(kShort)), "i16");
  expect_same(d["i8"], arange(-3, 3, TensorOptions().dtype(kChar)), "i8");
  expect_same(d["u8"], arange(250, 256, TensorOptions().dtype(kByte)), "u8");
  expect_same(d["bool"], tensor({true, false, true}), "bool");

  StateDict v = load(kDir + "legacy_views.pt", dev);
  Tensor base = ar(24, kFloat).reshape({4, 6});
  expect_same(v["base"], base, "base");
  expect_same(v["tail"], base.slice(0, 1), "tail");
  expect_same(v["t"], base.t(), "t");
  EXPECT_EQ(v["t"].strides(), IntArrayRef({1, 6}));
  expect_same(v["slice2"], base.slice(0, 2).slice(1, 2, 5), "slice2");
  EXPECT_EQ(v["slice2"].storage_offset(), 14);
  expect_same(v["col"], base.select(1, 2), "col");
  for (const char* k : {"tail", "t", "slice2", "col"})
    EXPECT_TRUE(v[k].is_alias_of(v["base"])) << k << ": views of one storage stay shared";
  expect_same(v["scalar"], full({}, 2.5), "scalar");
  EXPECT_EQ(v["scalar"].dim(), 0);
  EXPECT_EQ(v["empty"].sizes(), IntArrayRef({0, 4}));
  expect_same(v["param"], ar(3, kFloat, 2.0, 1.0), "param");

  // Storage views (view_metadata): slices of one root storage, rebased onto it.
  StateDict s = load(kDir + "legacy_storage_view.pt", dev);
  Tensor root = ar(10, kFloat);
  expect_same(s["a"], root.slice(0, 3, 7).reshape({2, 2}), "a");
  expect_same(s["b"], root.slice(0, 5), "b");
  expect_same(s["whole"], root, "whole");
  EXPECT_TRUE(s["a"].is_alias_of(s["whole"]));
  EXPECT_TRUE(s["b"].is_alias_of(s["whole"]));

  StateDict t = load(kDir + "legacy_tensor.pt", dev);
  expect_same(t["tensor"], ar(5, kDouble, 1.5, 0.5), "tensor");

  // Into a locus model of the same architecture.
  nn::Sequential seq(nn::Linear(4, 3), nn::BatchNorm1d(3));
  load(seq, kDir + "legacy_model.pt");
  expect_same(seq->state_dict()["0.weight"], ar(12, kFloat).reshape({3, 4}), "0.weight");
  EXPECT_EQ(seq->state_dict()["1.num_batches_tracked"].item<int64_t>(), 7);
}

LOCUS_INSTANTIATE_DEVICES(LegacyCheckpoint);

TEST(LegacyCheckpointFile, InspectLocationsAndRefusals) {
  CheckpointInfo info = inspect(kDir + "legacy_checkpoint.pth");
  EXPECT_EQ(info.format, "pytorch");
  auto meta = [&](const std::string& k) {
    for (const auto& [key, value] : info.metadata)
      if (key == k) return value;
    return "<missing " + k + ">"s;
  };
  EXPECT_EQ(meta("epoch"), "3");
  EXPECT_EQ(meta("name"), "run1");
  EXPECT_EQ(meta("optimizer.param_groups.0.params.3"), "3");
  EXPECT_EQ(meta("optimizer.param_groups.0.amsgrad"), "False");
  StateDict ck = load(kDir + "legacy_checkpoint.pth");
  EXPECT_TRUE(ck.contains("optimizer.state.0.exp_avg"));
  EXPECT_EQ(ck["optimizer.state.0.step"].item<float>(), 1.0f);

  // Saved on cuda:0: refused without map_location, as the zip format's model_cuda.pt.
  EXPECT_THROW_MSG(load(kDir + "legacy_cuda.pt"), CheckpointError, "tensor '0.weight' was saved on cuda:0");
  LoadReport report;
  load(kDir + "legacy_cuda.pt", "cpu", &report);
  ASSERT_FALSE(report.records.empty());
  EXPECT_EQ(report.records[0].saved_location, "cuda:0");

  EXPECT_THROW_MSG(load(kDir + "legacy_complex.pt"), CheckpointError,
                   "[pytorch] " + kDir +
                       "legacy_complex.pt: tensor 'z' has dtype complex64 (torch.ComplexFloatStorage), which locus "
                       "does not compute with. Convert it in PyTorch with torch.view_as_real(t)");
}

// The fixtures written afresh by the installed PyTorch (storage keys and layout as it writes them).
TEST(LegacyCheckpointFile, FreshFilesFromPythonTorch) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import torch' 2>/dev/null"), 0)
      << "Debian's python3-torch is not installed; scripts/install-deps installs it";
  const std::string dir = std::string(LOCUS_BINARY_DIR) + "/legacy-test-" + std::to_string(::getpid()) + "-fixtures/";
  const std::string cmd = "/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/io/make_legacy_fixtures.py " +
                          dir + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const char* name : {"legacy_dtypes.pt", "legacy_model.pt", "legacy_views.pt", "legacy_checkpoint.pth",
                           "legacy_tensor.pt", "legacy_storage_view.pt", "legacy_protocol4.pt"})
    expect_as_torch_load(name, Device("cpu"), Device("cpu"), dir);
  expect_as_torch_load("legacy_cuda.pt", Device("cpu"), "cpu", dir);
  std::filesystem::remove_all(dir);
}

TEST(LegacyCheckpointFile, HostileVariantsNamed) {
  const std::string good = read_file(kDir + "legacy_tensor.pt");  // one float64 storage of 5 elements
  ASSERT_EQ(good.size(), 368u);
  auto expect_bad = [](const std::string& bytes, const std::string& msg) {
    const std::string path = tmp_file("bad.pt", bytes);
    EXPECT_THROW_MSG(load(path), CheckpointError, msg);
    EXPECT_THROW_MSG(inspect(path), CheckpointError, msg);
    ::unlink(path.c_str());
  };
  const size_t data = good.size() - 40, count = data - 8;  // the storage's bytes and its element count
  // Truncated anywhere: never read past the end.
  for (size_t n = 1; n < good.size(); ++n) {
    const std::string path = tmp_file("cut.pt", good.substr(0, n));
    EXPECT_THROW(load(path), CheckpointError) << "cut at " << n;
    ::unlink(path.c_str());
  }
  expect_bad(good.substr(0, data + 3), "storage '"s);
  expect_bad(good.substr(0, data + 3),
             "(number 1 of 1) is truncated: its 40 bytes start at byte 328 but the file ends at byte 331.");
  expect_bad(good.substr(0, count + 2),
             "is truncated: its element count needs 8 bytes at byte 320 but the file ends at byte 322.");
  expect_bad(good.substr(0, 30), "the legacy format's sys_info: ");
  expect_bad(good.substr(0, 200), "the object pickle: ");
  expect_bad(good.substr(0, count - 3), "the storage key list: the pickle");
  // An element count larger than the file, in the data and in the persistent id.
  std::string big = good;
  big[count + 7] = 0x40;
  expect_bad(big, "holds 4611686018427387909 elements in the file, but tensor 'tensor' says 5.");
  expect_bad(patched(good, "cpuq\x04K\x05N"s, "cpuq\x04J\xff\xff\xff\x7fN"s),
             "(of tensor 'tensor') claims 2147483647 elements of float64, more than the whole file (371 bytes) holds.");
  expect_bad(patched(good, "cpuq\x04K\x05N"s, "cpuq\x04K\x04N"s),
             "holds 5 elements in the file, but tensor 'tensor' says 4.");
  // Storage keys: one the list does not name, one no tensor uses.
  const size_t keys = good.rfind("\x80\x02]"s);
  ASSERT_NE(keys, std::string::npos);
  expect_bad(good.substr(0, keys) + "\x80\x02]."s + good.substr(count),
             "the storage of tensor 'tensor' is missing from the storage key list: its bytes are not in the file.");
  std::string other = good;
  other[keys + 13] = other[keys + 13] == '9' ? '8' : '9';  // a digit of the key in the list
  expect_bad(other, "which no tensor uses.");
  expect_bad(good.substr(0, keys) +
                 "\x80\x02]q\0(X\x01\0\0\0"
                 "1X\x01\0\0\0"
                 "1e."s +
                 good.substr(count),
             "which no tensor uses.");
  // Magic number, protocol version, byte order, persistent ids.
  std::string magic = good;
  magic[5] ^= 1;
  expect_bad(
      magic,
      "the file starts like torch.save's legacy format (a pickled 10-byte integer) but not with its magic number "
      "0x1950a86a20f9469cfc6c: its bytes begin 80 02 8a 0a 6c fd");
  EXPECT_THROW_MSG(
      io::parse_pytorch_legacy(io::MappedFile::open(tmp_file("magic.pt", magic))), CheckpointError,
      "does not start with torch.save's magic number 0x1950a86a20f9469cfc6c: its bytes begin 80 02 8a 0a 6c fd");
  expect_bad(patched(good, "\x80\x02M\xe9\x03."s, "\x80\x02M\xea\x03."s),
             "the legacy format's protocol version is 1002; torch.save wrote 1001, the only version torch.load (and "
             "locus) reads.");
  expect_bad(patched(good, "little_endianq\x02\x88"s, "little_endianq\x02\x89"s),
             "sys_info says the checkpoint was written on a big-endian machine (little_endian is not True), which "
             "locus does not read.");
  expect_bad(patched(good, "cpuq\x04K\x05N"s, "cpuq\x04K\x05K\x00"s), "the object pickle: ");
  expect_bad(patched(good, "cpuq\x04K\x05Ntq"s, "cpuq\x04K\x05tq"s),
             "is not ('storage', <storage type>, key, location, numel, view_metadata)");
  expect_bad(patched(good, "X\x03\0\0\0cpu"s, "X\x03\0\0\0gpu"s),
             "tensor 'tensor' has storage location tag 'gpu', which is not a valid device string");
  expect_bad(patched(good, "ctorch\nDoubleStorage\n"s, "cbuiltins\nexecStorage\n"s),
             "global 'builtins.execStorage' is forbidden");
  // A tensor that reaches past its storage.
  expect_bad(patched(good, "K\x05\x85q\x06"s, "K\x06\x85q\x06"s),
             "tensor 'tensor' reaches element 5 but its storage holds 5 elements.");

  // Storage views out of their root, and tensors out of their view.
  const std::string views = read_file(kDir + "legacy_storage_view.pt");
  expect_bad(
      patched(views, "140003q\x11K\x05K\x05"s, "140003q\x11K\x05K\x06"s),
      "tensor 'b' is on storage view '140003' of elements [5, 5+6) of storage '140001', which holds 10 elements.");
  expect_bad(patched(views, "140003q\x11K\x05K\x05"s, "140003q\x11J\xff\xff\xff\xffK\x05"s),
             "tensor 'b' is on storage view '140003' of elements [-1");
  expect_bad(patched(views, "140002q\x08K\x02K\x06"s, "140002q\x08K\x02K\x03"s),
             "tensor 'a' on storage view '140002' reaches element 4 but its storage holds 3 elements.");
  expect_bad(patched(views, "140003q\x11K\x05K\x05"s, "140003q\x11K\x05N"s),
             "has a view_metadata that is not (view key, offset, size).");
  expect_bad(patched(views, "h\x07K\x0aN"s, "h\x07K\x09N"s),
             "storage '140001' is given two sizes (10 and 9 elements) by tensors 'a' and 'whole'.");

  // Shared values referenced so often that flattening them would never end: refused at once.
  // l0 = [1], l(i) = [l(i-1), l(i-1)]: 2**28 paths to the 1 in l28 (each list is memoized, then popped).
  std::string dag =
      "\x80\x02}X\x01\0\0\0"
      "a]K\x01"
      "aq\x00"
      "0"s;
  for (int i = 1; i < 29; ++i) dag += "](h"s + char(i - 1) + "h" + char(i - 1) + "eq" + char(i) + "0";
  dag +=
      "h\x1c"
      "s."s;
  expect_bad(good.substr(0, good.find("\x80\x02"
                                      "ctorch._utils"s)) +
                 dag + "\x80\x02]."s,
             "the pickle refers to its shared values so often that it names more entries than its size allows");
  // Any other pickle is not read.
  expect_bad("\x80\x02}q\x00."s, "this is a bare pickle without torch.save's magic number");
}

}  // namespace

}  // namespace legacy_test
