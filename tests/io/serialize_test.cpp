// Checkpoints: state dicts, safetensors, PyTorch .pt, map_location, .npy, DLPack, corrupt files.
#include "test_paths.h"
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "testing.h"

using namespace locus;
using namespace std::string_literals;

namespace serialize_test {

namespace {

const std::string kFixtures = std::string(LOCUS_SOURCE_DIR) + "/tests/io/fixtures/";

std::string tmp_path(const std::string& name) {
  std::string dir = std::string(LOCUS_BINARY_DIR) + "/io-test-tmp";
  ::mkdir(dir.c_str(), 0755);
  return dir + "/" + std::to_string(::getpid()) + "-" + name;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// A safetensors file from a header text and a data buffer.
std::string st_file(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

// A zip archive of stored entries (for hand-made .pt files).
std::string zip_of(const std::vector<std::pair<std::string, std::string>>& entries) {
  auto u16 = [](uint16_t v) { return std::string{static_cast<char>(v), static_cast<char>(v >> 8)}; };
  auto u32 = [&](uint32_t v) { return u16(v & 0xffff) + u16(v >> 16); };
  auto crc32 = [](const std::string& s) {
    uint32_t c = 0xffffffff;
    for (unsigned char b : s) {
      c ^= b;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320 & (0u - (c & 1)));
    }
    return ~c;
  };
  std::string out, cd;
  for (const auto& [name, data] : entries) {
    uint32_t off = static_cast<uint32_t>(out.size());
    std::string common = u16(0) + u16(0) + u16(0) + u16(0) + u32(crc32(data)) + u32(data.size()) + u32(data.size()) +
                         u16(name.size()) + u16(0);
    out += u32(0x04034b50) + u16(20) + common + name + data;
    cd += u32(0x02014b50) + u16(20) + u16(20) + common + u16(0) + u16(0) + u16(0) + u32(0) + u32(off) + name;
  }
  uint32_t cd_off = static_cast<uint32_t>(out.size());
  out += cd + u32(0x06054b50) + u16(0) + u16(0) + u16(entries.size()) + u16(entries.size()) + u32(cd.size()) + u32(cd_off) + u16(0);
  return out;
}

// data.pkl for {"w": tensor of 2 floats in storage "0" at `location`} (protocol 2, by hand).
std::string tiny_pickle(const std::string& global = "torch._utils\n_rebuild_tensor_v2\n", int numel = 2, const std::string& location = "cpu") {
  std::string p = "\x80\x02" "ccollections\nOrderedDict\n)R("s;
  p += "X\x01\0\0\0" "w"s;
  p += "c" + global;
  p += "((X\x07\0\0\0" "storage" "ctorch\nFloatStorage\n" "X\x01\0\0\0" "0" "X"s + std::string(1, char(location.size())) + "\0\0\0"s + location + "K"s + std::string(1, char(numel)) + "tQ";
  p += "K\0" "K\x02\x85" "K\x01\x85" "\x89" "ccollections\nOrderedDict\n)R" "tR" "u."s;
  return p;
}

// Writes `bytes` to tmp_path("bad.pt") and expects load() to refuse it with a CheckpointError
// whose message contains `msg`.
void expect_bad_checkpoint(const std::string& bytes, const std::string& msg) {
  const std::string path = tmp_path("bad.pt");
  write_bytes(path, bytes);
  EXPECT_THROW_MSG(load(path), CheckpointError, msg);
}

std::string float_bytes(std::vector<float> v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); }

Tensor ar(int64_t n, ScalarType dt, double scale = 0.25, double shift = -1.0) {
  return (arange(n, TensorOptions().dtype(kDouble)) * scale + shift).to(dt);
}

bool has_opencl() { return device_count(kOpenCL) > 0; }

struct Net : nn::Module {
  Net() : nn::Module("Net") {
    fc = register_module("fc", nn::Linear(4, 3));
    bn = register_module("bn", nn::BatchNorm1d(3));
  }
  Tensor forward(const Tensor& x) { return bn->forward(fc->forward(x)); }
  nn::Linear fc{nullptr};
  nn::BatchNorm1d bn{nullptr};
};

void expect_same(const Tensor& a, const Tensor& b, const std::string& what = "") {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  ASSERT_EQ(a.scalar_type(), b.scalar_type()) << what;
  EXPECT_TRUE(a.cpu().equal(b.cpu())) << what << "\n" << a << "\n" << b;
}

std::string run(const std::string& cmd, int* status) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

bool have_torch() {
  int st;
  run("/usr/bin/python3 -c 'import torch, numpy'", &st);
  return st == 0;
}

}  // namespace

// ---- state dicts ----------------------------------------------------------------------------------
TEST(StateDict, NamesAndOrderAsPyTorch) {
  Net net;
  StateDict sd = net.state_dict();
  std::vector<std::string> keys = sd.keys();
  std::vector<std::string> want = {"fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"};
  EXPECT_EQ(keys, want);
  EXPECT_EQ(sd["bn.num_batches_tracked"].scalar_type(), kLong);
  EXPECT_FALSE(sd["fc.weight"].requires_grad());
  EXPECT_TRUE(sd["fc.weight"].is_alias_of(net.fc->weight));
}

TEST(StateDict, LoadCopiesAndChecksEverythingFirst) {
  Net a, b;
  { NoGradGuard g; a.fc->weight.copy_(ar(12, kFloat).reshape({3, 4})); }
  b.load_state_dict(a.state_dict());
  expect_same(b.fc->weight, a.fc->weight);
  EXPECT_FALSE(b.fc->weight.is_alias_of(a.fc->weight));

  StateDict sd = a.state_dict();
  sd.erase("fc.bias");
  sd.insert("extra", zeros({1}));
  sd["bn.weight"] = zeros({4});
  Tensor before = b.bn->bias.clone();
  sd["bn.bias"] = ones({3});
  try {
    b.load_state_dict(sd);
    ADD_FAILURE() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("Missing key(s) in state_dict: \"fc.bias\"."), std::string::npos) << m;
    EXPECT_NE(m.find("Unexpected key(s) in state_dict: \"extra\"."), std::string::npos) << m;
    EXPECT_NE(m.find("size mismatch for bn.weight: copying a param with shape [4] from checkpoint, the shape in current model is [3]."),
              std::string::npos) << m;
  }
  expect_same(b.bn->bias, before, "nothing copied when a check fails");
  // strict=false skips missing and unexpected keys, never a size mismatch.
  EXPECT_THROW_MSG(b.load_state_dict(sd, false), CheckpointError, "size mismatch for bn.weight");
  sd["bn.weight"] = full({3}, 5.0);
  b.load_state_dict(sd, false);
  EXPECT_EQ(values(b.bn->weight), std::vector<double>({5, 5, 5}));
  EXPECT_EQ(values(b.bn->bias), std::vector<double>({1, 1, 1}));
}

