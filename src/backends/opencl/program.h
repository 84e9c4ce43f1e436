#pragma once
// Kernel programs: the shared sources (src/kernels/) compiled per device and dtype on first use,
// with the compiled binaries cached on disk.
//
// Cache folder: $LOCUS_KERNEL_CACHE, else $XDG_CACHE_HOME/locus/kernels, else
// ~/.cache/locus/kernels. One file per program, named by a 128-bit hash of platform, device
// name, driver version, build options and the full expanded source; the file holds a magic,
// the payload size and a hash of the payload. A file with a bad size or hash, or a binary the
// driver rejects, is deleted and the program rebuilt from source. An unwritable folder only
// disables the disk cache.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
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

/// Kernel `name` of the shared source `file` built for `dtype` on device `index`, built (or
/// loaded from the disk cache) on first use. `extra` adds build options (-DX=1 ...). Throws
/// BackendError for dtypes the device lacks (float64 without fp64) and for build failures.
Kernel& get_kernel(int index, const char* file, ScalarType dtype, const char* name,
                   const std::string& extra = "");

/// Builds `source` with `options` for device `index` through the disk cache; `label` names it in
/// messages. A compile error throws BackendError carrying the build log. Used by get_kernel and
/// exposed for tests (a deliberately broken source).
cl_program build_program(int index, const std::string& source, const std::string& options,
                         const std::string& label);

/// Releases a program from build_program (tests need no OpenCL symbols of their own).
void release_program(cl_program p) noexcept;

/// The cache file `build_program` uses for these inputs (it may not exist yet).
std::string program_cache_file(int index, const std::string& source, const std::string& options);
using gpu::kernel_cache_dir;

/// Build options for `dtype` on device `index`: "-DDT_F32 -DHAS_FP64 ...".
std::string dtype_options(int index, ScalarType dtype);
using gpu::dtype_suffix;

struct ProgramStats {
  int64_t built_from_source = 0;
  int64_t loaded_from_disk = 0;
  int64_t corrupt_entries = 0;  // deleted and rebuilt
};
ProgramStats program_stats();
/// Forgets device `index`'s in-memory programs and kernels (tests: the next use reloads).
void forget_programs(int index);

}  // namespace locus::opencl
