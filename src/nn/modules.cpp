// Layers: construction on the target device, forward with the module/input device check, and
// libtorch's pretty_print lines.
#include <cmath>
#include <ostream>
#include <typeinfo>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/nn.h"
#include "nn/conv_padding.h"
#include "ops/checks.h"

namespace locus::nn {

namespace detail {
// TensorOptions for a layer's parameters from its placement options.
TensorOptions placement(const std::optional<Device>& device, const std::optional<ScalarType>& dtype) {
  TensorOptions o = TensorOptions().dtype(dtype.value_or(default_dtype()));
  if (device) o = o.device(*device);
  return o;
}
}  // namespace detail

namespace {
std::ostream& operator<<(std::ostream& os, const ExpandingArray<2>& a) { return os << "[" << a[0] << ", " << a[1] << "]"; }
std::ostream& operator<<(std::ostream& os, const ExpandingArray<1>& a) { return os << a[0]; }  // as libtorch: a number
std::ostream& operator<<(std::ostream& os, const ExpandingArray<3>& a) {
  return os << "[" << a[0] << ", " << a[1] << ", " << a[2] << "]";
}
template <size_t N>
std::ostream& operator<<(std::ostream& os, const ConvPadding<N>& p) {
  if (p.is_same()) return os << "'same'";  // libtorch's quotes
  if (p.is_valid()) return os << "'valid'";
  return os << p.sizes();
}
}  // namespace

// ---- Linear ---------------------------------------------------------------------------------
LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) { reset(); }

void LinearImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_features()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(weight);
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

std::string LinearImpl::brief() const {
  return "Linear " + std::to_string(options.in_features()) + "->" + std::to_string(options.out_features());
}

Tensor LinearImpl::forward(const Tensor& input) {
  check_input_device(input, "weight", weight);
  return functional::linear(input, weight, bias);
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}
void detail::print_padding(std::ostream& stream, const char* name, const std::vector<int64_t>& padding,
                           const double* value) {
  stream << "locus::nn::" << name << "(padding=" << ops::shape_str(padding);
  if (value != nullptr) stream << ", value=" << *value;
  stream << ")";
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";  // libtorch's braces
  for (size_t i = 0; i < options.sizes().size(); ++i) stream << (i ? ", " : "") << options.sizes()[i];
  stream << "})";
}

// ---- Embedding ------------------------------------------------------------------------------
EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  if (options.padding_idx()) {
    int64_t pad = *options.padding_idx(), n = options.num_embeddings();
    if (pad < -n || pad >= n)
      throw Error("Embedding: padding_idx (" + std::to_string(pad) + ") must be within num_embeddings (" + std::to_string(n) + ").");
    if (pad < 0) options.padding_idx(pad + n);
  }
  reset();
}

void EmbeddingImpl::reset() {
  if (const Tensor& given = options._weight(); given.defined()) {
    if (given.dim() != 2 || given.size(0) != options.num_embeddings() || given.size(1) != options.embedding_dim())
      throw Error("[Embedding] _weight has shape " + ops::shape_str(given.sizes()) + ", but the options say [" +
                  std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim()) +
                  "] (num_embeddings, embedding_dim); pass a table of that shape.");
    weight = register_parameter("weight", given);
    // Taken once: a clone (which copy-constructs the options, then reset()s) draws its own table
    // and copies the values, instead of sharing this tensor with the original.
    options._weight(Tensor());
    return;
  }
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}, o));
  reset_parameters();
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options) {
  if (!embeddings.defined()) throw Error("[Embedding::from_pretrained] the embeddings tensor is undefined.");
  if (embeddings.dim() != 2)
    throw Error("[Embedding::from_pretrained] Embeddings parameter is expected to be 2-dimensional, got " +
                std::to_string(embeddings.dim()) + " dimensions " + ops::shape_str(embeddings.sizes()) +
                "; pass a table [num_embeddings, embedding_dim].");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse())
                          ._weight(embeddings));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=true";
  if (options.sparse()) stream << ", sparse=true";
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  check_input_device(indices, "weight", weight);
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