// ---- safetensors ------------------------------------------------------------------------------------
TEST(Safetensors, RoundTripEveryDtypeAndLayout) {
  StateDict sd;
  sd.insert("f32", ar(6, kFloat).reshape({2, 3}));
  sd.insert("f64", ar(5, kDouble, 0.1, 0));
  sd.insert("f16", ar(4, kHalf));
  sd.insert("bf16", ar(4, kBFloat16));
  sd.insert("i64", arange(-3, 3, TensorOptions().dtype(kLong)) * (int64_t(1) << 40));
  sd.insert("i32", arange(-2, 2, TensorOptions().dtype(kInt)));
  sd.insert("u8", arange(250, 256, TensorOptions().dtype(kByte)));
  sd.insert("bool", tensor({true, false, true}));
  sd.insert("scalar", full({}, 2.5));
  sd.insert("empty", zeros({0, 3}));
  Tensor base = ar(24, kFloat).reshape({4, 6});
  sd.insert("transposed", base.t());
  sd.insert("col", base.select(1, 2));
  sd.insert("sliced", base.slice(1, 1, 5, 2));
  const std::string path = tmp_path("all.safetensors");
  save(sd, path, {{"framework", "locus"}, {"note", "round trip"}});
  StateDict back = load(path);
  ASSERT_EQ(back.size(), sd.size());
  for (const auto& item : sd) expect_same(back[item.key()], item.value(), item.key());
  EXPECT_TRUE(back["transposed"].is_contiguous());
  // The published layout: 8-byte LE header length, JSON header padded to 8, offsets tiling the data.
  std::string raw = read_bytes(path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(raw[i]);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(raw[8], '{');
  std::string header = raw.substr(8, n);
  EXPECT_NE(header.find("\"__metadata__\":{\"framework\":\"locus\",\"note\":\"round trip\"}"), std::string::npos) << header;
  EXPECT_NE(header.find("\"bf16\":{\"data_offsets\":["), std::string::npos) << header;
  EXPECT_NE(header.find("\"dtype\":\"BOOL\""), std::string::npos);
  EXPECT_EQ(header.find("locus.devices"), std::string::npos) << "cpu tensors record no devices";
  CheckpointInfo info = inspect(path);
  EXPECT_EQ(info.format, "safetensors");
  EXPECT_EQ(info.metadata.size(), 2u);
}

TEST(Safetensors, AtomicWriteLeavesNoTemporaryAndKeepsOldFileOnError) {
  const std::string path = tmp_path("atomic.safetensors");
  save(StateDict(), path);
  std::string before = read_bytes(path);
  EXPECT_EQ(before.substr(8), "{}      ");
  StateDict bad;
  bad.insert("ok", ones({2}));
  bad.insert("__metadata__", ones({2}));
  EXPECT_THROW_MSG(save(bad, path), CheckpointError, "a tensor cannot be named '__metadata__'");
  EXPECT_EQ(read_bytes(path), before);
  int st;
  std::string left = run("ls " + tmp_path("atomic.safetensors") + ".tmp-* 2>/dev/null | wc -l", &st);
  EXPECT_EQ(left, "0\n");
  EXPECT_THROW_MSG(save(StateDict(), "/nonexistent-dir/x.safetensors"), CheckpointError, "cannot create a temporary file next to '/nonexistent-dir/x.safetensors'");
}

namespace {
// How many temporary files save() left next to `path`.
size_t leftovers(const std::string& path) {
  const std::string dir = path.substr(0, path.rfind('/')), base = path.substr(path.rfind('/') + 1) + ".tmp-";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.path().filename().string().rfind(base, 0) == 0;
  return n;
}
}  // namespace

// A save that fails half-way (a tensor that cannot be copied back to the host: the host is out of
// memory) leaves the previous checkpoint byte for byte and no temporary file, in both formats.
TEST(Interrupted, TensorThatCannotBeReadBackKeepsThePreviousFile) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device (a cpu tensor needs no copy to be read back)";
  for (const Device& d : all_devices()) {
    if (d.is_cpu()) continue;
    for (const std::string ext : {".safetensors", ".pt"}) {
      SCOPED_TRACE(d.str() + " " + ext);
      const std::string path = tmp_path("interrupted" + ext);
      StateDict old;
      old.insert("w", ar(6, kFloat));
      save(old, path);
      const std::string before = read_bytes(path);
      StateDict sd;
      sd.insert("small", ar(4, kFloat).to(d));
      sd.insert("big", ar(1 << 21, kFloat).reshape({1024, 2048}).to(d).t());  // 8 MiB
      empty_cache(Device(kCPU));
      set_memory_limit(memory_reserved(Device(kCPU)) + (64 << 10), Device(kCPU));
      try {
        save(sd, path);
        ADD_FAILURE() << "expected the host copy to run out of memory";
      } catch (const OutOfMemoryError& e) {
        EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
      }
      set_memory_limit(0, Device(kCPU));
      EXPECT_EQ(read_bytes(path), before);
      EXPECT_EQ(leftovers(path), 0u);
      expect_same(load(path)["w"], ar(6, kFloat));
    }
  }
}

// A full disk (RLIMIT_FSIZE in a child process, SIGXFSZ ignored so write() fails with EFBIG):
// the error names the temporary file, the previous checkpoint stays byte for byte, nothing is left.
TEST(Interrupted, FullDiskKeepsThePreviousFile) {
  for (const std::string ext : {".safetensors", ".pt"}) {
    SCOPED_TRACE(ext);
    const std::string path = tmp_path("full-disk" + ext);
    StateDict old;
    old.insert("w", ar(6, kFloat));
    save(old, path);
    const std::string before = read_bytes(path);
    StateDict sd;  // contiguous cpu tensors: the child saves without the thread pool
    sd.insert("a", ar(1 << 16, kFloat));
    sd.insert("b", ar(1 << 16, kDouble));
    const std::string msg_path = tmp_path("full-disk-msg.txt");
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::signal(SIGXFSZ, SIG_IGN);
      struct rlimit lim = {64 << 10, 64 << 10};
      setrlimit(RLIMIT_FSIZE, &lim);
      int code = 3;
      std::string what;
      try {
        save(sd, path);
        code = 2;
      } catch (const CheckpointError& e) {
        what = e.what();
        code = 0;
      } catch (const std::exception& e) {
        what = e.what();
        code = 1;
      }
      FILE* f = std::fopen(msg_path.c_str(), "w");
      if (f) std::fputs(what.substr(0, 1000).c_str(), f), std::fclose(f);
      _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    const std::string what = read_bytes(msg_path);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: the save succeeded; 1: not a CheckpointError: " << what;
    EXPECT_NE(what.find("cannot write '" + path + ".tmp-"), std::string::npos) << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
    EXPECT_EQ(read_bytes(path), before);
    EXPECT_EQ(leftovers(path), 0u);
  }
}

// A process killed (SIGKILL) while it saves: the checkpoint on disk is always a whole one, the
// previous or the new, never a torn file (save writes a temporary file and renames it). A child
// saves two 4 MiB checkpoints in turn, over and over, and is killed at a random time; the file
// must then load as one of the two. The dead child's temporary file stays (nothing can remove it
// after SIGKILL; PyTorch's torch.save leaves a torn file instead): its presence shows the kill
// landed in the middle of a save, and the test removes it.
TEST(Interrupted, SigkillDuringSaveLeavesAWholeCheckpoint) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (const std::string ext : {".safetensors", ".pt"}) {
    SCOPED_TRACE(ext);
    const std::string path = tmp_path("sigkill" + ext);
    StateDict a, b;  // contiguous cpu tensors: the child saves without the thread pool
    a.insert("w", ar(1 << 20, kFloat));
    b.insert("w", ar(1 << 20, kFloat, -0.5, 3.0));
    save(a, path);
    int mid_save = 0, seen_a = 0, seen_b = 0;
    for (int round = 0; round < 12; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        try {
          for (int i = 0;; ++i) save(i % 2 == 0 ? b : a, path);
        } catch (...) {
        }
        _exit(1);
      }
      ::usleep(std::uniform_int_distribution<unsigned>(1000, 80000)(rng));
      ::kill(pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
      ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child stopped saving by itself";
      const std::string dir = path.substr(0, path.rfind('/')), base = path.substr(path.rfind('/') + 1) + ".tmp-";
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().rfind(base, 0) == 0) {
          ++mid_save;
          std::filesystem::remove(e.path());
        }
      Tensor w;
      ASSERT_NO_THROW(w = load(path)["w"]);
      const bool is_a = w.equal(a["w"]), is_b = w.equal(b["w"]);
      EXPECT_TRUE(is_a || is_b);
      seen_a += is_a;
      seen_b += is_b;
    }
    EXPECT_GT(mid_save, 0) << "no kill landed during a save";
    std::printf("[ sigkill  ] %s: 12 kills, %d in the middle of a save; the file was the first checkpoint %d "
                "times, the second %d\n", ext.c_str(), mid_save, seen_a, seen_b);
  }
}

// ---- devices and map_location -----------------------------------------------------------------------
TEST(MapLocation, ModelSavedOnOpenCLLoadsOnCpuAndBack) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device";
  manual_seed(1);
  auto on_cl = std::make_shared<Net>();
  on_cl->to(Device("opencl:0"));
  on_cl->eval();
  { NoGradGuard g; on_cl->bn->running_mean.copy_(ar(3, kFloat)); on_cl->bn->running_var.fill_(2.0); }
  Tensor x = ar(8, kFloat, 0.3, -1).reshape({2, 4});
  Tensor y_cl = on_cl->forward(x.to(Device("opencl:0"))).cpu();
  const std::string path = tmp_path("cl.safetensors");
  save(on_cl, path);
  EXPECT_EQ(inspect(path).tensors[0].saved_location, "opencl:0");
  // Loads where it was saved by default...
  StateDict sd = load(path);
  EXPECT_EQ(sd["fc.weight"].device(), Device("opencl:0"));
  // ...and into a cpu model with identical outputs.
  auto on_cpu = std::make_shared<Net>();
  on_cpu->eval();
  load(on_cpu, path, "cpu");
  EXPECT_TRUE(on_cpu->forward(x).equal(y_cl));
  // The reverse: saved on cpu, loaded on opencl:1 (map_location), same outputs.
  const std::string path2 = tmp_path("cpu.safetensors");
  save(on_cpu, path2);
  auto back = std::make_shared<Net>();
  back->to(Device("opencl:0"));
  back->eval();
  LoadReport report;
  StateDict on1 = load(path2, Device("opencl:1"), &report);
  EXPECT_EQ(on1["bn.running_var"].device(), Device("opencl:1"));
  back->load_state_dict(on1);
  EXPECT_EQ(back->fc->weight.device(), Device("opencl:0")) << "load_state_dict keeps the module where it is";
  EXPECT_TRUE(back->forward(x.to(Device("opencl:0"))).cpu().equal(y_cl));
  ASSERT_EQ(report.records.size(), 7u);
  for (const LoadRecord& r : report.records) {
    EXPECT_EQ(r.saved_location, "cpu");
    EXPECT_EQ(r.target, Device("opencl:1"));
    if (r.name == "fc.weight") EXPECT_EQ(r.bytes, 48);
  }
  EXPECT_NE(report.str().find("fc.weight               cpu -> opencl:1  48 bytes\n"), std::string::npos) << report.str();
}

