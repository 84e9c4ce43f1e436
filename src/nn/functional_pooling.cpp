// ---- pooling batch (stop 46) ----
// include/locus/nn/functional_pooling.h. Max pooling with indices runs the backend's max_pool2d
// kernel where the window allows it (1-D, 2-D, and 3-D once per kernel depth offset, without a
// ceil_mode extension in H or W: the kernel keeps the positions of its maxima for the backward
// anyway); every other max over windows (ceil extension, adaptive, fractional) is a separable max
// over per-dim tables of window positions:
// gather the windows along W, take the max, then along H, then D, and trace the positions back.
// Reducing W first keeps PyTorch's tie rule, the first maximum in (d, h, w) scan order; a window
// cell outside the input repeats the window's first valid position, so it never wins on its own.
#include "locus/nn/functional_pooling.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "locus/aten.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"
#include "ops/conv.h"

namespace locus::nn::functional {
namespace {

// One spatial dim's windows: pos [planes or 1, out * len] (kLong, cpu) of valid input positions.
struct Windows {
  std::vector<int64_t> pos;  // planes_of_table * out * len
  int64_t planes = 1, out = 1, len = 1;
};

Windows trivial_windows() { return Windows{{0}, 1, 1, 1}; }

// A sliding window along n: kernel k, stride s, padding p, dilation d, `out` windows.
Windows sliding_windows(const char* op, int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, int64_t out) {
  Windows w{{}, 1, out, k};
  w.pos.reserve(static_cast<size_t>(out * k));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - p;
    int64_t first = -1;
    for (int64_t j = 0; j < k && first < 0; ++j)
      if (start + j * d >= 0 && start + j * d < n) first = start + j * d;
    if (first < 0)
      throw Error("[" + std::string(op) + "] a pooling window lies entirely in the padding (input size " +
                  std::to_string(n) + ", kernel_size " + std::to_string(k) + ", padding " + std::to_string(p) + ").");
    for (int64_t j = 0; j < k; ++j) {
      const int64_t at = start + j * d;
      w.pos.push_back(at >= 0 && at < n ? at : first);
    }
  }
  return w;
}

// Adaptive cells: cell i covers [floor(i n / out), ceil((i + 1) n / out)); shorter cells repeat
// their last position (which changes no maximum and, coming later, wins no tie).
Windows adaptive_windows(int64_t n, int64_t out) {
  auto begin = [&](int64_t i) { return (i * n) / out; };
  auto end = [&](int64_t i) { return ((i + 1) * n + out - 1) / out; };
  Windows w{{}, 1, out, 1};
  for (int64_t i = 0; i < out; ++i) w.len = std::max(w.len, end(i) - begin(i));
  for (int64_t i = 0; i < out; ++i)
    for (int64_t j = 0; j < w.len; ++j) w.pos.push_back(std::min(begin(i) + j, end(i) - 1));
  return w;
}

// Max of x [P, S0, S1, S2] over the windows of each spatial dim -> values [P, o0, o1, o2]
// (differentiable) and the flat positions d*S1*S2 + h*S2 + w of the maxima (kLong). Only the
// gathered windows of each stage and its argmax are kept; the positions are traced back from the
// last stage's argmax at the end, on output-sized tensors.
std::tuple<Tensor, Tensor> windowed_max(const Tensor& x, const std::array<Windows, 3>& win) {
  const int64_t planes = x.size(0);
  const std::array<int64_t, 3> in{x.size(1), x.size(2), x.size(3)};
  const TensorOptions lo = TensorOptions().dtype(kLong).device(x.device());
  Tensor v = x;
  std::array<Tensor, 3> argmax, table;
  for (int dim = 2; dim >= 0; --dim) {
    const Windows& w = win[static_cast<size_t>(dim)];
    const int64_t ax = dim + 1, cells = w.out * w.len;
    table[static_cast<size_t>(dim)] = tensor(w.pos, TensorOptions().dtype(kLong)).to(x.device());
    Tensor g;
    if (w.planes == 1) {  // one table for every plane
      g = v.index_select(ax, table[static_cast<size_t>(dim)]);
    } else {  // a table per plane (fractional pooling)
      std::vector<int64_t> view{planes, 1, 1, 1}, shape(v.sizes().begin(), v.sizes().end());
      view[static_cast<size_t>(ax)] = cells;
      shape[static_cast<size_t>(ax)] = cells;
      g = v.gather(ax, table[static_cast<size_t>(dim)].view(view).expand(shape).contiguous());
    }
    auto [m, k] = g.unflatten(ax, {w.out, w.len}).max(ax + 1);
    argmax[static_cast<size_t>(dim)] = k;
    v = m;
  }
  // the input position of window cell k of output o along `dim`, for k shaped as an output
  auto position = [&](int dim, const Tensor& k) {
    const Windows& w = win[static_cast<size_t>(dim)];
    std::vector<int64_t> view{1, 1, 1, 1};
    view[static_cast<size_t>(dim + 1)] = w.out;
    Tensor at = k + (arange(w.out, lo) * w.len).view(view);
    if (w.planes != 1) at = at + (arange(planes, lo) * (w.out * w.len)).view({planes, 1, 1, 1});
    return table[static_cast<size_t>(dim)].index_select(0, at.flatten()).view(k.sizes());
  };
  const Tensor d = position(0, argmax[0]);                                      // [P, o0, o1, o2]
  const Tensor h = position(1, argmax[1].gather(1, d));                         // argmax[1] [P, S0, o1, o2]
  const int64_t o0 = d.size(1), o1 = d.size(2), o2 = d.size(3);
  const Tensor kw = argmax[2].reshape({planes, in[0] * in[1], o2})           // argmax[2] [P, S0, S1, o2]
                        .gather(1, (d * in[1] + h).reshape({planes, o0 * o1, o2}))
                        .view({planes, o0, o1, o2});
  const Tensor flat = (d * in[1] + h) * in[2] + position(2, kw);
  return {v, flat};
}

// input [N, C, *spatial] or [C, *spatial] (nd spatial dims) -> [N*C, S0, S1, S2] with ones in front
// for the unused dims; `lead` gets the leading dims to restore.
Tensor as_planes(const char* op, const Tensor& input, int nd, std::vector<int64_t>& lead) {
  if (input.dim() != nd + 1 && input.dim() != nd + 2)
    throw Error("[" + std::string(op) + "] expected a " + std::to_string(nd + 1) + "-D (unbatched) or " +
                std::to_string(nd + 2) + "-D (batched) input, got " + ops::shape_str(input.sizes()) + ".");
  lead.assign(input.sizes().begin(), input.sizes().end() - nd);
  std::vector<int64_t> shape{-1};
  for (int i = nd; i < 3; ++i) shape.push_back(1);
  for (int i = 0; i < nd; ++i) shape.push_back(input.size(input.dim() - nd + i));
  return input.reshape(shape);
}

// [P, o0, o1, o2] back to lead + the last nd dims.
Tensor from_planes(const Tensor& y, const std::vector<int64_t>& lead, int nd) {
  std::vector<int64_t> shape = lead;
  for (int i = 3 - nd; i < 3; ++i) shape.push_back(y.size(i + 1));
  return y.reshape(shape);
}

std::string join(const int64_t* v, int nd, const char* sep = ", ") {
  std::string s;
  for (int i = 0; i < nd; ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// PyTorch's pool checks: positive window, stride and dilation, padding at most half the window.
void check_pool(const char* op, int nd, const int64_t* k, const int64_t* s, const int64_t* p, const int64_t* d) {
  for (int i = 0; i < nd; ++i)
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0)
      throw Error("[" + std::string(op) + "] kernel_size (" + join(k, nd) + "), stride (" + join(s, nd) +
                  ") and dilation must be positive and padding non-negative.");
  for (int i = 0; i < nd; ++i)
    if (p[i] > k[i] / 2)
      throw Error("[" + std::string(op) + "] padding (" + join(p, nd) + ") must be at most half of kernel_size (" +
                  join(k, nd) + ") in each dim, as in PyTorch; use padding <= kernel_size / 2.");
}

template <size_t D>
std::tuple<Tensor, Tensor> max_pool_with_indices(const char* op, const Tensor& input, ExpandingArray<D> k,
                                                 ExpandingArray<D> s, ExpandingArray<D> p, ExpandingArray<D> d,
                                                 bool ceil_mode) {
  const int nd = static_cast<int>(D);
  check_pool(op, nd, k.data(), s.data(), p.data(), d.data());
  std::vector<int64_t> lead;
  const Tensor x = as_planes(op, input, nd, lead);
  std::array<int64_t, 3> out{1, 1, 1};
  bool extended = false, extended_depth = false;  // ceil_mode adds a window in H or W / in depth
  for (int i = 0; i < nd; ++i) {
    const int64_t n = x.size(4 - nd + i);
    out[static_cast<size_t>(3 - nd + i)] = ops::pool_output_size(n, k[i], s[i], p[i], d[i], ceil_mode);
    if (out[static_cast<size_t>(3 - nd + i)] <= 0)
      throw Error("[" + std::string(op) + "] the window does not fit the padded input " +
                  ops::shape_str(input.sizes()) + ".");
    if (ops::pool_output_size(n, k[i], s[i], p[i], d[i], false) != out[static_cast<size_t>(3 - nd + i)])
      (i == 0 && nd == 3 ? extended_depth : extended) = true;
  }
  if (nd <= 2 && !extended) {  // the backend's kernel, which keeps the positions of the maxima
    const ops::Window w = nd == 2 ? ops::Window{k[0], k[D - 1], d[0], d[D - 1], p[0], p[D - 1], s[0], s[D - 1]}
                                  : ops::Window{1, k[0], 1, d[0], 0, p[0], 1, s[0]};
    auto [v, idx] = ops::max_pool2d_with_indices(x, w);  // x [P, 1, H, W] (H 1 in 1-D)
    if (v.defined()) return {from_planes(v, lead, nd), from_planes(idx, lead, nd)};
  }
  if (nd == 3 && !extended) {
    // the backend's 2-D kernel once per kernel depth offset j, on the depth slices it reads (a
    // slice in the padding or past the input repeats the window's first valid one, which wins no
    // tie), then the max over j: the first maximum in (d, h, w) order
    const Windows depth = sliding_windows(op, x.size(1), k[0], s[0], p[0], d[0], out[0]);
    const int64_t h = x.size(2), w = x.size(3), od = out[0];
    const ops::Window w2{k[1], k[D - 1], d[1], d[D - 1], p[1], p[D - 1], s[1], s[D - 1]};
    std::vector<Tensor> vals, idxs;
    for (int64_t j = 0; j < k[0]; ++j) {
      std::vector<int64_t> at(static_cast<size_t>(od));
      for (int64_t o = 0; o < od; ++o) at[static_cast<size_t>(o)] = depth.pos[static_cast<size_t>(o * k[0] + j)];
      const Tensor slices = x.index_select(1, tensor(at, TensorOptions().dtype(kLong)).to(x.device()));
      auto [v, idx] = ops::max_pool2d_with_indices(slices.reshape({-1, 1, h, w}), w2);
      if (!v.defined()) break;
      vals.push_back(v);
      idxs.push_back(idx);
    }
    if (static_cast<int64_t>(vals.size()) == k[0]) {
      auto [v, kj] = stack(vals, 0).max(0);  // [P * od, 1, oh, ow]
      const Tensor hw = stack(idxs, 0).gather(0, kj.unsqueeze(0)).squeeze(0);
      const Tensor table = tensor(depth.pos, TensorOptions().dtype(kLong)).to(x.device());
      const Tensor o = (arange(od, TensorOptions().dtype(kLong).device(x.device())) * k[0]).repeat({x.size(0)});
      const Tensor dd = table.index_select(0, (kj.flatten(1) + o.view({-1, 1})).flatten()).view(kj.sizes());
      const std::vector<int64_t> shape{x.size(0), od, hw.size(2), hw.size(3)};
      return {from_planes(v.view(shape), lead, nd), from_planes((dd * (h * w) + hw).view(shape), lead, nd)};
    }
  }
  std::array<Windows, 3> win{trivial_windows(), trivial_windows(), trivial_windows()};
  for (int i = 0; i < nd; ++i)
    win[static_cast<size_t>(3 - nd + i)] =
        sliding_windows(op, x.size(4 - nd + i), k[i], s[i], p[i], d[i], out[static_cast<size_t>(3 - nd + i)]);
  auto [v, idx] = windowed_max(x, win);
  return {from_planes(v, lead, nd), from_planes(idx, lead, nd)};
}

template <size_t D>
std::tuple<Tensor, Tensor> adaptive_max_with_indices(const char* op, const Tensor& input, ExpandingArray<D> size) {
  const int nd = static_cast<int>(D);
  std::vector<int64_t> lead;
  const Tensor x = as_planes(op, input, nd, lead);
  for (int i = 0; i < nd; ++i)
    if (size[i] <= 0)
      throw Error("[" + std::string(op) + "] output_size must be positive, got " + join(size.data(), nd) + ".");
  for (int i = 1; i < 4; ++i)
    if (x.size(i) == 0)
      throw Error("[" + std::string(op) + "] expected an input with non-zero sizes in its pooled dims, got " +
                  ops::shape_str(input.sizes()) + ".");
  std::array<int64_t, D> cell{};
  bool even = true;
  for (int i = 0; i < nd; ++i) {
    const int64_t n = x.size(4 - nd + i);
    even = even && n % size[i] == 0;
    cell[static_cast<size_t>(i)] = n / std::max<int64_t>(size[i], 1);
  }
  if (even)  // equal cells: a plain pool of that window, on the backend's kernel where it can
    return max_pool_with_indices<D>(op, input, ExpandingArray<D>(cell), ExpandingArray<D>(cell), 0, 1, false);
  std::array<Windows, 3> win{trivial_windows(), trivial_windows(), trivial_windows()};
  for (int i = 0; i < nd; ++i) win[static_cast<size_t>(3 - nd + i)] = adaptive_windows(x.size(4 - nd + i), size[i]);
  auto [v, idx] = windowed_max(x, win);
  return {from_planes(v, lead, nd), from_planes(idx, lead, nd)};
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return max_pool_with_indices<1>("max_pool1d_with_indices", input, o.kernel_size(), o.stride(), o.padding(),
                                  o.dilation(), o.ceil_mode());
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return max_pool_with_indices<2>("max_pool2d_with_indices", input, o.kernel_size(), o.stride(), o.padding(),
                                  o.dilation(), o.ceil_mode());
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return max_pool_with_indices<3>("max_pool3d_with_indices", input, o.kernel_size(), o.stride(), o.padding(),
                                  o.dilation(), o.ceil_mode());
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return adaptive_max_with_indices<1>("adaptive_max_pool1d_with_indices", input, o.output_size());
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return adaptive_max_with_indices<2>("adaptive_max_pool2d_with_indices", input, o.output_size());
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& o) {
  return adaptive_max_with_indices<3>("adaptive_max_pool3d_with_indices", input, o.output_size());
}
Tensor adaptive_max_pool3d(const Tensor& input, ExpandingArray<3> output_size) {
  return std::get<0>(adaptive_max_with_indices<3>("adaptive_max_pool3d", input, output_size));
}
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& o) {
  return adaptive_max_pool3d(input, o.output_size());
}

// ---- max_unpool ----------------------------------------------------------------------------
namespace {
// The checks every unpool makes of its input and indices; the input as planes.
Tensor unpool_input(const char* op, const Tensor& input, const Tensor& indices, int nd, std::vector<int64_t>& lead) {
  ops::check_same_device(op, {{"input", &input}, {"indices", &indices}});
  if (indices.scalar_type() != kLong)
    throw Error("[" + std::string(op) + "] elements in indices should be type int64 but got: " +
                std::string(toString(indices.scalar_type())) + ".");
  if (!indices.sizes().equals(input.sizes()))
    throw Error("[" + std::string(op) + "] Expected shape of indices to be same as that of the input tensor (" +
                ops::shape_str(input.sizes()) + ") but got indices tensor with shape: " +
                ops::shape_str(indices.sizes()) + ".");
  return as_planes(op, input, nd, lead);
}

// Each value of x [P, ...] to its index in a zero plane of `size`; an index outside it is an Error.
Tensor unpool_scatter(const char* op, const Tensor& x, const Tensor& indices, const std::vector<int64_t>& lead,
                      const std::vector<int64_t>& size) {
  const int nd = static_cast<int>(size.size());
  int64_t plane = 1;
  for (int64_t v : size) {
    if (v <= 0)
      throw Error("[" + std::string(op) + "] the output size (" + join(size.data(), nd) + ") must be positive.");
    plane *= v;
  }
  const int64_t planes = x.size(0), cells = x.size(1) * x.size(2) * x.size(3);
  const Tensor idx = indices.reshape({planes, cells});
  if (idx.numel() > 0) {
    const Tensor bad = idx.lt(0).logical_or(idx.ge(plane));
    if (bad.any().item<bool>())
      throw Error("[" + std::string(op) + "] Found an invalid max index: " +
                  std::to_string(idx.masked_select(bad).to(kCPU).data_ptr<int64_t>()[0]) +
                  " (output volumes are of size " + join(size.data(), nd, "x") + ").");
  }
  const Tensor out = zeros({planes, plane}, TensorOptions().dtype(x.scalar_type()).device(x.device()))
                         .scatter(1, idx, x.reshape({planes, cells}));
  std::vector<int64_t> shape = lead;
  shape.insert(shape.end(), size.begin(), size.end());
  return out.reshape(shape);
}

template <size_t D>
Tensor max_unpool(const char* op, const Tensor& input, const Tensor& indices, const MaxUnpoolFuncOptions<D>& o) {
  const int nd = static_cast<int>(D);
  std::vector<int64_t> lead;
  const Tensor x = unpool_input(op, input, indices, nd, lead);
  const ExpandingArray<D> k = o.kernel_size(), s = o.stride(), p = o.padding();
  for (int i = 0; i < nd; ++i)
    if (k[i] <= 0 || s[i] <= 0 || p[i] < 0)
      throw Error("[" + std::string(op) + "] kernel_size (" + join(k.data(), nd) + ") and stride (" +
                  join(s.data(), nd) + ") must be positive and padding non-negative.");
  // PyTorch's _unpool_output_size: the pool's input size by default, or a size within a stride of it
  std::vector<int64_t> def(static_cast<size_t>(nd));
  for (int i = 0; i < nd; ++i)
    def[static_cast<size_t>(i)] = (input.size(input.dim() - nd + i) - 1) * s[i] + k[i] - 2 * p[i];
  std::vector<int64_t> size = def;
  if (o.output_size()) {
    std::vector<int64_t> want = *o.output_size();
    if (want.size() == static_cast<size_t>(nd + 2)) want.erase(want.begin(), want.begin() + 2);
    if (want.size() != static_cast<size_t>(nd))
      throw Error("[" + std::string(op) + "] output_size should have " + std::to_string(nd) + " or " +
                  std::to_string(nd + 2) + " elements, but it has " + std::to_string(o.output_size()->size()) + ".");
    for (int i = 0; i < nd; ++i) {
      const int64_t lo = def[static_cast<size_t>(i)] - s[i], hi = def[static_cast<size_t>(i)] + s[i];
      if (want[static_cast<size_t>(i)] < lo || want[static_cast<size_t>(i)] > hi)
        throw Error("[" + std::string(op) + "] invalid output_size \"[" + join(want.data(), nd) + "]\" (dim " +
                    std::to_string(i) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ").");
    }
    size = want;
  }
  return unpool_scatter(op, x, indices, lead, size);
}
}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& o) {
  return max_unpool<1>("max_unpool1d", input, indices, o);
}
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& o) {
  return max_unpool<2>("max_unpool2d", input, indices, o);
}
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& o) {
  return max_unpool<3>("max_unpool3d", input, indices, o);
}

