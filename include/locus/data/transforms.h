#pragma once
// Transforms, as libtorch's data::transforms. A BatchTransform maps a whole batch; a Transform
// maps each example of a std::vector batch; a TensorTransform maps each example's data tensor.
//   dataset.map(transforms::Normalize<>(0.2860, 0.3530)).map(transforms::Stack<>())
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "locus/data/example.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"

namespace locus::data::transforms {

template <typename Input, typename Output = Input>
class BatchTransform {
 public:
  using InputBatchType = Input;
  using OutputBatchType = Output;
  virtual ~BatchTransform() = default;
  virtual Output apply_batch(Input input_batch) = 0;
};

template <typename Input, typename Output = Input>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;
  virtual Output apply(Input input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> out;
    out.reserve(input_batch.size());
    for (auto& x : input_batch) out.push_back(apply(std::move(x)));
    return out;
  }
};

/// A function applied to each example.
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function) : function_(std::move(function)) {}
  Output apply(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// A function applied to each whole batch.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using FunctionType = std::function<Output(Input)>;
  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}
  Output apply_batch(Input input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// Maps the data tensor of each example, leaving its target alone.
template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  virtual Tensor operator()(Tensor input) = 0;
  E apply(E input) override { return E((*this)(std::move(input.data)), std::move(input.target)); }
};

/// A function applied to each example's data tensor.
template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;
  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// (x - mean) / stddev per channel: one value for all channels or one per channel (dimension -3).
template <typename Target = Tensor>
class Normalize : public TensorTransform<Target> {
 public:
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  Normalize(std::vector<double> mean, std::vector<double> stddev) {
    LOCUS_CHECK(!mean.empty() && mean.size() == stddev.size(),
                "[Normalize] mean and stddev must be non-empty and of one length: got " +
                    std::to_string(mean.size()) + " and " + std::to_string(stddev.size()) + ".");
    std::vector<double> scale(mean.size()), shift(mean.size());
    for (size_t i = 0; i < mean.size(); ++i) {
      LOCUS_CHECK(stddev[i] > 0, "[Normalize] stddev must be positive: got " + std::to_string(stddev[i]) + ".");
      scale[i] = 1.0 / stddev[i];
      shift[i] = -mean[i] / stddev[i];
      // x * 1 + -0.0 is x for every float x (-0.0 and NaN included); a mean of -0.0 would make +0.0
      identity_ = identity_ && stddev[i] == 1.0 && mean[i] == 0.0 && !std::signbit(mean[i]);
    }
    int64_t c = static_cast<int64_t>(mean.size());
    this->mean = locus::tensor(mean, locus::kFloat).reshape({c, 1, 1});
    this->stddev = locus::tensor(stddev, locus::kFloat).reshape({c, 1, 1});
    scale_ = locus::tensor(scale, locus::kFloat).reshape({c, 1, 1});
    shift_ = locus::tensor(shift, locus::kFloat).reshape({c, 1, 1});
  }
  /// x * (1 / stddev) + (-mean / stddev), on the input's device.
  Tensor operator()(Tensor input) override {
    if (input.device() == scale_.device()) return input.mul(scale_).add_(shift_);
    return input.mul(scale_.to(input.device())).add_(shift_.to(input.device()));
  }
  /// Whether every channel's mean is 0 and stddev 1: then operator() gives its input's values.
  bool is_identity() const { return identity_; }
  Tensor mean, stddev;

 private:
  Tensor scale_, shift_;
  bool identity_ = true;
};

/// A transform that collates a std::vector of examples into one (libtorch's Collation), and one
/// built from a function (libtorch's Collate):
///   dataset.map(transforms::Collate<Example<>>([](std::vector<Example<>> v) { ... }))
template <typename T = Example<>>
using Collation = BatchTransform<std::vector<T>, T>;
template <typename T = Example<>>
using Collate = BatchLambda<std::vector<T>, T>;

/// Collates a std::vector of examples into one example by stacking (dimension 0).
template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& e : examples) {
      data.push_back(std::move(e.data));
      targets.push_back(std::move(e.target));
    }
    return {locus::stack(data), locus::stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public BatchTransform<std::vector<TensorExample>, TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& e : examples) data.push_back(std::move(e.data));
    return locus::stack(data);
  }
};

}  // namespace locus::data::transforms
