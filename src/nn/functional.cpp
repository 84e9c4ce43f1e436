// nn::functional: composed from differentiable locus ops, except linear (one fused backward
// node, so the weight gradient comes out contiguous without a transpose copy), gelu (the backend's
// unary op) and im2col (the backend's im2col family; its backward is col2im).
#include "locus/nn/functional.h"

#include <cmath>

#include "autograd/record.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "ops/dispatch.h"

namespace locus::nn::functional {
namespace {

using autograd::variable_list;

Tensor reduce(const Tensor& loss, enumtype::Reduction r) {
  switch (r) {
    case enumtype::Reduction::None: return loss;
    case enumtype::Reduction::Sum: return loss.sum();
    case enumtype::Reduction::Mean: return loss.mean();
  }
  return loss;
}

int dev_index(Device d) { return d.index() < 0 ? 0 : d.index(); }

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (input.dim() != 2) {
    Tensor out = input.matmul(weight.t());
    return bias.defined() ? out + bias : out;
  }
  ops::check_same_device("linear", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 2 || input.size(1) != weight.size(1))
    throw Error("linear(): mat1 and mat2 shapes cannot be multiplied (" + std::to_string(input.size(0)) + "x" +
                std::to_string(input.size(1)) + " and " + std::to_string(weight.size(weight.dim() - 1)) + "x" +
                std::to_string(weight.size(0)) + "); the input's last dim must equal in_features.");
  Tensor out;
  {
    NoGradGuard no_grad;
    out = bias.defined() ? bias.addmm(input, weight.t()) : input.mm(weight.t());
  }
  if (autograd::should_record(input, weight, bias)) {
    bool ni = autograd::requires_grad_fast(input), nw = autograd::requires_grad_fast(weight),
         nb = autograd::requires_grad_fast(bias);
    autograd::record("AddmmBackward0", out, {&input, &weight, &bias},
                     [input, weight, ni, nw, nb](const Tensor& g) -> variable_list {
                       return {ni ? g.mm(weight) : Tensor(), nw ? g.t().mm(input) : Tensor(),
                               nb ? g.sum({0}) : Tensor()};
                     });
  }
  return out;
}

Tensor relu(const Tensor& input, const ReLUFuncOptions& options) {
  if (options.inplace() && !autograd::should_record(input)) {
    Tensor t = input;
    return t.relu_();
  }
  return input.relu();
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  backend::UnaryOp op;
  if (options.approximate() == "none") op = backend::UnaryOp::Gelu;
  else if (options.approximate() == "tanh") op = backend::UnaryOp::GeluTanh;
  else throw Error("gelu(): approximate must be \"none\" or \"tanh\", got \"" + options.approximate() + "\".");
  Tensor a = input.is_floating_point() ? input : input.to(default_dtype());
  Device d = a.device();
  Tensor out = locus::detail::make_empty(a.sizes(), a.scalar_type(), d);
  if (out.numel() > 0) {
    backend::TensorRef o = ops::ref(out, "gelu"), x = ops::ref(a, "gelu");
    backend::TensorRef* refs[] = {&o, &x};
    ops::coalesce(refs, 2);
    ops::backend_for(d).unary(dev_index(d), ops::current_stream(d), op, o, x, {});
  }
  if (autograd::should_record(a)) autograd::on_unary(op, out, a, {});
  return out;
}

Tensor sigmoid(const Tensor& input) { return input.sigmoid(); }
Tensor tanh(const Tensor& input) { return input.tanh(); }
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& o) { return input.softmax(o.dim(), o.dtype()); }
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& o) { return input.log_softmax(o.dim(), o.dtype()); }

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  double p = options.p();
  if (p < 0 || p > 1) throw Error("dropout(): dropout probability has to be between 0 and 1, but got " + std::to_string(p) + ".");
  if (!options.training() || p == 0) return input;
  TensorOptions o = TensorOptions().dtype(input.scalar_type()).device(input.device());
  if (p == 1) return input * zeros_like(input, o);
  Tensor mask = rand(input.sizes(), o).lt(1 - p).to(input.scalar_type()) * (1.0 / (1 - p));
  return input * mask;
}

