// locus-info and collect_env(): every backend and device, with statistics, as text and JSON.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "backends/cpu/blas.h"
#include "build_info.h"
#include "testing.h"
#include "tools/run_tool.h"

using namespace locus;

namespace locus_info_test {

namespace {
std::pair<int, std::string> run(const std::string& args) { return run_tool("locus-info", args); }
}  // namespace

TEST(CollectEnv, ListsBackendsDevicesAndStats) {
  std::string text = collect_env();
  EXPECT_NE(text.find("locus 0."), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA:"), std::string::npos) << text;
  EXPECT_NE(text.find("OpenCL:"), std::string::npos) << text;
  for (const Device& d : all_devices()) EXPECT_NE(text.find(d.str()), std::string::npos) << d;
  EXPECT_NE(text.find("allocator:"), std::string::npos);
  EXPECT_NE(text.find("best_device():"), std::string::npos);
  std::string json = collect_env(true);
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"devices\": ["), std::string::npos);
  EXPECT_NE(json.find("\"memory_stats\": {"), std::string::npos);
  EXPECT_NE(json.find("\"best_device\": \"" + best_device().str() + "\""), std::string::npos);
}

TEST(LocusInfoTool, RunsAndRejectsBadFlags) {
  auto [rc, out] = run("");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("cpu"), std::string::npos);
  auto [rcj, outj] = run("--json");
  EXPECT_EQ(rcj, 0);
  EXPECT_NE(outj.find("\"version\""), std::string::npos);
  auto [rcb, outb] = run("--bogus");
  EXPECT_EQ(rcb, 2);
  EXPECT_EQ(outb, "locus-info: unknown argument '--bogus'; see --help\n");
}

