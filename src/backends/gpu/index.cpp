// The index family (index.cl), im2col / col2im (im2col.cl), max pooling (pool.cl) and the Philox
// random fills (random.cl, identical to the CPU backend's stream: src/kernels/philox.h).
#include <algorithm>

#include "backends/gpu/gpu_backend.h"
#include "locus/error.h"

namespace locus::gpu {

namespace {
struct Im2ColArgs {  // im2col.cl
  int64_t n, c, h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
};
struct PoolArgs {  // pool.cl
  int64_t h, w, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
};
}  // namespace

void GpuBackend::index(int index, StreamHandle s, backend::IndexOp op, const TensorRef& out, const TensorRef& in,
                       const TensorRef& idx, int dim) {
  bool scatter = op == backend::IndexOp::ScatterAdd;
  // iterate over out's shape (gather, index_select) or the index's (scatter_add); no dim
  // merging here: `dim` must stay a dim of its own
  const TensorRef& shape = scatter ? idx : out;
  Geom g;
  int nd = std::max(1, shape.ndim);
  if (nd > kMaxDims) throw BackendError(prefix() + " index: at most 8 dims.");
  g.ndim = nd;
  g.numel = shape.numel();
  for (int d = 0; d < nd; ++d) {
    g.sizes[d] = d < shape.ndim ? shape.sizes[d] : 1;
    g.strides[0][d] = d < out.ndim ? out.strides[d] : 0;
    g.strides[1][d] = d < in.ndim ? in.strides[d] : 0;
    if (op == backend::IndexOp::IndexSelect)
      g.strides[2][d] = (d == dim && idx.ndim > 0) ? idx.strides[0] : 0;
    else
      g.strides[2][d] = d < idx.ndim ? idx.strides[d] : 0;
  }
  if (g.numel == 0) return;
  const TensorRef& sized = scatter ? out : in;  // the tensor the index points into
  int64_t dim_size = dim < sized.ndim ? sized.sizes[dim] : 1;
  if (scatter && (out.dtype == kLong || out.dtype == kDouble) && !caps(index).int64_atomics)
    throw BackendError(prefix() + " scatter_add on " + dtype_name(out.dtype) + " needs 64-bit atomics, which " +
                       device_label(index) + " lacks. Use a 32-bit dtype on this device.");
  Launch(*this, index, s, kernel(index, "index.cl", out.dtype, "index_op", ""))
      .buf(out.buf)
      .buf(in.buf)
      .buf(idx.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(static_cast<int32_t>(dim))
      .arg(dim_size)
      .run1d(g.numel);
}

void GpuBackend::im2col(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out, const Im2Col& p,
                        bool reverse) {
  // the whole batch in one launch (it was one per image: 64 launches per convolution and pass at
  // batch 64); the kernel grid-strides over the rows of every image, a work-item per row
  Im2ColArgs a{p.n, p.c, p.h, p.w, p.kh, p.kw, p.oh, p.ow, p.sh, p.sw, p.ph, p.pw, p.dh, p.dw};
  int64_t n = p.n * p.c * (reverse ? p.h : p.kh * p.kw * p.oh);
  if (n == 0 || (reverse ? p.w : p.ow) == 0) return;
  Launch(*this, index, s, kernel(index, "im2col.cl", dtype, reverse ? "col2im" : "im2col", ""))
      .buf(in)
      .buf(out)
      .arg(a)
      .run1d(n);
}

bool GpuBackend::max_pool2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out, Buffer indices,
                            int64_t planes, const Im2Col& p) {
  // Without padding every window holds an element of the plane; windows that do not overlap let
  // the backward add without atomics (each input element is in at most one window).
  const bool disjoint = p.sh >= (p.kh - 1) * p.dh + 1 && p.sw >= (p.kw - 1) * p.dw + 1;
  if (p.ph != 0 || p.pw != 0 || !disjoint || dtype == kBool) return false;
  if (planes * p.oh * p.ow == 0) return true;
  PoolArgs a{p.h, p.w, p.kh, p.kw, p.oh, p.ow, p.sh, p.sw, p.ph, p.pw, p.dh, p.dw};
  const bool by_rows = caps(index).row_items;  // a row of outputs per item on CPU drivers
  Launch(*this, index, s, kernel(index, "pool.cl", dtype, "max_pool2d", ""))
      .buf(in)
      .buf(out)
      .buf(indices)
      .arg(a)
      .arg(planes)
      .arg(int32_t{by_rows})
      .run1d(planes * p.oh * (by_rows ? 1 : p.ow));
  return true;
}

bool GpuBackend::max_pool2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer grad_out, Buffer indices,
                                     Buffer grad_in, int64_t planes, const Im2Col& p) {
  const int64_t in_hw = p.h * p.w, out_hw = p.oh * p.ow;
  // only after max_pool2d above ran the forward: disjoint windows, so no two outputs share an index
  TensorRef gi;
  gi.buf = grad_in;
  gi.dtype = dtype;
  gi.ndim = 1;
  gi.sizes[0] = planes * in_hw;
  gi.strides[0] = 1;
  fill(index, s, gi, 0);
  if (planes * out_hw == 0) return true;
  Launch(*this, index, s, kernel(index, "pool.cl", dtype, "max_pool2d_backward", ""))
      .buf(grad_out)
      .buf(indices)
      .buf(grad_in)
      .arg(planes)
      .arg(in_hw)
      .arg(out_hw)
      .run1d(planes * out_hw);
  return true;
}

void GpuBackend::random(int index, StreamHandle s, backend::RandomKind kind, const TensorRef& out, uint64_t seed,
                        uint64_t offset, double a, double b) {
  int64_t n = out.numel();
  if (n == 0) return;
  uint64_t range = 1;
  if (kind == backend::RandomKind::Int) {
    // ranges beyond 2^32 are refused above (randint); random.cl takes 64 bits for them all the same
    if (!(b > a))
      throw BackendError("[" + std::string(device_type_name(type())) + " random] an integer range needs high > low, got [" +
                         std::to_string(a) + ", " + std::to_string(b) + ").");
    range = static_cast<uint64_t>(static_cast<int64_t>(b) - static_cast<int64_t>(a));
  }
  Launch(*this, index, s, kernel(index, "random.cl", out.dtype, "random_fill", ""))
      .buf(out.buf)
      .arg(n)
      .arg(seed)
      .arg(offset / 4)
      .arg(static_cast<int32_t>(kind))
      .arg(make_scalar(a, kFloat))
      .arg(make_scalar(b, kFloat))
      .arg(range)
      .run1d((n + 3) / 4);
}

}  // namespace locus::gpu