// ---- losses -----------------------------------------------------------------------------------
namespace {

// Per-sample negative log-likelihood (weighted, 0 at ignored targets) and the per-sample weights
// (0 at ignored targets), for input [M, C] and target [M].
std::pair<Tensor, Tensor> nll_terms(const char* op, const Tensor& logp, const Tensor& target, const Tensor& weight,
                                    int64_t ignore_index) {
  if (target.scalar_type() != kLong)
    throw Error(std::string(op) + "(): expected target to hold int64 class indices, got " +
                dtype_name(target.scalar_type()) + "; convert with .to(locus::kLong).");
  ops::check_same_device(op, {{"input", &logp}, {"target", &target}, {"weight", &weight}});
  if (target.size(0) != logp.size(0))
    throw Error(std::string(op) + "(): Expected input batch_size (" + std::to_string(logp.size(0)) +
                ") to match target batch_size (" + std::to_string(target.size(0)) + ").");
  Tensor valid = target.ne(ignore_index);
  Tensor safe = where(valid, target, 0);
  Tensor picked = logp.gather(1, safe.unsqueeze(1)).squeeze(1);
  Tensor w = weight.defined() ? weight.index_select(0, safe) : ones_like(picked);
  w = w * valid.to(w.scalar_type());
  return {(picked * w).neg(), w};
}

// Moves the class dim last and flattens: [N, C, d...] -> [N*d..., C]; target [N, d...] -> [-1].
void flatten_classes(Tensor& input, Tensor& target) {
  if (input.dim() <= 2) return;
  std::vector<int64_t> perm{0};
  for (int64_t i = 2; i < input.dim(); ++i) perm.push_back(i);
  perm.push_back(1);
  input = input.permute(perm).reshape({-1, input.size(1)});
  target = target.reshape({-1});
}

Tensor reduce_weighted(const Tensor& loss, const Tensor& w, enumtype::Reduction r, const DimVector& shape) {
  switch (r) {
    case enumtype::Reduction::None: return loss.reshape(shape);
    case enumtype::Reduction::Sum: return loss.sum();
    case enumtype::Reduction::Mean: return loss.sum() / w.sum();
  }
  return loss;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  if (input.dim() < 2) throw Error("nll_loss(): expected input of shape [N, C] (or [N, C, d...]), got " + ops::shape_str(input.sizes()) + ".");
  DimVector tshape(target.sizes());
  Tensor in = input, tg = target;
  flatten_classes(in, tg);
  auto [loss, w] = nll_terms("nll_loss", in, tg, options.weight(), options.ignore_index());
  return reduce_weighted(loss, w, options.reduction(), tshape);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  if (input.dim() < 2) throw Error("cross_entropy(): expected input of shape [N, C] (or [N, C, d...]), got " + ops::shape_str(input.sizes()) + ".");
  double eps = options.label_smoothing();
  if (eps < 0 || eps > 1) throw Error("cross_entropy(): label_smoothing must be between 0.0 and 1.0. Got: " + std::to_string(eps) + ".");
  DimVector tshape(target.sizes());
  Tensor in = input, tg = target;
  flatten_classes(in, tg);
  Tensor logp = in.log_softmax(1);
  auto [nll, w] = nll_terms("cross_entropy", logp, tg, options.weight(), options.ignore_index());
  if (eps == 0) return reduce_weighted(nll, w, options.reduction(), tshape);
  int64_t c = in.size(1);
  Tensor lw = options.weight().defined() ? logp * options.weight().view({1, c}) : logp;
  Tensor valid = tg.ne(options.ignore_index()).to(logp.scalar_type());
  Tensor smooth = lw.sum({1}).neg() * valid;
  Tensor loss = nll * (1 - eps) + smooth * (eps / static_cast<double>(c));
  if (options.reduction() == kMean && !options.weight().defined()) return loss.sum() / valid.sum();
  return reduce_weighted(loss, w, options.reduction(), tshape);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  Tensor d = input - target;
  return reduce(d * d, options.reduction());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  if (input.sizes() != target.sizes())
    throw Error("binary_cross_entropy_with_logits(): Target size (" + ops::shape_str(target.sizes()) +
                ") must be the same as input size (" + ops::shape_str(input.sizes()) + ").");
  Tensor max_val = input.neg().clamp_min(0);
  Tensor log_term = (max_val.neg().exp() + (input.neg() - max_val).exp()).log() + max_val;
  Tensor loss;
  if (options.pos_weight().defined()) {
    Tensor log_weight = (options.pos_weight() - 1) * target + 1;
    loss = (1 - target) * input + log_weight * log_term;
  } else {
    loss = (1 - target) * input + log_term;
  }
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(loss, options.reduction());
}

// ---- convolution and pooling ----------------------------------------------------------------
namespace {
// The sliding window over x's last two dims [..., H, W] (c = x.size(-3)); oh and ow stay 0 when a
// parameter is out of range (the caller reports it), so nothing divides by a zero stride.
backend::Backend::Im2Col window_geometry(const Tensor& x, ExpandingArray<2> k, ExpandingArray<2> dil,
                                         ExpandingArray<2> pad, ExpandingArray<2> stride) {
  backend::Backend::Im2Col p;
  p.c = x.size(-3); p.h = x.size(-2); p.w = x.size(-1); p.kh = k[0]; p.kw = k[1];
  p.sh = stride[0]; p.sw = stride[1]; p.ph = pad[0]; p.pw = pad[1]; p.dh = dil[0]; p.dw = dil[1];
  if (p.kh <= 0 || p.kw <= 0 || p.sh <= 0 || p.sw <= 0 || p.dh <= 0 || p.dw <= 0 || p.ph < 0 || p.pw < 0) return p;
  p.oh = (p.h + 2 * p.ph - p.dh * (p.kh - 1) - 1) / p.sh + 1;
  p.ow = (p.w + 2 * p.pw - p.dw * (p.kw - 1) - 1) / p.sw + 1;
  return p;
}
}  // namespace

Tensor im2col(const Tensor& input, ExpandingArray<2> k, ExpandingArray<2> dil, ExpandingArray<2> pad,
              ExpandingArray<2> stride) {
  if (input.dim() != 4) throw Error("im2col(): expected a 4-D input [N, C, H, W], got " + ops::shape_str(input.sizes()) + ".");
  Tensor x = input.contiguous();
  int64_t n = x.size(0), c = x.size(1);
  backend::Backend::Im2Col p = window_geometry(x, k, dil, pad, stride);
  if (p.kh <= 0 || p.kw <= 0 || p.sh <= 0 || p.sw <= 0 || p.dh <= 0 || p.dw <= 0 || p.ph < 0 || p.pw < 0)
    throw Error("im2col(): kernel size, stride and dilation must be positive and padding non-negative.");
  if (p.oh <= 0 || p.ow <= 0)
    throw Error("im2col(): the kernel (" + std::to_string(p.kh) + "x" + std::to_string(p.kw) + ", dilation " +
                std::to_string(p.dh) + "x" + std::to_string(p.dw) + ") does not fit the padded input " +
                ops::shape_str(input.sizes()) + "; the output would be " + std::to_string(p.oh) + "x" +
                std::to_string(p.ow) + ".");
  int64_t kk = c * p.kh * p.kw, l = p.oh * p.ow;
  Device d = x.device();
  ScalarType dt = x.scalar_type();
  Tensor cols = locus::detail::make_empty({n, kk, l}, dt, d);
  p.n = n;
  auto run = [p, dt](const Tensor& image, const Tensor& columns, bool reverse) {
    Device dev = image.device();
    backend::Backend& be = ops::backend_for(dev);
    be.im2col(dev.index() < 0 ? 0 : dev.index(), ops::current_stream(dev), dt, ops::ref(image, "im2col").buf,
              ops::ref(columns, "im2col").buf, p, reverse);
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

namespace {
// conv2d as im2col + GEMM, differentiable through both: any device, dtype and groups.
// input is 4-D and validated.
Tensor conv2d_composite(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dFuncOptions& o) {
  int64_t g = o.groups(), oc = weight.size(0), cg = weight.size(1), kh = weight.size(2), kw = weight.size(3);
  int64_t n = input.size(0), c = input.size(1);
  Tensor cols = im2col(input, {kh, kw}, o.dilation(), o.padding(), o.stride());  // [N, C*kh*kw, L]
  backend::Backend::Im2Col geo = window_geometry(input, {kh, kw}, o.dilation(), o.padding(), o.stride());
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
Tensor conv2d_direct(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dFuncOptions& o) {
  const ScalarType dt = input.scalar_type();
  const int64_t oc = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  if (o.groups() != 1 || input.numel() == 0 || weight.numel() == 0 || weight.scalar_type() != dt) return {};
  if (bias.defined() && (bias.scalar_type() != dt || bias.dim() != 1 || bias.size(0) != oc)) return {};
  backend::Backend::Im2Col p = window_geometry(input, {kh, kw}, o.dilation(), o.padding(), o.stride());
  if (p.oh <= 0 || p.ow <= 0) return {};
  p.n = input.size(0);
  const Device d = input.device();
  const int index = d.index() < 0 ? 0 : d.index();
  backend::Backend* be = &ops::backend_for(d);
  Tensor x = input.contiguous(), w = weight.contiguous(), b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = locus::detail::make_empty({p.n, oc, p.oh, p.ow}, dt, d);
  if (!be->conv2d(index, ops::current_stream(d), dt, ops::ref(x, "conv2d").buf, ops::ref(w, "conv2d").buf,
                  b.defined() ? ops::ref(b, "conv2d").buf : backend::Buffer{}, ops::ref(out, "conv2d").buf, oc, p))
    return {};
  if (autograd::should_record(input, weight, bias)) {
    const bool nx = autograd::requires_grad_fast(input), nw = autograd::requires_grad_fast(weight),
               nb = bias.defined() && autograd::requires_grad_fast(bias);
    autograd::record("ConvolutionBackward0", out, {&input, &weight, &bias},
                     [=](const Tensor& g) -> variable_list {
      if (GradMode::is_enabled()) {
        // create_graph: gradients that are themselves differentiable, through the composed form
        Tensor y = conv2d_composite(input, weight, bias, o);
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
      Tensor gy = g.contiguous();
      Tensor gx = nx ? locus::detail::make_empty(x.sizes(), dt, d) : Tensor();
      Tensor gw = nw ? locus::detail::make_empty(w.sizes(), dt, d) : Tensor();
      Tensor gb = nb ? locus::detail::make_empty({oc}, dt, d) : Tensor();
      auto buf = [](const Tensor& t) { return t.defined() ? ops::ref(t, "conv2d_backward").buf : backend::Buffer{}; };
      if (!be->conv2d_backward(index, ops::current_stream(d), dt, buf(x), buf(w), buf(gy), buf(gx), buf(gw), buf(gb),
                               oc, p))
        throw Error("conv2d_backward(): the " + d.str() + " backend ran the forward but has no backward for " +
                    std::string(toString(dt)) + "; this is a bug in locus, please report it.");
      return {gx, gw, gb};
    });
  }
  return out;
}
}  // namespace

Tensor conv2d(const Tensor& input_in, const Tensor& weight, const Conv2dFuncOptions& o) {
  const Tensor& bias = o.bias();
  ops::check_same_device("conv2d", {{"input", &input_in}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 4)
    throw Error("conv2d(): expected a 4-D weight [out_channels, in_channels/groups, kh, kw], got " + ops::shape_str(weight.sizes()) + ".");
  bool batched = input_in.dim() == 4;
  if (!batched && input_in.dim() != 3)
    throw Error("conv2d(): expected a 3-D (unbatched) or 4-D (batched) input, got " + ops::shape_str(input_in.sizes()) + ".");
  Tensor input = batched ? input_in : input_in.unsqueeze(0);
  int64_t g = o.groups(), oc = weight.size(0), cg = weight.size(1);
  int64_t c = input.size(1);
  if (g <= 0 || oc % g != 0)
    throw Error("conv2d(): groups (" + std::to_string(g) + ") must be positive and divide out_channels (" + std::to_string(oc) + ").");
  if (c != cg * g)
    throw Error("conv2d(): Given groups=" + std::to_string(g) + ", weight of size " + ops::shape_str(weight.sizes()) +
                ", expected input" + ops::shape_str(input.sizes()) + " to have " + std::to_string(cg * g) +
                " channels, but got " + std::to_string(c) + " channels instead.");
  Tensor out = conv2d_direct(input, weight, bias, o);
  if (!out.defined()) out = conv2d_composite(input, weight, bias, o);
  return batched ? out : out.squeeze(0);
}

namespace {
// Max pooling by the backend's own kernel, with the positions of the maxima for the backward (a
// scatter-add of the gradient, on any device). Undefined when the backend has no such kernel or
// the geometry is invalid: the caller then pools through im2col, which also reports the errors.
Tensor max_pool2d_direct(const Tensor& x4, const MaxPool2dFuncOptions& o) {
  if (x4.scalar_type() == kBool) return {};
  Tensor x = x4.contiguous();
  int64_t n = x.size(0), c = x.size(1);
  backend::Backend::Im2Col p = window_geometry(x, o.kernel_size(), o.dilation(), o.padding(), o.stride());
  p.c = 1;  // planes are pooled one by one
  if (p.oh <= 0 || p.ow <= 0 || x.numel() == 0) return {};
  Device d = x.device();
  Tensor out = locus::detail::make_empty({n, c, p.oh, p.ow}, x.scalar_type(), d);
  Tensor idx = locus::detail::make_empty({n, c, p.oh, p.ow}, kLong, d);
  backend::Backend& be = ops::backend_for(d);
  if (!be.max_pool2d(d.index() < 0 ? 0 : d.index(), ops::current_stream(d), x.scalar_type(),
                     ops::ref(x, "max_pool2d").buf, ops::ref(out, "max_pool2d").buf, ops::ref(idx, "max_pool2d").buf,
                     n * c, p))
    return {};
  if (autograd::should_record(x4)) {
    DimVector shape(x.sizes());
    int64_t planes = n * c, hw = p.h * p.w, l = p.oh * p.ow;
    ScalarType dt = x.scalar_type();
    autograd::record("MaxPool2DWithIndicesBackward0", out, {&x4}, [shape, planes, hw, l, idx, dt](const Tensor& g) -> variable_list {
      if (!GradMode::is_enabled()) {  // the backend's own kernel, when it has one (not differentiable again)
        Device gd = g.device();
        Tensor gy = g.contiguous();
        Tensor gi = locus::detail::make_empty(shape, dt, gd);
        if (ops::backend_for(gd).max_pool2d_backward(gd.index() < 0 ? 0 : gd.index(), ops::current_stream(gd), dt,
                                                     ops::ref(gy, "max_pool2d_backward").buf,
                                                     ops::ref(idx, "max_pool2d_backward").buf,
                                                     ops::ref(gi, "max_pool2d_backward").buf, planes, hw, l))
          return {gi};
      }
      Tensor gi = zeros({planes, hw}, TensorOptions().dtype(dt).device(g.device()));
      return {gi.scatter_add(1, idx.view({planes, l}), g.reshape({planes, l})).view(shape)};
    });
  }
  return out;
}
}  // namespace

namespace {
// PyTorch's rule for pooling: padding at most half the window in each dim, so no window lies
// entirely in the padding (a max pool would have nothing to take there, an average nothing to count).
void check_pool_padding(const char* op, ExpandingArray<2> k, ExpandingArray<2> pad) {
  for (int i = 0; i < 2; ++i)
    if (pad[i] > k[i] / 2)
      throw Error(std::string(op) + "(): padding (" + std::to_string(pad[0]) + ", " + std::to_string(pad[1]) +
                  ") must be at most half of kernel_size (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) +
                  ") in each dim, as in PyTorch; use padding <= kernel_size / 2.");
}
}  // namespace

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  if (o.ceil_mode()) throw Error("max_pool2d(): ceil_mode=true is not supported yet; pad the input instead.");
  if (input.dim() != 4 && input.dim() != 3)
    throw Error("max_pool2d(): expected a 3-D or 4-D input, got " + ops::shape_str(input.sizes()) + ".");
  check_pool_padding("max_pool2d", o.kernel_size(), o.padding());
  bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  if (Tensor fast = max_pool2d_direct(x, o); fast.defined()) return batched ? fast : fast.squeeze(0);
  Tensor flat = x.reshape({n * c, 1, h, w});
  Tensor cols = im2col(flat, o.kernel_size(), o.dilation(), o.padding(), o.stride());  // [NC, kh*kw, L]
  Tensor v;
  if (o.padding()[0] > 0 || o.padding()[1] > 0) {
    // im2col pads with zeros: find each window's maximum among the input's values shifted above
    // zero, so padding never wins, then take the unshifted value there (exact, differentiable)
    Tensor at;
    {
      NoGradGuard no_grad;
      Tensor shifted = im2col(flat.detach() - (flat.min() - 1), o.kernel_size(), o.dilation(), o.padding(), o.stride());
      at = std::get<1>(shifted.max(1, /*keepdim=*/true));
    }
    v = cols.gather(1, at).squeeze(1);
  } else {
    v = std::get<0>(cols.max(1));
  }
  backend::Backend::Im2Col geo = window_geometry(x, o.kernel_size(), o.dilation(), o.padding(), o.stride());
  Tensor out = v.reshape({n, c, geo.oh, geo.ow});
  return batched ? out : out.squeeze(0);
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  if (o.ceil_mode()) throw Error("avg_pool2d(): ceil_mode=true is not supported yet; pad the input instead.");
  if (input.dim() != 4 && input.dim() != 3)
    throw Error("avg_pool2d(): expected a 3-D or 4-D input, got " + ops::shape_str(input.sizes()) + ".");
  check_pool_padding("avg_pool2d", o.kernel_size(), o.padding());
  bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  Tensor cols = im2col(x.reshape({n * c, 1, h, w}), o.kernel_size(), 1, o.padding(), o.stride());
  Tensor v;
  bool padded = o.padding()[0] > 0 || o.padding()[1] > 0;
  if (o.count_include_pad() || !padded) {
    v = cols.mean({1});
  } else {
    Tensor counts = im2col(ones({1, 1, h, w}, TensorOptions().dtype(x.scalar_type()).device(x.device())),
                           o.kernel_size(), 1, o.padding(), o.stride()).sum({1});
    v = cols.sum({1}) / counts;
  }
  backend::Backend::Im2Col geo = window_geometry(x, o.kernel_size(), 1, o.padding(), o.stride());
  Tensor out = v.reshape({n, c, geo.oh, geo.ow});
  return batched ? out : out.squeeze(0);
}

Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  if (input.dim() != 4 && input.dim() != 3)
    throw Error("adaptive_avg_pool2d(): expected a 3-D or 4-D input, got " + ops::shape_str(input.sizes()) + ".");
  int64_t h = input.size(-2), w = input.size(-1), oh = output_size[0], ow = output_size[1];
  if (oh <= 0 || ow <= 0) throw Error("adaptive_avg_pool2d(): output_size must be positive.");
  if (oh == 1 && ow == 1) return input.mean({-2, -1}, /*keepdim=*/true);
  if (h % oh == 0 && w % ow == 0)
    return avg_pool2d(input, AvgPool2dFuncOptions({h / oh, w / ow}));
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < oh; ++i) {
    int64_t h0 = (i * h) / oh, h1 = ((i + 1) * h + oh - 1) / oh;
    std::vector<Tensor> cells;
    for (int64_t j = 0; j < ow; ++j) {
      int64_t w0 = (j * w) / ow, w1 = ((j + 1) * w + ow - 1) / ow;
      cells.push_back(input.narrow(-2, h0, h1 - h0).narrow(-1, w0, w1 - w0).mean({-2, -1}));
    }
    rows.push_back(stack(cells, -1));
  }
  return stack(rows, -2);
}

// ---- normalization and embedding ----------------------------------------------------------
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  if (input.dim() < 2) throw Error("batch_norm(): expected at least a 2-D input [N, C, ...], got " + ops::shape_str(input.sizes()) + ".");
  int64_t c = input.size(1);
  std::vector<int64_t> dims{0};
  for (int64_t i = 2; i < input.dim(); ++i) dims.push_back(i);
  std::vector<int64_t> bshape(static_cast<size_t>(input.dim()), 1);
  bshape[1] = c;
  Tensor mean, var;
  if (o.training()) {
    int64_t count = input.numel() / std::max<int64_t>(c, 1);
    if (count <= 1)
      throw Error("batch_norm(): Expected more than 1 value per channel when training, got input size " +
                  ops::shape_str(input.sizes()) + ".");
    mean = input.mean(dims);
    Tensor centered = input - mean.view(bshape);
    var = (centered * centered).mean(dims);
    if (running_mean.defined()) {
      NoGradGuard no_grad;
      Tensor rm = running_mean, rv = running_var;
      double m = o.momentum();
      rm.mul_(1 - m).add_(mean.detach() * m);
      rv.mul_(1 - m).add_(var.detach() * (m * static_cast<double>(count) / static_cast<double>(count - 1)));
    }
  } else {
    if (!running_mean.defined())
      throw Error("batch_norm(): running_mean and running_var must be defined in evaluation mode.");
    mean = running_mean;
    var = running_var;
  }
  Tensor out = (input - mean.view(bshape)) * (var.view(bshape) + o.eps()).rsqrt();
  if (o.weight().defined()) out = out * o.weight().view(bshape);
  if (o.bias().defined()) out = out + o.bias().view(bshape);
  return out;
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  const auto& ns = o.normalized_shape();
  int64_t k = static_cast<int64_t>(ns.size());
  bool ok = k <= input.dim();
  for (int64_t i = 0; ok && i < k; ++i) ok = input.size(input.dim() - k + i) == ns[i];
  if (!ok)
    throw Error("layer_norm(): Given normalized_shape=" + ops::shape_str(ns) + ", expected input with shape [*, " +
                ops::shape_str(ns).substr(1) + ", but got input of size" + ops::shape_str(input.sizes()) + ".");
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  Tensor mean = input.mean(dims, true);
  Tensor centered = input - mean;
  Tensor var = (centered * centered).mean(dims, true);
  Tensor out = centered * (var + o.eps()).rsqrt();
  if (o.weight().defined()) out = out * o.weight();
  if (o.bias().defined()) out = out + o.bias();
  return out;
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  if (input.scalar_type() != kLong && input.scalar_type() != kInt)
    throw Error(std::string("embedding(): expected int64 (or int32) indices, got ") + dtype_name(input.scalar_type()) +
                "; convert with .to(locus::kLong).");
  if (weight.dim() != 2) throw Error("embedding(): expected a 2-D weight [num_embeddings, embedding_dim], got " + ops::shape_str(weight.sizes()) + ".");
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  Tensor flat = input.reshape({-1});
  Tensor rows = weight.index_select(0, flat);
  if (options.padding_idx()) {
    int64_t pad = *options.padding_idx(), n = weight.size(0);
    if (pad < -n || pad >= n)
      throw Error("embedding(): padding_idx (" + std::to_string(pad) + ") must be within num_embeddings (" + std::to_string(n) + ").");
    if (pad < 0) pad += n;
    // the same values, but no gradient flows into the row at padding_idx
    if (autograd::should_record(weight)) rows = where(flat.ne(pad).unsqueeze(1), rows, rows.detach());
  }
  return rows.view(shape);
}

}  // namespace locus::nn::functional
