#pragma once
// Example: one (data, target) pair, or a batch of them once collated (libtorch's data::Example).
#include "locus/tensor.h"

namespace locus::data {

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;
  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};

}  // namespace locus::data
