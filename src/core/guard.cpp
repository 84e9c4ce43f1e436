// Per-thread current device indices and the default device for factories.
#include <array>
#include <cstdlib>

#include "core/backend.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/guard.h"

namespace locus {
namespace {
thread_local std::array<DeviceIndex, kNumDeviceTypes> t_current{};  // all 0
thread_local bool t_has_default = false;
thread_local Device t_default = Device(kCPU);
Device g_default = Device(kCPU);  // set_default_device from another thread is not visible: per thread
}  // namespace

std::string available_devices_list();

DeviceIndex current_device_index(DeviceType type) { return t_current[static_cast<int>(type)]; }

void set_current_device_index(DeviceType type, DeviceIndex index) {
  if (type == kCPU) return;
  check_device_available(Device(type, index));
  t_current[static_cast<int>(type)] = index;
}

Device resolve_device(Device d) {
  if (d.is_cpu() || d.has_index()) return d;
  return Device(d.type(), current_device_index(d.type()));
}

void check_device_available(Device d) {
  d = resolve_device(d);
  if (d.is_cpu()) return;
  backend::Backend* b = backend::get(d.type());
  if (b == nullptr) {
    if (const backend::Registration* reg = backend::registration(d.type()))  // known, not built
      throw NotAvailableError("locus was built without " + reg->caps.display_name + " support, so " + d.str() +
                              " is not available; available: " + available_devices_list() + ".");
    throw NotAvailableError("device type '" + std::string(device_type_name(d.type())) +
                            "' has no backend in locus (it parses for PyTorch compatibility); available: " +
                            available_devices_list() + ".");
  }
  int n = b->device_count();
  if (d.index() >= n) {
    std::string msg = d.str() + " is not available: this machine has " + std::to_string(n) + " " +
                      device_type_name(d.type()) + " device" + (n == 1 ? "" : "s");
    if (n == 0) msg += " (" + b->unavailable_reason() + ")";
    msg += "; available: " + available_devices_list() + ".";
    throw NotAvailableError(msg);
  }
}

std::string available_devices_list() {
  std::string out;
  for (const Device& d : all_devices()) out += (out.empty() ? "" : ", ") + d.str();
  return out;
}

DeviceGuard::DeviceGuard(Device d) : original_(d), current_(d) {
  if (d.is_cpu()) return;
  original_ = Device(d.type(), current_device_index(d.type()));
  Device r = resolve_device(d);
  set_current_device_index(r.type(), r.index());
  current_ = r;
}

DeviceGuard::~DeviceGuard() {
  if (!original_.is_cpu()) t_current[static_cast<int>(original_.type())] = original_.index();
}

Device default_device() { return t_has_default ? t_default : g_default; }

void set_default_device(Device d) {
  if (!d.is_cpu()) check_device_available(d);
  t_default = d;
  t_has_default = true;
}

DefaultDeviceGuard::DefaultDeviceGuard(Device d) : previous_(default_device()) { set_default_device(d); }
DefaultDeviceGuard::~DefaultDeviceGuard() {
  t_default = previous_;
  t_has_default = true;
}

}  // namespace locus
