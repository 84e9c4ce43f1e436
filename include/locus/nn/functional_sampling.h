#pragma once
// Spatial sampling (libtorch's torch::nn::functional::affine_grid and grid_sample), as the spatial
// transformer networks use them. Both are made of differentiable ops (matmul; floor, gather and
// the interpolation weights), so they run and train on every device, with gradients to the input,
// to the grid and through affine_grid to theta.
#include <optional>
#include <variant>

#include "locus/nn/functional.h"

namespace locus {
namespace enumtype {
struct kBorder {};
struct kReflection {};
}  // namespace enumtype
/// grid_sample's padding modes (libtorch's): kZeros outside (locus/nn/functional.h), the border's
/// value, or reflected.
inline constexpr enumtype::kBorder kBorder{};
inline constexpr enumtype::kReflection kReflection{};
}  // namespace locus

namespace locus::nn::functional {

struct GridSampleFuncOptions {
  using mode_t = enumtype::InterpolateMode;  // kBilinear (default) or kNearest
  using padding_mode_t = std::variant<enumtype::kZeros, enumtype::kBorder, enumtype::kReflection>;
  LOCUS_ARG(mode_t, mode) = kBilinear;
  LOCUS_ARG(padding_mode_t, padding_mode) = kZeros;
  /// Whether -1 and 1 are the corner pixels' centres (true) or their outer edges (false, the
  /// default, as PyTorch's since 1.3).
  LOCUS_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

/// The sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps theta [N, 2, 3]
/// ([N, 3, 4]) over an output of `size` {N, C, H, W} ({N, C, D, H, W}), in grid_sample's
/// normalised coordinates (x first).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);

/// Samples input [N, C, H, W] (or [N, C, D, H, W]) at grid [N, Ho, Wo, 2] ([N, Do, Ho, Wo, 3]):
/// grid[..., 0] is x (the width), grid[..., 1] y, grid[..., 2] z, each in [-1, 1] across the
/// input; the result is [N, C, Ho, Wo] ([N, C, Do, Ho, Wo]). Bilinear (trilinear in 3-D) or
/// nearest (halves to even in 2-D, away from zero in 3-D, as PyTorch's kernels); kBicubic is refused.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});

}  // namespace locus::nn::functional
