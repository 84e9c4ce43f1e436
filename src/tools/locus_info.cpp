// locus-info: what locus runs on here. Version and build, every backend and device with its
// allocator statistics (locus::collect_env), then the libraries and settings behind them: the CPU
// BLAS and the kernel it chose, the OpenCL ICD loader and platforms, CLBlast, the kernel cache
// folder and the environment variables locus reads.
//   locus-info                  human-readable
//   locus-info --json           one JSON object (also --format json / --format=json)
// Exit status: 0 printed, 1 collecting failed (the reason on stderr), 2 bad usage.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/cpu/blas.h"
#include "build_info.h"
#include "locus/locus.h"
#if LOCUS_WITH_OPENCL
#include "backends/gpu/kernel_cache.h"  // kernel_cache_dir()
#endif
#if LOCUS_WITH_CUDA && __has_include("backends/cuda/libraries.h")
#include "backends/cuda/libraries.h"  // NVRTC and cuBLAS, loaded at run time
#define LOCUS_INFO_CUDA_LIBRARIES 1
#endif

extern char** environ;

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kUsage = "usage: locus-info [--json | --format text|json] [--help] [--version]\n";
constexpr const char* kHelp =
    "Prints locus's version and build, every backend and device (memory, compute units, fp16,\n"
    "allocator statistics), which device best_device() picks and why, the CPU BLAS and the kernel\n"
    "it chose, the OpenCL ICD loader, platforms and CLBlast versions, the kernel cache folder and\n"
    "the environment variables in effect (LOCUS_*, CUDA_VISIBLE_DEVICES, POCL_DEVICES,\n"
    "OPENBLAS_CORETYPE).\n\n"
    "  --json               print one JSON object (the same as --format json)\n"
    "  --format text|json   the output format (default: text); --format=json works too\n"
    "  --version            print locus's version and exit\n"
    "  --help               print this help and exit\n\n"
    "Exit status: 0 printed; 1 collecting the report failed (the reason on stderr); 2 bad usage.\n";

// "OpenBLAS 0.3.21 (Zen kernel, 2 threads)" -> library, kernel and threads (src/backends/cpu/blas.cpp).
Json blas_info() {
  std::string s = locus::cpu::blas_name();
  Json j;
  j["description"] = s;
  size_t open = s.find(" (");
  j["library"] = s.substr(0, open);
  size_t kernel = s.find(" kernel", open);
  j["kernel"] = kernel == std::string::npos ? Json(nullptr) : Json(s.substr(open + 2, kernel - open - 2));
  size_t comma = s.rfind(", ");
  j["threads"] = comma == std::string::npos ? 1 : std::atoi(s.c_str() + comma + 2);
  // what serves the large float32 products instead, when anything does (oneDNN on AVX-512)
  const std::string large = locus::cpu::gemm_f32_large_name();
  j["large_sgemm"] = large.empty() ? Json(nullptr) : Json(large);
  return j;
}

// The file a library loaded in this process came from, with the links resolved
// ("/usr/lib/x86_64-linux-gnu/libclblast.so.1.5.3"); empty when none is loaded.
std::string loaded_library(const char* stem) {
  struct Find {
    const char* stem;
    std::string path;
  } find{stem, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Find*>(data);
        const char* name = info->dlpi_name;
        if (name == nullptr || std::strstr(name, f->stem) == nullptr) return 0;
        std::error_code ec;
        std::filesystem::path p = std::filesystem::canonical(name, ec);
        f->path = ec ? name : p.string();
        return 1;
      },
      &find);
  return find.path;
}

// "libclblast.so.1.5.3" -> "1.5.3" (Debian names the file after the library's version).
std::string version_from_file_name(const std::string& path) {
  size_t so = path.rfind(".so.");
  return so == std::string::npos ? "" : path.substr(so + 4);
}

// The OpenCL ICD loader (through its clGetICDLoaderInfoOCLICD extension) and each platform's
// version, asked of the libOpenCL that liblocus loaded; null when none is loaded.
Json opencl_info() {
  void* h = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return nullptr;
  using InfoFn = int (*)(unsigned, size_t, void*, size_t*);
  using GetAddressFn = void* (*)(const char*);
  using PlatformIdsFn = int (*)(unsigned, void**, unsigned*);
  using PlatformInfoFn = int (*)(void*, unsigned, size_t, void*, size_t*);
  auto get_address = reinterpret_cast<GetAddressFn>(dlsym(h, "clGetExtensionFunctionAddress"));
  auto platform_ids = reinterpret_cast<PlatformIdsFn>(dlsym(h, "clGetPlatformIDs"));
  auto platform_info = reinterpret_cast<PlatformInfoFn>(dlsym(h, "clGetPlatformInfo"));
  auto text = [](auto&& query) {
    char buf[512] = {0};
    return query(sizeof buf - 1, buf) == 0 ? std::string(buf) : std::string();
  };
  Json j;
  Json loader;
  loader["library"] = loaded_library("libOpenCL.so");
  if (auto info = get_address ? reinterpret_cast<InfoFn>(get_address("clGetICDLoaderInfoOCLICD")) : nullptr) {
    // CL_ICDL_NAME 3, CL_ICDL_VERSION 2, CL_ICDL_VENDOR 4, CL_ICDL_OCL_VERSION 1 (cl_ext.h)
    for (auto [key, param] : {std::pair{"name", 3u}, {"version", 2u}, {"vendor", 4u}, {"opencl", 1u}})
      loader[key] = text([&](size_t n, char* b) { return info(param, n, b, nullptr); });
  }
  j["icd_loader"] = loader;
  j["platforms"] = Json::array();
  unsigned n = 0;
  if (platform_ids && platform_info && platform_ids(0, nullptr, &n) == 0 && n > 0) {
    std::vector<void*> ids(n);
    platform_ids(n, ids.data(), nullptr);
    for (void* id : ids) {
      Json p;
      // CL_PLATFORM_NAME 0x0902, CL_PLATFORM_VENDOR 0x0903, CL_PLATFORM_VERSION 0x0901
      for (auto [key, param] : {std::pair{"name", 0x0902u}, {"vendor", 0x0903u}, {"version", 0x0901u}})
        p[key] = text([&](size_t len, char* b) { return platform_info(id, param, len, b, nullptr); });
      j["platforms"].push_back(p);
    }
  }
  dlclose(h);  // drops only the reference taken above
  return j;
}

