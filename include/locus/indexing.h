#pragma once
// Tensor indexing as libtorch's at::indexing: the C++ spelling of Python's x[...].
//
//   using namespace torch::indexing;
//   x.index({Slice(0, 2), 1})              // x[0:2, 1]          a view
//   x.index({"...", None})                 // x[..., None]       a view
//   x.index({Slice(None, None, 2)})        // x[::2]             a view
//   x.index({mask})                        // x[mask]            a copy (bool tensor)
//   x.index({idx, Slice()})                // x[idx, :]          a copy (integer tensor)
//   x.index_put_({mask}, 0)                // x[mask] = 0
//   x.index_put_({Slice(), 0}, row)        // x[:, 0] = row
//
// Integers, slices, None, Ellipsis and bools give views (autograd flows through them); integer
// and bool tensors ("advanced indexing", Python's rules: index tensors broadcast together; their
// dims replace the indexed dims in place when those are adjacent, else go first) give a copy
// made by index_select, so gradients flow to the source. Bool masks are turned into positions
// on the host (nonzero), so a mask on a device costs one read of the mask. Index tensors may be
// on cpu or on the indexed tensor's device. Out-of-range integers and too many indices are
// locus::Errors naming the dimension, its size and the index.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "locus/tensor.h"

namespace locus::indexing {

/// Python's `...`: as many full slices as the other indices leave dims. Also spelled "...".
struct EllipsisIndexType {
  EllipsisIndexType() = default;
};
inline const EllipsisIndexType Ellipsis;
/// Python's None in an index: a new dim of size 1.
inline constexpr std::nullopt_t None = std::nullopt;

/// Python's start:stop:step. Open ends are None (std::nullopt); negative start and stop count
/// from the end; step must be positive (as in PyTorch).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

/// One entry of an index list: None, Ellipsis ("..."), an integer, a bool, a Slice or a Tensor.
class TensorIndex {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}
  /// Only "..." is accepted (anything else is a locus::Error).
  TensorIndex(const char* ellipsis);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T integer) : type_(TensorIndexType::Integer), integer_(static_cast<int64_t>(integer)) {}
  TensorIndex(bool boolean) : type_(TensorIndexType::Boolean), boolean_(boolean) {}
  TensorIndex(Slice slice) : type_(TensorIndexType::Slice), slice_(slice) {}
  TensorIndex(Tensor tensor) : type_(TensorIndexType::Tensor), tensor_(std::move(tensor)) {}

  TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  TensorIndexType type_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

/// libtorch's spelling: None, ..., 3, true, 0:2:1 (an open stop as INT64_MAX), a tensor as itself
std::ostream& operator<<(std::ostream& os, const TensorIndex& index);
std::ostream& operator<<(std::ostream& os, const Slice& slice);
/// an index list as libtorch prints it: (0, 0:9223372036854775807:1)
std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices);

}  // namespace locus::indexing
