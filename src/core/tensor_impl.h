#pragma once
// TensorImpl and Storage: the internals behind locus::Tensor.
#include <atomic>
#include <functional>
#include <memory>

#include "core/allocation.h"
#include "core/backend.h"
#include "locus/tensor.h"

namespace locus {

namespace autograd {
struct AutogradMeta;  // defined by src/autograd
}

/// Bytes on one device. Freed through the allocator that made them (or the caller's deleter).
struct Storage {
  Device device = Device(kCPU);
  memory::Allocation alloc;             // alloc.buf is what kernels see
  memory::DeviceAllocator* allocator = nullptr;  // null: external (from_blob) or pinned
  std::function<void(void*)> deleter;   // from_blob
  memory::PinnedBlock pinned;           // pinned host memory (cpu tensors only)
  size_t nbytes = 0;
  // Bumped by every in-place write (PyTorch's version counter, shared by a tensor, its views and
  // its detached aliases): a backward formula whose saved tensor changed since it was saved throws
  // instead of computing with the new values (autograd/engine.cpp).
  std::atomic<uint32_t> version{0};

  // A device->host copy still in flight into this storage (non_blocking to cpu): the first host
  // access waits on it. Also used for async host->device reads from pinned memory so the pinned
  // block is not released while a copy reads it.
  struct Pending {
    backend::Backend* backend = nullptr;
    int index = 0;
    backend::EventHandle event = nullptr;
    backend::StreamHandle stream = nullptr;  // where `event` was recorded (set_pending_on)
  };
  std::atomic<Pending*> pending{nullptr};

  // User-provided (every member has an initializer): value-initialisation, as in make_shared,
  // then skips zero-filling the whole object first, which cost several ns per tensor.
  Storage() {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  /// Waits for and clears any pending copy.
  void wait_pending() {
    if (pending.load(std::memory_order_acquire) != nullptr) wait_pending_slow();
  }
  void set_pending(backend::Backend* b, int index, backend::EventHandle e);
  void wait_pending_slow();
  /// Before an async copy on stream `s` of device `index` uses this storage: waits for the pending
  /// copy unless it was enqueued on that same stream (in-order: it runs first anyway). A loop of
  /// non_blocking copies from or into one pinned tensor thus stays queued instead of waiting.
  void wait_pending_for(backend::Backend* b, int index, backend::StreamHandle s);
  /// Records `e`, recorded on stream `s`, as the pending copy. The one it replaces is dropped
  /// without waiting when it was on the same stream (`e` completes after it), else waited for.
  void set_pending_on(backend::Backend* b, int index, backend::StreamHandle s, backend::EventHandle e);
  /// Host pointer to byte 0 (host-addressable devices only).
  char* host_ptr() const { return static_cast<char*>(alloc.buf.base) + alloc.buf.offset; }
};

struct TensorImpl {
  TensorImpl() {}  // as Storage(): every member has an initializer, so no zero-fill first
  std::shared_ptr<Storage> storage;
  DimVector sizes;
  DimVector strides;
  int64_t offset = 0;  // in elements
  int64_t numel = 1;
  ScalarType dtype = kFloat;
  Device device = Device(kCPU);
  bool contiguous = true;
  std::shared_ptr<autograd::AutogradMeta> autograd;
  // A view (narrow, select, slice, view, transpose, ..., as made by detail::make_view; not
  // detach()): the tensor that is no view whose storage it shares, with the same dtype. An
  // in-place op that autograd records on the view makes that base the output of a CopySlices node
  // (PyTorch's): `outputs[t] = h` puts h in `outputs`'s graph. Null for a tensor that is no view.
  std::shared_ptr<TensorImpl> view_base;
  // The view was made while grad mode was off (or from such a view): it does not follow its
  // base's graph, and an in-place op on it that autograd would record is refused (as PyTorch).
  bool view_no_grad = false;

  void refresh() {
    numel = 1;
    for (size_t i = 0; i < sizes.size(); ++i) numel *= sizes[i];
    contiguous = compute_contiguous();
  }
  bool compute_contiguous() const {
    if (numel == 0) return true;
    int64_t expected = 1;
    for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
      if (sizes[i] == 1) continue;
      if (strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }
};

namespace detail {
/// Contiguous row-major strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);
/// A new uninitialised contiguous tensor on an indexed device (resolved, checked). `pinned` (cpu
/// only): page-locked for the accelerator `pin_for` when it has pinned host memory, otherwise for
/// the best-ranked accelerator that has it (PyTorch pins for CUDA).
Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device, bool pinned = false,
                  Device pin_for = Device(kCPU));
/// A tensor sharing `src`'s storage with new geometry.
Tensor make_view(const Tensor& src, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
/// Wraps a dimension index: -1 -> ndim-1; throws a clear error when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
}  // namespace detail

}  // namespace locus
