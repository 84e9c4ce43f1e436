// nn::functional: argument checks, then differentiable locus ops (convolution, pooling and gelu are
// internal ops: ops/conv.h, ops/internal.h); linear records one fused backward node, so the weight
// gradient comes out contiguous without a transpose copy.
#include "locus/nn/functional.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "nn/inplace.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/functional_3d.h"
#include "nn/conv_padding.h"
#include "ops/autocast.h"
#include "ops/checks.h"
#include "ops/conv.h"
#include "ops/internal.h"

namespace locus::nn::functional {
namespace ac = ops::autocast;
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

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  // cast before weight.t(): the cast cache holds the weight itself, not a view of it
  if (auto c = ac::policy(ac::Op::Linear, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return linear(C(input), C(weight), C(bias)); });
  if (input.dim() != 2) {
    Tensor out = input.matmul(weight.t());
    return bias.defined() ? out + bias : out;
  }
  ops::check_same_device("linear", {{"input", &input}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 2 || input.size(1) != weight.size(1))
    throw Error("[linear] mat1 and mat2 shapes cannot be multiplied (" + std::to_string(input.size(0)) + "x" +
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
  if (options.inplace()) return input.relu_();  // input overwritten, as libtorch (recorded in the graph too)
  return input.relu();
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  if (options.approximate() != "none" && options.approximate() != "tanh")
    throw Error("[gelu] approximate must be \"none\" or \"tanh\", got \"" + options.approximate() + "\".");
  return ops::gelu(input, options.approximate() == "tanh");
}

Tensor sigmoid(const Tensor& input) { return input.sigmoid(); }
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& o) {
  return detail::maybe_inplace("leaky_relu", input, o.inplace(),
                               [&](const Tensor& x) { return where(x > 0, x, x * o.negative_slope()); });
}
Tensor silu(const Tensor& input) { return input * input.sigmoid(); }

Tensor elu(const Tensor& input, const ELUFuncOptions& o) {
  // exp of min(x, 0): the branch where() drops must stay finite, or its zero gradient times
  // exp(x) = inf would be NaN for large x
  return detail::maybe_inplace("elu", input, o.inplace(), [&](const Tensor& x) {
    return where(x > 0, x, (x.clamp_max(0).exp() - 1) * o.alpha());
  });
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& o) {
  if (o.beta() == 0) throw Error("[softplus] beta must not be zero.");
  Tensor z = input * o.beta();
  // exp of min(z, threshold): the branch where() drops stays finite (its zero gradient times an
  // infinite derivative would be NaN)
  return where(z > o.threshold(), input, (z.clamp_max(o.threshold()).exp() + 1).log() / o.beta());
}

Tensor mish(const Tensor& input) { return input * softplus(input).tanh(); }

Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& o) {
  if (o.min_val() > o.max_val())
    throw Error("[hardtanh] min_val (" + std::to_string(o.min_val()) + ") must not be above max_val (" +
                std::to_string(o.max_val()) + ").");
  return detail::maybe_inplace("hardtanh", input, o.inplace(),
                               [&](const Tensor& x) { return x.clamp(o.min_val(), o.max_val()); });
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  ops::check_same_device("prelu", {{"input", &input}, {"weight", &weight}});
  const int64_t n = weight.numel(), channels = input.dim() >= 2 ? input.size(1) : 1;
  if (weight.dim() > 1 || (n != 1 && n != channels))
    throw Error("[prelu] weight must hold 1 value or one per channel (input.size(1) = " + std::to_string(channels) +
                "), got a weight of shape " + ops::shape_str(weight.sizes()) + ".");
  Tensor w = weight.reshape({n});
  if (n != 1) {  // one per channel: [C, 1, ...] against dim 1
    std::vector<int64_t> shape(static_cast<size_t>(input.dim() - 1), 1);
    shape[0] = n;
    w = w.view(shape);
  }
  return where(input > 0, input, w * input);  // at 0 the slope is the weight's, as PyTorch's gradient
}

Tensor selu(const Tensor& input, const SELUFuncOptions& o) {
  constexpr double kAlpha = 1.6732632423543772848170429916717, kScale = 1.0507009873554804934193349852946;
  return detail::maybe_inplace("selu", input, o.inplace(),
                               [&](const Tensor& x) { return elu(x, ELUFuncOptions().alpha(kAlpha)) * kScale; });
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions o) {
  const int64_t nd = std::max<int64_t>(input.dim(), 1);
  if (o.dim() < -nd || o.dim() >= nd)
    throw Error("[normalize] dim " + std::to_string(o.dim()) + " is out of range for a tensor of " + std::to_string(input.dim()) +
                " dims; pass NormalizeFuncOptions().dim(d) with -" + std::to_string(nd) + " <= d < " + std::to_string(nd) + ".");
  Tensor r = input / input.norm(o.p(), {o.dim()}, /*keepdim=*/true).clamp_min(o.eps());
  if (o.out()) return o.out()->copy_(r);
  return r;
}

namespace {
std::string pad_text(const std::vector<int64_t>& pad) {
  std::string t = "{";
  for (size_t i = 0; i < pad.size(); ++i) t += (i ? ", " : "") + std::to_string(pad[i]);
  return t + "}";
}
const char* pad_mode_name(enumtype::PadMode m) {
  switch (m) {
    case enumtype::PadMode::Constant: return "constant";
    case enumtype::PadMode::Reflect: return "reflect";
    case enumtype::PadMode::Replicate: return "replicate";
    default: return "circular";
  }
}
}  // namespace

Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  const std::vector<int64_t>& pad = o.pad();
  const int64_t nd = input.dim(), np = static_cast<int64_t>(pad.size()) / 2;
  if (pad.size() % 2 != 0)
    throw Error("[pad] the padding " + pad_text(pad) + " has an odd length; give (left, right) pairs, the last dim's first.");
  if (np > nd)
    throw Error("[pad] the padding " + pad_text(pad) + " pads " + std::to_string(np) + " dims, but the input has only " +
                std::to_string(nd) + ".");
  const auto mode = o.mode();
  if (mode != enumtype::PadMode::Constant) {
    if (np < 1 || np > 3 || (nd != np + 1 && nd != np + 2))
      throw Error(std::string("[pad] ") + pad_mode_name(mode) + " padding of " + std::to_string(np) +
                  " dims takes an input of " + std::to_string(np + 1) + " or " + std::to_string(np + 2) + " dims (as PyTorch: [C, W] or [N, C, W] for 1-D padding, and so on), got " +
                  std::to_string(nd) + "; use constant padding for other shapes.");
  }
  Tensor r = input;
  for (int64_t i = 0; i < np; ++i) {
    const int64_t d = nd - 1 - i, before = pad[static_cast<size_t>(2 * i)], after = pad[static_cast<size_t>(2 * i + 1)];
    const int64_t n = r.size(d);
    if (before == 0 && after == 0) continue;
    if (mode == enumtype::PadMode::Constant) {
      if (n + before + after < 0 || (before < 0 && -before > n) || (after < 0 && -after > n))
        throw Error("[pad] the padding " + pad_text(pad) + " crops dim " + std::to_string(d) + " of size " + std::to_string(n) +
                    " below zero.");
      if (before < 0) r = r.narrow(d, -before, r.size(d) + before);
      if (after < 0) r = r.narrow(d, 0, r.size(d) + after);
      std::vector<Tensor> parts;
      auto filler = [&](int64_t len) {
        std::vector<int64_t> sizes(r.sizes().begin(), r.sizes().end());
        sizes[static_cast<size_t>(d)] = len;
        return full(sizes, o.value(), r.options());
      };
      if (before > 0) parts.push_back(filler(before));
      parts.push_back(r);
      if (after > 0) parts.push_back(filler(after));
      if (parts.size() > 1) r = cat(parts, d);
      continue;
    }
    // reflect, replicate, circular: every output position reads one input position of this dim,
    // gathered by index_select (its gradient sums into the sources)
    const bool reflect = mode == enumtype::PadMode::Reflect, circular = mode == enumtype::PadMode::Circular;
    if (before < 0 || after < 0)
      throw Error(std::string("[pad] ") + pad_mode_name(mode) + " padding takes no negative amounts, got " + pad_text(pad) + ".");
    if (n == 0 || (reflect && (before >= n || after >= n)) || (circular && (before > n || after > n)))
      throw Error(std::string("[pad] ") + pad_mode_name(mode) + " padding (" + std::to_string(before) + ", " + std::to_string(after) +
                  ") of dim " + std::to_string(d) + " of size " + std::to_string(n) +
                  (n == 0 ? ": the dim is empty, there is nothing to repeat"
                          : reflect ? ": each amount must be less than the dim's size" : ": each amount must be at most the dim's size") +
                  "; pad less or use constant padding.");
    std::vector<int64_t> idx;
    idx.reserve(static_cast<size_t>(n + before + after));
    for (int64_t j = -before; j < n + after; ++j) {
      int64_t k = j;
      if (reflect) k = k < 0 ? -k : k >= n ? 2 * (n - 1) - k : k;
      else if (circular) k = ((k % n) + n) % n;
      else k = std::clamp<int64_t>(k, 0, n - 1);
      idx.push_back(k);
    }
    r = r.index_select(d, tensor(idx, TensorOptions().dtype(kLong).device(r.device())));
  }
  return r.is_same(input) ? input.clone() : r;
}
Tensor tanh(const Tensor& input) { return input.tanh(); }
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& o) { return input.softmax(o.dim(), o.dtype()); }
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& o) { return input.log_softmax(o.dim(), o.dtype()); }

