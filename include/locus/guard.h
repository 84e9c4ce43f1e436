#pragma once
// Scopes, both per thread and nestable:
//  - DeviceGuard: the current index of one device type (torch.cuda.device(1)); "cuda" and
//    cuda() without an index resolve to it. It does NOT change where factories put tensors.
//  - DefaultDeviceGuard / set_default_device: where factories put tensors that name no device
//    (torch.device("cuda:1") used as a context manager, torch.set_default_device).
#include <optional>

#include "locus/device.h"

namespace locus {

/// The current index of `type` on this thread (0 unless a DeviceGuard or set_device changed it).
DeviceIndex current_device_index(DeviceType type);
/// Sets the current index of `type` on this thread. Throws NotAvailableError for a device that
/// does not exist.
void set_current_device_index(DeviceType type, DeviceIndex index);
/// `d` with its index filled in: "cuda" -> "cuda:<current>"; cpu stays "cpu". Does not check
/// that the device exists.
Device resolve_device(Device d);
/// Throws NotAvailableError unless `d` (resolved) exists, listing the devices present.
void check_device_available(Device d);

class DeviceGuard {
 public:
  /// Makes `d.index()` current for `d.type()` until the guard ends (cpu: no effect).
  explicit DeviceGuard(Device d);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  Device original_device() const { return original_; }
  Device current_device() const { return current_; }

 private:
  Device original_, current_;
};

/// Where factories put tensors that name no device (cpu unless set). Per thread.
Device default_device();
void set_default_device(Device d);

class DefaultDeviceGuard {
 public:
  explicit DefaultDeviceGuard(Device d);
  ~DefaultDeviceGuard();
  DefaultDeviceGuard(const DefaultDeviceGuard&) = delete;
  DefaultDeviceGuard& operator=(const DefaultDeviceGuard&) = delete;

 private:
  Device previous_;
};

}  // namespace locus
