#pragma once
// ReLU, LeakyReLU, ELU, SELU, GELU, SiLU, Mish, Softplus, Hardtanh, Sigmoid, Tanh, Softmax,
// LogSoftmax, Identity, Dropout, Dropout2d, Dropout3d, ReLU6, Hardshrink, Softshrink, CELU, GLU,
// Tanhshrink, Softsign, LogSigmoid, Hardswish, Hardsigmoid, Threshold, Softmin, Softmax2d, RReLU (parameter-free layers),
// and PReLU (a learned slope).
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_activations.h"
#include "locus/nn/functional_layers.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/linear.h"  // LOCUS_PLACEMENT_ARGS

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

struct LeakyReLUOptions {
  LOCUS_ARG(double, negative_slope) = 1e-2;
  LOCUS_ARG(bool, inplace) = false;
};
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  void reset() override {}
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::leaky_relu(input, functional::LeakyReLUFuncOptions().negative_slope(options.negative_slope()));
  }
  LeakyReLUOptions options;
};
LOCUS_MODULE(LeakyReLU);

using ELUOptions = functional::ELUFuncOptions;
/// x where x > 0, else alpha * (exp(x) - 1).
class ELUImpl : public Cloneable<ELUImpl> {
 public:
  void reset() override {}
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::elu(input, options); }
  ELUOptions options;
};
LOCUS_MODULE(ELU);

using SELUOptions = functional::SELUFuncOptions;
/// Scaled ELU with PyTorch's constants.
class SELUImpl : public Cloneable<SELUImpl> {
 public:
  void reset() override {}
  explicit SELUImpl(const SELUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::selu(input, options); }
  SELUOptions options;
};
LOCUS_MODULE(SELU);

using SoftmaxOptions = functional::SoftmaxFuncOptions;
using LogSoftmaxOptions = functional::SoftmaxFuncOptions;
/// softmax (or log_softmax) over options.dim().
class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  void reset() override {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::softmax(input, options); }
  SoftmaxOptions options;
};
LOCUS_MODULE(Softmax);
class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  void reset() override {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::log_softmax(input, options); }
  LogSoftmaxOptions options;
};
LOCUS_MODULE(LogSoftmax);

/// Returns its input (a placeholder layer).
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
LOCUS_MODULE(Identity);

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

using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
/// Zeroes whole channels ([N, C, H, W] or [C, H, W]) with probability p while training, scaling
/// the others by 1/(1-p); identity in eval() (functional::dropout2d).
class Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  void reset() override {}
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::dropout2d(input, functional::Dropout2dFuncOptions().p(options.p()).training(is_training()));
  }
  Dropout2dOptions options;
};
LOCUS_MODULE(Dropout2d);

/// Dropout2d for volumes: [N, C, D, H, W] or [C, D, H, W] (functional::dropout3d).
class Dropout3dImpl : public Cloneable<Dropout3dImpl> {
 public:
  void reset() override {}
  explicit Dropout3dImpl(const Dropout3dOptions& options = {});
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) {
    return functional::dropout3d(input, functional::Dropout3dFuncOptions().p(options.p()).training(is_training()));
  }
  Dropout3dOptions options;
};
LOCUS_MODULE(Dropout3d);

class SiLUImpl : public Cloneable<SiLUImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::silu(input); }
};
LOCUS_MODULE(SiLU);

class MishImpl : public Cloneable<MishImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::mish(input); }
};
LOCUS_MODULE(Mish);

using SoftplusOptions = functional::SoftplusFuncOptions;
class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  void reset() override {}
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::softplus(input, options); }
  SoftplusOptions options;
};
LOCUS_MODULE(Softplus);

using HardtanhOptions = functional::HardtanhFuncOptions;
class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  void reset() override;
  explicit HardtanhImpl(const HardtanhOptions& options = {}) : options(options) { reset(); }
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::hardtanh(input, options); }
  HardtanhOptions options;
};
LOCUS_MODULE(Hardtanh);

struct PReLUOptions {
  LOCUS_ARG(int64_t, num_parameters) = 1;
  LOCUS_ARG(double, init) = 0.25;
  LOCUS_PLACEMENT_ARGS;
};
/// max(0, x) + weight * min(0, x) with a learned weight of num_parameters slopes (1, or one per
/// channel), each initialised to `init`.
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  PReLUOptions options;
  Tensor weight;
};
LOCUS_MODULE(PReLU);

