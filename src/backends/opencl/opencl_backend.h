#pragma once
// The OpenCL runtime adapter: a gpu::RuntimeBackend (src/backends/gpu/, which holds the compute
// families and answers the device queries from runtime.h) whose methods live in one file per
// job: backend.cpp (devices), memory.cpp, copy.cpp, stream.cpp, gemm.cpp (CLBlast), launch.cpp
// (kernels and launches). Kernels come from the shared sources via program.h.
//
// Handles: Buffer::base is a cl_mem; a StreamHandle is a cl_command_queue (nullptr: the
// device's default queue); an EventHandle points to an opencl::Event.
#include <CL/cl.h>  // CL_TARGET_OPENCL_VERSION comes from CMake

#include "backends/gpu/gpu_backend.h"
#include "backends/opencl/runtime.h"

namespace locus::opencl {

struct Event {
  cl_event ev = nullptr;  // the last recorded marker (or copy); nullptr before the first record
  bool timing = false;
};

class OpenCLBackend final : public gpu::RuntimeBackend<Runtime> {
 public:
  DeviceType type() const override { return kOpenCL; }
  LOCUS_GPU_RUNTIME_METHODS  // gpu_backend.h
};

}  // namespace locus::opencl

namespace locus::backend {
std::unique_ptr<Backend> make_opencl_backend();
}  // namespace locus::backend
