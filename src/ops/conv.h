#pragma once
#include <tuple>
#include <vector>
// Internal ops behind nn::functional's convolution and pooling (src/ops/conv.cpp, pool.cpp): each
// calls the backend's im2col family (or its optional direct kernel) and records its autograd node,
// as every other op does. Arguments are validated by the caller (nn::functional), except what only
// the geometry can tell (a window that does not fit the input), which these report.
#include "core/backend.h"
#include "locus/tensor.h"

namespace locus::ops {

/// A 2-D sliding window: kernel size, dilation, padding and stride (height, width).
struct Window {
  int64_t kh = 1, kw = 1, dh = 1, dw = 1, ph = 0, pw = 0, sh = 1, sw = 1;
};

/// The backend geometry of `w` over x's last two dims [..., H, W] (c = x.size(-3)); oh and ow stay
/// 0 when a parameter is out of range, so nothing divides by a zero stride.
backend::Backend::Im2Col window_geometry(const Tensor& x, const Window& w);
/// im2col of a 4-D input [N, C, H, W] into [N, C*kh*kw, oh*ow]; its backward is col2im.
Tensor im2col(const Tensor& input, const Window& w);
/// col2im (fold): columns [N, C*kh*kw, oh*ow] summed into an image [N, C, h, w] (zeros where no
/// column lands), oh and ow being what `w` gives over h x w; its backward is im2col.
Tensor col2im(const Tensor& columns, int64_t h, int64_t w, const Window& win);
/// conv2d of a 4-D input by a 4-D weight [O, C/groups, kh, kw] (+ bias [O] when defined): the
/// backend's direct kernel when it has one (groups 1), else im2col and a GEMM. Shapes checked above.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Window& w, int64_t groups);
/// Max pooling of a 4-D input [N, C, H, W] (padding never wins), differentiable.
Tensor max_pool2d(const Tensor& input, const Window& w);
// ---- pooling batch (stop 46) ----
/// max_pool2d by the backend's own kernel with the positions of the maxima in each [H, W] plane
/// (kLong, the first maximum; a NaN wins), the values differentiable; both undefined when the
/// backend has no such kernel (or for kBool), or the window does not fit.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Window& w);
// ---- end pooling batch (stop 46) ----
/// Average pooling of a 4-D input (dilation 1); padding is counted when `count_include_pad`.
Tensor avg_pool2d(const Tensor& input, const Window& w, bool count_include_pad);

// ---- the window arithmetic every pool shares (1-D to 3-D, nn/functional*.cpp) ----------------
/// The smallest value of a dtype (-inf for floating types): what no maximum loses to.
double lowest_value(ScalarType t);
/// A pool's output size along a dim of n, with PyTorch's ceil_mode rule (the last window starts
/// inside the input or its left padding); 0 when no window fits.
int64_t pool_output_size(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);
/// Per output position along a dim of n: how many cells an average divides by (the window
/// clipped to the padded input, or to the input alone without count_include_pad).
std::vector<double> pool_divisors(int64_t n, int64_t out, int64_t k, int64_t s, int64_t p, bool include_pad);

}  // namespace locus::ops
