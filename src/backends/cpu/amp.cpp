// GradScaler's fused pass on the cpu: every gradient unscaled in place and checked for inf/NaN in
// one parallel pass over their concatenation (PyTorch's _amp_foreach_non_finite_check_and_unscale_).
#include <algorithm>
#include <atomic>
#include <vector>

#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

template <class T>
void unscale_typed(const Buffer* tensors, const int64_t* numels, int count, float inv_scale, float* found) {
  using C = compute_t<T>;
  std::vector<int64_t> end(static_cast<size_t>(count));
  int64_t total = 0;
  for (int k = 0; k < count; ++k) end[static_cast<size_t>(k)] = total += numels[k];
  std::atomic<bool> any{false};
  const C inv = static_cast<C>(inv_scale);
  parallel_for(0, total, kGrainCheap, [&](int64_t lo, int64_t hi) {
    // the tensor holding element lo, then tensor by tensor to hi
    auto k = static_cast<size_t>(std::upper_bound(end.begin(), end.end(), lo) - end.begin());
    bool bad = false;
    for (int64_t i = lo; i < hi; ++k) {
      int64_t start = k == 0 ? 0 : end[k - 1], stop = std::min(hi, end[k]);
      T* p = data_as<T>(tensors[k]);
      for (int64_t j = i - start, n = stop - start; j < n; ++j) {
        C v = static_cast<C>(p[j]);
        bad |= !std::isfinite(v);
        p[j] = static_cast<T>(v * inv);
      }
      i = stop;
    }
    if (bad) any.store(true, std::memory_order_relaxed);
  });
  if (any.load()) *found = 1.0f;
}

}  // namespace

void non_finite_check_and_unscale(ScalarType dtype, const Buffer* tensors, const int64_t* numels, int count,
                                  float inv_scale, Buffer found_inf) {
  float* found = data_as<float>(found_inf);
  switch (dtype) {
    case kFloat: return unscale_typed<float>(tensors, numels, count, inv_scale, found);
    case kDouble: return unscale_typed<double>(tensors, numels, count, inv_scale, found);
    case kHalf: return unscale_typed<Half>(tensors, numels, count, inv_scale, found);
    case kBFloat16: return unscale_typed<BFloat16>(tensors, numels, count, inv_scale, found);
    default: unsupported("non_finite_check_and_unscale", dtype);
  }
}

}  // namespace locus::cpu
