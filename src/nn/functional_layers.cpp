// bilinear, unfold/fold, local_response_norm, embedding_bag and the dropout variants of
// include/locus/nn/functional_layers.h, each from differentiable ops (einsum, im2col/col2im,
// index_select, where, sums), so every device runs them; and their modules' printing.
#include "locus/nn/functional_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/init.h"
#include "locus/nn/modules/activation.h"
#include "locus/nn/modules/fold.h"
#include "locus/nn/modules/linear.h"
#include "locus/nn/modules/normalization.h"
#include "ops/checks.h"
#include "ops/conv.h"

namespace locus::nn {
namespace functional {

EmbeddingBagMode::EmbeddingBagMode(enumtype::Reduction r) : kind_(r == enumtype::Reduction::Sum ? Sum : Mean) {
  if (r == enumtype::Reduction::None) throw Error("[embedding_bag] mode must be kSum, kMean or kMax, got kNone.");
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  ops::check_same_device("bilinear", {{"input1", &input1}, {"input2", &input2}, {"weight", &weight}, {"bias", &bias}});
  if (weight.dim() != 3)
    throw Error("[bilinear] expected a 3-D weight [out_features, in1_features, in2_features], got " +
                ops::shape_str(weight.sizes()) + ".");
  if (input1.dim() == 0 || input1.dim() != input2.dim() ||
      !std::equal(input1.sizes().begin(), input1.sizes().end() - 1, input2.sizes().begin()))
    throw Error("[bilinear] input1 and input2 must have the same leading dims, got " + ops::shape_str(input1.sizes()) +
                " and " + ops::shape_str(input2.sizes()) + ".");
  if (input1.size(-1) != weight.size(1) || input2.size(-1) != weight.size(2))
    throw Error("[bilinear] the inputs' last dims (" + std::to_string(input1.size(-1)) + ", " +
                std::to_string(input2.size(-1)) + ") must match weight " + ops::shape_str(weight.sizes()) +
                "'s dims 1 and 2.");
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0)))
    throw Error("[bilinear] expected a bias of " + std::to_string(weight.size(0)) + " elements, got " +
                ops::shape_str(bias.sizes()) + ".");
  DimVector shape(input1.sizes());
  shape.back() = weight.size(0);
  Tensor y =
      einsum("bi,oij,bj->bo", {input1.reshape({-1, input1.size(-1)}), weight, input2.reshape({-1, input2.size(-1)})});
  if (bias.defined()) y = y + bias;
  return y.view(shape);
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  if (input.dim() != 3 && input.dim() != 4)
    throw Error("[unfold] expected a 3-D (unbatched) or 4-D (batched) input, got " + ops::shape_str(input.sizes()) +
                ".");
  const bool batched = input.dim() == 4;
  Tensor cols = im2col(batched ? input : input.unsqueeze(0), o.kernel_size(), o.dilation(), o.padding(), o.stride());
  return batched ? cols : cols.squeeze(0);
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  if (input.dim() != 2 && input.dim() != 3)
    throw Error("[fold] expected a 2-D (unbatched) or 3-D (batched) input [N, C * kh * kw, L], got " +
                ops::shape_str(input.sizes()) + ".");
  const bool batched = input.dim() == 3;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const ExpandingArray<2> k = o.kernel_size(), d = o.dilation(), p = o.padding(), s = o.stride(), out = o.output_size();
  for (int i = 0; i < 2; ++i)
    if (k[i] <= 0 || d[i] <= 0 || s[i] <= 0 || p[i] < 0 || out[i] <= 0)
      throw Error("[fold] output_size, kernel_size, dilation and stride must be positive and padding non-negative.");
  const int64_t kk = k[0] * k[1];
  if (x.size(1) % kk != 0)
    throw Error(
        "[fold] Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
        "input.size(1)=" +
        std::to_string(x.size(1)) + " and kernel_size=(" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + ").");
  int64_t blocks = 1;
  for (int i = 0; i < 2; ++i) blocks *= (out[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
  if (x.size(2) != blocks)
    throw Error("[fold] Given output_size=(" + std::to_string(out[0]) + ", " + std::to_string(out[1]) +
                "), kernel_size, dilation, padding and stride, expected size of input's dimension 2 to match the "
                "calculated number of sliding blocks " +
                std::to_string(blocks) + ", but got input.size(2)=" + std::to_string(x.size(2)) + ".");
  const ops::Window win{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]};
  Tensor y = ops::col2im(x, out[0], out[1], win);
  return batched ? y : y.squeeze(0);
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  if (input.dim() < 3)
    throw Error("[local_response_norm] Expected 3D or higher dimensionality input (got " + std::to_string(input.dim()) +
                " dimensions).");
  if (o.size() <= 0) throw Error("[local_response_norm] size must be positive, got " + std::to_string(o.size()) + ".");
  if (input.numel() == 0) return input.clone();
  const int64_t c = input.size(1), n = o.size();
  // the squares summed over channels [i - n/2, i + (n-1)/2], zeros beyond the ends
  const Tensor sq = input * input;
  DimVector before(input.sizes()), after(input.sizes());
  before[1] = n / 2, after[1] = (n - 1) / 2;
  const Tensor padded = cat({zeros(before, input.options()), sq, zeros(after, input.options())}, 1);
  Tensor sum = padded.narrow(1, 0, c);
  for (int64_t j = 1; j < n; ++j) sum = sum + padded.narrow(1, j, c);
  return input / (sum * (o.alpha() / static_cast<double>(n)) + o.k()).pow(o.beta());
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  const Tensor& offsets = o.offsets();
  const Tensor& psw = o.per_sample_weights();
  ops::check_same_device("embedding_bag", {{"input", &input}, {"weight", &weight}, {"per_sample_weights", &psw}});
  if (input.scalar_type() != kLong && input.scalar_type() != kInt)
    throw Error(std::string("[embedding_bag] expected int64 (or int32) indices, got ") +
                dtype_name(input.scalar_type()) + "; convert with .to(locus::kLong).");
  if (weight.dim() != 2)
    throw Error("[embedding_bag] expected a 2-D weight [num_embeddings, embedding_dim], got " +
                ops::shape_str(weight.sizes()) + ".");
  if (psw.defined() && o.mode().kind() != EmbeddingBagMode::Sum)
    throw Error(std::string("[embedding_bag] per_sample_weights was not None. per_sample_weights is only supported for "
                            "mode='sum' (got mode='") +
                o.mode().name() + "'). Please open a feature request on GitHub.");
  if (psw.defined() && psw.sizes() != input.sizes())
    throw Error("[embedding_bag] per_sample_weights " + ops::shape_str(psw.sizes()) + " must have input's shape " +
                ops::shape_str(input.sizes()) + ".");
  // the bags as rows of a [B, L] index matrix; `in_bag` says which cells hold a lookup
  const int64_t rows = weight.size(0);
  std::vector<int64_t> starts;
  int64_t total = 0;
  if (input.dim() == 2) {
    if (offsets.defined())
      throw Error(
          "[embedding_bag] if input is 2-D, then offsets has to be None, as input is treated as a mini-batch "
          "of fixed length sequences.");
    for (int64_t b = 0; b <= input.size(0); ++b) starts.push_back(b * input.size(1));
    total = input.numel();
  } else if (input.dim() == 1) {
    if (!offsets.defined() || offsets.dim() != 1)
      throw Error("[embedding_bag] a 1-D input needs 1-D offsets (where each bag starts), got " +
                  (offsets.defined() ? ops::shape_str(offsets.sizes()) : std::string("none")) + ".");
    const Tensor off = offsets.to(Device(kCPU), kLong).contiguous();
    starts.assign(off.data_ptr<int64_t>(), off.data_ptr<int64_t>() + off.numel());
    total = input.numel();
    if (!o.include_last_offset()) starts.push_back(total);
    if (starts.size() < 2 || starts[0] != 0)
      throw Error(
          "[embedding_bag] offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
          "from position 0. However, got " +
          (starts.empty() ? std::string("none") : std::to_string(starts[0])) + ".");
    for (size_t b = 1; b < starts.size(); ++b)
      if (starts[b] < starts[b - 1] || starts[b] > total)
        throw Error("[embedding_bag] offsets must be non-decreasing and at most input's length (" +
                    std::to_string(total) + "), got " + std::to_string(starts[b]) + " after " +
                    std::to_string(starts[b - 1]) + ".");
  } else {
    throw Error("[embedding_bag] input has to be 1-D or 2-D, got " + ops::shape_str(input.sizes()) + ".");
  }
  const int64_t bags = static_cast<int64_t>(starts.size()) - 1;
  int64_t longest = 1;
  for (int64_t b = 0; b < bags; ++b) longest = std::max(longest, starts[b + 1] - starts[b]);
  std::vector<int64_t> at(static_cast<size_t>(bags * longest), total);  // `total`: an empty cell
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t i = starts[b]; i < starts[b + 1]; ++i) at[static_cast<size_t>(b * longest + i - starts[b])] = i;
  const Tensor cell = tensor(at, TensorOptions().dtype(kLong)).to(input.device()).view({bags, longest});
  const Tensor flat = input.reshape({-1}).to(kLong);
  if (o.max_norm()) detail::embedding_renorm_(weight, flat, *o.max_norm(), o.norm_type(), "embedding_bag");
  // lookups of the cells (an empty cell reads row 0 and is masked out)
  const Tensor idx = cat({flat, zeros({1}, flat.options())}).index_select(0, cell.reshape({-1}));
  Tensor used = cell.lt(total);
  if (o.padding_idx()) {
    int64_t pad = *o.padding_idx();
    if (pad < -rows || pad >= rows)
      throw Error("[embedding_bag] padding_idx (" + std::to_string(pad) + ") must be within num_embeddings (" +
                  std::to_string(rows) + ").");
    if (pad < 0) pad += rows;
    used = used.logical_and(idx.ne(pad).view({bags, longest}));
  }
  Tensor emb = weight.index_select(0, idx).view({bags, longest, weight.size(1)});
  const Tensor mask = used.unsqueeze(2);
  switch (o.mode().kind()) {
    case EmbeddingBagMode::Sum: {
      Tensor w = mask.to(weight.scalar_type());
      if (psw.defined())
        w = w * cat({psw.reshape({-1}), zeros({1}, psw.options())})
                    .index_select(0, cell.reshape({-1}))
                    .view({bags, longest, 1});
      return (emb * w).sum({1});
    }
    case EmbeddingBagMode::Mean: {
      const Tensor count = used.sum({1}, true, weight.scalar_type()).clamp_min(1);
      return (emb * mask.to(weight.scalar_type())).sum({1}) / count;
    }
    case EmbeddingBagMode::Max:
    default: {
      const Tensor any = used.sum({1}, true) > 0;
      return where(any, where(mask, emb, -std::numeric_limits<double>::infinity()).amax({1}), 0.0);
    }
  }
}

