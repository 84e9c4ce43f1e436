#pragma once
// A runtime's devices as its enumeration found them, with the one message for an index that
// does not exist. A runtime's singleton derives from it and fills devices_ (or reason_).
#include <memory>
#include <string>
#include <vector>

namespace locus::gpu {

/// Throws NotAvailableError: "[opencl] device opencl:3 does not exist: valid indices are 0..1.
/// Use an index below locus::opencl::device_count()." (`display` names the type in prose).
[[noreturn]] void no_such_device(const char* type, const char* display, int index, int count,
                                 const std::string& reason);

template <typename D>  // a device with props.name
class DeviceTable {
 public:
  DeviceTable(const char* type, const char* display) : type_(type), display_(display) {}
  int count() const noexcept { return static_cast<int>(devices_.size()); }
  /// Why there are no devices: "no driver: ...".
  const std::string& reason() const noexcept { return reason_; }
  /// Throws NotAvailableError for an index that does not exist.
  D& device(int index) {
    if (index < 0 || index >= count()) no_such_device(type_, display_, index, count(), reason_);
    return *devices_[static_cast<size_t>(index)];
  }
  /// "opencl:1 (pthread-haswell-AMD EPYC)": for messages; never throws.
  std::string label(int index) const {
    std::string s = std::string(type_) + ":" + std::to_string(index);
    if (index >= 0 && index < count()) s += " (" + devices_[static_cast<size_t>(index)]->props.name + ")";
    return s;
  }

 protected:
  std::vector<std::unique_ptr<D>> devices_;
  std::string reason_;

 private:
  const char* type_;
  const char* display_;
};

}  // namespace locus::gpu
