#pragma once
// Datasets as libtorch spells them: a BatchDataset answers get_batch(indices); a Dataset answers
// get(index) and batches by calling it; map(transform) wraps a dataset in a MapDataset.
// As in libtorch, loader workers share one dataset and call get_batch concurrently: it must not
// modify shared state.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/data/example.h"
#include "locus/error.h"
#include "locus/functions.h"

namespace locus::serialize {
class OutputArchive;
class InputArchive;
}  // namespace locus::serialize

namespace locus::data {
namespace datasets {

template <typename Source, typename Transform>
class MapDataset;

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

template <typename Self, typename Batch, typename BatchRequest = std::vector<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  /// Whether the dataset decides itself what it returns next (a StatefulDataset, or a map of one):
  /// as libtorch, whether its batches are std::optional.
  static constexpr bool is_stateful = detail::is_optional<Batch>::value;
  virtual ~BatchDataset() = default;
  /// The examples at `request` (indices), as one batch.
  virtual Batch get_batch(BatchRequest request) = 0;
  /// Number of examples; std::nullopt for an unbounded dataset.
  virtual std::optional<size_t> size() const = 0;

  /// This dataset with `transform` applied to every batch it returns (copies the dataset).
  template <typename Transform>
  MapDataset<Self, Transform> map(Transform transform) const& {
    return MapDataset<Self, Transform>(static_cast<const Self&>(*this), std::move(transform));
  }
  template <typename Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return MapDataset<Self, Transform>(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A dataset of single examples: implement get(index) and size().
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(std::vector<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

/// `source` with `transform.apply_batch` applied to each batch. Over a stateful source the batches
/// are std::optional (std::nullopt passes through untransformed) and reset() resets the source.
template <typename Source, typename Transform>
class MapDataset
    : public BatchDataset<MapDataset<Source, Transform>,
                          std::conditional_t<Source::is_stateful, std::optional<typename Transform::OutputBatchType>,
                                             typename Transform::OutputBatchType>,
                          typename Source::BatchRequestType> {
 public:
  using SourceType = Source;
  using DatasetType = Source;
  using TransformType = Transform;
  using OutputBatchType = std::conditional_t<Source::is_stateful, std::optional<typename Transform::OutputBatchType>,
                                             typename Transform::OutputBatchType>;
  using BatchType = OutputBatchType;
  using BatchRequestType = typename Source::BatchRequestType;

  MapDataset(Source source, Transform transform)
      : source_(std::move(source)), transform_(std::move(transform)) {}
  BatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      if (auto batch = source_.get_batch(std::move(request))) return transform_.apply_batch(std::move(*batch));
      return std::nullopt;
    } else {
      return transform_.apply_batch(source_.get_batch(std::move(request)));
    }
  }
  std::optional<size_t> size() const override { return source_.size(); }
  /// Resets a stateful source (libtorch's MapDataset::reset).
  void reset()
    requires Source::is_stateful
  {
    source_.reset();
  }
  Source& dataset() noexcept { return source_; }
  const Transform& transform() const noexcept { return transform_; }

 private:
  Source source_;
  Transform transform_;
};

/// A dataset held by a std::shared_ptr, so that copies (a loader's workers) share one instance
/// (libtorch's SharedBatchDataset; make one with make_shared_dataset<D>(args...)). The dataset's
/// get_batch must then be thread-safe when a loader has workers.
template <typename Underlying>
class SharedBatchDataset : public BatchDataset<SharedBatchDataset<Underlying>, typename Underlying::BatchType,
                                               typename Underlying::BatchRequestType> {
 public:
  using BatchType = typename Underlying::BatchType;
  using BatchRequestType = typename Underlying::BatchRequestType;
  /* implicit */ SharedBatchDataset(std::shared_ptr<Underlying> shared_dataset)
      : dataset_(std::move(shared_dataset)) {
    if (!dataset_) throw Error("[SharedBatchDataset] the shared dataset is null.");
  }
  BatchType get_batch(BatchRequestType request) override { return dataset_->get_batch(std::move(request)); }
  std::optional<size_t> size() const override { return dataset_->size(); }
  Underlying& operator*() { return *dataset_; }
  const Underlying& operator*() const { return *dataset_; }
  Underlying* operator->() { return dataset_.get(); }
  const Underlying* operator->() const { return dataset_.get(); }
  void reset()
    requires Underlying::is_stateful
  {
    dataset_->reset();
  }

 private:
  std::shared_ptr<Underlying> dataset_;
};

/// A SharedBatchDataset holding a new Underlying(args...).
template <typename Underlying, typename... Args>
SharedBatchDataset<Underlying> make_shared_dataset(Args&&... args) {
  return std::make_shared<Underlying>(std::forward<Args>(args)...);
}

/// The tensors of `tensor` along dimension 0, each a TensorExample (libtorch's TensorDataset).
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  /// Examples are tensor[0], tensor[1], ...; `tensor` must have at least one dimension.
  explicit TensorDataset(const Tensor& tensor) : tensor(tensor) {
    if (tensor.defined() && tensor.dim() == 0)
      throw Error("[TensorDataset] the tensor must have at least one dimension (examples along dimension 0); "
                  "got a scalar. Use tensor.unsqueeze(0) for a dataset of one example.");
  }
  /// Builds the tensor by stacking `tensors` (libtorch's second constructor).
  explicit TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack_all(tensors)) {}
  TensorExample get(size_t index) override {
    size_t n = *size();
    if (index >= n)
      throw Error("[TensorDataset] index " + std::to_string(index) + " is out of range for a dataset of " +
                  std::to_string(n) + " examples.");
    return tensor[static_cast<int64_t>(index)];
  }
  std::optional<size_t> size() const override {
    return tensor.defined() ? static_cast<size_t>(tensor.size(0)) : size_t{0};
  }
  Tensor tensor;

 private:
  static Tensor stack_all(const std::vector<Tensor>& tensors) { return locus::stack(tensors); }
};

/// A dataset that decides itself which batch comes next (libtorch's StatefulDataset): get_batch
/// receives the batch size and returns std::nullopt when the epoch is over; reset() starts the
/// next epoch. make_data_loader(dataset, options) gives a StatefulDataLoader over it.
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  /// Starts a new epoch.
  virtual void reset() = 0;
  /// Stores the dataset's position (libtorch: pure virtual; here a default that throws).
  virtual void save(serialize::OutputArchive& archive) const {
    (void)archive;
    throw Error("[StatefulDataset] this dataset does not implement save(serialize::OutputArchive&).");
  }
  virtual void load(serialize::InputArchive& archive) {
    (void)archive;
    throw Error("[StatefulDataset] this dataset does not implement load(serialize::InputArchive&).");
  }
};

}  // namespace datasets
// libtorch's torch/data.h names these in torch::data too (torch::data::Dataset<Self>).
using datasets::BatchDataset;
using datasets::Dataset;
}  // namespace locus::data
