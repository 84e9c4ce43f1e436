#pragma once
// Kernel programs: the shared sources (src/kernels/) compiled by NVRTC for the device's
// architecture on first use, loaded with cuModuleLoadData, cached on disk.
//
// Target: sm_<cc> (a CUBIN with machine code) when this NVRTC knows the device's compute
// capability, else PTX for the newest compute_<arch> it knows below it, which the driver
// JIT-compiles. Options: the dtype define (-DDT_F32, ...), HAS_FP64/HAS_FP16/HAS_INT64_ATOMICS
// (every CUDA device has them), and --fmad=false so that a*b+c rounds as on the CPU.
//
// The disk cache (gpu/kernel_cache.h) keys a program by target arch, driver version, NVRTC
// version, options and the full expanded source; an image the driver rejects is deleted and
// the program rebuilt.
#include <cuda.h>

#include <string>
#include <vector>

#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/kernel_cache.h"
#include "locus/dtype.h"

namespace locus::cuda {

/// A kernel of the shared sources as the launch code uses it. Every (file, dtype) the launch
/// code may request is listed here, so nvrtc_compile_test can build them all for real GPU
/// targets on a machine without a GPU; CudaBackend::kernel refuses anything not listed.
struct KernelUse {
  const char* file;   // "binary.cl"
  const char* name;   // "binary"
  bool float_only;    // defined only for floating dtypes (softmax)
};
const std::vector<KernelUse>& kernel_uses();
/// The dtypes every kernel file is compiled for.
const std::vector<ScalarType>& kernel_dtypes();

/// NVRTC options for `dtype` apart from the target: {"-DDT_F32", "-DHAS_FP64", ..., "--fmad=false"}.
std::vector<std::string> build_options(ScalarType dtype);

struct Compiled {
  std::string image;  // CUBIN for sm_XX targets, NUL-terminated PTX for compute_XX
  std::string ptx;    // the PTX (both kinds of target)
  bool cubin = false;
};
/// Compiles a complete source with NVRTC for `arch` ("sm_90" or "compute_90") and `options`;
/// needs no driver and no GPU. A compile error throws BackendError carrying the log; `label`
/// names the program in messages.
Compiled compile(const std::string& source, const std::string& label, const std::string& arch,
                 const std::vector<std::string>& options);

/// The target for compute capability major.minor (see above): "sm_86", or "compute_90" when
/// this NVRTC predates the device.
std::string target_arch(int major, int minor);
/// "13.0".
std::string nvrtc_version();

// CudaBackend::kernel (program.cpp) compiles (or loads from the disk cache) and loads a kernel
// of kernel_uses() on first use; it binds the device's context.
struct Kernel : gpu::Kernel {  // label: "binary_f32"
  CUfunction f = nullptr;
};

/// The file for a program built for `arch` by a driver of `driver_version` with `options` from
/// `source` (it may not exist yet; "" when no folder).
std::string cache_file(const std::string& arch, int driver_version, const std::string& options,
                       const std::string& source);
/// The disk cache of compiled programs, with its counters (disk_cache().stats()).
gpu::DiskCache& disk_cache();

}  // namespace locus::cuda
