#pragma once
// What devices exist, which is best, and why.
#include <string>
#include <vector>

#include "locus/device.h"

namespace locus {

/// True when locus was built with a backend for `t` and at least one device of that type exists.
bool is_available(DeviceType t);
/// Devices of type `t` (0 when not built or no driver; never throws).
int device_count(DeviceType t);
/// Every device present, cpu first, then opencl:0.., cuda:0...
std::vector<Device> all_devices();
/// cuda, then an OpenCL GPU, then an OpenCL device that is not the host CPU, then cpu (an OpenCL
/// driver on the host CPU, such as PoCL, is skipped: cpu is faster there); LOCUS_DEVICE overrides.
Device best_device();
/// One line per candidate saying why it was chosen or skipped.
std::string best_device_report();

struct DeviceDescription {
  Device device = Device(kCPU);
  std::string name, vendor, driver_version, extra;
  int64_t total_memory = 0, free_memory = 0;
  int compute_units = 0;
  bool fp16 = false, fp64 = false, is_gpu = false;
  bool runs_on_host_cpu = false;  // an OpenCL driver on the host CPU (PoCL)
};
DeviceDescription describe(Device d);

/// Version, build options, backends (with the reason a type is unavailable) and every device
/// with its allocator statistics; as text, or as JSON when `json` is true (what locus-info prints).
std::string collect_env(bool json = false);

namespace cuda {
bool is_available();
int device_count();
int current_device();
void set_device(int index);
std::string get_device_name(int index = -1);
void synchronize(int index = -1);
}  // namespace cuda
namespace opencl {
bool is_available();
int device_count();
int current_device();
void set_device(int index);
std::string get_device_name(int index = -1);
void synchronize(int index = -1);
}  // namespace opencl

}  // namespace locus