Json clblast_info() {
  std::string path = loaded_library("libclblast.so");
  if (path.empty()) return nullptr;
  return Json{{"version", version_from_file_name(path)}, {"library", path}};
}

// Where compiled kernels are kept (src/backends/gpu/kernel_cache.h), and how many are there.
Json kernel_cache_info() {
#if LOCUS_WITH_OPENCL
  std::string dir = locus::gpu::kernel_cache_dir();
  Json j{{"path", dir}, {"exists", false}, {"files", 0}};
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_directory(dir, ec)) {
    j["exists"] = true;
    int files = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
      files += it->is_regular_file() ? 1 : 0;
    j["files"] = files;
  }
  return j;
#else
  return nullptr;  // no backend compiles kernels at run time in this build
#endif
}

// The environment variables locus (and the drivers it loads) read, as set for this process.
Json settings_info() {
  Json j = Json::object();
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    std::string name = kv.substr(0, eq);
    if (name.rfind("LOCUS_", 0) == 0 || name == "CUDA_VISIBLE_DEVICES" || name == "POCL_DEVICES" ||
        name == "OPENBLAS_CORETYPE")
      j[name] = eq == std::string::npos ? "" : kv.substr(eq + 1);
  }
  return j;
}

std::string str(const Json& j, const char* key) { return j.contains(key) ? j[key].get<std::string>() : ""; }

std::string text_report(const Json& r) {
  std::string o = "\nlibraries and settings:\n";
  o += "  BLAS:          " + str(r["blas"], "description") + "\n";
  if (r["blas"]["large_sgemm"].is_string()) o += "  large sgemm:   " + str(r["blas"], "large_sgemm") + "\n";
  if (r["opencl"].is_null()) {
    o += "  OpenCL:        no OpenCL library loaded\n";
  } else {
    const Json& l = r["opencl"]["icd_loader"];
    o += "  OpenCL ICD:    ";
    if (l.contains("name"))
      o += str(l, "name") + " " + str(l, "version") + " (" + str(l, "vendor") + ", " + str(l, "opencl") + "), ";
    o += str(l, "library") + "\n";
    for (const Json& p : r["opencl"]["platforms"])
      o += "  platform:      " + str(p, "name") + ": " + str(p, "version") + "\n";
  }
  const Json& cb = r["clblast"];
  o += "  CLBlast:       ";
  o += (cb.is_null() ? "not loaded" : str(cb, "version") + " (" + str(cb, "library") + ")") + "\n";
  if (const Json& kc = r["kernel_cache"]; !kc.is_null())
    o += "  kernel cache:  " + str(kc, "path") +
         (kc["exists"].get<bool>() ? " (" + std::to_string(kc["files"].get<int>()) + " files)" : " (not created yet)") +
         "\n";
  o += "  environment:  ";
  if (r["settings"].empty()) o += " no LOCUS_*, CUDA_VISIBLE_DEVICES, POCL_DEVICES or OPENBLAS_CORETYPE set\n";
  for (const auto& [k, v] : r["settings"].items())
    o += " " + k + "=" + v.get<std::string>() + "\n" + std::string(16, ' ');
  if (!r["settings"].empty()) o.resize(o.size() - 16);
  return o;
}

int usage_error(const std::string& what) {
  std::cerr << "locus-info: " << what << "; see --help\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string format = "text";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool inline_value = false;
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      inline_value = true;
    }
    auto no_value = [&] { return !inline_value || (usage_error(a + " takes no value"), false); };
    if (a == "--help" || a == "-h") {
      if (!no_value()) return 2;
      std::cout << kUsage << kHelp;
      return 0;
    } else if (a == "--version") {
      if (!no_value()) return 2;
      std::cout << "locus-info " << LOCUS_VERSION_STRING << "\n";
      return 0;
    } else if (a == "--json") {
      if (!no_value()) return 2;
      format = "json";
    } else if (a == "--format") {
      if (!inline_value) {
        if (i + 1 >= argc) return usage_error("--format needs a value: text or json");
        value = argv[++i];
      }
      if (value != "text" && value != "json") return usage_error("--format '" + value + "' is not text or json");
      format = value;
    } else {
      return usage_error("unknown argument '" + std::string(argv[i]) + "'");
    }
  }
  try {
    std::string env = locus::collect_env(format == "json");
    Json extra;
    extra["blas"] = blas_info();
    extra["opencl"] = opencl_info();
    extra["clblast"] = clblast_info();
    extra["kernel_cache"] = kernel_cache_info();
    extra["settings"] = settings_info();
#if LOCUS_INFO_CUDA_LIBRARIES
    extra["cuda_libraries"] = locus::cuda::libraries_report();
#endif
    if (format == "json") {
      Json j = Json::parse(env);
      for (const auto& [k, v] : extra.items()) j[k] = v;
      std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
    } else {
      std::cout << env << text_report(extra);
#if LOCUS_INFO_CUDA_LIBRARIES
      std::cout << "\nCUDA libraries: " << extra["cuda_libraries"].get<std::string>() << "\n";
#endif
    }
  } catch (const locus::Error& e) {
    std::cerr << "locus-info: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