namespace {
void check_p(const char* op, double p) {
  if (p < 0 || p > 1)
    throw Error("[" + std::string(op) + "] dropout probability has to be between 0 and 1, but got " +
                std::to_string(p) + ".");
}
// The keep mask (1 keep, 0 drop) of `shape` in input's dtype and device.
Tensor keep_mask(const Tensor& input, IntArrayRef shape, double p) {
  return rand(shape, input.options()).lt(1 - p).to(input.scalar_type());
}
// One mask value per channel of [N, C, *] (or [C, *] when not batched): [N, C, 1, ...].
DimVector channel_shape(const Tensor& input, bool batched) {
  DimVector s(input.sizes());
  for (size_t i = batched ? 2 : 1; i < s.size(); ++i) s[i] = 1;
  return s;
}
Tensor alpha_impl(const char* op, const Tensor& input, const DropoutFuncOptions& o, bool feature) {
  const double p = o.p();
  check_p(op, p);
  if (!o.training() || p == 0) return input;
  if (p == 1) return input * 0.0;
  if (feature && input.dim() < 2)
    throw Error("[" + std::string(op) + "] expected an input with channels [N, C, *], got " +
                ops::shape_str(input.sizes()) + ".");
  const double alpha = 1.7580993408473766;  // SELU's scale * alpha: its negative saturation
  const double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  const Tensor keep = keep_mask(input, feature ? IntArrayRef(channel_shape(input, true)) : input.sizes(), p);
  return input * (keep * a) + ((keep - 1) * (alpha * a) + alpha * a * p);
}
}  // namespace

