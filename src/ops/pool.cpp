// Pooling: max pooling by the backend's own kernel when it has one (positions of the maxima kept
// for the backward), else through im2col, as average pooling always is.
#include <algorithm>
#include <limits>
#include <tuple>

#include "autograd/record.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/checks.h"
#include "ops/conv.h"

namespace locus::ops {
namespace {

using autograd::variable_list;

// Max pooling by the backend's own kernel, with the positions of the maxima for the backward (a
// scatter-add of the gradient, on any device). Undefined when the backend has no such kernel or
// the geometry is invalid: the caller then pools through im2col, which also reports the errors.
Tensor max_pool2d_direct(const Tensor& x4, const Window& w, Tensor* indices = nullptr) {
  if (x4.scalar_type() == kBool) return {};
  Tensor x = x4.contiguous();
  int64_t n = x.size(0), c = x.size(1);
  backend::Backend::Im2Col p = window_geometry(x, w);
  p.c = 1;  // planes are pooled one by one
  if (p.oh <= 0 || p.ow <= 0 || x.numel() == 0) return {};
  Device d = x.device();
  Tensor out = locus::detail::make_empty({n, c, p.oh, p.ow}, x.scalar_type(), d);
  Tensor idx = locus::detail::make_empty({n, c, p.oh, p.ow}, kLong, d);
  if (!backend_for(d).max_pool2d(device_index(d), current_stream(d), x.scalar_type(), ref(x, "max_pool2d").buf,
                                 ref(out, "max_pool2d").buf, ref(idx, "max_pool2d").buf, n * c, p))
    return {};
  if (indices != nullptr) *indices = idx;
  if (autograd::should_record(x4)) {
    DimVector shape(x.sizes());
    int64_t planes = n * c, hw = p.h * p.w, l = p.oh * p.ow;
    ScalarType dt = x.scalar_type();
    autograd::record("MaxPool2DWithIndicesBackward0", out, {&x4}, [shape, planes, hw, l, idx, dt, p](const Tensor& g) -> variable_list {
      if (!GradMode::is_enabled()) {  // the backend's own kernel, when it has one (not differentiable again)
        Device gd = g.device();
        Tensor gy = g.contiguous();
        Tensor gi = locus::detail::make_empty(shape, dt, gd);
        if (backend_for(gd).max_pool2d_backward(device_index(gd), current_stream(gd), dt,
                                                ref(gy, "max_pool2d_backward").buf, ref(idx, "max_pool2d_backward").buf,
                                                ref(gi, "max_pool2d_backward").buf, planes, p))
          return {gi};
      }
      Tensor gi = zeros({planes, hw}, TensorOptions().dtype(dt).device(g.device()));
      return {gi.scatter_add(1, idx.view({planes, l}), g.reshape({planes, l})).view(shape)};
    });
  }
  return out;
}

}  // namespace

double lowest_value(ScalarType t) {
  switch (t) {
    case kByte: case kBool: return 0;
    case kChar: return -128;
    case kShort: return -32768;
    case kInt: return -2147483648.0;
    case kLong: return -9223372036854775808.0;
    default: return -std::numeric_limits<double>::infinity();
  }
}

int64_t pool_output_size(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = n + 2 * p - d * (k - 1) - 1;
  if (span < 0 || s <= 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;
  return out;
}

std::vector<double> pool_divisors(int64_t n, int64_t out, int64_t k, int64_t s, int64_t p, bool include_pad) {
  std::vector<double> c(static_cast<size_t>(std::max<int64_t>(out, 0)));
  for (int64_t i = 0; i < out; ++i) {
    int64_t a = i * s - p, b = std::min(a + k, n + p);
    if (!include_pad) a = std::max<int64_t>(a, 0), b = std::min(b, n);
    c[static_cast<size_t>(i)] = static_cast<double>(b - a);
  }
  return c;
}

Tensor max_pool2d(const Tensor& x, const Window& w) {
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  if (Tensor fast = max_pool2d_direct(x, w); fast.defined()) return fast;
  Tensor flat = x.reshape({n * c, 1, h, wd});
  Tensor cols = im2col(flat, w);  // [NC, kh*kw, L]
  Tensor v;
  if (w.ph > 0 || w.pw > 0) {
    // im2col pads with zeros: the cells that fall in the padding (found by im2col of ones) hold
    // the dtype's lowest value instead, so padding never wins. (A shift of the whole batch above
    // zero, as here before, turned every value into inf or NaN once the input held a -inf.)
    Tensor in_input;
    {
      NoGradGuard no_grad;
      in_input = im2col(ones({1, 1, h, wd}, TensorOptions().dtype(x.scalar_type()).device(x.device())), w).gt(0);
    }
    v = std::get<0>(where(in_input, cols, lowest_value(x.scalar_type())).max(1));
  } else {
    v = std::get<0>(cols.max(1));
  }
  backend::Backend::Im2Col geo = window_geometry(x, w);
  return v.reshape({n, c, geo.oh, geo.ow});
}

// ---- pooling batch (stop 46) ----
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const Window& w) {
  Tensor idx;
  Tensor out = max_pool2d_direct(x, w, &idx);
  if (!out.defined()) return {Tensor(), Tensor()};
  return {out, idx};
}
// ---- end pooling batch (stop 46) ----

Tensor avg_pool2d(const Tensor& x, const Window& win, bool count_include_pad) {
  Window w = win;
  w.dh = w.dw = 1;
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  Tensor cols = im2col(x.reshape({n * c, 1, h, wd}), w);
  Tensor v;
  bool padded = w.ph > 0 || w.pw > 0;
  if (count_include_pad || !padded) {
    v = cols.mean({1});
  } else {
    Tensor counts = im2col(ones({1, 1, h, wd}, TensorOptions().dtype(x.scalar_type()).device(x.device())), w).sum({1});
    v = cols.sum({1}) / counts;
  }
  backend::Backend::Im2Col geo = window_geometry(x, w);
  return v.reshape({n, c, geo.oh, geo.ow});
}

}  // namespace locus::ops
