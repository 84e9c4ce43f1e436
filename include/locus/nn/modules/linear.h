#pragma once
// Linear, Bilinear, Flatten, Unflatten, Embedding, EmbeddingBag.
#include <optional>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_layers.h"
#include "locus/nn/module.h"

namespace locus::nn {

/// Where and in which dtype a layer makes its parameters (a locus extension to libtorch's
/// options): unset means the default device (DefaultDeviceGuard) and float32.
#define LOCUS_PLACEMENT_ARGS                                \
  LOCUS_ARG(std::optional<Device>, device) = std::nullopt; \
  LOCUS_ARG(std::optional<ScalarType>, dtype) = std::nullopt

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  LOCUS_ARG(int64_t, in_features);
  LOCUS_ARG(int64_t, out_features);
  LOCUS_ARG(bool, bias) = true;
  LOCUS_PLACEMENT_ARGS;
};

/// y = x W^T + b; weight [out, in] and bias [out] drawn Kaiming-uniform on the target device.
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  std::string brief() const override;
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(Linear);

struct FlattenOptions {
  LOCUS_ARG(int64_t, start_dim) = 1;
  LOCUS_ARG(int64_t, end_dim) = -1;
};

class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }
  FlattenOptions options;
};
LOCUS_MODULE(Flatten);

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  LOCUS_ARG(int64_t, dim);
  LOCUS_ARG(std::vector<int64_t>, sizes);
};

/// Flatten's inverse: dim becomes `sizes` (one may be -1), as Tensor::unflatten.
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : options(dim, std::move(sizes)) {}
  explicit UnflattenImpl(const UnflattenOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }
  UnflattenOptions options;
};
LOCUS_MODULE(Unflatten);

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  LOCUS_ARG(int64_t, num_embeddings);
  LOCUS_ARG(int64_t, embedding_dim);
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Each looked-up row whose norm_type-norm exceeds max_norm is rescaled, in the weight itself (in place,
  /// without gradient), to norm max_norm before the lookup (PyTorch's embedding_renorm_).
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
  /// Each row's gradient is divided by how often its index occurs in the mini-batch.
  LOCUS_ARG(bool, scale_grad_by_freq) = false;
  /// Sparse gradients: not supported (locus's gradients are dense); true is refused at forward.
  LOCUS_ARG(bool, sparse) = false;
  /// A given table [num_embeddings, embedding_dim] used as the weight instead of a drawn one (libtorch's).
  LOCUS_ARG(Tensor, _weight) = Tensor();
  LOCUS_PLACEMENT_ARGS;
};

/// Embedding::from_pretrained's options (libtorch's): freeze (the table gets no gradient) and padding_idx.
struct EmbeddingFromPretrainedOptions {
  LOCUS_ARG(bool, freeze) = true;
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
  LOCUS_ARG(bool, scale_grad_by_freq) = false;
  LOCUS_ARG(bool, sparse) = false;
};

/// A lookup table [num_embeddings, embedding_dim], initialised N(0, 1); the row at padding_idx is zero.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& indices);
  EmbeddingOptions options;
  Tensor weight;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// An Embedding whose weight is `embeddings` [num_embeddings, embedding_dim] itself (shared, as
  /// PyTorch's), on its device; frozen (requires_grad false) unless options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  LOCUS_ARG(int64_t, in1_features);
  LOCUS_ARG(int64_t, in2_features);
  LOCUS_ARG(int64_t, out_features);
  LOCUS_ARG(bool, bias) = true;
  LOCUS_PLACEMENT_ARGS;
};

/// y = x1^T A x2 + b (functional::bilinear): weight [out, in1, in2] and bias [out], uniform in
/// +-1/sqrt(in1_features) as PyTorch.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  BilinearOptions options;
  Tensor weight;
  Tensor bias;
};
LOCUS_MODULE(Bilinear);

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  LOCUS_ARG(int64_t, num_embeddings);
  LOCUS_ARG(int64_t, embedding_dim);
  LOCUS_ARG(functional::EmbeddingBagMode, mode) = kMean;
  LOCUS_ARG(bool, include_last_offset) = false;
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Each looked-up row whose norm_type-norm exceeds max_norm is rescaled, in the weight itself (in place,
  /// without gradient), to norm max_norm before the lookup (PyTorch's embedding_renorm_).
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
  /// A table [num_embeddings, embedding_dim] to use as the weight instead of a drawn one.
  LOCUS_ARG(Tensor, _weight) = Tensor();
  LOCUS_PLACEMENT_ARGS;
};

/// EmbeddingBag::from_pretrained's options (libtorch's).
struct EmbeddingBagFromPretrainedOptions {
  LOCUS_ARG(bool, freeze) = true;
  LOCUS_ARG(std::optional<double>, max_norm) = std::nullopt;
  LOCUS_ARG(double, norm_type) = 2.;
  LOCUS_ARG(functional::EmbeddingBagMode, mode) = kMean;
  LOCUS_ARG(bool, include_last_offset) = false;
  LOCUS_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Sums, means or maxima of embedding rows per bag (functional::embedding_bag); weight drawn
/// from N(0, 1), the padding row zeroed.
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  /// input 1-D with offsets, or 2-D [B, L] (B bags of L).
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  EmbeddingBagOptions options;
  Tensor weight;
};
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// An EmbeddingBag whose weight is `embeddings` [num_embeddings, embedding_dim] itself (shared,
  /// as PyTorch's), on its device; frozen (requires_grad false) unless options.freeze(false).
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace locus::nn
