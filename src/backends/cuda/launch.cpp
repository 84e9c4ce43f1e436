#include "backends/cuda/launch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cuda/check.h"
#include "backends/cuda/context.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/program.h"
#include "locus/error.h"

namespace locus::cuda {

Scalar make_scalar(double v, ScalarType dtype) {
  Scalar s;
  std::memcpy(&s.dbits, &v, 8);
  if (dtype == kBool) s.l = v != 0;
  else if (std::isnan(v)) s.l = 0;
  else if (v >= 9.2233720368547758e18) s.l = INT64_MAX;
  else if (v <= -9.2233720368547758e18) s.l = INT64_MIN;
  else s.l = static_cast<int64_t>(v);
  s.f = static_cast<float>(v);
  return s;
}

Geom make_geom(const backend::TensorRef* const* ops, int n) {
  Geom g;
  const backend::TensorRef& o = *ops[0];
  if (o.ndim > kMaxDims)
    throw BackendError("[cuda] kernels take at most " + std::to_string(kMaxDims) + " dims, got " +
                       std::to_string(o.ndim) + ".");
  g.numel = o.numel();
  // keep non-trivial dims, merging d into the previous kept dim when every operand allows it
  int nd = 0;
  for (int d = 0; d < o.ndim; ++d) {
    if (o.sizes[d] == 1) continue;
    bool merge = nd > 0;
    for (int k = 0; k < n && merge; ++k) merge = g.strides[k][nd - 1] == ops[k]->strides[d] * o.sizes[d];
    if (merge) {
      g.sizes[nd - 1] *= o.sizes[d];
      for (int k = 0; k < n; ++k) g.strides[k][nd - 1] = ops[k]->strides[d];
    } else {
      g.sizes[nd] = o.sizes[d];
      for (int k = 0; k < n; ++k) g.strides[k][nd] = ops[k]->strides[d];
      ++nd;
    }
  }
  g.ndim = nd;
  bool contig = nd == 0;
  if (nd == 1) {
    contig = true;
    for (int k = 0; k < n; ++k) contig = contig && g.strides[k][0] == 1;
  }
  g.contiguous = contig;
  if (nd == 0) {  // a single element
    g.ndim = 1;
    g.sizes[0] = 1;
  }
  return g;
}

Launch::Launch(int index, const char* file, ScalarType dtype, const char* name, backend::StreamHandle s)
    : index_(index), f_(get_kernel(index, file, dtype, name)), stream_(stream_of(s)), name_(name), dtype_(dtype) {}

void Launch::push(const void* v, size_t size, size_t align) {
  size_t at = (used_ + align - 1) / align * align;
  if (at + size > sizeof storage_ || nparams_ == static_cast<int>(std::size(params_)))
    throw BackendError(std::string("[cuda] too many arguments for kernel ") + name_ + ".");
  std::memcpy(storage_ + at, v, size);
  params_[nparams_++] = storage_ + at;
  used_ = at + size;
}

Launch& Launch::buf(backend::Buffer b) {
  CUdeviceptr base = reinterpret_cast<CUdeviceptr>(b.base);
  int64_t off = static_cast<int64_t>(b.offset);
  push(&base, sizeof base, alignof(CUdeviceptr));
  push(&off, sizeof off, alignof(int64_t));
  return *this;
}

void Launch::run(const unsigned grid[3], const unsigned block[3]) {
  LOCUS_CUDA(drv().cuLaunchKernel(f_, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, stream_, params_,
                                  nullptr),
             index_, "kernel " + std::string(name_) + "_" + dtype_suffix(dtype_));
}

void Launch::run1d(int64_t n) {
  if (n <= 0) return;
  // one thread per element up to 2^30 threads, grid-stride beyond (as on OpenCL)
  int64_t items = std::min<int64_t>(n, int64_t{1} << 30);
  unsigned grid[3] = {static_cast<unsigned>((items + kBlock - 1) / kBlock), 1, 1};
  unsigned block[3] = {kBlock, 1, 1};
  run(grid, block);
}

void Launch::run_groups(int64_t groups, unsigned local) {
  if (groups <= 0) return;
  if (groups > 0x7fffffff)
    throw BackendError("[cuda] kernel " + std::string(name_) + ": " + std::to_string(groups) +
                       " blocks exceed the grid limit of 2^31 - 1.");
  unsigned grid[3] = {static_cast<unsigned>(groups), 1, 1};
  unsigned block[3] = {local, 1, 1};
  run(grid, block);
}

}  // namespace locus::cuda
