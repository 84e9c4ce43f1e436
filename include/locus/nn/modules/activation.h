#pragma once
// ReLU, GELU, Sigmoid, Tanh, Dropout (parameter-free layers).
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/module.h"

namespace locus::nn {

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  LOCUS_ARG(bool, inplace);
};
class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  void reset() override {}
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::relu(input, options.inplace()); }
  ReLUOptions options;
};
LOCUS_MODULE(ReLU);

struct GELUOptions {
  LOCUS_ARG(std::string, approximate) = "none";
};
class GELUImpl : public Cloneable<GELUImpl> {
 public:
  void reset() override {}
  explicit GELUImpl(const GELUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::gelu(input, functional::GELUFuncOptions().approximate(options.approximate()));
  }
  GELUOptions options;
};
LOCUS_MODULE(GELU);

class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.sigmoid(); }
};
LOCUS_MODULE(Sigmoid);

class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.tanh(); }
};
LOCUS_MODULE(Tanh);

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  LOCUS_ARG(double, p);
  LOCUS_ARG(bool, inplace) = false;
};
/// Zeroes elements with probability p while training (scaling the rest by 1/(1-p)); identity in eval().
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  void reset() override {}
  explicit DropoutImpl(const DropoutOptions& options = {});
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::dropout(input, functional::DropoutFuncOptions().p(options.p()).training(is_training()));
  }
  DropoutOptions options;
};
LOCUS_MODULE(Dropout);

}  // namespace locus::nn
