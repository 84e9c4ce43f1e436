// Moving and copying. One function, copy_(), decides every route: same device (a strided
// conversion kernel), host <-> device, peer (same backend, direct when the driver can), or staged
// through pinned host memory.
#include <cstring>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/guard.h"
#include "memory/allocator.h"
#include "autograd/record.h"
#include "ops/checks.h"

namespace locus {
namespace {

// Same-device strided copy with conversion; src already broadcast-compatible with dst.
void copy_same_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  Device d = dst.device();
  backend::TensorRef o = ops::ref(dst, "copy_");
  backend::TensorRef i = ops::ref_broadcast(src, dst.sizes(), "copy_");
  backend::TensorRef* refs[] = {&o, &i};
  ops::coalesce(refs, 2);
  ops::backend_for(d).copy(backend::device_index(d), ops::current_stream(d), o, i);
}


// A contiguous tensor on src's device holding src broadcast to `sizes`, converted to `dtype`.
Tensor dense_like(const Tensor& src, IntArrayRef sizes, ScalarType dtype) {
  if (src.sizes() == sizes && src.is_contiguous() && src.scalar_type() == dtype) return src;
  Tensor out = detail::make_empty(sizes, dtype, src.device());
  copy_same_device(out, src);
  return out;
}

// An asynchronous copy issued by `copy(done)` with its completion recorded in a new event of
// device `index`, returned; the event is destroyed when the copy fails to enqueue.
template <class F>
backend::EventHandle recorded_copy(backend::Backend& be, int index, F&& copy) {
  backend::EventHandle e = be.event_create(index, false);
  try {
    copy(e);
  } catch (...) {
    be.event_destroy(index, e);
    throw;
  }
  return e;
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  if (!defined() || !src.defined()) throw Error("[copy_] both tensors must be defined.");
  if (autograd::should_record(mut_self()) || autograd::should_record(src) || autograd::view_of_graph(mut_self())) {
    // Recorded: self becomes the output of a copy node (gradient to src; none to self's old value).
    autograd::check_inplace_graph("copy_", mut_self());
    {
      NoGradGuard no_grad;
      copy_(src, non_blocking);
    }
    autograd::on_copy_(mut_self(), src);
    return mut_self();
  }
  autograd::bump_version(mut_self());
  // src must broadcast to self's shape
  DimVector b = ops::broadcast_shapes(sizes(), src.sizes(), "copy_");
  if (b.ref() != sizes())
    throw Error("[copy_] the source of shape " + ops::shape_str(src.sizes()) +
                " cannot be broadcast to the destination's shape " + ops::shape_str(sizes()) + ".");
  if (numel() == 0) return mut_self();
  ops::check_no_internal_overlap("copy_", mut_self());
  Device dd = device(), sd = src.device();
  if (dd == sd) {
    ops::check_no_partial_overlap("copy_", mut_self(), src);
    copy_same_device(mut_self(), src);
    return mut_self();
  }
  // Cross-device: move dense bytes of dst's dtype, then place them.
  if (sd.is_cpu()) {  // host -> device
    Tensor host = dense_like(src, sizes(), scalar_type());
    Storage& hs = *host.unsafeGetTensorImpl()->storage;
    bool async = non_blocking && host.is_pinned();
    backend::Backend& be = ops::backend_for(dd);
    auto stream = ops::current_stream(dd);
    // An async copy need not wait for an earlier one on the same stream (in-order) that reads or
    // writes the same pinned memory: a loop of non_blocking copies stays queued.
    if (async) hs.wait_pending_for(&be, backend::device_index(dd), stream);
    else hs.wait_pending();
    Tensor target = is_contiguous() ? mut_self() : detail::make_empty(sizes(), scalar_type(), dd);
    backend::TensorRef t = ops::ref(target, "copy_");
    const void* src_ptr = hs.host_ptr() + host.storage_offset() * static_cast<int64_t>(host.element_size());
    if (async) {
      // Keep the pinned source alive and unreusable until the copy has read it.
      backend::EventHandle e = recorded_copy(be, backend::device_index(dd), [&](backend::EventHandle done) {
        be.copy_from_host_recorded(backend::device_index(dd), t.buf, src_ptr, host.nbytes(), stream, done);
      });
      hs.set_pending_on(&be, backend::device_index(dd), stream, e);
    } else {
      be.copy_from_host(backend::device_index(dd), t.buf, src_ptr, host.nbytes(), stream, false);
    }
    if (!target.is_same(mut_self())) copy_same_device(mut_self(), target);
    return mut_self();
  }
  if (dd.is_cpu()) {  // device -> host
    Tensor dev = dense_like(src, sizes(), scalar_type());
    bool direct = is_contiguous();
    Tensor target = direct ? mut_self() : detail::make_empty(sizes(), scalar_type(), dd);
    backend::Backend& be = ops::backend_for(sd);
    backend::TensorRef s = ops::ref(dev, "copy_");
    bool async = non_blocking && direct && is_pinned();
    auto stream = ops::current_stream(sd);
    Storage& st = *target.unsafeGetTensorImpl()->storage;
    if (async) st.wait_pending_for(&be, backend::device_index(sd), stream);  // as above
    else st.wait_pending();
    void* dst_ptr = st.host_ptr() + target.storage_offset() * static_cast<int64_t>(target.element_size());
    if (async) {
      backend::EventHandle e = recorded_copy(be, backend::device_index(sd), [&](backend::EventHandle done) {
        be.copy_to_host_recorded(backend::device_index(sd), dst_ptr, s.buf, target.nbytes(), stream, done);
      });
      st.set_pending_on(&be, backend::device_index(sd), stream, e);  // the first host access waits for it
    } else {
      be.copy_to_host(backend::device_index(sd), dst_ptr, s.buf, target.nbytes(), stream, false);
    }
    if (!direct) copy_same_device(mut_self(), target);
    return mut_self();
  }
  // device -> device
  Tensor dev = dense_like(src, sizes(), scalar_type());
  Tensor target = is_contiguous() ? mut_self() : detail::make_empty(sizes(), scalar_type(), dd);
  bool done = false;
  if (sd.type() == dd.type()) {
    backend::Backend& be = ops::backend_for(sd);
    be.stream_synchronize(backend::device_index(sd), ops::current_stream(sd));  // src's producers have finished
    backend::TensorRef s = ops::ref(dev, "copy_"), t = ops::ref(target, "copy_");
    done = be.copy_peer(backend::device_index(dd), t.buf, backend::device_index(sd), s.buf, target.nbytes(), ops::current_stream(dd));
  }
  if (!done) {  // staged through pinned host memory when we can, pageable otherwise
    Tensor staging;
    try {
      staging = detail::make_empty(sizes(), scalar_type(), Device(kCPU), /*pinned=*/true, /*pin_for=*/sd);
    } catch (const NotAvailableError&) {
      staging = detail::make_empty(sizes(), scalar_type(), Device(kCPU));
    }
    staging.copy_(dev);
    target.copy_(staging);
  }
  if (!target.is_same(mut_self())) copy_same_device(mut_self(), target);
  return mut_self();
}

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  if (!defined()) throw Error("[to] the tensor is undefined.");
  Device cur = device();
  Device target = options.has_device() ? options.device_opt().value() : cur;
  if (!target.is_cpu() && !target.has_index()) target = resolve_device(target);
  ScalarType dt = options.has_dtype() ? options.dtype() : scalar_type();
  if (target == cur && dt == scalar_type() && !copy && (!options.pinned_memory() || is_pinned())) return *this;
  if (target != cur) check_device_available(target);
  bool pinned = options.pinned_memory() || (target.is_cpu() && !cur.is_cpu() && non_blocking);
  Tensor out;
  if (pinned) {
    try {
      // a device -> host copy pins for the source's driver (its copy engine reads that memory)
      out = detail::make_empty(sizes(), dt, target, true, cur.is_cpu() ? Device(kCPU) : cur);
    } catch (const NotAvailableError&) {
      out = detail::make_empty(sizes(), dt, target, false);
    }
  } else {
    out = detail::make_empty(sizes(), dt, target, false);
  }
  out.copy_(*this, non_blocking);
  if (autograd::should_record(*this)) autograd::on_to(out, *this);
  return out;
}

