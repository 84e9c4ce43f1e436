#pragma once
// IntArrayRef (a non-owning view of int64s, built from {..} or a vector) and SmallVector (inline
// storage for the common case of few dimensions, heap beyond).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <vector>

namespace locus {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t* data, size_t n) : data_(data), size_(n) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // As libtorch's IntArrayRef: valid for the full expression that built the braced list.
  IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  IntArrayRef(const int64_t& single) : data_(&single), size_(1) {}
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t front() const { return data_[0]; }
  int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  bool equals(IntArrayRef o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  bool operator==(IntArrayRef o) const { return equals(o); }
  bool operator!=(IntArrayRef o) const { return !equals(o); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

std::ostream& operator<<(std::ostream& os, IntArrayRef a);

/// Vector of int64 with N elements inline.
template <size_t N = 6>
class SmallVector {
 public:
  SmallVector() = default;
  SmallVector(IntArrayRef a) { assign(a.data(), a.size()); }
  SmallVector(std::initializer_list<int64_t> l) { assign(l.begin(), l.size()); }
  explicit SmallVector(size_t n, int64_t v = 0) { resize(n, v); }
  SmallVector(const SmallVector& o) { assign(o.data(), o.size()); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  SmallVector(SmallVector&& o) noexcept { move_from(o); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) { release(); move_from(o); }
    return *this;
  }
  ~SmallVector() { release(); }

  int64_t* data() { return heap_ ? heap_ : inline_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t& back() { return data()[size_ - 1]; }
  operator IntArrayRef() const { return IntArrayRef(data(), size_); }
  IntArrayRef ref() const { return IntArrayRef(data(), size_); }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

  void reserve(size_t n) {
    if (n <= capacity()) return;
    int64_t* p = new int64_t[n];
    std::memcpy(p, data(), size_ * sizeof(int64_t));
    delete[] heap_;
    heap_ = p;
    cap_ = n;
  }
  void resize(size_t n, int64_t v = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = v;
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == capacity()) reserve(capacity() * 2);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    push_back(0);
    for (size_t i = size_ - 1; i > pos; --i) data()[i] = data()[i - 1];
    data()[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data()[i] = data()[i + 1];
    --size_;
  }
  void clear() { size_ = 0; }
  bool operator==(const SmallVector& o) const { return ref() == o.ref(); }
  bool operator!=(const SmallVector& o) const { return !(*this == o); }

 private:
  size_t capacity() const { return heap_ ? cap_ : N; }
  void assign(const int64_t* p, size_t n) {
    size_ = 0;
    reserve(n);
    // an empty IntArrayRef (a 0-d tensor's sizes {}) may carry a null pointer: memmove's
    // arguments must not be null even for 0 bytes (UBSan, nonnull-attribute)
    if (n != 0) std::memmove(data(), p, n * sizeof(int64_t));
    size_ = n;
  }
  void release() { delete[] heap_; heap_ = nullptr; cap_ = 0; size_ = 0; }
  void move_from(SmallVector& o) {
    if (o.heap_) { heap_ = o.heap_; cap_ = o.cap_; o.heap_ = nullptr; o.cap_ = 0; }
    else std::memcpy(inline_, o.inline_, o.size_ * sizeof(int64_t));
    size_ = o.size_;
    o.size_ = 0;
  }
  int64_t inline_[N];
  int64_t* heap_ = nullptr;
  size_t cap_ = 0;
  size_t size_ = 0;
};

using DimVector = SmallVector<6>;

}  // namespace locus
