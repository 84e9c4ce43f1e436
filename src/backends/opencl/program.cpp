#include "backends/opencl/program.h"

#include "backends/gpu/check.h"
#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/runtime.h"
#include "kernels/sources.h"
#include "locus/error.h"

namespace locus::opencl {

namespace {

std::string build_log(cl_program p, cl_device_id dev) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  return log;
}

// A cached binary as a built program, or nullptr when the driver rejects it.
cl_program load_binary(ClDevice& d, const std::string& image, const std::string& options) {
  const auto* bin = reinterpret_cast<const unsigned char*>(image.data());
  size_t bin_size = image.size();
  cl_int bin_status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(d.ctx, 1, &d.id, &bin_size, &bin, &bin_status, &err);
  if (err == CL_SUCCESS && bin_status == CL_SUCCESS &&
      clBuildProgram(p, 1, &d.id, options.c_str(), nullptr, nullptr) == CL_SUCCESS)
    return p;
  if (p) clReleaseProgram(p);
  return nullptr;
}

// The binary of a built program ("" when the driver will not say).
std::string binary_of(cl_program p) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS || size == 0) return "";
  std::string bin(size, '\0');
  auto* ptr = reinterpret_cast<unsigned char*>(bin.data());
  return clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) == CL_SUCCESS ? bin : "";
}

}  // namespace

gpu::DiskCache& disk_cache() {
  static gpu::DiskCache cache("LOCUSCL1", ".clbin");
  return cache;
}

std::string program_cache_file(int index, const std::string& source, const std::string& options) {
  ClDevice& d = Runtime::get().device(index);
  std::string key = d.platform_name + '\0' + d.props.name + '\0' + d.props.driver_version + '\0' + options + '\0';
  return disk_cache().file(key, source);
}

cl_program build_program(int index, const std::string& source, const std::string& options, const std::string& label) {
  ClDevice& d = Runtime::get().device(index);
  auto load = [&](const std::string& image) { return load_binary(d, image, options); };
  auto compile = [&](std::string& image) {
    const char* src = source.c_str();
    size_t len = source.size();
    cl_program p = LOCUS_CL(clCreateProgramWithSource(d.ctx, 1, &src, &len, locus_err), index, label);
    cl_int err = clBuildProgram(p, 1, &d.id, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::string log = build_log(p, d.id);
      clReleaseProgram(p);
      gpu::compile_failed("opencl", label, Runtime::get().label(index),
                          cl_status_name(err) + ", options \"" + options + "\"", "Build log", log);
    }
    image = binary_of(p);
    return p;
  };
  return disk_cache().load_or_build<cl_program>(program_cache_file(index, source, options), load, compile);
}

std::string dtype_options(int index, ScalarType dtype) {
  ClDevice& d = Runtime::get().device(index);
  if (dtype == kDouble && !d.props.fp64)
    throw BackendError("[opencl] " + Runtime::get().label(index) + " does not support float64 (no cl_khr_fp64). Use "
                       "float32 on this device.");
  if (dtype == ScalarType::Undefined)
    throw BackendError("[opencl] a kernel was requested for an undefined dtype.");
  std::string s = gpu::dtype_define(dtype);
  if (d.props.fp64) s += " -DHAS_FP64";
  if (d.props.fp16) s += " -DHAS_FP16";
  if (d.int64_atomics) s += " -DHAS_INT64_ATOMICS";
  return s;
}

gpu::Kernel& OpenCLBackend::kernel(int index, const char* file, ScalarType dtype, const char* name,
                                   const std::string& extra) {
  std::string options = dtype_options(index, dtype) + (extra.empty() ? "" : " " + extra);
  auto build = [&] {
    return build_program(index, kernels::expand(file, "prelude_opencl.h"), options, gpu::program_label(file, dtype));
  };
  auto make = [&](Kernel& k, cl_program p) {
    k.k = LOCUS_CL(clCreateKernel(p, name, locus_err), index, "kernel " + k.label);
  };
  auto& cache = gpu::program_cache<cl_program, Kernel>(Runtime::get(), index);
  return cache.get(std::string(file) + "|" + options, name, dtype, build, make);
}

void release_program(cl_program p) noexcept {
  if (p) clReleaseProgram(p);
}

void forget_programs(int index) {
  auto& cache = gpu::program_cache<cl_program, Kernel>(Runtime::get(), index);
  cache.clear([](Kernel& k) { clReleaseKernel(k.k); }, release_program);
}

}  // namespace locus::opencl