Tensor dropout1d(const Tensor& input, const Dropout1dFuncOptions& o) {
  check_p("dropout1d", o.p());
  if (input.dim() != 2 && input.dim() != 3)
    throw Error("[dropout1d] Expected 2D or 3D input, but received a " + std::to_string(input.dim()) +
                "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  if (!o.training() || o.p() == 0) return input;
  if (o.p() == 1) return input * 0.0;
  return input * (keep_mask(input, channel_shape(input, input.dim() == 3), o.p()) * (1.0 / (1 - o.p())));
}

Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& o) {
  return alpha_impl("alpha_dropout", input, o, false);
}
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& o) {
  return alpha_impl("feature_alpha_dropout", input, o, true);
}

}  // namespace functional
}  // namespace locus::nn

namespace locus::nn {
namespace detail {
TensorOptions placement(const std::optional<Device>& device, const std::optional<ScalarType>& dtype);
}  // namespace detail

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }
void BilinearImpl::reset() {
  const TensorOptions o = detail::placement(options.device(), options.dtype());
  weight =
      register_parameter("weight", empty({options.out_features(), options.in1_features(), options.in2_features()}, o));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}, o) : Tensor(), options.bias());
  reset_parameters();
}
void BilinearImpl::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}
void BilinearImpl::pretty_print(std::ostream& s) const {
  s << std::boolalpha << "locus::nn::Bilinear(in1_features=" << options.in1_features()
    << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
    << ", bias=" << options.bias() << ")";
}
Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  check_input_device(input1, "weight", weight);
  check_input_device(input2, "weight", weight);
  return functional::bilinear(input1, input2, weight, bias);
}

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) { reset(); }
void EmbeddingBagImpl::reset() {
  if (const Tensor& given = options._weight(); given.defined()) {
    if (given.dim() != 2 || given.size(0) != options.num_embeddings() || given.size(1) != options.embedding_dim())
      throw Error("[EmbeddingBag] _weight has shape " + ops::shape_str(given.sizes()) + ", but the options say [" +
                  std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim()) +
                  "] (num_embeddings, embedding_dim); pass a table of that shape.");
    weight = register_parameter("weight", given);
    options._weight(Tensor());  // taken once: a clone draws its own table and copies the values
    return;
  }
  const TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}, o));
  reset_parameters();
}
EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options) {
  if (!embeddings.defined()) throw Error("[EmbeddingBag::from_pretrained] the embeddings tensor is undefined.");
  if (embeddings.dim() != 2)
    throw Error("[EmbeddingBag::from_pretrained] Embeddings parameter is expected to be 2-dimensional, got " +
                std::to_string(embeddings.dim()) + " dimensions " + ops::shape_str(embeddings.sizes()) +
                "; pass a table [num_embeddings, embedding_dim].");
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .mode(options.mode())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx())
                       ._weight(embeddings));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}
void EmbeddingBagImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  // as libtorch's: the default mode (kMean) is not printed
  if (options.max_norm()) s << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) s << ", norm_type=" << options.norm_type();
  if (options.mode().kind() != functional::EmbeddingBagMode::Mean)
    s << ", mode=" << (options.mode().kind() == functional::EmbeddingBagMode::Sum ? "kSum" : "kMax");
  if (options.include_last_offset()) s << ", include_last_offset=true";
  if (options.padding_idx()) s << ", padding_idx=" << *options.padding_idx();
  s << ")";
}
Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  check_input_device(input, "weight", weight);
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .mode(options.mode())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx())
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type()));
}

namespace {
std::ostream& operator<<(std::ostream& s, const ExpandingArray<2>& a) {
  return s << "[" << a[0] << ", " << a[1] << "]";
}
}  // namespace
void UnfoldImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
    << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}
void FoldImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::Fold(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
    << ", dilation=" << options.dilation() << ", padding=" << options.padding() << ", stride=" << options.stride()
    << ")";
}
void LocalResponseNormImpl::pretty_print(std::ostream& s) const {
  s << "locus::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha() << ", beta=" << options.beta()
    << ", k=" << options.k() << ")";
}
#define LOCUS_PRINT_DROPOUT(Name)                                                                                \
  void Name##Impl::pretty_print(std::ostream& s) const {                                                         \
    s << std::boolalpha << "locus::nn::" #Name "(p=" << options.p() << ", inplace=" << options.inplace() << ")"; \
  }
LOCUS_PRINT_DROPOUT(Dropout1d)
LOCUS_PRINT_DROPOUT(AlphaDropout)
LOCUS_PRINT_DROPOUT(FeatureAlphaDropout)
#undef LOCUS_PRINT_DROPOUT

}  // namespace locus::nn
