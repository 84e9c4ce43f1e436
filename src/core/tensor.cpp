// Tensor metadata, storage lifetime, host data access and views.
#include <algorithm>
#include <limits>
#include <cctype>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "core/checks.h"
#include "core/tensor_impl.h"
#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/guard.h"
#include "memory/allocator.h"  // make_empty and ~Storage: the one place core calls memory (docs/architecture.md)

namespace locus {

// ---- Storage ---------------------------------------------------------------------------------
Storage::~Storage() {
  wait_pending();
  if (allocator != nullptr) allocator->free(alloc);
  else if (pinned.ptr != nullptr) memory::pinned_free(pinned);
  else if (deleter) deleter(alloc.buf.base);
}

void Storage::set_pending(backend::Backend* b, int index, backend::EventHandle e) {
  wait_pending();
  pending.store(new Pending{b, index, e}, std::memory_order_release);
}

void Storage::wait_pending_for(backend::Backend* b, int index, backend::StreamHandle s) {
  Pending* p = pending.exchange(nullptr, std::memory_order_acq_rel);
  if (p == nullptr) return;
  std::unique_ptr<Pending> owner(p);
  Pending* none = nullptr;
  // on the same in-order stream it stays pending; put it back unless another thread set a newer one
  if (p->backend == b && p->index == index && p->stream == s && b != nullptr &&
      pending.compare_exchange_strong(none, p, std::memory_order_acq_rel)) {
    owner.release();
    return;
  }
  p->backend->event_synchronize(p->index, p->event);
  p->backend->event_destroy(p->index, p->event);
}

void Storage::set_pending_on(backend::Backend* b, int index, backend::StreamHandle s, backend::EventHandle e) {
  auto next = std::make_unique<Pending>(Pending{b, index, e, s});
  Pending* p = pending.exchange(next.release(), std::memory_order_acq_rel);
  if (p == nullptr) return;
  std::unique_ptr<Pending> owner(p);
  // an earlier copy on the same stream finishes before `e`; one elsewhere is waited for
  if (!(p->backend == b && p->index == index && p->stream == s)) p->backend->event_synchronize(p->index, p->event);
  p->backend->event_destroy(p->index, p->event);
}

void Storage::wait_pending_slow() {
  Pending* p = pending.exchange(nullptr, std::memory_order_acq_rel);
  if (p == nullptr) return;
  std::unique_ptr<Pending> owner(p);
  p->backend->event_synchronize(p->index, p->event);
  p->backend->event_destroy(p->index, p->event);
}

namespace detail {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector s(sizes.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return s;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (dim < -n || dim >= n)
    throw Error("[" + std::string(op) + "] dimension out of range (expected to be in range of [" +
                std::to_string(-n) + ", " + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ").");
  return dim < 0 ? dim + n : dim;
}

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device, bool pinned, Device pin_for) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0)
      throw Error("[empty] trying to create a tensor with negative dimension " + std::to_string(s) +
                  ": " + shape_str(sizes) + ".");
    numel *= s;
  }
  if (!device.is_cpu() && !device.has_index()) device = resolve_device(device);
  auto storage = std::make_shared<Storage>();
  storage->device = device;
  size_t bytes = static_cast<size_t>(numel) * element_size(dtype);
  storage->nbytes = bytes;
  if (pinned) {
    if (!device.is_cpu()) throw Error("[pin_memory] only cpu tensors can be pinned, got " + device.str() + ".");
    Device acc = Device(kCPU);
    std::string kinds;  // "cuda or opencl"
    for (const backend::Registration* reg : backend::accelerators_by_rank()) {
      if (!reg->caps.pinned_host_memory) continue;
      kinds += (kinds.empty() ? "" : " or ") + std::string(device_type_name(reg->caps.type));
      if (reg->backend == nullptr || reg->backend->device_count() == 0) continue;
      // memory pinned by one driver is pageable to another (an OpenCL copy from CUDA-pinned memory
      // runs at pageable speed), so the device the memory is for comes first
      if (!pin_for.is_cpu() && reg->caps.type == pin_for.type()) acc = Device(pin_for.type(), 0);
      else if (acc.is_cpu()) acc = Device(reg->caps.type, 0);
    }
    if (acc.is_cpu())
      throw NotAvailableError("[pin_memory] page-locked memory needs an accelerator (" + kinds + "), and none is "
                              "available on this machine; use ordinary cpu tensors.");
    storage->pinned = memory::pinned_allocate(acc, bytes);
    storage->alloc.buf.base = storage->pinned.ptr;
    storage->alloc.size = bytes;
  } else {
    memory::DeviceAllocator& a = memory::allocator_for(device);
    storage->alloc = a.allocate(bytes, device.is_cpu() ? nullptr : backend::current_stream(device));
    storage->allocator = &a;
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = DimVector(sizes);
  impl->strides = contiguous_strides(sizes);
  impl->numel = numel;
  impl->dtype = dtype;
  impl->device = device;
  impl->contiguous = true;
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& src, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  const TensorImpl* s = src.unsafeGetTensorImpl();
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = s->storage;
  impl->sizes = DimVector(sizes);
  impl->strides = DimVector(strides);
  impl->offset = offset;
  impl->dtype = s->dtype;
  impl->device = s->device;
  impl->view_base = s->view_base ? s->view_base : src.impl();
  impl->view_no_grad = (s->view_base && s->view_no_grad) || !GradMode::is_enabled();
  impl->refresh();
  return Tensor(std::move(impl));
}

}  // namespace detail

