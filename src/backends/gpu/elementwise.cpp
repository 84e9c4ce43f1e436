// Elementwise families: unary, binary (tensor and scalar operands), where, strided copy with
// dtype conversion, fill and fill_linear. One kernel per family and dtype (binary.cl, ...);
// the op is a kernel argument.
#include "backends/gpu/gpu_backend.h"
#include "locus/error.h"

namespace locus::gpu {

namespace {

bool dense(const TensorRef& t) {
  int64_t expect = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

// Geometry of `n` operands sharing ops[0]'s sizes (broadcast dims have stride 0): size-1 dims
// dropped, mergeable neighbours merged, `contiguous` set when every operand is dense. Where the
// runtime asks for it (Caps::row_items: CPU drivers, whose items run one after another on a
// core), a strided launch takes a row of the last dim per work-item (`row`), so geom_offsets'
// divisions are paid per row, not per element: a convolution's bias add ([N, C, H*W] + [C, 1])
// spent most of its time in them on PoCL. A GPU keeps an item per element (coalesced accesses).
Geom make_geom(GpuBackend& b, int index, const TensorRef* const* ops, int n) {
  Geom g;
  const TensorRef& o = *ops[0];
  if (o.ndim > kMaxDims)
    throw BackendError(b.prefix() + " kernels take at most " + std::to_string(kMaxDims) + " dims, got " +
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
  constexpr int64_t kMinRow = 8;
  if (!g.contiguous && g.sizes[g.ndim - 1] >= kMinRow && b.caps(index).row_items) g.row = g.sizes[g.ndim - 1];
  return g;
}

// Where the runtime asks for it (OpenCL on PoCL), large launches get a program with the op
// compiled in (-DFIXED_OP), which lets the compiler drop the op switch: 3x the throughput on
// PoCL. Small ones share the generic program, which keeps the number of programs (and
// first-run compile time) small. On a GPU the switch on a uniform argument costs next to
// nothing in a memory-bound kernel, and one program per family and dtype keeps compiles low.
std::string specialize(GpuBackend& b, int index, int op, const Geom& g) {
  return g.numel >= (int64_t{1} << 16) && b.caps(index).fixed_op_programs ? "-DFIXED_OP=" + std::to_string(op)
                                                                          : std::string();
}

// Work-items for a launch over g: one per element, or one per row (make_geom).
int64_t items(const Geom& g) { return g.row > 0 ? g.numel / g.row : g.numel; }

}  // namespace

void GpuBackend::unary(int index, StreamHandle s, backend::UnaryOp op, const TensorRef& out, const TensorRef& in,
                       const backend::UnaryParams& p) {
  const TensorRef* ops[] = {&out, &in};
  Geom g = make_geom(*this, index, ops, 2);
  if (g.numel == 0) return;
  Launch(*this, index, s, kernel(index, "unary.cl", out.dtype, "unary", specialize(*this, index, int(op), g)))
      .buf(out.buf)
      .buf(in.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(make_scalar(p.a, out.dtype))
      .arg(make_scalar(p.b, out.dtype))
      .arg(static_cast<int32_t>(p.has_a))
      .arg(static_cast<int32_t>(p.has_b))
      .run1d(items(g));
}

void GpuBackend::binary(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out, const TensorRef& a,
                        const TensorRef& b) {
  const TensorRef* ops[] = {&out, &a, &b};
  Geom g = make_geom(*this, index, ops, 3);
  if (g.numel == 0) return;
  Launch(*this, index, s, kernel(index, "binary.cl", a.dtype, "binary", specialize(*this, index, int(op), g)))
      .buf(out.buf)
      .buf(a.buf)
      .buf(b.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(int32_t{0})
      .arg(Scalar{})
      .run1d(items(g));
}

void GpuBackend::binary_scalar(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out,
                               const TensorRef& a, double scalar, bool scalar_first) {
  const TensorRef* ops[] = {&out, &a};
  Geom g = make_geom(*this, index, ops, 2);
  if (g.numel == 0) return;
  Launch(*this, index, s, kernel(index, "binary.cl", a.dtype, "binary", specialize(*this, index, int(op), g)))
      .buf(out.buf)
      .buf(a.buf)
      .buf(a.buf)
      .arg(g)
      .arg(static_cast<int32_t>(op))
      .arg(int32_t{scalar_first ? 2 : 1})
      .arg(make_scalar(scalar, a.dtype))
      .run1d(items(g));
}

void GpuBackend::where(int index, StreamHandle s, const TensorRef& out, const TensorRef& cond, const TensorRef& a,
                       const TensorRef& b) {
  const TensorRef* ops[] = {&out, &cond, &a, &b};
  Geom g = make_geom(*this, index, ops, 4);
  if (g.numel == 0) return;
  Launch(*this, index, s, kernel(index, "copy.cl", out.dtype, "where_select", ""))
      .buf(out.buf)
      .buf(cond.buf)
      .buf(a.buf)
      .buf(b.buf)
      .arg(g)
      .run1d(items(g));
}

void GpuBackend::copy(int index, StreamHandle s, const TensorRef& out, const TensorRef& in) {
  if (out.numel() == 0) return;
  if (out.dtype == in.dtype && dense(out) && dense(in)) {
    copy_within(index, out.buf, in.buf, static_cast<size_t>(out.numel()) * element_size(out.dtype), s);
    return;
  }
  if (in.dtype == kDouble && !caps(index).fp64)
    throw BackendError(prefix() + " " + device_label(index) + " does not support float64 (no cl_khr_fp64). Use "
                       "float32 on this device.");
  const TensorRef* ops[] = {&out, &in};
  Geom g = make_geom(*this, index, ops, 2);
  Launch(*this, index, s, kernel(index, "copy.cl", out.dtype, "copy_cast", ""))
      .buf(out.buf)
      .buf(in.buf)
      .arg(g)
      .arg(static_cast<int32_t>(in.dtype))
      .run1d(items(g));
}

void GpuBackend::fill(int index, StreamHandle s, const TensorRef& out, double value) {
  const TensorRef* ops[] = {&out};
  Geom g = make_geom(*this, index, ops, 1);
  if (g.numel == 0) return;
  Launch(*this, index, s, kernel(index, "copy.cl", out.dtype, "fill", ""))
      .buf(out.buf)
      .arg(g)
      .arg(make_scalar(value, out.dtype))
      .run1d(items(g));
}

void GpuBackend::fill_linear(int index, StreamHandle s, const TensorRef& out, double start, double step) {
  int64_t n = out.numel();
  if (n == 0) return;
  Launch(*this, index, s, kernel(index, "copy.cl", out.dtype, "fill_linear", ""))
      .buf(out.buf)
      .arg(n)
      .arg(make_scalar(start, out.dtype))
      .arg(make_scalar(step, out.dtype))
      .run1d(n);
}

}  // namespace locus::gpu