TEST(MapLocation, EveryForm) {
  const std::string cuda_pt = kFixtures + "model_cuda.pt";
  EXPECT_EQ(inspect(cuda_pt).tensors[0].saved_location, "cuda:0");
  // Saved on a device this machine lacks: an error naming it and map_location...
  if (!is_available(kCUDA)) {
    EXPECT_THROW_MSG(load(cuda_pt), CheckpointError, "tensor '0.weight' was saved on cuda:0, which this machine does not have");
    EXPECT_THROW_MSG(load(cuda_pt), CheckpointError, "Pass map_location");
    EXPECT_THROW_MSG(load(cuda_pt, {{"opencl:0", "cpu"}}), CheckpointError, "saved on cuda:0");
  }
  // ...and every form of map_location that says where it goes.
  Tensor w = ar(12, kFloat).reshape({3, 4});
  auto check = [&](const MapLocation& m, Device want) {
    LoadReport r;
    StateDict sd = load(cuda_pt, m, &r);
    expect_same(sd["0.weight"], w);
    EXPECT_EQ(sd["0.weight"].device(), want);
    EXPECT_EQ(r.records.at(0).saved_location, "cuda:0");
    EXPECT_EQ(r.records.at(0).target, want);
  };
  check("cpu", Device(kCPU));
  check(std::string("cpu"), Device(kCPU));
  check(Device(kCPU), Device(kCPU));
  check({{"cuda:0", "cpu"}}, Device(kCPU));
  std::vector<std::string> seen;
  check(MapLocation([&](const Tensor& storage, const std::string& saved) {
          EXPECT_TRUE(storage.is_cpu());
          seen.push_back(saved + ":" + std::to_string(storage.numel()));
          return Device(kCPU);
        }),
        Device(kCPU));
  EXPECT_EQ(seen.front(), "cuda:0:12");
  EXPECT_EQ(seen.size(), 7u);
  if (has_opencl()) {
    check("opencl:1", Device("opencl:1"));
    check({{"cuda:0", "opencl"}}, Device("opencl:0"));
    EXPECT_THROW_MSG(load(cuda_pt, "opencl:7"), CheckpointError, "map_location sends tensor '0.weight' (saved on cuda:0) to opencl:7, which is not available");
  }
  EXPECT_THROW_MSG(load(cuda_pt, "cpu:1"), Error, "cpu:1");
  EXPECT_THROW_MSG(load(cuda_pt, {{"cuda:0", "gpu"}}), Error, "gpu");
}

// ---- PyTorch interop ----------------------------------------------------------------------------------
namespace {
void check_torch_fixtures(const std::string& dir) {
  SCOPED_TRACE(dir);
  StateDict pt = load(dir + "model.pt"), st = load(dir + "model.safetensors");
  ASSERT_EQ(pt.size(), 7u);
  ASSERT_EQ(st.size(), 7u);
  for (const auto& item : pt) expect_same(item.value(), st[item.key()], item.key());
  expect_same(pt["0.weight"], ar(12, kFloat).reshape({3, 4}));
  expect_same(pt["1.running_var"], ar(3, kFloat, 1.0, 2.0));
  EXPECT_EQ(pt["1.num_batches_tracked"].item<int64_t>(), 7);
  EXPECT_EQ(pt["1.num_batches_tracked"].dim(), 0);
  // Into a locus model of the same architecture (Sequential names: "0.weight", ...).
  nn::Sequential seq(nn::Linear(4, 3), nn::BatchNorm1d(3));
  load(seq, dir + "model.pt");
  expect_same(seq->state_dict()["1.bias"], ar(3, kFloat, -1.0, 0.0));

  StateDict d = load(dir + "dtypes.pt"), ds = load(dir + "dtypes.safetensors");
  expect_same(d["f32"], ar(6, kFloat).reshape({2, 3}));
  expect_same(d["f64"], ar(5, kDouble, 0.1, 0));
  expect_same(d["f16"], ar(4, kHalf));
  expect_same(d["bf16"], ar(4, kBFloat16));
  expect_same(d["i64"], arange(-3, 3, TensorOptions().dtype(kLong)) * (int64_t(1) << 40));
  expect_same(d["i32"], arange(-2, 2, TensorOptions().dtype(kInt)));
  expect_same(d["u8"], arange(250, 256, TensorOptions().dtype(kByte)));
  expect_same(d["bool"], tensor({true, false, true}));
  expect_same(d["scalar"], full({}, 2.5));
  Tensor base = ar(24, kFloat).reshape({4, 6});
  expect_same(d["transposed"], base.t());
  EXPECT_EQ(d["transposed"].strides(), IntArrayRef({1, 6}));
  expect_same(d["row"], base.select(0, 1));
  expect_same(d["col"], base.select(1, 2));
  EXPECT_TRUE(d["row"].is_alias_of(d["col"])) << "views of one storage stay shared";
  EXPECT_TRUE(d["row"].is_alias_of(d["transposed"]));
  for (const auto& item : ds) expect_same(item.value(), d[item.key()], item.key());

  StateDict ck = load(dir + "checkpoint.pth");
  expect_same(ck["model.0.weight"], ar(12, kFloat).reshape({3, 4}));
  CheckpointInfo info = inspect(dir + "checkpoint.pth");
  ASSERT_EQ(info.metadata.size(), 1u);
  EXPECT_EQ(info.metadata[0], std::make_pair(std::string("epoch"), std::string("3")));
}
}  // namespace

