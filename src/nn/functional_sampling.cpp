// affine_grid and grid_sample (include/locus/nn/functional_sampling.h), composed of
// differentiable ops: each output point's input coordinates (unnormalised, padded) give 2^D
// corner indices and weights (1 for nearest); the corners are gathered from the flattened input
// and summed with their weights. The floors are constants, so the gradient reaches the grid
// through the weights, and the input through gather's backward, as PyTorch's kernels give them.
#include "locus/nn/functional_sampling.h"

#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"

namespace locus::nn::functional {
namespace {

std::string dims_str(IntArrayRef s) { return shape_str(s); }

/// The coordinates 0..n-1 of one axis in normalised form, as PyTorch's affine_grid lays them.
Tensor axis_points(int64_t n, bool align_corners, const TensorOptions& o) {
  if (n <= 1) return zeros({n}, o);
  Tensor r = linspace(-1.0, 1.0, n, o);
  return align_corners ? r : r * (static_cast<double>(n - 1) / static_cast<double>(n));
}

/// PyTorch's reflect_coordinates: `x` reflected into [twice_low / 2, twice_high / 2].
Tensor reflect(const Tensor& x, double twice_low, double twice_high) {
  if (twice_low == twice_high) return zeros_like(x);
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  Tensor in = (x - lo).abs();
  Tensor flips = (in / span).floor().detach();
  Tensor extra = in - flips * span;  // fmod(in, span): in >= 0
  Tensor even = flips.remainder(2).eq(0);
  return where(even, extra + lo, (extra * -1.0) + (span + lo));
}

}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  if (!theta.defined()) throw Error("[affine_grid] theta is undefined.");
  if (!theta.is_floating_point())
    throw Error(std::string("[affine_grid] expected theta of a floating-point dtype, got ") +
                dtype_name(theta.scalar_type()) + ".");
  const int64_t sd = static_cast<int64_t>(size.size()) - 2;  // spatial dims
  if (sd != 2 && sd != 3)
    throw Error("[affine_grid] size must be {N, C, H, W} (2-D) or {N, C, D, H, W} (3-D), got " + dims_str(size) + ".");
  for (int64_t s : size)
    if (s <= 0) throw Error("[affine_grid] every entry of size must be positive, got " + dims_str(size) + ".");
  const int64_t n = size[0];
  if (theta.dim() != 3 || theta.size(0) != n || theta.size(1) != sd || theta.size(2) != sd + 1)
    throw Error("[affine_grid] Expected a batch of " + std::to_string(sd) + "D affine matrices of shape [" +
                std::to_string(n) + ", " + std::to_string(sd) + ", " + std::to_string(sd + 1) + "] for size " +
                dims_str(size) + ", got theta of shape " + dims_str(theta.sizes()) + ".");
  TensorOptions o = TensorOptions().dtype(theta.scalar_type()).device(theta.device());
  // base [points, sd + 1]: (x, y[, z], 1) with x along the last spatial dim, varying fastest.
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  std::vector<Tensor> cols;
  for (int64_t k = 0; k < sd; ++k) {
    int64_t axis = sd - 1 - k;  // x is the last spatial dim
    std::vector<int64_t> shape(static_cast<size_t>(sd), 1);
    shape[static_cast<size_t>(axis)] = spatial[static_cast<size_t>(axis)];
    cols.push_back(axis_points(spatial[static_cast<size_t>(axis)], align_corners, o).view(shape).expand(spatial));
  }
  cols.push_back(ones(spatial, o));
  Tensor base = stack(cols, -1).reshape({-1, sd + 1});  // [points, sd + 1]
  Tensor grid = matmul(base, theta.transpose(1, 2));   // [N, points, sd]
  std::vector<int64_t> out{n};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(sd);
  return grid.view(out);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  using M = enumtype::InterpolateMode;
  if (!input.defined() || !grid.defined()) throw Error("[grid_sample] input and grid must be defined.");
  check_same_device("grid_sample", {{"input", &input}, {"grid", &grid}});
  const int64_t sd = input.dim() - 2;
  if (sd != 2 && sd != 3)
    throw Error("[grid_sample] expected a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], got " +
                dims_str(input.sizes()) + ".");
  if (grid.dim() != input.dim() || grid.size(0) != input.size(0) || grid.size(-1) != sd)
    throw Error("[grid_sample] for an input of shape " + dims_str(input.sizes()) + " the grid must be [" +
                std::to_string(input.size(0)) + (sd == 2 ? ", H_out, W_out, 2]" : ", D_out, H_out, W_out, 3]") +
                ", got " + dims_str(grid.sizes()) + ".");
  if (!input.is_floating_point() || grid.scalar_type() != input.scalar_type())
    throw Error(std::string("[grid_sample] input and grid must have the same floating-point dtype, got ") +
                dtype_name(input.scalar_type()) + " and " + dtype_name(grid.scalar_type()) + ".");
  const M mode = options.mode();
  if (mode != M::Bilinear && mode != M::Nearest)
    throw Error("[grid_sample] mode must be kBilinear or kNearest (kBicubic is not supported by locus yet).");
  for (int64_t k = 2; k < input.dim(); ++k)
    if (input.size(k) == 0) throw Error("[grid_sample] the input's spatial sizes must be positive, got " +
                                        dims_str(input.sizes()) + ".");
  const bool align = options.align_corners().value_or(false);
  const int pad = static_cast<int>(options.padding_mode().index());  // 0 zeros, 1 border, 2 reflection

