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

/// libtorch's pointer traits for packed accessors (RestrictPtrTraits marks the data __restrict__).
template <typename T>
struct DefaultPtrTraits {
  using PtrType = T*;
};
template <typename T>
struct RestrictPtrTraits {
  using PtrType = T* __restrict__;
};

/// libtorch's PackedTensorAccessor: as TensorAccessor, but it keeps its own copy of the sizes and
/// strides (as index_t), so it can be passed by value (libtorch hands these to CUDA kernels; here
/// it is host code). From Tensor::packed_accessor32<T, N>() / packed_accessor64<T, N>().
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class GenericPackedTensorAccessor {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  GenericPackedTensorAccessor(PtrType data, const int64_t* sizes, const int64_t* strides) : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = static_cast<index_t>(sizes[i]);
      strides_[i] = static_cast<index_t>(strides[i]);
    }
  }
  index_t size(index_t i) const { return sizes_[i]; }
  index_t stride(index_t i) const { return strides_[i]; }
  PtrType data() { return data_; }
  const T* data() const { return data_; }
  GenericPackedTensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    int64_t sz[N - 1], st[N - 1];
    for (size_t k = 1; k < N; ++k) sz[k - 1] = sizes_[k], st[k - 1] = strides_[k];
    return GenericPackedTensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + strides_[0] * i, sz, st);
  }

 private:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  GenericPackedTensorAccessor(PtrType data, const int64_t* sizes, const int64_t* strides)
      : data_(data), size_(static_cast<index_t>(sizes[0])), stride_(static_cast<index_t>(strides[0])) {}
  index_t size(index_t) const { return size_; }
  index_t stride(index_t) const { return stride_; }
  PtrType data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](index_t i) const { return data_[stride_ * i]; }

 private:
  PtrType data_;
  index_t size_, stride_;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

}  // namespace locus