Tensor dropout(const Tensor& input, const DropoutFuncOptions& options) {
  double p = options.p();
  if (p < 0 || p > 1) throw Error("[dropout] dropout probability has to be between 0 and 1, but got " + std::to_string(p) + ".");
  if (!options.training() || p == 0) return input;
  TensorOptions o = TensorOptions().dtype(input.scalar_type()).device(input.device());
  if (p == 1) return input * zeros_like(input, o);
  Tensor mask = rand(input.sizes(), o).lt(1 - p).to(input.scalar_type()) * (1.0 / (1 - p));
  return input * mask;
}

namespace {
// dropout over whole channels of a `spatial`-D feature map (batched or not)
Tensor feature_dropout(const char* op, const Tensor& input, const DropoutFuncOptions& options, int64_t spatial) {
  double p = options.p();
  if (p < 0 || p > 1)
    throw Error("[" + std::string(op) + "] dropout probability has to be between 0 and 1, but got " + std::to_string(p) + ".");
  int64_t nd = input.dim();
  if (nd != spatial + 1 && nd != spatial + 2)
    throw Error("[" + std::string(op) + "] expected a " + std::to_string(spatial + 2) + "-D input [N, C, ...] or a " +
                std::to_string(spatial + 1) + "-D unbatched input [C, ...], got " + std::to_string(nd) + "-D " +
                ops::shape_str(input.sizes()) + "; for elementwise dropout use dropout().");
  if (!options.training() || p == 0) return input;
  TensorOptions o = TensorOptions().dtype(input.scalar_type()).device(input.device());
  if (p == 1) return input * zeros_like(input, o);
  DimVector mask_sizes(input.sizes());
  for (int64_t k = nd - spatial; k < nd; ++k) mask_sizes[k] = 1;
  return input * (rand(mask_sizes, o).lt(1 - p).to(input.scalar_type()) * (1.0 / (1 - p)));
}
}  // namespace

Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options) {
  return feature_dropout("dropout2d", input, options, 2);
}
Tensor dropout3d(const Tensor& input, const Dropout3dFuncOptions& options) {
  return feature_dropout("dropout3d", input, options, 3);
}

