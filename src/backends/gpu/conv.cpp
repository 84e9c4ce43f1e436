// Direct convolution (conv.cl): the forward with its bias, the input gradient and the weight and
// bias gradients, each one launch (the weight gradient two when its images are split over
// work-groups), instead of im2col + the vendor GEMM + the bias add (forward), and two GEMMs,
// col2im and the bias's reductions (backward). Taken where it measured faster (the selection
// below); everything else returns false, and ops convolves through im2col and a GEMM.
#include <algorithm>
#include <string>

#include "backends/gpu/gpu_backend.h"

namespace locus::gpu {

namespace {
struct ConvArgs {  // conv.cl
  int64_t n, c, h, w, oc, oh, ow;
  int32_t kh, kw, sh, sw, ph, pw, dh, dw;
  int32_t flip, bias, ocb, per_split, parts, want_w;
};
// conv.cl's compile-time sizes
constexpr int64_t kOcPerItem = 16, kRowsPerItem = 4, kTile = 1024, kMaxTaps = 25, kWgMinR = 64, kWgCo = 16,
                  kWgPixels = 32, kWgWindow = 4096;
// The selection. On PoCL (a driver on the host CPU) the direct kernels measured faster than
// im2col + CLBlast at every stride-1 kernel larger than 1x1 tried, 1 to 512 channels (the demo's
// two convolutions 2.5-2.9x, 64 -> 64 at 14x14 2.7x, 512 -> 512 at 4x4 1.6x, forward + backward
// together; docs/benchmarks.md, 2026-11-26 stop 26); a 1x1 convolution is a GEMM (about even), and
// stays one. On a GPU the vendor GEMM is far stronger, so the direct kernels take only
// convolutions whose GEMM has a short inner dimension (c*kh*kw <= 144, the demo's), where
// im2col's column buffer and the separate bias passes cost more than the product.
// Measured on an NVIDIA H200 (2026-11-27, the demo's CNN, one epoch, kernels cached): through
// NVIDIA's OpenCL driver the direct kernels trained in 3.5 s against im2col + CLBlast's 7.6 s;
// through CUDA in 32.1 s against im2col + cuBLAS's 0.77-0.97 s while the weight gradient could
// not split the images over work-groups (no scratch buffer: it ran the whole batch on one or two
// of the 132 SMs), and still in 3.1 s with the split. So CUDA never takes them
// (Caps::direct_conv), and another GPU only with the split (Caps::two_pass_reduce).
constexpr int64_t kMaxGpuReduction = 16 * 9;

// A tile of outputs: at most 32 x (256 / width) work-items, each kRowsPerItem rows, split
// evenly, whose input window fits CONV_TILE. False when no tile fits. `th` counts work-items.
bool pick_tile(int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t kh, int64_t kw, int64_t dh, int64_t dw,
               uint32_t max_items, uint32_t& tw, uint32_t& th) {
  const int64_t cols = (ow + 31) / 32;
  tw = static_cast<uint32_t>((ow + cols - 1) / cols);
  const int64_t item_rows = (oh + kRowsPerItem - 1) / kRowsPerItem;
  for (int64_t rows_max = std::min<int64_t>(item_rows, max_items / tw); rows_max >= 1; --rows_max) {
    const int64_t groups = (item_rows + rows_max - 1) / rows_max;
    th = static_cast<uint32_t>((item_rows + groups - 1) / groups);
    const int64_t win = ((th * kRowsPerItem - 1) * sh + (kh - 1) * dh + 1) * ((tw - 1) * sw + (kw - 1) * dw + 1);
    if (win <= kTile) return true;
  }
  return false;
}

// conv2d_weight_grad's columns per work-group (a work-item each: at most `max_items`, split
// evenly; every group stages its own input window and grad_out block, so the more columns share
// them the better), and whether the input window of its steps fits CW_XS.
int64_t weight_grad_columns(int64_t rows, int64_t max_items) {
  const int64_t tiles = (rows + max_items - 1) / max_items;
  return (rows + tiles - 1) / tiles;
}
bool weight_grad_fits(const backend::Backend::Im2Col& p, int64_t max_items) {
  const int64_t kk = p.kh * p.kw, nr = std::min(max_items, p.c * kk + 1);  // the most columns a group takes
  const int64_t scw = std::min(p.ow, kWgPixels), sr = kWgPixels / scw;
  const int64_t win = ((scw - 1) * p.sw + (p.kw - 1) * p.dw + 1) * ((sr - 1) * p.sh + (p.kh - 1) * p.dh + 1);
  const int64_t channels = std::min(p.c, (nr - 1) / kk + 2);  // the most one group's columns read
  return channels * win <= kWgWindow;
}

// conv.cl's build options: sums per step on CPU drivers (CONV_STEP_SUMS)
std::string options(const Caps& c) { return c.row_items ? "-DCONV_STEP_SUMS" : ""; }

ConvArgs conv_args(const backend::Backend::Im2Col& p, int64_t oc) {
  ConvArgs a{};
  a.n = p.n, a.c = p.c, a.h = p.h, a.w = p.w, a.oc = oc, a.oh = p.oh, a.ow = p.ow;
  a.kh = static_cast<int32_t>(p.kh), a.kw = static_cast<int32_t>(p.kw), a.sh = static_cast<int32_t>(p.sh);
  a.sw = static_cast<int32_t>(p.sw), a.ph = static_cast<int32_t>(p.ph), a.pw = static_cast<int32_t>(p.pw);
  a.dh = static_cast<int32_t>(p.dh), a.dw = static_cast<int32_t>(p.dw);
  return a;
}
}  // namespace

// Whether the direct kernels take this convolution: float32/float64, stride 1 (so the input
// gradient is a plain convolution of grad_out), kernels from 2 to 25 taps, tiles that fit, and the
// selection above.
bool GpuBackend::conv2d_takes(int index, ScalarType dtype, int64_t oc, const Im2Col& p) {
  const Caps c = caps(index);
  if (dtype != kFloat && !(dtype == kDouble && c.fp64)) return false;
  if (p.sh != 1 || p.sw != 1 || p.kh * p.kw > kMaxTaps || p.kh * p.kw == 1) return false;
  // a GPU only where the runtime allows it, the GEMM's inner dimension is small and the weight
  // gradient can split the images over work-groups; see kMaxGpuReduction
  if (!props(index).runs_on_host_cpu &&
      (!c.direct_conv || !c.two_pass_reduce || p.c * p.kh * p.kw > kMaxGpuReduction))
    return false;
  if (p.n <= 0 || p.oh <= 0 || p.ow <= 0 || c.local < kWgMinR) return false;
  // the input gradient's padding, (kh - 1) * dh - ph, must fit the kernel's int32 arithmetic
  if (std::max({p.h, p.w, p.oh, p.ow, p.ph, p.pw, p.dh * p.kh, p.dw * p.kw}) > (int64_t{1} << 30)) return false;
  const int64_t ocb = (std::max(oc, p.c) + kOcPerItem - 1) / kOcPerItem;
  if (c.max_grid_yz > 0 && (p.n * ocb > c.max_grid_yz || std::max(p.oh, p.h) / kRowsPerItem >= c.max_grid_yz))
    return false;
  uint32_t tw = 0, th = 0;
  return weight_grad_fits(p, c.local) && pick_tile(p.oh, p.ow, 1, 1, p.kh, p.kw, p.dh, p.dw, c.local, tw, th) &&
         pick_tile(p.h, p.w, 1, 1, p.kh, p.kw, p.dh, p.dw, c.local, tw, th);
}

void GpuBackend::conv2d_tiled(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer bias,
                              Buffer out, const ConvGeometry& g) {
  ConvArgs a = conv_args(g.p, g.oc);
  a.flip = g.flip;
  a.bias = bias.base != nullptr;
  a.ocb = static_cast<int32_t>((g.oc + kOcPerItem - 1) / kOcPerItem);
  const Caps c = caps(index);
  Grid grid;
  grid.dims = 3;
  pick_tile(g.p.oh, g.p.ow, g.p.sh, g.p.sw, g.p.kh, g.p.kw, g.p.dh, g.p.dw, c.local, grid.local[0], grid.local[1]);
  grid.groups[0] = static_cast<uint64_t>((g.p.ow + grid.local[0] - 1) / grid.local[0]);
  const int64_t rows = int64_t{grid.local[1]} * kRowsPerItem;
  grid.groups[1] = static_cast<uint64_t>((g.p.oh + rows - 1) / rows);
  grid.groups[2] = static_cast<uint64_t>(g.p.n * a.ocb);
  Launch(*this, index, s, kernel(index, "conv.cl", dtype, "conv2d_tiled", options(c)))
      .buf(in)
      .buf(weight)
      .buf(a.bias ? bias : out)  // an unused argument still needs a buffer
      .buf(out)
      .arg(a)
      .run(grid);
}

bool GpuBackend::conv2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out,
                        int64_t oc, const Im2Col& p) {
  if (!conv2d_takes(index, dtype, oc, p)) return false;
  conv2d_tiled(index, s, dtype, in, weight, bias, out, {p, oc, 0});
  return true;
}

