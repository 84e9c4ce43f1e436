#pragma once
// The `inplace` option of the activations (relu6, threshold, elu, celu, selu, hardtanh, rrelu,
// leaky_relu; relu uses relu_): input is overwritten with the result and returned, as in libtorch,
// also when autograd records it (the op then reads a clone of input, which the write replaces, so
// no formula sees the new values; input becomes the output of the result's node).
#include "autograd/record.h"
#include "locus/tensor.h"

namespace locus::nn::detail {

template <class F>
Tensor maybe_inplace(const char* op, const Tensor& input, bool inplace, F&& f) {
  if (!inplace) return f(input);
  const bool recorded = autograd::should_record(input) || autograd::view_of_graph(input);
  if (recorded) autograd::check_inplace_graph(op, input);
  Tensor r = f(recorded ? input.clone() : input);
  Tensor t = input;
  return t.copy_(r);
}

}  // namespace locus::nn::detail
