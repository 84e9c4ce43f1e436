#pragma once
// Unfold and Fold: sliding blocks as columns and back (functional::unfold / fold), as libtorch's.
#include "locus/nn/cloneable.h"
#include "locus/nn/functional_layers.h"
#include "locus/nn/module.h"

namespace locus::nn {

using UnfoldOptions = functional::UnfoldFuncOptions;
/// [N, C, H, W] -> [N, C * kh * kw, L], L the number of blocks.
class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : options(kernel_size) {}
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  UnfoldOptions options;
};
LOCUS_MODULE(Unfold);

using FoldOptions = functional::FoldFuncOptions;
/// [N, C * kh * kw, L] -> [N, C, output_size], overlapping blocks summed.
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size) : options(output_size, kernel_size) {}
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  FoldOptions options;
};
LOCUS_MODULE(Fold);

}  // namespace locus::nn
