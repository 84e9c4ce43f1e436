#pragma once
// Device: where a tensor lives. Parsed with PyTorch's grammar "<type>[:<index>]".
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace locus {

/// Every device type PyTorch names (c10/core/DeviceType.h). Only kCPU, kOpenCL and kCUDA have
/// backends; the rest parse (so PyTorch's device strings keep working) but using one throws
/// NotAvailableError. The values are locus's own, not c10's: never store them, store str().
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  OpenCL = 2,
  MPS = 3,
  XPU = 4,
  HIP = 5,
  Meta = 6,
  Vulkan = 7,
  XLA = 8,
  IPU = 9,
  HPU = 10,
  MTIA = 11,
  PrivateUse1 = 12,
  MKLDNN = 13,
  OpenGL = 14,
  IDEEP = 15,
  FPGA = 16,
  MAIA = 17,
  ORT = 18,  // PyTorch 1.13's name for what 2.x calls MAIA; kept apart so str() round-trips
  VE = 19,
  Lazy = 20,
  Metal = 21,
};
constexpr int kNumDeviceTypes = 22;

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kOpenCL = DeviceType::OpenCL;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kXPU = DeviceType::XPU;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kVulkan = DeviceType::Vulkan;
constexpr DeviceType kXLA = DeviceType::XLA;
constexpr DeviceType kIPU = DeviceType::IPU;
constexpr DeviceType kHPU = DeviceType::HPU;
constexpr DeviceType kMTIA = DeviceType::MTIA;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;
constexpr DeviceType kMKLDNN = DeviceType::MKLDNN;
constexpr DeviceType kOPENGL = DeviceType::OpenGL;
constexpr DeviceType kOPENCL = DeviceType::OpenCL;  // libtorch's spelling
constexpr DeviceType kIDEEP = DeviceType::IDEEP;
constexpr DeviceType kFPGA = DeviceType::FPGA;
constexpr DeviceType kMAIA = DeviceType::MAIA;
constexpr DeviceType kORT = DeviceType::ORT;
constexpr DeviceType kVE = DeviceType::VE;
constexpr DeviceType kLazy = DeviceType::Lazy;
constexpr DeviceType kMetal = DeviceType::Metal;

using DeviceIndex = int8_t;

/// Lower-case name of a device type ("cpu", "cuda", "opencl", ...).
const char* device_type_name(DeviceType t);

class Device {
 public:
  /// Device(kCUDA) is "cuda" (the current CUDA device); Device(kCUDA, 1) is "cuda:1".
  /// Throws locus::Error for a negative index other than -1, or a CPU index other than 0.
  Device(DeviceType type, DeviceIndex index = -1);
  /// Parses "cpu", "cuda", "cuda:1", "opencl:0", ... Throws locus::Error quoting the string.
  Device(const std::string& str);
  /// As Device(std::string); a null pointer throws locus::Error.
  Device(const char* str);
  /// What torch.device(0) means: index `index` of the current accelerator type: cuda when a
  /// CUDA device is present, else opencl when an OpenCL device is, else locus::Error saying so.
  /// (A bare 0 would otherwise convert to a null `const char*`.)
  explicit Device(int index);

  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool is_opencl() const noexcept { return type_ == DeviceType::OpenCL; }
  bool is_meta() const noexcept { return type_ == DeviceType::Meta; }
  void set_index(DeviceIndex index);

  /// "cpu", "cuda:1", ...
  std::string str() const;

  bool operator==(const Device& o) const noexcept { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }

 private:
  DeviceType type_;
  DeviceIndex index_ = -1;
};

std::ostream& operator<<(std::ostream& os, const Device& d);
std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace locus

template <>
struct std::hash<locus::Device> {
  size_t operator()(const locus::Device& d) const noexcept {
    return (static_cast<size_t>(static_cast<uint8_t>(d.type())) << 16) ^
           static_cast<size_t>(static_cast<uint8_t>(d.index()));
  }
};
