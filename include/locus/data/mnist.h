#pragma once
// MNIST and Fashion-MNIST in IDX format, as libtorch's data::datasets::MNIST: images float32
// [N, 1, 28, 28] scaled to [0, 1], targets int64 [N]. Each file may be plain or gzip-compressed
// (train-images-idx3-ubyte or train-images-idx3-ubyte.gz, ...). A missing, corrupt or truncated
// file throws locus::Error naming the file and what is wrong.
#include <memory>
#include <string>
#include <vector>

#include "locus/data/dataset.h"
#include "locus/data/transforms.h"

namespace locus::data::datasets {

/// Where Debian's dataset-fashion-mnist package installs Fashion-MNIST.
inline constexpr const char* kFashionMNISTRoot = "/usr/share/datasets/fashion-mnist";

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };
  /// Reads the train (60,000) or test (10,000) split from `root`.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  /// Reads Fashion-MNIST from kFashionMNISTRoot (our extension).
  explicit MNIST(Mode mode = Mode::kTrain) : MNIST(kFashionMNISTRoot, mode) {}

  /// Image `index` (a view of images()) and its label.
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return train_; }
  /// Images `indices` as one tensor [B, 1, 28, 28] and their labels [B] (our extension: the batch
  /// get() and Stack would give, in one gather).
  Example<> gather(const std::vector<size_t>& indices) const;
  /// All images, float32 [N, 1, 28, 28] (made from the file's bytes on the first call to this or
  /// get(): the batched loader never needs them, and gathers from the bytes).
  const Tensor& images() const;
  const Tensor& targets() const { return targets_; }

 private:
  struct FloatImages;
  Tensor bytes_, targets_;  // bytes_: uint8 [N, 28, 28], as in the file
  std::shared_ptr<FloatImages> images_;  // shared by copies (map() copies the dataset)
  bool train_;
};

/// The loader's usual pipeline, mnist.map(Normalize).map(Stack), batched: one gather and one
/// normalisation per batch instead of one per example, with the same values; none where the
/// normalisation is the identity (mean 0, stddev 1: the gathered batch is a fresh tensor already).
/// (An explicit specialisation of MapDataset::get_batch; declared here, with MNIST, so every use
/// sees it.)
template <>
inline Example<> MapDataset<MapDataset<MNIST, transforms::Normalize<>>, transforms::Stack<>>::get_batch(
    std::vector<size_t> request) {
  Example<> batch = dataset().dataset().gather(request);
  transforms::Normalize<> normalize = dataset().transform();  // shares its tensors; operator() is not const
  if (normalize.is_identity()) return batch;
  return {normalize(std::move(batch.data)), std::move(batch.target)};
}

}  // namespace locus::data::datasets