namespace {
const TensorImpl& checked(const std::shared_ptr<TensorImpl>& p) {
  if (!p) throw Error("Tensor: the tensor is undefined (default-constructed); create it with a factory first.");
  return *p;
}
}  // namespace

// ---- metadata -------------------------------------------------------------------------------
IntArrayRef Tensor::sizes() const { return checked(impl_).sizes.ref(); }
IntArrayRef Tensor::strides() const { return checked(impl_).strides.ref(); }
int64_t Tensor::dim() const { return static_cast<int64_t>(checked(impl_).sizes.size()); }
int64_t Tensor::numel() const { return checked(impl_).numel; }
int64_t Tensor::storage_offset() const { return checked(impl_).offset; }
bool Tensor::is_contiguous() const { return checked(impl_).contiguous; }
ScalarType Tensor::scalar_type() const { return checked(impl_).dtype; }
Device Tensor::device() const { return checked(impl_).device; }
// Device and dtype only: libtorch drops requires_grad, so zeros(shape, w.options()) of a parameter
// is not itself a leaf that requires grad.
TensorOptions Tensor::options() const { return TensorOptions().device(device()).dtype(scalar_type()); }
bool Tensor::is_alias_of(const Tensor& o) const {
  return defined() && o.defined() && impl_->storage == o.impl_->storage;
}
int64_t Tensor::size(int64_t d) const { return impl_->sizes[detail::wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[detail::wrap_dim(d, dim(), "stride")]; }

void Tensor::check_accessor_dims(int64_t n) const {
  if (dim() != n)
    throw Error("[accessor] expected a tensor of " + std::to_string(n) + " dims, got " + std::to_string(dim()) +
                " dims " + shape_str(sizes()) + "; use accessor<T, " + std::to_string(dim()) + ">().");
}

void Tensor::check_fits_int32_indexing() const {
  const int64_t limit = std::numeric_limits<int32_t>::max();
  bool fits = numel() <= limit;
  for (int64_t i = 0; fits && i < dim(); ++i) fits = size(i) <= limit && stride(i) <= limit;
  if (!fits)
    throw Error("[packed_accessor32] numel needs to be smaller than int32_t max (got " + std::to_string(numel()) +
                " elements " + shape_str(sizes()) + "); otherwise, please use packed_accessor64.");
}

// ---- host data --------------------------------------------------------------------------------
void* Tensor::host_data(const char* op) const {
  const TensorImpl& t = checked(impl_);
  if (!t.device.is_cpu())
    throw Error("[" + std::string(op) + "] the data of a tensor on " + t.device.str() +
                " is not addressable from the host; copy it first with .cpu() (or .to(locus::kCPU)).");
  t.storage->wait_pending();
  if (t.storage->alloc.buf.base == nullptr) return nullptr;
  return t.storage->host_ptr() + t.offset * static_cast<int64_t>(locus::element_size(t.dtype));
}

namespace {
// OpenCL buffers (cl_mem handles) have no address. data_ptr() gives each buffer handle seen a
// slot and returns (slot + 1) << 40 plus the byte offset: stable for the buffer's life, unique
// among live buffers (a freed handle the driver reuses gets its slot back, as an address would),
// ordered within a buffer as addresses are. Never dereferenced.
void* synthetic_address(void* handle, size_t byte_offset) {
  static std::mutex mutex;
  static std::unordered_map<void*, uint64_t> slots;
  std::lock_guard<std::mutex> lock(mutex);
  uint64_t slot = slots.try_emplace(handle, slots.size() + 1).first->second;
  return reinterpret_cast<void*>(static_cast<uintptr_t>((slot << 40) + byte_offset));
}
}  // namespace

void* Tensor::data_ptr() const {
  const TensorImpl& t = checked(impl_);
  if (t.device.is_cpu()) return host_data("data_ptr");
  const backend::Buffer& buf = t.storage->alloc.buf;
  if (buf.base == nullptr) return nullptr;  // no elements, as on cpu
  size_t bytes = buf.offset + static_cast<size_t>(t.offset) * locus::element_size(t.dtype);
  if (backend::backend_for(t.device).props(backend::device_index(t.device)).device_addressed)
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(buf.base) + bytes);
  return synthetic_address(buf.base, bytes);
}