// The JSON is one object that nlohmann parses, with collect_env()'s fields and the libraries and
// settings behind them.
TEST(LocusInfoTool, JsonParsesAndHasEveryField) {
  auto [rc, out] = run("--json");
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json j = nlohmann::json::parse(out);  // throws (failing the test) on malformed JSON
  for (const char* key : {"version", "build", "backends", "best_device", "devices", "blas", "opencl", "clblast",
                          "kernel_cache", "settings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["version"], LOCUS_VERSION_STRING);
  EXPECT_EQ(j["best_device"], best_device().str());
  ASSERT_EQ(j["devices"].size(), all_devices().size());
  for (size_t i = 0; i < all_devices().size(); ++i) {
    EXPECT_EQ(j["devices"][i]["device"], all_devices()[i].str());
    EXPECT_TRUE(j["devices"][i]["memory_stats"].contains("allocated_bytes.current"));
  }
  // the BLAS: what blas.cpp chose, split into library, kernel and threads
  const nlohmann::json& blas = j["blas"];
  EXPECT_EQ(blas["description"], std::string(cpu::blas_name()));
  EXPECT_EQ(blas["description"].get<std::string>().rfind(blas["library"].get<std::string>(), 0), 0u);
  EXPECT_EQ(blas["threads"], get_num_threads());
  if (blas["library"].get<std::string>().rfind("OpenBLAS", 0) == 0) {
    ASSERT_TRUE(blas["kernel"].is_string()) << blas;
    EXPECT_FALSE(blas["kernel"].get<std::string>().empty());
  }
  // what serves the large float32 products instead: oneDNN on AVX-512 where libdnnl.so.2 loads
  const std::string large = cpu::gemm_f32_large_name();
  if (large.empty()) EXPECT_TRUE(blas["large_sgemm"].is_null()) << blas;
  else EXPECT_EQ(blas["large_sgemm"], large);
  EXPECT_TRUE(j["settings"].is_object());
}

TEST(LocusInfoTool, OpenCLLoaderPlatformsCLBlastAndKernelCache) {
  if (!is_available(kOpenCL)) GTEST_SKIP() << "no OpenCL device here";
  auto [rc, out] = run("--json");
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json j = nlohmann::json::parse(out);
  const nlohmann::json& cl = j["opencl"];
  ASSERT_TRUE(cl.is_object()) << cl;
  EXPECT_NE(cl["icd_loader"]["library"].get<std::string>().find("libOpenCL.so"), std::string::npos) << cl;
  // ocl-icd (Debian) and Khronos's loader both answer clGetICDLoaderInfoOCLICD
  EXPECT_FALSE(cl["icd_loader"]["version"].get<std::string>().empty()) << cl;
  EXPECT_EQ(cl["icd_loader"]["opencl"].get<std::string>().rfind("OpenCL ", 0), 0u) << cl;
  ASSERT_GE(cl["platforms"].size(), 1u);
  for (const auto& p : cl["platforms"]) EXPECT_EQ(p["version"].get<std::string>().rfind("OpenCL ", 0), 0u) << p;
  // the platform of every OpenCL device is listed
  for (int i = 0; i < device_count(kOpenCL); ++i) {
    std::string notes = describe(Device(kOpenCL, static_cast<DeviceIndex>(i))).extra;
    bool found = false;
    for (const auto& p : cl["platforms"]) found |= notes.find(p["name"].get<std::string>()) != std::string::npos;
    EXPECT_TRUE(found) << notes;
  }
  ASSERT_TRUE(j["clblast"].is_object()) << j["clblast"];
  std::string lib = j["clblast"]["library"], version = j["clblast"]["version"];
  EXPECT_NE(lib.find("libclblast.so"), std::string::npos);
  EXPECT_EQ(lib.substr(lib.size() - version.size()), version);
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;  // major.minor.patch
  // the cache folder the tests use (tests/CMakeLists.txt sets LOCUS_KERNEL_CACHE)
  const char* cache = std::getenv("LOCUS_KERNEL_CACHE");
  if (cache != nullptr && *cache != '\0') {
    EXPECT_EQ(j["kernel_cache"]["path"], cache);
    EXPECT_EQ(j["settings"]["LOCUS_KERNEL_CACHE"], cache);
  }
  auto [rct, text] = run("");
  EXPECT_NE(text.find("  OpenCL ICD:    "), std::string::npos) << text;
  EXPECT_NE(text.find("  CLBlast:       " + version + " ("), std::string::npos) << text;
  EXPECT_NE(text.find("  kernel cache:  " + j["kernel_cache"]["path"].get<std::string>()), std::string::npos);
}

// The settings in effect: LOCUS_*, CUDA_VISIBLE_DEVICES (and the drivers' POCL_DEVICES,
// OPENBLAS_CORETYPE), and nothing else from the environment.
TEST(LocusInfoTool, ListsTheSettingsInEffect) {
  setenv("LOCUS_DEVICE", "cpu", 1);
  setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  setenv("NOT_LOCUS_SETTING", "y", 1);
  auto [rc, out] = run("--json");
  auto [rct, text] = run("");
  unsetenv("LOCUS_DEVICE");
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("NOT_LOCUS_SETTING");
  ASSERT_EQ(rc, 0) << out;
  nlohmann::json s = nlohmann::json::parse(out)["settings"];
  EXPECT_EQ(s["LOCUS_DEVICE"], "cpu");
  EXPECT_EQ(s["CUDA_VISIBLE_DEVICES"], "1,0");
  EXPECT_FALSE(s.contains("NOT_LOCUS_SETTING"));
  EXPECT_FALSE(s.contains("HOME"));
  for (const auto& [k, v] : s.items())
    EXPECT_TRUE(k.rfind("LOCUS_", 0) == 0 || k == "CUDA_VISIBLE_DEVICES" || k == "POCL_DEVICES" ||
                k == "OPENBLAS_CORETYPE") << k;
  EXPECT_NE(text.find(" LOCUS_DEVICE=cpu\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" CUDA_VISIBLE_DEVICES=1,0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("NOT_LOCUS_SETTING"), std::string::npos);
}

// Item 11's convention: --flag value and --flag=value, --help with the exit codes, --version,
// "see --help" and exit status 2 for bad usage.
TEST(LocusInfoTool, CommandLineConvention) {
  auto [rch, help] = run("--help");
  EXPECT_EQ(rch, 0);
  EXPECT_EQ(help.rfind("usage: locus-info", 0), 0u) << help;
  EXPECT_NE(help.find("Exit status: 0 printed; 1 collecting the report failed (the reason on stderr); 2 bad usage."),
            std::string::npos) << help;
  EXPECT_EQ(run("-h").second, help);
  auto [rcv, version] = run("--version");
  EXPECT_EQ(rcv, 0);
  EXPECT_EQ(version, std::string("locus-info ") + LOCUS_VERSION_STRING + "\n");
  // --format json and --format=json (and --json, above) give JSON; the last format given wins
  for (const char* args : {"--format json", "--format=text --json"}) {
    auto [rc, out] = run(args);
    EXPECT_EQ(rc, 0) << args;
    EXPECT_NO_THROW(nlohmann::json::parse(out)) << args << "\n" << out;
  }
  for (const char* args : {"--format=text", "--json --format text"}) {
    auto [rc, out] = run(args);
    EXPECT_EQ(rc, 0) << args;
    EXPECT_EQ(out.rfind("locus ", 0), 0u) << args << "\n" << out;
    EXPECT_NE(out.find("\nlibraries and settings:\n  BLAS:          "), std::string::npos) << out;
  }
  struct Bad {
    const char* args;
    const char* message;
  };
  for (const Bad& b : {Bad{"--format", "locus-info: --format needs a value: text or json; see --help\n"},
                       Bad{"--format xml", "locus-info: --format 'xml' is not text or json; see --help\n"},
                       Bad{"--format=", "locus-info: --format '' is not text or json; see --help\n"},
                       Bad{"--json=yes", "locus-info: --json takes no value; see --help\n"},
                       Bad{"--version=2", "locus-info: --version takes no value; see --help\n"},
                       Bad{"extra", "locus-info: unknown argument 'extra'; see --help\n"},
                       Bad{"--jsn", "locus-info: unknown argument '--jsn'; see --help\n"}}) {
    auto [rc, out] = run(b.args);
    EXPECT_EQ(rc, 2) << b.args;
    EXPECT_EQ(out, b.message) << b.args;
  }
}

// NVRTC and cuBLAS are loaded at run time (src/backends/cuda/libraries.cpp): locus-info says
// which were found, with their versions, or why not; without the CUDA backend it says nothing.
TEST(LocusInfoTool, SaysWhichCudaLibrariesWereFound) {
  auto [rc, out] = run("");
  ASSERT_EQ(rc, 0) << out;
  auto [rcj, json] = run("--json");
  ASSERT_EQ(rcj, 0) << json;
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  if (std::string(LOCUS_BUILD_BACKENDS).find("cuda") != std::string::npos) {
    size_t at = out.find("\nCUDA libraries: ");
    ASSERT_NE(at, std::string::npos) << out;
    std::string line = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
    // each library is either found (name, version, soname) or reported missing with the fix
    EXPECT_TRUE(line.find("NVRTC ") != std::string::npos && line.find("libnvrtc.so") != std::string::npos) << line;
    EXPECT_TRUE(line.find("cuBLAS ") != std::string::npos && line.find("libcublas.so") != std::string::npos) << line;
    EXPECT_NE(json.find("\"cuda_libraries\": \""), std::string::npos) << json;
    // a library that cannot be loaded is named with the loader's reason and the fix
    setenv("LOCUS_NVRTC_LIBRARY", "libnvrtc.so.99", 1);
    setenv("LOCUS_CUBLAS_LIBRARY", "/nonexistent/libcublas.so", 1);
    auto [rcm, missing] = run("");
    unsetenv("LOCUS_NVRTC_LIBRARY");
    unsetenv("LOCUS_CUBLAS_LIBRARY");
    EXPECT_EQ(rcm, 0) << missing;
    EXPECT_NE(missing.find("CUDA libraries: NVRTC not found (libnvrtc.so.99: cannot open shared object file"),
              std::string::npos) << missing;
    EXPECT_NE(missing.find("install the CUDA toolkit's NVRTC (cuda-nvrtc) or set LOCUS_NVRTC_LIBRARY to the "
                           "library's path"), std::string::npos) << missing;
    EXPECT_NE(missing.find("cuBLAS not found (/nonexistent/libcublas.so"), std::string::npos) << missing;
  } else {
    EXPECT_EQ(out.find("CUDA libraries:"), std::string::npos) << out;
    EXPECT_EQ(json.find("cuda_libraries"), std::string::npos) << json;
  }
}

}  // namespace locus_info_test
