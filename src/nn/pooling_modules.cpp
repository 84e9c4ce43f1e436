// ---- pooling batch (stop 46) ----
// The modules of locus/nn/modules/pooling_more.h and MaxPool1d/2d/3d's forward_with_indices.
#include <cmath>
#include <ostream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/nn.h"
#include "locus/nn/init.h"
#include "ops/checks.h"

namespace locus::nn {
namespace {
template <size_t N>
std::ostream& print(std::ostream& os, const ExpandingArray<N>& a) {
  os << "[";
  for (size_t i = 0; i < N; ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}
}  // namespace

std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}
std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool3d_with_indices(input, options);
}

void AdaptiveMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  print(stream << "locus::nn::AdaptiveMaxPool3d(output_size=", options.output_size()) << ")";
}

#define LOCUS_MAX_UNPOOL_PRINT(Name)                                                                \
  void Name##Impl::pretty_print(std::ostream& stream) const {                                       \
    print(stream << "locus::nn::" #Name "(kernel_size=", options.kernel_size());                     \
    print(stream << ", stride=", options.stride());                                                 \
    print(stream << ", padding=", options.padding()) << ")";                                        \
  }
LOCUS_MAX_UNPOOL_PRINT(MaxUnpool1d)
LOCUS_MAX_UNPOOL_PRINT(MaxUnpool2d)
LOCUS_MAX_UNPOOL_PRINT(MaxUnpool3d)
#undef LOCUS_MAX_UNPOOL_PRINT

#define LOCUS_LP_POOL_PRINT(Name)                                                                   \
  void Name##Impl::pretty_print(std::ostream& stream) const {                                       \
    stream << std::boolalpha << "locus::nn::" #Name "(norm_type=" << options.norm_type();           \
    print(stream << ", kernel_size=", options.kernel_size());                                       \
    print(stream << ", stride=", options.stride()) << ", ceil_mode=" << options.ceil_mode() << ")"; \
  }
LOCUS_LP_POOL_PRINT(LPPool1d)
LOCUS_LP_POOL_PRINT(LPPool2d)
#undef LOCUS_LP_POOL_PRINT

// ---- ConvTranspose3d ------------------------------------------------------------------------
ConvTranspose3dImpl::ConvTranspose3dImpl(const ConvTranspose3dOptions& options_) : options(options_) {
  const int64_t in = options.in_channels(), out = options.out_channels(), groups = options.groups();
  if (groups <= 0 || in % groups != 0 || out % groups != 0)
    throw Error("ConvTranspose3d: in_channels (" + std::to_string(in) + ") and out_channels (" + std::to_string(out) +
                ") must be divisible by groups (" + std::to_string(groups) + ").");
  reset();
}

