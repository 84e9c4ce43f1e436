// The backend registry: one slot per device type, filled once from the generated list
// (registry_gen.cpp, one line per locus_add_backend), plus anything registered later (tests).
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

#include "core/backend.h"
#include "locus/error.h"

namespace locus::backend {

void register_all_backends();  // generated (registry_gen.cpp)

namespace {
struct Registry {
  std::array<std::unique_ptr<Backend>, kNumDeviceTypes> owned;
  std::vector<Registration> order;
};
Registry& registry() {
  static Registry r;
  return r;
}
std::once_flag g_once;
std::array<Backend*, kNumDeviceTypes> g_fast{};  // raw pointers for the hot path
bool g_ready = false;
thread_local bool t_generating = false;  // inside register_all_backends()

void ensure_registered() {
  if (!__atomic_load_n(&g_ready, __ATOMIC_ACQUIRE)) {
    std::call_once(g_once, [] {
      t_generating = true;
      register_all_backends();
      t_generating = false;
      __atomic_store_n(&g_ready, true, __ATOMIC_RELEASE);
    });
  }
}
}  // namespace

void register_backend(std::unique_ptr<Backend> b, Capabilities caps) {
  if (!t_generating) ensure_registered();  // the built-in backends come first
  Registry& r = registry();
  int i = static_cast<int>(caps.type);
  if (b != nullptr && b->type() != caps.type)
    throw Error(std::string("[register_backend] the backend serves ") + device_type_name(b->type()) +
                " but is registered as " + device_type_name(caps.type) + "; give it its own type.");
  Registration reg{std::move(caps), b.get()};
  auto same = std::find_if(r.order.begin(), r.order.end(), [&](const Registration& e) { return e.caps.type == reg.caps.type; });
  if (same != r.order.end()) *same = reg;
  else r.order.push_back(reg);
  g_fast[i] = b.get();
  r.owned[i] = std::move(b);
}

const std::vector<Registration>& registrations() noexcept {
  ensure_registered();
  return registry().order;
}

std::vector<const Registration*> accelerators_by_rank() {
  std::vector<const Registration*> out;
  for (const Registration& r : registrations())
    if (r.caps.accelerator) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const Registration* a, const Registration* b) { return a->caps.rank > b->caps.rank; });
  return out;
}

const Registration* registration(DeviceType t) noexcept {
  for (const Registration& r : registrations())
    if (r.caps.type == t) return &r;
  return nullptr;
}

Backend* get(DeviceType t) noexcept {
  ensure_registered();
  int i = static_cast<int>(t);
  return (i >= 0 && i < kNumDeviceTypes) ? g_fast[i] : nullptr;
}

Backend& backend_for(Device d) {
  Backend* b = get(d.type());
  if (b == nullptr)
    throw NotAvailableError(std::string("locus was built without ") + device_type_name(d.type()) +
                            " support; device " + d.str() + " is not available.");
  return *b;
}

}  // namespace locus::backend
