// loss batch (stop 46): ctc_loss, triplet_margin_with_distance_loss, CrossMapLRN2d and
// AdaptiveLogSoftmaxWithLoss (nn/functional_losses_more.h, nn/modules/loss_more.h).
//
// ctc_loss runs PyTorch's alpha/beta recursions on the host in float64 (a custom autograd
// function): the recursion is sequential over time and needs log-space sums with -inf masks, which
// a composition of device ops would do in T small launches with NaN-prone gradients at -inf. The
// loss and gradient come back to log_probs' device and dtype. Memory is O(T * S) per batch item
// (alpha kept for the backward, beta per item), as PyTorch's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "locus/aten.h"
#include "locus/custom_function.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/indexing.h"
#include "locus/nn/modules/loss.h"
#include "locus/nn/modules/loss_more.h"
#include "ops/checks.h"

namespace locus::nn::functional {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::string err(const char* op, const std::string& what) { return "[" + std::string(op) + "] " + what; }

Tensor reduce(const Tensor& loss, enumtype::Reduction r) {
  switch (r) {
    case enumtype::Reduction::None:
      return loss;
    case enumtype::Reduction::Sum:
      return loss.sum();
    case enumtype::Reduction::Mean:
      return loss.mean();
  }
  return loss;
}

// log(exp(a) + exp(b) + exp(c)) as PyTorch's CTC kernels compute it (a max of -inf counts as 0).
double log_add3(double a, double b, double c) {
  double m = std::max({a, b, c});
  if (m == kNegInf) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

// The host side of one ctc_loss call: log_probs [T, N, C] in float64, the targets flattened, and
// per batch item its lengths and where its target starts.
struct CtcHost {
  int64_t T = 0, N = 0, C = 0, blank = 0, width = 1;  // width: 2 * max target length + 1
  Tensor lp;                                          // [T, N, C] float64, contiguous
  std::vector<int64_t> targets, offsets, input_lengths, target_lengths;

  double lp_at(int64_t t, int64_t b, int64_t c) const { return lp.data_ptr<double>()[(t * N + b) * C + c]; }
  // the extended target l' = (blank, l1, blank, l2, ..., blank)
  int64_t prime(int64_t b, int64_t s) const {
    return s % 2 == 0 ? blank : targets[static_cast<size_t>(offsets[static_cast<size_t>(b)] + s / 2)];
  }
};

// Forward recursion for item b into alpha [T, width] (filled with -inf); returns the nll.
double ctc_alpha(const CtcHost& h, int64_t b, double* alpha) {
  const int64_t in_len = h.input_lengths[static_cast<size_t>(b)], tl = h.target_lengths[static_cast<size_t>(b)];
  const int64_t W = h.width;
  if (in_len == 0) return tl == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  alpha[0] = h.lp_at(0, b, h.blank);
  if (tl > 0) alpha[1] = h.lp_at(0, b, h.prime(b, 1));
  for (int64_t t = 1; t < in_len; ++t)
    for (int64_t s = 0; s < 2 * tl + 1; ++s) {
      const int64_t cur = h.prime(b, s);
      const double a1 = alpha[(t - 1) * W + s];
      const double a2 = s > 0 ? alpha[(t - 1) * W + s - 1] : kNegInf;
      const double a3 = s > 1 && h.prime(b, s - 2) != cur ? alpha[(t - 1) * W + s - 2] : kNegInf;
      alpha[t * W + s] = log_add3(a1, a2, a3) + h.lp_at(t, b, cur);
    }
  if (tl == 0) return -alpha[(in_len - 1) * W];
  return -log_add3(alpha[(in_len - 1) * W + 2 * tl], alpha[(in_len - 1) * W + 2 * tl - 1], kNegInf);
}

// Backward for item b: beta recursion and PyTorch's gradient, (exp(lp) - exp(log(sum of
// alpha * beta over the states of class c) + nll - lp)) * gr, written into grad [T, N, C].
void ctc_grad(const CtcHost& h, int64_t b, const double* alpha, double nll, double gr, bool zero_infinity,
              double* grad) {
  const int64_t T = h.T, N = h.N, C = h.C, W = h.width;
  auto g = [&](int64_t t, int64_t c) -> double& { return grad[(t * N + b) * C + c]; };
  const int64_t in_len = h.input_lengths[static_cast<size_t>(b)], tl = h.target_lengths[static_cast<size_t>(b)];
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < C; ++c) g(t, c) = t < in_len && !(zero_infinity && std::isinf(nll)) ? kNegInf : 0.0;
  if (in_len == 0 || (zero_infinity && std::isinf(nll))) return;
  std::vector<double> beta(static_cast<size_t>(in_len * W), kNegInf);
  auto be = [&](int64_t t, int64_t s) -> double& { return beta[static_cast<size_t>(t * W + s)]; };
  const int64_t last = in_len - 1;
  be(last, 2 * tl) = h.lp_at(last, b, h.blank);
  g(last, h.blank) = alpha[last * W + 2 * tl] + be(last, 2 * tl);
  if (tl > 0) {
    const int64_t cur = h.prime(b, 2 * tl - 1);
    be(last, 2 * tl - 1) = h.lp_at(last, b, cur);
    g(last, cur) = alpha[last * W + 2 * tl - 1] + be(last, 2 * tl - 1);
  }
  for (int64_t t = in_len - 2; t >= 0; --t)
    for (int64_t s = 2 * tl; s >= 0; --s) {
      const int64_t cur = h.prime(b, s);
      const double b1 = be(t + 1, s);
      const double b2 = s < 2 * tl ? be(t + 1, s + 1) : kNegInf;
      const double b3 = s < 2 * tl - 1 && h.prime(b, s + 2) != cur ? be(t + 1, s + 2) : kNegInf;
      be(t, s) = log_add3(b1, b2, b3) + h.lp_at(t, b, cur);
      const double ab = alpha[t * W + s] + be(t, s);
      double& lcab = g(t, cur);
      if (lcab == kNegInf) {
        lcab = ab;
      } else {
        const double m = std::max(lcab, ab);
        lcab = std::log(std::exp(lcab - m) + std::exp(ab - m)) + m;
      }
    }
  for (int64_t t = 0; t < in_len; ++t)
    for (int64_t c = 0; c < C; ++c) {
      const double lp = h.lp_at(t, b, c);
      g(t, c) = (std::exp(lp) - std::exp(g(t, c) + nll - lp)) * gr;
    }
}

CtcHost ctc_from_saved(autograd::AutogradContext* ctx) {
  CtcHost h;
  h.lp = ctx->saved_data["lp"].toTensor();
  h.T = h.lp.size(0), h.N = h.lp.size(1), h.C = h.lp.size(2);
  h.blank = ctx->saved_data["blank"].toInt();
  h.width = ctx->saved_data["width"].toInt();
  h.targets = ctx->saved_data["targets"].toIntVector();
  h.offsets = ctx->saved_data["offsets"].toIntVector();
  h.input_lengths = ctx->saved_data["input_lengths"].toIntVector();
  h.target_lengths = ctx->saved_data["target_lengths"].toIntVector();
  return h;
}

// The per-item negative log likelihood [N] of log_probs [T, N, C] (PyTorch's _ctc_loss).
struct CtcLossFunction : autograd::Function<CtcLossFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& log_probs, const CtcHost& host,
                        bool zero_infinity) {
    CtcHost h = host;
    h.lp = log_probs.detach().cpu().to(kDouble).contiguous();
    Tensor alpha = full({h.N, h.T, h.width}, kNegInf, TensorOptions().dtype(kDouble));
    Tensor nll = empty({h.N}, TensorOptions().dtype(kDouble));
    for (int64_t b = 0; b < h.N; ++b)
      nll.data_ptr<double>()[b] = ctc_alpha(h, b, alpha.data_ptr<double>() + b * h.T * h.width);
    ctx->saved_data["lp"] = h.lp;
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["nll"] = nll.detach();  // (nll may be the output itself: no node -> ctx -> output cycle)
    ctx->saved_data["blank"] = h.blank;
    ctx->saved_data["width"] = h.width;
    ctx->saved_data["zero_infinity"] = zero_infinity;
    ctx->saved_data["targets"] = h.targets;
    ctx->saved_data["offsets"] = h.offsets;
    ctx->saved_data["input_lengths"] = h.input_lengths;
    ctx->saved_data["target_lengths"] = h.target_lengths;
    return nll.to(log_probs.device(), log_probs.scalar_type());
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    const CtcHost h = ctc_from_saved(ctx);
    const Tensor alpha = ctx->saved_data["alpha"].toTensor(), nll = ctx->saved_data["nll"].toTensor();
    const bool zero_infinity = ctx->saved_data["zero_infinity"].toBool();
    const Tensor gr = g[0].detach().cpu().to(kDouble).contiguous();
    Tensor grad = empty({h.T, h.N, h.C}, TensorOptions().dtype(kDouble));
    for (int64_t b = 0; b < h.N; ++b)
      ctc_grad(h, b, alpha.data_ptr<double>() + b * h.T * h.width, nll.data_ptr<double>()[b], gr.data_ptr<double>()[b],
               zero_infinity, grad.data_ptr<double>());
    return {grad.to(g[0].device(), g[0].scalar_type()), Tensor(), Tensor()};
  }
};