#define LOCUS_DATA_PTR(T)                                                                        \
  template <>                                                                                    \
  T* Tensor::data_ptr<T>() const {                                                               \
    if (scalar_type() != CppTypeToScalarType<T>::value)                                          \
      throw Error(std::string("[data_ptr<") + dtype_name(CppTypeToScalarType<T>::value) +        \
                  ">] the tensor's dtype is " + dtype_name(scalar_type()) +                      \
                  "; use data_ptr<" + dtype_name(scalar_type()) + " type> or convert with .to()."); \
    return static_cast<T*>(host_data("data_ptr"));                                               \
  }
LOCUS_DATA_PTR(uint8_t)
LOCUS_DATA_PTR(int8_t)
LOCUS_DATA_PTR(int16_t)
LOCUS_DATA_PTR(int32_t)
LOCUS_DATA_PTR(int64_t)
LOCUS_DATA_PTR(Half)
LOCUS_DATA_PTR(float)
LOCUS_DATA_PTR(double)
LOCUS_DATA_PTR(bool)
LOCUS_DATA_PTR(BFloat16)
#undef LOCUS_DATA_PTR

// ---- the spellings of a device in to() (libtorch's overloads are in src/ops/copy.cpp) ----------
Tensor Tensor::to(DeviceType type, bool nb, bool copy) const { return to(Device(type), nb, copy); }
Tensor Tensor::to(const char* device, bool nb, bool copy) const { return to(Device(device), nb, copy); }
Tensor Tensor::to(const std::string& device, bool nb, bool copy) const { return to(Device(device), nb, copy); }
Tensor Tensor::to(int device_index, bool nb, bool copy) const { return to(Device(device_index), nb, copy); }

Scalar Tensor::item() const {
  if (numel() != 1)
    throw Error("[item] a Tensor with " + std::to_string(numel()) +
                " elements cannot be converted to a Scalar; index or reduce it first.");
  Tensor c = device().is_cpu() ? *this : this->to(Device(kCPU));
  const void* p = c.host_data("item");
  switch (c.scalar_type()) {
    case kByte: return Scalar(static_cast<int64_t>(*static_cast<const uint8_t*>(p)));
    case kChar: return Scalar(static_cast<int64_t>(*static_cast<const int8_t*>(p)));
    case kShort: return Scalar(static_cast<int64_t>(*static_cast<const int16_t*>(p)));
    case kInt: return Scalar(static_cast<int64_t>(*static_cast<const int32_t*>(p)));
    case kLong: return Scalar(*static_cast<const int64_t*>(p));
    case kHalf: return Scalar(static_cast<double>(static_cast<float>(*static_cast<const Half*>(p))));
    case kFloat: return Scalar(static_cast<double>(*static_cast<const float*>(p)));
    case kDouble: return Scalar(*static_cast<const double*>(p));
    case kBool: return Scalar(*static_cast<const bool*>(p));
    case kBFloat16: return Scalar(static_cast<double>(static_cast<float>(*static_cast<const BFloat16*>(p))));
    default: throw Error("[item] undefined dtype.");
  }
}

template <typename T>
T Tensor::item() const {
  return item().to<T>();
}
template uint8_t Tensor::item<uint8_t>() const;
template int8_t Tensor::item<int8_t>() const;
template int16_t Tensor::item<int16_t>() const;
template int32_t Tensor::item<int32_t>() const;
template int64_t Tensor::item<int64_t>() const;
template float Tensor::item<float>() const;
template double Tensor::item<double>() const;
template bool Tensor::item<bool>() const;
template Half Tensor::item<Half>() const;
template BFloat16 Tensor::item<BFloat16>() const;

Tensor Tensor::detach() const {
  checked(impl_);
  Tensor out = detail::make_view(*this, sizes(), strides(), storage_offset());
  out.unsafeGetTensorImpl()->view_base.reset();  // a detached alias is no differentiable view
  return out;
}

DeprecatedTypeProperties Tensor::type() const {
  if (!defined()) throw Error("[type] the tensor is undefined; check defined() first.");
  return DeprecatedTypeProperties(scalar_type(), device().type(), toString());
}

std::ostream& operator<<(std::ostream& os, const DeprecatedTypeProperties& type) { return os << type.toString(); }

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedTensor";
  // libtorch spells it "CPUFloatType", "CUDAHalfType"; we follow with our type names.
  std::string t = device_type_name(device().type());
  for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (const backend::Registration* reg = backend::registration(device().type())) t = reg->caps.display_name;
  return t + locus::toString(scalar_type()) + "Type";
}

}  // namespace locus
