// conv3d and the 3-D pools (include/locus/nn/functional_3d.h). A 3-D window is a depth offset j
// (0 .. kd-1) times a 2-D window: for each j the depth slices it reads (o * stride + j *
// dilation for every output depth o, after the depth padding) are gathered, folded into the batch
// ([N * D', C, H, W]) and run through the 2-D op; the kd results are summed (convolution, average)
// or maxed (max pool).
#include "locus/nn/functional_3d.h"

#include <algorithm>
#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/modules/conv.h"
#include "nn/conv_padding.h"
#include "ops/checks.h"
#include "ops/conv.h"

namespace locus::nn::functional {
namespace {

// input [N, C, D, H, W] or [C, D, H, W] -> the 5-D form.
Tensor volume(const char* op, const Tensor& input, bool& batched) {
  batched = input.dim() == 5;
  if (!batched && input.dim() != 4)
    throw Error("[" + std::string(op) + "] expected a 4-D (unbatched) or 5-D (batched) input [N, C, D, H, W], got " +
                ops::shape_str(input.sizes()) + ".");
  return batched ? input : input.unsqueeze(0);
}

void check_window(const char* op, const ExpandingArray<3>& k, const ExpandingArray<3>& s, const ExpandingArray<3>& p,
                  const ExpandingArray<3>& d, bool pool) {
  for (int i = 0; i < 3; ++i) {
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0)
      throw Error("[" + std::string(op) + "] kernel_size, stride and dilation must be positive and padding "
                  "non-negative.");
    if (pool && p[i] > k[i] / 2)
      throw Error("[" + std::string(op) + "] padding (" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " +
                  std::to_string(p[2]) + ") must be at most half of kernel_size (" + std::to_string(k[0]) + ", " +
                  std::to_string(k[1]) + ", " + std::to_string(k[2]) + ") in each dim, as in PyTorch.");
  }
}

// The depth slices offset j reads for `out` output depths of x (already padded in depth),
// folded into the batch: [N * out, C, H, W].
Tensor depth_slices(const Tensor& x, int64_t j, int64_t out, int64_t stride, int64_t dilation) {
  std::vector<int64_t> at(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) at[static_cast<size_t>(o)] = o * stride + j * dilation;
  const Tensor idx = tensor(at, TensorOptions().dtype(kLong)).to(x.device());
  const Tensor s = x.index_select(2, idx);  // [N, C, out, H, W]
  return s.transpose(1, 2).reshape({x.size(0) * out, x.size(1), x.size(3), x.size(4)});
}

// [N * out, C', H', W'] back to [N, C', out, H', W'].
Tensor unfold_depth(const Tensor& y, int64_t n, int64_t out) {
  return y.reshape({n, out, y.size(1), y.size(2), y.size(3)}).transpose(1, 2);
}

// x padded in depth by `front` and `back` (and in H, W after them by the ceil_mode extensions).
Tensor pad_volume(const Tensor& x, int64_t front, int64_t back, int64_t bottom, int64_t right, double value) {
  if (front == 0 && back == 0 && bottom == 0 && right == 0) return x;
  return pad(x, PadFuncOptions({0, right, 0, bottom, front, back}).value(value));
}

}  // namespace

