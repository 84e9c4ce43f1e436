// The backend registry: one slot per device type, filled once from the generated list.
#include <array>
#include <memory>
#include <mutex>

#include "core/backend.h"

namespace locus::backend {

void register_all_backends();  // generated (registry_gen.cpp)

namespace {
std::array<std::unique_ptr<Backend>, kNumDeviceTypes>& slots() {
  static std::array<std::unique_ptr<Backend>, kNumDeviceTypes> s;
  return s;
}
std::once_flag g_once;
std::array<Backend*, kNumDeviceTypes> g_fast{};  // raw pointers for the hot path
bool g_ready = false;
}  // namespace

void register_backend(std::unique_ptr<Backend> b) {
  int i = static_cast<int>(b->type());
  g_fast[i] = b.get();
  slots()[i] = std::move(b);
}

Backend* get(DeviceType t) noexcept {
  if (!__atomic_load_n(&g_ready, __ATOMIC_ACQUIRE)) {
    std::call_once(g_once, [] {
      register_all_backends();
      __atomic_store_n(&g_ready, true, __ATOMIC_RELEASE);
    });
  }
  int i = static_cast<int>(t);
  return (i >= 0 && i < kNumDeviceTypes) ? g_fast[i] : nullptr;
}

}  // namespace locus::backend
