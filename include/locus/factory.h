#pragma once
// Factories. Each allocates and fills directly on the target device (no host staging; random
// numbers are generated there). A device left unnamed is the default device (guard.h).
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include "locus/options.h"
#include "locus/scalar.h"
#include "locus/small_vector.h"
#include "locus/tensor.h"

namespace locus {

Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
/// dtype defaults to the value's: float32 for a floating value, int64 for an integer, bool.
Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
/// A 0-dim tensor holding `value`, of the default dtype (float32) unless options name one, as
/// libtorch's scalar_tensor (scalar_tensor(3) is float, where full({}, 3) is int64).
inline Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {}) {
  return full({}, value, options.dtype(options.dtype()));
}
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
/// Uniform on [0, 1).
Tensor rand(IntArrayRef sizes, const TensorOptions& options = {});
/// Standard normal.
Tensor randn(IntArrayRef sizes, const TensorOptions& options = {});
/// Integers in [low, high); int64 unless a dtype is named.
Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
/// A random permutation of 0..n-1 (int64).
Tensor randperm(int64_t n, const TensorOptions& options = {});
/// The same draws from a Generator (locus/generator.h) instead of the default stream, as
/// libtorch's torch::rand(size, generator, options); std::nullopt means the default stream.
Tensor rand(IntArrayRef sizes, std::optional<Generator> generator, const TensorOptions& options = {});
Tensor randn(IntArrayRef sizes, std::optional<Generator> generator, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef sizes, std::optional<Generator> generator, const TensorOptions& options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, std::optional<Generator> generator,
               const TensorOptions& options = {});
Tensor randperm(int64_t n, std::optional<Generator> generator, const TensorOptions& options = {});

Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options = {});
/// Normal draws (libtorch's torch::normal): numbers, or tensors broadcast together, for mean and std.
/// Each takes an optional Generator, as libtorch's.
Tensor normal(double mean, double std, IntArrayRef size, const TensorOptions& options = {});
Tensor normal(double mean, double std, IntArrayRef size, std::optional<Generator> generator,
              const TensorOptions& options = {});
Tensor normal(const Tensor& mean, double std = 1, std::optional<Generator> generator = std::nullopt);
Tensor normal(double mean, const Tensor& std, std::optional<Generator> generator = std::nullopt);
Tensor normal(const Tensor& mean, const Tensor& std, std::optional<Generator> generator = std::nullopt);
/// torch::bernoulli(p) / (self, p), torch::multinomial, torch::poisson (counts drawn with the given
/// rates, on the host and copied back), torch::isclose: as the Tensor methods.
Tensor bernoulli(const Tensor& p, std::optional<Generator> generator = std::nullopt);
Tensor bernoulli(const Tensor& self, double p, std::optional<Generator> generator = std::nullopt);
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false,
                   std::optional<Generator> generator = std::nullopt);
Tensor poisson(const Tensor& rates, std::optional<Generator> generator = std::nullopt);
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {});

// ---- shape batch (stop 45) ---------------------------------------------------------------------
/// Integers in [0, high) of t's shape.
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {});
/// base ** linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
/// The [2, N] (row, col) indices of the lower / upper triangle of a row x col matrix (element
/// [i, j] with j - i <= offset, or >= offset), row by row; int64 unless options name a dtype.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = kLong);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, const TensorOptions& options = kLong);

/// Nested initializer lists of numbers, as locus::tensor({{1, 2}, {3, 4}}). Integers make
/// int64 (int8_t and int16_t values int8 and int16), floating values float32 (the default dtype),
/// bools make bool, unless options name one.
class TensorDataContainer {
 public:
  TensorDataContainer(double v) : kind_(Kind::Float), scalar_(v) {}
  TensorDataContainer(float v) : kind_(Kind::Float), scalar_(static_cast<double>(v)) {}
  TensorDataContainer(int v) : kind_(Kind::Int), scalar_(static_cast<double>(v)) {}
  TensorDataContainer(int64_t v) : kind_(Kind::Int), scalar_(static_cast<double>(v)), ival_(v), has_ival_(true) {}
  // int8/int16 values make int8/int16 tensors, as in libtorch
  TensorDataContainer(int8_t v) : kind_(Kind::Int), scalar_(v), ival_(v), has_ival_(true), int_dtype_(kChar) {}
  TensorDataContainer(int16_t v) : kind_(Kind::Int), scalar_(v), ival_(v), has_ival_(true), int_dtype_(kShort) {}
  TensorDataContainer(bool v) : kind_(Kind::Bool), scalar_(v ? 1.0 : 0.0) {}
  TensorDataContainer(std::initializer_list<TensorDataContainer> l);
  template <typename T>
  TensorDataContainer(const std::vector<T>& v) : TensorDataContainer(from_vector(v)) {}

  enum class Kind { Int, Float, Bool, List };
  Kind kind() const { return kind_; }
  /// Shape of the nested lists (throws for ragged lists).
  std::vector<int64_t> sizes() const;
  /// The inferred dtype (bool < int64 < float).
  ScalarType scalar_type() const;
  /// Flattens into doubles / int64s in row-major order.
  void flatten(std::vector<double>& out_d, std::vector<int64_t>& out_i) const;

 private:
  template <typename T>
  static TensorDataContainer from_vector(const std::vector<T>& v) {
    TensorDataContainer c(0.0);
    c.kind_ = Kind::List;
    for (const T& x : v) c.list_.emplace_back(x);
    return c;
  }
  Kind kind_;
  double scalar_ = 0;
  int64_t ival_ = 0;
  bool has_ival_ = false;
  ScalarType int_dtype_ = kLong;  // the dtype of a Kind::Int value
  std::vector<TensorDataContainer> list_;
};
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

/// Wraps memory the caller owns (a host pointer on cpu) without copying. The optional deleter
/// runs when the last tensor using it goes away.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {});

}  // namespace locus
