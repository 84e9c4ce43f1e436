#include "backends/cuda/program.h"

#include <algorithm>
#include <cstring>

#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/libraries.h"
#include "backends/gpu/check.h"
#include "backends/gpu/kernel_cache.h"
#include "kernels/sources.h"
#include "locus/error.h"

namespace locus::cuda {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

const std::vector<int>& supported_archs() {
  static const std::vector<int> archs = [] {
    int n = 0;
    std::vector<int> v;
    const Nvrtc& nv = require_nvrtc("choosing a kernel target");
    if (nv.nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
      v.resize(static_cast<size_t>(n));
      if (nv.nvrtcGetSupportedArchs(v.data()) != NVRTC_SUCCESS) v.clear();
    }
    std::sort(v.begin(), v.end());
    return v;
  }();
  return archs;
}

}  // namespace

gpu::DiskCache& disk_cache() {
  static gpu::DiskCache cache("LOCUSCU1", ".cudabin");
  return cache;
}

const std::vector<KernelUse>& kernel_uses() {
  static const std::vector<KernelUse> uses = {
      {"binary.cl", "binary", false},         {"unary.cl", "unary", false},
      {"copy.cl", "copy_cast", false},        {"copy.cl", "fill", false},
      {"copy.cl", "fill_linear", false},      {"copy.cl", "where_select", false},
      {"reduce.cl", "reduce_serial", false},  {"reduce.cl", "reduce_group", false},
      {"reduce.cl", "reduce_partial", false}, {"reduce.cl", "reduce_finish", false},
      {"reduce.cl", "softmax_serial", true},  {"reduce.cl", "softmax_group", true},
      {"reduce.cl", "log_softmax_nll", true}, {"reduce.cl", "log_softmax_nll_backward", true},
      {"index.cl", "index_op", false},        {"im2col.cl", "im2col", false},
      {"im2col.cl", "col2im", false},         {"random.cl", "random_fill", false},
      {"gemm.cl", "gemm_tiled", false},       {"amp.cl", "amp_unscale", true},
      {"pool.cl", "max_pool2d", false},       {"pool.cl", "max_pool2d_backward", false},
      {"optim.cl", "adam_step", true},        {"conv.cl", "conv2d_tiled", true},
      {"conv.cl", "conv2d_weight_grad", true}, {"conv.cl", "conv2d_weight_grad_sum", true},
  };
  return uses;
}

const std::vector<ScalarType>& kernel_dtypes() {
  static const std::vector<ScalarType> dts = {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kShort, kChar, kByte, kBool};
  return dts;
}