// ---- the activations of functional_activations.h as layers ---------------------------------
/// A layer with options whose forward is functional::fn(input, options).
#define LOCUS_OPTIONS_ACTIVATION(Name, fn)                                                           \
  using Name##Options = functional::Name##FuncOptions;                                               \
  class Name##Impl : public Cloneable<Name##Impl> {                                                  \
   public:                                                                                           \
    void reset() override {}                                                                         \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}                     \
    void pretty_print(std::ostream& stream) const override;                                          \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); }                   \
    Name##Options options;                                                                           \
  };                                                                                                 \
  LOCUS_MODULE(Name)
/// A layer without options.
#define LOCUS_PLAIN_ACTIVATION(Name, fn)                                                             \
  class Name##Impl : public Cloneable<Name##Impl> {                                                  \
   public:                                                                                           \
    void reset() override {}                                                                         \
    void pretty_print(std::ostream& stream) const override;                                          \
    Tensor forward(const Tensor& input) { return functional::fn(input); }                            \
  };                                                                                                 \
  LOCUS_MODULE(Name)

LOCUS_OPTIONS_ACTIVATION(ReLU6, relu6);
LOCUS_OPTIONS_ACTIVATION(Hardshrink, hardshrink);
LOCUS_OPTIONS_ACTIVATION(Softshrink, softshrink);
LOCUS_OPTIONS_ACTIVATION(CELU, celu);
LOCUS_OPTIONS_ACTIVATION(GLU, glu);
LOCUS_PLAIN_ACTIVATION(Tanhshrink, tanhshrink);
LOCUS_PLAIN_ACTIVATION(Softsign, softsign);
LOCUS_PLAIN_ACTIVATION(LogSigmoid, logsigmoid);
LOCUS_PLAIN_ACTIVATION(Hardswish, hardswish);  // PyTorch's nn.Hardswish / nn.Hardsigmoid (no options)
LOCUS_PLAIN_ACTIVATION(Hardsigmoid, hardsigmoid);
#undef LOCUS_OPTIONS_ACTIVATION
#undef LOCUS_PLAIN_ACTIVATION

using ThresholdOptions = functional::ThresholdFuncOptions;
class ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  void reset() override {}
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::threshold(input, options); }
  ThresholdOptions options;
};
LOCUS_MODULE(Threshold);

using SoftminOptions = functional::SoftminFuncOptions;
class SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  void reset() override {}
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::softmin(input, options); }
  SoftminOptions options;
};
LOCUS_MODULE(Softmin);

/// softmax over the channels of [N, C, H, W] or [C, H, W].
class Softmax2dImpl : public Cloneable<Softmax2dImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
LOCUS_MODULE(Softmax2d);

struct RReLUOptions {
  LOCUS_ARG(double, lower) = 1.0 / 8;
  LOCUS_ARG(double, upper) = 1.0 / 3;
  LOCUS_ARG(bool, inplace) = false;
};
/// Random negative slopes in U(lower, upper) while training, their mean in eval().
class RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  void reset() override {}
  explicit RReLUImpl(const RReLUOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  RReLUOptions options;
};
LOCUS_MODULE(RReLU);

/// Dropout1d (channels of [N, C, L] or [C, L]), AlphaDropout and FeatureAlphaDropout (SELU's):
/// active while training, identity in eval().
#define LOCUS_DROPOUT_LAYER(Name, fn)                                                                  \
  using Name##Options = DropoutOptions;                                                                \
  class Name##Impl : public Cloneable<Name##Impl> {                                                    \
   public:                                                                                             \
    void reset() override {}                                                                           \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}                       \
    void pretty_print(std::ostream& stream) const override;                                            \
    Tensor forward(const Tensor& input) {                                                              \
      return functional::fn(input, functional::DropoutFuncOptions().p(options.p()).training(is_training())); \
    }                                                                                                  \
    Name##Options options;                                                                             \
  };                                                                                                   \
  LOCUS_MODULE(Name)
LOCUS_DROPOUT_LAYER(Dropout1d, dropout1d);
LOCUS_DROPOUT_LAYER(AlphaDropout, alpha_dropout);
LOCUS_DROPOUT_LAYER(FeatureAlphaDropout, feature_alpha_dropout);
#undef LOCUS_DROPOUT_LAYER

}  // namespace locus::nn
