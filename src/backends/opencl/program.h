#pragma once
// Kernel programs: the shared sources (src/kernels/) compiled per device and dtype on first use,
// through the disk cache of gpu/kernel_cache.h, keyed by platform, device name, driver version,
// build options and the full expanded source. A binary the driver rejects is deleted and the
// program rebuilt from source.
#include <CL/cl.h>  // CL_TARGET_OPENCL_VERSION comes from CMake

#include <mutex>
#include <vector>
#include <array>
#include <string>

#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/kernel_cache.h"
#include "locus/dtype.h"

namespace locus::opencl {

struct Kernel : gpu::Kernel {  // label: "binary_f32"
  cl_kernel k = nullptr;
  std::mutex mu;      // clSetKernelArg + enqueue are not thread-safe per kernel object
  // work-group sizes already run once, on drivers that compile each lazily (runtime.h); under mu
  std::vector<std::array<size_t, 3>> launched;
};

// OpenCLBackend::kernel (here) builds (or loads from the disk cache) kernel `name` of the shared
// source `file` for `dtype` on first use; its `options` add build options (-DX=1 ...). It throws
// BackendError for dtypes the device lacks (float64 without fp64) and for build failures.

/// Builds `source` with `options` for device `index` through the disk cache; `label` names it in
/// messages. A compile error throws BackendError carrying the build log. Used by kernel() and
/// exposed for tests (a deliberately broken source).
cl_program build_program(int index, const std::string& source, const std::string& options,
                         const std::string& label);

/// Releases a program from build_program (tests need no OpenCL symbols of their own).
void release_program(cl_program p) noexcept;

/// The cache file `build_program` uses for these inputs (it may not exist yet).
std::string program_cache_file(int index, const std::string& source, const std::string& options);
/// The disk cache of compiled programs, with its counters (disk_cache().stats()).
gpu::DiskCache& disk_cache();

/// Build options for `dtype` on device `index`: "-DDT_F32 -DHAS_FP64 ...".
std::string dtype_options(int index, ScalarType dtype);

/// Forgets device `index`'s in-memory programs and kernels (tests: the next use reloads).
void forget_programs(int index);

}  // namespace locus::opencl
