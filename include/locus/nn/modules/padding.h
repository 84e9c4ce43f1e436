#pragma once
// The padding layers, as libtorch's: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d,
// ReplicationPad1d/2d/3d and CircularPad1d/2d/3d, each F::pad over the last D dims with its
// mode. padding: one value for every side, or 2 D values (left, right, top, bottom, front, back).
#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/module.h"

namespace locus::nn {

namespace detail {
/// The padding of D dims as F::pad takes it, and the layers' printing.
template <size_t N>
std::vector<int64_t> pad_vector(const ExpandingArray<N>& p) {
  return std::vector<int64_t>(p.data(), p.data() + N);
}
void print_padding(std::ostream& stream, const char* name, const std::vector<int64_t>& padding, const double* value);
}  // namespace detail

/// ZeroPad, ReflectionPad, ReplicationPad, CircularPad: padding only.
template <size_t D>
struct PadOptions {
  PadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}
  LOCUS_ARG(ExpandingArray<2 * D>, padding);
};
/// ConstantPad: padding and the value it holds.
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value) : padding_(padding), value_(value) {}
  LOCUS_ARG(ExpandingArray<2 * D>, padding);
  LOCUS_ARG(double, value);
};

#define LOCUS_PAD_LAYER(Name, D, Mode)                                                                \
  using Name##Options = PadOptions<D>;                                                                \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    Name##Impl(ExpandingArray<2 * D> padding) : options(padding) {}                                   \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void reset() override {}                                                                          \
    void pretty_print(std::ostream& stream) const override {                                          \
      detail::print_padding(stream, #Name, detail::pad_vector(options.padding()), nullptr);           \
    }                                                                                                 \
    Tensor forward(const Tensor& input) {                                                             \
      return functional::pad(input, functional::PadFuncOptions(detail::pad_vector(options.padding())) \
                                        .mode(Mode));                                                 \
    }                                                                                                 \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)

#define LOCUS_CONSTANT_PAD_LAYER(Name, D)                                                             \
  using Name##Options = ConstantPadOptions<D>;                                                        \
  class Name##Impl : public Cloneable<Name##Impl> {                                                   \
   public:                                                                                            \
    Name##Impl(ExpandingArray<2 * D> padding, double value) : options(padding, value) {}              \
    explicit Name##Impl(const Name##Options& options) : options(options) {}                           \
    void reset() override {}                                                                          \
    void pretty_print(std::ostream& stream) const override {                                          \
      const double value = options.value();                                                           \
      detail::print_padding(stream, #Name, detail::pad_vector(options.padding()), &value);            \
    }                                                                                                 \
    Tensor forward(const Tensor& input) {                                                             \
      return functional::pad(input, functional::PadFuncOptions(detail::pad_vector(options.padding())) \
                                        .value(options.value()));                                     \
    }                                                                                                 \
    Name##Options options;                                                                            \
  };                                                                                                  \
  LOCUS_MODULE(Name)

LOCUS_PAD_LAYER(ZeroPad1d, 1, enumtype::PadMode::Constant);
LOCUS_PAD_LAYER(ZeroPad2d, 2, enumtype::PadMode::Constant);
LOCUS_PAD_LAYER(ZeroPad3d, 3, enumtype::PadMode::Constant);
LOCUS_CONSTANT_PAD_LAYER(ConstantPad1d, 1);
LOCUS_CONSTANT_PAD_LAYER(ConstantPad2d, 2);
LOCUS_CONSTANT_PAD_LAYER(ConstantPad3d, 3);
LOCUS_PAD_LAYER(ReflectionPad1d, 1, enumtype::PadMode::Reflect);
LOCUS_PAD_LAYER(ReflectionPad2d, 2, enumtype::PadMode::Reflect);
LOCUS_PAD_LAYER(ReflectionPad3d, 3, enumtype::PadMode::Reflect);
LOCUS_PAD_LAYER(ReplicationPad1d, 1, enumtype::PadMode::Replicate);
LOCUS_PAD_LAYER(ReplicationPad2d, 2, enumtype::PadMode::Replicate);
LOCUS_PAD_LAYER(ReplicationPad3d, 3, enumtype::PadMode::Replicate);
LOCUS_PAD_LAYER(CircularPad1d, 1, enumtype::PadMode::Circular);
LOCUS_PAD_LAYER(CircularPad2d, 2, enumtype::PadMode::Circular);
LOCUS_PAD_LAYER(CircularPad3d, 3, enumtype::PadMode::Circular);
#undef LOCUS_PAD_LAYER
#undef LOCUS_CONSTANT_PAD_LAYER

}  // namespace locus::nn
