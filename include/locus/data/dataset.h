#pragma once
// Datasets as libtorch spells them: a BatchDataset answers get_batch(indices); a Dataset answers
// get(index) and batches by calling it; map(transform) wraps a dataset in a MapDataset.
// As in libtorch, loader workers share one dataset and call get_batch concurrently: it must not
// modify shared state.
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "locus/data/example.h"

namespace locus::data {
namespace datasets {

template <typename Source, typename Transform>
class MapDataset;

template <typename Self, typename Batch, typename BatchRequest = std::vector<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
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

/// `source` with `transform.apply_batch` applied to each batch.
template <typename Source, typename Transform>
class MapDataset
    : public BatchDataset<MapDataset<Source, Transform>, typename Transform::OutputBatchType,
                          typename Source::BatchRequestType> {
 public:
  using SourceType = Source;
  using TransformType = Transform;
  using BatchType = typename Transform::OutputBatchType;
  using BatchRequestType = typename Source::BatchRequestType;

  MapDataset(Source source, Transform transform)
      : source_(std::move(source)), transform_(std::move(transform)) {}
  BatchType get_batch(BatchRequestType request) override {
    return transform_.apply_batch(source_.get_batch(std::move(request)));
  }
  std::optional<size_t> size() const override { return source_.size(); }
  Source& dataset() noexcept { return source_; }
  const Transform& transform() const noexcept { return transform_; }

 private:
  Source source_;
  Transform transform_;
};

}  // namespace datasets
}  // namespace locus::data
