// locus-inspect: every file locus::save writes and files torch.save / numpy write during the test
// run, as text and --json; files it does not recognise; exit codes; --map-location.
#include "test_paths.h"
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "locus/npy.h"
#include "locus/serialize.h"
#include "locus/version.h"
#include "testing.h"
#include "tools/run_tool.h"

using namespace locus;

namespace locus_inspect_test {
using json = nlohmann::json;

namespace {

std::pair<int, std::string> inspect_tool(const std::string& args) { return run_tool("locus-inspect", args); }

std::string tmp_path(const std::string& name) {
  std::string dir = std::string(LOCUS_BINARY_DIR) + "/tools-test-tmp";
  ::mkdir(dir.c_str(), 0755);
  return dir + "/" + std::to_string(::getpid()) + "-" + name;
}

const std::string kFixtures = std::string(LOCUS_SOURCE_DIR) + "/tests/io/fixtures/";

// What the tool must report for `sd`, computed here from the tensors themselves.
struct Expected {
  size_t tensors = 0;
  int64_t parameters = 0, bytes = 0;
  std::map<std::string, int64_t> dtype_bytes;
};
Expected expected(const StateDict& sd) {
  Expected e;
  for (const auto& item : sd) {
    ++e.tensors;
    e.parameters += item.value().numel();
    e.bytes += static_cast<int64_t>(item.value().nbytes());
    e.dtype_bytes[dtype_name(item.value().scalar_type())] += static_cast<int64_t>(item.value().nbytes());
  }
  return e;
}

// Runs the tool on `path` as text and as JSON and checks both against `want`.
void check_file(const std::string& path, const std::string& format, const Expected& want) {
  SCOPED_TRACE(path);
  auto [rc, out] = inspect_tool(path);
  ASSERT_EQ(rc, 0) << out;
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(path));
  EXPECT_NE(out.find(": " + format + ", " + std::to_string(want.tensors) + " tensors, " + std::to_string(size) + " bytes on disk\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("total: " + std::to_string(want.parameters) + " parameters, " + std::to_string(want.bytes) + " bytes\n"),
            std::string::npos)
      << out;
  auto [rc2, text] = inspect_tool(path + " --json");
  ASSERT_EQ(rc2, 0) << text;
  json j = json::parse(text);
  EXPECT_EQ(j["format"], format);
  EXPECT_EQ(j["file_bytes"], size);
  EXPECT_EQ(j["tensors"].size(), want.tensors);
  EXPECT_EQ(j["total"]["parameters"], want.parameters);
  EXPECT_EQ(j["total"]["bytes"], want.bytes);
  std::map<std::string, int64_t> by_dtype;
  for (auto it = j["dtypes"].begin(); it != j["dtypes"].end(); ++it) by_dtype[it.key()] = it.value()["bytes"];
  EXPECT_EQ(by_dtype, want.dtype_bytes);
}

}  // namespace

TEST(LocusInspectTool, ReadsEveryFileLocusSaveWrites) {
  StateDict sd;
  Tensor base = arange(24, TensorOptions().dtype(kFloat)).reshape({4, 6});
  sd.insert("base", base);
  sd.insert("base.t", base.t());
  sd.insert("col", base.select(1, 2));
  for (ScalarType dt : {kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool})
    sd.insert(std::string("x.") + dtype_name(dt), arange(5, TensorOptions().dtype(kDouble)).to(dt));
  sd.insert("scalar", full({}, 2.0));
  sd.insert("empty", zeros({0, 4}));
  for (const Device& d : all_devices())
    if (!d.is_cpu()) sd.insert("on." + d.str(), ones({3, 2}, TensorOptions().device(d)));
  const Expected want = expected(sd);
  for (const std::string ext : {".safetensors", ".pt", ".pth", ".bin"}) {
    const std::string path = tmp_path("all" + ext);
    save(sd, path, {{"epoch", "3"}});
    check_file(path, ext == ".safetensors" ? "safetensors" : "pytorch", want);
    auto [rc, out] = inspect_tool(path);
    EXPECT_NE(out.find("  epoch: 3\n"), std::string::npos) << out;
    EXPECT_NE(out.find("x.bfloat16"), std::string::npos) << out;
    EXPECT_NE(out.find("float32: " + std::to_string(24 + 24 + 4 + 1 + 0 + 6 * (all_devices().size() - 1)) + " parameters"), std::string::npos) << out;
    std::remove(path.c_str());
  }
  // .npy: one tensor.
  StateDict one;
  one.insert("array", arange(12, TensorOptions().dtype(kDouble)).reshape({3, 4}));
  const std::string npy = tmp_path("one.npy");
  save(one, npy);
  check_file(npy, "npy", expected(one));
  std::remove(npy.c_str());
}

// PyTorch's legacy format (torch.save before 1.6; tests/io/make_legacy_fixtures.py) and PyTorch 2.x's
// zip files, checked in: what the tool reports equals what locus::load gives.
TEST(LocusInspectTool, ReadsLegacyAndTorch2Checkpoints) {
  for (const char* f : {"legacy_views.pt", "legacy_checkpoint.pth", "legacy_storage_view.pt", "torch2_dtypes.pt"})
    check_file(kFixtures + f, "pytorch", expected(load(kFixtures + f)));
  check_file(kFixtures + "legacy_cuda.pt", "pytorch", expected(load(kFixtures + "legacy_cuda.pt", "cpu")));
}

TEST(LocusInspectTool, ReadsFilesTorchAndNumpyWriteNow) {
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null"), 0)
      << "Debian's python3-torch is not installed; scripts/install-deps installs it";
  const std::string dir = tmp_path("fixtures/");
  // One Python process: make_fixtures.py writes the files, then what torch and numpy say they
  // hold (tensors, elements, bytes), independent of locus.
  const std::string script = std::string(LOCUS_SOURCE_DIR) + "/tests/io/make_fixtures.py";
  FILE* p = popen(("/usr/bin/python3 -c \"import sys; sys.argv = ['make_fixtures.py', '" + dir + "']; exec(open('" + script +
                   "').read())\n"
                   "for f in ['model.pt', 'dtypes.pt', 'checkpoint.pth', 'model_cuda.pt']:\n"
                   "    sd = torch.load('" + dir + "' + f, map_location='cpu')\n"
                   "    flat = []\n"
                   "    def walk(v):\n"
                   "        if isinstance(v, torch.Tensor): flat.append(v)\n"
                   "        elif isinstance(v, dict): [walk(x) for x in v.values()]\n"
                   "    walk(sd)\n"
                   "    print('FILE', f, len(flat), sum(t.numel() for t in flat), sum(t.numel() * t.element_size() for t in flat))\n"
                   "for f in ['c.npy', 'fortran.npy', 'big.npy', 'i64.npy']:\n"
                   "    a = np.load('" + dir + "' + f); print('FILE', f, 1, a.size, a.nbytes)\n\" 2>&1")
                      .c_str(),
                  "r");
  char buf[4096];
  std::string log;
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) log.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << log;
  log = log.substr(std::min(log.size(), log.find("FILE ")));
  std::istringstream lines(log);
  std::string name;
  size_t tensors;
  int64_t params, bytes;
  int checked = 0;
  std::string tag;
  while (lines >> tag >> name >> tensors >> params >> bytes) {
    auto [rc2, text] = inspect_tool(dir + name + " --json");
    ASSERT_EQ(rc2, 0) << name << "\n" << text;
    json j = json::parse(text);
    EXPECT_EQ(j["format"], name.find(".npy") != std::string::npos ? "npy" : "pytorch") << name;
    EXPECT_EQ(j["tensors"].size(), tensors) << name;
    EXPECT_EQ(j["total"]["parameters"], params) << name;
    EXPECT_EQ(j["total"]["bytes"], bytes) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 8) << log;
  // safetensors files written by the script's independent writer.
  auto [rc3, text3] = inspect_tool(dir + "model.safetensors --json");
  ASSERT_EQ(rc3, 0) << text3;
  json j = json::parse(text3);
  EXPECT_EQ(j["total"]["parameters"], 12 + 3 * 5 + 1);
  EXPECT_EQ(j["metadata"]["source"], "make_fixtures.py");
  // Refused dtypes: exit 1 with the reason.
  auto [rc4, text4] = inspect_tool(dir + "complex64.pt");
  EXPECT_EQ(rc4, 1) << text4;
  EXPECT_NE(text4.find("tensor 'z' has dtype complex64"), std::string::npos) << text4;
}