// ---- activations ----------------------------------------------------------------------------
void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::ReLU(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}
void GELUImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::GELU()"; }  // as libtorch, either way
void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Sigmoid()"; }
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) stream << ", inplace=" << options.inplace();
  stream << ")";
}
void ELUImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::ELU(alpha=" << options.alpha() << ")"; }
void SELUImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::SELU()"; }
void SiLUImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::SiLU()"; }
void MishImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Mish()"; }
void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}
void HardtanhImpl::reset() {
  if (options.min_val() > options.max_val())
    throw Error("Hardtanh: min_val (" + std::to_string(options.min_val()) + ") must not be above max_val (" +
                std::to_string(options.max_val()) + ").");
}
void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val() << ")";
}
PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) {
  if (options.num_parameters() < 1)
    throw Error("PReLU: num_parameters must be at least 1, got " + std::to_string(options.num_parameters()) + ".");
  reset();
}
void PReLUImpl::reset() {
  weight = register_parameter(
      "weight", full({options.num_parameters()}, options.init(), detail::placement(options.device(), options.dtype())));
}
void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}
void SoftmaxImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Softmax(dim=" << options.dim() << ")"; }
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::LogSoftmax(dim=" << options.dim() << ")";
}
void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Identity()"; }
void TanhImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Tanh()"; }

namespace {
void check_dropout_p(const char* module, double p) {
  if (p < 0 || p > 1)
    throw Error(std::string(module) + ": dropout probability has to be between 0 and 1, but got " + std::to_string(p) + ".");
}
void print_dropout(std::ostream& stream, const char* module, const DropoutOptions& o) {
  stream << std::boolalpha << "locus::nn::" << module << "(p=" << o.p() << ", inplace=" << o.inplace() << ")";
}
}  // namespace
DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) { check_dropout_p("Dropout", options.p()); }
void DropoutImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, "Dropout", options); }
Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { check_dropout_p("Dropout2d", options.p()); }
void Dropout2dImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, "Dropout2d", options); }
Dropout3dImpl::Dropout3dImpl(const Dropout3dOptions& options_) : options(options_) { check_dropout_p("Dropout3d", options.p()); }
void Dropout3dImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, "Dropout3d", options); }

// ---- convolution and pooling ----------------------------------------------------------------
namespace {
// The convolutions' shared parts: the groups check of their constructors, and PyTorch's
// initialisation (Kaiming-uniform weight, bias uniform in +-1/sqrt(fan_in)).
void check_groups(const char* module, int64_t in, int64_t out, int64_t groups) {
  if (groups <= 0 || in % groups != 0 || out % groups != 0)
    throw Error(std::string(module) + ": in_channels (" + std::to_string(in) + ") and out_channels (" +
                std::to_string(out) + ") must be divisible by groups (" + std::to_string(groups) + ").");
}

void reset_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(weight);
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}
}  // namespace

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : options(options_) {
  check_groups("Conv2d", options.in_channels(), options.out_channels(), options.groups());
  detail::check_padding_mode("Conv2d", options.padding_mode());
  reset();
}