void ConvTranspose3dImpl::reset() {
  TensorOptions o = TensorOptions().dtype(options.dtype().value_or(default_dtype()));
  if (options.device()) o = o.device(*options.device());
  const ExpandingArray<3> k = options.kernel_size();
  weight = register_parameter(
      "weight", empty({options.in_channels(), options.out_channels() / options.groups(), k[0], k[1], k[2]}, o));
  if (options.bias()) bias = register_parameter("bias", empty({options.out_channels()}, o));
  else bias = register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void ConvTranspose3dImpl::reset_parameters() {  // as PyTorch's _ConvNd.reset_parameters
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(weight);
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void ConvTranspose3dImpl::pretty_print(std::ostream& stream) const {
  stream << "locus::nn::ConvTranspose3d(" << options.in_channels() << ", " << options.out_channels();
  print(stream << ", kernel_size=", options.kernel_size());
  print(stream << ", stride=", options.stride());
  if (!(options.padding() == ExpandingArray<3>(0))) print(stream << ", padding=", options.padding());
  if (!(options.output_padding() == ExpandingArray<3>(0)))
    print(stream << ", output_padding=", options.output_padding());
  if (!(options.dilation() == ExpandingArray<3>(1))) print(stream << ", dilation=", options.dilation());
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

Tensor ConvTranspose3dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  check_input_device(input, "weight", weight);
  ExpandingArray<3> output_padding = options.output_padding();
  if (output_size) {  // PyTorch's _output_padding: each size within the stride's range of sizes
    const IntArrayRef want = *output_size;
    if (want.size() < 3 || input.dim() < 4)
      throw Error("ConvTranspose3d: output_size must hold at least the output's depth, height and width, got " +
                  std::to_string(want.size()) + " values for an input of " + std::to_string(input.dim()) + " dims.");
    std::array<int64_t, 3> pad{};
    const ExpandingArray<3> k = options.kernel_size(), s = options.stride(), p = options.padding(),
                            dil = options.dilation();
    for (size_t i = 0; i < 3; ++i) {
      const int64_t in = input.size(input.dim() - 3 + static_cast<int64_t>(i));
      const int64_t least = (in - 1) * s[i] - 2 * p[i] + dil[i] * (k[i] - 1) + 1;
      const int64_t most = least + s[i] - 1, got = want[want.size() - 3 + i];
      if (got < least || got > most)
        throw Error("ConvTranspose3d: requested an output size of " + std::to_string(want[want.size() - 3]) + "x" +
                    std::to_string(want[want.size() - 2]) + "x" + std::to_string(want[want.size() - 1]) +
                    ", but valid sizes range from " + std::to_string(least) + " to " + std::to_string(most) +
                    " in dim " + std::to_string(i) + " (for an input of " + ops::shape_str(input.sizes()) + ").");
      pad[i] = got - least;
    }
    output_padding = ExpandingArray<3>(pad);
  }
  return functional::conv_transpose3d(input, weight,
                                      functional::ConvTranspose3dFuncOptions()
                                          .bias(bias)
                                          .stride(options.stride())
                                          .padding(options.padding())
                                          .output_padding(output_padding)
                                          .groups(options.groups())
                                          .dilation(options.dilation()));
}

// ---- FractionalMaxPool2d/3d -----------------------------------------------------------------
#define LOCUS_FRACTIONAL_MAX_POOL_IMPL(Name, fn, D)                                                 \
  Name##Impl::Name##Impl(const Name##Options& options_) : options(options_) { reset(); }            \
  void Name##Impl::reset() {                                                                        \
    if (options._random_samples().defined())                                                        \
      _random_samples = register_buffer("_random_samples", options._random_samples());              \
    if (!options.output_size() && !options.output_ratio())                                          \
      throw Error(#Name " requires specifying either an output size, or a pooling ratio.");         \
    if (options.output_size() && options.output_ratio())                                            \
      throw Error(#Name ": only one of output size and output ratio may be specified.");            \
    if (options.output_ratio())                                                                     \
      for (size_t i = 0; i < D; ++i) {                                                              \
        const double r = (*options.output_ratio())[i];                                              \
        if (!(r > 0.0 && r < 1.0))                                                                  \
          throw Error(#Name ": output_ratio must be between 0 and 1 (got " + std::to_string(r) + ")."); \
      }                                                                                             \
  }                                                                                                 \
  void Name##Impl::pretty_print(std::ostream& stream) const { stream << "locus::nn::" #Name "()"; } \
  Tensor Name##Impl::forward(const Tensor& input) { return std::get<0>(forward_with_indices(input)); } \
  std::tuple<Tensor, Tensor> Name##Impl::forward_with_indices(const Tensor& input) {                \
    return functional::fn##_with_indices(input, Name##Options(options)._random_samples(_random_samples)); \
  }
LOCUS_FRACTIONAL_MAX_POOL_IMPL(FractionalMaxPool2d, fractional_max_pool2d, 2)
LOCUS_FRACTIONAL_MAX_POOL_IMPL(FractionalMaxPool3d, fractional_max_pool3d, 3)
#undef LOCUS_FRACTIONAL_MAX_POOL_IMPL

}  // namespace locus::nn
