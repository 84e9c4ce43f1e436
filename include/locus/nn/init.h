#pragma once
// Parameter initialisation (libtorch's torch::nn::init). Every function fills the tensor in place,
// under NoGradGuard, with numbers drawn on the tensor's own device (locus::rand / randn), so a
// model initialised on opencl:0 equals one initialised on cpu with the same seed.
#include <tuple>
#include <type_traits>

#include "locus/enum.h"  // Nonlinearity, FanMode and libtorch's tags (torch::kReLU, torch::kFanOut, ...)
#include "locus/tensor.h"

namespace locus::enumtype {
enum class InterpolateMode;  // locus/nn/functional.h: torch::kLinear is also a nonlinearity here
}  // namespace locus::enumtype

namespace locus::nn::init {

/// A nonlinearity as a libtorch program names it: Nonlinearity::ReLU, a tag (torch::kReLU,
/// torch::kLeakyReLU, torch::kConv2D, ...) or torch::kLinear (libtorch's NonlinearityType).
class NonlinearityType {
 public:
  constexpr NonlinearityType(Nonlinearity n) : value_(n) {}
  template <class Tag, std::enable_if_t<std::is_class_v<Tag> && std::is_convertible_v<Tag, Nonlinearity>, int> = 0>
  constexpr NonlinearityType(Tag tag) : value_(tag) {}
  /// torch::kLinear; any other interpolation mode is an Error.
  NonlinearityType(enumtype::InterpolateMode mode);
  constexpr Nonlinearity value() const { return value_; }

 private:
  Nonlinearity value_;
};
/// Nonlinearity::X, a tag or torch::kLinear; `param` is leaky_relu's negative slope.
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);
/// (fan_in, fan_out) of a weight [out, in, k...].
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);
/// libtorch's spelling of calculate_fan_in_and_fan_out.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);
/// A 2-D tensor filled with the identity (ones on the diagonal of a possibly rectangular matrix).
Tensor eye_(Tensor matrix);
/// A 3-D to 5-D convolution weight [out, in, k...] filled so that the convolution is the identity: ones at
/// [d, d, centre] for d < min(out, in), zeros elsewhere (libtorch's, without groups).
Tensor dirac_(Tensor tensor);
/// A (semi-)orthogonal matrix (the tensor viewed as [size(0), numel / size(0)]) times gain: Q of the QR
/// decomposition of a standard normal draw, its columns' signs fixed by R's diagonal (libtorch's).
Tensor orthogonal_(Tensor tensor, double gain = 1.0);
/// A 2-D tensor drawn from N(0, std) with ceil(sparsity * rows) entries of each column set to zero
/// (rows drawn by randperm).
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, double value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// `mode`: FanMode::FanIn / FanOut or torch::kFanIn / kFanOut; `nonlinearity` as calculate_gain's.
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        NonlinearityType nonlinearity = Nonlinearity::LeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                       NonlinearityType nonlinearity = Nonlinearity::LeakyReLU);

}  // namespace locus::nn::init
