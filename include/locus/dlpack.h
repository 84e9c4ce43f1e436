#pragma once
// DLPack (https://github.com/dmlc/dlpack, dlpack.h v0.8 ABI): zero-copy exchange of tensors with
// NumPy, PyTorch, JAX, CuPy... The structs below are declared here to that published ABI (Debian
// ships no dlpack.h). Device types match ours: cpu <-> kDLCPU (pinned memory too), cuda:N <->
// kDLCUDA N, opencl:N <-> kDLOpenCL N (data is the cl_mem handle, byte_offset the offset in it).
#include <cstdint>

#include "locus/tensor.h"

extern "C" {
#ifndef DLPACK_VERSION
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
} DLDeviceType;
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;
#endif
}

namespace locus {

/// Exports `tensor` without copying; the tensor's storage stays alive until the consumer calls
/// the returned tensor's deleter. Throws for a tensor that requires grad (export .detach()).
DLManagedTensor* to_dlpack(const Tensor& tensor);
/// Imports without copying and takes ownership: `managed->deleter` runs when the last tensor
/// using the memory goes away (also if this throws). Unsupported device or dtype throws.
Tensor from_dlpack(DLManagedTensor* managed);

}  // namespace locus