  const int64_t n = input.size(0), c = input.size(1);
  std::vector<int64_t> out_spatial(grid.sizes().begin() + 1, grid.sizes().end() - 1);
  int64_t q = 1;
  for (int64_t s : out_spatial) q *= s;
  Tensor flat_in = input.reshape({n, c, -1});  // [N, C, P]

  // Per grid component k (x, y, z): its input axis, size and stride in the flattened input.
  struct Axis {
    Tensor lo, hi;              // candidate indices (int64) [N, Q]; hi unused for nearest
    Tensor w_lo, w_hi;          // weights [N, Q]
    Tensor in_lo, in_hi;        // in-bounds masks (zeros padding) as the dtype
    int64_t stride;
  };
  std::vector<Axis> axes;
  Tensor g = grid.reshape({n, q, sd});
  for (int64_t k = 0; k < sd; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t len = input.size(dim);
    int64_t stride = 1;
    for (int64_t d = dim + 1; d < input.dim(); ++d) stride *= input.size(d);
    Tensor x = g.select(2, k);
    x = align ? (x + 1.0) * (0.5 * static_cast<double>(len - 1)) : ((x + 1.0) * static_cast<double>(len) - 1.0) * 0.5;
    if (pad != 0) x = x.nan_to_num(0.0);  // a NaN coordinate reads the first cell, as PyTorch's border/reflection
    if (pad == 2) x = align ? reflect(x, 0, 2.0 * static_cast<double>(len - 1)) : reflect(x, -1, 2.0 * static_cast<double>(len) - 1);
    if (pad != 0) x = x.clamp(0, static_cast<double>(len - 1));
    Axis a;
    a.stride = stride;
    auto in_bounds = [&](const Tensor& i) { return i.ge(0).logical_and(i.le(static_cast<double>(len - 1))).to(input.scalar_type()); };
    // (zeros padding: a NaN coordinate is out of bounds, its weight NaN for bilinear and 0 for nearest, as PyTorch's)
    auto index = [&](const Tensor& i) { return i.nan_to_num(-1.0).clamp(0, static_cast<double>(len - 1)).to(kLong); };
    if (mode == M::Nearest) {
      // PyTorch's kernels round half to even in 2-D (nearbyint) and half away from zero in 3-D (round)
      Tensor xd = x.detach();
      Tensor r = sd == 2 ? xd.round() : (xd.abs() + 0.5).floor() * xd.sign();
      a.lo = index(r);
      a.w_lo = ones_like(x);
      a.in_lo = in_bounds(r);
    } else {
      Tensor f = x.detach().floor();
      Tensor frac = x - f;
      a.lo = index(f);
      a.hi = index(f + 1.0);
      a.w_lo = (frac * -1.0) + 1.0;
      a.w_hi = frac;
      a.in_lo = in_bounds(f);
      a.in_hi = in_bounds(f + 1.0);
    }
    axes.push_back(std::move(a));
  }

  const int corners = mode == M::Nearest ? 1 : 1 << sd;
  Tensor out;
  for (int corner = 0; corner < corners; ++corner) {
    Tensor lin, weight, mask;
    for (int64_t k = 0; k < sd; ++k) {
      const Axis& a = axes[static_cast<size_t>(k)];
      const bool hi = (corner >> k) & 1;
      Tensor idx = (hi ? a.hi : a.lo) * a.stride;
      lin = lin.defined() ? lin + idx : idx;
      const Tensor& w = hi ? a.w_hi : a.w_lo;
      weight = weight.defined() ? weight * w : w;
      const Tensor& m = hi ? a.in_hi : a.in_lo;
      mask = mask.defined() ? mask * m : m;
    }
    if (pad == 0) weight = weight * mask;  // corners outside read as zeros
    Tensor picked = flat_in.gather(2, lin.unsqueeze(1).expand({n, c, q}));  // [N, C, Q]
    Tensor term = picked * weight.unsqueeze(1);
    out = out.defined() ? out + term : term;
  }
  std::vector<int64_t> shape{n, c};
  shape.insert(shape.end(), out_spatial.begin(), out_spatial.end());
  return out.view(shape);
}

}  // namespace locus::nn::functional
