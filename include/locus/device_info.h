#pragma once
// Discovery: what devices exist and what their drivers say about them. Ranking (best_device) is
// in locus/best_device.h, the environment report in locus/collect_env.h, the PyTorch-named
// per-type functions (locus::cuda::, locus::opencl::) in locus/accelerators.h; all included here.
#include <cstddef>
#include <string>
#include <vector>

#include "locus/device.h"

namespace locus {

/// True when locus was built with a backend for `t` and at least one device of that type exists.
bool is_available(DeviceType t);
/// Devices of type `t` (0 when not built or no driver; never throws).
int device_count(DeviceType t);
/// Every device present, in the backends' registration order: cpu first, then opencl:0.., cuda:0...
std::vector<Device> all_devices();

/// What a device's driver reports (the backends fill it: src/core/backend.h).
struct DeviceProperties {
  std::string name, vendor, driver_version;
  std::string extra;              // backend-specific notes for locus-info (compute capability, ...)
  size_t total_memory = 0;        // bytes
  int compute_units = 0;
  size_t max_work_group_size = 0;
  bool fp16 = false;              // half arithmetic supported
  bool fp64 = false;
  bool is_gpu = false;
  bool runs_on_host_cpu = false;  // an accelerator API driving the host's own CPU (OpenCL on PoCL)
};
/// A device's properties, with the device and its free memory now.
struct DeviceDescription : DeviceProperties {
  Device device = Device(kCPU);
  int64_t free_memory = 0;  // bytes, as the driver reports it
};
DeviceDescription describe(Device d);

}  // namespace locus

#include "locus/accelerators.h"
#include "locus/best_device.h"
#include "locus/collect_env.h"
