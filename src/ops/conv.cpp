// Convolution: im2col (backward col2im) through the backend's im2col family, and conv2d either as
// the backend's direct kernel (one autograd node) or composed from im2col and a GEMM.
#include <algorithm>
#include <vector>

#include "ops/conv.h"

#include "autograd/record.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/autocast.h"
#include "ops/checks.h"

namespace locus::ops {

using autograd::variable_list;

backend::Backend::Im2Col window_geometry(const Tensor& x, const Window& w) {
  backend::Backend::Im2Col p;
  p.c = x.size(-3); p.h = x.size(-2); p.w = x.size(-1); p.kh = w.kh; p.kw = w.kw;
  p.sh = w.sh; p.sw = w.sw; p.ph = w.ph; p.pw = w.pw; p.dh = w.dh; p.dw = w.dw;
  if (p.kh <= 0 || p.kw <= 0 || p.sh <= 0 || p.sw <= 0 || p.dh <= 0 || p.dw <= 0 || p.ph < 0 || p.pw < 0) return p;
  p.oh = (p.h + 2 * p.ph - p.dh * (p.kh - 1) - 1) / p.sh + 1;
  p.ow = (p.w + 2 * p.pw - p.dw * (p.kw - 1) - 1) / p.sw + 1;
  return p;
}

Tensor im2col(const Tensor& input, const Window& w) {
  if (input.dim() != 4) throw Error("[im2col] expected a 4-D input [N, C, H, W], got " + shape_str(input.sizes()) + ".");
  Tensor x = input.contiguous();
  int64_t n = x.size(0), c = x.size(1);
  backend::Backend::Im2Col p = window_geometry(x, w);
  if (p.kh <= 0 || p.kw <= 0 || p.sh <= 0 || p.sw <= 0 || p.dh <= 0 || p.dw <= 0 || p.ph < 0 || p.pw < 0)
    throw Error("[im2col] kernel size, stride and dilation must be positive and padding non-negative.");
  if (p.oh <= 0 || p.ow <= 0)
    throw Error("[im2col] the kernel (" + std::to_string(p.kh) + "x" + std::to_string(p.kw) + ", dilation " +
                std::to_string(p.dh) + "x" + std::to_string(p.dw) + ") does not fit the padded input " +
                shape_str(input.sizes()) + "; the output would be " + std::to_string(p.oh) + "x" +
                std::to_string(p.ow) + ".");
  int64_t kk = c * p.kh * p.kw, l = p.oh * p.ow;
  Device d = x.device();
  ScalarType dt = x.scalar_type();
  Tensor cols = locus::detail::make_empty({n, kk, l}, dt, d);
  p.n = n;
  auto run = [p, dt](const Tensor& image, const Tensor& columns, bool reverse) {
    Device dev = image.device();
    backend_for(dev).im2col(device_index(dev), current_stream(dev), dt, ref(image, "im2col").buf,
                            ref(columns, "im2col").buf, p, reverse);
  };
  if (cols.numel() > 0) run(x, cols, false);
  if (autograd::should_record(x)) {
    DimVector shape(x.sizes());
    autograd::record("Im2ColBackward0", cols, {&x}, [run, shape, dt](const Tensor& g) -> variable_list {
      Tensor gi = zeros(shape, TensorOptions().dtype(dt).device(g.device()));
      Tensor gc = g.contiguous();
      if (gi.numel() > 0) run(gi, gc, true);
      return {gi};
    });
  }
  return cols;
}

Tensor col2im(const Tensor& columns, int64_t h, int64_t w, const Window& win) {
  if (columns.dim() != 3)
    throw Error("[col2im] expected 3-D columns [N, C*kh*kw, L], got " + shape_str(columns.sizes()) + ".");
  const int64_t n = columns.size(0), kk = columns.size(1), k = win.kh * win.kw;
  if (k <= 0 || kk % k != 0)
    throw Error("[col2im] the columns' second dim (" + std::to_string(kk) + ") must be a multiple of the window's " +
                std::to_string(k) + " taps.");
  const Device d = columns.device();
  const ScalarType dt = columns.scalar_type();
  Tensor image = zeros({n, kk / k, h, w}, TensorOptions().dtype(dt).device(d));
  backend::Backend::Im2Col p = window_geometry(image, win);
  if (p.oh <= 0 || p.ow <= 0 || columns.size(2) != p.oh * p.ow)
    throw Error("[col2im] " + std::to_string(columns.size(2)) + " column positions do not match the window over a " +
                std::to_string(h) + "x" + std::to_string(w) + " image (" + std::to_string(std::max<int64_t>(p.oh, 0)) +
                "x" + std::to_string(std::max<int64_t>(p.ow, 0)) + " positions).");
  p.n = n;
  Tensor cols = columns.contiguous();
  if (image.numel() > 0 && cols.numel() > 0)
    backend_for(d).im2col(device_index(d), current_stream(d), dt, ref(image, "col2im").buf, ref(cols, "col2im").buf, p,
                          true);
  if (autograd::should_record(cols))
    autograd::record("Col2ImBackward0", image, {&cols}, [win](const Tensor& g) -> variable_list { return {im2col(g, win)}; });
  return image;
}

namespace {
// conv2d as im2col + GEMM, differentiable through both: any device, dtype and groups.
Tensor conv2d_composite(const Tensor& input, const Tensor& weight, const Tensor& bias, const Window& win, int64_t g) {
  int64_t oc = weight.size(0), cg = weight.size(1), kh = weight.size(2), kw = weight.size(3);
  int64_t n = input.size(0), c = input.size(1);
  Window w = win;
  w.kh = kh, w.kw = kw;
  Tensor cols = im2col(input, w);  // [N, C*kh*kw, L]
  backend::Backend::Im2Col geo = window_geometry(input, w);
  int64_t oh = geo.oh, ow = geo.ow;
  Tensor out;
  if (g == 1) {
    out = weight.reshape({oc, c * kh * kw}).matmul(cols);  // [N, O, L]
  } else {
    Tensor cg_cols = cols.view({n, g, cg * kh * kw, oh * ow});
    out = weight.reshape({g, oc / g, cg * kh * kw}).matmul(cg_cols);  // [N, G, O/G, L]
  }
  out = out.reshape({n, oc, oh, ow});
  if (bias.defined()) out = out + bias.view({1, oc, 1, 1});
  return out;
}

// The backend's own convolution (groups 1), forward and backward each one call, recorded as one
// node. Undefined when the backend has none for this case: the caller then composes it, which also
// reports what is wrong with the arguments.
//
// float16/bfloat16 storage, float32 arithmetic: the backend's float32 kernel runs on transient
// float32 copies, and only the rounded output outlives the call. What backward keeps is the
// caller's own low-precision input and weight, widened again when it runs: so under autocast a
// convolution keeps half the bytes the float32 one does, and never materialises im2col's columns.
Tensor conv2d_direct(const Tensor& input, const Tensor& weight, const Tensor& bias, const Window& win, int64_t groups) {
  const ScalarType dt = input.scalar_type();
  const int64_t oc = weight.size(0);
  if (groups != 1 || input.numel() == 0 || weight.numel() == 0 || weight.scalar_type() != dt) return {};
  if (bias.defined() && (bias.scalar_type() != dt || bias.dim() != 1 || bias.size(0) != oc)) return {};
  Window w = win;
  w.kh = weight.size(2), w.kw = weight.size(3);
  backend::Backend::Im2Col p = window_geometry(input, w);
  if (p.oh <= 0 || p.ow <= 0) return {};
  p.n = input.size(0);
  const Device d = input.device();
  const int index = device_index(d);
  backend::Backend* be = &backend_for(d);
  const bool reduced = dt == kHalf || dt == kBFloat16;
  const ScalarType cdt = reduced ? kFloat : dt;  // the dtype the kernel computes in
  // backends whose float32 kernel said no: low-precision inputs skip the widening there
  static thread_local std::vector<const backend::Backend*> no_direct;
  if (reduced && std::find(no_direct.begin(), no_direct.end(), be) != no_direct.end()) return {};
  auto widen = [reduced](const Tensor& t) -> Tensor {
    if (!t.defined() || !reduced) return t;
    AutoGradMode off(false);
    return t.to(kFloat);
  };
  auto narrow = [reduced, dt](const Tensor& t) -> Tensor {
    if (!t.defined() || !reduced) return t;
    AutoGradMode off(false);
    return t.to(dt);
  };
  Tensor x = input.contiguous(), wt = weight.contiguous(), b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out;
  {
    Tensor xc = widen(x), wc = widen(wt), bc = widen(b);
    Tensor oc_out = locus::detail::make_empty({p.n, oc, p.oh, p.ow}, cdt, d);
    if (!be->conv2d(index, current_stream(d), cdt, ref(xc, "conv2d").buf, ref(wc, "conv2d").buf,
                    bc.defined() ? ref(bc, "conv2d").buf : backend::Buffer{}, ref(oc_out, "conv2d").buf, oc, p)) {
      if (reduced) no_direct.push_back(be);
      return {};
    }
    out = narrow(oc_out);
  }
  if (autograd::should_record(input, weight, bias)) {
    const bool nx = autograd::requires_grad_fast(input), nw = autograd::requires_grad_fast(weight),
               nb = bias.defined() && autograd::requires_grad_fast(bias);
    autograd::record("ConvolutionBackward0", out, {&input, &weight, &bias},
                     [=](const Tensor& g) -> variable_list {
      if (GradMode::is_enabled()) {
        // create_graph: gradients that are themselves differentiable, through the composed form
        Tensor y = conv2d_composite(input, weight, bias, win, groups);
        variable_list wrt;
        if (nx) wrt.push_back(input);
        if (nw) wrt.push_back(weight);
        if (nb) wrt.push_back(bias);
        variable_list got = autograd::grad({y}, wrt, {g}, /*retain_graph=*/true, /*create_graph=*/true,
                                           /*allow_unused=*/true);
        size_t k = 0;
        Tensor gx = nx ? got[k++] : Tensor(), gw = nw ? got[k++] : Tensor(), gb = nb ? got[k++] : Tensor();
        return {gx, gw, gb};
      }
      Tensor gy = widen(g.contiguous()), xc = widen(x), wc = widen(wt);
      Tensor gx = nx ? locus::detail::make_empty(x.sizes(), cdt, d) : Tensor();
      Tensor gw = nw ? locus::detail::make_empty(wt.sizes(), cdt, d) : Tensor();
      Tensor gb = nb ? locus::detail::make_empty({oc}, cdt, d) : Tensor();
      auto buf = [](const Tensor& t) { return t.defined() ? ref(t, "conv2d_backward").buf : backend::Buffer{}; };
      if (!be->conv2d_backward(index, current_stream(d), cdt, buf(xc), buf(wc), buf(gy), buf(gx), buf(gw), buf(gb),
                               oc, p))
        throw Error("[conv2d_backward] the " + d.str() + " backend ran the forward but has no backward for " +
                    std::string(toString(cdt)) + "; this is a bug in locus, please report it.");
      return {narrow(gx), narrow(gw), narrow(gb)};
    });
  }
  return out;
}
}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Window& w, int64_t groups) {
  if (auto c = autocast::policy(autocast::Op::Conv2d, input.device()); c != autocast::Cast::None)
    return autocast::rerun(c, [&](auto C) { return conv2d(C(input), C(weight), C(bias), w, groups); });
  Tensor out = conv2d_direct(input, weight, bias, w, groups);
  return out.defined() ? out : conv2d_composite(input, weight, bias, w, groups);
}

}  // namespace locus::ops
