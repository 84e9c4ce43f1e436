#pragma once
// BatchNorm1d/2d/3d (running statistics as buffers), LayerNorm, InstanceNorm1d/2d/3d, GroupNorm and
// LocalResponseNorm.
#include <optional>
#include <vector>

#include "locus/nn/cloneable.h"
#include "locus/nn/functional.h"
#include "locus/nn/functional_layers.h"
#include "locus/nn/module.h"
#include "locus/nn/modules/linear.h"

namespace locus::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  LOCUS_ARG(int64_t, num_features);
  LOCUS_ARG(double, eps) = 1e-5;
  /// nullopt: a cumulative moving average (momentum 1/num_batches_tracked), as PyTorch's None.
  LOCUS_ARG(std::optional<double>, momentum) = 0.1;
  LOCUS_ARG(bool, affine) = true;
  LOCUS_ARG(bool, track_running_stats) = true;
  LOCUS_PLACEMENT_ARGS;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// Normalises over every dim but 1 with batch statistics in train(), running ones in eval().
/// Buffers: running_mean, running_var, num_batches_tracked (int64).
class BatchNormImplBase : public Module {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options, int64_t expected_dim, const char* kind);
  /// Registers the parameters and buffers (what Cloneable's reset() does for BatchNorm1d/2d).
  void reset();
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  int64_t expected_dim_;
  const char* kind_;
};

class BatchNorm1dImpl : public Cloneable<BatchNorm1dImpl, BatchNormImplBase> {
 public:
  BatchNorm1dImpl(int64_t num_features) : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm1dImpl(const BatchNormOptions& options) : Cloneable(options, 1, "BatchNorm1d") {}
  void reset() override { BatchNormImplBase::reset(); }
};
LOCUS_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public Cloneable<BatchNorm2dImpl, BatchNormImplBase> {
 public:
  BatchNorm2dImpl(int64_t num_features) : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm2dImpl(const BatchNormOptions& options) : Cloneable(options, 2, "BatchNorm2d") {}
  void reset() override { BatchNormImplBase::reset(); }
};
LOCUS_MODULE(BatchNorm2d);

class BatchNorm3dImpl : public Cloneable<BatchNorm3dImpl, BatchNormImplBase> {
 public:
  BatchNorm3dImpl(int64_t num_features) : BatchNorm3dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm3dImpl(const BatchNormOptions& options) : Cloneable(options, 3, "BatchNorm3d") {}
  void reset() override { BatchNormImplBase::reset(); }
};
LOCUS_MODULE(BatchNorm3d);

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  LOCUS_ARG(std::vector<int64_t>, normalized_shape);
  LOCUS_ARG(double, eps) = 1e-5;
  LOCUS_ARG(bool, elementwise_affine) = true;
  LOCUS_PLACEMENT_ARGS;
};
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape) : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LayerNormOptions options;
  Tensor weight, bias;
};
LOCUS_MODULE(LayerNorm);

struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  LOCUS_ARG(int64_t, num_features);
  LOCUS_ARG(double, eps) = 1e-5;
  LOCUS_ARG(double, momentum) = 0.1;
  LOCUS_ARG(bool, affine) = false;
  LOCUS_ARG(bool, track_running_stats) = false;
  LOCUS_PLACEMENT_ARGS;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// Normalises each image's channel over its positions (functional::instance_norm); with
/// track_running_stats, running statistics as buffers, used in eval().
class InstanceNormImplBase : public Module {
 public:
  explicit InstanceNormImplBase(const InstanceNormOptions& options, int64_t spatial_dims, const char* kind);
  void reset();
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  InstanceNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  int64_t spatial_dims_;
  const char* kind_;
};

class InstanceNorm1dImpl : public Cloneable<InstanceNorm1dImpl, InstanceNormImplBase> {
 public:
  InstanceNorm1dImpl(int64_t num_features) : InstanceNorm1dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm1dImpl(const InstanceNormOptions& options) : Cloneable(options, 1, "InstanceNorm1d") {}
  void reset() override { InstanceNormImplBase::reset(); }
};
LOCUS_MODULE(InstanceNorm1d);

class InstanceNorm2dImpl : public Cloneable<InstanceNorm2dImpl, InstanceNormImplBase> {
 public:
  InstanceNorm2dImpl(int64_t num_features) : InstanceNorm2dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm2dImpl(const InstanceNormOptions& options) : Cloneable(options, 2, "InstanceNorm2d") {}
  void reset() override { InstanceNormImplBase::reset(); }
};
LOCUS_MODULE(InstanceNorm2d);

class InstanceNorm3dImpl : public Cloneable<InstanceNorm3dImpl, InstanceNormImplBase> {
 public:
  InstanceNorm3dImpl(int64_t num_features) : InstanceNorm3dImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNorm3dImpl(const InstanceNormOptions& options) : Cloneable(options, 3, "InstanceNorm3d") {}
  void reset() override { InstanceNormImplBase::reset(); }
};
LOCUS_MODULE(InstanceNorm3d);

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  LOCUS_ARG(int64_t, num_groups);
  LOCUS_ARG(int64_t, num_channels);
  LOCUS_ARG(double, eps) = 1e-5;
  LOCUS_ARG(bool, affine) = true;
  LOCUS_PLACEMENT_ARGS;
};
/// Group normalisation (functional::group_norm): weight (ones) and bias (zeros) per channel when
/// affine.
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GroupNormOptions options;
  Tensor weight, bias;
};
LOCUS_MODULE(GroupNorm);

using LocalResponseNormOptions = functional::LocalResponseNormFuncOptions;
/// Normalises each element by its neighbours across channels (functional::local_response_norm).
class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : options(size) {}
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::local_response_norm(input, options); }
  LocalResponseNormOptions options;
};
LOCUS_MODULE(LocalResponseNorm);

}  // namespace locus::nn
