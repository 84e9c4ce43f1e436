// best_device(): the accelerators by rank, each one's first GPU, else its first device that is not
// the host CPU, else cpu; with the reasons (best_device_report()).
#include <cstdlib>
#include <sstream>

#include "core/backend.h"
#include "core/discovery.h"
#include "locus/device_info.h"
#include "locus/guard.h"

namespace locus {
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
  // The accelerators by rank (cuda, then opencl): each one's first GPU, else its first device that
  // is not the host CPU. An accelerator API that runs on the host CPU itself (OpenCL on PoCL) is
  // the same hardware as the cpu backend, reached through a slower path: it ranks below cpu
  // (docs/architecture.md; ranking every OpenCL device above cpu made the demo several times
  // slower on such a machine).
  for (const backend::Registration* reg : backend::accelerators_by_rank()) {
    const DeviceType t = reg->caps.type;
    const std::string& name = reg->caps.display_name;
    int n = device_count(t);
    if (n == 0) {
      r << "skipped " << device_type_name(t) << ": " << reason_unavailable(t) << "\n";
      continue;
    }
    auto props = [&](int i) { return reg->backend->props(i); };
    int first_gpu = -1, first_other = -1;
    for (int i = 0; i < n && first_gpu < 0; ++i)
      if (props(i).is_gpu) first_gpu = i;
    for (int i = 0; i < n && first_gpu < 0 && first_other < 0; ++i)
      if (!props(i).runs_on_host_cpu) first_other = i;
    if (first_gpu >= 0)
      take(Device(t, static_cast<DeviceIndex>(first_gpu)), name + " GPU (" + props(first_gpu).name + ")");
    else if (first_other >= 0)
      take(Device(t, static_cast<DeviceIndex>(first_other)), name + " device, not a GPU (" + props(first_other).name + ")");
    else
      r << "skipped " << Device(t, 0) << ": an " << name << " driver on the host CPU (" << props(0).name
        << "); the cpu backend runs the same hardware faster\n";
  }
  // 4. cpu
  take(Device(kCPU), "always available");
  c.report = r.str();
  return c;
}
}  // namespace

Device best_device() { return choose().device; }
std::string best_device_report() { return choose().report; }

}  // namespace locus
