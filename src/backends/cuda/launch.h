#pragma once
// Host side of a kernel launch: mirrors of the structs in src/kernels/common.cl (same layout as
// src/backends/opencl/launch.h, which passes them to the same kernels), broadcast geometry with
// dims coalesced, and an argument pack for cuLaunchKernel.
//
// Arguments follow the OpenCL backend one for one (program.cpp's kernel_uses lists the
// kernels): a Buffer is two arguments, the CUdeviceptr base and an int64 byte offset, as the
// kernels take (GLOBAL uchar* b, i64 off). Launch geometry is OpenCL's NDRange: a 1-D launch of
// n items is ceil(n / 256) blocks of 256 threads (grid-stride beyond 2^30 items).
#include <cuda.h>

#include <cstdint>

#include "core/backend.h"
#include "locus/dtype.h"

namespace locus::cuda {

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
  /// Binds device `index` and looks the kernel up (compiling it on first use).
  Launch(int index, const char* file, ScalarType dtype, const char* name, backend::StreamHandle s);
  template <typename T>
  Launch& arg(const T& v) {
    static_assert(sizeof(T) <= 512, "kernel argument too large");
    push(&v, sizeof(T), alignof(T));
    return *this;
  }
  /// A Buffer: the base CUdeviceptr and the int64 byte offset (two kernel arguments).
  Launch& buf(backend::Buffer b);
  /// 1-D launch over `n` items (skipped when n == 0).
  void run1d(int64_t n);
  /// `groups` blocks of `local` threads (1-D).
  void run_groups(int64_t groups, unsigned local);
  void run(const unsigned grid[3], const unsigned block[3]);

 private:
  void push(const void* v, size_t size, size_t align);
  int index_;
  CUfunction f_;
  CUstream stream_;
  const char* name_;
  ScalarType dtype_;
  alignas(16) unsigned char storage_[2048];
  size_t used_ = 0;
  void* params_[32];
  int nparams_ = 0;
};

constexpr unsigned kBlock = 256;  // threads per block for 1-D launches (reduce.cl's RGROUP)

}  // namespace locus::cuda
