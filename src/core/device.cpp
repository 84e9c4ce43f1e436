// Device strings with PyTorch's grammar "<type>[:<index>]" (README.md), stricter on
// purpose: "cpu" takes no index other than 0.
#include "locus/device.h"

#include <cctype>
#include <ostream>

#include "locus/error.h"

namespace locus {
namespace {

struct TypeName {
  const char* name;
  DeviceType type;
};
constexpr TypeName kTypeNames[] = {
    {"cpu", DeviceType::CPU},       {"cuda", DeviceType::CUDA},     {"opencl", DeviceType::OpenCL},
    {"mps", DeviceType::MPS},       {"xpu", DeviceType::XPU},       {"hip", DeviceType::HIP},
    {"meta", DeviceType::Meta},     {"vulkan", DeviceType::Vulkan}, {"xla", DeviceType::XLA},
    {"ipu", DeviceType::IPU},       {"hpu", DeviceType::HPU},       {"mtia", DeviceType::MTIA},
    {"privateuseone", DeviceType::PrivateUse1}, {"mkldnn", DeviceType::MKLDNN}, {"opengl", DeviceType::OpenGL},
    {"ideep", DeviceType::IDEEP},   {"fpga", DeviceType::FPGA},     {"maia", DeviceType::MAIA},
    {"ort", DeviceType::ORT},       {"ve", DeviceType::VE},         {"lazy", DeviceType::Lazy},
    {"metal", DeviceType::Metal},
};

constexpr const char* kExpected =
    "expected '<type>' or '<type>:<index>' with a lower-case type (cpu, cuda, opencl, mps, xpu, "
    "hip, meta, ...) and a non-negative index without sign or leading zeros, e.g. 'cuda:1'";

[[noreturn]] void bad(const std::string& s, const std::string& why, const std::string& hint = "") {
  std::string msg = "Device(\"" + s + "\"): invalid device string: " + why + "; " + kExpected + ".";
  if (!hint.empty()) msg += " Did you mean \"" + hint + "\"?";
  throw Error(msg);
}

// The likely intent behind an unknown type name, if any.
std::string suggest(const std::string& type) {
  std::string lower;
  for (char c : type) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& t : kTypeNames)
    if (lower == t.name) return t.name;
  if (lower == "gpu" || lower == "nvidia" || lower == "cud" || lower == "cuda0") return "cuda";
  if (lower == "cl" || lower == "ocl" || lower == "open_cl") return "opencl";
  if (lower == "cpu0" || lower == "host") return "cpu";
  // one edit away from a known name
  for (const auto& t : kTypeNames) {
    std::string n = t.name;
    if (n.size() == lower.size() + 1 && n.compare(0, lower.size(), lower) == 0) return n;
  }
  return "";
}

std::string non_null(const char* str) {
  if (str == nullptr)
    throw Error("Device(nullptr): the device string is a null pointer; pass a string such as \"cuda:0\", or "
                "Device(locus::kCUDA, 0).");
  return str;
}

}  // namespace

const char* device_type_name(DeviceType t) {
  for (const auto& n : kTypeNames)
    if (n.type == t) return n.name;
  return "unknown";
}

Device::Device(DeviceType type, DeviceIndex index) : type_(type), index_(index) {
  if (index < -1)
    throw Error("Device(" + std::string(device_type_name(type)) + ", " + std::to_string(index) +
                "): device index must be -1 (current device) or non-negative, got " +
                std::to_string(index) + ".");
  if (type == DeviceType::CPU && index > 0)
    throw Error("Device(cpu, " + std::to_string(index) +
                "): cpu has a single device, index 0; use Device(kCPU) or \"cpu\".");
}

void Device::set_index(DeviceIndex index) { *this = Device(type_, index); }

Device::Device(const char* str) : Device(non_null(str)) {}

Device::Device(const std::string& s) : type_(DeviceType::CPU), index_(-1) {
  if (s.empty()) bad(s, "the string is empty");
  size_t colon = s.find(':');
  std::string type = s.substr(0, colon);
  if (type.empty()) bad(s, "the device type is missing before ':'");
  for (char c : type) {
    if (!std::islower(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) &&
        c != '_')
      bad(s, "'" + type + "' is not a device type", suggest(type));
  }
  bool found = false;
  for (const auto& t : kTypeNames)
    if (type == t.name) { type_ = t.type; found = true; }
  if (!found) {
    std::string hint = suggest(type);
    // "cuda0": a type name followed directly by digits
    if (hint.empty()) {
      for (const auto& t : kTypeNames) {
        std::string n = t.name;
        if (type.size() > n.size() && type.compare(0, n.size(), n) == 0 &&
            std::isdigit(static_cast<unsigned char>(type[n.size()])))
          hint = n + ":" + type.substr(n.size());
      }
    } else if (type.size() > 4 && type.compare(0, 4, "cuda") == 0) {
      hint = "cuda:" + type.substr(4);
    }
    bad(s, "unknown device type '" + type + "'", hint);
  }
  if (colon == std::string::npos) return;
  std::string idx = s.substr(colon + 1);
  if (idx.empty()) bad(s, "the index after ':' is missing", type);
  for (char c : idx)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      bad(s, "the index '" + idx + "' is not a non-negative decimal number");
  if (idx.size() > 1 && idx[0] == '0') bad(s, "the index '" + idx + "' has a leading zero",
                                           type + ":" + std::to_string(std::stoll(idx.substr(0, 18))));
  if (idx.size() > 3 || std::stoi(idx) > 127) bad(s, "the index " + idx + " is out of range (at most 127)");
  int value = std::stoi(idx);
  if (type_ == DeviceType::CPU && value != 0)
    bad(s, "cpu has a single device and takes no index other than 0", "cpu");
  index_ = static_cast<DeviceIndex>(value);
}

std::string Device::str() const {
  std::string out = device_type_name(type_);
  if (has_index()) out += ":" + std::to_string(static_cast<int>(index_));
  return out;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) { return os << device_type_name(t); }

}  // namespace locus
