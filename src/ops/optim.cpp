// Fused optimizer steps: one backend call per parameter when the backend has the kernel.
#include <vector>

#include "ops/checks.h"
#include "ops/internal.h"

namespace locus::ops {

bool fused_adam_step(Tensor& p, const Tensor& g, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor* max_sq,
                     const backend::Backend::Adam& a) {
  std::vector<const Tensor*> all = {&p, &g, &exp_avg, &exp_avg_sq};
  if (max_sq != nullptr) all.push_back(max_sq);
  for (const Tensor* t : all)
    if (!t->is_contiguous() || t->scalar_type() != p.scalar_type() || t->device() != p.device() ||
        t->numel() != p.numel())
      return false;
  if (p.numel() == 0) return true;
  Device d = p.device();
  return backend_for(d).adam_step(device_index(d), current_stream(d), p.scalar_type(), ref(p, "adam").buf,
                                  ref(g, "adam").buf, ref(exp_avg, "adam").buf, ref(exp_avg_sq, "adam").buf,
                                  max_sq != nullptr ? ref(*max_sq, "adam").buf : backend::Buffer{}, p.numel(), a);
}

}  // namespace locus::ops