std::vector<int64_t> lengths_of(const char* op, const char* name, const Tensor& t) {
  if (!is_integral(t.scalar_type()))
    throw Error(err(op, std::string("expected integer ") + name + ", got " + dtype_name(t.scalar_type()) +
                            "; give one length per batch item as an int64 tensor."));
  if (t.dim() > 1)
    throw Error(
        err(op, std::string("expected ") + name + " as a 0-dim or 1-D tensor, got " + ops::shape_str(t.sizes()) + "."));
  const Tensor h = t.detach().cpu().to(kLong).contiguous();
  return std::vector<int64_t>(h.data_ptr<int64_t>(), h.data_ptr<int64_t>() + h.numel());
}

// at::ctc_loss: checks, the per-item nll, zero_infinity and the reduction.
Tensor ctc_loss_impl(const Tensor& log_probs, const Tensor& targets, std::vector<int64_t> input_lengths,
                     std::vector<int64_t> target_lengths, int64_t blank, enumtype::Reduction reduction,
                     bool zero_infinity) {
  const char* op = "ctc_loss";
  if (log_probs.dim() != 2 && log_probs.dim() != 3)
    throw Error(err(op, "expected log_probs [T, N, C] (or [T, C] for one sequence), got " +
                            ops::shape_str(log_probs.sizes()) + "."));
  if (!log_probs.is_floating_point())
    throw Error(
        err(op, std::string("expected floating-point log_probs, got ") + dtype_name(log_probs.scalar_type()) + "."));
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  CtcHost h;
  h.T = lp.size(0), h.N = lp.size(1), h.C = lp.size(2), h.blank = blank;
  const int64_t N = h.N;
  if (blank < 0 || blank >= h.C)
    throw Error(err(op, "blank " + std::to_string(blank) + " is out of range for " + std::to_string(h.C) +
                            " classes; give 0 <= blank < " + std::to_string(h.C) + "."));
  auto check_count = [&](const char* name, const std::vector<int64_t>& v) {
    if (static_cast<int64_t>(v.size()) != N)
      throw Error(err(op, "expected " + std::string(name) + " of " + std::to_string(N) +
                              " elements (one per batch item of log_probs " + ops::shape_str(log_probs.sizes()) +
                              "), got " + std::to_string(v.size()) + "."));
  };
  check_count("input_lengths", input_lengths);
  check_count("target_lengths", target_lengths);
  for (int64_t b = 0; b < N; ++b) {
    const int64_t il = input_lengths[static_cast<size_t>(b)], tl = target_lengths[static_cast<size_t>(b)];
    if (il < 0 || il > h.T)
      throw Error(err(op, "input_lengths[" + std::to_string(b) + "] = " + std::to_string(il) +
                              " is out of range; give lengths from 0 to the " + std::to_string(h.T) +
                              " time steps of log_probs."));
    if (tl < 0)
      throw Error(err(op, "target_lengths[" + std::to_string(b) + "] = " + std::to_string(tl) +
                              " is negative; give lengths of at least 0."));
  }
  if (targets.scalar_type() == kBool)
    throw Error(
        err(op, std::string("expected targets holding class indices, got ") + dtype_name(targets.scalar_type()) + "."));
  const Tensor tg = targets.detach().cpu().to(kLong).contiguous();  // as PyTorch's targets.to(kLong)
  const int64_t* tp = tg.data_ptr<int64_t>();
  h.offsets.assign(static_cast<size_t>(N), 0);
  const int64_t max_tl = N == 0 ? 0 : *std::max_element(target_lengths.begin(), target_lengths.end());
  if (targets.dim() == 1) {  // concatenated
    int64_t pos = 0;
    for (int64_t b = 0; b < N; ++b)
      h.offsets[static_cast<size_t>(b)] = pos, pos += target_lengths[static_cast<size_t>(b)];
    if (pos != targets.size(0))
      throw Error(err(op, "concatenated 1-D targets must hold sum(target_lengths) = " + std::to_string(pos) +
                              " elements, got " + std::to_string(targets.size(0)) + "."));
  } else if (targets.dim() == 2 && batched) {  // padded [N, S]
    if (targets.size(0) != N)
      throw Error(err(op, "targets " + ops::shape_str(targets.sizes()) + " has " + std::to_string(targets.size(0)) +
                              " rows, log_probs " + ops::shape_str(log_probs.sizes()) + " has " + std::to_string(N) +
                              " batch items; give one padded target row per batch item."));
    if (targets.size(1) < max_tl)
      throw Error(err(op, "target_lengths go up to " + std::to_string(max_tl) + " but the padded targets " +
                              ops::shape_str(targets.sizes()) + " hold " + std::to_string(targets.size(1)) +
                              " per row; give target lengths of at most targets.size(1)."));
    for (int64_t b = 0; b < N; ++b) h.offsets[static_cast<size_t>(b)] = b * targets.size(1);
  } else {
    throw Error(err(op, std::string("expected targets ") + (batched ? "[N, S] (padded) or " : "") +
                            "1-D (concatenated), got " + ops::shape_str(targets.sizes()) + " for log_probs " +
                            ops::shape_str(log_probs.sizes()) + "."));
  }
  h.targets.assign(tp, tp + tg.numel());
  for (int64_t b = 0; b < N; ++b)
    for (int64_t s = 0; s < target_lengths[static_cast<size_t>(b)]; ++s) {
      const int64_t c = h.targets[static_cast<size_t>(h.offsets[static_cast<size_t>(b)] + s)];
      if (c < 0 || c >= h.C)
        throw Error(err(op, "target " + std::to_string(c) + " (batch item " + std::to_string(b) +
                                ") is out of range for " + std::to_string(h.C) +
                                " classes; give class indices from 0 to " + std::to_string(h.C - 1) + "."));
    }
  h.width = 2 * max_tl + 1;
  h.input_lengths = input_lengths;
  h.target_lengths = target_lengths;
  Tensor res = CtcLossFunction::apply(lp, h, zero_infinity);
  if (zero_infinity) res = where(res.eq(std::numeric_limits<double>::infinity()), zeros({}, res.options()), res);
  if (reduction == enumtype::Reduction::Mean) {
    Tensor tl = tensor(target_lengths, TensorOptions().dtype(kLong)).to(res.device(), res.scalar_type()).clamp_min(1);
    return (res / tl).mean();
  }
  if (reduction == enumtype::Reduction::Sum) return res.sum();
  return batched ? res : res.squeeze(0);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& o) {
  return ctc_loss_impl(log_probs, targets, lengths_of("ctc_loss", "input_lengths", input_lengths),
                       lengths_of("ctc_loss", "target_lengths", target_lengths), o.blank(), o.reduction(),
                       o.zero_infinity());
}

}  // namespace locus::nn::functional

