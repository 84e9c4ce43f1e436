#pragma once
// The convolutions' padding by name and mode (ConvPadding, locus/nn/functional.h): kSame resolved
// from the kernel, and the conv layers' padding_mode (kReflect, kReplicate, kCircular) applied
// with F::pad before a convolution without padding, as PyTorch's _conv_forward does.
#include <string>
#include <variant>
#include <vector>

#include "locus/error.h"
#include "locus/nn/functional.h"

namespace locus::nn::detail {

inline void check_same_stride(const char* op, const int64_t* stride, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (stride[i] != 1)
      throw Error(std::string("[") + op +
                  "] padding='same' is not supported for strided convolutions; use stride 1 or explicit padding.");
}

/// The input and the symmetric padding to convolve it with: kSame's odd extra (on the right of a
/// dim) is padded into the input; explicit or kValid padding passes through.
template <size_t N>
std::pair<Tensor, ExpandingArray<N>> resolve_padding(const char* op, const Tensor& input, const ExpandingArray<N>& kernel,
                                                     const ConvPadding<N>& padding, const ExpandingArray<N>& stride,
                                                     const ExpandingArray<N>& dilation) {
  if (!padding.is_same()) return {input, padding.sizes()};
  check_same_stride(op, stride.data(), N);
  const auto sides = padding.sides(kernel, dilation);
  std::array<int64_t, N> symmetric{};
  std::vector<int64_t> extra;  // F::pad's order: the last dim first
  bool any = false;
  for (size_t i = N; i-- > 0;) {
    symmetric[i] = sides[i].first;
    extra.push_back(0);
    extra.push_back(sides[i].second - sides[i].first);
    any = any || sides[i].second != sides[i].first;
  }
  Tensor x = any ? functional::pad(input, functional::PadFuncOptions(extra)) : input;
  return {x, ExpandingArray<N>(symmetric)};
}

/// A conv layer's padding_mode: kZeros, or F::pad's kReflect / kReplicate / kCircular.
using ConvPaddingMode = std::variant<enumtype::kZeros, enumtype::PadMode>;

inline void check_padding_mode(const char* layer, const ConvPaddingMode& mode) {
  if (const auto* m = std::get_if<enumtype::PadMode>(&mode); m && *m == enumtype::PadMode::Constant)
    throw Error(std::string("[") + layer +
                "] padding_mode must be kZeros, kReflect, kReplicate or kCircular (kConstant is F::pad's, not a "
                "conv layer's).");
}

/// The layer's input padded by its padding_mode (all of the padding, kSame's included), and the
/// padding left for the convolution: the layer's own for kZeros, else none.
template <size_t N>
std::pair<Tensor, ConvPadding<N>> apply_padding_mode(const char* layer, const Tensor& input, const ConvPaddingMode& mode,
                                                     const ConvPadding<N>& padding, const ExpandingArray<N>& kernel,
                                                     const ExpandingArray<N>& stride,
                                                     const ExpandingArray<N>& dilation) {
  const auto* m = std::get_if<enumtype::PadMode>(&mode);
  if (m == nullptr) return {input, padding};
  if (padding.is_same()) check_same_stride(layer, stride.data(), N);
  const auto sides = padding.sides(kernel, dilation);
  std::vector<int64_t> pads;
  for (size_t i = N; i-- > 0;) {
    pads.push_back(sides[i].first);
    pads.push_back(sides[i].second);
  }
  return {functional::pad(input, functional::PadFuncOptions(pads).mode(*m)), ConvPadding<N>(0)};
}

/// How a layer prints its padding_mode (nothing for kZeros, as PyTorch).
inline std::string padding_mode_str(const ConvPaddingMode& mode) {
  const auto* m = std::get_if<enumtype::PadMode>(&mode);
  if (m == nullptr) return "";
  switch (*m) {
    case enumtype::PadMode::Reflect: return ", padding_mode=kReflect";
    case enumtype::PadMode::Replicate: return ", padding_mode=kReplicate";
    case enumtype::PadMode::Circular: return ", padding_mode=kCircular";
    default: return ", padding_mode=kConstant";
  }
}

}  // namespace locus::nn::detail
