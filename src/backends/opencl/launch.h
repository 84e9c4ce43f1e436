#pragma once
// Host side of a kernel launch: mirrors of the structs in src/kernels/common.cl (same layout),
// broadcast geometry with dims coalesced, and an argument builder that holds the kernel's lock
// from the first argument to the enqueue.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "backends/opencl/program.h"
#include "core/backend.h"

namespace locus::opencl {

using backend::kMaxDims;

struct Scalar {  // common.cl: Scalar
  uint64_t dbits = 0;
  int64_t l = 0;
  float f = 0;
  int32_t pad = 0;
};
/// `v` in each representation; for a bool dtype l is (v != 0).
Scalar make_scalar(double v, ScalarType dtype);

struct Geom {  // common.cl: Geom
  int64_t sizes[kMaxDims] = {};
  int64_t strides[4][kMaxDims] = {};
  int64_t numel = 0;
  int32_t ndim = 0;
  int32_t contiguous = 0;
};
/// Geometry of `n` operands sharing ops[0]'s sizes (broadcast dims have stride 0): size-1 dims
/// dropped, mergeable neighbours merged, `contiguous` set when every operand is dense.
Geom make_geom(const backend::TensorRef* const* ops, int n);

class Launch {
 public:
  Launch(int index, Kernel& k, backend::StreamHandle s);
  template <typename T>
  Launch& arg(const T& v) {
    set(sizeof(T), &v);
    return *this;
  }
  /// A (cl_mem, int64 byte offset) pair: two kernel arguments.
  Launch& buf(backend::Buffer b);
  /// 1-D grid-stride launch over `n` items (skipped when n == 0).
  void run1d(int64_t n);
  /// `groups` work-groups of `local` items each (1-D).
  void run_groups(int64_t groups, size_t local);
  void run(cl_uint dims, const size_t* global, const size_t* local);

 private:
  void set(size_t size, const void* v);
  int index_;
  Kernel& k_;
  cl_command_queue q_;
  std::unique_lock<std::mutex> lock_;
  cl_uint next_ = 0;
};

/// Work-group size for 1-D launches on device `index` (256, or the device's maximum if lower).
size_t default_local(int index);

}  // namespace locus::opencl