// ---- losses -----------------------------------------------------------------------------------
namespace {

// Per-sample negative log-likelihood (weighted, 0 at ignored targets) and the per-sample weights
// (0 at ignored targets), for input [M, C] and target [M].
std::pair<Tensor, Tensor> nll_terms(const char* op, const Tensor& logp, const Tensor& target, const Tensor& weight,
                                    int64_t ignore_index) {
  if (target.scalar_type() != kLong)
    throw Error("[" + std::string(op) + "] expected target to hold int64 class indices, got " +
                dtype_name(target.scalar_type()) + "; convert with .to(locus::kLong).");
  ops::check_same_device(op, {{"input", &logp}, {"target", &target}, {"weight", &weight}});
  if (target.size(0) != logp.size(0))
    throw Error("[" + std::string(op) + "] Expected input batch_size (" + std::to_string(logp.size(0)) +
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

// cross_entropy without class weights or label smoothing, reduced to a mean or a sum, in one
// kernel each way where the backend has them (Backend::log_softmax_nll): no composed graph of a
// dozen small ops and their backward nodes. An undefined result means "compose it".
Tensor fused_cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index, bool mean) {
  const Device d = input.device();
  const ScalarType t = input.scalar_type();
  if ((t != kFloat && t != kDouble) || target.scalar_type() != kLong || target.device() != d || input.dim() != 2 ||
      input.size(1) == 0 || target.dim() != 1 || target.size(0) != input.size(0))
    return Tensor();  // the composed path gives the errors
  backend::Backend& be = ops::backend_for(d);
  const int64_t n = input.size(0), c = input.size(1);
  Tensor x = input.contiguous(), tg = target.contiguous();
  Tensor logp = locus::detail::make_empty(x.sizes(), t, d), loss = locus::detail::make_empty({}, t, d),
         count = locus::detail::make_empty({}, t, d), bad = locus::detail::make_empty({}, kLong, d);
  if (!be.log_softmax_nll(ops::device_index(d), ops::current_stream(d), t, ops::buffer(x), ops::buffer(tg),
                          ops::buffer(logp), ops::buffer(loss), ops::buffer(count), ops::buffer(bad), n, c,
                          ignore_index, mean))
    return Tensor();
  // (one read back on an accelerator, where the composed form's gather checked its indices with two)
  if (const int64_t row = bad.item<int64_t>(); row >= 0)
    throw Error("[cross_entropy] Target " + std::to_string(tg[row].item<int64_t>()) +
                " is out of bounds: targets are class indices in [0, " + std::to_string(c) + ") or ignore_index (" +
                std::to_string(ignore_index) + "), found at row " + std::to_string(row) + ".");
  if (autograd::should_record(input)) {
    autograd::record("NllLossBackward0", loss, {&input},
                     [x, tg, logp, count, ignore_index, mean](const Tensor& g) -> variable_list {
                       const Device dev = logp.device();
                       if (!GradMode::is_enabled()) {  // one kernel; under create_graph, the formula below
                         const ScalarType dt = logp.scalar_type();
                         Tensor gd = g.contiguous(), grad = locus::detail::make_empty(logp.sizes(), dt, dev);
                         if (ops::backend_for(dev).log_softmax_nll_backward(
                                 ops::device_index(dev), ops::current_stream(dev), dt, ops::buffer(logp),
                                 ops::buffer(tg), ops::buffer(gd), ops::buffer(count), ops::buffer(grad),
                                 logp.size(0), logp.size(1), ignore_index, mean))
                           return {grad};
                       }
                       // (softmax(x) - onehot) * scale from differentiable ops: second derivatives work
                       Tensor valid = tg.ne(ignore_index);
                       Tensor onehot = locus::one_hot(where(valid, tg, 0), x.size(1)).to(x.scalar_type());
                       // (no row counts when count is 0: every row is ignored, its gradient 0)
                       Tensor scale = (mean ? g / count.clamp_min(1) : g) * valid.to(x.scalar_type()).unsqueeze(1);
                       return {(x.softmax(1) - onehot) * scale};
                     });
  }
  return loss;
}

Tensor reduce_weighted(const Tensor& loss, const Tensor& w, enumtype::Reduction r, const DimVector& shape) {
  switch (r) {
    case enumtype::Reduction::None: return loss.reshape(shape);
    case enumtype::Reduction::Sum: return loss.sum();
    case enumtype::Reduction::Mean: {
      // 0 / 0 is NaN when every target is ignored, as PyTorch's, while the gradient stays 0 (a
      // plain division would send 0 * inf = NaN back to every input)
      Tensor ws = w.sum(), some = ws.ne(0);
      return where(some, loss.sum() / where(some, ws, 1), std::numeric_limits<double>::quiet_NaN());
    }
  }
  return loss;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  if (auto c = ac::policy(ac::Op::NllLoss, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) {
      return nll_loss(C(input), target, NLLLossFuncOptions(options).weight(C(options.weight())));
    });
  if (input.dim() < 2) throw Error("[nll_loss] expected input of shape [N, C] (or [N, C, d...]), got " + ops::shape_str(input.sizes()) + ".");
  DimVector tshape(target.sizes());
  Tensor in = input, tg = target;
  flatten_classes(in, tg);
  auto [loss, w] = nll_terms("nll_loss", in, tg, options.weight(), options.ignore_index());
  return reduce_weighted(loss, w, options.reduction(), tshape);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  if (auto c = ac::policy(ac::Op::CrossEntropy, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) {
      return cross_entropy(C(input), C(target), CrossEntropyFuncOptions(options).weight(C(options.weight())));
    });
  if (input.dim() < 2) throw Error("[cross_entropy] expected input of shape [N, C] (or [N, C, d...]), got " + ops::shape_str(input.sizes()) + ".");
  double eps = options.label_smoothing();
  if (eps < 0 || eps > 1) throw Error("[cross_entropy] label_smoothing must be between 0.0 and 1.0. Got: " + std::to_string(eps) + ".");
  if (is_floating_point(target.scalar_type())) {
    // class probabilities (PyTorch 1.10+): -sum_c w_c p_c log_softmax(x)_c along the class dim,
    // smoothing mixing p with the uniform distribution; the mean is over the elements, unweighted
    ops::check_same_device("cross_entropy", {{"input", &input}, {"target", &target}});
    if (target.sizes() != input.sizes())
      throw Error("[cross_entropy] a floating-point target holds class probabilities and needs the input's shape " +
                  ops::shape_str(input.sizes()) + ", got " + ops::shape_str(target.sizes()) +
                  "; for class indices pass an int64 target (.to(locus::kLong)).");
    if (options.ignore_index() >= 0)
      throw Error("[cross_entropy] ignore_index is not supported for floating point target (class probabilities).");
    const int64_t c = input.size(1);
    Tensor p = eps > 0 ? target * (1 - eps) + eps / static_cast<double>(c) : target;
    Tensor terms = input.log_softmax(1) * p;
    if (options.weight().defined()) {
      DimVector wshape(static_cast<size_t>(input.dim()), 1);
      wshape[1] = c;
      terms = terms * options.weight().view(wshape);
    }
    Tensor loss = terms.sum({1}).neg();
    switch (options.reduction()) {
      case enumtype::Reduction::None: return loss;
      case enumtype::Reduction::Sum: return loss.sum();
      case enumtype::Reduction::Mean: return loss.sum() / static_cast<double>(input.numel() / std::max<int64_t>(c, 1));
    }
  }
  if (eps == 0 && !options.weight().defined() && options.reduction() != enumtype::Reduction::None &&
      input.dim() == 2) {
    Tensor fused = fused_cross_entropy(input, target, options.ignore_index(),
                                       options.reduction() == enumtype::Reduction::Mean);
    if (fused.defined()) return fused;
  }
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

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& o) {
  if (auto c = ac::policy(ac::Op::KlDiv, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return kl_div(C(input), C(target), o); });
  ops::check_same_device("kl_div", {{"input", &input}, {"target", &target}});
  Tensor loss;
  if (o.log_target()) {
    loss = target.exp() * (target - input);
  } else {  // xlogy(target, target) - target * input: the log of 1 where target is 0 (no NaN, no grad)
    const Tensor zero = target.eq(0);
    loss = target * where(zero, ones_like(target), target).log() - target * input;
  }
  using R = KLDivFuncOptions::Reduction;
  switch (o.reduction()) {
    case R::None: return loss;
    case R::Sum: return loss.sum();
    case R::Mean: return loss.mean();
    case R::BatchMean: return input.dim() == 0 ? loss.sum() : loss.sum() / static_cast<double>(input.size(0));
  }
  return loss;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  if (auto c = ac::policy(ac::Op::MseLoss, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return mse_loss(C(input), C(target), options); });
  Tensor d = input - target;
  return reduce(d * d, options.reduction());
}

namespace {
// The elementwise losses take an input and a target of one shape (PyTorch broadcasts with a
// warning; a shape mistake is nearly always a bug, so locus refuses it).
void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  ops::check_same_device(op, {{"input", &input}, {"target", &target}});
  if (input.sizes() != target.sizes())
    throw Error("[" + std::string(op) + "] target size " + ops::shape_str(target.sizes()) + " differs from input size " +
                ops::shape_str(input.sizes()) + "; give both the same shape.");
}
}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& o) {
  check_same_shape("binary_cross_entropy", input, target);
  // PyTorch clamps each log at -100 so that a probability of exactly 0 or 1 gives a finite loss.
  Tensor loss = -(target * input.log().clamp_min(-100) + (1 - target) * (1 - input).log().clamp_min(-100));
  if (o.weight().defined()) loss = loss * o.weight();
  return reduce(loss, o.reduction());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& o) {
  check_same_shape("l1_loss", input, target);
  return reduce((input - target).abs(), o.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& o) {
  check_same_shape("smooth_l1_loss", input, target);
  if (o.beta() < 0) throw Error("[smooth_l1_loss] beta must not be negative, got " + std::to_string(o.beta()) + ".");
  Tensor a = (input - target).abs();
  if (o.beta() == 0) return reduce(a, o.reduction());
  return reduce(where(a < o.beta(), a * a * (0.5 / o.beta()), a - 0.5 * o.beta()), o.reduction());
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& o) {
  check_same_shape("huber_loss", input, target);
  if (o.delta() <= 0) throw Error("[huber_loss] delta must be positive, got " + std::to_string(o.delta()) + ".");
  Tensor a = (input - target).abs();
  return reduce(where(a <= o.delta(), a * a * 0.5, (a - 0.5 * o.delta()) * o.delta()), o.reduction());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  if (auto c = ac::policy(ac::Op::BceWithLogits, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) {
      auto o = BinaryCrossEntropyWithLogitsFuncOptions(options).weight(C(options.weight())).pos_weight(C(options.pos_weight()));
      return binary_cross_entropy_with_logits(C(input), C(target), o);
    });
  if (input.sizes() != target.sizes())
    throw Error("[binary_cross_entropy_with_logits] Target size (" + ops::shape_str(target.sizes()) +
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

// ---- convolution and pooling (ops/conv.cpp and ops/pool.cpp; checks here) ----------------------
namespace {
ops::Window window(ExpandingArray<2> k, ExpandingArray<2> dil, ExpandingArray<2> pad, ExpandingArray<2> stride) {
  return {k[0], k[1], dil[0], dil[1], pad[0], pad[1], stride[0], stride[1]};
}

// A convolution's groups against its weight's output channels and the input's channels (batched).
void check_conv_channels(const char* op, const Tensor& input, const Tensor& weight, int64_t g) {
  const int64_t oc = weight.size(0), cg = weight.size(1), c = input.size(1);
  if (g <= 0 || oc % g != 0)
    throw Error("[" + std::string(op) + "] groups (" + std::to_string(g) + ") must be positive and divide out_channels (" +
                std::to_string(oc) + ").");
  if (c != cg * g)
    throw Error("[" + std::string(op) + "] Given groups=" + std::to_string(g) + ", weight of size " +
                ops::shape_str(weight.sizes()) + ", expected input" + ops::shape_str(input.sizes()) + " to have " +
                std::to_string(cg * g) + " channels, but got " + std::to_string(c) + " channels instead.");
}
}  // namespace

Tensor im2col(const Tensor& input, ExpandingArray<2> k, ExpandingArray<2> dil, ExpandingArray<2> pad,
              ExpandingArray<2> stride) {
  return ops::im2col(input, window(k, dil, pad, stride));
}

Tensor conv2d(const Tensor& input_in, const Tensor& weight, const Conv2dFuncOptions& o) {
  const Tensor& bias = o.bias();
  ops::check_same_device("conv2d", {{"input", &input_in}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 4)
    throw Error("[conv2d] expected a 4-D weight [out_channels, in_channels/groups, kh, kw], got " + ops::shape_str(weight.sizes()) + ".");
  bool batched = input_in.dim() == 4;
  if (!batched && input_in.dim() != 3)
    throw Error("[conv2d] expected a 3-D (unbatched) or 4-D (batched) input, got " + ops::shape_str(input_in.sizes()) + ".");
  const int64_t g = o.groups();
  check_conv_channels("conv2d", batched ? input_in : input_in.unsqueeze(0), weight, g);
  const auto [padded, padding] = detail::resolve_padding<2>("conv2d", input_in, {weight.size(2), weight.size(3)},
                                                            o.padding(), o.stride(), o.dilation());
  Tensor input = batched ? padded : padded.unsqueeze(0);
  Tensor out = ops::conv2d(input, weight, bias, window({weight.size(2), weight.size(3)}, o.dilation(), padding, o.stride()), g);
  return batched ? out : out.squeeze(0);
}

Tensor conv1d(const Tensor& input_in, const Tensor& weight, const Conv1dFuncOptions& o) {
  const Tensor& bias = o.bias();
  ops::check_same_device("conv1d", {{"input", &input_in}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 3)
    throw Error("[conv1d] expected a 3-D weight [out_channels, in_channels/groups, kernel_size], got " +
                ops::shape_str(weight.sizes()) + ".");
  const bool batched = input_in.dim() == 3;
  if (!batched && input_in.dim() != 2)
    throw Error("[conv1d] expected a 2-D (unbatched) or 3-D (batched) input [N, C, L], got " +
                ops::shape_str(input_in.sizes()) + ".");
  const int64_t g = o.groups();
  check_conv_channels("conv1d", batched ? input_in : input_in.unsqueeze(0), weight, g);
  const auto [padded, padding] =
      detail::resolve_padding<1>("conv1d", input_in, {weight.size(2)}, o.padding(), o.stride(), o.dilation());
  Tensor input = batched ? padded : padded.unsqueeze(0);
  // [N, C, L] as [N, C, 1, L]: a height of 1, window height 1, no padding or stride there
  Tensor out = ops::conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias,
                           window({1, weight.size(2)}, {1, o.dilation()[0]}, {0, padding[0]}, {1, o.stride()[0]}), g)
                   .squeeze(2);
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose2d(const Tensor& input_in, const Tensor& weight, const ConvTranspose2dFuncOptions& o) {
  namespace ac = ops::autocast;
  if (auto c = ac::policy(ac::Op::ConvTranspose2d, input_in.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) {
      return conv_transpose2d(C(input_in), C(weight), ConvTranspose2dFuncOptions(o).bias(C(o.bias())));
    });
  const Tensor& bias = o.bias();
  ops::check_same_device("conv_transpose2d", {{"input", &input_in}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 4)
    throw Error("[conv_transpose2d] expected a 4-D weight [in_channels, out_channels/groups, kh, kw], got " +
                ops::shape_str(weight.sizes()) + ".");
  const bool batched = input_in.dim() == 4;
  if (!batched && input_in.dim() != 3)
    throw Error("[conv_transpose2d] expected a 3-D (unbatched) or 4-D (batched) input, got " +
                ops::shape_str(input_in.sizes()) + ".");
  Tensor x = batched ? input_in : input_in.unsqueeze(0);
  const int64_t g = o.groups(), cin = weight.size(0), cog = weight.size(1), kh = weight.size(2), kw = weight.size(3);
  if (g <= 0 || cin % g != 0)
    throw Error("[conv_transpose2d] groups (" + std::to_string(g) + ") must be positive and divide in_channels (" +
                std::to_string(cin) + ").");
  if (x.size(1) != cin)
    throw Error("[conv_transpose2d] Given transposed=1, weight of size " + ops::shape_str(weight.sizes()) +
                ", expected input" + ops::shape_str(x.sizes()) + " to have " + std::to_string(cin) +
                " channels, but got " + std::to_string(x.size(1)) + " channels instead.");
  const int64_t cout = cog * g;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != cout))
    throw Error("[conv_transpose2d] expected a bias of " + std::to_string(cout) + " elements (out_channels), got " +
                ops::shape_str(bias.sizes()) + ".");
  const ExpandingArray<2> s = o.stride(), p = o.padding(), op = o.output_padding(), dil = o.dilation();
  for (int i = 0; i < 2; ++i) {
    if (s[i] <= 0 || dil[i] <= 0 || p[i] < 0 || op[i] < 0)
      throw Error("[conv_transpose2d] stride and dilation must be positive, padding and output_padding non-negative.");
    if (op[i] >= s[i] && op[i] >= dil[i])
      throw Error("[conv_transpose2d] output padding must be smaller than either stride or dilation, but got "
                  "output_padding_height: " + std::to_string(op[0]) + " output_padding_width: " + std::to_string(op[1]) +
                  " stride_height: " + std::to_string(s[0]) + " stride_width: " + std::to_string(s[1]) +
                  " dilation_height: " + std::to_string(dil[0]) + " dilation_width: " + std::to_string(dil[1]) + ".");
  }
  const int64_t n = x.size(0), h = x.size(2), w = x.size(3);
  const int64_t oh = (h - 1) * s[0] - 2 * p[0] + dil[0] * (kh - 1) + op[0] + 1;
  const int64_t ow = (w - 1) * s[1] - 2 * p[1] + dil[1] * (kw - 1) + op[1] + 1;
  if (oh <= 0 || ow <= 0)
    throw Error("[conv_transpose2d] the output would be " + std::to_string(oh) + "x" + std::to_string(ow) +
                " for input " + ops::shape_str(x.sizes()) + " and weight " + ops::shape_str(weight.sizes()) +
                "; use less padding.");
  // Each input position spreads weight-times-value over its window of the output: the columns
  // W^T x ([N, out*kh*kw, H*W], a GEMM per group) summed into the output by col2im. The window over
  // the output has exactly H x W positions, more when output_padding reaches the stride (the
  // extra positions then take zero inputs).
  const ops::Window win{kh, kw, dil[0], dil[1], p[0], p[1], s[0], s[1]};
  const int64_t rh = (oh + 2 * p[0] - dil[0] * (kh - 1) - 1) / s[0] + 1;
  const int64_t rw = (ow + 2 * p[1] - dil[1] * (kw - 1) - 1) / s[1] + 1;
  if (rh > h || rw > w) x = pad(x, PadFuncOptions({0, rw - w, 0, rh - h}));
  // [g, out/g*kh*kw, in/g], row-major once: every image's GEMM reads it in place (a batch stride of
  // 0 after matmul's broadcasting), and row-major A is the GEMM's faster layout here
  Tensor wt = weight.reshape({g, cin / g, cog * kh * kw}).transpose(1, 2).contiguous();
  Tensor cols = wt.matmul(x.reshape({n, g, cin / g, rh * rw})).reshape({n, cout * kh * kw, rh * rw});
  Tensor out = ops::col2im(cols, oh, ow, win);
  if (bias.defined()) out = out + bias.view({1, cout, 1, 1});
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& o) {
  ops::check_same_device("conv_transpose1d", {{"input", &input}, {"weight", &weight}, {"bias", &o.bias()}});
  if (weight.dim() != 3)
    throw Error("[conv_transpose1d] expected a 3-D weight [in_channels, out_channels/groups, kernel_size], got " +
                ops::shape_str(weight.sizes()) + ".");
  const bool batched = input.dim() == 3;
  if (!batched && input.dim() != 2)
    throw Error("[conv_transpose1d] expected a 2-D (unbatched) or 3-D (batched) input [N, C, L], got " +
                ops::shape_str(input.sizes()) + ".");
  if (input.size(-2) != weight.size(0))
    throw Error("[conv_transpose1d] Given transposed=1, weight of size " + ops::shape_str(weight.sizes()) +
                ", expected input" + ops::shape_str(input.sizes()) + " to have " + std::to_string(weight.size(0)) +
                " channels, but got " + std::to_string(input.size(-2)) + " channels instead.");
  const int64_t s = o.stride()[0], p = o.padding()[0], op = o.output_padding()[0], dil = o.dilation()[0];
  if (s <= 0 || dil <= 0 || p < 0 || op < 0)
    throw Error("[conv_transpose1d] stride and dilation must be positive, padding and output_padding non-negative.");
  if (op >= s && op >= dil)
    throw Error("[conv_transpose1d] output padding must be smaller than either stride or dilation, but got "
                "output_padding: " + std::to_string(op) + " stride: " + std::to_string(s) + " dilation: " +
                std::to_string(dil) + ".");
  Tensor x = (batched ? input : input.unsqueeze(0)).unsqueeze(2);  // [N, C, 1, L]
  Tensor out = conv_transpose2d(x, weight.unsqueeze(2),
                                ConvTranspose2dFuncOptions()
                                    .bias(o.bias())
                                    .stride({1, s})
                                    .padding({0, p})
                                    .output_padding({0, op})
                                    .groups(o.groups())
                                    .dilation({1, dil}))
                   .squeeze(2);
  return batched ? out : out.squeeze(0);
}

namespace {
// A pooling window per spatial dim (1 or 2 of them), the 1-D forms being the 2-D ones over a
// height of 1 (k 1, stride 1, no padding there).
struct Pool {
  const char* op;
  int nd;  // spatial dims the user gave (messages print those)
  std::array<int64_t, 2> k, s, p, d;
};

std::string values_str(const Pool& w, const std::array<int64_t, 2>& v) {
  return w.nd == 1 ? std::to_string(v[1]) : std::to_string(v[0]) + ", " + std::to_string(v[1]);
}

// PyTorch's rules for pooling: positive window and stride, and padding at most half the window in
// each dim, so no window lies entirely in the padding (a max would have nothing to take there, an
// average nothing to count).
void check_pool(const Pool& w) {
  for (int i = 0; i < 2; ++i)
    if (w.k[i] <= 0 || w.s[i] <= 0 || w.d[i] <= 0 || w.p[i] < 0)
      throw Error("[" + std::string(w.op) + "] kernel_size (" + values_str(w, w.k) + "), stride (" +
                  values_str(w, w.s) + ") and dilation must be positive and padding non-negative.");
  for (int i = 0; i < 2; ++i)
    if (w.p[i] > w.k[i] / 2)
      throw Error("[" + std::string(w.op) + "] padding (" + values_str(w, w.p) + ") must be at most half of kernel_size (" +
                  values_str(w, w.k) + ") in each dim, as in PyTorch; use padding <= kernel_size / 2.");
}

// Extra padding after the input along one dim so that ceil_mode's last window fits (0 when the
// rounded-up size adds no window, or when the input is too small for any: the pool reports that).
int64_t ceil_extra(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t out = ops::pool_output_size(n, k, s, p, d, /*ceil_mode=*/true);
  return out <= 0 ? 0 : std::max<int64_t>(0, (out - 1) * s + d * (k - 1) + 1 - (n + 2 * p));
}

// input [N, C, H, W] or [C, H, W] (2-D), [N, C, L] or [C, L] (1-D) -> the 4-D batched form.
Tensor pool_input(const Pool& w, const Tensor& input, bool& batched) {
  const int64_t dims = w.nd + 2;
  batched = input.dim() == dims;
  if (!batched && input.dim() != dims - 1)
    throw Error("[" + std::string(w.op) + "] expected a " + std::to_string(dims - 1) + "-D (unbatched) or " +
                std::to_string(dims) + "-D (batched) input, got " + ops::shape_str(input.sizes()) + ".");
  Tensor x = batched ? input : input.unsqueeze(0);
  return w.nd == 1 ? x.unsqueeze(2) : x;
}
Tensor pool_output(const Pool& w, Tensor out, bool batched) {
  if (w.nd == 1) out = out.squeeze(2);
  return batched ? out : out.squeeze(0);
}

Tensor max_pool(const Pool& w, const Tensor& input, bool ceil_mode) {
  check_pool(w);
  bool batched = false;
  Tensor x = pool_input(w, input, batched);
  if (ceil_mode) {
    const int64_t eh = ceil_extra(x.size(2), w.k[0], w.s[0], w.p[0], w.d[0]);
    const int64_t ew = ceil_extra(x.size(3), w.k[1], w.s[1], w.p[1], w.d[1]);
    if (eh > 0 || ew > 0) x = pad(x, PadFuncOptions({0, ew, 0, eh}).value(ops::lowest_value(x.scalar_type())));
  }
  return pool_output(w, ops::max_pool2d(x, ops::Window{w.k[0], w.k[1], w.d[0], w.d[1], w.p[0], w.p[1], w.s[0], w.s[1]}),
                     batched);
}

Tensor avg_pool(const Pool& w, const Tensor& input, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  check_pool(w);
  if (divisor_override && *divisor_override == 0)
    throw Error("[" + std::string(w.op) + "] divisor_override must not be zero; leave it unset to divide by the window size.");
  bool batched = false;
  Tensor x = pool_input(w, input, batched);
  const ops::Window win{w.k[0], w.k[1], 1, 1, w.p[0], w.p[1], w.s[0], w.s[1]};
  const int64_t h = x.size(2), wd = x.size(3);
  const int64_t eh = ceil_mode ? ceil_extra(h, w.k[0], w.s[0], w.p[0], 1) : 0;
  const int64_t ew = ceil_mode ? ceil_extra(wd, w.k[1], w.s[1], w.p[1], 1) : 0;
  const double area = static_cast<double>(w.k[0] * w.k[1]);
  if (eh == 0 && ew == 0 && !divisor_override)
    return pool_output(w, ops::avg_pool2d(x, win, count_include_pad), batched);
  // Every window's sum (zeros beyond the input add nothing), then the divisor PyTorch uses.
  if (eh > 0 || ew > 0) x = pad(x, PadFuncOptions({0, ew, 0, eh}));
  Tensor sum = ops::avg_pool2d(x, win, /*count_include_pad=*/true) * area;
  if (divisor_override) return pool_output(w, sum / static_cast<double>(*divisor_override), batched);
  const std::vector<double> rows = ops::pool_divisors(h, sum.size(2), w.k[0], w.s[0], w.p[0], count_include_pad);
  const std::vector<double> cols = ops::pool_divisors(wd, sum.size(3), w.k[1], w.s[1], w.p[1], count_include_pad);
  std::vector<double> cells;
  for (double r : rows)
    for (double c : cols) cells.push_back(r * c);
  Tensor counts = tensor(cells, TensorOptions().dtype(kDouble)).view({static_cast<int64_t>(rows.size()),
                                                                      static_cast<int64_t>(cols.size())});
  return pool_output(w, sum / counts.to(x.device(), sum.scalar_type()), batched);
}

Pool pool2(const char* op, ExpandingArray<2> k, ExpandingArray<2> s, ExpandingArray<2> p, ExpandingArray<2> d) {
  return {op, 2, {k[0], k[1]}, {s[0], s[1]}, {p[0], p[1]}, {d[0], d[1]}};
}
Pool pool1(const char* op, ExpandingArray<1> k, ExpandingArray<1> s, ExpandingArray<1> p, ExpandingArray<1> d) {
  return {op, 1, {1, k[0]}, {1, s[0]}, {0, p[0]}, {1, d[0]}};
}

// Adaptive pooling: cell i of `out` along a dim of size n covers [floor(i n / out), ceil((i+1) n / out)).
int64_t cell_begin(int64_t i, int64_t n, int64_t out) { return (i * n) / out; }
int64_t cell_end(int64_t i, int64_t n, int64_t out) { return ((i + 1) * n + out - 1) / out; }

void check_adaptive(const char* op, const Tensor& x, int nd, const std::array<int64_t, 2>& out) {
  for (int i = 2 - nd; i < 2; ++i)
    if (out[static_cast<size_t>(i)] <= 0)
      throw Error("[" + std::string(op) + "] output_size must be positive, got " +
                  (nd == 1 ? std::to_string(out[1]) : std::to_string(out[0]) + ", " + std::to_string(out[1])) + ".");
  for (int i = 2; i < 4; ++i)
    if (x.size(i) == 0)
      throw Error("[" + std::string(op) + "] expected an input with non-zero sizes in its pooled dims, got " +
                  ops::shape_str(x.sizes()) + ".");
}

// An average over cells along dim `dim` of x: a product with the [n, out] matrix of 1/length.
Tensor average_cells(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t n = x.size(dim);
  if (n == out) return x;
  if (n % out == 0) return x.unflatten(dim, {out, n / out}).mean(dim + 1);
  std::vector<double> m(static_cast<size_t>(n * out), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t a = cell_begin(i, n, out), b = cell_end(i, n, out);
    for (int64_t j = a; j < b; ++j) m[static_cast<size_t>(j * out + i)] = 1.0 / static_cast<double>(b - a);
  }
  Tensor avg = tensor(m, TensorOptions().dtype(kDouble)).view({n, out}).to(x.device(), x.scalar_type());
  return x.transpose(dim, -1).matmul(avg).transpose(dim, -1);
}

// A max over cells along dim `dim`: the cells' indices gathered (a shorter cell repeats its last
// index, which changes no maximum), then max over each cell; its gradient goes to the first maximum.
Tensor max_cells(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t n = x.size(dim);
  if (n == out) return x;
  int64_t len = 0;
  for (int64_t i = 0; i < out; ++i) len = std::max(len, cell_end(i, n, out) - cell_begin(i, n, out));
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < out; ++i)
    for (int64_t j = 0; j < len; ++j) idx.push_back(std::min(cell_begin(i, n, out) + j, cell_end(i, n, out) - 1));
  Tensor at = tensor(idx, TensorOptions().dtype(kLong)).to(x.device());
  return std::get<0>(x.index_select(dim, at).unflatten(dim, {out, len}).max(dim + 1));
}

Tensor adaptive_pool(const char* op, const Tensor& input, int nd, std::array<int64_t, 2> out, bool is_max) {
  bool batched = false;
  Tensor x = pool_input(Pool{op, nd, {}, {}, {}, {}}, input, batched);
  if (nd == 1) out[0] = 1;
  check_adaptive(op, x, nd, out);
  const int64_t h = x.size(2), w = x.size(3);
  Tensor y;
  if (!is_max && out[0] == 1 && out[1] == 1) {
    y = x.mean({2, 3}, /*keepdim=*/true);
  } else if (h % out[0] == 0 && w % out[1] == 0) {  // equal cells: one pooling kernel
    const ops::Window win{h / out[0], w / out[1], 1, 1, 0, 0, h / out[0], w / out[1]};
    y = is_max ? ops::max_pool2d(x, win) : ops::avg_pool2d(x, win, true);
  } else {
    y = is_max ? max_cells(max_cells(x, 2, out[0]), 3, out[1]) : average_cells(average_cells(x, 2, out[0]), 3, out[1]);
  }
  return pool_output(Pool{op, nd, {}, {}, {}, {}}, y, batched);
}
}  // namespace

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return max_pool(pool2("max_pool2d", o.kernel_size(), o.stride(), o.padding(), o.dilation()), input, o.ceil_mode());
}
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return max_pool(pool1("max_pool1d", o.kernel_size(), o.stride(), o.padding(), o.dilation()), input, o.ceil_mode());
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return avg_pool(pool2("avg_pool2d", o.kernel_size(), o.stride(), o.padding(), 1), input, o.ceil_mode(),
                  o.count_include_pad(), o.divisor_override());
}
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return avg_pool(pool1("avg_pool1d", o.kernel_size(), o.stride(), o.padding(), 1), input, o.ceil_mode(),
                  o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  return adaptive_pool("adaptive_avg_pool2d", input, 2, {output_size[0], output_size[1]}, false);
}
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return adaptive_avg_pool2d(input, o.output_size());
}
Tensor adaptive_avg_pool1d(const Tensor& input, ExpandingArray<1> output_size) {
  return adaptive_pool("adaptive_avg_pool1d", input, 1, {1, output_size[0]}, false);
}
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return adaptive_avg_pool1d(input, o.output_size());
}
Tensor adaptive_max_pool2d(const Tensor& input, ExpandingArray<2> output_size) {
  return adaptive_pool("adaptive_max_pool2d", input, 2, {output_size[0], output_size[1]}, true);
}
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return adaptive_max_pool2d(input, o.output_size());
}
Tensor adaptive_max_pool1d(const Tensor& input, ExpandingArray<1> output_size) {
  return adaptive_pool("adaptive_max_pool1d", input, 1, {1, output_size[0]}, true);
}
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return adaptive_max_pool1d(input, o.output_size());
}

