#include "backends/opencl/program.h"

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "backends/gpu/kernel_cache.h"
#include "backends/opencl/check.h"
#include "backends/opencl/runtime.h"
#include "kernels/sources.h"
#include "locus/error.h"

namespace locus::opencl {

struct ProgramCache {
  std::mutex mu;
  std::map<std::string, cl_program> programs;              // file + options
  std::map<std::string, std::unique_ptr<Kernel>> kernels;  // file + options + name
};

namespace {

std::mutex g_create_mu;
std::atomic<int64_t> g_built{0}, g_loaded{0}, g_corrupt{0};
constexpr char kMagic[8] = {'L', 'O', 'C', 'U', 'S', 'C', 'L', '1'};

ProgramCache& cache_of(ClDevice& d) {
  std::lock_guard<std::mutex> lock(g_create_mu);
  if (!d.programs) d.programs = new ProgramCache();  // lives as long as the runtime (forever)
  return *d.programs;
}

std::string build_log(cl_program p, cl_device_id dev) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// The cached binary at `path`, or nullptr (missing, corrupt: deleted, or rejected: deleted).
cl_program load_cached(ClDevice& d, const std::string& path, const std::string& options) {
  std::string data = gpu::read_cache(path, kMagic, g_corrupt);
  if (data.empty()) return nullptr;
  auto corrupt = [&]() -> cl_program {
    ++g_corrupt;
    std::error_code ec;
    std::filesystem::remove(path, ec);
    return nullptr;
  };
  const auto* bin = reinterpret_cast<const unsigned char*>(data.data());
  size_t bin_size = data.size();
  cl_int bin_status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(d.ctx, 1, &d.id, &bin_size, &bin, &bin_status, &err);
  if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
    if (p) clReleaseProgram(p);
    return corrupt();
  }
  if (clBuildProgram(p, 1, &d.id, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(p);
    return corrupt();
  }
  ++g_loaded;
  return p;
}

void store_cached(ClDevice& d, cl_program p, const std::string& path) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) != CL_SUCCESS) return;
  gpu::write_cache(path, kMagic, bin.data(), size);
}

}  // namespace

std::string program_cache_file(int index, const std::string& source, const std::string& options) {
  ClDevice& d = Runtime::get().device(index);
  std::string key = d.platform_name + '\0' + d.props.name + '\0' + d.props.driver_version + '\0' + options + '\0';
  return gpu::cache_file(key, source, ".clbin");
}

cl_program build_program(int index, const std::string& source, const std::string& options, const std::string& label) {
  ClDevice& d = Runtime::get().device(index);
  std::string path = program_cache_file(index, source, options);
  if (!path.empty())
    if (cl_program p = load_cached(d, path, options)) return p;
  const char* src = source.c_str();
  size_t len = source.size();
  cl_program p = LOCUS_CL(clCreateProgramWithSource(d.ctx, 1, &src, &len, locus_err), index, label);
  cl_int err = clBuildProgram(p, 1, &d.id, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log = build_log(p, d.id);
    clReleaseProgram(p);
    throw BackendError("[opencl] compiling " + label + " for " + device_label(index) + " failed (" +
                       cl_status_name(err) + ", options \"" + options + "\"). Build log:\n" +
                       (log.empty() ? "(empty)" : log));
  }
  ++g_built;
  if (!path.empty()) store_cached(d, p, path);
  return p;
}

std::string dtype_options(int index, ScalarType dtype) {
  ClDevice& d = Runtime::get().device(index);
  if (dtype == kDouble && !d.props.fp64)
    throw BackendError("[opencl] " + device_label(index) + " does not support float64 (no cl_khr_fp64). Use "
                       "float32 on this device.");
  if (dtype == ScalarType::Undefined)
    throw BackendError("[opencl] a kernel was requested for an undefined dtype.");
  std::string s = gpu::dtype_define(dtype);
  if (d.props.fp64) s += " -DHAS_FP64";
  if (d.props.fp16) s += " -DHAS_FP16";
  if (d.int64_atomics) s += " -DHAS_INT64_ATOMICS";
  return s;
}

Kernel& get_kernel(int index, const char* file, ScalarType dtype, const char* name, const std::string& extra) {
  ClDevice& d = Runtime::get().device(index);
  ProgramCache& pc = cache_of(d);
  std::string options = dtype_options(index, dtype) + (extra.empty() ? "" : " " + extra);
  std::string pkey = std::string(file) + "|" + options;
  std::string kkey = pkey + "|" + name;
  std::lock_guard<std::mutex> lock(pc.mu);
  if (auto it = pc.kernels.find(kkey); it != pc.kernels.end()) return *it->second;
  cl_program& prog = pc.programs[pkey];
  if (!prog) {
    try {
      std::string src = kernels::expand(file, "prelude_opencl.h");
      prog = build_program(index, src, options, std::string(file) + " (" + dtype_suffix(dtype) + ")");
    } catch (...) {
      pc.programs.erase(pkey);
      throw;
    }
  }
  auto k = std::make_unique<Kernel>();
  k->label = std::string(name) + "_" + dtype_suffix(dtype);
  k->k = LOCUS_CL(clCreateKernel(prog, name, locus_err), index, "kernel " + k->label);
  Kernel& ref = *k;
  pc.kernels[kkey] = std::move(k);
  return ref;
}

void release_program(cl_program p) noexcept {
  if (p) clReleaseProgram(p);
}

ProgramStats program_stats() { return {g_built.load(), g_loaded.load(), g_corrupt.load()}; }

void forget_programs(int index) {
  ProgramCache& pc = cache_of(Runtime::get().device(index));
  std::lock_guard<std::mutex> lock(pc.mu);
  for (auto& [key, k] : pc.kernels) clReleaseKernel(k->k);
  pc.kernels.clear();
  for (auto& [key, p] : pc.programs) clReleaseProgram(p);
  pc.programs.clear();
}

}  // namespace locus::opencl
