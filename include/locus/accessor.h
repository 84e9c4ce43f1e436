#pragma once
// TensorAccessor<T, N>: libtorch's typed, bounds-unchecked view of a host tensor's elements,
// from Tensor::accessor<T, N>():
//
//   auto a = t.accessor<float, 2>();     // t: a cpu float tensor of 2 dims
//   for (int64_t i = 0; i < a.size(0); ++i)
//     for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
//
// It keeps pointers into the tensor's data, sizes and strides: the tensor must outlive it (so
// accessor() on a temporary does not compile, as in libtorch). Any strides work (views).
#include <cstddef>
#include <cstdint>

namespace locus {

template <typename T, size_t N>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  int64_t size(int64_t i) const { return sizes_[i]; }
  int64_t stride(int64_t i) const { return strides_[i]; }
  const int64_t* sizes() const { return sizes_; }
  const int64_t* strides() const { return strides_; }
  T* data() { return data_; }
  const T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

/// a[i] is an accessor of N-1 dims; a[i][j]...[k] (N subscripts) is a T&.
template <typename T, size_t N>
class TensorAccessor : public TensorAccessorBase<T, N> {
 public:
  using TensorAccessorBase<T, N>::TensorAccessorBase;
  TensorAccessor<T, N - 1> operator[](int64_t i) {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
  const TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T, 1> {
 public:
  using TensorAccessorBase<T, 1>::TensorAccessorBase;
  T& operator[](int64_t i) { return this->data_[this->strides_[0] * i]; }
  const T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

}  // namespace locus
