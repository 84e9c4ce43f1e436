#pragma once
// Upsample (functional::interpolate as a module), PixelShuffle and PixelUnshuffle.
#include <optional>
#include <ostream>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/module.h"

namespace locus::nn {

struct UpsampleOptions {
  LOCUS_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  LOCUS_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  LOCUS_ARG(enumtype::InterpolateMode, mode) = kNearest;
  LOCUS_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UpsampleOptions options;
};
LOCUS_MODULE(Upsample);

using PixelShuffleOptions = functional::PixelShuffleFuncOptions;
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_shuffle(input, options); }
  PixelShuffleOptions options;
};
LOCUS_MODULE(PixelShuffle);

using PixelUnshuffleOptions = functional::PixelUnshuffleFuncOptions;
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_unshuffle(input, options); }
  PixelUnshuffleOptions options;
};
LOCUS_MODULE(PixelUnshuffle);

}  // namespace locus::nn
