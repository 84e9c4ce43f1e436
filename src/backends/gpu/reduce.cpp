// Reductions over trailing dims and softmax (reduce.cl). A reduction with a short extent runs
// one work-item per output; a long one a work-group per output with a tree in local memory; a
// long one with few outputs (a full sum), where the runtime allows it (Caps::two_pass_reduce),
// many work-groups per output, then a combining pass.
#include <algorithm>

#include "backends/gpu/gpu_backend.h"
#include "locus/error.h"

namespace locus::gpu {

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

// Two passes (reduce_partial + reduce_finish) for at most kPartialOutputs outputs, one part per
// kPartialChunk reduced elements (at most 256 parts per output).
constexpr int64_t kPartialOutputs = 64, kPartialChunk = 16384;

// The work-group size of the group kernels: the largest power of two within Caps::local, and
// the build option that tells reduce.cl (whose RGROUP defaults to 256).
uint32_t group_size(uint32_t local) {
  uint32_t l = 1;
  while (l * 2 <= local) l *= 2;
  return l;
}

std::string group_define(uint32_t l) { return l == 256 ? "" : "-DRGROUP=" + std::to_string(l); }

}  // namespace

void GpuBackend::reduce(int index, StreamHandle s, backend::ReduceOp op, const TensorRef& out, const TensorRef& in) {
  if (in.ndim > kMaxDims || out.ndim > in.ndim)
    throw BackendError(prefix() + " reduce: expected out.ndim <= in.ndim <= " + std::to_string(kMaxDims) + ", got " +
                       std::to_string(out.ndim) + " and " + std::to_string(in.ndim) + ".");
  RGeom g;
  append_dims(g, in, &out, 0, out.ndim);
  g.out_ndim = g.in_ndim;
  append_dims(g, in, nullptr, out.ndim, in.ndim);
  g.out_numel = out.numel();
  g.red_numel = 1;
  for (int d = out.ndim; d < in.ndim; ++d) g.red_numel *= in.sizes[d];
  if (g.out_numel == 0) return;
  const Caps caps = this->caps(index);
  const uint32_t local = group_size(caps.local);
  const std::string options = group_define(local);
  bool group = g.red_numel > 256;
  // Few outputs over a long extent: several work-groups per output, then a pass that combines
  // them (reduce.cl: reduce_partial, reduce_finish), so a full reduction uses the whole device.
  // The partials live in a scratch buffer released right after the launches (scratch_free: in
  // stream order, after them); no scratch memory: the one-pass kernel.
  const int64_t parts = std::min<int64_t>(256, g.red_numel / kPartialChunk);
  if (caps.two_pass_reduce && group && parts >= 2 && g.out_numel <= kPartialOutputs) {
    const int64_t slots = g.out_numel * parts;
    const size_t acc_bytes = static_cast<size_t>(slots) * 8;  // ACC is at most 8 bytes
    if (void* tmp = scratch_alloc(index, s, acc_bytes * 2 + static_cast<size_t>(slots) * 4)) {
      const Buffer pacc{tmp, 0}, pidx{tmp, acc_bytes}, pfirst{tmp, acc_bytes * 2};
      try {
        Launch(*this, index, s, kernel(index, "reduce.cl", in.dtype, "reduce_partial", options))
            .buf(pacc)
            .buf(pidx)
            .buf(pfirst)
            .buf(in.buf)
            .arg(g)
            .arg(static_cast<int32_t>(op))
            .arg(parts)
            .run_groups(slots, local);
        Launch(*this, index, s, kernel(index, "reduce.cl", in.dtype, "reduce_finish", options))
            .buf(out.buf)
            .buf(pacc)
            .buf(pidx)
            .buf(pfirst)
            .arg(g)
            .arg(static_cast<int32_t>(op))
            .arg(static_cast<int32_t>(out.dtype))
            .arg(parts)
            .run1d(g.out_numel);
      } catch (...) {
        scratch_free(index, s, tmp);
        throw;
      }
      scratch_free(index, s, tmp);
      return;
    }
  }
  Launch l(*this, index, s, kernel(index, "reduce.cl", in.dtype, group ? "reduce_group" : "reduce_serial", options));
  l.buf(out.buf).buf(in.buf).arg(g).arg(static_cast<int32_t>(op)).arg(static_cast<int32_t>(out.dtype));
  if (group)
    l.run_groups(g.out_numel, local);
  else
    l.run1d(g.out_numel);
}

bool GpuBackend::log_softmax_nll(int index, StreamHandle s, ScalarType dtype, Buffer logits, Buffer target,
                                 Buffer logp, Buffer loss, Buffer count, Buffer bad, int64_t n, int64_t c,
                                 int64_t ignore_index, bool mean) {
  if (dtype != kFloat && !(dtype == kDouble && caps(index).fp64)) return false;
  // one work-group does it all: a classifier's batch, not a language model's [tokens, vocabulary]
  // (the composed form spreads those rows over the device)
  if (n * c > (int64_t{1} << 18)) return false;
  const uint32_t local = group_size(caps(index).local);
  Launch(*this, index, s, kernel(index, "reduce.cl", dtype, "log_softmax_nll", group_define(local)))
      .buf(logits)
      .buf(target)
      .buf(logp)
      .buf(loss)
      .buf(count)
      .buf(bad)
      .arg(n)
      .arg(c)
      .arg(ignore_index)
      .arg(int32_t{mean})
      .run_groups(1, local);
  return true;
}

bool GpuBackend::log_softmax_nll_backward(int index, StreamHandle s, ScalarType dtype, Buffer logp, Buffer target,
                                          Buffer grad_loss, Buffer count, Buffer grad_in, int64_t n, int64_t c,
                                          int64_t ignore_index, bool mean) {
  if (dtype != kFloat && !(dtype == kDouble && caps(index).fp64)) return false;
  if (n * c == 0) return true;
  const uint32_t local = group_size(caps(index).local);
  Launch(*this, index, s, kernel(index, "reduce.cl", dtype, "log_softmax_nll_backward", group_define(local)))
      .buf(logp)
      .buf(target)
      .buf(grad_loss)
      .buf(count)
      .buf(grad_in)
      .arg(n)
      .arg(c)
      .arg(ignore_index)
      .arg(int32_t{mean})
      .run1d(n * c);
  return true;
}

void GpuBackend::softmax(int index, StreamHandle s, const TensorRef& out, const TensorRef& in, int64_t outer,
                         int64_t dim, int64_t inner, bool log) {
  if (outer * dim * inner == 0) return;
  if (!is_floating_point(in.dtype))
    throw BackendError(prefix() + " softmax needs a floating dtype, got " + dtype_name(in.dtype) + ".");
  const uint32_t local = group_size(caps(index).local);
  if (inner == 1 && dim > 256) {
    Launch(*this, index, s, kernel(index, "reduce.cl", in.dtype, "softmax_group", group_define(local)))
        .buf(out.buf)
        .buf(in.buf)
        .arg(dim)
        .arg(int32_t{log})
        .run_groups(outer, local);
    return;
  }
  Launch(*this, index, s, kernel(index, "reduce.cl", in.dtype, "softmax_serial", group_define(local)))
      .buf(out.buf)
      .buf(in.buf)
      .arg(outer)
      .arg(dim)
      .arg(inner)
      .arg(int32_t{log})
      .run1d(outer * inner);
}

}  // namespace locus::gpu
