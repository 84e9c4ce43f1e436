#include <cstdlib>
#include <sstream>
#include <string>
#include <unordered_set>

#include "testing.h"

namespace device_test {

using locus::Device;
using locus::DeviceType;

TEST(Device, ParsesValidStrings) {
  struct Case {
    const char* s;
    DeviceType type;
    int index;
  } cases[] = {
      {"cpu", locus::kCPU, -1},      {"cpu:0", locus::kCPU, 0},      {"cuda", locus::kCUDA, -1},
      {"cuda:0", locus::kCUDA, 0},   {"cuda:1", locus::kCUDA, 1},    {"cuda:15", locus::kCUDA, 15},
      {"opencl", locus::kOpenCL, -1}, {"opencl:1", locus::kOpenCL, 1}, {"mps", locus::kMPS, -1},
      {"xpu:2", locus::kXPU, 2},     {"hip:0", locus::kHIP, 0},      {"meta", locus::kMeta, -1},
  };
  for (const auto& c : cases) {
    Device d(c.s);
    EXPECT_EQ(d.type(), c.type) << c.s;
    EXPECT_EQ(d.index(), c.index) << c.s;
    EXPECT_EQ(d.has_index(), c.index != -1) << c.s;
    EXPECT_EQ(d.str(), c.s);
  }
}

TEST(Device, RejectsInvalidStringsQuotingThem) {
  const char* bad[] = {"",      "cud:1", "cuda:", "cpu::1", "cpu:0:0", ":1",   "3",
                       "cuda:-1", "cuda:01", "cuda0", " cuda", "CUDA:1", "gpu", "cpu:1"};
  for (const char* s : bad) {
    try {
      Device d(s);
      ADD_FAILURE() << "accepted '" << s << "' as " << d;
    } catch (const locus::Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("Device(\"") + s + "\")"), std::string::npos) << msg;
      EXPECT_NE(msg.find("expected '<type>' or '<type>:<index>'"), std::string::npos) << msg;
    }
  }
}

TEST(Device, SuggestsTheLikelyIntent) {
  EXPECT_THROW_MSG(Device("CUDA:1"), locus::Error, "Did you mean \"cuda\"?");
  EXPECT_THROW_MSG(Device("gpu"), locus::Error, "Did you mean \"cuda\"?");
  EXPECT_THROW_MSG(Device("cuda0"), locus::Error, "Did you mean \"cuda:0\"?");
  EXPECT_THROW_MSG(Device("cud:1"), locus::Error, "Did you mean \"cuda\"?");
  EXPECT_THROW_MSG(Device("cuda:01"), locus::Error, "Did you mean \"cuda:1\"?");
  EXPECT_THROW_MSG(Device("cpu:1"), locus::Error, "cpu has a single device");
  EXPECT_THROW_MSG(Device(""), locus::Error, "the string is empty");
  EXPECT_THROW_MSG(Device("cuda:-1"), locus::Error, "not a non-negative decimal");
}

TEST(Device, EqualityFollowsPyTorch) {
  EXPECT_NE(Device("cpu"), Device("cpu:0"));
  EXPECT_NE(Device("cuda"), Device("cuda:0"));
  EXPECT_EQ(Device("cuda:1"), Device(locus::kCUDA, 1));
  EXPECT_EQ(Device(locus::kOpenCL), Device("opencl"));
  EXPECT_NE(Device("opencl:0"), Device("cuda:0"));
}

TEST(Device, PredicatesStreamAndHash) {
  Device d("opencl:1");
  EXPECT_TRUE(d.is_opencl());
  EXPECT_FALSE(d.is_cuda());
  EXPECT_FALSE(d.is_cpu());
  EXPECT_TRUE(Device("cuda").is_cuda());
  EXPECT_TRUE(Device("cpu").is_cpu());
  std::ostringstream os;
  os << d << " " << locus::kCUDA;
  EXPECT_EQ(os.str(), "opencl:1 cuda");
  std::unordered_set<Device> set{Device("cpu"), Device("cuda:0"), Device("cuda:1"), Device("cuda:0")};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_NE(std::hash<Device>()(Device("cuda:0")), std::hash<Device>()(Device("opencl:0")));
}

TEST(Device, ConstructorValidatesIndex) {
  EXPECT_THROW_MSG(Device(locus::kCPU, 1), locus::Error, "cpu has a single device");
  EXPECT_THROW_MSG(Device(locus::kCUDA, -2), locus::Error, "must be -1 (current device) or non-negative");
  EXPECT_NO_THROW(Device(locus::kCPU, 0));
}

TEST(Device, IndexOutOfRangeIsRejected) {
  EXPECT_THROW_MSG(Device("cuda:128"), locus::Error, "out of range");
}

// The tests that need OpenCL devices (cross-device errors, DataParallel over opencl:0/opencl:1,
// model parallel) skip when there are none. `make test` and CI ask PoCL for two devices
// (POCL_DEVICES="pthread pthread"), so here a missing device is a failure, not a silent skip of
// every cross-device path.
TEST(TestDevices, TheOpenCLDevicesThisRunAsksForArePresent) {
  const char* pocl = std::getenv("POCL_DEVICES");
  if (pocl == nullptr || *pocl == '\0')
    GTEST_SKIP() << "POCL_DEVICES is not set: this run asks for no particular OpenCL devices";
  std::istringstream words(pocl);
  int asked = 0;
  for (std::string w; words >> w;) ++asked;
  EXPECT_GE(locus::device_count(locus::kOpenCL), asked)
      << "POCL_DEVICES=\"" << pocl << "\" asks for " << asked
      << " PoCL devices; without them the OpenCL tests skip. scripts/install-deps installs PoCL.\n"
      << locus::collect_env();
}

}  // namespace device_test