namespace {
// Files PyTorch and NumPy wrote with dtypes locus does not compute with: refused naming the
// tensor, the dtype and the conversion; int8 and int16 (kChar, kShort) load.
void check_refused_dtypes(const std::string& dir) {
  SCOPED_TRACE(dir);
  EXPECT_THROW_MSG(load(dir + "complex64.pt"), CheckpointError,
                   "[pytorch] " + dir + "complex64.pt: tensor 'z' has dtype complex64 (torch.ComplexFloatStorage), which locus "
                   "does not compute with. Convert it in PyTorch with torch.view_as_real(t) (float32 pairs in a last dimension of 2) before saving.");
  EXPECT_THROW_MSG(inspect(dir + "complex128.pt"), CheckpointError, "tensor 'z' has dtype complex128 (torch.ComplexDoubleStorage)");
  const std::vector<std::pair<std::string, std::string>> npy = {
      {"u2", "uint16 ('<u2'), which locus does not compute with. Convert it in NumPy with a.astype(np.int32) before saving."},
      {"u4", "uint32 ('<u4'), which locus does not compute with. Convert it in NumPy with a.astype(np.int64) before saving."},
      {"u8", "uint64 ('<u8'), which locus does not compute with. Convert it in NumPy with a.astype(np.int64)"},
      {"c8", "complex64 ('<c8'), which locus does not compute with. Convert it in NumPy with np.stack([a.real, a.imag], -1)"},
      {"c16", "complex128 ('<c16'), which locus does not compute with."}};
  for (const auto& [code, msg] : npy) {
    EXPECT_THROW_MSG(load_npy(dir + "dtype_" + code + ".npy"), CheckpointError, "[npy] " + dir + "dtype_" + code + ".npy: the array has dtype " + msg);
    EXPECT_THROW_MSG(inspect(dir + "dtype_" + code + ".npy"), CheckpointError, "the array has dtype " + msg);
  }
  StateDict sd = load(dir + "int8_int16.pt");
  EXPECT_EQ(sd["q"].scalar_type(), kChar);
  EXPECT_EQ(sd["s"].scalar_type(), kShort);
  EXPECT_EQ(values(sd["q"]), std::vector<double>({-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(values(sd["s"]), std::vector<double>({-300, -200, -100, 0, 100, 200}));
  EXPECT_EQ(load_npy(dir + "dtype_i1.npy").scalar_type(), kChar);
  EXPECT_EQ(values(load_npy(dir + "dtype_i1.npy")), std::vector<double>({0, 1, 2, 3}));
  EXPECT_EQ(values(load_npy(dir + "dtype_i2.npy")), std::vector<double>({0, 1, 2, 3}));
}
}  // namespace

TEST(PyTorchInterop, CheckedInFixtures) {
  check_torch_fixtures(kFixtures);
  check_refused_dtypes(kFixtures);
}

// safetensors and .pt files with such dtypes, built byte by byte (PyTorch 1.13 writes neither
// uint16 nor float8): the same refusal, never a parse error.
TEST(Corrupt, RefusedDtypesNameTheTensorAndTheConversion) {
  const std::string data = float_bytes({1, 2});
  auto st = [&](const std::string& dtype, int n) {
    const std::string path = tmp_path("refused.safetensors");
    write_bytes(path, st_file(R"({"w":{"dtype":")" + dtype + R"(","shape":[)" + std::to_string(n) + R"(],"data_offsets":[0,8]}})", data));
    return path;
  };
  EXPECT_THROW_MSG(load(st("U16", 4)), CheckpointError,
                   "tensor 'w' has dtype uint16 (U16), which locus does not compute with. Convert it in PyTorch with t.to(torch.int32) before saving (locus reads F64, F32, F16, BF16, I64, I32");
  EXPECT_THROW_MSG(load(st("U32", 2)), CheckpointError, "tensor 'w' has dtype uint32 (U32), which locus does not compute with. Convert it in PyTorch with t.to(torch.int64)");
  EXPECT_THROW_MSG(load(st("U64", 1)), CheckpointError, "dtype uint64 (U64)");
  EXPECT_THROW_MSG(inspect(st("F8_E4M3", 8)), CheckpointError, "tensor 'w' has dtype float8_e4m3fn (F8_E4M3), which locus does not compute with. Convert it in PyTorch with t.to(torch.float32)");
  EXPECT_THROW_MSG(load(st("F8_E5M2", 8)), CheckpointError, "dtype float8_e5m2 (F8_E5M2)");
  EXPECT_THROW_MSG(load(st("C64", 1)), CheckpointError, "tensor 'w' has dtype complex64 (C64), which locus does not compute with. Convert it in PyTorch with torch.view_as_real(t)");
  EXPECT_THROW_MSG(load(st("F33", 2)), CheckpointError, "tensor 'w' has unknown dtype 'F33', which is not a safetensors dtype.");
  for (const std::string cls : {"UInt16Storage", "Float8_e4m3fnStorage", "ComplexFloatStorage"}) {
    std::string pkl = tiny_pickle();
    pkl.replace(pkl.find("FloatStorage"), 12, cls);
    const std::string path = tmp_path("refused.pt");
    write_bytes(path, zip_of({{"a/data.pkl", pkl}, {"a/data/0", data}}));
    EXPECT_THROW_MSG(load(path), CheckpointError, "[pytorch] " + path + ": tensor 'w' has dtype ");
    EXPECT_THROW_MSG(inspect(path), CheckpointError, "(torch." + cls + "), which locus does not compute with. Convert it in PyTorch with t");
  }
}

// PyTorch 2.x pickles a tensor whose dtype has no typed storage class with _rebuild_tensor_v3 over
// an untyped storage (numel in bytes) and a torch.<dtype> (tests/io/torch2_test.cpp has its files):
// a dtype locus reads is read, any other refused naming the tensor.
TEST(PyTorchInterop, RebuildTensorV3OverAnUntypedStorage) {
  auto v3 = [](int nbytes, const std::string& dtype) {
    std::string pkl = tiny_pickle("torch._utils\n_rebuild_tensor_v3\n", nbytes);
    pkl.replace(pkl.find("ctorch\nFloatStorage\n"), 20, "ctorch.storage\nUntypedStorage\n");
    pkl.insert(pkl.rfind("tR"), "ctorch\n" + dtype + "\n");
    const std::string path = tmp_path("v3.pt");
    write_bytes(path, zip_of({{"a/data.pkl", pkl}, {"a/data/0", float_bytes({1, 2})}}));
    return path;
  };
  StateDict sd = load(v3(8, "float32"));
  EXPECT_EQ(sd["w"].scalar_type(), kFloat);
  EXPECT_EQ(values(sd["w"]), std::vector<double>({1, 2}));
  EXPECT_THROW_MSG(load(v3(7, "float32")), CheckpointError,
                   "storage '0' has 7 bytes, not a whole number of torch.float32 elements.");
  EXPECT_THROW_MSG(load(v3(8, "bits8")), CheckpointError,
                   "tensor 'w' has dtype torch.bits8, which locus does not read.");
  EXPECT_THROW_MSG(load(v3(8, "uint16")), CheckpointError,
                   "tensor 'w' has dtype uint16 (torch.uint16), which locus does not compute with.");
  EXPECT_THROW_MSG(load(v3(8, "os")), CheckpointError, "global 'torch.os' is forbidden");
}

TEST(PyTorchInterop, FreshFilesFromPythonTorch) {
  // make test installs python3-torch (scripts/install-deps): without it the interop is unchecked, a failure
  ASSERT_TRUE(have_torch()) << "Debian's python3-torch is not installed (/usr/bin/python3 -c 'import torch' failed); "
                               "scripts/install-deps installs it";
  const std::string dir = tmp_path("fixtures/");
  int st;
  std::string out = run("/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/io/make_fixtures.py " + dir, &st);
  ASSERT_EQ(st, 0) << out;
  check_torch_fixtures(dir);
  check_refused_dtypes(dir);
}

TEST(PyTorchInterop, PythonReadsWhatLocusWrites) {
  ASSERT_TRUE(have_torch()) << "Debian's python3-torch is not installed; scripts/install-deps installs it";
  StateDict sd;
  sd.insert("w", ar(12, kFloat).reshape({3, 4}).t());
  sd.insert("h", ar(4, kHalf));
  sd.insert("b", ar(4, kBFloat16));
  sd.insert("i", arange(-3, 3, TensorOptions().dtype(kLong)));
  sd.insert("m", tensor({true, false}));
  const std::string path = tmp_path("for_python.safetensors");
  save(sd, path, {{"who", "locus"}});
  save_npy(ar(6, kDouble).reshape({2, 3}), tmp_path("for_python.npy"));
  int st;
  std::string out = run("/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/io/read_in_torch.py " + path + " " +
                            tmp_path("for_python.npy"),
                        &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_NE(out.find("OK 5 tensors"), std::string::npos) << out;
}

TEST(PyTorchInterop, TorchLoadsWhatLocusWrites) {
  ASSERT_TRUE(have_torch()) << "Debian's python3-torch is not installed; scripts/install-deps installs it";
  // Every dtype locus has, on every device, plain and as views; views of one storage per device.
  StateDict sd;
  std::string groups;
  for (const Device& d : all_devices()) {
    const std::string p = d.str() + ".";
    for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool}) {
      Tensor t = ar(12, dt, dt == kLong ? 1e9 : 0.75, -4).reshape({3, 4}).to(d);
      sd.insert(p + dtype_name(dt), t);
      sd.insert(p + dtype_name(dt) + ".t", t.t());
      groups += p + dtype_name(dt) + "," + p + dtype_name(dt) + ".t;";
    }
    Tensor base = ar(24, kFloat).reshape({4, 6}).to(d);
    sd.insert(p + "base", base);
    sd.insert(p + "row", base.select(0, 1));
    sd.insert(p + "col", base.select(1, 2));
    sd.insert(p + "sliced", base.slice(1, 1, 5, 2));
    groups += p + "base," + p + "row," + p + "col," + p + "sliced;";
    sd.insert(p + "scalar", full({}, 2.5, TensorOptions().device(d)));
    sd.insert(p + "empty", zeros({0, 3}, TensorOptions().device(d).dtype(kHalf)));
    Tensor nan = full({3}, std::nan(""), TensorOptions().device(d));
    sd.insert(p + "nan", nan);
  }
  const std::string pt = tmp_path("for_torch.pt"), st = tmp_path("for_torch.safetensors");
  save(sd, pt);
  save(sd, st);
  // A cpu-only checkpoint loads with no map_location at all, as the tutorials do.
  StateDict cpu_only;
  for (const auto& item : sd)
    if (item.value().is_cpu()) cpu_only.insert(item.key(), item.value());
  const std::string cpu_pt = tmp_path("cpu_for_torch.pt"), cpu_st = tmp_path("cpu_for_torch.safetensors");
  save(cpu_only, cpu_pt);
  save(cpu_only, cpu_st);
  // A module's state dict loads into the same PyTorch module.
  nn::Sequential seq(nn::Linear(4, 3), nn::BatchNorm1d(3));
  const std::string module_pt = tmp_path("module_for_torch.pth");
  save(seq, module_pt);
  int status;
  std::string out = run("/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/io/read_pt_in_torch.py " + pt + " " + st +
                            " cpu '" + groups + "' " + cpu_pt + " " + cpu_st + " - 'cpu.base,cpu.row,cpu.col,cpu.sliced' " +
                            module_pt + " module - -",
                        &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("OK " + std::to_string(sd.size()) + " tensors\nOK " + std::to_string(cpu_only.size()) +
                     " tensors\nOK module loaded, num_batches_tracked 0\n"),
            std::string::npos)
      << out;
}

// ---- .npy --------------------------------------------------------------------------------------------
TEST(Npy, RoundTripAndNumpyFiles) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kLong, kInt, kShort, kChar, kByte, kBool}) {
    Tensor t = ar(12, dt, 1.0, 0).reshape({3, 4}).t();
    const std::string path = tmp_path("rt.npy");
    save_npy(t, path);
    expect_same(load_npy(path), t, dtype_name(dt));
    EXPECT_EQ(read_bytes(path).find('\n') + 1, 128u) << "header padded to 64 bytes";
  }
  save_npy(full({}, 3.0), tmp_path("scalar.npy"));
  expect_same(load_npy(tmp_path("scalar.npy")), full({}, 3.0));
  EXPECT_THROW_MSG(save_npy(ones({2}, TensorOptions().dtype(kBFloat16)), tmp_path("bf.npy")), CheckpointError, "NumPy has no bfloat16");
  Tensor a = ar(12, kFloat).reshape({3, 4});
  expect_same(load_npy(kFixtures + "c.npy"), a);
  expect_same(load_npy(kFixtures + "fortran.npy"), a);
  expect_same(load_npy(kFixtures + "big.npy"), a);
  expect_same(load_npy(kFixtures + "i64.npy"), arange(-3, 3, TensorOptions().dtype(kLong)));
  if (has_opencl()) {
    Tensor t = load_npy(kFixtures + "big.npy", "opencl:0");
    EXPECT_EQ(t.device(), Device("opencl:0"));
    expect_same(t, a);
  }
  EXPECT_EQ(load(kFixtures + "c.npy")["array"].numel(), 12);
}

