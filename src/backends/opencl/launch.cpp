#include "backends/opencl/launch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/opencl/check.h"
#include "backends/opencl/runtime.h"
#include "locus/error.h"

namespace locus::opencl {

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
    throw BackendError("[opencl] kernels take at most " + std::to_string(kMaxDims) + " dims, got " +
                       std::to_string(o.ndim) + ".");
  g.numel = o.numel();
  // keep non-trivial dims, merging d into the previous kept dim when every operand allows it
  int nd = 0;
  for (int d = 0; d < o.ndim; ++d) {
    if (o.sizes[d] == 1) continue;
    bool merge = nd > 0;
    for (int k = 0; k < n && merge; ++k)
      merge = g.strides[k][nd - 1] == ops[k]->strides[d] * o.sizes[d];
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

size_t default_local(int index) {
  return std::min<size_t>(256, std::max<size_t>(1, Runtime::get().device(index).props.max_work_group_size));
}

Launch::Launch(int index, Kernel& k, backend::StreamHandle s)
    : index_(index), k_(k), q_(Runtime::get().queue(index, s)), lock_(k.mu) {}

// The messages are built only on failure: LOCUS_CL's `what` is evaluated before the call, and
// "kernel <label>, argument <i>" was a heap allocation per argument of every launch.
void Launch::set(size_t size, const void* v) {
  cl_uint i = next_++;
  cl_int err = clSetKernelArg(k_.k, i, size, v);
  if (err != CL_SUCCESS)
    cl_fail("clSetKernelArg", err, index_, "kernel " + k_.label + ", argument " + std::to_string(i));
}

Launch& Launch::buf(backend::Buffer b) {
  cl_mem m = static_cast<cl_mem>(b.base);
  int64_t off = static_cast<int64_t>(b.offset);
  set(sizeof(cl_mem), &m);
  set(sizeof(off), &off);
  return *this;
}

void Launch::run(cl_uint dims, const size_t* global, const size_t* local) {
  cl_int err = clEnqueueNDRangeKernel(q_, k_.k, dims, nullptr, global, local, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) cl_fail("clEnqueueNDRangeKernel", err, index_, "kernel " + k_.label);
  // PoCL specialises a kernel per work-group size: the first run of each waits (runtime.h). The
  // Launch holds k_.mu, which guards the list.
  if (!Runtime::get().device(index_).lazy_compile) return;
  std::array<size_t, 3> wg = {1, 1, 1};
  for (cl_uint d = 0; d < dims && d < 3; ++d) wg[d] = local ? local[d] : 0;
  if (std::find(k_.launched.begin(), k_.launched.end(), wg) != k_.launched.end()) return;
  k_.launched.push_back(wg);
  LOCUS_CL(clFinish(q_), index_, "kernel " + k_.label);
}

void Launch::run1d(int64_t n) {
  if (n <= 0) return;
  size_t local = default_local(index_);
  // One item per element up to 2^30 items, grid-stride beyond: CPU drivers (PoCL) run a
  // work-group's items in order, so consecutive items must touch consecutive elements.
  int64_t items = std::min<int64_t>(n, int64_t{1} << 30);
  size_t global = (static_cast<size_t>(items) + local - 1) / local * local;
  run(1, &global, &local);
}

void Launch::run_groups(int64_t groups, size_t local) {
  if (groups <= 0) return;
  size_t global = static_cast<size_t>(groups) * local;
  run(1, &global, &local);
}

}  // namespace locus::opencl
