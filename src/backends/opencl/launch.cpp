// The runtime hooks of gpu::GpuBackend: launches and device capabilities (kernels: program.cpp).
#include <algorithm>
#include <array>

#include "backends/opencl/check.h"
#include "backends/opencl/opencl_backend.h"
#include "backends/opencl/program.h"  // Kernel
#include "backends/opencl/runtime.h"

namespace locus::opencl {

gpu::Caps OpenCLBackend::caps(int index) {
  const ClDevice& d = Runtime::get().device(index);
  gpu::Caps c;
  c.local = static_cast<uint32_t>(std::min<size_t>(256, std::max<size_t>(1, d.props.max_work_group_size)));
  c.fp64 = d.props.fp64;
  c.int64_atomics = d.int64_atomics;
  c.fixed_op_programs = true;  // 3x on PoCL (gpu/elementwise.cpp)
  c.two_pass_reduce = true;    // clReleaseMemObject waits for the kernels that use the buffer
  c.row_items = d.row_items;  // PoCL and other CPU drivers (gpu/elementwise.cpp), LOCUS_OPENCL_ROW_ITEMS
  return c;
}

void OpenCLBackend::launch(int index, StreamHandle s, gpu::Kernel& kernel, const gpu::Grid& grid, gpu::Args& args) {
  auto& k = static_cast<Kernel&>(kernel);
  cl_command_queue q = Runtime::get().queue(index, s);
  size_t global[3], local[3];
  for (int d = 0; d < grid.dims; ++d) {
    local[d] = grid.local[d];
    global[d] = static_cast<size_t>(grid.groups[d]) * grid.local[d];
  }
  // clSetKernelArg + enqueue are not thread-safe per kernel object: k.mu covers both
  std::lock_guard<std::mutex> lock(k.mu);
  for (int i = 0; i < args.count(); ++i)
    LOCUS_CL(clSetKernelArg(k.k, static_cast<cl_uint>(i), args.size(i), args.values()[i]), index,
             "kernel " + k.label + ", argument " + std::to_string(i));
  const auto dims = static_cast<cl_uint>(grid.dims);
  LOCUS_CL_FAULT(fault::kLaunch, CL_OUT_OF_RESOURCES,
                 clEnqueueNDRangeKernel(q, k.k, dims, nullptr, global, local, 0, nullptr, nullptr), index,
                 "kernel " + k.label);
  // PoCL specialises a kernel per work-group size: the first run of each waits (runtime.h). k.mu
  // guards the list.
  if (!Runtime::get().device(index).lazy_compile) return;
  std::array<size_t, 3> wg = {1, 1, 1};
  for (cl_uint d = 0; d < dims && d < 3; ++d) wg[d] = local[d];
  if (std::find(k.launched.begin(), k.launched.end(), wg) != k.launched.end()) return;
  k.launched.push_back(wg);
  LOCUS_CL(clFinish(q), index, "kernel " + k.label);
}

}  // namespace locus::opencl
