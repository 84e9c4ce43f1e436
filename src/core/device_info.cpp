// Device discovery, best_device() with its reasons, and the environment report (locus-info).
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "build_info.h"
#include "core/backend.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/guard.h"
#include "locus/memory.h"
#include "locus/parallel.h"
#include "locus/stream.h"

namespace locus {
namespace {

const char* pretty(DeviceType t) {
  switch (t) {
    case kCUDA: return "CUDA";
    case kOpenCL: return "OpenCL";
    case kCPU: return "CPU";
    default: return device_type_name(t);
  }
}

// Why a backend has no devices: not built, or the backend's own reason.
std::string reason_unavailable(DeviceType t) {
  backend::Backend* b = backend::get(t);
  if (b == nullptr) return std::string("not built (locus was configured without ") + pretty(t) + ")";
  if (b->device_count() == 0) {
    std::string r = b->unavailable_reason();
    return r.empty() ? "no device" : r;
  }
  return "";
}

std::string mib(int64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

int device_count(DeviceType t) {
  if (t == kCPU) return 1;
  backend::Backend* b = backend::get(t);
  return b == nullptr ? 0 : b->device_count();
}

bool is_available(DeviceType t) { return device_count(t) > 0; }

std::vector<Device> all_devices() {
  std::vector<Device> out{Device(kCPU)};
  for (DeviceType t : {kOpenCL, kCUDA}) {
    int n = device_count(t);
    for (int i = 0; i < n; ++i) out.emplace_back(t, static_cast<DeviceIndex>(i));
  }
  return out;
}

namespace {
struct Choice {
  Device device = Device(kCPU);
  std::string report;
};

Choice choose() {
  Choice c;
  std::ostringstream r;
  if (const char* env = std::getenv("LOCUS_DEVICE"); env != nullptr && *env != '\0') {
    Device d = Device(std::string(env));  // throws on a malformed string, quoting it
    check_device_available(d);
    c.device = resolve_device(d);
    r << "chosen " << c.device << ": overridden by LOCUS_DEVICE=" << env << "\n";
    c.report = r.str();
    return c;
  }
  bool chosen = false;
  auto take = [&](Device d, const std::string& why) {
    if (!chosen) {
      c.device = d;
      chosen = true;
      r << "chosen  " << d << ": " << why << "\n";
    } else {
      r << "skipped " << d << ": " << why << ", but " << c.device << " ranks higher\n";
    }
  };
  // 1. cuda
  if (int n = device_count(kCUDA); n > 0) take(Device(kCUDA, 0), "CUDA device (" + backend::get(kCUDA)->props(0).name + ")");
  else r << "skipped cuda: " << reason_unavailable(kCUDA) << "\n";
  // 2. an OpenCL GPU, 3. any OpenCL device
  int ncl = device_count(kOpenCL);
  if (ncl == 0) r << "skipped opencl: " << reason_unavailable(kOpenCL) << "\n";
  int first_gpu = -1;
  for (int i = 0; i < ncl; ++i)
    if (backend::get(kOpenCL)->props(i).is_gpu) { first_gpu = i; break; }
  if (first_gpu >= 0) take(Device(kOpenCL, static_cast<DeviceIndex>(first_gpu)), "OpenCL GPU (" + backend::get(kOpenCL)->props(first_gpu).name + ")");
  // An OpenCL driver that runs on the host CPU itself (PoCL) is the same hardware as the cpu
  // backend, reached through a slower path: we rank it below cpu (DESIGN.md ranks any OpenCL
  // device above cpu; on such a machine that made the demo several times slower).
  int first_other = -1;
  for (int i = 0; i < ncl && first_gpu < 0; ++i)
    if (!backend::get(kOpenCL)->props(i).runs_on_host_cpu) { first_other = i; break; }
  if (first_other >= 0)
    take(Device(kOpenCL, static_cast<DeviceIndex>(first_other)),
         "OpenCL device, not a GPU (" + backend::get(kOpenCL)->props(first_other).name + ")");
  if (ncl > 0 && first_gpu < 0 && first_other < 0)
    r << "skipped opencl:0: an OpenCL driver on the host CPU (" << backend::get(kOpenCL)->props(0).name
      << "); the cpu backend runs the same hardware faster\n";
  // 4. cpu
  take(Device(kCPU), "always available");
  c.report = r.str();
  return c;
}
}  // namespace

Device best_device() { return choose().device; }
std::string best_device_report() { return choose().report; }

DeviceDescription describe(Device d) {
  d = resolve_device(d);
  check_device_available(d);
  backend::Backend* b = backend::get(d.type());
  int i = d.index() < 0 ? 0 : d.index();
  backend::DeviceProps p = b->props(i);
  DeviceDescription out;
  out.device = d;
  out.name = p.name;
  out.vendor = p.vendor;
  out.driver_version = p.driver_version;
  out.extra = p.extra;
  out.total_memory = static_cast<int64_t>(p.total_memory);
  out.free_memory = static_cast<int64_t>(b->free_memory(i));
  out.compute_units = p.compute_units;
  out.fp16 = p.fp16;
  out.fp64 = p.fp64;
  out.is_gpu = p.is_gpu;
  out.runs_on_host_cpu = p.runs_on_host_cpu;
  return out;
}

std::string collect_env(bool json) {
  std::vector<Device> devs = all_devices();
  Device best = best_device();
  std::ostringstream o;
  if (json) {
    nlohmann::ordered_json j;
    j["version"] = LOCUS_VERSION_STRING;
    j["build"] = {{"type", LOCUS_BUILD_TYPE}, {"compiler", LOCUS_COMPILER}, {"backends", LOCUS_BUILD_BACKENDS},
                  {"num_threads", get_num_threads()}};
    j["backends"] = nlohmann::ordered_json::array();
    for (DeviceType t : {kCPU, kOpenCL, kCUDA})
      j["backends"].push_back({{"type", device_type_name(t)}, {"built", backend::get(t) != nullptr},
                               {"devices", device_count(t)}, {"reason", t == kCPU ? "" : reason_unavailable(t)}});
    j["best_device"] = best.str();
    j["devices"] = nlohmann::ordered_json::array();
    for (const Device& d : devs) {
      DeviceDescription dd = describe(d);
      nlohmann::ordered_json stats = nlohmann::ordered_json::object();
      for (const auto& [k, v] : memory_stats(d)) stats[k] = v;
      j["devices"].push_back({{"device", d.str()}, {"name", dd.name}, {"vendor", dd.vendor},
                              {"driver", dd.driver_version}, {"total_memory", dd.total_memory},
                              {"free_memory", dd.free_memory}, {"compute_units", dd.compute_units},
                              {"fp16", dd.fp16}, {"fp64", dd.fp64}, {"is_gpu", dd.is_gpu},
                              {"memory_stats", std::move(stats)}});
    }
    // invalid UTF-8 in a driver's strings is replaced rather than thrown
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }
  o << "locus " << LOCUS_VERSION_STRING << " (" << LOCUS_BUILD_TYPE << ", " << LOCUS_COMPILER << ")\n";
  o << "backends built: " << LOCUS_BUILD_BACKENDS << "; cpu threads: " << get_num_threads() << "\n\n";
  for (DeviceType t : {kCPU, kOpenCL, kCUDA}) {
    o << pretty(t) << ": ";
    if (t == kCPU) o << "1 device\n";
    else if (int n = device_count(t); n > 0) o << n << " device" << (n == 1 ? "" : "s") << "\n";
    else o << "unavailable: " << reason_unavailable(t) << "\n";
  }
  o << "\n";
  for (const Device& d : devs) {
    DeviceDescription dd = describe(d);
    o << d << (d == best ? "  (best)" : "") << "\n"
      << "  name:          " << dd.name << (dd.vendor.empty() ? "" : " [" + dd.vendor + "]") << "\n"
      << "  driver:        " << (dd.driver_version.empty() ? "-" : dd.driver_version) << "\n"
      << "  memory:        " << mib(dd.total_memory) << " total, " << mib(dd.free_memory) << " free\n"
      << "  compute units: " << dd.compute_units << (dd.is_gpu ? " (GPU)" : "") << "\n"
      << "  fp16: " << (dd.fp16 ? "yes" : "no") << "   fp64: " << (dd.fp64 ? "yes" : "no") << "\n";
    if (!dd.extra.empty()) o << "  notes:         " << dd.extra << "\n";
    auto s = memory_stats(d);
    o << "  allocator:     " << mib(s["allocated_bytes.current"]) << " allocated (peak " << mib(s["allocated_bytes.peak"])
      << "), " << mib(s["reserved_bytes.current"]) << " reserved (peak " << mib(s["reserved_bytes.peak"]) << "), "
      << s["num_allocs"] << " allocs, " << s["num_cache_hits"] << " cache hits, " << s["num_ooms"] << " OOMs\n";
  }
  o << "\nbest_device():\n" << best_device_report();
  return o.str();
}

#define LOCUS_TYPE_API(ns, TYPE)                                                                     \
  namespace ns {                                                                                     \
  bool is_available() { return locus::is_available(TYPE); }                                          \
  int device_count() { return locus::device_count(TYPE); }                                           \
  int current_device() { return current_device_index(TYPE); }                                        \
  void set_device(int index) { set_current_device_index(TYPE, static_cast<DeviceIndex>(index)); }   \
  std::string get_device_name(int index) {                                                           \
    return describe(Device(TYPE, static_cast<DeviceIndex>(index < 0 ? current_device() : index))).name; \
  }                                                                                                  \
  void synchronize(int index) {                                                                      \
    locus::synchronize(Device(TYPE, static_cast<DeviceIndex>(index < 0 ? current_device() : index))); \
  }                                                                                                  \
  }
LOCUS_TYPE_API(cuda, kCUDA)
LOCUS_TYPE_API(opencl, kOpenCL)
#undef LOCUS_TYPE_API

// Device(int) lives here, beside discovery, not in device.cpp: device.cpp is the value type and
// its parser, which the checkpoint parsers (and their fuzz targets) use without any backend.
// torch.device(0): the current accelerator type (torch.accelerator's order: cuda first; opencl is
// locus's other accelerator), never a string conversion of 0.
Device::Device(int index) : type_(DeviceType::CPU), index_(-1) {
  if (index < 0 || index > 127)
    throw Error("Device(" + std::to_string(index) + "): a device index must be in 0..127; pass a Device or a string "
                "such as \"cuda:0\" to name the type too.");
  for (DeviceType t : {DeviceType::CUDA, DeviceType::OpenCL}) {
    backend::Backend* b = backend::get(t);
    if (b != nullptr && b->device_count() > 0) {
      *this = Device(t, static_cast<DeviceIndex>(index));
      return;
    }
  }
  throw NotAvailableError("Device(" + std::to_string(index) +
                          "): an integer means an accelerator device (cuda, else opencl), and this machine has "
                          "none; name the device instead, e.g. Device(\"cpu\").");
}

}  // namespace locus