namespace locus::nn::functional {

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& o) {
  // As libtorch's: the given distance, or pairwise_distance with its defaults.
  auto dist = [&](const Tensor& a, const Tensor& b) {
    return o.distance_function().has_value() ? (*o.distance_function())(a, b) : functional::pairwise_distance(a, b);
  };
  Tensor pos = dist(anchor, positive), neg = dist(anchor, negative);
  if (o.swap()) neg = minimum(neg, dist(positive, negative));
  return reduce((pos - neg + o.margin()).clamp_min(0), o.reduction());
}

}  // namespace locus::nn::functional

namespace locus {
namespace {

enumtype::Reduction ctc_reduction(int64_t r) {
  switch (r) {
    case Reduction::None:
      return enumtype::Reduction::None;
    case Reduction::Mean:
      return enumtype::Reduction::Mean;
    case Reduction::Sum:
      return enumtype::Reduction::Sum;
    default:
      break;
  }
  throw Error("[ctc_loss] reduction must be locus::Reduction::None, Mean or Sum (0, 1 or 2), got " + std::to_string(r) +
              ".");
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank, int64_t reduction, bool zero_infinity) {
  return nn::functional::ctc_loss_impl(log_probs, targets,
                                       std::vector<int64_t>(input_lengths.begin(), input_lengths.end()),
                                       std::vector<int64_t>(target_lengths.begin(), target_lengths.end()), blank,
                                       ctc_reduction(reduction), zero_infinity);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  return nn::functional::ctc_loss(log_probs, targets, input_lengths, target_lengths,
                                  nn::functional::CTCLossFuncOptions()
                                      .blank(blank)
                                      .reduction(ctc_reduction(reduction))
                                      .zero_infinity(zero_infinity));
}

}  // namespace locus

namespace locus::nn {
namespace {

// libtorch's functions::CrossMapLRN2d: forward and backward as written there (on the device).
struct CrossMapLRN2dFunction : autograd::Function<CrossMapLRN2dFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& input, const CrossMapLRN2dOptions& o) {
    const int64_t channels = input.size(1), size = o.size();
    const Tensor square = input * input;
    // The running window sum, as libtorch's: channel c adds c + pre_pad - 1 and drops c - pre_pad
    // only for c > pre_pad (so channel 0 stays in every sum).
    const int64_t pre_pad = (size - 1) / 2 + 1, crop = std::min(pre_pad, channels);
    std::vector<Tensor> scale;
    scale.reserve(static_cast<size_t>(channels));
    if (channels > 0) scale.push_back(square.narrow(1, 0, crop).sum({1}));
    for (int64_t c = 1; c < channels; ++c) {
      Tensor cur = scale.back();
      if (c < channels - pre_pad + 1) cur = cur + square.select(1, c + pre_pad - 1);
      if (c > pre_pad) cur = cur - square.select(1, c - pre_pad);
      scale.push_back(cur);
    }
    Tensor s = channels > 0 ? stack(scale, 1) * (o.alpha() / static_cast<double>(size)) + static_cast<double>(o.k())
                            : zeros_like(input);
    Tensor output = s.pow(-o.beta()) * input;
    ctx->saved_data["scale"] = s;
    ctx->saved_data["input"] = input;
    ctx->saved_data["output"] = output.detach();  // an alias: the output itself would hold its node (a cycle)
    ctx->saved_data["size"] = size;
    ctx->saved_data["alpha"] = o.alpha();
    ctx->saved_data["beta"] = o.beta();
    return output;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    const Tensor scale = ctx->saved_data["scale"].toTensor(), input = ctx->saved_data["input"].toTensor();
    const Tensor output = ctx->saved_data["output"].toTensor();
    const int64_t size = ctx->saved_data["size"].toInt(), channels = input.size(1);
    const double alpha = ctx->saved_data["alpha"].toDouble(), beta = ctx->saved_data["beta"].toDouble();
    const Tensor& go = g[0];
    Tensor grad = scale.pow(-beta) * go;
    if (channels == 0) return {grad, Tensor()};
    // PyTorch's: the ratio g * out / scale, padded by inversePrePad channels in front, summed over
    // a window of `size` padded channels starting at each channel. inversePrePad is PyTorch's
    // int(size - (size - 1) / 2) with a true division; libtorch's integer division agrees for odd
    // sizes (for even ones libtorch's backward fails at size 2 and reads one channel further above).
    const auto inverse_pre_pad = static_cast<int64_t>(static_cast<double>(size) - static_cast<double>(size - 1) / 2);
    const Tensor ratio = go * output / scale;
    auto pad_shape = [&](int64_t c) { return std::vector<int64_t>{input.size(0), c, input.size(2), input.size(3)}; };
    const Tensor padded =
        cat({zeros(pad_shape(inverse_pre_pad), ratio.options()), ratio, zeros(pad_shape(size), ratio.options())}, 1);
    Tensor accum = padded.narrow(1, 0, channels);
    for (int64_t j = 1; j < size; ++j) accum = accum + padded.narrow(1, j, channels);
    const double cache_ratio = 2 * alpha * beta / static_cast<double>(size);
    return {grad - input * accum * cache_ratio, Tensor()};
  }
};

}  // namespace

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  if (input.dim() != 4)
    throw Error("[CrossMapLRN2d] expected a 4-D input [N, C, H, W], got " + ops::shape_str(input.sizes()) + ".");
  if (options.size() < 1)
    throw Error("[CrossMapLRN2d] size must be at least 1, got " + std::to_string(options.size()) + ".");
  if (!input.is_floating_point())
    throw Error(std::string("[CrossMapLRN2d] expected a floating-point input, got ") + dtype_name(input.scalar_type()) +
                ".");
  return CrossMapLRN2dFunction::apply(input, options);
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha() << ", beta=" << options.beta()
    << ", k=" << options.k() << ")";
}

void CTCLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::CTCLoss()"; }

void TripletMarginWithDistanceLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::TripletMarginWithDistanceLoss(margin=" << options.margin()
    << ", swap=" << (options.swap() ? "true" : "false") << ")";
}

// ---- AdaptiveLogSoftmaxWithLoss (libtorch's adaptive.cpp, composed of differentiable ops) ----

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const char* op = "[AdaptiveLogSoftmaxWithLoss] ";
  const std::vector<int64_t>& cuts = options.cutoffs();
  const bool sorted_unique = std::adjacent_find(cuts.begin(), cuts.end(), std::greater_equal<>()) == cuts.end();
  if (cuts.empty() || !sorted_unique || cuts.front() <= 0 || cuts.back() > options.n_classes() - 1) {
    std::ostringstream got;
    for (size_t i = 0; i < cuts.size(); ++i) got << (i ? ", " : "") << cuts[i];
    throw Error(op +
                std::string("cutoffs should be a non-empty sequence of unique, positive integers sorted in an "
                            "increasing order, where each value is between 1 and n_classes-1 (") +
                std::to_string(options.n_classes() - 1) + "), got [" + got.str() + "].");
  }
  if (options.div_value() == 0) throw Error(op + std::string("div_value should not be equal to 0."));
  if (options.in_features() <= 0)
    throw Error(op + std::string("in_features must be positive, got ") + std::to_string(options.in_features()) + ".");
  cutoffs = cuts;
  cutoffs.push_back(options.n_classes());
  shortlist_size = cutoffs[0];
  n_clusters = static_cast<int64_t>(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module("head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    const auto hsz = static_cast<int64_t>(std::floor(static_cast<double>(options.in_features()) /
                                                     std::pow(options.div_value(), static_cast<double>(i + 1))));
    const int64_t osz = cutoffs[static_cast<size_t>(i + 1)] - cutoffs[static_cast<size_t>(i)];
    tail->push_back(Sequential(Linear(LinearOptions(options.in_features(), hsz).bias(false)),
                               Linear(LinearOptions(hsz, osz).bias(false))));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (size_t i = 0; i < tail->size(); ++i) {
    auto& seq = tail->at<SequentialImpl>(i);
    seq.at<LinearImpl>(0).reset_parameters();
    seq.at<LinearImpl>(1).reset_parameters();
  }
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::AdaptiveLogSoftmaxWithLoss";
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  const char* op = "[AdaptiveLogSoftmaxWithLoss] ";
  if (target_.dim() > 1)
    throw Error(op + std::string("expected a 0-dim or 1-D target, got ") + ops::shape_str(target_.sizes()) +
                "; multi-target is not supported.");
  if (target_.dim() == 1 && input_.dim() != 2)
    throw Error(op + std::string("a 1-D target takes a 2-D input [N, in_features], got ") +
                ops::shape_str(input_.sizes()) + ".");
  if (target_.dim() == 0 && input_.dim() != 1)
    throw Error(op + std::string("a 0-dim target takes a 1-D input [in_features], got ") +
                ops::shape_str(input_.sizes()) + ".");
  if (!is_integral(target_.scalar_type()))
    throw Error(op + std::string("expected target to hold int64 class indices, got ") +
                dtype_name(target_.scalar_type()) + "; convert with .to(locus::kLong).");
  ops::check_same_device("AdaptiveLogSoftmaxWithLoss", {{"input", &input_}, {"target", &target_}});
  const bool batched = target_.dim() > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  const int64_t batch = target.size(0);
  if (input.size(0) != batch)
    throw Error(op + std::string("input has ") + std::to_string(input.size(0)) + " rows but target has " +
                std::to_string(batch) + " entries; give one target per row.");
  // The targets on the host: which rows each cluster takes, and the head column each row reads.
  const Tensor host = target.detach().cpu().to(kLong).contiguous();
  const int64_t* tp = host.data_ptr<int64_t>();
  if (batch > 0) {
    const auto [lo, hi] = std::minmax_element(tp, tp + batch);
    if (*lo < 0 || *hi >= options.n_classes())
      throw Error(op + std::string("target values should be in [0, ") + std::to_string(options.n_classes() - 1) +
                  "], but values in range [" + std::to_string(*lo) + ", " + std::to_string(*hi) + "] were found.");
  }
  const TensorOptions lo = TensorOptions().dtype(kLong);
  std::vector<int64_t> gather(static_cast<size_t>(batch));
  Tensor output = zeros({batch}, input.options());
  for (int64_t i = 0; i <= n_clusters; ++i) {
    const int64_t low = i == 0 ? 0 : cutoffs[static_cast<size_t>(i - 1)], high = cutoffs[static_cast<size_t>(i)];
    std::vector<int64_t> rows, relative;
    for (int64_t r = 0; r < batch; ++r)
      if (tp[r] >= low && tp[r] < high) {
        rows.push_back(r);
        relative.push_back(tp[r] - low);
        gather[static_cast<size_t>(r)] = i == 0 ? tp[r] : shortlist_size + i - 1;
      }
    if (i == 0 || rows.empty()) continue;
    const auto n = static_cast<int64_t>(rows.size());
    const Tensor row_idx = tensor(rows, lo).to(input.device());
    const Tensor rel = tensor(relative, lo).to(input.device()).unsqueeze(1);
    const Tensor cluster_output =
        tail->at<SequentialImpl>(static_cast<size_t>(i - 1)).forward(input.index_select(0, row_idx));
    const Tensor local = cluster_output.log_softmax(1).gather(1, rel).reshape({n});
    output = output.index_add(0, row_idx, local);
  }
  const Tensor head_logprob = head(input).log_softmax(1);
  const Tensor gather_idx = tensor(gather, lo).to(input.device()).unsqueeze(1);
  output = output + head_logprob.gather(1, gather_idx).reshape({batch});
  const double loss = (-output).mean().item<double>();
  return ASMoutput(batched ? output : output.squeeze(0), loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input, const Tensor& head_output) {
  const Tensor head_logprob = head_output.log_softmax(1);
  std::vector<Tensor> parts{head_logprob.narrow(1, 0, shortlist_size)};
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor cluster_logprob = tail->at<SequentialImpl>(static_cast<size_t>(i)).forward(input).log_softmax(1);
    parts.push_back(cluster_logprob + head_logprob.narrow(1, shortlist_size + i, 1));
  }
  return cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  if (input.dim() != 2 || input.size(1) != options.in_features())
    throw Error("[AdaptiveLogSoftmaxWithLoss] log_prob expects input [N, " + std::to_string(options.in_features()) +
                "], got " + ops::shape_str(input.sizes()) + ".");
  return _get_full_log_prob(input, head(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  if (input.dim() != 2 || input.size(1) != options.in_features())
    throw Error("[AdaptiveLogSoftmaxWithLoss] predict expects input [N, " + std::to_string(options.in_features()) +
                "], got " + ops::shape_str(input.sizes()) + ".");
  const Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  const Tensor not_in_shortlist = output.ge(shortlist_size);
  if (!not_in_shortlist.any().item<bool>()) return output;
  if (not_in_shortlist.all().item<bool>()) return _get_full_log_prob(input, head_output).argmax(1);
  const Tensor rows = not_in_shortlist.nonzero().reshape({-1});
  const Tensor best = _get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)).argmax(1);
  return output.scatter(0, rows, best);
}

}  // namespace locus::nn

namespace locus {

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  if (self.dim() < 3)
    throw Error("[channel_shuffle] expected an input [N, C, *] of more than 2 dims, got " +
                ops::shape_str(self.sizes()) + ".");
  if (groups <= 0) throw Error("[channel_shuffle] groups must be positive, got " + std::to_string(groups) + ".");
  const int64_t c = self.size(1);
  if (c % groups != 0)
    throw Error("[channel_shuffle] the " + std::to_string(c) + " channels do not divide into " +
                std::to_string(groups) + " groups; give a groups that divides the channel count.");
  std::vector<int64_t> split = self.sizes().vec();
  split[1] = c / groups;
  split.insert(split.begin() + 1, groups);
  return self.reshape(split).transpose(1, 2).reshape(self.sizes());
}

}  // namespace locus