// The no-op cases first, without building options: `to` in a training loop is mostly a no-op.
Tensor Tensor::to(Device d, bool nb, bool copy) const {
  if (!copy && impl_ && impl_->device == d) return *this;
  return to(TensorOptions().device(d), nb, copy);
}
Tensor Tensor::to(ScalarType t, bool nb, bool copy) const {
  if (!copy && impl_ && impl_->dtype == t) return *this;
  return to(TensorOptions().dtype(t), nb, copy);
}
Tensor Tensor::to(Device d, ScalarType t, bool nb, bool copy) const {
  return to(TensorOptions().device(d).dtype(t), nb, copy);
}
Tensor Tensor::to(const Tensor& other, bool nb, bool copy) const {
  return to(TensorOptions().device(other.device()).dtype(other.scalar_type()), nb, copy);
}
Tensor Tensor::cpu() const { return to(Device(kCPU)); }
Tensor Tensor::cuda(int index, bool nb) const {
  return to(Device(kCUDA, static_cast<DeviceIndex>(index)), nb);
}
Tensor Tensor::opencl(int index, bool nb) const {
  return to(Device(kOpenCL, static_cast<DeviceIndex>(index)), nb);
}

bool Tensor::is_pinned(std::optional<Device> for_device) const {
  if (!defined() || !device().is_cpu() || impl()->storage->pinned.ptr == nullptr) return false;
  return !for_device || impl()->storage->pinned.device.type() == for_device->type();
}

