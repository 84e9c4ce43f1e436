// Elementwise families: unary, binary (tensor and scalar operands), where, strided copy with
// dtype conversion, fill and fill_linear. One kernel per family and dtype (binary.cl, ...);
// the op is a kernel argument. Unlike OpenCL on PoCL, no op-specialised (-DFIXED_OP) programs:
// on a GPU the switch on a uniform argument costs next to nothing in a memory-bound kernel,
// and one program per family and dtype keeps first-use compile time (NVRTC) low.
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/launch.h"

namespace locus::cuda {

using backend::TensorRef;

namespace {
bool dense(const TensorRef& t) {
  int64_t expect = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}
}  // namespace

void CudaBackend::unary(int index, StreamHandle s, backend::UnaryOp op, const TensorRef& out, const TensorRef& in,
                        const backend::UnaryParams& p) {
  const TensorRef* ops[] = {&out, &in};
  Geom g = make_geom(ops, 2);
  if (g.numel == 0) return;
  Launch(index, "unary.cl", out.dtype, "unary", s)
      .buf(out.buf)
      .buf(in.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(make_scalar(p.a, out.dtype))
      .arg(make_scalar(p.b, out.dtype))
      .arg(static_cast<int32_t>(p.has_a))
      .arg(static_cast<int32_t>(p.has_b))
      .run1d(g.numel);
}

void CudaBackend::binary(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out, const TensorRef& a,
                         const TensorRef& b) {
  const TensorRef* ops[] = {&out, &a, &b};
  Geom g = make_geom(ops, 3);
  if (g.numel == 0) return;
  Launch(index, "binary.cl", a.dtype, "binary", s)
      .buf(out.buf)
      .buf(a.buf)
      .buf(b.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(int32_t{0})
      .arg(Scalar{})
      .run1d(g.numel);
}

void CudaBackend::binary_scalar(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out,
                                const TensorRef& a, double scalar, bool scalar_first) {
  const TensorRef* ops[] = {&out, &a};
  Geom g = make_geom(ops, 2);
  if (g.numel == 0) return;
  Launch(index, "binary.cl", a.dtype, "binary", s)
      .buf(out.buf)
      .buf(a.buf)
      .buf(a.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(int32_t{scalar_first ? 2 : 1})
      .arg(make_scalar(scalar, a.dtype))
      .run1d(g.numel);
}

void CudaBackend::where(int index, StreamHandle s, const TensorRef& out, const TensorRef& cond, const TensorRef& a,
                        const TensorRef& b) {
  const TensorRef* ops[] = {&out, &cond, &a, &b};
  Geom g = make_geom(ops, 4);
  if (g.numel == 0) return;
  Launch(index, "copy.cl", out.dtype, "where_select", s)
      .buf(out.buf)
      .buf(cond.buf)
      .buf(a.buf)
      .buf(b.buf)
      .arg(g)
      .run1d(g.numel);
}

void CudaBackend::copy(int index, StreamHandle s, const TensorRef& out, const TensorRef& in) {
  if (out.numel() == 0) return;
  if (out.dtype == in.dtype && dense(out) && dense(in)) {
    copy_within(index, out.buf, in.buf, static_cast<size_t>(out.numel()) * element_size(out.dtype), s);
    return;
  }
  const TensorRef* ops[] = {&out, &in};
  Geom g = make_geom(ops, 2);
  Launch(index, "copy.cl", out.dtype, "copy_cast", s)
      .buf(out.buf)
      .buf(in.buf)
      .arg(g)
      .arg(static_cast<int32_t>(in.dtype))
      .run1d(g.numel);
}

void CudaBackend::fill(int index, StreamHandle s, const TensorRef& out, double value) {
  const TensorRef* ops[] = {&out};
  Geom g = make_geom(ops, 1);
  if (g.numel == 0) return;
  Launch(index, "copy.cl", out.dtype, "fill", s).buf(out.buf).arg(g).arg(make_scalar(value, out.dtype)).run1d(g.numel);
}

void CudaBackend::fill_linear(int index, StreamHandle s, const TensorRef& out, double start, double step) {
  int64_t n = out.numel();
  if (n == 0) return;
  Launch(index, "copy.cl", out.dtype, "fill_linear", s)
      .buf(out.buf)
      .arg(n)
      .arg(make_scalar(start, out.dtype))
      .arg(make_scalar(step, out.dtype))
      .run1d(n);
}

}  // namespace locus::cuda