// ---- DLPack ------------------------------------------------------------------------------------------
TEST(DLPack, RoundTripSharesMemory) {
  Tensor t = ar(12, kFloat).reshape({3, 4}).t();
  DLManagedTensor* m = to_dlpack(t);
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.strides[0], 1);
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 32);
  Tensor back = from_dlpack(m);
  EXPECT_EQ(back.data_ptr(), t.data_ptr());
  expect_same(back, t);
  for (ScalarType dt : {kDouble, kHalf, kBFloat16, kLong, kInt, kByte, kBool}) {
    Tensor x = ar(6, dt, 1.0, 0).narrow(0, 1, 4);
    Tensor y = from_dlpack(to_dlpack(x));
    expect_same(y, x, dtype_name(dt));
  }
  // The consumer's deleter runs when the last tensor goes.
  static int deleted = 0;
  float data[3] = {1, 2, 3};
  int64_t shape[1] = {2};
  DLManagedTensor ext{};
  ext.dl_tensor = {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 4};
  ext.deleter = [](DLManagedTensor*) { ++deleted; };
  {
    Tensor e = from_dlpack(&ext);
    EXPECT_EQ(values(e), std::vector<double>({2, 3}));
  }
  EXPECT_EQ(deleted, 1);
  ext.dl_tensor.device = {kDLVulkan, 0};
  EXPECT_THROW_MSG(from_dlpack(&ext), Error, "DLPack device type 7 has no locus device");
  EXPECT_EQ(deleted, 2) << "the deleter runs when import fails too";
  ext.dl_tensor.device = {kDLCPU, 0};
  ext.dl_tensor.dtype = {kDLComplex, 64, 1};
  EXPECT_THROW_MSG(from_dlpack(&ext), Error, "has no locus dtype");
  Tensor g = ones({2}).requires_grad_();
  EXPECT_THROW_MSG(to_dlpack(g), Error, "export tensor.detach()");
}

TEST(DLPack, OpenCLDeviceType) {
  if (!has_opencl()) GTEST_SKIP() << "no OpenCL device";
  Tensor t = ar(8, kFloat).to(Device("opencl:1")).narrow(0, 2, 4);
  DLManagedTensor* m = to_dlpack(t);
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLOpenCL);
  EXPECT_EQ(m->dl_tensor.device.device_id, 1);
  EXPECT_EQ(m->dl_tensor.byte_offset % 4, 0u);
  Tensor back = from_dlpack(m);
  EXPECT_EQ(back.device(), Device("opencl:1"));
  expect_same(back, t);
}