TEST(LocusInspectTool, OtherFilesExitCodesAndMapLocation) {
  const std::string txt = tmp_path("notes.txt");
  std::ofstream(txt) << "just some notes\n";
  auto [rc, out] = inspect_tool(txt);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("not a checkpoint locus recognises: its 16 bytes begin 6a 75 73 74"), std::string::npos) << out;
  std::remove(txt.c_str());
  std::tie(rc, out) = inspect_tool("/nonexistent.pt");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cannot open '/nonexistent.pt'"), std::string::npos) << out;
  std::tie(rc, out) = inspect_tool(kFixtures + "evil.pt");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("global 'posix.system' is forbidden"), std::string::npos) << out;
  std::tie(rc, out) = inspect_tool("--help");
  EXPECT_EQ(rc, 0) << out;
  for (const char* s : {"Exit status: 0", "1 it is not a checkpoint locus recognises", "2 bad usage", "3 --map-location"})
    EXPECT_NE(out.find(s), std::string::npos) << out;
  struct Bad {
    const char* args;
    const char* message;
  };
  for (const Bad& b : {Bad{"", "locus-inspect: no FILE given; see --help\n"},
                       Bad{"--bogus x.pt", "locus-inspect: unknown argument '--bogus'; see --help\n"},
                       Bad{"a.pt b.pt", "locus-inspect: a second FILE 'b.pt'; see --help\n"},
                       Bad{"a.pt --json=1", "locus-inspect: --json takes no value; see --help\n"},
                       Bad{"a.pt --map-location", "locus-inspect: --map-location needs a value: a device or FROM=TO pairs; see --help\n"}}) {
    std::tie(rc, out) = inspect_tool(b.args);
    EXPECT_EQ(rc, 2) << b.args << "\n" << out;
    EXPECT_EQ(out, b.message) << b.args;
  }
  std::tie(rc, out) = inspect_tool("--version");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, std::string("locus-inspect ") + LOCUS_VERSION + "\n");
  std::tie(rc, out) = inspect_tool(kFixtures + "model_cuda.pt --map-location cuda:0=cpu");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("pytorch, 7 tensors"), std::string::npos) << out;
  EXPECT_NE(out.find("cuda:0 -> cpu  48 bytes"), std::string::npos) << out;
  std::tie(rc, out) = inspect_tool(kFixtures + "model_cuda.pt --json --map-location cpu");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(json::parse(out)["loaded"][0]["from"], "cuda:0");
  if (!is_available(kCUDA)) {
    std::tie(rc, out) = inspect_tool(kFixtures + "model_cuda.pt --map-location=cuda:0");
    EXPECT_EQ(rc, 3) << out;
    EXPECT_NE(out.find("map_location sends tensor"), std::string::npos) << out;
  }
}

}  // namespace locus_inspect_test
