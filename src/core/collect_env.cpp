// The environment report (locus-info): build, backends, devices with their allocator statistics,
// and best_device()'s reasons.
#include <sstream>

#include <nlohmann/json.hpp>

#include "build_info.h"
#include "core/backend.h"
#include "core/discovery.h"
#include "locus/device_info.h"
#include "locus/memory.h"
#include "locus/parallel.h"

namespace locus {
namespace {
std::string mib(int64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

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
    for (const backend::Registration& reg : backend::registrations()) {
      DeviceType t = reg.caps.type;
      j["backends"].push_back({{"type", device_type_name(t)}, {"built", reg.backend != nullptr},
                               {"devices", device_count(t)}, {"reason", reg.caps.accelerator ? reason_unavailable(t) : ""}});
    }
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
  for (const backend::Registration& reg : backend::registrations()) {
    DeviceType t = reg.caps.type;
    o << reg.caps.display_name << ": ";
    if (!reg.caps.accelerator) o << "1 device\n";
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

}  // namespace locus