// ---- corrupt and hostile files -------------------------------------------------------------------------
TEST(Corrupt, SafetensorsEachProblemNamed) {
  auto expect_bad = [](const std::string& bytes, const std::string& msg) {
    const std::string path = tmp_path("bad.safetensors");
    write_bytes(path, bytes);
    EXPECT_THROW_MSG(load(path), CheckpointError, msg);
    EXPECT_THROW_MSG(inspect(path), CheckpointError, msg);
  };
  const std::string data = float_bytes({1, 2});
  const std::string ok = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  write_bytes(tmp_path("good.safetensors"), st_file(ok, data));
  EXPECT_EQ(values(load(tmp_path("good.safetensors"))["w"]), std::vector<double>({1, 2}));
  expect_bad("", "[safetensors] " + tmp_path("bad.safetensors") + ": the file is empty.");
  expect_bad("\x05\0\0"s, "the file is truncated: 3 bytes cannot hold the 8-byte header length.");
  expect_bad(le64(1000) + ok, "the header length 1000 is longer than the file");
  expect_bad(le64(uint64_t(1) << 62) + ok, "exceeds the limit of 100000000 bytes");
  expect_bad(st_file(ok, data.substr(0, 5)), "data_offsets [0, 8] out of range: the data buffer holds 5 bytes");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,80]}})", data), "out of range");
  expect_bad(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data),
             "tensors 'a' and 'b' overlap");
  expect_bad(st_file(R"({"w":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", data), "tensor 'w' has unknown dtype 'F33'");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data),
             "tensor 'w' has shape [3] and dtype F32 (12 bytes) but its data_offsets span 8 bytes.");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data), "gap at bytes [0, 4)");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", data), "the data buffer holds 8 bytes but the tensors cover 4");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data), "must be a non-negative integer");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data), "end before they begin");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[2]}})", data), "tensor 'w' has no \"data_offsets\"");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)", data), "the header is not valid JSON");
  expect_bad(st_file(R"([1, 2, 3])", data), "the header does not start with '{'");
  expect_bad(st_file(R"({"__metadata__":{"a":1}})", ""), "__metadata__ value of 'a' is not a string");
  expect_bad(st_file("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", ""), "nests deeper than 8 levels");
  expect_bad(st_file(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", data), "overflows");
  expect_bad(st_file(R"({"__metadata__":{"locus.devices":"[1]"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data),
             "locus.devices is not a JSON object");
  expect_bad(st_file(R"({"__metadata__":{"locus.devices":"{\"w\":\"opencl:01\"}"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data),
             "locus.devices gives tensor 'w' the device 'opencl:01', which is not a valid device string: ");
  // Padding: trailing spaces only (the format); NUL bytes are a known writer bug, refused.
  write_bytes(tmp_path("spaces.safetensors"), st_file(ok + "      ", data));
  EXPECT_EQ(values(load(tmp_path("spaces.safetensors"))["w"]), std::vector<double>({1, 2}));
  expect_bad(st_file(ok + std::string(6, '\0'), data),
             "the header is padded with NUL bytes (the first at header byte 54); the safetensors format allows only trailing spaces.");
  expect_bad(st_file(ok + "  x", data), "the header has 78 (\"x\") after its JSON object (at header byte 56)");
}

TEST(Corrupt, UnrecognisedFilesShowTheirFirstBytes) {
  auto expect_bad = [](const std::string& name, const std::string& bytes, const std::string& msg) {
    const std::string path = tmp_path(name);
    write_bytes(path, bytes);
    EXPECT_THROW_MSG(load(path), CheckpointError, msg);
    EXPECT_THROW_MSG(inspect(path), CheckpointError, msg);
  };
  expect_bad("notes.txt", "hello, world\n", "notes.txt: not a checkpoint locus recognises: its 13 bytes begin 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64 0a (\"hello, world.\"). locus reads safetensors, PyTorch's zip checkpoints");
  expect_bad("empty.bin", "", "empty.bin: not a checkpoint locus recognises: the file is empty.");
  // A safetensors length that does not fit the file is not taken for safetensors...
  expect_bad("model.ckpt", le64(4096) + "{}", "its 10 bytes begin 00 10 00 00 00 00 00 00 7b 7d (\"........{}\")");
  // ...but a file named .safetensors also says why its parser refused it.
  expect_bad("cut.safetensors", le64(4096) + "{}",
             "Read as its extension says: [safetensors] " + tmp_path("cut.safetensors") + ": the header length 4096 is longer than the file (10 bytes)");
  // A pickle that starts like torch.save's legacy format but has no magic number, and any other
  // pickle, keep their own messages; a safetensors header whose length starts with 0x80 is safetensors.
  expect_bad("old.pt", std::string("\x80\x02\x8a\x0a", 4) + std::string(20, 'x'),
             "old.pt: the file starts like torch.save's legacy format (a pickled 10-byte integer) but not with its "
             "magic number "
             "0x1950a86a20f9469cfc6c: its bytes begin 80 02 8a 0a 78 78");
  expect_bad("data.pkl", std::string("\x80\x04\x95", 3) + std::string(20, 'x'),
             "data.pkl: this is a bare pickle without torch.save's magic number (pickle.dump wrote it, not "
             "torch.save), which locus "
             "does not read; save the state dict with torch.save or as safetensors.");
  std::string header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  header.append(0x180 - header.size(), ' ');
  write_bytes(tmp_path("x80.bin"), st_file(header, float_bytes({1, 2})));
  EXPECT_EQ(values(load(tmp_path("x80.bin"))["w"]), std::vector<double>({1, 2}));
}

TEST(Corrupt, PyTorchEachProblemNamed) {
  auto& expect_bad = expect_bad_checkpoint;
  const std::string data = float_bytes({1, 2});
  write_bytes(tmp_path("tiny.pt"), zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data}}));
  EXPECT_EQ(values(load(tmp_path("tiny.pt"))["w"]), std::vector<double>({1, 2}));

  EXPECT_THROW_MSG(load(kFixtures + "evil.pt"), CheckpointError,
                   "data.pkl: global 'posix.system' is forbidden: a tensor checkpoint may only refer to collections.OrderedDict");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("builtins\neval\n")}, {"a/data/0", data}}), "global 'builtins.eval' is forbidden");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("torch\nFloatStorage\n")}, {"a/data/0", data}}), "cannot be called");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02i__main__\nX\n."}}), "opcode 0x69 ('i')");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle().substr(0, 60)}, {"a/data/0", data}}), "truncated");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle()}}), "storage '0' has no record a/data/0 in the archive");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data.substr(0, 4)}}),
             "storage '0' should hold 2 elements of float32 (8 bytes) but its record has 4 bytes.");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("torch._utils\n_rebuild_tensor_v2\n", 1)}, {"a/data/0", data}}),
             "tensor 'w' reaches element 1 but its storage holds 1 elements.");
  expect_bad(zip_of({{"a/other", data}}), "the archive has no <name>/data.pkl");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data}, {"a/byteorder", "big"}}), "big-endian");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02]q\x00" "h\x00" "a."s}}), "modified after it was used");
  std::string model = read_bytes(kFixtures + "model.pt");
  expect_bad(model.substr(0, model.size() / 2), "no end-of-central-directory record (the file is truncated)");
  expect_bad("", "the file is empty.");
  expect_bad(std::string("\x80\x02}q\x00.", 6), "bare pickle");
  // Strict where PyTorch is: a newer format version, a location tag that is not a device string.
  write_bytes(tmp_path("v3.pt"), zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data}, {"a/version", "3\n"}}));
  EXPECT_EQ(values(load(tmp_path("v3.pt"))["w"]), std::vector<double>({1, 2}));
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data}, {"a/version", "4\n"}}),
             "the archive is format version 4, which locus does not read (it knows versions 1 to 3, what torch.save writes).");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle()}, {"a/data/0", data}, {"a/version", "three"}}), "the version record holds 'three'");
  const std::string pt = "[pytorch] " + tmp_path("bad.pt") + ": ";
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("torch._utils\n_rebuild_tensor_v2\n", 2, "cuda:01")}, {"a/data/0", data}}),
             pt + "tensor 'w' has storage location tag 'cuda:01', which is not a valid device string: ");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("torch._utils\n_rebuild_tensor_v2\n", 2, "cuda:01")}, {"a/data/0", data}}),
             "has a leading zero");
  expect_bad(zip_of({{"a/data.pkl", tiny_pickle("torch._utils\n_rebuild_tensor_v2\n", 2, "gpu0")}, {"a/data/0", data}}),
             "storage location tag 'gpu0', which is not a valid device string: ");
}

TEST(Corrupt, NpyEachProblemNamed) {
  auto expect_bad = [](const std::string& bytes, const std::string& msg) {
    const std::string path = tmp_path("bad.npy");
    write_bytes(path, bytes);
    EXPECT_THROW_MSG(load_npy(path), CheckpointError, msg);
  };
  auto npy = [](const std::string& dict, const std::string& data) {
    std::string h = dict + "\n";
    return std::string("\x93NUMPY\x01\x00", 8) + char(h.size()) + char(0) + h + data;
  };
  const std::string data = float_bytes({1, 2});
  write_bytes(tmp_path("ok.npy"), npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data));
  EXPECT_EQ(values(load_npy(tmp_path("ok.npy"))), std::vector<double>({1, 2}));
  expect_bad("", "the file is empty.");
  expect_bad(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data), "need 12 bytes of data but the file has 8 (truncated).");
  expect_bad(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data), "the array has dtype complex64 ('<c8')");
  expect_bad(npy("{'descr': '<U8', 'fortran_order': False, 'shape': (1,), }", data), "dtype '<U8' is not supported");
  expect_bad(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data), "not a non-negative integer");
  expect_bad(npy("{'descr': '<f4', 'fortran_order': False}", data), "lacks one of");
  expect_bad(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), "unexpected or repeated key 'x'");
  expect_bad(npy("__import__('os')", data), "not a valid dict literal");
  std::string long_header = "\x93NUMPY\x01\x00" "\xff\x00" "{'descr'"s;
  expect_bad(long_header, "the header length 255 is longer than the file");
}

// ---- archives written by libtorch's torch::save and by torch.jit.save ----------------------------
// tests/io/fixtures/libtorch_*.pt come from tests/io/make_libtorch_fixtures.cpp (libtorch 1.13),
// jit_*.pt from make_jit_fixtures.py: a TorchScript module object in data.pkl (its class
// definitions compressed under code/), arange-based values.
namespace {

struct LibtorchNet : nn::Module {
  LibtorchNet() : nn::Module("LibtorchNet") {
    fc1 = register_module("fc1", nn::Linear(4, 3));
    bn = register_module("bn", nn::BatchNorm1d(3));
  }
  nn::Linear fc1{nullptr};
  nn::BatchNorm1d bn{nullptr};
};

void expect_fixture_values(LibtorchNet& net, const std::string& what) {
  expect_same(net.fc1->weight, ar(12, kFloat).reshape({3, 4}).to(net.fc1->weight.device()), what + " fc1.weight");
  expect_same(net.fc1->bias, ar(3, kFloat, 0.5, 0.25).to(net.fc1->bias.device()), what + " fc1.bias");
  expect_same(net.bn->weight, ar(3, kFloat, 1.0, 1.0).to(net.bn->weight.device()), what + " bn.weight");
  expect_same(net.bn->bias, ar(3, kFloat, -0.5, 0.0).to(net.bn->bias.device()), what + " bn.bias");
  expect_same(net.bn->running_mean, ar(3, kFloat, 0.125, 0.5).to(net.bn->running_mean.device()), what + " bn.running_mean");
  expect_same(net.bn->running_var, ar(3, kFloat, 2.0, 1.0).to(net.bn->running_var.device()), what + " bn.running_var");
  EXPECT_EQ(net.bn->num_batches_tracked.item<int64_t>(), 7) << what;
}

}  // namespace