// ---- conv_transpose3d ----------------------------------------------------------------------
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& o) {
  const Tensor& bias = o.bias();
  ops::check_same_device("conv_transpose3d", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 5)
    throw Error("[conv_transpose3d] expected a 5-D weight [in_channels, out_channels/groups, kd, kh, kw], got " +
                ops::shape_str(weight.sizes()) + ".");
  const bool batched = input.dim() == 5;
  if (!batched && input.dim() != 4)
    throw Error("[conv_transpose3d] expected a 4-D (unbatched) or 5-D (batched) input [N, C, D, H, W], got " +
                ops::shape_str(input.sizes()) + ".");
  const Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t g = o.groups(), cin = weight.size(0), cog = weight.size(1), kd = weight.size(2);
  if (g <= 0 || cin % g != 0)
    throw Error("[conv_transpose3d] groups (" + std::to_string(g) + ") must be positive and divide in_channels (" +
                std::to_string(cin) + ").");
  if (x.size(1) != cin)
    throw Error("[conv_transpose3d] Given transposed=1, weight of size " + ops::shape_str(weight.sizes()) +
                ", expected input" + ops::shape_str(x.sizes()) + " to have " + std::to_string(cin) +
                " channels, but got " + std::to_string(x.size(1)) + " channels instead.");
  const int64_t cout = cog * g;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != cout))
    throw Error("[conv_transpose3d] expected a bias of " + std::to_string(cout) + " elements (out_channels), got " +
                ops::shape_str(bias.sizes()) + ".");
  const ExpandingArray<3> s = o.stride(), p = o.padding(), op = o.output_padding(), dil = o.dilation();
  for (int i = 0; i < 3; ++i) {
    if (s[i] <= 0 || dil[i] <= 0 || p[i] < 0 || op[i] < 0)
      throw Error("[conv_transpose3d] stride and dilation must be positive, padding and output_padding non-negative.");
    if (op[i] >= s[i] && op[i] >= dil[i])
      throw Error("[conv_transpose3d] output padding must be smaller than either stride or dilation, but got "
                  "output_padding: (" + join(op.data(), 3) + ") stride: (" + join(s.data(), 3) + ") dilation: (" +
                  join(dil.data(), 3) + ").");
  }
  std::array<int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) {
    out[static_cast<size_t>(i)] = (x.size(2 + i) - 1) * s[i] - 2 * p[i] + dil[i] * (weight.size(2 + i) - 1) + op[i] + 1;
    if (out[static_cast<size_t>(i)] <= 0)
      throw Error("[conv_transpose3d] the output would be " + join(out.data(), 3, "x") + " for input " +
                  ops::shape_str(x.sizes()) + " and weight " + ops::shape_str(weight.sizes()) + "; use less padding.");
  }
  // Each kernel depth offset j: a 2-D transposed convolution of every input depth slice; slice i
  // lands at output depth i*stride + j*dilation - padding (a 0/1 placement matrix over (j, i)).
  const int64_t n = x.size(0), depth = x.size(2);
  const Tensor flat = x.transpose(1, 2).reshape({n * depth, cin, x.size(3), x.size(4)});
  const auto o2 = ConvTranspose2dFuncOptions()
                      .stride({s[1], s[2]})
                      .padding({p[1], p[2]})
                      .output_padding({op[1], op[2]})
                      .groups(g)
                      .dilation({dil[1], dil[2]});
  std::vector<Tensor> parts;
  std::vector<double> place(static_cast<size_t>(kd * depth * out[0]), 0.0);
  for (int64_t j = 0; j < kd; ++j) {
    parts.push_back(conv_transpose2d(flat, weight.select(2, j), o2));  // [N*D, out, OH, OW]
    for (int64_t i = 0; i < depth; ++i) {
      const int64_t at = i * s[0] + j * dil[0] - p[0];
      if (at >= 0 && at < out[0]) place[static_cast<size_t>((j * depth + i) * out[0] + at)] = 1.0;
    }
  }
  const int64_t oh = parts[0].size(2), ow = parts[0].size(3);
  const Tensor y = stack(parts, 0).reshape({kd, n, depth, cout, oh, ow}).permute({1, 3, 4, 5, 0, 2}).reshape(
      {n, cout, oh, ow, kd * depth});
  const Tensor m =
      tensor(place, TensorOptions().dtype(kDouble)).view({kd * depth, out[0]}).to(x.device(), y.scalar_type());
  Tensor r = y.matmul(m).permute({0, 1, 4, 2, 3});  // [N, out, OD, OH, OW]
  if (bias.defined()) r = r + bias.view({1, cout, 1, 1, 1});
  r = r.contiguous();
  return batched ? r : r.squeeze(0);
}

