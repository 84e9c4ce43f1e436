// Fused optimizer steps: one backend call per parameter when the backend has the kernel.
#include <utility>

#include "core/tensor_impl.h"
#include "autograd/record.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus::ops {

namespace {
bool fused_adam_fits(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor* max_sq) {
  for (const Tensor* t : {&p, &g, &exp_avg, &exp_avg_sq, max_sq})
    if (t != nullptr && (!t->is_contiguous() || t->scalar_type() != p.scalar_type() || t->device() != p.device() ||
                         t->numel() != p.numel()))
      return false;
  return true;
}

// dense over its whole storage, which an allocator owns
bool whole_storage(const TensorImpl* t) {
  const Storage* s = t->storage.get();
  return s != nullptr && s->allocator != nullptr && t->contiguous && t->offset == 0 &&
         s->nbytes == static_cast<size_t>(t->numel) * element_size(t->dtype) &&
         s->pending.load(std::memory_order_acquire) == nullptr;
}
}  // namespace

bool fused_adam_in_place(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                         const Tensor* max_sq) {
  return fused_adam_fits(p, g, exp_avg, exp_avg_sq, max_sq) &&
         backend_for(p.device()).adam_step_in_place(p.scalar_type());
}

void commit_into(Tensor& dst, Tensor& fresh) {
  TensorImpl* a = dst.unsafeGetTensorImpl();
  TensorImpl* b = fresh.unsafeGetTensorImpl();
  if (a->storage != b->storage && whole_storage(a) && whole_storage(b) && a->dtype == b->dtype &&
      a->device == b->device && a->storage->allocator == b->storage->allocator &&
      a->storage->nbytes == b->storage->nbytes) {
    std::swap(a->storage->alloc, b->storage->alloc);
    autograd::bump_version(dst);
    return;
  }
  dst.copy_(fresh);
}

bool fused_adam_step(Tensor& p, const Tensor& g, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor* max_sq,
                     const backend::Backend::Adam& a) {
  if (!fused_adam_fits(p, g, exp_avg, exp_avg_sq, max_sq)) return false;
  if (p.numel() == 0) return true;
  Device d = p.device();
  autograd::bump_version(p);
  return backend_for(d).adam_step(device_index(d), current_stream(d), p.scalar_type(), ref(p, "adam").buf,
                                  ref(g, "adam").buf, ref(exp_avg, "adam").buf, ref(exp_avg_sq, "adam").buf,
                                  max_sq != nullptr ? ref(*max_sq, "adam").buf : backend::Buffer{}, p.numel(), a);
}

bool fused_adam_into(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                     const Tensor* max_sq, Tensor& new_p, Tensor& new_m, Tensor& new_v, Tensor* new_max,
                     const backend::Backend::Adam& a) {
  if (!fused_adam_fits(p, g, exp_avg, exp_avg_sq, max_sq)) return false;
  Device d = p.device();
  auto fresh = [&] { return locus::detail::make_empty(p.sizes(), p.scalar_type(), d); };
  Tensor np = fresh(), nm = fresh(), nv = fresh(), nx = max_sq != nullptr ? fresh() : Tensor();
  backend::Backend::AdamBuffers out{ref(np, "adam").buf, ref(nm, "adam").buf, ref(nv, "adam").buf,
                                    nx.defined() ? ref(nx, "adam").buf : backend::Buffer{}};
  backend::Backend::AdamBuffers in{ref(p, "adam").buf, ref(exp_avg, "adam").buf, ref(exp_avg_sq, "adam").buf,
                                   max_sq != nullptr ? ref(*max_sq, "adam").buf : backend::Buffer{}};
  if (!backend_for(d).adam_step_into(device_index(d), current_stream(d), p.scalar_type(), out, in,
                                     ref(g, "adam").buf, p.numel(), a))
    return false;
  new_p = std::move(np);
  new_m = std::move(nm);
  new_v = std::move(nv);
  if (new_max != nullptr) *new_max = std::move(nx);
  return true;
}

}  // namespace locus::ops
