// index_select, gather and scatter_add. Index ranges were checked above the boundary.
// scatter_add runs serially: two source elements may target one output element.
#include <cstring>

#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using backend::IndexOp;

// The walk over `sizes` with three stride sets (elements), coalesced: the output's, the
// source's (0 along the indexed dim) and the index's.
Strides<3> walk(int ndim, const int64_t* sizes, const int64_t* a, const int64_t* b, const int64_t* c) {
  Strides<3> w;
  for (int d = 0; d < ndim; ++d) w.add(sizes[d], {a[d], b[d], c[d]});
  return w;
}

// out[i] = in[i with its `dim` coordinate replaced by the index read at i's offset in idx_st]:
// gather (idx_st: the index tensor's strides) and strided index_select (the position along dim).
template <class U>
void gather_along(const TensorRef& out, const TensorRef& in, const TensorRef& idx, const int64_t* idx_st, int dim) {
  U* o = data_as<U>(out.buf);
  const U* x = data_as<const U>(in.buf);
  const int64_t* ix = data_as<const int64_t>(idx.buf);
  int64_t in_st[kMaxDims] = {};
  for (int d = 0; d < out.ndim; ++d) in_st[d] = d == dim ? 0 : in.strides[d];
  const Strides<3> w = walk(out.ndim, out.sizes, out.strides, in_st, idx_st);
  const int64_t sdim = in.strides[dim];
  parallel_for(0, out.numel(), kGrainCheap, [&](int64_t b, int64_t e) {
    w.each(b, e, [&](const int64_t* off) { o[off[0]] = x[off[1] + ix[off[2]] * sdim]; });
  });
}

constexpr size_t kPrefetchRow = 256;  // bytes: shorter rows are a line or a few, no stream to start
constexpr int64_t kAhead = 4;
constexpr size_t kPrefetchBytes = 512;

template <class U>
void index_select(const TensorRef& out, const TensorRef& in, const TensorRef& idx, int dim) {
  const int64_t is = idx.ndim > 0 ? idx.strides[0] : 1;
  if (is_contiguous(out) && is_contiguous(in)) {  // rows of `inner` elements (embedding lookups)
    U* o = data_as<U>(out.buf);
    const U* x = data_as<const U>(in.buf);
    const int64_t* ix = data_as<const int64_t>(idx.buf);
    const int64_t L = out.sizes[dim];
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; ++d) outer *= out.sizes[d];
    for (int d = dim + 1; d < out.ndim; ++d) inner *= out.sizes[d];
    const int64_t n_in = in.sizes[dim];
    const size_t row_bytes = static_cast<size_t>(inner) * sizeof(U);
    auto src = [&](int64_t r) { return x + ((r / L) * n_in + ix[(r % L) * is]) * inner; };
    parallel_for(0, outer * L, std::max<int64_t>(1, kGrainCheap / inner), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        // rows picked at random from a dataset larger than the caches (a batch's examples): the
        // first lines of the row kAhead on are asked for while this one is copied, so that its
        // stream has started when its turn comes (64 rows of 784 floats out of 60000: 22 -> 20 us
        // on Zen 4; whole rows asked for were slower, 24 us: the hardware prefetcher does the rest)
        if (row_bytes >= kPrefetchRow && r + kAhead < e) {
          const char* next = reinterpret_cast<const char*>(src(r + kAhead));
          for (size_t c = 0; c < row_bytes && c < kPrefetchBytes; c += 64) __builtin_prefetch(next + c);
        }
        std::memcpy(o + r * inner, src(r), row_bytes);
      }
    });
    return;
  }
  int64_t pos_st[kMaxDims] = {};  // the index's position along dim
  pos_st[dim] = is;
  gather_along<U>(out, in, idx, pos_st, dim);
}

template <class T>
void scatter_add(const TensorRef& out, const TensorRef& src, const TensorRef& idx, int dim) {
  T* o = data_as<T>(out.buf);
  const T* s = data_as<const T>(src.buf);
  const int64_t* ix = data_as<const int64_t>(idx.buf);
  int64_t out_st[kMaxDims] = {};
  for (int d = 0; d < idx.ndim; ++d) out_st[d] = d == dim ? 0 : out.strides[d];
  const int64_t sdim = out.strides[dim];
  walk(idx.ndim, idx.sizes, out_st, src.strides, idx.strides).each(0, idx.numel(), [&](const int64_t* off) {
    T& dst = o[off[0] + ix[off[2]] * sdim];
    using C = compute_t<T>;
    C a = static_cast<C>(dst), v = static_cast<C>(s[off[1]]);
    if constexpr (std::is_integral_v<C> && std::is_signed_v<C>)
      dst = static_cast<T>(static_cast<C>(static_cast<std::make_unsigned_t<C>>(a) + static_cast<std::make_unsigned_t<C>>(v)));
    else
      dst = static_cast<T>(a + v);
  });
}

template <class F>
void by_size(ScalarType t, F&& f) {
  switch (esize(t)) {
    case 1: return f(static_cast<uint8_t*>(nullptr));
    case 2: return f(static_cast<uint16_t*>(nullptr));
    case 4: return f(static_cast<uint32_t*>(nullptr));
    default: return f(static_cast<uint64_t*>(nullptr));
  }
}

}  // namespace

void index(IndexOp op, const TensorRef& out, const TensorRef& in, const TensorRef& idx, int dim) {
  if (out.numel() == 0 || idx.numel() == 0) return;
  if (out.ndim == 0) {  // 0-dim tensors: one element, dim 0 of size 1
    TensorRef o = out, x = in, i = idx;
    o.ndim = x.ndim = 1;
    o.sizes[0] = x.sizes[0] = 1;
    o.strides[0] = x.strides[0] = 1;
    if (i.ndim == 0) {
      i.ndim = 1;
      i.sizes[0] = 1;
      i.strides[0] = 1;
    }
    return index(op, o, x, i, 0);
  }
  switch (op) {
    case IndexOp::IndexSelect:
      return by_size(out.dtype, [&](auto tag) { index_select<LOCUS_TYPE_OF(tag)>(out, in, idx, dim); });
    case IndexOp::Gather:
      return by_size(out.dtype, [&](auto tag) { gather_along<LOCUS_TYPE_OF(tag)>(out, in, idx, idx.strides, dim); });
    case IndexOp::ScatterAdd:
      return visit_dtype(out.dtype, "scatter_add", [&](auto tag) { scatter_add<LOCUS_TYPE_OF(tag)>(out, in, idx, dim); });
  }
  throw BackendError("[cpu index] unknown op " + std::to_string(static_cast<int>(op)) + ".");
}

}  // namespace locus::cpu
