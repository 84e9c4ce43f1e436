#pragma once
// libtorch's enum tags (torch/enum.h) that name a nonlinearity or a fan mode: locus::kReLU,
// kLeakyReLU, kTanh, kSigmoid, kGELU, kConv1D..kConv3D, kConvTranspose1D..3D, kFanIn, kFanOut.
// Each converts to the enum of every option that takes it, so libtorch's spellings compile:
//   nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
//   nn::init::calculate_gain(torch::kLeakyReLU, 0.2);
//   nn::RNNOptions(8, 16).nonlinearity(torch::kReLU);
//   nn::TransformerEncoderLayerOptions(32, 4).activation(torch::kGELU);
// (kLinear is also F::interpolate's mode; nn::init accepts it as the linear nonlinearity.)
namespace locus::nn::init {
/// The nonlinearities calculate_gain knows (PyTorch's gains: tanh 5/3, relu sqrt(2), leaky_relu
/// sqrt(2 / (1 + slope^2)), the others 1).
enum class Nonlinearity {
  Linear, Sigmoid, Tanh, ReLU, LeakyReLU, Conv1D, Conv2D, Conv3D, ConvTranspose1D, ConvTranspose2D, ConvTranspose3D
};
enum class FanMode { FanIn, FanOut };
}  // namespace locus::nn::init

namespace locus::nn {
/// nn::RNN's nonlinearity (torch::kTanh, torch::kReLU).
enum class RNNNonlinearity { Tanh, ReLU };
}  // namespace locus::nn

namespace locus {
namespace enumtype {
#define LOCUS_NONLINEARITY_TAG(Tag, Value)                                                          \
  struct Tag {                                                                                     \
    constexpr operator nn::init::Nonlinearity() const { return nn::init::Nonlinearity::Value; }   \
  };
LOCUS_NONLINEARITY_TAG(kSigmoid, Sigmoid)
LOCUS_NONLINEARITY_TAG(kLeakyReLU, LeakyReLU)
LOCUS_NONLINEARITY_TAG(kConv1D, Conv1D)
LOCUS_NONLINEARITY_TAG(kConv2D, Conv2D)
LOCUS_NONLINEARITY_TAG(kConv3D, Conv3D)
LOCUS_NONLINEARITY_TAG(kConvTranspose1D, ConvTranspose1D)
LOCUS_NONLINEARITY_TAG(kConvTranspose2D, ConvTranspose2D)
LOCUS_NONLINEARITY_TAG(kConvTranspose3D, ConvTranspose3D)
#undef LOCUS_NONLINEARITY_TAG
struct kReLU {
  constexpr operator nn::init::Nonlinearity() const { return nn::init::Nonlinearity::ReLU; }
  constexpr operator nn::RNNNonlinearity() const { return nn::RNNNonlinearity::ReLU; }
};
struct kTanh {
  constexpr operator nn::init::Nonlinearity() const { return nn::init::Nonlinearity::Tanh; }
  constexpr operator nn::RNNNonlinearity() const { return nn::RNNNonlinearity::Tanh; }
};
struct kGELU {};
struct kFanIn {
  constexpr operator nn::init::FanMode() const { return nn::init::FanMode::FanIn; }
};
struct kFanOut {
  constexpr operator nn::init::FanMode() const { return nn::init::FanMode::FanOut; }
};
}  // namespace enumtype
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
}  // namespace locus
