#pragma once
// Upsample: functional::interpolate as a module (libtorch's nn::Upsample).
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

}  // namespace locus::nn