// ---- normalization and embedding ----------------------------------------------------------
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  if (input.dim() < 2) throw Error("[batch_norm] expected at least a 2-D input [N, C, ...], got " + ops::shape_str(input.sizes()) + ".");
  int64_t c = input.size(1);
  std::vector<int64_t> dims{0};
  for (int64_t i = 2; i < input.dim(); ++i) dims.push_back(i);
  std::vector<int64_t> bshape(static_cast<size_t>(input.dim()), 1);
  bshape[1] = c;
  // PyTorch's mixed types: a float16/bfloat16 input with float32 weights or statistics (a conv
  // under autocast feeding a BatchNorm) is normalised in float32 and returned in the input's dtype
  auto is_f32 = [](const Tensor& t) { return t.defined() && t.scalar_type() == kFloat; };
  if ((input.scalar_type() == kHalf || input.scalar_type() == kBFloat16) && (is_f32(running_mean) || is_f32(o.weight())))
    return batch_norm(input.to(kFloat), running_mean, running_var, o).to(input.scalar_type());
  Tensor mean, var;
  if (o.training()) {
    int64_t count = input.numel() / std::max<int64_t>(c, 1);
    if (count <= 1)
      throw Error("[batch_norm] Expected more than 1 value per channel when training, got input size " +
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
      throw Error("[batch_norm] running_mean and running_var must be defined in evaluation mode.");
    mean = running_mean;
    var = running_var;
  }
  // As PyTorch's CPU kernel: a per-channel scale and shift, folded before they meet the input, so
  // the full-size work is one multiply and one add (and their backward), not four ops on the input
  // (train_step_wide_cnn_bn_adam, docs/benchmarks.md).
  Tensor scale = (var + o.eps()).rsqrt();
  if (o.weight().defined()) scale = scale * o.weight();
  Tensor shift = -(mean * scale);
  if (o.bias().defined()) shift = shift + o.bias();
  return input * scale.view(bshape) + shift.view(bshape);
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  if (auto c = ac::policy(ac::Op::LayerNorm, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return layer_norm(C(input), LayerNormFuncOptions(o).weight(C(o.weight())).bias(C(o.bias()))); });
  const auto& ns = o.normalized_shape();
  int64_t k = static_cast<int64_t>(ns.size());
  bool ok = k <= input.dim();
  for (int64_t i = 0; ok && i < k; ++i) ok = input.size(input.dim() - k + i) == ns[i];
  if (!ok)
    throw Error("[layer_norm] Given normalized_shape=" + ops::shape_str(ns) + ", expected input with shape [*, " +
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

namespace {
// out [N, C, *] times weight [C], plus bias [C], where defined (the normalisations' affine step)
Tensor channel_affine(Tensor out, const Tensor& weight, const Tensor& bias) {
  if (!weight.defined() && !bias.defined()) return out;
  DimVector per_channel(static_cast<size_t>(out.dim()), 1);  // [1, C, 1, ...]
  per_channel[1] = out.size(1);
  if (weight.defined()) out = out * weight.view(per_channel);
  if (bias.defined()) out = out + bias.view(per_channel);
  return out;
}
}  // namespace

namespace {
// Bicubic resampling along one axis (PyTorch's: Keys' cubic convolution with A = -0.75, the four
// taps clamped at the borders, source positions not clamped below 0): four gathers, weighted.
Tensor cubic_along(const Tensor& x, int64_t axis, int64_t out, double scale, bool corners) {
  const int64_t in = x.size(axis);
  const double a = -0.75;
  auto near = [a](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };         // |t| <= 1
  auto far = [a](double t) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; };  // 1 < |t| < 2
  std::vector<int64_t> at[4];
  std::vector<double> w[4];
  for (int64_t j = 0; j < out; ++j) {
    const double src = corners ? (out > 1 ? static_cast<double>(j) * static_cast<double>(in - 1) /
                                                static_cast<double>(out - 1)
                                          : 0)
                               : (static_cast<double>(j) + 0.5) * scale - 0.5;
    const double lo = std::floor(src), t = src - lo;
    const double weights[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    for (int k = 0; k < 4; ++k) {
      at[k].push_back(std::clamp(static_cast<int64_t>(lo) - 1 + k, int64_t{0}, in - 1));
      w[k].push_back(weights[k]);
    }
  }
  DimVector wshape(static_cast<size_t>(x.dim()), 1);  // [1, 1, .., out, .., 1]
  wshape[static_cast<size_t>(axis)] = out;
  Tensor y;
  for (int k = 0; k < 4; ++k) {
    const Tensor idx = tensor(at[k], TensorOptions().dtype(kLong)).to(x.device());
    const Tensor wk = tensor(w[k], TensorOptions().dtype(kDouble)).to(x.device(), x.scalar_type()).view(wshape);
    const Tensor term = x.index_select(axis, idx) * wk;
    y = k == 0 ? term : y + term;
  }
  return y;
}
}  // namespace

const char* interpolate_mode_name(enumtype::InterpolateMode mode) {
  static const char* const names[] = {"nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area"};
  return names[static_cast<int>(mode)];
}

const char* interpolate_mode_enum_name(enumtype::InterpolateMode mode) {
  static const char* const names[] = {"kNearest", "kNearestExact", "kLinear", "kBilinear", "kTrilinear", "kBicubic", "kArea"};
  return names[static_cast<int>(mode)];
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  using M = enumtype::InterpolateMode;
  const M mode = o.mode();
  const char* name = interpolate_mode_name(mode);
  const int64_t sd = input.dim() - 2;  // spatial dims
  if (sd < 1 || sd > 3)
    throw Error("[interpolate] expected a 3-D, 4-D or 5-D input [N, C, *spatial], got " + ops::shape_str(input.sizes()) + ".");
  const bool linear = mode == M::Linear || mode == M::Bilinear || mode == M::Trilinear, cubic = mode == M::Bicubic;
  const int64_t needs = mode == M::Linear ? 1 : mode == M::Bilinear || cubic ? 2 : 3;
  if ((linear || cubic) && sd != needs)
    throw Error("[interpolate] Got " + std::to_string(input.dim()) + "D input, but " + name + " mode needs " +
                std::to_string(needs + 2) + "D input.");
  if (!linear && !cubic && o.align_corners())
    throw Error("[interpolate] align_corners option can only be set with the interpolating modes: linear | bilinear | "
                "bicubic | trilinear.");
  if (o.size().has_value() == o.scale_factor().has_value())
    throw Error(o.size() ? "[interpolate] only one of size or scale_factor should be defined."
                         : "[interpolate] either size or scale_factor should be defined.");
  const size_t given = o.size() ? o.size()->size() : o.scale_factor()->size();
  if (given != 1 && given != static_cast<size_t>(sd))
    throw Error(std::string("[interpolate] Input and output must have the same number of spatial dimensions, but got "
                            "input with spatial dimensions of ") +
                ops::shape_str(std::vector<int64_t>(input.sizes().begin() + 2, input.sizes().end())) + " and output size of " + std::to_string(given) +
                " values. Give one value for every spatial dimension, or one for all.");
  const bool corners = o.align_corners().value_or(false);
  Tensor x = input;
  std::vector<int64_t> outs;  // area: the output sizes, for the adaptive average pool it is
  for (int64_t i = 0; i < sd; ++i) {
    const int64_t axis = 2 + i, in = input.size(axis);
    const size_t k = given == 1 ? 0 : static_cast<size_t>(i);
    int64_t out = 0;
    double scale = 0;  // input positions per output position
    if (o.size()) {
      out = (*o.size())[k];
      scale = out > 0 ? static_cast<double>(in) / static_cast<double>(out) : 0;
    } else {
      const double f = (*o.scale_factor())[k];
      if (!(f > 0)) throw Error("[interpolate] scale_factor must be positive, got " + std::to_string(f) + ".");
      out = static_cast<int64_t>(std::floor(static_cast<double>(in) * f));
      scale = 1 / f;  // as PyTorch (recompute_scale_factor unset): the factor itself, not in / out
    }
    if (out <= 0 || in <= 0)
      throw Error("[interpolate] Input and output sizes should be greater than 0, but got input " +
                  ops::shape_str(std::vector<int64_t>(input.sizes().begin() + 2, input.sizes().end())) + " and output size " + std::to_string(out) + " in dim " +
                  std::to_string(axis) + ".");
    if (mode == M::Area) {
      outs.push_back(out);
      continue;
    }
    if (cubic) {
      x = cubic_along(x, axis, out, scale, corners);
      continue;
    }
    std::vector<int64_t> i0(static_cast<size_t>(out)), i1(static_cast<size_t>(out));
    std::vector<double> w1(static_cast<size_t>(out));
    for (int64_t j = 0; j < out; ++j) {
      const size_t at = static_cast<size_t>(j);
      if (!linear) {
        const double src = mode == M::Nearest ? static_cast<double>(j) * scale : (static_cast<double>(j) + 0.5) * scale;
        i0[at] = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
        continue;
      }
      double src = corners ? (out > 1 ? static_cast<double>(j) * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0)
                           : std::max((static_cast<double>(j) + 0.5) * scale - 0.5, 0.0);
      const int64_t lo = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
      i0[at] = lo;
      i1[at] = std::min(lo + 1, in - 1);
      w1[at] = std::min(std::max(src - static_cast<double>(lo), 0.0), 1.0);
    }
    const Tensor lo = tensor(i0, TensorOptions().dtype(kLong)).to(input.device());
    if (!linear) {
      x = x.index_select(axis, lo);
      continue;
    }
    DimVector wshape(static_cast<size_t>(input.dim()), 1);  // [1, 1, .., out, .., 1]
    wshape[static_cast<size_t>(axis)] = out;
    const Tensor b = tensor(w1, TensorOptions().dtype(kDouble)).to(input.device(), input.scalar_type()).view(wshape);
    const Tensor hi = tensor(i1, TensorOptions().dtype(kLong)).to(input.device());
    x = x.index_select(axis, lo) * (1 - b) + x.index_select(axis, hi) * b;
  }
  if (mode == M::Area)
    return sd == 1   ? adaptive_avg_pool1d(input, ExpandingArray<1>(outs[0]))
           : sd == 2 ? adaptive_avg_pool2d(input, ExpandingArray<2>({outs[0], outs[1]}))
                     : adaptive_avg_pool3d(input, ExpandingArray<3>({outs[0], outs[1], outs[2]}));
  return x;
}

namespace {
// pixel_shuffle (shuffle) or pixel_unshuffle of input [*, C, H, W] by r, as one view, permute, reshape
Tensor pixel_rearrange(const Tensor& input, int64_t r, bool shuffle) {
  const char* op = shuffle ? "pixel_shuffle" : "pixel_unshuffle";
  const char* what = shuffle ? "upscale_factor" : "downscale_factor";
  if (input.dim() < 3)
    throw Error(std::string("[") + op + "] expects input to have at least 3 dimensions, but got input with " +
                std::to_string(input.dim()) + " dimension(s).");
  if (r <= 0) throw Error(std::string("[") + op + "] " + what + " must be greater than 0, but got " + std::to_string(r) + ".");
  const int64_t nd = input.dim(), c = input.size(nd - 3), h = input.size(nd - 2), w = input.size(nd - 1);
  const int64_t b = input.numel() == 0 ? 0 : input.numel() / (c * h * w);
  if (shuffle && c % (r * r) != 0)
    throw Error("[pixel_shuffle] expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
                "but input.size(-3)=" + std::to_string(c) + " is not divisible by " + std::to_string(r * r) + ".");
  if (!shuffle && (h % r != 0 || w % r != 0))
    throw Error("[pixel_unshuffle] expects height and width to be divisible by downscale_factor, but got input of "
                "shape " + ops::shape_str(input.sizes()) + " and downscale_factor=" + std::to_string(r) + ".");
  std::vector<int64_t> out(input.sizes().begin(), input.sizes().end() - 3);  // the leading dims
  Tensor x;
  if (shuffle) {  // [B, C, r, r, H, W] -> [B, C, H, r, W, r]
    const int64_t oc = c / (r * r);
    x = input.reshape({b, oc, r, r, h, w}).permute({0, 1, 4, 2, 5, 3});
    out.insert(out.end(), {oc, h * r, w * r});
  } else {  // [B, C, H, r, W, r] -> [B, C, r, r, H, W]
    x = input.reshape({b, c, h / r, r, w / r, r}).permute({0, 1, 3, 5, 2, 4});
    out.insert(out.end(), {c * r * r, h / r, w / r});
  }
  return x.reshape(out);
}
}  // namespace

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& o) {
  return pixel_rearrange(input, o.upscale_factor(), true);
}
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& o) {
  return pixel_rearrange(input, o.downscale_factor(), false);
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  if (input.dim() < 2)
    throw Error("[instance_norm] expected an input of at least 2 dimensions [N, C, *], got " + ops::shape_str(input.sizes()) + ".");
  const int64_t n = input.size(0), ch = input.size(1);
  for (const auto& [what, t] : {std::pair<const char*, const Tensor*>{"weight", &o.weight()}, {"bias", &o.bias()},
                                {"running_mean", &o.running_mean()}, {"running_var", &o.running_var()}})
    if (t->defined() && (t->dim() != 1 || t->size(0) != ch))
      throw Error(std::string("[instance_norm] expected ") + what + " of " + std::to_string(ch) +
                  " elements (the channels), got " + ops::shape_str(t->sizes()) + ".");
  if (o.running_mean().defined() != o.running_var().defined())
    throw Error("[instance_norm] running_mean and running_var come together: give both or neither.");
  const Tensor x = input.reshape({n, ch, -1});
  Tensor out;
  if (o.use_input_stats()) {
    const Tensor mean = x.mean({2}, true), centered = x - mean, var = (centered * centered).mean({2}, true);
    out = centered * (var + o.eps()).rsqrt();
    if (o.running_mean().defined()) {  // the batch's mean of each image's statistics, the variance unbiased
      NoGradGuard no_grad;
      const int64_t l = x.size(2);
      const double m = o.momentum(), unbias = l > 1 ? static_cast<double>(l) / static_cast<double>(l - 1) : 1.0;
      Tensor rm = o.running_mean(), rv = o.running_var();
      rm.mul_(1 - m).add_(mean.mean({0}).view({ch}).to(rm.scalar_type()) * m);
      rv.mul_(1 - m).add_((var * unbias).mean({0}).view({ch}).to(rv.scalar_type()) * m);
    }
  } else {
    if (!o.running_mean().defined())
      throw Error("[instance_norm] use_input_stats(false) needs running_mean and running_var; give them, or keep "
                  "use_input_stats(true).");
    out = (x - o.running_mean().view({1, ch, 1})) * (o.running_var().view({1, ch, 1}) + o.eps()).rsqrt();
  }
  out = out.reshape(input.sizes());
  return channel_affine(out, o.weight(), o.bias());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  if (auto c = ac::policy(ac::Op::GroupNorm, input.device()); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return group_norm(C(input), GroupNormFuncOptions(o).weight(C(o.weight())).bias(C(o.bias()))); });
  const int64_t g = o.num_groups();
  if (input.dim() < 2)
    throw Error("[group_norm] expected an input of at least 2 dimensions [N, C, *], got " + ops::shape_str(input.sizes()) + ".");
  const int64_t n = input.size(0), ch = input.size(1);
  if (g <= 0 || ch % g != 0)
    throw Error("[group_norm] Expected number of channels in input to be divisible by num_groups, but got input of shape " +
                ops::shape_str(input.sizes()) + " and num_groups=" + std::to_string(g) + ".");
  for (const auto& [what, t] : {std::pair<const char*, const Tensor*>{"weight", &o.weight()}, {"bias", &o.bias()}})
    if (t->defined() && (t->dim() != 1 || t->size(0) != ch))
      throw Error(std::string("[group_norm] expected ") + what + " of " + std::to_string(ch) + " elements (the channels), got " +
                  ops::shape_str(t->sizes()) + ".");
  const Tensor x = input.reshape({n, g, -1});
  const Tensor centered = x - x.mean({2}, true);
  const Tensor var = (centered * centered).mean({2}, true);
  Tensor out = (centered * (var + o.eps()).rsqrt()).reshape(input.sizes());
  return channel_affine(out, o.weight(), o.bias());
}


}  // namespace locus::nn::functional
namespace locus::nn::detail {
const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type,
                                const char* name) {
  if (!(max_norm >= 0))
    throw Error(std::string("[") + name + "] max_norm must be a non-negative number, got " + std::to_string(max_norm) +
                ".");
  if (indices.numel() == 0) return weight;
  NoGradGuard no_grad;
  const Tensor flat = indices.reshape({-1}).to(kLong);
  const Tensor rows = weight.index_select(0, flat);
  const Tensor norms = rows.norm(norm_type, {1}, true);
  const Tensor scale = where(norms.gt(max_norm), max_norm / (norms + 1e-7), ones_like(norms));
  // a row looked up twice is written twice with the same values
  weight.index_put_({flat}, rows * scale);
  return weight;
}
}  // namespace locus::nn::detail
namespace locus::nn::functional {

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  if (input.scalar_type() != kLong && input.scalar_type() != kInt)
    throw Error(std::string("[embedding] expected int64 (or int32) indices, got ") + dtype_name(input.scalar_type()) +
                "; convert with .to(locus::kLong).");
  if (weight.dim() != 2) throw Error("[embedding] expected a 2-D weight [num_embeddings, embedding_dim], got " + ops::shape_str(weight.sizes()) + ".");
  if (options.sparse())
    throw Error("[embedding] sparse=true (sparse gradients) is not supported: locus's gradients are dense tensors; "
                "pass sparse(false) (an optimizer then updates the whole table).");
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  Tensor flat = input.reshape({-1});
  if (options.max_norm()) detail::embedding_renorm_(weight, flat, *options.max_norm(), options.norm_type(), "embedding");
  Tensor rows = weight.index_select(0, flat);
  if (options.padding_idx()) {
    int64_t pad = *options.padding_idx(), n = weight.size(0);
    if (pad < -n || pad >= n)
      throw Error("[embedding] padding_idx (" + std::to_string(pad) + ") must be within num_embeddings (" + std::to_string(n) + ").");
    if (pad < 0) pad += n;
    // the same values, but no gradient flows into the row at padding_idx
    if (autograd::should_record(weight)) rows = where(flat.ne(pad).unsqueeze(1), rows, rows.detach());
  }
  Tensor out = rows.view(shape);
  if (options.scale_grad_by_freq() && autograd::should_record(out) && flat.numel() > 0) {
    // the same values; the gradient of each looked-up row divided by its index's count in input
    Tensor counts = zeros({weight.size(0)}, TensorOptions().dtype(kLong).device(flat.device()))
                        .scatter_add(0, flat.to(kLong), ones_like(flat, TensorOptions().dtype(kLong)));
    DimVector one(input.sizes());
    one.push_back(1);
    Tensor scale = counts.index_select(0, flat).to(weight.scalar_type()).reciprocal().view(one);
    Tensor scaled = out.detach();
    autograd::record("EmbeddingBackward0", scaled, {&out},
                     [scale](const Tensor& g) -> autograd::variable_list { return {g * scale}; });
    return scaled;
  }
  return out;
}

}  // namespace locus::nn::functional
