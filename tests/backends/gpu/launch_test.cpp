// The shared GPU layer's host pieces that need no device: the argument pack (layout the
// runtimes hand to clSetKernelArg / cuLaunchKernel), scalars as the kernels read them, the
// driver-failure message, the program caches (in memory and on disk), the device table, and
// what the vendor-BLAS paths check. The compute families themselves
// run in the device-parameterised op tests (tests/ops) on every GPU device.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/gpu/check.h"
#include "backends/gpu/device_table.h"
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/kernel_cache.h"
#include "locus/error.h"
#include "testing.h"

namespace locus::gpu {
namespace {
namespace launch_test {

TEST(GpuArgs, PacksByValueWithAlignmentAndBuffersAsTwoArguments) {
  Args a;
  int x = 0;
  a.arg(int32_t{7}).arg(int64_t{-3}).buf(Buffer{&x, 40});
  ASSERT_EQ(a.count(), 4);
  EXPECT_EQ(a.size(0), 4u);
  EXPECT_EQ(a.size(1), 8u);
  EXPECT_EQ(a.size(2), 8u);  // the base handle
  EXPECT_EQ(a.size(3), 8u);  // the byte offset
  EXPECT_EQ(*static_cast<int32_t*>(a.values()[0]), 7);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.values()[1]) % alignof(int64_t), 0u);
  EXPECT_EQ(*static_cast<int64_t*>(a.values()[1]), -3);
  EXPECT_EQ(*static_cast<void**>(a.values()[2]), static_cast<void*>(&x));
  EXPECT_EQ(*static_cast<int64_t*>(a.values()[3]), 40);
}

TEST(GpuArgs, TooManyArgumentsIsAnError) {
  Args a;
  for (int i = 0; i < 32; ++i) a.arg(i);
  EXPECT_THROW_MSG(a.arg(1), BackendError, "[gpu] too many kernel arguments (at most 32, 2048 bytes).");
  Args big;
  Geom g;  // 336 bytes: six fit in 2048, the seventh does not
  for (int i = 0; i < 5; ++i) big.arg(g);
  EXPECT_THROW(big.arg(g).arg(g), BackendError);
}

TEST(GpuScalar, EachRepresentationOfTheValue) {
  Scalar s = make_scalar(2.5, kFloat);
  double d = 0;
  std::memcpy(&d, &s.dbits, 8);
  EXPECT_EQ(d, 2.5);
  EXPECT_EQ(s.l, 2);
  EXPECT_EQ(s.f, 2.5f);
  EXPECT_EQ(make_scalar(0.5, kBool).l, 1);  // bool: nonzero is true
  EXPECT_EQ(make_scalar(NAN, kLong).l, 0);
  EXPECT_EQ(make_scalar(1e30, kLong).l, INT64_MAX);
  EXPECT_EQ(make_scalar(-1e30, kLong).l, INT64_MIN);
  EXPECT_EQ(sizeof(Scalar), 24u);  // common.cl: Scalar
}

TEST(GpuCheck, FailureMessageNamesCallDeviceWhatAndStatus) {
  EXPECT_EQ(failure_message("cuda", "drv().cuMemAlloc(&p, n)", "CUDA_ERROR_OUT_OF_MEMORY", 0, "8 bytes"),
            "cuMemAlloc failed on cuda:0 (8 bytes): CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(failure_message("opencl", "clFinish(q)", "CL_OUT_OF_RESOURCES", -1, ""),
            "clFinish failed: CL_OUT_OF_RESOURCES");
  EXPECT_EQ(failure_message("hip", "nv.hipFree (p)", "E", 2, ""), "hipFree failed on hip:2: E");
}

TEST(GpuKernelCache, DtypeNamesAndDefines) {
  EXPECT_STREQ(dtype_suffix(kBFloat16), "bf16");
  EXPECT_STREQ(dtype_suffix(kChar), "i8");
  EXPECT_EQ(dtype_define(kFloat), "-DDT_F32");
  EXPECT_EQ(dtype_define(kBool), "-DDT_BOOL");
}

TEST(GpuKernelCache, RoundTripAndCorruptFilesAreDeletedAndCounted) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("locus-gpu-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string path = (dir / "sub" / "entry.bin").string();
  std::atomic<int64_t> corrupt{0};
  EXPECT_EQ(read_cache(path, "LOCUSXX1", corrupt), "");  // missing: not corrupt
  EXPECT_EQ(corrupt.load(), 0);
  std::string payload("bin\0ary", 7);
  write_cache(path, "LOCUSXX1", payload.data(), payload.size());
  EXPECT_EQ(fs::file_size(path), 24u + payload.size());
  EXPECT_EQ(read_cache(path, "LOCUSXX1", corrupt), payload);
  EXPECT_EQ(read_cache(path, "LOCUSYY1", corrupt), "");  // another runtime's magic
  EXPECT_EQ(corrupt.load(), 1);
  EXPECT_FALSE(fs::exists(path));
  write_cache(path, "LOCUSXX1", payload.data(), payload.size());
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(26);
    f.put('X');  // flip a payload byte: the hash no longer matches
  }
  EXPECT_EQ(read_cache(path, "LOCUSXX1", corrupt), "");
  EXPECT_EQ(corrupt.load(), 2);
  fs::remove_all(dir);
}

