// The shared GPU layer's host pieces that need no device: the argument pack (layout the
// runtimes hand to clSetKernelArg / cuLaunchKernel), scalars as the kernels read them, the
// driver-failure message, and the disk cache's file format. The compute families themselves
// run in the device-parameterised op tests (tests/ops) on every GPU device.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/gpu/check.h"
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/kernel_cache.h"
#include "locus/error.h"
#include "testing.h"

namespace locus::gpu {
namespace {

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

}  // namespace
}  // namespace locus::gpu