std::vector<std::string> build_options(ScalarType dtype) {
  if (std::find(kernel_dtypes().begin(), kernel_dtypes().end(), dtype) == kernel_dtypes().end())
    throw BackendError(std::string("[cuda] no kernels for dtype ") + dtype_name(dtype) + ".");
  return {gpu::dtype_define(dtype), "-DHAS_FP64", "-DHAS_FP16", "-DHAS_INT64_ATOMICS", "--fmad=false"};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (!nvrtc().loaded || nvrtc().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string target_arch(int major, int minor) {
  int cc = major * 10 + minor;
  const std::vector<int>& archs = supported_archs();
  if (std::find(archs.begin(), archs.end(), cc) != archs.end()) return "sm_" + std::to_string(cc);
  int best = 0;
  for (int a : archs)
    if (a <= cc) best = a;
  if (best == 0)
    throw BackendError("[cuda] compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                       " is older than any target NVRTC " + nvrtc_version() + " supports (oldest: " +
                       (archs.empty() ? std::string("none") : std::to_string(archs.front() / 10) + "." +
                                                                  std::to_string(archs.front() % 10)) +
                       "). Build locus against an older CUDA toolkit for this GPU.");
  return "compute_" + std::to_string(best);
}

Compiled compile(const std::string& source, const std::string& label, const std::string& arch,
                 const std::vector<std::string>& options) {
  const Nvrtc& nv = require_nvrtc("compiling kernels");
  nvrtcProgram prog = nullptr;
  LOCUS_CUDA(nv.nvrtcCreateProgram(&prog, source.c_str(), label.c_str(), 0, nullptr, nullptr), -1, label);
  struct Destroy {
    nvrtcProgram* p;
    const Nvrtc& nv;
    ~Destroy() { nv.nvrtcDestroyProgram(p); }
  } destroy{&prog, nv};
  std::vector<std::string> opts = {"--gpu-architecture=" + arch};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  nvrtcResult st = nv.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (st != NVRTC_SUCCESS) {
    size_t n = 0;
    std::string log;
    if (nv.nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
      log.resize(n);
      if (nv.nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) log.clear();
    }
    gpu::compile_failed("cuda", label, arch,
                        status_name(st) + ", NVRTC " + nvrtc_version() + ", options \"" + join(options) + "\"",
                        "NVRTC log", log);
  }
  Compiled c;
  size_t n = 0;
  LOCUS_CUDA(nv.nvrtcGetPTXSize(prog, &n), -1, label);
  c.ptx.resize(n);  // n counts the terminating NUL, which cuModuleLoadData needs
  LOCUS_CUDA(nv.nvrtcGetPTX(prog, c.ptx.data()), -1, label);
  if (arch.rfind("sm_", 0) == 0) {
    LOCUS_CUDA(nv.nvrtcGetCUBINSize(prog, &n), -1, label);
    c.image.resize(n);
    LOCUS_CUDA(nv.nvrtcGetCUBIN(prog, c.image.data()), -1, label);
    c.cubin = true;
  } else {
    c.image = c.ptx;
  }
  return c;
}

std::string cache_file(const std::string& arch, int driver_version, const std::string& options,
                       const std::string& source) {
  std::string key = arch + '\0' + std::to_string(driver_version) + '\0' + nvrtc_version() + '\0' + options + '\0';
  return disk_cache().file(key, source);
}

gpu::Kernel& CudaBackend::kernel(int index, const char* file, ScalarType dtype, const char* name,
                                 const std::string& options) {
  // kernel_uses() lists what nvrtc_compile_test builds: one program per file and dtype
  if (!options.empty())
    throw BackendError("[cuda] kernel " + std::string(file) + ":" + name + ": build options \"" + options +
                       "\" are not supported (Caps asks for none).");
  const auto& uses = kernel_uses();
  if (std::none_of(uses.begin(), uses.end(), [&](const KernelUse& u) {
        return std::strcmp(u.file, file) == 0 && std::strcmp(u.name, name) == 0;
      }))
    throw BackendError(std::string("[cuda] kernel ") + file + ":" + name +
                       " is not listed in kernel_uses() (src/backends/cuda/program.cpp); add it there so "
                       "that nvrtc_compile_test builds it.");
  CuDevice& d = Runtime::get().bind(index);
  const std::string label = gpu::program_label(file, dtype);
  auto load = [](const std::string& image) {  // a cached image, or nullptr when the driver rejects it
    CUmodule mod = nullptr;
    return drv().cuModuleLoadData(&mod, image.data()) == CUDA_SUCCESS ? mod : nullptr;
  };
  auto build = [&] {
    std::string src = kernels::expand(file, "prelude_cuda.h");
    std::vector<std::string> opts = build_options(dtype);
    std::string arch = target_arch(d.cc_major, d.cc_minor);
    auto compile_and_load = [&](std::string& image) {
      Compiled c = compile(src, label, arch, opts);
      CUmodule mod = nullptr;
      CUresult st = drv().cuModuleLoadData(&mod, c.image.data());
      if (st != CUDA_SUCCESS)
        throw BackendError(gpu::failure_message("cuda", "cuModuleLoadData", status_name(st), index, label + " for " + arch) +
                           ". NVRTC " + nvrtc_version() + " built it; the driver is CUDA " +
                           std::to_string(drv().version / 1000) + "." + std::to_string(drv().version % 1000 / 10) +
                           " (a driver older than the toolkit cannot load its code: update the driver).");
      image = std::move(c.image);
      return mod;
    };
    std::string path = cache_file(arch, drv().version, join(opts), src);
    return disk_cache().load_or_build<CUmodule>(path, load, compile_and_load);
  };
  auto make = [&](Kernel& k, CUmodule mod) {
    LOCUS_CUDA(drv().cuModuleGetFunction(&k.f, mod, name), index, "kernel " + std::string(name) + " in " + label);
  };
  auto& cache = gpu::program_cache<CUmodule, Kernel>(Runtime::get(), index);
  return cache.get(std::string(file) + "|" + gpu::dtype_suffix(dtype), name, dtype, build, make);
}

}  // namespace locus::cuda