Tensor conv3d(const Tensor& input_in, const Tensor& weight, const Conv3dFuncOptions& o) {
  const Tensor& bias = o.bias();
  ops::check_same_device("conv3d", {{"input", &input_in}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 5)
    throw Error("[conv3d] expected a 5-D weight [out_channels, in_channels/groups, kd, kh, kw], got " +
                ops::shape_str(weight.sizes()) + ".");
  bool batched = false;
  volume("conv3d", input_in, batched);  // the shape check, before any padding
  const auto [input, padding] = detail::resolve_padding<3>(
      "conv3d", input_in, {weight.size(2), weight.size(3), weight.size(4)}, o.padding(), o.stride(), o.dilation());
  const Tensor x5 = volume("conv3d", input, batched);
  const ExpandingArray<3> k({weight.size(2), weight.size(3), weight.size(4)});
  check_window("conv3d", k, o.stride(), padding, o.dilation(), false);
  const int64_t g = o.groups();
  if (g <= 0 || weight.size(0) % g != 0 || x5.size(1) != weight.size(1) * g)
    throw Error("[conv3d] Given groups=" + std::to_string(g) + ", weight of size " + ops::shape_str(weight.sizes()) +
                ", expected input" + ops::shape_str(x5.sizes()) + " to have " + std::to_string(weight.size(1) * g) +
                " channels, but got " + std::to_string(x5.size(1)) + " channels instead.");
  const int64_t dout =
      ops::pool_output_size(x5.size(2), k[0], o.stride()[0], padding[0], o.dilation()[0], false);
  if (dout <= 0)
    throw Error("[conv3d] the kernel does not fit the padded input " + ops::shape_str(x5.sizes()) + " in depth.");
  const Tensor x = pad_volume(x5, padding[0], padding[0], 0, 0, 0.0);
  const auto o2 = Conv2dFuncOptions()
                      .stride({o.stride()[1], o.stride()[2]})
                      .padding({padding[1], padding[2]})
                      .dilation({o.dilation()[1], o.dilation()[2]})
                      .groups(g);
  Tensor sum;
  for (int64_t j = 0; j < k[0]; ++j) {
    const Tensor y = conv2d(depth_slices(x, j, dout, o.stride()[0], o.dilation()[0]), weight.select(2, j), o2);
    sum = j == 0 ? y : sum + y;
  }
  Tensor out = unfold_depth(sum, x.size(0), dout);
  if (bias.defined()) out = out + bias.view({1, -1, 1, 1, 1});
  return batched ? out : out.squeeze(0);
}

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  bool batched = false;
  const Tensor x5 = volume("max_pool3d", input, batched);
  const ExpandingArray<3> k = o.kernel_size(), s = o.stride(), p = o.padding(), d = o.dilation();
  check_window("max_pool3d", k, s, p, d, true);
  int64_t out[3], extra[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t n = x5.size(2 + i);
    out[i] = ops::pool_output_size(n, k[i], s[i], p[i], d[i], o.ceil_mode());
    if (out[i] <= 0)
      throw Error("[max_pool3d] the window does not fit the padded input " + ops::shape_str(x5.sizes()) + ".");
    extra[i] = std::max<int64_t>(0, (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - (n + 2 * p[i]));
  }
  const double lowest = ops::lowest_value(x5.scalar_type());
  const Tensor x = pad_volume(x5, p[0], p[0] + extra[0], extra[1], extra[2], lowest);
  const auto o2 = MaxPool2dFuncOptions({k[1], k[2]}).stride({s[1], s[2]}).padding({p[1], p[2]}).dilation({d[1], d[2]});
  Tensor best;
  for (int64_t j = 0; j < k[0]; ++j) {
    const Tensor y = max_pool2d(depth_slices(x, j, out[0], s[0], d[0]), o2);
    best = j == 0 ? y : max(best, y);
  }
  const Tensor r = unfold_depth(best, x.size(0), out[0]);
  return batched ? r : r.squeeze(0);
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  bool batched = false;
  const Tensor x5 = volume("avg_pool3d", input, batched);
  const ExpandingArray<3> k = o.kernel_size(), s = o.stride(), p = o.padding();
  check_window("avg_pool3d", k, s, p, 1, true);
  if (o.divisor_override() && *o.divisor_override() == 0)
    throw Error("[avg_pool3d] divisor_override must not be zero; leave it unset to divide by the window size.");
  int64_t out[3], extra[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t n = x5.size(2 + i);
    out[i] = ops::pool_output_size(n, k[i], s[i], p[i], 1, o.ceil_mode());
    if (out[i] <= 0)
      throw Error("[avg_pool3d] the window does not fit the padded input " + ops::shape_str(x5.sizes()) + ".");
    extra[i] = std::max<int64_t>(0, (out[i] - 1) * s[i] + k[i] - (n + 2 * p[i]));
  }
  // every window's sum over the zero-padded volume, then PyTorch's divisor
  const Tensor x = pad_volume(x5, p[0], p[0] + extra[0], extra[1], extra[2], 0.0);
  const auto o2 = AvgPool2dFuncOptions({k[1], k[2]}).stride({s[1], s[2]}).padding({p[1], p[2]}).divisor_override(1);
  Tensor sum;
  for (int64_t j = 0; j < k[0]; ++j) {
    const Tensor y = avg_pool2d(depth_slices(x, j, out[0], s[0], 1), o2);
    sum = j == 0 ? y : sum + y;
  }
  sum = unfold_depth(sum, x.size(0), out[0]);
  Tensor r;
  if (o.divisor_override()) {
    r = sum / static_cast<double>(*o.divisor_override());
  } else {
    const auto cd = ops::pool_divisors(x5.size(2), out[0], k[0], s[0], p[0], o.count_include_pad());
    const auto ch = ops::pool_divisors(x5.size(3), out[1], k[1], s[1], p[1], o.count_include_pad());
    const auto cw = ops::pool_divisors(x5.size(4), out[2], k[2], s[2], p[2], o.count_include_pad());
    std::vector<double> cells;
    for (double a : cd)
      for (double b : ch)
        for (double c : cw) cells.push_back(a * b * c);
    const Tensor div = tensor(cells, TensorOptions().dtype(kDouble)).view({out[0], out[1], out[2]});
    r = sum / div.to(sum.device(), sum.scalar_type());
  }
  return batched ? r : r.squeeze(0);
}

Tensor adaptive_avg_pool3d(const Tensor& input, ExpandingArray<3> output_size) {
  bool batched = false;
  const Tensor x5 = volume("adaptive_avg_pool3d", input, batched);
  for (int i = 0; i < 3; ++i)
    if (output_size[i] <= 0)
      throw Error("[adaptive_avg_pool3d] output_size must be positive, got " + std::to_string(output_size[0]) + ", " +
                  std::to_string(output_size[1]) + ", " + std::to_string(output_size[2]) + ".");
  // depth by an averaging matrix (as adaptive_avg_pool2d's uneven cells), then H and W in 2-D
  const int64_t n = x5.size(2), od = output_size[0];
  std::vector<double> m(static_cast<size_t>(n * od), 0.0);
  for (int64_t i = 0; i < od; ++i) {
    const int64_t a = (i * n) / od, b = ((i + 1) * n + od - 1) / od;
    for (int64_t j = a; j < b; ++j) m[static_cast<size_t>(j * od + i)] = 1.0 / static_cast<double>(b - a);
  }
  const Tensor avg = tensor(m, TensorOptions().dtype(kDouble)).view({n, od}).to(x5.device(), x5.scalar_type());
  const Tensor xd = x5.movedim(2, -1).matmul(avg).movedim(-1, 2);  // [N, C, od, H, W]
  const Tensor flat = xd.reshape({xd.size(0), xd.size(1) * od, xd.size(3), xd.size(4)});
  const Tensor y = adaptive_avg_pool2d(flat, ExpandingArray<2>({output_size[1], output_size[2]}));
  const Tensor r = y.reshape({xd.size(0), xd.size(1), od, output_size[1], output_size[2]});
  return batched ? r : r.squeeze(0);
}
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  return adaptive_avg_pool3d(input, o.output_size());
}

}  // namespace locus::nn::functional
