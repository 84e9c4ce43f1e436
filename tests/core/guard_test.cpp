// Scopes: DeviceGuard (current index) and DefaultDeviceGuard (where factories put tensors).
#include <thread>

#include "testing.h"

using namespace locus;

namespace guard_test {

TEST(DefaultDeviceGuard, NestsAndRestores) {
  EXPECT_EQ(default_device(), Device(kCPU));
  Device a = all_devices().back();
  Device b = all_devices().front();
  {
    DefaultDeviceGuard g1(a);
    EXPECT_EQ(zeros({1}).device(), a);
    {
      DefaultDeviceGuard g2(b);
      EXPECT_EQ(zeros({1}).device(), b);
      EXPECT_EQ(randn({2}).device(), b);
    }
    EXPECT_EQ(ones({1}).device(), a);
    EXPECT_EQ(ones({1}, device(kCPU)).device(), Device(kCPU));  // an explicit device wins
  }
  EXPECT_EQ(zeros({1}).device(), Device(kCPU));
}

TEST(DefaultDeviceGuard, IsPerThread) {
  Device a = all_devices().back();
  DefaultDeviceGuard g(a);
  Device seen = Device(kCPU);
  std::thread t([&] { seen = zeros({1}).device(); });
  t.join();
  EXPECT_EQ(seen, Device(kCPU));
  EXPECT_EQ(zeros({1}).device(), a);
}

TEST(DefaultDeviceGuard, SetDefaultDeviceChecksAvailability) {
  EXPECT_THROW_MSG(set_default_device(Device("opencl:99")), NotAvailableError, "opencl:99 is not available");
  set_default_device(Device(kCPU));
}

class GuardOnAccelerator : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count(kOpenCL) < 2) GTEST_SKIP() << "needs two OpenCL devices (POCL_DEVICES=\"pthread pthread\")";
  }
};

TEST_F(GuardOnAccelerator, DeviceGuardChangesTheCurrentIndexNotTheDefaultDevice) {
  EXPECT_EQ(opencl::current_device(), 0);
  {
    DeviceGuard g(Device("opencl:1"));
    EXPECT_EQ(opencl::current_device(), 1);
    EXPECT_EQ(g.original_device(), Device("opencl:0"));
    // "opencl" without an index now means opencl:1
    EXPECT_EQ(zeros({1}, device(Device("opencl"))).device(), Device("opencl:1"));
    // but factories without a device still default to cpu (the tutorials get this wrong)
    EXPECT_EQ(zeros({1}).device(), Device(kCPU));
    {
      DeviceGuard g2(Device("opencl:0"));
      EXPECT_EQ(opencl::current_device(), 0);
    }
    EXPECT_EQ(opencl::current_device(), 1);
    int other_thread = -1;
    std::thread t([&] { other_thread = opencl::current_device(); });
    t.join();
    EXPECT_EQ(other_thread, 0);
  }
  EXPECT_EQ(opencl::current_device(), 0);
}

TEST_F(GuardOnAccelerator, SetDeviceValidates) {
  EXPECT_THROW_MSG(opencl::set_device(7), NotAvailableError, "opencl:7 is not available: this machine has 2 opencl devices");
  opencl::set_device(1);
  EXPECT_EQ(opencl::current_device(), 1);
  EXPECT_EQ(Tensor(ones({2}).opencl()).device(), Device("opencl:1"));
  opencl::set_device(0);
}

TEST(BestDevice, ReportsEveryCandidate) {
  std::string r = best_device_report();
  EXPECT_NE(r.find("chosen"), std::string::npos) << r;
  EXPECT_NE(r.find("cuda"), std::string::npos) << r;
  EXPECT_NE(r.find("cpu"), std::string::npos) << r;
  Device b = best_device();
  bool opencl_off_host = false;  // an OpenCL device that is not the host CPU (GPU, accelerator)
  for (int i = 0; i < device_count(kOpenCL); ++i)
    opencl_off_host = opencl_off_host || !describe(Device(kOpenCL, static_cast<DeviceIndex>(i))).runs_on_host_cpu;
  if (device_count(kCUDA) > 0) EXPECT_TRUE(b.is_cuda());
  else if (opencl_off_host) EXPECT_TRUE(b.is_opencl());
  else EXPECT_TRUE(b.is_cpu());
  if (device_count(kCUDA) == 0 && device_count(kOpenCL) > 0 && !opencl_off_host)
    EXPECT_NE(r.find("skipped opencl:0: an OpenCL driver on the host CPU"), std::string::npos) << r;
}

TEST(BestDevice, EnvironmentOverride) {
  setenv("LOCUS_DEVICE", "cpu", 1);
  EXPECT_EQ(best_device(), Device(kCPU));
  EXPECT_NE(best_device_report().find("overridden by LOCUS_DEVICE=cpu"), std::string::npos);
  setenv("LOCUS_DEVICE", "gpu", 1);
  EXPECT_THROW_MSG(best_device(), Error, "Did you mean \"cuda\"?");
  setenv("LOCUS_DEVICE", "opencl:42", 1);
  EXPECT_THROW_MSG(best_device(), NotAvailableError, "opencl:42 is not available");
  unsetenv("LOCUS_DEVICE");
}

TEST(BestDevice, AvailabilityQueriesNeverThrow) {
  EXPECT_EQ(device_count(kCPU), 1);
  EXPECT_TRUE(is_available(kCPU));
  EXPECT_NO_THROW(cuda::is_available());
  EXPECT_NO_THROW(cuda::device_count());
  EXPECT_EQ(device_count(kMPS), 0);
  EXPECT_FALSE(is_available(kMPS));
  EXPECT_EQ(static_cast<int>(all_devices().size()), 1 + device_count(kOpenCL) + device_count(kCUDA));
}

}  // namespace guard_test
