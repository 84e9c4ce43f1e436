// dlopen of NVRTC and cuBLAS and their function tables (libraries.h).
#include "backends/cuda/libraries.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "locus/error.h"

namespace locus::cuda {
namespace {

#define LOCUS_LIB_STR2(x) #x
#define LOCUS_LIB_STR(x) LOCUS_LIB_STR2(x)

// The sonames of the toolkit we were built against: libX.so.<major> (CUDA 11 names NVRTC
// libnvrtc.so.11.2), unless `env` names one.
std::vector<std::string> candidates(const char* env, const std::string& base) {
  if (const char* e = std::getenv(env); e && *e) return {e};
  int major = CUDA_VERSION / 1000;
  std::vector<std::string> out{base + ".so." + std::to_string(major)};
  if (major == 11 && base == "libnvrtc") out.push_back("libnvrtc.so.11.2");
  return out;
}

// Opens the first candidate that loads; resolves each entry point with `resolve(lib, missing)`.
// On failure `loaded` stays false and `reason` says what is missing and how to get it.
template <typename Table, typename Resolve>
void load(Table& t, const char* what, const char* env, const std::string& base, const char* package,
          Resolve resolve) {
  std::string errors;
  void* lib = nullptr;
  for (const std::string& name : candidates(env, base)) {
    dlerror();
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    t.library = name;
    if (lib) break;
    const char* e = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : name + ": dlopen failed");
  }
  if (!lib) {
    t.reason = std::string(what) + " not found (" + errors + "); install " + package + " or set " + env +
               " to the library's path";
    return;
  }
  std::string missing;
  resolve(lib, missing);
  if (!missing.empty()) {
    t.reason = std::string(what) + " in " + t.library + " lacks " + missing + "; install the " + what +
               " of CUDA " + std::to_string(CUDA_VERSION / 1000) + " or set " + env;
    dlclose(lib);
    t = Table{t.loaded, t.library, t.reason};
    return;
  }
  t.loaded = true;
}

void resolve_into(void* lib, void** slot, const char* symbol, std::string& missing) {
  *slot = dlsym(lib, symbol);
  if (!*slot) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
}

}  // namespace

const Nvrtc& nvrtc() noexcept {
  static const Nvrtc* table = [] {
    auto* t = new Nvrtc();
    load(*t, "NVRTC", "LOCUS_NVRTC_LIBRARY", "libnvrtc", "the CUDA toolkit's NVRTC (cuda-nvrtc)",
         [t](void* lib, std::string& missing) {
#define LOCUS_RESOLVE_FN(name) resolve_into(lib, reinterpret_cast<void**>(&t->name), LOCUS_LIB_STR(name), missing);
           LOCUS_NVRTC_FUNCTIONS(LOCUS_RESOLVE_FN)
         });
    return t;
  }();
  return *table;
}

const Cublas& cublas() noexcept {
  static const Cublas* table = [] {
    auto* t = new Cublas();
    load(*t, "cuBLAS", "LOCUS_CUBLAS_LIBRARY", "libcublas", "the CUDA toolkit's cuBLAS (libcublas)",
         [t](void* lib, std::string& missing) {
#define LOCUS_RESOLVE_TYPED_FN(name, type) LOCUS_RESOLVE_FN(name)
           LOCUS_CUBLAS_FUNCTIONS(LOCUS_RESOLVE_FN, LOCUS_RESOLVE_TYPED_FN)
#undef LOCUS_RESOLVE_TYPED_FN
#undef LOCUS_RESOLVE_FN
         });
    return t;
  }();
  return *table;
}

const Nvrtc& require_nvrtc(const char* what) {
  const Nvrtc& n = nvrtc();
  if (!n.loaded) throw NotAvailableError(std::string("[cuda] ") + what + " needs NVRTC: " + n.reason + ".");
  return n;
}

const Cublas& require_cublas(const char* what) {
  const Cublas& c = cublas();
  if (!c.loaded) throw NotAvailableError(std::string("[cuda] ") + what + " needs cuBLAS: " + c.reason + ".");
  return c;
}

std::string libraries_report() {
  std::string out;
  const Nvrtc& n = nvrtc();
  int major = 0, minor = 0;
  if (n.loaded && n.nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
    out = "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " (" + n.library + ")";
  else
    out = n.reason;
  const Cublas& c = cublas();
  int v[3] = {0, 0, 0};
  if (c.loaded && c.cublasGetProperty(MAJOR_VERSION, &v[0]) == CUBLAS_STATUS_SUCCESS &&
      c.cublasGetProperty(MINOR_VERSION, &v[1]) == CUBLAS_STATUS_SUCCESS &&
      c.cublasGetProperty(PATCH_LEVEL, &v[2]) == CUBLAS_STATUS_SUCCESS)
    out += "; cuBLAS " + std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]) + " (" +
           c.library + ")";
  else if (c.loaded)
    out += "; cuBLAS (" + c.library + ")";
  else
    out += "; " + c.reason;
  return out;
}

}  // namespace locus::cuda
