// Every device type PyTorch's grammar parses (c10/core/Device.cpp) parses in locus too, prints
// back the same, and is reported unavailable (NotAvailableError) at first use
// (include/locus/device.h, src/core/device.cpp, src/core/guard.cpp).
#include <string>

#include "testing.h"

using namespace locus;

namespace device_types_test {

namespace {
struct TypeCase {
  const char* name;
  DeviceType type;
};
// PyTorch 2.x's list, plus 1.13's "ort" (now "maia") and "metal" (a DeviceType PyTorch names).
constexpr TypeCase kUnbuiltTypes[] = {
    {"mkldnn", kMKLDNN}, {"opengl", kOPENGL}, {"ideep", kIDEEP},       {"hip", kHIP},   {"ve", kVE},
    {"fpga", kFPGA},     {"maia", kMAIA},     {"ort", kORT},           {"xla", kXLA},   {"lazy", kLazy},
    {"vulkan", kVulkan}, {"metal", kMetal},   {"xpu", kXPU},           {"mps", kMPS},   {"meta", kMeta},
    {"hpu", kHPU},       {"mtia", kMTIA},     {"ipu", kIPU},           {"privateuseone", kPrivateUse1},
};
}  // namespace

TEST(DeviceTypes, EveryPyTorchTypeParsesAndPrintsBack) {
  for (const TypeCase& c : kUnbuiltTypes) {
    Device d(c.name);
    EXPECT_EQ(d.type(), c.type) << c.name;
    EXPECT_FALSE(d.has_index()) << c.name;
    EXPECT_EQ(d.str(), c.name);
    EXPECT_EQ(std::string(device_type_name(c.type)), c.name);
    Device indexed(std::string(c.name) + ":3");
    EXPECT_EQ(indexed, Device(c.type, 3)) << c.name;
    EXPECT_EQ(indexed.str(), std::string(c.name) + ":3");
  }
  // the types with a backend keep their names
  EXPECT_EQ(Device("cpu").type(), kCPU);
  EXPECT_EQ(Device("cuda:1").type(), kCUDA);
  EXPECT_EQ(Device("opencl:1").type(), kOPENCL);
}

TEST(DeviceTypes, EveryTypeWithoutABackendIsNotAvailableAtFirstUse) {
  for (const TypeCase& c : kUnbuiltTypes) {
    std::string expected = "device type '" + std::string(c.name) + "' has no backend in locus";
    EXPECT_THROW_MSG(zeros({2}, device(Device(c.name))), NotAvailableError, expected);
    EXPECT_THROW_MSG(ones({2}).to(c.name), NotAvailableError, expected);
    EXPECT_THROW_MSG(check_device_available(Device(c.type, 0)), NotAvailableError, expected);
    EXPECT_FALSE(is_available(c.type)) << c.name;
    EXPECT_EQ(device_count(c.type), 0) << c.name;
  }
}

TEST(DeviceTypes, NamesAreCaseSensitiveAndSuggestTheLowerCaseForm) {
  EXPECT_THROW_MSG(Device("XLA:0"), Error, "Did you mean \"xla\"?");
  EXPECT_THROW_MSG(Device("Metal"), Error, "Did you mean \"metal\"?");
  EXPECT_THROW_MSG(Device("tpu"), Error, "unknown device type 'tpu'");
}

}  // namespace device_types_test
