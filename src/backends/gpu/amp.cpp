// GradScaler's fused pass (amp.cl) for every GPU runtime: the gradients of one dtype on one
// device unscaled and checked for inf/NaN by one launch per 16 tensors (PyTorch's
// multi_tensor_apply does the same with chunks of up to 110 tensors per launch).
#include <algorithm>

#include "backends/gpu/gpu_backend.h"
#include "locus/error.h"

namespace locus::gpu {

namespace {
constexpr int kAmpMaxTensors = 16;  // amp.cl: AMP_MAX_TENSORS
struct AmpTable {                   // amp.cl: AmpTable
  int64_t off[kAmpMaxTensors];
  int64_t end[kAmpMaxTensors];
};
}  // namespace

bool GpuBackend::non_finite_check_and_unscale(int index, StreamHandle s, ScalarType dtype, const Buffer* tensors,
                                              const int64_t* numels, int count, float inv_scale, Buffer found_inf) {
  if (dtype == kDouble && !caps(index).fp64) return false;
  for (int first = 0; first < count; first += kAmpMaxTensors) {
    int n = std::min(kAmpMaxTensors, count - first);
    AmpTable t{};
    Launch l(*this, index, s, kernel(index, "amp.cl", dtype, "amp_unscale", ""));
    int64_t total = 0;
    for (int k = 0; k < kAmpMaxTensors; ++k) {
      // unused slots repeat the last tensor's buffer with an empty range: never read
      const Buffer& b = tensors[first + std::min(k, n - 1)];
      l.arg(b.base);
      t.off[k] = static_cast<int64_t>(b.offset);
      if (k < n) total += numels[first + k];
      t.end[k] = total;
    }
    l.arg(t).arg(static_cast<int32_t>(n)).arg(inv_scale).buf(found_inf).run1d(total);
  }
  return true;
}

}  // namespace locus::gpu