bool GpuBackend::conv2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight,
                                 Buffer grad_out, Buffer grad_in, Buffer grad_weight, Buffer grad_bias, int64_t oc,
                                 const Im2Col& p) {
  if (!conv2d_takes(index, dtype, oc, p)) return false;
  if (grad_in.base) {
    // grad_in = grad_out convolved with the flipped, transposed weight: stride 1, the input's size
    Im2Col t = p;
    t.c = oc, t.h = p.oh, t.w = p.ow, t.oh = p.h, t.ow = p.w;
    t.ph = (p.kh - 1) * p.dh - p.ph, t.pw = (p.kw - 1) * p.dw - p.pw;
    conv2d_tiled(index, s, dtype, grad_out, weight, Buffer{}, grad_in, {t, p.c, 1});
  }
  if (!grad_weight.base && !grad_bias.base) return true;
  ConvArgs a = conv_args(p, oc);
  a.bias = grad_bias.base != nullptr;
  a.want_w = grad_weight.base != nullptr;
  const int64_t rows = p.c * p.kh * p.kw + a.bias;
  Grid grid;
  grid.dims = 3;
  grid.local[0] = static_cast<uint32_t>(weight_grad_columns(rows, caps(index).local));
  grid.groups[0] = static_cast<uint64_t>((rows + grid.local[0] - 1) / grid.local[0]);
  grid.groups[1] = static_cast<uint64_t>((oc + kWgCo - 1) / kWgCo);
  // Split the images over enough groups to fill the device (about 256 groups, at least 4 images
  // each), adding the partial sums in a second pass; one split writes the gradients directly.
  const int64_t tiles = static_cast<int64_t>(grid.groups[0] * grid.groups[1]);
  int64_t splits = std::clamp<int64_t>(256 / tiles, 1, std::max<int64_t>(1, p.n / 4));
  const Caps c = caps(index);
  if (c.max_grid_yz > 0) splits = std::min(splits, c.max_grid_yz);
  a.per_split = static_cast<int32_t>((p.n + splits - 1) / splits);
  splits = (p.n + a.per_split - 1) / a.per_split;
  const size_t esize = dtype == kDouble ? 8 : 4;
  void* tmp = nullptr;
  if (splits > 1 && c.two_pass_reduce) tmp = scratch_alloc(index, s, static_cast<size_t>(splits * oc * rows) * esize);
  if (!tmp) {
    a.per_split = static_cast<int32_t>(p.n);
    splits = 1;
  }
  a.parts = tmp ? static_cast<int32_t>(splits) : 0;
  grid.groups[2] = static_cast<uint64_t>(splits);
  const Buffer gw = a.want_w ? grad_weight : grad_bias, gb = a.bias ? grad_bias : grad_weight;
  const Buffer part = tmp ? Buffer{tmp, 0} : gw;
  try {
    Launch(*this, index, s, kernel(index, "conv.cl", dtype, "conv2d_weight_grad", options(c)))
        .buf(in)
        .buf(grad_out)
        .buf(gw)
        .buf(gb)
        .buf(part)
        .arg(a)
        .run(grid);
    if (tmp)
      Launch(*this, index, s, kernel(index, "conv.cl", dtype, "conv2d_weight_grad_sum", options(c)))
          .buf(part)
          .buf(gw)
          .buf(gb)
          .arg(a)
          .run1d(oc * rows);
  } catch (...) {
    if (tmp) scratch_free(index, s, tmp);
    throw;
  }
  if (tmp) scratch_free(index, s, tmp);  // in stream order, after the kernels (scratch_alloc)
  return true;
}

}  // namespace locus::gpu
