// dlopen of the driver and its function table (driver.h).
#include "backends/cuda/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace locus::cuda {

#define LOCUS_CU_STR2(x) #x
#define LOCUS_CU_STR(x) LOCUS_CU_STR2(x)

void Driver::load(const char* library) {
  dlerror();
  void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    reason = std::string("no driver: ") + library + " not found (" + (e ? e : "dlopen failed") +
             "); install the NVIDIA driver to use cuda devices";
    return;
  }
  std::string missing;
  auto resolve = [&](void** slot, const char* symbol, const char* fallback, bool required) {
    *slot = dlsym(lib, symbol);
    // a driver older than the header may only have the ABI-identical unversioned symbol
    if (!*slot && fallback && std::strcmp(symbol, fallback) != 0) *slot = dlsym(lib, fallback);
    if (!*slot && required) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  };
#define LOCUS_CU_FN(name)                                                                   \
  resolve(reinterpret_cast<void**>(&name), LOCUS_CU_STR(name),                              \
          std::strcmp(#name, "cuEventElapsedTime") == 0 ? #name : nullptr, true);
#define LOCUS_CU_OPT(name) resolve(reinterpret_cast<void**>(&name), LOCUS_CU_STR(name), nullptr, false);
#include "backends/cuda/driver_functions.inc"
#undef LOCUS_CU_OPT
#undef LOCUS_CU_FN
  if (!missing.empty()) {
    reason = std::string("no driver: ") + library + " lacks " + missing +
             " (a driver older than CUDA 11?); update the NVIDIA driver";
    dlclose(lib);
#define LOCUS_CU_FN(name) name = nullptr;
#define LOCUS_CU_OPT(name) name = nullptr;
#include "backends/cuda/driver_functions.inc"
#undef LOCUS_CU_OPT
#undef LOCUS_CU_FN
    return;
  }
  loaded = true;
  if (cuDriverGetVersion(&version) != CUDA_SUCCESS) version = 0;
}

const Driver& drv() noexcept {
  static const Driver* d = [] {
    auto* t = new Driver();  // never destroyed: other libraries may still call the driver at exit
    const char* lib = std::getenv("LOCUS_CUDA_DRIVER");
    t->load(lib && *lib ? lib : "libcuda.so.1");
    return t;
  }();
  return *d;
}

}  // namespace locus::cuda