// A stand-in program and kernel: the cache holds whatever handle a runtime has.
struct FakeKernel : Kernel {
  int handle = 0;
};

TEST(GpuProgramCache, BuildsEachProgramOnceAndEachKernelOnce) {
  ProgramCache<int, FakeKernel> cache;
  int builds = 0, makes = 0;
  auto build = [&] { return 100 + ++builds; };
  auto make = [&](FakeKernel& k, int program) { k.handle = program * 10 + ++makes; };
  FakeKernel& a = cache.get("copy.cl|-DDT_F32", "fill", kFloat, build, make);
  EXPECT_EQ(a.label, "fill_f32");
  EXPECT_EQ(a.handle, 1011);
  EXPECT_EQ(&cache.get("copy.cl|-DDT_F32", "fill", kFloat, build, make), &a);  // cached
  FakeKernel& b = cache.get("copy.cl|-DDT_F32", "copy_cast", kFloat, build, make);  // same program
  EXPECT_EQ(b.handle, 1012);
  EXPECT_EQ(builds, 1);
  cache.get("copy.cl|-DDT_F64", "fill", kDouble, build, make);  // another program
  EXPECT_EQ(builds, 2);
  EXPECT_EQ(makes, 3);
  std::vector<int> released_kernels, released_programs;
  cache.clear([&](FakeKernel& k) { released_kernels.push_back(k.handle); },
              [&](int p) { released_programs.push_back(p); });
  EXPECT_EQ(released_kernels.size(), 3u);
  EXPECT_EQ(released_programs, (std::vector<int>{101, 102}));
  cache.get("copy.cl|-DDT_F32", "fill", kFloat, build, make);  // rebuilt after clear
  EXPECT_EQ(builds, 3);
}

TEST(GpuProgramCache, AFailedBuildLeavesNothingBehind) {
  ProgramCache<int, FakeKernel> cache;
  int builds = 0;
  auto make = [](FakeKernel& k, int program) { k.handle = program; };
  EXPECT_THROW_MSG(cache.get("bad.cl|", "k", kFloat, [&]() -> int { ++builds; throw BackendError("no build"); }, make),
                   BackendError, "no build");
  FakeKernel& k = cache.get("bad.cl|", "k", kFloat, [&] { return ++builds; }, make);  // tried again
  EXPECT_EQ(k.handle, 2);
  EXPECT_THROW_MSG(cache.get("bad.cl|", "k2", kFloat, [] { return 0; },
                             [](FakeKernel&, int) { throw BackendError("no kernel k2"); }),
                   BackendError, "no kernel k2");
  EXPECT_THROW_MSG(cache.get("bad.cl|", "k2", kFloat, [] { return 0; },
                             [](FakeKernel&, int) { throw BackendError("still no kernel k2"); }),
                   BackendError, "still no kernel k2");  // not cached half-made
  EXPECT_EQ(builds, 2);
}

