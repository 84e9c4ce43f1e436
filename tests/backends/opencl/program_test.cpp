// The kernel program cache: binaries land on disk, a second build loads them, a corrupted
// entry is detected and rebuilt, and a broken kernel surfaces as BackendError with its log.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backends/opencl/program.h"
#include "backends/opencl/runtime.h"
#include "kernels/sources.h"
#include "locus/error.h"
#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace program_test {

namespace fs = std::filesystem;

// Points LOCUS_KERNEL_CACHE at a fresh folder for the test's duration.
struct TempCache {
  std::string old;
  bool had = false;
  fs::path dir;
  TempCache() {
    if (const char* c = std::getenv("LOCUS_KERNEL_CACHE")) had = true, old = c;
    dir = fs::temp_directory_path() / ("locus-kcache-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    setenv("LOCUS_KERNEL_CACHE", dir.c_str(), 1);
  }
  ~TempCache() {
    if (had) setenv("LOCUS_KERNEL_CACHE", old.c_str(), 1);
    else unsetenv("LOCUS_KERNEL_CACHE");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const char* kTiny = "KERNEL void tiny(GLOBAL int* p) { p[GID(0)] += 1; }\n";

std::string tiny_source() { return std::string(kernels::source("prelude_opencl.h")) + kTiny; }

TEST(OpenCLProgram, EmbeddedSourcesExpandIncludes) {
  std::string s = kernels::expand("binary.cl", "prelude_opencl.h");
  EXPECT_NE(s.find("#define KERNEL __kernel"), std::string::npos);
  EXPECT_NE(s.find("typedef struct"), std::string::npos);  // common.cl was inlined
  EXPECT_EQ(s.find("#include \"common.cl\""), std::string::npos);
  EXPECT_THROW(kernels::source("nope.cl"), Error);
}

TEST(OpenCLProgram, DiskCacheHitAndCorruptEntryRebuilt) {
  LOCUS_REQUIRE_OPENCL(1);
  TempCache tc;
  EXPECT_EQ(gpu::kernel_cache_dir(), tc.dir.string());
  std::string src = tiny_source();
  std::string file = program_cache_file(0, src, "");
  EXPECT_EQ(fs::path(file).parent_path(), tc.dir);
  ASSERT_FALSE(fs::exists(file));

  gpu::ProgramStats s0 = disk_cache().stats();
  cl_program p = build_program(0, src, "", "tiny");
  release_program(p);
  gpu::ProgramStats s1 = disk_cache().stats();
  EXPECT_EQ(s1.built_from_source, s0.built_from_source + 1);
  ASSERT_TRUE(fs::exists(file));  // the cache file appeared
  auto size = fs::file_size(file);

  p = build_program(0, src, "", "tiny");  // second run: from disk
  release_program(p);
  gpu::ProgramStats s2 = disk_cache().stats();
  EXPECT_EQ(s2.loaded_from_disk, s1.loaded_from_disk + 1);
  EXPECT_EQ(s2.built_from_source, s1.built_from_source);

  // the second device has the same name and driver: it shares the entry
  if (be().device_count() > 1) {
    p = build_program(1, src, "", "tiny");
    release_program(p);
    EXPECT_EQ(disk_cache().stats().loaded_from_disk, s2.loaded_from_disk + 1);
  }

  // flip bytes in the middle of the payload: detected, deleted and rebuilt from source
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.write("garbage!", 8);
  }
  gpu::ProgramStats s3 = disk_cache().stats();
  p = build_program(0, src, "", "tiny");
  release_program(p);
  gpu::ProgramStats s4 = disk_cache().stats();
  EXPECT_EQ(s4.corrupt_entries, s3.corrupt_entries + 1);
  EXPECT_EQ(s4.built_from_source, s3.built_from_source + 1);
  EXPECT_TRUE(fs::exists(file));
  EXPECT_EQ(fs::file_size(file), size);

  // a truncated entry too
  fs::resize_file(file, 10);
  p = build_program(0, src, "", "tiny");
  release_program(p);
  EXPECT_EQ(disk_cache().stats().corrupt_entries, s4.corrupt_entries + 1);
}

TEST(OpenCLProgram, CompileErrorCarriesBuildLog) {
  LOCUS_REQUIRE_OPENCL(1);
  TempCache tc;
  std::string bad = std::string(kernels::source("prelude_opencl.h")) +
                    "KERNEL void broken(GLOBAL int* p) { p[GID(0)] = undeclared_thing; }\n";
  try {
    build_program(0, bad, "", "broken.cl");
    FAIL() << "expected a BackendError";
  } catch (const BackendError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("compiling broken.cl for opencl:0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_thing"), std::string::npos) << msg;  // from the build log
  }
  EXPECT_TRUE(!fs::exists(tc.dir) || fs::is_empty(tc.dir));  // nothing cached for a failure
}

TEST(OpenCLProgram, KernelsReloadFromDiskAfterForgetting) {
  LOCUS_REQUIRE_OPENCL(1);
  auto& opencl = static_cast<OpenCLBackend&>(be());
  gpu::Kernel& k = opencl.kernel(0, "copy.cl", kFloat, "fill", "");
  EXPECT_EQ(k.label, "fill_f32");
  forget_programs(0);
  gpu::ProgramStats s0 = disk_cache().stats();
  opencl.kernel(0, "copy.cl", kFloat, "fill", "");
  gpu::ProgramStats s1 = disk_cache().stats();
  // the process's cache folder (LOCUS_KERNEL_CACHE) already had it
  EXPECT_EQ(s1.loaded_from_disk + s1.built_from_source, s0.loaded_from_disk + s0.built_from_source + 1);
  if (!gpu::kernel_cache_dir().empty()) {
    EXPECT_EQ(s1.loaded_from_disk, s0.loaded_from_disk + 1);
  }
}

}  // namespace program_test
}  // namespace
}  // namespace locus::opencl::test
