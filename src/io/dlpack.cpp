// DLPack export and import. Export hands out the tensor's buffer with a context that keeps the
// tensor (and so its storage) alive until the consumer's deleter call. Import wraps the memory in
// a storage whose deleter calls the producer's deleter.
#include "locus/dlpack.h"

#include <vector>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/guard.h"

namespace locus {
namespace {

struct Context {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

DLDataType dl_dtype(ScalarType t) {
  switch (t) {
    case kFloat: return {kDLFloat, 32, 1};
    case kDouble: return {kDLFloat, 64, 1};
    case kHalf: return {kDLFloat, 16, 1};
    case kBFloat16: return {kDLBfloat, 16, 1};
    case kLong: return {kDLInt, 64, 1};
    case kInt: return {kDLInt, 32, 1};
    case kByte: return {kDLUInt, 8, 1};
    case kChar: return {kDLInt, 8, 1};
    case kShort: return {kDLInt, 16, 1};
    case kBool: return {kDLBool, 8, 1};
    default: throw Error("[to_dlpack] the tensor's dtype is undefined.");
  }
}

ScalarType from_dl_dtype(DLDataType d) {
  if (d.lanes == 1) {
    if (d.code == kDLFloat && d.bits == 32) return kFloat;
    if (d.code == kDLFloat && d.bits == 64) return kDouble;
    if (d.code == kDLFloat && d.bits == 16) return kHalf;
    if (d.code == kDLBfloat && d.bits == 16) return kBFloat16;
    if (d.code == kDLInt && d.bits == 64) return kLong;
    if (d.code == kDLInt && d.bits == 32) return kInt;
    if (d.code == kDLUInt && d.bits == 8) return kByte;
    if (d.code == kDLInt && d.bits == 8) return kChar;
    if (d.code == kDLInt && d.bits == 16) return kShort;
    if (d.code == kDLBool && d.bits == 8) return kBool;
  }
  throw Error("[from_dlpack] dtype (code " + std::to_string(d.code) + ", " + std::to_string(d.bits) + " bits, " +
              std::to_string(d.lanes) + " lanes) has no locus dtype (float32/64, float16, bfloat16, int64, int32, int16, int8, uint8, bool).");
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& tensor) {
  if (!tensor.defined()) throw Error("[to_dlpack] the tensor is undefined.");
  if (tensor.requires_grad()) throw Error("[to_dlpack] the tensor requires grad; export tensor.detach() instead.");
  auto* ctx = new Context();
  ctx->tensor = tensor;
  const TensorImpl& impl = *tensor.unsafeGetTensorImpl();
  impl.storage->wait_pending();
  ctx->shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  ctx->strides.assign(tensor.strides().begin(), tensor.strides().end());
  DLTensor& dl = ctx->managed.dl_tensor;
  const Device d = tensor.device();
  dl.device.device_type = d.is_cpu() ? kDLCPU : d.is_cuda() ? kDLCUDA : kDLOpenCL;
  dl.device.device_id = d.is_cpu() ? 0 : d.index();
  dl.ndim = static_cast<int32_t>(tensor.dim());
  dl.dtype = dl_dtype(tensor.scalar_type());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  const uint64_t elem_offset = static_cast<uint64_t>(tensor.storage_offset()) * tensor.element_size();
  if (d.is_cpu()) {  // a host pointer to element 0, as every consumer expects
    dl.data = impl.storage->host_ptr() + elem_offset;
    dl.byte_offset = 0;
  } else {  // the backend handle (cl_mem, CUdeviceptr) and the offset into it
    dl.data = impl.storage->alloc.buf.base;
    dl.byte_offset = impl.storage->alloc.buf.offset + elem_offset;
  }
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Context*>(self->manager_ctx); };
  return &ctx->managed;
}

Tensor from_dlpack(DLManagedTensor* managed) {
  if (managed == nullptr) throw Error("[from_dlpack] the DLManagedTensor is null.");
  auto release = [managed] {
    if (managed->deleter) managed->deleter(managed);
  };
  const DLTensor& dl = managed->dl_tensor;
  Device device(kCPU);
  ScalarType dtype;
  std::vector<int64_t> sizes, strides;
  try {
    switch (dl.device.device_type) {
      case kDLCPU: case kDLCUDAHost: case kDLROCMHost: break;
      case kDLCUDA: device = Device(kCUDA, static_cast<DeviceIndex>(dl.device.device_id)); break;
      case kDLOpenCL: device = Device(kOpenCL, static_cast<DeviceIndex>(dl.device.device_id)); break;
      default:
        throw Error("[from_dlpack] DLPack device type " + std::to_string(dl.device.device_type) +
                    " has no locus device (cpu, cuda and opencl have).");
    }
    if (!device.is_cpu()) check_device_available(device);
    dtype = from_dl_dtype(dl.dtype);
    if (dl.ndim < 0 || dl.ndim > 64 || (dl.ndim > 0 && dl.shape == nullptr)) throw Error("[from_dlpack] the tensor's ndim or shape is invalid.");
    sizes.assign(dl.shape, dl.shape + dl.ndim);
    if (dl.strides != nullptr) {
      strides.assign(dl.strides, dl.strides + dl.ndim);
    } else {
      strides.assign(sizes.size(), 1);
      for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
    }
    if (dl.byte_offset % element_size(dtype) != 0) throw Error("[from_dlpack] byte_offset is not a multiple of the element size.");
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0 || strides[i] < 0) throw Error("[from_dlpack] negative sizes or strides are not supported.");
  } catch (...) {
    release();
    throw;
  }
  auto storage = std::make_shared<Storage>();
  storage->device = device;
  storage->alloc.buf.base = dl.data;
  storage->deleter = [release](void*) { release(); };
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {
      extent = 0;
      break;
    }
    extent += (sizes[i] - 1) * strides[i];
  }
  storage->nbytes = dl.byte_offset + static_cast<size_t>(extent) * element_size(dtype);
  storage->alloc.size = storage->nbytes;
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = DimVector(IntArrayRef(sizes.data(), sizes.size()));
  impl->strides = DimVector(IntArrayRef(strides.data(), strides.size()));
  impl->offset = static_cast<int64_t>(dl.byte_offset / element_size(dtype));
  impl->dtype = dtype;
  impl->device = device;
  impl->refresh();
  return Tensor(std::move(impl));
}

}  // namespace locus