Tensor Tensor::pin_memory(std::optional<Device> for_device) const {
  if (!device().is_cpu())
    throw Error("[pin_memory] cannot pin a tensor on " + device().str() + "; only cpu tensors can be pinned.");
  if (for_device && for_device->is_cpu())
    throw Error("[pin_memory] cannot pin memory for " + for_device->str() +
                "; name the accelerator the copies go to (for example opencl:0), or none.");
  if (for_device) check_device_available(*for_device);
  if (is_pinned(for_device)) return *this;
  Tensor out = detail::make_empty(sizes(), scalar_type(), device(), true, for_device.value_or(Device(kCPU)));
  out.copy_(*this);
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = detail::make_empty(sizes(), scalar_type(), device());
  copy_same_device(out, *this);
  if (autograd::should_record(*this)) autograd::on_clone(out, *this);
  return out;
}

Tensor Tensor::clone() const {
  Tensor out = detail::make_empty(sizes(), scalar_type(), device());
  copy_same_device(out, *this);
  if (autograd::should_record(*this)) autograd::on_clone(out, *this);
  return out;
}

Tensor& Tensor::fill_(const Scalar& value) const {
  // In the autograd graph (or a view of a tensor in it): recorded as an overwrite whose values
  // need no gradient (FillBackward2, or CopySlices on the view's base).
  const bool recorded = autograd::should_record(mut_self()) || autograd::view_of_graph(mut_self());
  if (recorded) autograd::check_inplace_graph("fill_", mut_self());
  if (is_integral(scalar_type(), false) && value.isFloatingPoint() && value.toDouble() != static_cast<double>(value.toLong()))
    throw Error(std::string("[fill_] value ") + std::to_string(value.toDouble()) + " cannot be converted to " +
                dtype_name(scalar_type()) + " without overflow or loss; use a floating dtype.");
  ops::check_scalar_fits("fill_", value.toDouble(), scalar_type());
  autograd::bump_version(mut_self());
  if (recorded) autograd::rebase_constant(mut_self());
  if (numel() == 0) return mut_self();
  Device d = device();
  if (scalar_type() == kLong && value.isIntegral(false)) {
    // The backends fill from a double, which holds every int64 only up to 2^53; a larger one goes
    // as a one-element int64 tensor, broadcast by a copy (int64 to int64, exact on every backend).
    const int64_t v = value.toLong(), exact = int64_t{1} << 53;
    if (v > exact || v < -exact) {
      Tensor one = detail::make_empty({}, kLong, Device(kCPU));
      *static_cast<int64_t*>(one.data_ptr()) = v;
      copy_same_device(mut_self(), one.to(d));
      return mut_self();
    }
  }
  backend::TensorRef o = ops::ref(mut_self(), "fill_");
  backend::TensorRef* refs[] = {&o};
  ops::coalesce(refs, 1);
  ops::backend_for(d).fill(backend::device_index(d), ops::current_stream(d), o, value.toDouble());
  return mut_self();
}

}  // namespace locus