TEST(GpuProgramCache, LoadOrBuildGoesThroughTheDiskCache) {
  std::string dir = std::filesystem::temp_directory_path() / ("locus-lob-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = dir + "/program.bin";
  ProgramCounters n;
  int compiles = 0;
  auto build = [&](std::string& image) {
    image = "IMAGE" + std::to_string(++compiles);
    return compiles;
  };
  auto load = [](const std::string& image) { return image.rfind("IMAGE", 0) == 0 ? 100 + (image[5] - '0') : 0; };
  EXPECT_EQ(load_or_build<int>(path, "LOCUSXX1", n, load, build), 1);  // built, then written
  EXPECT_EQ(load_or_build<int>(path, "LOCUSXX1", n, load, build), 101);  // loaded
  ProgramStats s = n.stats();
  EXPECT_EQ(s.built_from_source, 1);
  EXPECT_EQ(s.loaded_from_disk, 1);
  EXPECT_EQ(s.corrupt_entries, 0);
  // a payload the driver rejects: deleted, counted, rebuilt and written again
  write_cache(path, "LOCUSXX1", "JUNK", 4);
  EXPECT_EQ(load_or_build<int>(path, "LOCUSXX1", n, load, build), 2);
  s = n.stats();
  EXPECT_EQ(s.corrupt_entries, 1);
  EXPECT_EQ(s.built_from_source, 2);
  EXPECT_EQ(load_or_build<int>(path, "LOCUSXX1", n, load, build), 102);
  // no folder: built every time, nothing written
  EXPECT_EQ(load_or_build<int>("", "LOCUSXX1", n, load, build), 3);
  EXPECT_EQ(n.stats().built_from_source, 3);
  // a build error propagates and caches nothing
  std::filesystem::remove(path);
  EXPECT_THROW_MSG(load_or_build<int>(path, "LOCUSXX1", n, load,
                                      [](std::string&) -> int { throw BackendError("compile failed"); }),
                   BackendError, "compile failed");
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}

struct FakeDevice {
  struct {
    std::string name;
  } props;
};
struct FakeTable : DeviceTable<FakeDevice> {
  FakeTable(int n, std::string why) : DeviceTable("hip", "HIP") {
    for (int i = 0; i < n; ++i)
      devices_.push_back(std::make_unique<FakeDevice>(FakeDevice{{"MI" + std::to_string(i)}}));
    reason_ = std::move(why);
  }
};

TEST(GpuDeviceTable, IndexChecksAndLabels) {
  FakeTable two(2, "");
  EXPECT_EQ(two.count(), 2);
  EXPECT_EQ(two.device(1).props.name, "MI1");
  EXPECT_EQ(two.label(1), "hip:1 (MI1)");
  EXPECT_EQ(two.label(5), "hip:5");
  EXPECT_THROW_MSG(two.device(2), NotAvailableError,
                   "[hip] device hip:2 does not exist: valid indices are 0..1. Use an index below "
                   "locus::hip::device_count().");
  EXPECT_THROW_MSG(two.device(-1), NotAvailableError, "[hip] device hip:-1 does not exist");
  FakeTable none(0, "no driver: libamdhip64.so not found");
  EXPECT_THROW_MSG(none.device(0), NotAvailableError,
                   "[hip] device hip:0 does not exist: there are no HIP devices (no driver: libamdhip64.so not "
                   "found). Use an index below locus::hip::device_count().");
}

TEST(GpuBlas, LayoutsAVendorBlasTakes) {
  backend::Backend::Gemm g;
  g.dtype = kFloat;
  g.m = 4, g.n = 3, g.k = 2;
  g.lda = 2, g.ldb = 3, g.ldc = 3;
  EXPECT_TRUE(GpuBackend::blas_layout(g, INT64_MAX));
  EXPECT_FALSE(GpuBackend::blas_layout(g, 3));  // m = 4 beyond the BLAS's index type
  backend::Backend::Gemm t = g;
  t.trans_a = true, t.lda = 3;  // A is k x m stored transposed: rows of m = 4
  EXPECT_FALSE(GpuBackend::blas_layout(t, INT64_MAX));
  t.lda = 4;
  EXPECT_TRUE(GpuBackend::blas_layout(t, INT64_MAX));
  backend::Backend::Gemm o = g;
  o.b.offset = 6;  // not a whole float
  EXPECT_FALSE(GpuBackend::blas_layout(o, INT64_MAX));
  o.b.offset = 8;
  EXPECT_TRUE(GpuBackend::blas_layout(o, INT64_MAX));
  backend::Backend::Gemm b = g;
  b.batch = 2, b.stride_a = 8, b.stride_b = 6, b.stride_c = 0;  // batches would write one c
  EXPECT_FALSE(GpuBackend::blas_layout(b, INT64_MAX));
  b.stride_c = 12;
  EXPECT_TRUE(GpuBackend::blas_layout(b, INT64_MAX));
  EXPECT_EQ(GpuBackend::gemm_label(b), "float32, m=4 n=3 k=2, batch 2");
}

TEST(GpuBlas, ElapsedTimePreconditions) {
  EXPECT_NO_THROW(GpuBackend::check_elapsed(true, true));
  EXPECT_THROW_MSG(GpuBackend::check_elapsed(false, true), BackendError,
                   "[elapsed_time] both events must be created with timing enabled.");
  EXPECT_THROW_MSG(GpuBackend::check_elapsed(true, false), BackendError,
                   "[elapsed_time] both events must be recorded first. Call record() on each.");
}

TEST(GpuMemory, AllocationsAreWholeWords) {
  EXPECT_EQ(alloc_bytes(0), 8u);
  EXPECT_EQ(alloc_bytes(1), 8u);
  EXPECT_EQ(alloc_bytes(8), 8u);
  EXPECT_EQ(alloc_bytes(9), 16u);
}

}  // namespace launch_test
}  // namespace
}  // namespace locus::gpu
