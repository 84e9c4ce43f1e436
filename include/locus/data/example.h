#pragma once
// Example: one (data, target) pair, or a batch of them once collated (libtorch's data::Example).
// Example<Data, NoTarget> holds data alone; TensorExample is Example<Tensor, NoTarget>.
#include "locus/tensor.h"

namespace locus::data {

namespace example {
/// The target type of an example without a target (libtorch's example::NoTarget).
using NoTarget = void;
}  // namespace example

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};

/// An example of data alone (libtorch's Example<Data, example::NoTarget>).
template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;
  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}
  operator Data&() { return data; }
  operator const Data&() const { return data; }
  Data data;
};

/// An example holding one tensor.
using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace locus::data
