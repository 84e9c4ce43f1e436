// The losses of functional_losses.h: argument checks, then differentiable locus ops, so that every
// device runs them and autograd differentiates them. The two class-index losses (multi_margin,
// multilabel_margin) read their small int64 target on the host to check it (and, for
// multilabel_margin, to build the target masks), as nll_loss checks its targets.
#include <cmath>
#include <numbers>
#include <sstream>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/modules/loss.h"
#include "ops/checks.h"

namespace locus::nn::functional {
namespace {

Tensor reduce(const Tensor& loss, enumtype::Reduction r) {
  switch (r) {
    case enumtype::Reduction::None: return loss;
    case enumtype::Reduction::Sum: return loss.sum();
    case enumtype::Reduction::Mean: return loss.mean();
  }
  return loss;
}


std::string err(const char* op, const std::string& what) { return "[" + std::string(op) + "] " + what; }

// `b` must have `a`'s shape (PyTorch broadcasts some of these with a warning; locus refuses).
void check_same_shape(const char* op, const char* a_name, const Tensor& a, const char* b_name, const Tensor& b,
                      const char* all = nullptr) {
  ops::check_same_device(op, {{a_name, &a}, {b_name, &b}});
  if (a.sizes() != b.sizes())
    throw Error(err(op, std::string(b_name) + " size " + ops::shape_str(b.sizes()) + " differs from " + a_name +
                            " size " + ops::shape_str(a.sizes()) + "; give " + (all ? all : "both") +
                            " the same shape."));
}

// log(1 + exp(z)) without overflow; its gradient at 0 is sigmoid(0) = 0.5 (relu(z) as (z + |z|) / 2).
Tensor log1p_exp(const Tensor& z) {
  Tensor a = z.abs();
  return (z + a) * 0.5 + (-a).exp().log1p();
}

void check_class_target(const char* op, const Tensor& target) {
  if (target.scalar_type() != kLong)
    throw Error(err(op, std::string("expected target to hold int64 class indices, got ") +
                            dtype_name(target.scalar_type()) + "; convert with .to(locus::kLong)."));
}

void check_matrix_input(const char* op, const Tensor& input) {
  if (input.dim() < 1 || input.dim() > 2 || input.size(-1) == 0)
    throw Error(err(op, "expected a non-empty input [N, C] or [C], got " + ops::shape_str(input.sizes()) + "."));
}

void check_class_weight(const char* op, const Tensor& weight, int64_t classes) {
  if (weight.defined() && (weight.dim() != 1 || weight.size(0) != classes))
    throw Error(err(op, "expected weight of " + std::to_string(classes) + " elements (one per class), got " +
                            ops::shape_str(weight.sizes()) + "."));
}

}  // namespace

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& o) {
  const char* op = "margin_ranking_loss";
  check_same_shape(op, "input1", input1, "input2", input2, "input1, input2 and target");
  check_same_shape(op, "input1", input1, "target", target, "input1, input2 and target");
  return reduce((-target * (input1 - input2) + o.margin()).clamp_min(0), o.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& o) {
  check_same_shape("hinge_embedding_loss", "input", input, "target", target);
  Tensor margin_term = where(target.ne(1), (o.margin() - input).clamp_min(0), 0.0);
  return reduce(margin_term + where(target.ne(-1), input, 0.0), o.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& o) {
  const char* op = "cosine_embedding_loss";
  check_same_shape(op, "input1", input1, "input2", input2);
  ops::check_same_device(op, {{"input1", &input1}, {"target", &target}});
  if (target.dim() > 1)
    throw Error(err(op, "expected a 0-dim or 1-D target, got " + ops::shape_str(target.sizes()) +
                            "; multi-target is not supported."));
  const bool fits = target.dim() == 1 ? input1.dim() == 2 && input1.size(0) == target.size(0) : input1.dim() == 1;
  if (!fits)
    throw Error(err(op, "a target of shape " + ops::shape_str(target.sizes()) + " takes inputs " +
                            (target.dim() == 1 ? "[" + std::to_string(target.size(0)) + ", D]" : std::string("[D]")) +
                            ", got " + ops::shape_str(input1.sizes()) + "."));
  const int64_t d = target.dim();
  constexpr double kEps = 1e-12;  // as PyTorch's
  Tensor prod = (input1 * input2).sum({d});
  Tensor mag1 = (input1 * input1).sum({d}) + kEps, mag2 = (input2 * input2).sum({d}) + kEps;
  Tensor cos = prod / (mag1 * mag2).sqrt();
  Tensor loss = where(target.eq(1), 1 - cos, 0.0) + where(target.eq(-1), (cos - o.margin()).clamp_min(0), 0.0);
  return reduce(loss, o.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& o) {
  check_same_shape("soft_margin_loss", "input", input, "target", target);
  return reduce(log1p_exp(-input * target), o.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultiLabelSoftMarginLossFuncOptions& o) {
  const char* op = "multilabel_soft_margin_loss";
  check_same_shape(op, "input", input, "target", target);
  if (input.dim() < 1) throw Error(err(op, "expected an input [N, C] or [C], got a 0-dim tensor."));
  const int64_t classes = input.size(-1);
  check_class_weight(op, o.weight(), classes);
  ops::check_same_device(op, {{"input", &input}, {"weight", &o.weight()}});
  // -(t log(sigmoid(x)) + (1 - t) log(sigmoid(-x))) = t log1p_exp(-x) + (1 - t) log1p_exp(x)
  Tensor loss = target * log1p_exp(-input) + (1 - target) * log1p_exp(input);
  if (o.weight().defined()) loss = loss * o.weight();
  return reduce(loss.sum({-1}) / static_cast<double>(classes), o.reduction());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& o) {
  const char* op = "pairwise_distance";
  ops::check_same_device(op, {{"x1", &x1}, {"x2", &x2}});
  if (!(o.p() > 0))
    throw Error(err(op, "p must be positive (or infinity), got " + number_str(o.p()) + "."));
  const int64_t dims = std::max(x1.dim(), x2.dim());
  if (dims == 0) throw Error(err(op, "expected inputs of at least 1 dim, got two 0-dim tensors."));
  ops::broadcast_shapes(x1.sizes(), x2.sizes(), op);
  Tensor diff = x1 - x2 + o.eps();
  if (std::isinf(o.p())) return diff.abs().amax({dims - 1}, o.keepdim());
  return diff.norm(o.p(), {dims - 1}, o.keepdim());
}

Tensor pdist(const Tensor& input, double p) { return locus::pdist(input, p); }

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& o) {
  const char* op = "cosine_similarity";
  ops::check_same_device(op, {{"x1", &x1}, {"x2", &x2}});
  const DimVector shape = ops::broadcast_shapes(x1.sizes(), x2.sizes(), op);
  const int64_t dims = static_cast<int64_t>(shape.size());
  const int64_t nd = std::max<int64_t>(dims, 1);
  if (o.dim() < -nd || o.dim() >= nd)
    throw Error(err(op, "dim " + std::to_string(o.dim()) + " is out of range for inputs of " + std::to_string(dims) +
                            " dims; give -" + std::to_string(nd) + " <= dim < " + std::to_string(nd) + "."));
  // PyTorch 1.13's form, on the inputs broadcast first: sum(x1 x2) / sqrt(max(|x1|^2 |x2|^2, eps^2)).
  const Tensor a = x1.expand(shape), b = x2.expand(shape);
  Tensor w12 = (a * b).sum({o.dim()});
  Tensor n12 = ((a * a).sum({o.dim()}) * (b * b).sum({o.dim()})).clamp_min(o.eps() * o.eps());
  return w12 / n12.sqrt();
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& o) {
  const char* op = "triplet_margin_loss";
  if (anchor.dim() != positive.dim() || anchor.dim() != negative.dim())
    throw Error(err(op, "expected anchor, positive and negative of one number of dims, got anchor " +
                            ops::shape_str(anchor.sizes()) + ", positive " + ops::shape_str(positive.sizes()) +
                            " and negative " + ops::shape_str(negative.sizes()) + "."));
  if (!(o.p() > 0)) throw Error(err(op, "p must be positive (or infinity), got " + number_str(o.p()) + "."));
  const auto dist = PairwiseDistanceFuncOptions().p(o.p()).eps(o.eps());
  Tensor pos = pairwise_distance(anchor, positive, dist);
  Tensor neg = pairwise_distance(anchor, negative, dist);
  if (o.swap()) neg = minimum(neg, pairwise_distance(positive, negative, dist));
  return reduce((o.margin() + pos - neg).clamp_min(0), o.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& o) {
  check_same_shape("poisson_nll_loss", "input", input, "target", target);
  Tensor loss = o.log_input() ? input.exp() - target * input : input - target * (input + o.eps()).log();
  if (o.full()) {
    // Stirling's log(t!) ~ t log(t) - t + 0.5 log(2 pi t), for t > 1 only; the other entries
    // read a stand-in 2 so that neither the value nor the gradient sees log(0).
    Tensor big = target.gt(1);
    Tensor t = where(big, target, 2.0);
    Tensor stirling = t * t.log() - t + (t * (2 * std::numbers::pi)).log() * 0.5;
    loss = loss + where(big, stirling, 0.0);
  }
  return reduce(loss, o.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossFuncOptions& o) {
  const char* op = "gaussian_nll_loss";
  check_same_shape(op, "input", input, "target", target);
  ops::check_same_device(op, {{"input", &input}, {"var", &var}});
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const IntArrayRef in_lead(in.data(), in.empty() ? 0 : in.size() - 1);
    const bool one_short = input.dim() >= 1 && vs == in_lead;
    const bool last_one = input.dim() >= 1 && var.dim() == input.dim() && vs.back() == 1 &&
                          IntArrayRef(vs.data(), vs.size() - 1) == in_lead;
    if (one_short) v = var.unsqueeze(-1);
    else if (!last_one)
      throw Error(err(op, "var of shape " + ops::shape_str(vs) + " does not fit input " + ops::shape_str(in) +
                              "; give var input's shape, or it without the last dim, or with a last dim of 1."));
  }
  if (v.numel() > 0 && v.lt(0).any().item<bool>())
    throw Error(err(op, "var has negative entries; variances must be at least 0."));
  // PyTorch clamps var in place under no_grad: the value is clamped, the gradient passes through.
  v = v + (v.clamp_min(o.eps()) - v).detach();
  Tensor loss = (v.log() + (input - target).square() / v) * 0.5;
  if (o.full()) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return reduce(loss, o.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& o) {
  const char* op = "multi_margin_loss";
  if (o.p() != 1 && o.p() != 2) throw Error(err(op, "p must be 1 or 2, got " + std::to_string(o.p()) + "."));
  check_class_target(op, target);
  ops::check_same_device(op, {{"input", &input}, {"target", &target}, {"weight", &o.weight()}});
  check_matrix_input(op, input);
  const int64_t rows = input.dim() == 2 ? input.size(0) : 1, classes = input.size(-1);
  if (target.dim() > 1 || target.numel() != rows)
    throw Error(err(op, "expected a target of " + std::to_string(rows) + " class indices (one per row of input " +
                            ops::shape_str(input.sizes()) + "), got " + ops::shape_str(target.sizes()) + "."));
  check_class_weight(op, o.weight(), classes);
  if (rows > 0) {
    const int64_t lo = target.min().item<int64_t>(), hi = target.max().item<int64_t>();
    if (lo < 0 || hi >= classes)
      throw Error(err(op, "target " + std::to_string(lo < 0 ? lo : hi) + " is out of range for " +
                              std::to_string(classes) + " classes; give class indices from 0 to " +
                              std::to_string(classes - 1) + "."));
  }
  Tensor x = input.reshape({rows, classes}), y = target.reshape({rows, 1});
  Tensor z = (o.margin() - x.gather(1, y) + x).clamp_min(0);
  if (o.p() == 2) z = z * z;
  z = z * ones_like(x).scatter(1, y, 0.0);  // the target class itself does not count
  if (o.weight().defined()) z = z * o.weight().index_select(0, y.reshape({rows})).unsqueeze(1);
  return reduce((z.sum({1}) / static_cast<double>(classes)).reshape(target.sizes()), o.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, const MultiLabelMarginLossFuncOptions& o) {
  const char* op = "multilabel_margin_loss";
  check_class_target(op, target);
  check_matrix_input(op, input);
  check_same_shape(op, "input", input, "target", target);
  const int64_t rows = input.dim() == 2 ? input.size(0) : 1, classes = input.size(-1);
  // Host masks: valid[i, j] (target j of row i comes before the row's first negative entry),
  // is_target[i, k], and the gather index (0 where not valid).
  const Tensor t = target.cpu().contiguous();
  const int64_t* tp = t.data_ptr<int64_t>();
  std::vector<double> valid(static_cast<size_t>(rows * classes), 0.0), is_target(valid.size(), 0.0);
  std::vector<int64_t> index(valid.size(), 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < classes; ++j) {
      const size_t at = static_cast<size_t>(i * classes + j);
      const int64_t c = tp[at];
      if (c < 0) break;
      if (c >= classes)
        throw Error(err(op, "target " + std::to_string(c) + " is out of range for " + std::to_string(classes) +
                                " classes; give class indices from 0 to " + std::to_string(classes - 1) +
                                ", ended by -1."));
      valid[at] = 1.0;
      index[at] = c;
      is_target[static_cast<size_t>(i * classes + c)] = 1.0;
    }
  const TensorOptions f = TensorOptions().dtype(kDouble);
  auto upload = [&](std::vector<double>& h) {
    return from_blob(h.data(), {rows, classes}, f).to(input.device(), input.scalar_type(), false, true);
  };
  Tensor valid_t = upload(valid), others = 1 - upload(is_target);
  Tensor idx = from_blob(index.data(), {rows, classes}, TensorOptions().dtype(kLong)).to(input.device(), kLong,
                                                                                           false, true);
  Tensor x = input.reshape({rows, classes});
  // [i, j, k]: max(0, 1 - (x[i, target j] - x[i, k])), kept for valid j and non-target k.
  Tensor z = (1 - x.gather(1, idx).unsqueeze(2) + x.unsqueeze(1)).clamp_min(0);
  Tensor per = (z * (valid_t.unsqueeze(2) * others.unsqueeze(1))).sum({1, 2}) / static_cast<double>(classes);
  return reduce(input.dim() == 1 ? per.reshape({}) : per, o.reduction());
}

}  // namespace locus::nn::functional

namespace locus::nn {

void MarginRankingLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::MarginRankingLoss()"; }
void HingeEmbeddingLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::HingeEmbeddingLoss(margin=" << options.margin() << ")";
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::CosineEmbeddingLoss(margin=" << options.margin() << ")";
}
void SoftMarginLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::SoftMarginLoss()"; }
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::MultiLabelSoftMarginLoss()"; }
void TripletMarginLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::TripletMarginLoss(margin=" << options.margin() << ", p=" << options.p() << ", eps=" << options.eps()
    << ", swap=" << (options.swap() ? "true" : "false") << ")";
}
void PoissonNLLLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::PoissonNLLLoss()"; }
void GaussianNLLLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::GaussianNLLLoss()"; }
void MultiMarginLossImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin() << ")";
}
void MultiLabelMarginLossImpl::pretty_print(std::ostream& s) const { s << "locus::nn::MultiLabelMarginLoss()"; }
void CosineSimilarityImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}
void PairwiseDistanceImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
    << ", keepdim=" << (options.keepdim() ? "true" : "false") << ")";
}

}  // namespace locus::nn
