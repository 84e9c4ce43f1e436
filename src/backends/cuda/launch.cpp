// The runtime hooks of gpu::GpuBackend: launches with cuLaunchKernel and device capabilities
// (every CUDA device has fp64 and 64-bit atomics); kernels come from program.cpp (NVRTC).
#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/program.h"  // Kernel
#include "locus/error.h"

namespace locus::cuda {

gpu::Caps CudaBackend::caps(int index) {
  const CuDevice& d = Runtime::get().device(index);  // throws for a bad index
  gpu::Caps c;
  c.local = 256;  // reduce.cl's RGROUP
  c.max_grid_yz = 65535;
  c.two_pass_reduce = d.memory_pools;  // scratch_alloc: freed in stream order
  c.direct_conv = false;               // im2col + cuBLAS measured faster (gpu/conv.cpp)
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
