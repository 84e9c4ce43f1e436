#pragma once
// Shared by discovery, ranking and the environment report (src/core/device_info.cpp).
#include <string>

#include "locus/device.h"

namespace locus {

/// "CUDA", "OpenCL", "CPU": the registered display name, else the type's own name.
std::string display_name(DeviceType t);
/// Why type `t` has no devices: "not built (...)", or the backend's own reason; "" when it has some.
std::string reason_unavailable(DeviceType t);

}  // namespace locus
