#pragma once
// What opencl_bench.cpp and opencl_host_bench.cpp both need: a checked OpenCL status, a median,
// a flag's value and an owned cl_mem. Header-only; the includer sets CL_TARGET_OPENCL_VERSION.
#include <CL/cl.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace locus_bench {

inline void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed: OpenCL error " + std::to_string(err));
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The value after flag argv[i], advancing i; std::invalid_argument "<flag> needs a value" at the end.
inline std::string flag_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

struct ClBuffer {
  cl_mem m = nullptr;
  ClBuffer(cl_context ctx, size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    cl_int err = CL_SUCCESS;
    m = clCreateBuffer(ctx, flags, bytes, nullptr, &err);
    check(err, "clCreateBuffer");
  }
  ~ClBuffer() { clReleaseMemObject(m); }
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
};

}  // namespace locus_bench
