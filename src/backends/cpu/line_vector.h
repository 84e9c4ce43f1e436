#pragma once
// LineVector<T>: a std::vector whose data starts on a cache-line (64-byte) boundary, for the
// kernels' scratch buffers (packed panels, Winograd planes, transposed gradients, shifted copies).
// std::vector's memory is only 16-byte aligned (a large block is a mapping plus malloc's 16-byte
// header), so every 64-byte vector load or store a kernel makes at a row start that is a whole
// number of lines in crosses two cache lines. Measured on an Intel Xeon (Sapphire Rapids class;
// docs/benchmarks.md, stop 57) once the scratch was line aligned: the side-by-side convolutions'
// forward + backward rows 0.81-0.90x the time, linear_4096_b64_f 0.90x, the CNN training step
// 0.92x. Tensors are already aligned by the allocator (memory/cpu_allocator.cpp).
#include <cstddef>
#include <new>
#include <vector>

namespace locus::cpu {

template <class T>
struct LineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlign); }
  template <class U>
  bool operator==(const LineAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LineVector = std::vector<T, LineAllocator<T>>;

}  // namespace locus::cpu
