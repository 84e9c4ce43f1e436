// Every shared kernel source (src/kernels/*.cl), for every dtype the CUDA launch code uses,
// compiled by NVRTC to PTX and to machine code (a CUBIN with SASS) for sm_80 and sm_90. This
// needs neither a GPU nor the driver, so CI checks on GPU-less machines that the kernels
// the OpenCL backend runs on PoCL also build for real NVIDIA targets: a kernel that compiles
// for OpenCL but not for CUDA fails here. One test per (file, arch); the dtypes of a file
// compile on two threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include "backends/cuda/program.h"
#include "kernels/sources.h"
#include "locus/error.h"
#include "testing.h"

namespace locus::cuda::test {
namespace {
namespace nvrtc_compile_test {

std::vector<std::string> kernel_files() {
  std::set<std::string> files;
  for (const KernelUse& u : kernel_uses()) files.insert(u.file);
  return {files.begin(), files.end()};
}

TEST(CudaNvrtc, EveryKernelFileAndKernelIsCovered) {
  std::vector<std::string> files = kernel_files();
  for (const std::string& n : kernels::names()) {
    if (n.size() < 3 || n.compare(n.size() - 3, 3, ".cl") != 0 || n == "common.cl") continue;
    EXPECT_TRUE(std::count(files.begin(), files.end(), n))
        << n << " has no entry in cuda::kernel_uses() (src/backends/cuda/program.cpp): the CUDA backend does not "
        << "launch it and this test does not compile it";
  }
  for (const KernelUse& u : kernel_uses()) {
    std::string src(kernels::source(u.file));
    EXPECT_NE(src.find(std::string("KERNEL void ") + u.name + "("), std::string::npos)
        << u.file << " defines no kernel " << u.name << " (renamed?)";
  }
  // and every kernel of those files: a kernel left out is refused at its first launch on a GPU,
  // which CI (no GPU) never makes (reduce.cl's two-pass kernels were, until an H200 ran them)
  for (const std::string& f : files) {
    const std::string src(kernels::source(f)), tag = "KERNEL void ";
    for (size_t at = src.find(tag); at != std::string::npos; at = src.find(tag, at + 1)) {
      const size_t begin = at + tag.size(), end = src.find('(', begin);
      ASSERT_NE(end, std::string::npos) << f;
      const std::string name = src.substr(begin, end - begin);
      const bool listed = std::any_of(kernel_uses().begin(), kernel_uses().end(),
                                      [&](const KernelUse& u) { return f == u.file && name == u.name; });
      EXPECT_TRUE(listed) << f << " kernel " << name << " has no entry in cuda::kernel_uses() "
                          << "(src/backends/cuda/program.cpp): launching it on CUDA throws";
    }
  }
}

TEST(CudaNvrtc, TargetArchFollowsTheDevice) {
  EXPECT_EQ(target_arch(8, 0), "sm_80");
  EXPECT_EQ(target_arch(9, 0), "sm_90");
  EXPECT_EQ(target_arch(8, 6), "sm_86");
  // a compute capability this NVRTC does not know: PTX for the newest it knows below it
  EXPECT_EQ(target_arch(8, 5).rfind("compute_8", 0), 0u) << target_arch(8, 5);
  EXPECT_THROW(target_arch(1, 0), BackendError);
}

TEST(CudaNvrtc, CompileErrorCarriesTheLog) {
  std::string src = std::string(kernels::source("prelude_cuda.h")) + "KERNEL void broken(GLOBAL int* p) { p[0] = q; }\n";
  try {
    compile(src, "broken.cl (f32)", "sm_80", build_options(kFloat));
    ADD_FAILURE() << "expected a compile error";
  } catch (const BackendError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("[cuda] compiling broken.cl (f32) for sm_80 failed (NVRTC_ERROR_COMPILATION"), std::string::npos) << m;
    EXPECT_NE(m.find("NVRTC log:"), std::string::npos) << m;
    EXPECT_NE(m.find("identifier \"q\" is undefined"), std::string::npos) << m;
  }
}

TEST(CudaNvrtc, BuildOptionsSelectTheDtypeAndKeepFmaOff) {
  std::vector<std::string> o = build_options(kBFloat16);
  EXPECT_EQ(o.front(), "-DDT_BF16");
  EXPECT_EQ(build_options(kChar).front(), "-DDT_I8");
  EXPECT_EQ(build_options(kShort).front(), "-DDT_I16");
  EXPECT_TRUE(std::count(o.begin(), o.end(), "--fmad=false"));
  EXPECT_THROW(build_options(ScalarType::Undefined), BackendError);
}

struct Target {
  std::string file, arch;
};
// so that ctest and gtest name the parameter ("binary.cl for sm_80"), not its bytes
void PrintTo(const Target& t, std::ostream* os) { *os << t.file << " for " << t.arch; }

class CudaNvrtcCompile : public ::testing::TestWithParam<Target> {};

TEST_P(CudaNvrtcCompile, AllDtypesToSass) {
  const Target& t = GetParam();
  std::string src = kernels::expand(t.file, "prelude_cuda.h");
  const std::vector<ScalarType>& dts = kernel_dtypes();
  std::mutex mu;
  std::vector<std::string> failures;
  auto t0 = std::chrono::steady_clock::now();
  auto work = [&](size_t first) {
    for (size_t i = first; i < dts.size(); i += 2) {
      ScalarType dt = dts[i];
      std::string label = gpu::program_label(t.file.c_str(), dt);
      std::string problem;
      try {
        Compiled c = compile(src, label, t.arch, build_options(dt));
        if (!c.cubin || c.image.size() < 4 || c.image.compare(0, 4, "\x7f" "ELF") != 0)
          problem = "no CUBIN (ELF) image";
        for (const KernelUse& u : kernel_uses()) {
          if (t.file != u.file || (u.float_only && !is_floating_point(dt))) continue;
          if (c.ptx.find(std::string(".entry ") + u.name + "(") == std::string::npos)
            problem += std::string(" PTX lacks .entry ") + u.name + ";";
          if (c.image.find(std::string(".text.") + u.name) == std::string::npos)
            problem += std::string(" CUBIN lacks the code of ") + u.name + ";";
        }
      } catch (const std::exception& e) {
        problem = e.what();
      }
      if (!problem.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(label + " for " + t.arch + ": " + problem);
      }
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("seconds", std::to_string(s));
}

std::vector<Target> targets() {
  std::vector<Target> out;
  for (const std::string& f : kernel_files())
    for (const char* arch : {"sm_80", "sm_90"}) out.push_back({f, arch});
  return out;
}

std::string target_name(const ::testing::TestParamInfo<Target>& info) {
  std::string s = info.param.file + "_" + info.param.arch;
  for (char& c : s)
    if (c == '.') c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(SharedKernels, CudaNvrtcCompile, ::testing::ValuesIn(targets()), target_name);

// The disk cache's file format: a verified round trip, and a corrupt entry detected, deleted
// and counted (CudaBackend::kernel then rebuilds from source).
TEST(CudaProgramCache, RoundTripAndCorruptEntry) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("locus-cuda-kcache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string old = std::getenv("LOCUS_KERNEL_CACHE") ? std::getenv("LOCUS_KERNEL_CACHE") : "";
  setenv("LOCUS_KERNEL_CACHE", dir.c_str(), 1);
  std::string f1 = cache_file("sm_90", 13000, "-DDT_F32", "source");
  EXPECT_EQ(fs::path(f1).parent_path(), dir);
  EXPECT_NE(f1, cache_file("sm_80", 13000, "-DDT_F32", "source"));
  EXPECT_NE(f1, cache_file("sm_90", 12040, "-DDT_F32", "source"));
  EXPECT_NE(f1, cache_file("sm_90", 13000, "-DDT_F64", "source"));
  EXPECT_NE(f1, cache_file("sm_90", 13000, "-DDT_F32", "source2"));
  EXPECT_EQ(disk_cache().read(f1), "");  // missing

  std::string image("\x7f" "ELF and some bytes\0with a NUL", 30);
  disk_cache().write(f1, image);
  EXPECT_EQ(disk_cache().read(f1), image);
  {
    std::fstream f(f1, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('X');
  }
  int64_t corrupt = disk_cache().stats().corrupt_entries;
  EXPECT_EQ(disk_cache().read(f1), "");
  EXPECT_EQ(disk_cache().stats().corrupt_entries, corrupt + 1);
  EXPECT_FALSE(fs::exists(f1));
  {
    std::ofstream f(f1, std::ios::binary);
    f << "short";
  }
  EXPECT_EQ(disk_cache().read(f1), "");
  EXPECT_FALSE(fs::exists(f1));

  if (old.empty()) unsetenv("LOCUS_KERNEL_CACHE");
  else setenv("LOCUS_KERNEL_CACHE", old.c_str(), 1);
  fs::remove_all(dir);
}

}  // namespace nvrtc_compile_test
}  // namespace
}  // namespace locus::cuda::test
