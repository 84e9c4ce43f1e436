// Discovery: device counts, all_devices() and describe(), from the backend registry; and
// Device(int), which picks the first accelerator type by rank.
#include "core/backend.h"
#include "core/discovery.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/guard.h"

namespace locus {

// "CUDA", "OpenCL", "CPU": the registered display name, else the type's own name.
std::string display_name(DeviceType t) {
  const backend::Registration* r = backend::registration(t);
  return r != nullptr ? r->caps.display_name : device_type_name(t);
}

// Why a backend has no devices: not built, or the backend's own reason.
std::string reason_unavailable(DeviceType t) {
  backend::Backend* b = backend::get(t);
  if (b == nullptr) return "not built (locus was configured without " + display_name(t) + ")";
  if (b->device_count() == 0) {
    std::string r = b->unavailable_reason();
    return r.empty() ? "no device" : r;
  }
  return "";
}


int device_count(DeviceType t) {
  const backend::Registration* r = backend::registration(t);
  if (r != nullptr && !r->caps.accelerator) return 1;  // the host CPU
  backend::Backend* b = backend::get(t);
  return b == nullptr ? 0 : b->device_count();
}

bool is_available(DeviceType t) { return device_count(t) > 0; }

std::vector<Device> all_devices() {
  std::vector<Device> out;
  for (const backend::Registration& r : backend::registrations()) {
    if (!r.caps.accelerator) {
      out.emplace_back(r.caps.type);
      continue;
    }
    int n = device_count(r.caps.type);
    for (int i = 0; i < n; ++i) out.emplace_back(r.caps.type, static_cast<DeviceIndex>(i));
  }
  return out;
}

DeviceDescription describe(Device d) {
  d = resolve_device(d);
  check_device_available(d);
  backend::Backend* b = backend::get(d.type());
  int i = backend::device_index(d);
  backend::DeviceProps p = b->props(i);
  DeviceDescription out;
  static_cast<DeviceProperties&>(out) = p;
  out.device = d;
  out.free_memory = static_cast<int64_t>(b->free_memory(i));
  return out;
}


// Device(int) lives here, beside discovery, not in device.cpp: device.cpp is the value type and
// its parser, which the checkpoint parsers (and their fuzz targets) use without any backend.
// torch.device(0): the current accelerator type (torch.accelerator's order: cuda first; opencl is
// locus's other accelerator), never a string conversion of 0.
Device::Device(int index) : type_(DeviceType::CPU), index_(-1) {
  if (index < 0 || index > 127)
    throw Error("Device(" + std::to_string(index) + "): a device index must be in 0..127; pass a Device or a string "
                "such as \"cuda:0\" to name the type too.");
  for (const backend::Registration* reg : backend::accelerators_by_rank()) {
    if (reg->backend != nullptr && reg->backend->device_count() > 0) {
      *this = Device(reg->caps.type, static_cast<DeviceIndex>(index));
      return;
    }
  }
  throw NotAvailableError("Device(" + std::to_string(index) +
                          "): an integer means an accelerator device (cuda, else opencl), and this machine has "
                          "none; name the device instead, e.g. Device(\"cpu\").");
}

}  // namespace locus
