// The runtime hooks of gpu::GpuBackend: kernels from program.h (NVRTC), launches with
// cuLaunchKernel, device capabilities (every CUDA device has fp64 and 64-bit atomics).
#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/program.h"
#include "locus/error.h"

namespace locus::cuda {

gpu::Kernel& CudaBackend::kernel(int index, const char* file, ScalarType dtype, const char* name,
                                 const std::string& options) {
  // kernel_uses() lists what nvrtc_compile_test builds: one program per file and dtype
  if (!options.empty())
    throw BackendError("[cuda] kernel " + std::string(file) + ":" + name + ": build options \"" + options +
                       "\" are not supported (Caps asks for none).");
  return get_kernel(index, file, dtype, name);
}

gpu::Caps CudaBackend::caps(int index) {
  Runtime::get().device(index);  // throws for a bad index
  gpu::Caps c;
  c.local = 256;  // reduce.cl's RGROUP
  c.max_grid_yz = 65535;
  return c;
}

void CudaBackend::launch(int index, StreamHandle s, gpu::Kernel& kernel, const gpu::Grid& grid, gpu::Args& args) {
  auto& k = static_cast<Kernel&>(kernel);
  if (grid.groups[0] > 0x7fffffff)
    throw BackendError("[cuda] kernel " + k.label + ": " + std::to_string(grid.groups[0]) +
                       " blocks exceed the grid limit of 2^31 - 1.");
  LOCUS_CUDA_FAULT(fault::kLaunch, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, drv().cuLaunchKernel(k.f, static_cast<unsigned>(grid.groups[0]), static_cast<unsigned>(grid.groups[1]),
                                  static_cast<unsigned>(grid.groups[2]), grid.local[0], grid.local[1], grid.local[2], 0,
                                  stream_of(s), args.values(), nullptr),
             index, "kernel " + k.label);
}

}  // namespace locus::cuda