void Conv2dImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter("weight", empty({options.out_channels(), options.in_channels() / options.groups(),
                                               options.kernel_size()[0], options.kernel_size()[1]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void Conv2dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Conv2d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<2>(0))) stream << ", padding=" << options.padding();
  if (!(options.dilation() == ExpandingArray<2>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << detail::padding_mode_str(options.padding_mode()) << ")";
}

std::string Conv2dImpl::brief() const {
  return "Conv2d " + std::to_string(options.in_channels()) + "->" + std::to_string(options.out_channels()) + " " +
         std::to_string(options.kernel_size()[0]) + "x" + std::to_string(options.kernel_size()[1]);
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  check_input_device(input, "weight", weight);
  const auto [x, padding] = detail::apply_padding_mode<2>("Conv2d", input, options.padding_mode(), options.padding(),
                                                             options.kernel_size(), options.stride(), options.dilation());
  return functional::conv2d(x, weight,
                            functional::Conv2dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(padding)
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options_) : options(options_) {
  check_groups("Conv1d", options.in_channels(), options.out_channels(), options.groups());
  detail::check_padding_mode("Conv1d", options.padding_mode());
  reset();
}

void Conv1dImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter(
      "weight", empty({options.out_channels(), options.in_channels() / options.groups(), options.kernel_size()[0]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void Conv1dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

void Conv1dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Conv1d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<1>(0))) stream << ", padding=" << options.padding();
  if (!(options.dilation() == ExpandingArray<1>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << detail::padding_mode_str(options.padding_mode()) << ")";
}

std::string Conv1dImpl::brief() const {
  return "Conv1d " + std::to_string(options.in_channels()) + "->" + std::to_string(options.out_channels()) + " " +
         std::to_string(options.kernel_size()[0]);
}

Tensor Conv1dImpl::forward(const Tensor& input) {
  check_input_device(input, "weight", weight);
  const auto [x, padding] = detail::apply_padding_mode<1>("Conv1d", input, options.padding_mode(), options.padding(),
                                                             options.kernel_size(), options.stride(), options.dilation());
  return functional::conv1d(x, weight,
                            functional::Conv1dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(padding)
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options_) : options(options_) {
  check_groups("ConvTranspose2d", options.in_channels(), options.out_channels(), options.groups());
  reset();
}

void ConvTranspose2dImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter("weight", empty({options.in_channels(), options.out_channels() / options.groups(),
                                               options.kernel_size()[0], options.kernel_size()[1]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void ConvTranspose2dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

void ConvTranspose2dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::ConvTranspose2d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<2>(0))) stream << ", padding=" << options.padding();
  if (!(options.output_padding() == ExpandingArray<2>(0))) stream << ", output_padding=" << options.output_padding();
  if (!(options.dilation() == ExpandingArray<2>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

std::string ConvTranspose2dImpl::brief() const {
  return "ConvTranspose2d " + std::to_string(options.in_channels()) + "->" + std::to_string(options.out_channels()) +
         " " + std::to_string(options.kernel_size()[0]) + "x" + std::to_string(options.kernel_size()[1]);
}

namespace {
// The output_padding that gives the requested output size (the last `d` values of output_size),
// PyTorch's _output_padding: each size must lie within the stride's range of sizes.
template <size_t D>
ExpandingArray<D> output_padding_for(const char* layer, const Tensor& input, IntArrayRef want, ExpandingArray<D> k,
                                     ExpandingArray<D> s, ExpandingArray<D> p, ExpandingArray<D> dil) {
  const int64_t nd = static_cast<int64_t>(D);
  if (static_cast<int64_t>(want.size()) < nd || input.dim() < nd + 1)
    throw Error(std::string(layer) + ": output_size must hold at least the output's " +
                (D == 2 ? "height and width" : "length") + ", got " + std::to_string(want.size()) +
                " values for an input of " + std::to_string(input.dim()) + " dims.");
  std::array<int64_t, D> pad{};
  for (size_t i = 0; i < D; ++i) {
    const int64_t in = input.size(input.dim() - nd + static_cast<int64_t>(i));
    const int64_t least = (in - 1) * s[i] - 2 * p[i] + dil[i] * (k[i] - 1) + 1;
    const int64_t most = least + s[i] - 1, got = want[want.size() - D + i];
    if (got < least || got > most) {
      std::string size = std::to_string(want[want.size() - D]);
      if (D == 2) size += "x" + std::to_string(want[want.size() - 1]);
      throw Error(std::string(layer) + ": requested an output size of " + size + ", but valid sizes range from " +
                  std::to_string(least) + " to " + std::to_string(most) + " in dim " + std::to_string(i) +
                  " (for an input of " + ops::shape_str(input.sizes()) + ").");
    }
    pad[i] = got - least;
  }
  return ExpandingArray<D>(pad);
}
}  // namespace

Tensor ConvTranspose2dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  check_input_device(input, "weight", weight);
  const ExpandingArray<2> output_padding =
      output_size ? output_padding_for<2>("ConvTranspose2d", input, *output_size, options.kernel_size(), options.stride(),
                                          options.padding(), options.dilation())
                  : options.output_padding();
  return functional::conv_transpose2d(input, weight,
                                      functional::ConvTranspose2dFuncOptions()
                                          .bias(bias)
                                          .stride(options.stride())
                                          .padding(options.padding())
                                          .output_padding(output_padding)
                                          .groups(options.groups())
                                          .dilation(options.dilation()));
}

ConvTranspose1dImpl::ConvTranspose1dImpl(const ConvTranspose1dOptions& options_) : options(options_) {
  check_groups("ConvTranspose1d", options.in_channels(), options.out_channels(), options.groups());
  reset();
}

void ConvTranspose1dImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  weight = register_parameter(
      "weight", empty({options.in_channels(), options.out_channels() / options.groups(), options.kernel_size()[0]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void ConvTranspose1dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }

void ConvTranspose1dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::ConvTranspose1d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<1>(0))) stream << ", padding=" << options.padding();
  if (!(options.output_padding() == ExpandingArray<1>(0))) stream << ", output_padding=" << options.output_padding();
  if (!(options.dilation() == ExpandingArray<1>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

std::string ConvTranspose1dImpl::brief() const {
  return "ConvTranspose1d " + std::to_string(options.in_channels()) + "->" + std::to_string(options.out_channels()) +
         " " + std::to_string(options.kernel_size()[0]);
}

Tensor ConvTranspose1dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  check_input_device(input, "weight", weight);
  const ExpandingArray<1> output_padding =
      output_size ? output_padding_for<1>("ConvTranspose1d", input, *output_size, options.kernel_size(), options.stride(),
                                          options.padding(), options.dilation())
                  : options.output_padding();
  return functional::conv_transpose1d(input, weight,
                                      functional::ConvTranspose1dFuncOptions()
                                          .bias(bias)
                                          .stride(options.stride())
                                          .padding(options.padding())
                                          .output_padding(output_padding)
                                          .groups(options.groups())
                                          .dilation(options.dilation()));
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ", dilation=" << options.dilation()
         << ", ceil_mode=" << options.ceil_mode() << ")";
}
void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::AvgPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
#define LOCUS_ADAPTIVE_POOL_PRINT(Name)                                           \
  void Name##Impl::pretty_print(std::ostream& stream) const {                      \
    stream << "locus::nn::" #Name "(output_size=" << options.output_size() << ")"; \
  }
LOCUS_ADAPTIVE_POOL_PRINT(AdaptiveAvgPool2d)
LOCUS_ADAPTIVE_POOL_PRINT(AdaptiveAvgPool1d)
LOCUS_ADAPTIVE_POOL_PRINT(AdaptiveMaxPool2d)
LOCUS_ADAPTIVE_POOL_PRINT(AdaptiveMaxPool1d)
LOCUS_ADAPTIVE_POOL_PRINT(AdaptiveAvgPool3d)
#undef LOCUS_ADAPTIVE_POOL_PRINT
Conv3dImpl::Conv3dImpl(const Conv3dOptions& options_) : options(options_) {
  check_groups("Conv3d", options.in_channels(), options.out_channels(), options.groups());
  detail::check_padding_mode("Conv3d", options.padding_mode());
  reset();
}
void Conv3dImpl::reset() {
  TensorOptions o = detail::placement(options.device(), options.dtype());
  const ExpandingArray<3> k = options.kernel_size();
  weight = register_parameter(
      "weight", empty({options.out_channels(), options.in_channels() / options.groups(), k[0], k[1], k[2]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}
void Conv3dImpl::reset_parameters() { reset_conv_parameters(weight, bias); }
void Conv3dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::Conv3d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (!(options.padding() == ExpandingArray<3>(0))) stream << ", padding=" << options.padding();
  if (!(options.dilation() == ExpandingArray<3>(1))) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << detail::padding_mode_str(options.padding_mode()) << ")";
}
Tensor Conv3dImpl::forward(const Tensor& input) {
  check_input_device(input, "weight", weight);
  const auto [x, padding] = detail::apply_padding_mode<3>("Conv3d", input, options.padding_mode(), options.padding(),
                                                             options.kernel_size(), options.stride(), options.dilation());
  return functional::conv3d(x, weight,
                            functional::Conv3dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(padding)
                                .dilation(options.dilation())
                                .groups(options.groups()));
}
void MaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::MaxPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ", dilation=" << options.dilation()
         << ", ceil_mode=" << options.ceil_mode() << ")";
}
void AvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::AvgPool3d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}
void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::MaxPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ", dilation=" << options.dilation()
         << ", ceil_mode=" << options.ceil_mode() << ")";
}
void AvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::AvgPool1d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

// ---- normalization --------------------------------------------------------------------------
namespace {
// The state BatchNorm and InstanceNorm share: weight and bias per channel (affine), the running
// statistics as buffers (track_running_stats).
template <class Norm>
void register_norm_state(Norm& m) {
  const TensorOptions o = detail::placement(m.options.device(), m.options.dtype());
  const int64_t c = m.options.num_features();
  if (m.options.affine()) {
    m.weight = m.register_parameter("weight", empty({c}, o));
    m.bias = m.register_parameter("bias", empty({c}, o));
  }
  if (m.options.track_running_stats()) {
    m.running_mean = m.register_buffer("running_mean", zeros({c}, o));
    m.running_var = m.register_buffer("running_var", ones({c}, o));
    m.num_batches_tracked = m.register_buffer("num_batches_tracked", zeros({}, TensorOptions(o).dtype(kLong)));
  }
}
template <class Norm>
void reset_norm_running_stats(Norm& m) {
  if (!m.options.track_running_stats()) return;
  NoGradGuard no_grad;
  m.running_mean.zero_();
  m.running_var.fill_(1);
  m.num_batches_tracked.zero_();
}
template <class Norm>
void reset_norm_parameters(Norm& m) {
  reset_norm_running_stats(m);
  if (m.options.affine()) {
    init::ones_(m.weight);
    init::zeros_(m.bias);
  }
}
}  // namespace

BatchNormImplBase::BatchNormImplBase(const BatchNormOptions& options_, int64_t expected_dim, const char* kind)
    : options(options_), expected_dim_(expected_dim), kind_(kind) {
  reset();
}

void BatchNormImplBase::reset() {
  register_norm_state(*this);
  reset_parameters();
}
void BatchNormImplBase::reset_running_stats() { reset_norm_running_stats(*this); }
void BatchNormImplBase::reset_parameters() { reset_norm_parameters(*this); }

void BatchNormImplBase::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::" << kind_ << "(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=";
  if (options.momentum()) stream << *options.momentum();
  else stream << "None";
  stream << ", affine=" << options.affine() << ", track_running_stats=" << options.track_running_stats() << ")";
}

Tensor BatchNormImplBase::forward(const Tensor& input) {
  int64_t d = input.dim();
  bool ok = expected_dim_ == 1 ? (d == 2 || d == 3) : d == expected_dim_ + 2;
  if (!ok)
    throw Error(std::string(kind_) + ": expected " +
                (expected_dim_ == 1 ? std::string("2D or 3D") : std::to_string(expected_dim_ + 2) + "D") +
                " input (got " + std::to_string(d) + "D input).");
  if (input.size(1) != options.num_features())
    throw Error(std::string(kind_) + ": expected input with " + std::to_string(options.num_features()) +
                " channels (dim 1), got " + std::to_string(input.size(1)) + ".");
  if (weight.defined()) check_input_device(input, "weight", weight);
  else if (running_mean.defined()) check_input_device(input, "running_mean", running_mean);
  double momentum = options.momentum().value_or(0.0);
  bool training = is_training() || !options.track_running_stats();
  if (is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!options.momentum()) momentum = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
  }
  return functional::batch_norm(input, running_mean, running_var,
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(training)
                                    .momentum(momentum)
                                    .eps(options.eps()));
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) { reset(); }

void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    TensorOptions o = detail::placement(options.device(), options.dtype());
    weight = register_parameter("weight", empty(options.normalized_shape(), o));
    bias = register_parameter("bias", empty(options.normalized_shape(), o));
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
 stream << std::boolalpha << "locus::nn::LayerNorm([";
  for (size_t i = 0; i < options.normalized_shape().size(); ++i) stream << (i ? ", " : "") << options.normalized_shape()[i];
  stream << "], eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

InstanceNormImplBase::InstanceNormImplBase(const InstanceNormOptions& options_, int64_t spatial_dims, const char* kind)
    : options(options_), spatial_dims_(spatial_dims), kind_(kind) {
  reset();
}

void InstanceNormImplBase::reset() {
  register_norm_state(*this);
  reset_parameters();
}
void InstanceNormImplBase::reset_running_stats() { reset_norm_running_stats(*this); }
void InstanceNormImplBase::reset_parameters() { reset_norm_parameters(*this); }

void InstanceNormImplBase::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::" << kind_ << "(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=" << options.momentum() << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

Tensor InstanceNormImplBase::forward(const Tensor& input) {
  const int64_t d = input.dim();
  if (d != spatial_dims_ + 1 && d != spatial_dims_ + 2)
    throw Error(std::string(kind_) + ": expected " + std::to_string(spatial_dims_ + 1) + "D (unbatched) or " +
                std::to_string(spatial_dims_ + 2) + "D input (got " + std::to_string(d) + "D input).");
  const bool batched = d == spatial_dims_ + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  if (x.size(1) != options.num_features())
    throw Error(std::string(kind_) + ": expected input with " + std::to_string(options.num_features()) +
                " channels, got " + std::to_string(x.size(1)) + ".");
  if (weight.defined()) check_input_device(input, "weight", weight);
  else if (running_mean.defined()) check_input_device(input, "running_mean", running_mean);
  const bool input_stats = is_training() || !options.track_running_stats();
  if (is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  const Tensor out = functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                                       .running_mean(running_mean)
                                                       .running_var(running_var)
                                                       .weight(weight)
                                                       .bias(bias)
                                                       .use_input_stats(input_stats)
                                                       .momentum(options.momentum())
                                                       .eps(options.eps()));
  return batched ? out : out.squeeze(0);
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  if (options.num_groups() <= 0 || options.num_channels() % options.num_groups() != 0)
    throw Error("[GroupNorm] num_channels (" + std::to_string(options.num_channels()) +
                ") must be divisible by num_groups (" + std::to_string(options.num_groups()) + ").");
  reset();
}

void GroupNormImpl::reset() {
  if (options.affine()) {
    TensorOptions o = detail::placement(options.device(), options.dtype());
    weight = register_parameter("weight", empty({options.num_channels()}, o));
    bias = register_parameter("bias", empty({options.num_channels()}, o));
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "locus::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  if (weight.defined()) check_input_device(input, "weight", weight);
  return functional::group_norm(
      input, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  if (weight.defined()) check_input_device(input, "weight", weight);
  return functional::layer_norm(input, functional::LayerNormFuncOptions(options.normalized_shape())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

// ---- losses ---------------------------------------------------------------------------------
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::CrossEntropyLoss()"; }
void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::NLLLoss()"; }
void MSELossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::MSELoss()"; }
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::BCEWithLogitsLoss()"; }
void BCELossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::BCELoss()"; }
void L1LossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::L1Loss()"; }
void KLDivLossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::KLDivLoss()"; }
// libtorch prints these two without parentheses or options
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::SmoothL1Loss"; }
void HuberLossImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::HuberLoss"; }

// ---- upsampling ------------------------------------------------------------------------------
void UpsampleImpl::pretty_print(std::ostream& stream) const {  // as libtorch 1.13's
  stream << "locus::nn::Upsample(";
  if (options.scale_factor()) {
    stream << "scale_factor=[";
    for (size_t i = 0; i < options.scale_factor()->size(); ++i) stream << (i ? ", " : "") << (*options.scale_factor())[i];
    stream << "]";
  } else if (options.size()) {
    stream << "size=" << ops::shape_str(*options.size());
  }
  stream << ", mode=" << functional::interpolate_mode_enum_name(options.mode()) << ")";
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, functional::InterpolateFuncOptions()
                                            .size(options.size())
                                            .scale_factor(options.scale_factor())
                                            .mode(options.mode())
                                            .align_corners(options.align_corners()));
}

// ---- containers -----------------------------------------------------------------------------
void FunctionalImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Functional()"; }
void SequentialImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::Sequential"; }
void ModuleListImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::ModuleList"; }
void ModuleDictImpl::pretty_print(std::ostream& stream) const { stream << "locus::nn::ModuleDict"; }

namespace {
// "(key): Parameter containing: [Float of size [2, 3]]" lines, as libtorch prints its containers.
void print_parameters(std::ostream& stream, const char* name, const OrderedDict<std::string, Tensor>& items) {
  stream << "locus::nn::" << name << "(\n";
  for (const auto& item : items) {
    const Tensor& t = item.value();
    stream << "(" << item.key() << "): Parameter containing: [" << toString(t.scalar_type()) << " of size "
           << ops::shape_str(t.sizes()) << "]\n";
  }
  stream << ")";
}
// A copy of a parameter for clone(): on `device` when given, the same requires_grad.
Tensor copy_parameter(const Tensor& t, const std::optional<Device>& device) {
  NoGradGuard no_grad;
  Tensor c = device && t.device() != *device ? t.to(*device) : t.clone();
  return c.set_requires_grad(t.requires_grad());
}
}  // namespace

void ParameterListImpl::append(const Tensor& param) {
  const std::string key = std::to_string(items_.size());
  items_.insert(key, register_parameter(key, param, param.requires_grad()));
}
Tensor ParameterListImpl::at(size_t index) const {
  if (index >= items_.size())
    throw Error("[ParameterList::at] index " + std::to_string(index) + " is out of range for a list of " +
                std::to_string(items_.size()) + " parameters.");
  return items_[index].value();
}
void ParameterListImpl::pretty_print(std::ostream& stream) const { print_parameters(stream, "ParameterList", items_); }
std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& item : items_) copy->append(copy_parameter(item.value(), device));
  copy->train(is_training());
  return copy;
}

Tensor ParameterDictImpl::insert(const std::string& key, const Tensor& param) {
  if (items_.contains(key)) pop(key);
  return items_.insert(key, register_parameter(key, param, param.requires_grad()));
}
Tensor ParameterDictImpl::pop(const std::string& key) {
  if (!items_.contains(key))
    throw Error("[ParameterDict::pop] no parameter named '" + key + "'; the keys are " +
                (items_.is_empty() ? std::string("none") : "'" + [&] {
                  std::string all;
                  for (const auto& k : items_.keys()) all += (all.empty() ? "" : "', '") + k;
                  return all;
                }() + "'") + ".");
  Tensor t = items_[key];
  items_.erase(key);
  unregister_parameter(key);
  return t;
}
void ParameterDictImpl::clear() {
  for (const std::string& k : items_.keys()) pop(k);
}
void ParameterDictImpl::pretty_print(std::ostream& stream) const { print_parameters(stream, "ParameterDict", items_); }
std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& item : items_) copy->insert(item.key(), copy_parameter(item.value(), device));
  copy->train(is_training());
  return copy;
}

// ReLU then MaxPool2d (the pattern of most CNNs) runs as MaxPool2d then ReLU: relu is monotone and
// every pooling window is non-empty, so max(relu(window)) == relu(max(window)), NaN included (both
// keep it), and the gradients are the same (a window whose max is <= 0 gets none either way; the
// others pass it to the same first maximum). The relu and its backward then touch a quarter of the
// elements (a 2x2 pool): on the Fashion-MNIST CNN they were 16% of a cpu training step. The one
// visible difference: a window of -0.0 and negatives pools to -0.0 instead of 0.0 (equal values).
// Only the exact types, and only an out-of-place ReLU (an in-place one may write into a tensor the
// caller still holds, which the swapped order would not).
static bool relu_then_max_pool(const Module& a, const Module& b) {
  return typeid(a) == typeid(ReLUImpl) && typeid(b) == typeid(MaxPool2dImpl) &&
         !static_cast<const ReLUImpl&>(a).options.inplace();
}

Tensor SequentialImpl::forward(const Tensor& input) {
  if (forwards_.empty()) throw Error("[Sequential::forward] cannot call forward() on an empty Sequential.");
  Tensor x = input;
  for (size_t i = 0; i < forwards_.size(); ++i) {
    if (i + 1 < forwards_.size() && relu_then_max_pool(*modules_[i], *modules_[i + 1])) {
      x = functional::relu(static_cast<MaxPool2dImpl&>(*modules_[i + 1]).forward(x));
      ++i;
    } else {
      x = forwards_[i](*modules_[i], x);
    }
  }
  return x;
}

// Containers are cloned child by child: their children come from the caller, not from reset().
std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  auto names = named_children();
  for (size_t i = 0; i < modules_.size(); ++i) {
    std::shared_ptr<Module> child = modules_[i]->clone(device);
    copy->register_module(names.keys()[i], child);
    copy->modules_.push_back(std::move(child));
    copy->forwards_.push_back(forwards_[i]);
  }
  copy->train(is_training());
  return copy;
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->push_back(m->clone(device));
  copy->train(is_training());
  return copy;
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& m : modules_) copy->insert(m.key(), m.value()->clone(device));
  copy->train(is_training());
  return copy;
}

}  // namespace locus::nn