// ---- lp_pool -------------------------------------------------------------------------------
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const double p = o.norm_type();
  const Tensor out =
      avg_pool1d(input.pow(p), AvgPool1dFuncOptions(o.kernel_size()).stride(o.stride()).ceil_mode(o.ceil_mode()));
  return (locus::sign(out) * locus::relu(locus::abs(out))).mul(static_cast<double>(o.kernel_size()[0])).pow(1.0 / p);
}
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const double p = o.norm_type();
  const Tensor out =
      avg_pool2d(input.pow(p), AvgPool2dFuncOptions(o.kernel_size()).stride(o.stride()).ceil_mode(o.ceil_mode()));
  const double area = static_cast<double>(o.kernel_size()[0] * o.kernel_size()[1]);
  return (locus::sign(out) * locus::relu(locus::abs(out))).mul(area).pow(1.0 / p);
}

// ---- fractional_max_pool -------------------------------------------------------------------
namespace {
// PyTorch's generate_intervals, in the input's precision (float arithmetic for a float input).
template <typename T>
std::vector<int64_t> intervals(T sample, int64_t n, int64_t out, int64_t k) {
  std::vector<int64_t> seq(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(n - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      seq[static_cast<size_t>(i)] = static_cast<int64_t>(static_cast<int>((static_cast<T>(i) + sample) * alpha) -
                                                         static_cast<int>(sample * alpha));
  }
  if (out > 0) seq[static_cast<size_t>(out - 1)] = n - k;
  return seq;
}

template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool(const char* op, const Tensor& input,
                                               const FractionalMaxPoolFuncOptions<D>& o) {
  const int nd = static_cast<int>(D);
  std::vector<int64_t> lead;
  const Tensor x = as_planes(op, input, nd, lead);
  const ExpandingArray<D> k = o.kernel_size();
  if (!o.output_size() && !o.output_ratio())
    throw Error("[" + std::string(op) + "] requires specifying either an output_size or an output_ratio.");
  if (o.output_size() && o.output_ratio())
    throw Error("[" + std::string(op) + "] only one of output_size and output_ratio may be specified.");
  std::array<int64_t, D> out{};
  for (int i = 0; i < nd; ++i) {
    const int64_t n = input.size(input.dim() - nd + i);
    if (o.output_ratio()) {
      const double r = (*o.output_ratio())[static_cast<size_t>(i)];
      if (!(r > 0.0 && r < 1.0))
        throw Error("[" + std::string(op) + "] output_ratio must be between 0 and 1, but got " + std::to_string(r) +
                    ".");
      out[static_cast<size_t>(i)] = static_cast<int64_t>(static_cast<double>(n) * r);
    } else {
      out[static_cast<size_t>(i)] = (*o.output_size())[static_cast<size_t>(i)];
    }
  }
  static const char* names[3] = {"depth", "height", "width"};
  for (int i = 0; i < nd; ++i) {
    const int64_t n = input.size(input.dim() - nd + i), ki = k[static_cast<size_t>(i)];
    const char* name = names[3 - nd + i];
    if (ki <= 0 || out[static_cast<size_t>(i)] <= 0)
      throw Error("[" + std::string(op) + "] kernel_size and the output size must be positive, got kernel_size (" +
                  join(k.data(), nd) + ") and output size (" + join(out.data(), nd) + ").");
    if (out[static_cast<size_t>(i)] + ki - 1 > n)
      throw Error("[" + std::string(op) + "] pool " + name + " " + std::to_string(ki) +
                  " too large relative to input " + name + " " + std::to_string(n) + " (output " + name + " " +
                  std::to_string(out[static_cast<size_t>(i)]) + ").");
  }
  const int64_t planes = x.size(0);
  const int64_t batch = input.dim() == nd + 2 ? input.size(0) : 1, channels = input.size(input.dim() - nd - 1);
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    samples = rand({batch, channels, nd}, TensorOptions().dtype(x.scalar_type()).device(x.device()));
  } else {
    ops::check_same_device(op, {{"input", &input}, {"_random_samples", &samples}});
    if (samples.dim() != 3 || samples.size(0) < batch || samples.size(1) != channels || samples.size(2) != nd)
      throw Error("[" + std::string(op) + "] expected _random_samples of shape [" + std::to_string(batch) + ", " +
                  std::to_string(channels) + ", " + std::to_string(nd) + "], got " + ops::shape_str(samples.sizes()) +
                  ".");
  }
  // one sample per plane and dim; PyTorch's 2-D form takes sample 0 for the width, 1 for the
  // height, its 3-D form 0, 1, 2 for depth, height, width
  const bool single = x.scalar_type() == kFloat || x.scalar_type() == kHalf || x.scalar_type() == kBFloat16;
  const Tensor u = samples.narrow(0, 0, batch).reshape({planes, nd}).to(kCPU, kDouble).contiguous();
  const double* uv = u.data_ptr<double>();
  std::array<Windows, 3> win{trivial_windows(), trivial_windows(), trivial_windows()};
  for (int i = 0; i < nd; ++i) {
    const int slot = nd == 2 ? 1 - i : i;
    const int64_t n = input.size(input.dim() - nd + i), ki = k[static_cast<size_t>(i)];
    const int64_t oi = out[static_cast<size_t>(i)];
    Windows w{{}, planes, oi, ki};
    w.pos.reserve(static_cast<size_t>(planes * oi * ki));
    for (int64_t q = 0; q < planes; ++q) {
      const double sample = uv[q * nd + slot];
      const std::vector<int64_t> starts = single ? intervals<float>(static_cast<float>(sample), n, oi, ki)
                                                 : intervals<double>(sample, n, oi, ki);
      for (int64_t st : starts)
        for (int64_t j = 0; j < ki; ++j) w.pos.push_back(st + j);
    }
    win[static_cast<size_t>(3 - nd + i)] = std::move(w);
  }
  auto [v, idx] = windowed_max(x, win);
  return {from_planes(v, lead, nd), from_planes(idx, lead, nd)};
}
}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& o) {
  return fractional_max_pool<2>("fractional_max_pool2d", input, o);
}
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& o) {
  return fractional_max_pool<3>("fractional_max_pool3d", input, o);
}
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& o) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, o));
}
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& o) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, o));
}

}  // namespace locus::nn::functional

