// locus-info and collect_env(): every backend and device, with statistics, as text and JSON.
#include <cstdlib>
#include <memory>

#include "build_info.h"
#include "testing.h"
#include "tools/run_tool.h"

using namespace locus;

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
  EXPECT_NE(outb.find("unknown argument '--bogus'"), std::string::npos);
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
