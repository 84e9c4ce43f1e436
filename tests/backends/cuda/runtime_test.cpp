// The CUDA backend on a machine without a GPU or driver (CI): it is built and registered, has
// zero devices with the reason, and everything above reports that reason; the driver loader
// names a missing library or missing entry points. On a machine with a GPU the no-driver
// tests skip and the device tests run (and the device-parameterized suites pick up cuda:N
// through all_devices()).
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "core/backend.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/locus.h"
#include "testing.h"

namespace locus::cuda::test {
namespace {
namespace runtime_test {

bool no_driver() { return !drv().loaded; }

TEST(CudaRuntime, BuiltAndRegistered) {
  backend::Backend* b = backend::get(kCUDA);
  ASSERT_NE(b, nullptr) << "locus was configured with LOCUS_WITH_CUDA but registered no CUDA backend";
  EXPECT_EQ(b->type(), kCUDA);
  EXPECT_EQ(b->device_count(), Runtime::get().count());
}

TEST(CudaRuntime, NoDriverMeansZeroDevicesAndTheReason) {
  if (!no_driver()) GTEST_SKIP() << "a CUDA driver is present";
  if (std::getenv("LOCUS_CUDA_DRIVER")) GTEST_SKIP() << "LOCUS_CUDA_DRIVER is set";
  backend::Backend* b = backend::get(kCUDA);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->device_count(), 0);
  std::string r = b->unavailable_reason();
  EXPECT_EQ(r.rfind("no driver: libcuda.so.1 not found (", 0), 0u) << r;
  EXPECT_NE(r.find("libcuda.so.1: cannot open shared object file"), std::string::npos) << r;
  EXPECT_EQ(locus::device_count(kCUDA), 0);
  EXPECT_FALSE(locus::cuda::is_available());
  // best_device() skips cuda with the reason; locus-info's report carries it too
  EXPECT_NE(best_device().type(), kCUDA);
  EXPECT_NE(best_device_report().find("skipped cuda: " + r), std::string::npos) << best_device_report();
  EXPECT_NE(collect_env().find(r), std::string::npos);
  // asking for the device names it
  EXPECT_THROW_MSG(b->props(0), NotAvailableError, "[cuda] device cuda:0 does not exist: there are no CUDA devices (no driver: libcuda.so.1 not found");
  EXPECT_THROW_MSG(locus::zeros({2}, locus::TensorOptions().device(Device(kCUDA, 0))), NotAvailableError,
                   "cuda:0 is not available: this machine has 0 cuda devices (no driver: libcuda.so.1 not found");
}

TEST(CudaRuntime, AllDevicesListsEveryCudaDevice) {
  // the device-parameterized suites instantiate over all_devices(): cuda:N joins them with no edit
  std::vector<Device> all = all_devices();
  int n = static_cast<int>(std::count_if(all.begin(), all.end(), [](const Device& d) { return d.type() == kCUDA; }));
  EXPECT_EQ(n, locus::device_count(kCUDA));
  for (int i = 0; i < n; ++i) EXPECT_TRUE(std::count(all.begin(), all.end(), Device(kCUDA, static_cast<DeviceIndex>(i))));
}

TEST(CudaDriver, MissingLibraryIsNamed) {
  Driver d;
  d.load("libcuda-does-not-exist.so.1");
  EXPECT_FALSE(d.loaded);
  EXPECT_EQ(d.reason.rfind("no driver: libcuda-does-not-exist.so.1 not found (", 0), 0u) << d.reason;
  EXPECT_NE(d.reason.find("cannot open shared object file"), std::string::npos) << d.reason;
  EXPECT_EQ(d.cuInit, nullptr);
}

TEST(CudaDriver, LibraryWithoutTheEntryPointsIsRefused) {
  Driver d;
  d.load("libm.so.6");
  EXPECT_FALSE(d.loaded);
  EXPECT_NE(d.reason.find("no driver: libm.so.6 lacks cuGetErrorName, cuInit,"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("cuMemAlloc_v2"), std::string::npos) << d.reason;  // the versioned symbol cuda.h binds to
  EXPECT_EQ(d.cuMemAlloc, nullptr);
}

TEST(CudaRuntime, NoContextBeforeFirstUse) {
  // enumeration and properties never create a context (no "every process allocates on GPU 0")
  Runtime& rt = Runtime::get();
  if (rt.count() == 0) GTEST_SKIP() << "no CUDA device: " << rt.reason();
  CudaBackend b;
  for (int i = 0; i < rt.count(); ++i) {
    b.props(i);
    b.free_memory(i);
  }
  // a fresh process would show every ctx null here; in this test binary other tests may have
  // used cuda:0 already, so only devices past the first are checked
  for (int i = 1; i < rt.count(); ++i) EXPECT_EQ(rt.device(i).ctx, nullptr) << "cuda:" << i;
}

}  // namespace runtime_test
}  // namespace
}  // namespace locus::cuda::test
