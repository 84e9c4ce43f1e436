// Reductions over trailing dims and softmax (reduce.cl). A reduction with a short extent runs
// one thread per output; a long one a block of 256 threads (reduce.cl's RGROUP) per output.
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/launch.h"
#include "locus/error.h"

namespace locus::cuda {

using backend::TensorRef;

namespace {

struct RGeom {  // reduce.cl: RGeom
  int64_t sizes[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t out_numel = 1;
  int64_t red_numel = 1;
  int32_t in_ndim = 0;
  int32_t out_ndim = 0;
};

// Appends dims [from, to) of `in` (and out's strides for kept dims) to g, dropping size-1 dims
// and merging neighbours that are contiguous in every operand.
void append_dims(RGeom& g, const TensorRef& in, const TensorRef* out, int from, int to) {
  int start = g.in_ndim;
  for (int d = from; d < to; ++d) {
    int64_t size = in.sizes[d];
    if (size == 1) continue;
    int64_t os = out ? out->strides[d] : 0;
    int n = g.in_ndim;
    if (n > start && g.in_strides[n - 1] == in.strides[d] * size && (!out || g.out_strides[n - 1] == os * size)) {
      g.sizes[n - 1] *= size;
      g.in_strides[n - 1] = in.strides[d];
      g.out_strides[n - 1] = os;
    } else {
      g.sizes[n] = size;
      g.in_strides[n] = in.strides[d];
      g.out_strides[n] = os;
      ++g.in_ndim;
    }
  }
}

}  // namespace

void CudaBackend::reduce(int index, StreamHandle s, backend::ReduceOp op, const TensorRef& out, const TensorRef& in) {
  if (in.ndim > kMaxDims || out.ndim > in.ndim)
    throw BackendError("[cuda] reduce: expected out.ndim <= in.ndim <= " + std::to_string(kMaxDims) + ", got " +
                       std::to_string(out.ndim) + " and " + std::to_string(in.ndim) + ".");
  RGeom g;
  append_dims(g, in, &out, 0, out.ndim);
  g.out_ndim = g.in_ndim;
  append_dims(g, in, nullptr, out.ndim, in.ndim);
  g.out_numel = out.numel();
  g.red_numel = 1;
  for (int d = out.ndim; d < in.ndim; ++d) g.red_numel *= in.sizes[d];
  if (g.out_numel == 0) return;
  bool group = g.red_numel > kBlock;
  Launch l(index, "reduce.cl", in.dtype, group ? "reduce_group" : "reduce_serial", s);
  l.buf(out.buf).buf(in.buf).arg(g).arg(static_cast<int32_t>(op)).arg(static_cast<int32_t>(out.dtype));
  if (group)
    l.run_groups(g.out_numel, kBlock);
  else
    l.run1d(g.out_numel);
}

void CudaBackend::softmax(int index, StreamHandle s, const TensorRef& out, const TensorRef& in, int64_t outer,
                          int64_t dim, int64_t inner, bool log) {
  if (outer * dim * inner == 0) return;
  if (!is_floating_point(in.dtype))
    throw BackendError(std::string("[cuda] softmax needs a floating dtype, got ") + dtype_name(in.dtype) + ".");
  if (inner == 1 && dim > kBlock) {
    Launch(index, "reduce.cl", in.dtype, "softmax_group", s)
        .buf(out.buf)
        .buf(in.buf)
        .arg(dim)
        .arg(int32_t{log})
        .run_groups(outer, kBlock);
    return;
  }
  Launch(index, "reduce.cl", in.dtype, "softmax_serial", s)
      .buf(out.buf)
      .buf(in.buf)
      .arg(outer)
      .arg(dim)
      .arg(inner)
      .arg(int32_t{log})
      .run1d(outer * inner);
}

}  // namespace locus::cuda