// ---- the ATen forms (include/locus/aten.h) --------------------------------------------------
namespace locus {
namespace F = nn::functional;
namespace {
// ATen's window arguments: one value for every dim, or one per dim.
template <size_t D>
ExpandingArray<D> window_arg(IntArrayRef a, const char* op, const char* name) {
  if (a.size() == 1) return ExpandingArray<D>(a[0]);
  if (a.size() == D) {
    std::array<int64_t, D> v{};
    std::copy(a.begin(), a.end(), v.begin());
    return ExpandingArray<D>(v);
  }
  throw Error("[" + std::string(op) + "] " + name + " must have 1" + (D > 1 ? " or " + std::to_string(D) : "") +
              " values, got " + std::to_string(a.size()) + " (" + ops::shape_str(a) + ").");
}

template <size_t D, typename Options>
Options pool_options(const char* op, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                     IntArrayRef dilation, bool ceil_mode) {
  const ExpandingArray<D> k = window_arg<D>(kernel_size, op, "kernel_size");
  return Options(k)
      .stride(stride.empty() ? k : window_arg<D>(stride, op, "stride"))
      .padding(window_arg<D>(padding, op, "padding"))
      .dilation(window_arg<D>(dilation, op, "dilation"))
      .ceil_mode(ceil_mode);
}

template <size_t D>
std::vector<int64_t> exact_size(IntArrayRef output_size, const char* op) {
  static const char* names[4] = {"", "(length)", "(height, width)", "(depth, height, width)"};
  static const char* counts[4] = {"", "one", "two", "three"};
  if (output_size.size() != D)
    throw Error("[" + std::string(op) + "] There should be exactly " + counts[D] + " elements " + names[D] +
                " in output_size, but got " + std::to_string(output_size.size()) + " elements.");
  return output_size.vec();
}
}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool1d_with_indices(self, pool_options<1, F::MaxPool1dFuncOptions>(
                                              "max_pool1d_with_indices", kernel_size, stride, padding, dilation,
                                              ceil_mode));
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool2d_with_indices(self, pool_options<2, F::MaxPool2dFuncOptions>(
                                              "max_pool2d_with_indices", kernel_size, stride, padding, dilation,
                                              ceil_mode));
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return F::max_pool3d_with_indices(self, pool_options<3, F::MaxPool3dFuncOptions>(
                                              "max_pool3d_with_indices", kernel_size, stride, padding, dilation,
                                              ceil_mode));
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_max_pool1d_with_indices(
      self, F::AdaptiveMaxPool1dFuncOptions(window_arg<1>(output_size, "adaptive_max_pool1d", "output_size")));
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_max_pool2d_with_indices(
      self, F::AdaptiveMaxPool2dFuncOptions(window_arg<2>(output_size, "adaptive_max_pool2d", "output_size")));
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return F::adaptive_max_pool3d_with_indices(
      self, F::AdaptiveMaxPool3dFuncOptions(window_arg<3>(output_size, "adaptive_max_pool3d", "output_size")));
}
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  std::vector<int64_t> lead;
  const Tensor x = F::unpool_input("max_unpool2d", self, indices, 2, lead);
  return F::unpool_scatter("max_unpool2d", x, indices, lead, exact_size<2>(output_size, "max_unpool2d"));
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  std::vector<int64_t> lead;
  const Tensor x = F::unpool_input("max_unpool3d", self, indices, 3, lead);
  window_arg<3>(stride, "max_unpool3d", "stride");
  window_arg<3>(padding, "max_unpool3d", "padding");
  return F::unpool_scatter("max_unpool3d", x, indices, lead, exact_size<3>(output_size, "max_unpool3d"));
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return F::conv_transpose3d(input, weight,
                             F::ConvTranspose3dFuncOptions()
                                 .bias(bias ? *bias : Tensor())
                                 .stride(window_arg<3>(stride, "conv_transpose3d", "stride"))
                                 .padding(window_arg<3>(padding, "conv_transpose3d", "padding"))
                                 .output_padding(window_arg<3>(output_padding, "conv_transpose3d", "output_padding"))
                                 .groups(groups)
                                 .dilation(window_arg<3>(dilation, "conv_transpose3d", "dilation")));
}
std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return F::fractional_max_pool2d_with_indices(
      self, F::FractionalMaxPool2dFuncOptions(window_arg<2>(kernel_size, "fractional_max_pool2d", "kernel_size"))
                .output_size(window_arg<2>(output_size, "fractional_max_pool2d", "output_size"))
                ._random_samples(random_samples));
}
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return F::fractional_max_pool3d_with_indices(
      self, F::FractionalMaxPool3dFuncOptions(window_arg<3>(kernel_size, "fractional_max_pool3d", "kernel_size"))
                .output_size(window_arg<3>(output_size, "fractional_max_pool3d", "output_size"))
                ._random_samples(random_samples));
}
}  // namespace locus