// A model libtorch saved (torch::save(module)) and the same weights saved from Python by
// torch.jit.save (scripted and traced) load into a locus module on every device, in place.
TEST(LibtorchArchive, ModulesSavedByLibtorchAndTorchScriptLoadOnEveryDevice) {
  for (const char* file : {"libtorch_model.pt", "jit_script.pt", "jit_trace.pt"})
    for (const Device& d : all_devices()) {
      LibtorchNet net;
      net.to(d);
      const Tensor weight = net.fc1->weight;
      load(net, kFixtures + file);
      EXPECT_TRUE(net.fc1->weight.is_same(weight)) << file << ": loaded in place";
      EXPECT_EQ(net.fc1->weight.device(), d);
      expect_fixture_values(net, std::string(file) + " on " + d.str());
    }
  // the TorchScript modules' other attributes are metadata, as inspect shows
  const CheckpointInfo info = inspect(kFixtures + "jit_script.pt");
  EXPECT_EQ(info.format, "pytorch");
  EXPECT_EQ(info.tensors.size(), 7u);
  bool training = false;
  for (const auto& [k, v] : info.metadata) training |= k == "fc1.training" && v == "True";
  EXPECT_TRUE(training);
}

// torch::save(tensor) and torch::save(vector) from libtorch: torch::load and InputArchive read them,
// nested archives as libtorch's (read("fc1", nested), then nested.read("weight")).
TEST(LibtorchArchive, TensorsVectorsAndNestedArchives) {
  Tensor t;
  load(t, kFixtures + "libtorch_tensor.pt");
  expect_same(t, ar(6, kFloat).reshape({2, 3}));
  std::vector<Tensor> v;
  load(v, kFixtures + "libtorch_vector.pt");
  ASSERT_EQ(v.size(), 3u);
  expect_same(v[0], ar(4, kFloat));
  expect_same(v[1], arange(3, TensorOptions().dtype(kLong)) * 5);
  expect_same(v[2], ar(6, kFloat).reshape({3, 2}).to(kDouble));
  for (const Device& d : all_devices()) {
    Tensor on;
    load(on, kFixtures + "libtorch_tensor.pt", d);
    EXPECT_EQ(on.device(), d);
    expect_same(on, ar(6, kFloat).reshape({2, 3}).to(d));
  }
  serialize::InputArchive archive, fc1;
  archive.load_from(kFixtures + "libtorch_model.pt");
  archive.read("fc1", fc1);
  Tensor w, tracked;
  fc1.read("weight", w);
  expect_same(w, ar(12, kFloat).reshape({3, 4}));
  archive.read("bn.num_batches_tracked", tracked);
  EXPECT_EQ(tracked.item<int64_t>(), 7);
}

// libtorch's optimizer archives (torch::save(optimizer), libtorch 1.5 and later) name each group's
// parameters by their addresses in the process that wrote them: the state is matched to the
// optimizer's parameters by position, group by group, and the optimizer keeps its own options, as
// libtorch's torch::load does. A run resumed in locus from libtorch's model and optimizer
// archives, with the optimizer built as the writer built it, takes the step libtorch took next
// (tests/io/make_libtorch_fixtures.cpp wrote the model and optimizer after two steps and the
// parameters after a third), on every device.
namespace {

Tensor libtorch_fixture_loss(LibtorchNet& net) {
  const Device d = net.fc1->weight.device();
  const Tensor h = net.fc1->forward(ar(8, kFloat).reshape({2, 4}).to(d));
  return net.bn->forward(h).pow(3).sum() + h.pow(2).sum();
}

// the optimizers of make_libtorch_fixtures.cpp, with its options
std::unique_ptr<optim::Optimizer> optimizer_for(const std::string& kind, LibtorchNet& net) {
  if (kind == "adam") {
    std::vector<optim::OptimizerParamGroup> groups;
    groups.emplace_back(net.fc1->parameters());
    groups.emplace_back(net.bn->parameters(), std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.02).betas({0.7, 0.9})));
    return std::make_unique<optim::Adam>(std::move(groups),
                                         optim::AdamOptions(0.05).betas({0.8, 0.95}).eps(1e-6).weight_decay(0.01).amsgrad(true));
  }
  if (kind == "adamw") return std::make_unique<optim::AdamW>(net.parameters(), optim::AdamWOptions(0.01).weight_decay(0.1));
  if (kind == "sgd")
    return std::make_unique<optim::SGD>(net.parameters(), optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(1e-3));
  if (kind == "rmsprop")
    return std::make_unique<optim::RMSprop>(net.parameters(),
                                            optim::RMSpropOptions(0.01).alpha(0.9).momentum(0.5).centered(true).weight_decay(1e-3));
  return std::make_unique<optim::Adagrad>(
      net.parameters(), optim::AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1).weight_decay(1e-3));
}

// one step, and how far it ends from the parameters libtorch's third step gave
double distance_after_step(const std::string& kind, LibtorchNet& net, optim::Optimizer& opt) {
  opt.zero_grad();
  libtorch_fixture_loss(net).backward();
  opt.step();
  std::vector<Tensor> next;
  load(next, kFixtures + "libtorch_opt_" + kind + "_next.pt");
  const std::vector<Tensor> params = net.parameters();
  EXPECT_EQ(params.size(), next.size());
  double worst = 0;
  for (size_t i = 0; i < params.size() && i < next.size(); ++i)
    worst = std::max(worst, (params[i].detach().to(kCPU) - next[i]).abs().max().item<double>());
  return worst;
}

// from libtorch's model after two steps, with the optimizer's state loaded or not
double resumed_step_error(const std::string& kind, const Device& d, bool load_state) {
  LibtorchNet net;
  net.to(d);
  load(net, kFixtures + "libtorch_opt_" + kind + "_model.pt");
  std::unique_ptr<optim::Optimizer> opt = optimizer_for(kind, net);
  if (load_state) load(*opt, kFixtures + "libtorch_opt_" + kind + ".pt");
  return distance_after_step(kind, net, *opt);
}

}  // namespace

TEST(LibtorchArchive, OptimizerArchivesResumeWhereLibtorchLeftOff) {
  for (const Device& d : all_devices())
    for (const std::string kind : {"adam", "adamw", "sgd", "rmsprop", "adagrad"}) {
      EXPECT_LT(resumed_step_error(kind, d, true), 1e-6) << kind << " on " << d.str();
      if (d.is_cpu())  // the state matters: without it the step lands elsewhere
        EXPECT_GT(resumed_step_error(kind, d, false), 1e-3) << kind << " without its state";
    }
}

TEST(LibtorchArchive, OptimizerArchiveLoadsTheStateAndKeepsTheOptions) {
  LibtorchNet net;
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(net.fc1->parameters());
  groups.emplace_back(net.bn->parameters());
  optim::Adam adam(std::move(groups), optim::AdamOptions(0.3));
  load(adam, kFixtures + "libtorch_opt_adam.pt");
  for (const auto& g : adam.param_groups()) {  // libtorch 1.13 keeps the optimizer's options too
    const auto& o = static_cast<const optim::AdamOptions&>(g.options());
    EXPECT_EQ(o.lr(), 0.3);
    EXPECT_EQ(o.eps(), 1e-8);
    EXPECT_FALSE(o.amsgrad());
  }
  const auto sd = adam.state_dict();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(sd["state." + std::to_string(i) + ".step"].item<int64_t>(), 2) << i;
  EXPECT_EQ(sd["state.0.exp_avg"].sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(sd["state.3.exp_avg_sq"].sizes(), IntArrayRef({3}));
  EXPECT_TRUE(sd.contains("state.0.max_exp_avg_sq"));  // written with amsgrad
  // saved in locus's format, even with a "pytorch_version" of the user's in its metadata, it is
  // read back as locus's (each group's lr restored, as PyTorch's load_state_dict)
  const std::string mine = tmp_path("libtorch_state_resaved.safetensors");
  save(adam, mine, {{"pytorch_version", "1.5.0"}});
  LibtorchNet again;
  std::vector<optim::OptimizerParamGroup> groups2;
  groups2.emplace_back(again.fc1->parameters());
  groups2.emplace_back(again.bn->parameters());
  optim::Adam back(std::move(groups2), optim::AdamOptions(0.7));
  load(back, mine);
  EXPECT_EQ(back.param_groups()[1].options().get_lr(), 0.3);
  expect_same(back.state_dict()["state.2.exp_avg"], sd["state.2.exp_avg"], "resaved exp_avg");
  // the one-step archive of make_libtorch_fixtures.cpp, on an opencl device when there is one
  const Device d = all_devices().back();
  LibtorchNet other;
  other.to(d);
  optim::Adam one(other.parameters(), optim::AdamOptions(0.1));
  load(one, kFixtures + "libtorch_optimizer.pt");
  EXPECT_EQ(one.state_dict()["state.0.step"].item<int64_t>(), 1);
  EXPECT_EQ(one.state_dict()["state.0.exp_avg"].device(), d);
  // metadata floats read back as written: Python's repr, not six decimals
  std::string eps;
  for (const auto& [k, v] : inspect(kFixtures + "libtorch_opt_adam.pt").metadata)
    if (k == "param_groups.param_groups/0.options.eps") eps = v;
  EXPECT_EQ(eps, "1e-06");
}

// A checkpoint as libtorch programs write one: Module::save and Optimizer::save into one archive
// (libtorch_opt_checkpoint.pt: the model and the optimizer side by side, and the optimizer again
// under "optimizer"). InputArchive reads both back and the resumed step is libtorch's next; the
// same program against locus round-trips through locus's own format.
TEST(LibtorchArchive, ModelAndOptimizerInOneArchive) {
  for (const Device& d : all_devices())
    for (bool nested : {false, true}) {
      LibtorchNet net;
      net.to(d);
      auto opt = optimizer_for("adam", net);
      serialize::InputArchive in;
      in.load_from(kFixtures + "libtorch_opt_checkpoint.pt");
      net.load(in);
      if (nested) {
        serialize::InputArchive sub;
        in.read("optimizer", sub);
        sub >> *opt;
      } else {
        opt->load(in);
      }
      EXPECT_LT(distance_after_step("adam", net, *opt), 1e-6) << d.str() << (nested ? ", nested" : ", side by side");
    }
  // locus's own: written beside a model and nested, read back into fresh ones, the same next step
  LibtorchNet a;
  load(a, kFixtures + "libtorch_opt_adam_model.pt");
  auto oa = optimizer_for("adam", a);
  load(*oa, kFixtures + "libtorch_opt_adam.pt");
  serialize::OutputArchive out, sub;
  a.save(out);
  out << *oa;
  oa->save(sub);
  out.write("optimizer", sub);
  const std::string path = tmp_path("model_and_optimizer.pt");
  out.save_to(path);
  for (bool nested : {false, true}) {
    LibtorchNet b;
    auto ob = optimizer_for("adam", b);
    serialize::InputArchive in;
    in.load_from(path);
    b.load(in);
    serialize::InputArchive opt_in;
    if (nested) in.read("optimizer", opt_in);
    (nested ? opt_in : in) >> *ob;
    EXPECT_LT(distance_after_step("adam", b, *ob), 1e-6) << (nested ? "nested" : "side by side");
  }
  // an archive without an optimizer in it: refused, the optimizer unchanged
  LibtorchNet c;
  optim::Adam plain(c.parameters(), optim::AdamOptions(0.3));
  serialize::InputArchive model_only;
  model_only.load_from(kFixtures + "libtorch_model.pt");
  EXPECT_THROW_MSG(plain.load(model_only), CheckpointError,
                   "libtorch_model.pt holds no optimizer state (no 'state.' or 'param_groups.' entry); was the optimizer "
                   "saved into it (optimizer.save(archive)), or under a key (read(key, nested) first)?");
  EXPECT_EQ(plain.param_groups()[0].options().get_lr(), 0.3);
}

// An archive that does not fit the optimizer is refused whole, naming what differs, and the
// optimizer is left as it was (no state, its own options) and still steps.
TEST(LibtorchArchive, OptimizerArchiveThatDoesNotFitIsRefusedWhole) {
  LibtorchNet net;
  auto untouched = [](optim::Optimizer& o, double lr) {
    EXPECT_EQ(o.param_groups()[0].options().get_lr(), lr);
    for (const auto& item : o.state_dict()) EXPECT_EQ(item.key().rfind("state.", 0), std::string::npos) << item.key();
  };
  optim::Adam one_group(net.parameters(), optim::AdamOptions(0.3));
  EXPECT_THROW_MSG(load(one_group, kFixtures + "libtorch_opt_adam.pt"), CheckpointError,
                   "libtorch's optimizer archive (format 1.5.0) has 2 parameter group(s), the optimizer 1; build the "
                   "optimizer with the groups it was saved with.");
  untouched(one_group, 0.3);
  EXPECT_THROW_MSG(load(one_group, kFixtures + "libtorch_opt_sgd.pt"), CheckpointError,
                   "parameter group 0 has the options dampening, lr, momentum, nesterov, weight_decay, but this optimizer "
                   "is an Adam (options amsgrad, betas.0, betas.1, eps, lr, weight_decay); load the archive into the kind "
                   "of optimizer that wrote it.");
  untouched(one_group, 0.3);
  optim::Adam fewer(net.fc1->parameters(), optim::AdamOptions(0.3));
  EXPECT_THROW_MSG(load(fewer, kFixtures + "libtorch_opt_adamw.pt"), CheckpointError,
                   "parameter group 0 holds 4 parameter(s), the optimizer's 2; build the optimizer over the same "
                   "parameters, in the same order, as the one that was saved.");
  untouched(fewer, 0.3);
  std::vector<Tensor> reordered = net.bn->parameters();
  for (const Tensor& p : net.fc1->parameters()) reordered.push_back(p);
  optim::AdamW swapped(reordered, optim::AdamWOptions(0.3));
  EXPECT_THROW_MSG(load(swapped, kFixtures + "libtorch_opt_adamw.pt"), CheckpointError,
                   "; was the state saved from an optimizer over other parameters, or in another order?");
  untouched(swapped, 0.3);
  optim::LBFGS lbfgs(net.parameters(), optim::LBFGSOptions(0.3));
  EXPECT_THROW_MSG(load(lbfgs, kFixtures + "libtorch_opt_sgd.pt"), CheckpointError,
                   "locus reads libtorch's archives of Adam, AdamW, SGD, RMSprop and Adagrad; this optimizer is none of "
                   "them");
  untouched(lbfgs, 0.3);
  libtorch_fixture_loss(net).backward();
  one_group.step();
  swapped.step();
}

// What locus reads of TorchScript pickles, and nothing more: NEWOBJ only of a __torch__ class and
// only without arguments, BUILD only from an attribute dict and only once; a compressed record
// that must be read is refused by name (libtorch's code/ records are compressed and never read).
TEST(LibtorchArchive, TorchScriptPicklesOutsideWhatLibtorchWritesAreRefused) {
  auto& expect_bad = expect_bad_checkpoint;
  const std::string data = float_bytes({1, 2});
  // {"w": tensor} as an object's attributes: c__torch__\nModule\n ) NEWOBJ } ( 'w' <tensor> u BUILD .
  std::string tensor = tiny_pickle();
  tensor = tensor.substr(tensor.find("X\x01\0\0\0" "w"s));
  tensor = tensor.substr(0, tensor.size() - 2);  // without SETITEMS and STOP
  const std::string object = "\x80\x02" "c__torch__\nModule\n)\x81}("s + tensor + "ub."s;
  write_bytes(tmp_path("ts.pt"), zip_of({{"a/data.pkl", object}, {"a/data/0", data}}));
  EXPECT_EQ(values(load(tmp_path("ts.pt"))["w"]), std::vector<double>({1, 2}));
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "cbuiltins\nobject\n)\x81}b."s}}), "global 'builtins.object' is forbidden");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "ccollections\nOrderedDict\n)\x81."s}}),
             "NEWOBJ may only make a TorchScript module object (a __torch__ class).");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "c__torch__\nModule\nK\x01\x85\x81."s}}),
             "the TorchScript object '__torch__.Module' is made with arguments; only attribute dicts are read.");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "c__torch__\nModule\n)\x81K\x01\x85" "b."s}}),
             "rebuilt from a state that is not an attribute dict (a custom __setstate__), which locus does not read.");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "c__torch__\nModule\n)\x81}b}b."s}}), "BUILD is applied twice to one object.");
  expect_bad(zip_of({{"a/data.pkl", "\x80\x02" "c__torch__\n\n)\x81}b."s}}), "global '__torch__.' is forbidden");
  // a stored data.pkl marked as deflated (method 8) in the central directory
  std::string zipped = zip_of({{"a/data.pkl", object}, {"a/data/0", data}});
  const size_t cd = zipped.find("PK\x01\x02"s);
  ASSERT_NE(cd, std::string::npos);
  zipped[cd + 10] = 8;
  expect_bad(zipped, "entry 'a/data.pkl' is compressed (method 8); torch.save, torch::save and torch.jit.save store it uncompressed");
}

}  // namespace serialize_test
