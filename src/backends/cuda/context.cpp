#include "backends/cuda/context.h"

#include <cstdlib>

#include "backends/cuda/check.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/libraries.h"
#include "locus/error.h"

namespace locus::cuda {
namespace {

int attr(CUdevice d, CUdevice_attribute a) {
  int v = 0;
  return drv().cuDeviceGetAttribute(&v, a, d) == CUDA_SUCCESS ? v : 0;
}

std::string visible_devices_note() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v ? std::string("; CUDA_VISIBLE_DEVICES=\"") + v + "\" selects which devices are visible" : "";
}

}  // namespace

Runtime& Runtime::get() noexcept {
  static Runtime* rt = new Runtime();  // never destroyed: the driver may be torn down first at exit
  return *rt;
}

Runtime::Runtime() : DeviceTable("cuda", "CUDA") {
  const Driver& d = drv();
  if (!d.loaded) {
    reason_ = d.reason;
    return;
  }
  if (CUresult st = d.cuInit(0); st != CUDA_SUCCESS) {
    reason_ = (st == CUDA_ERROR_NO_DEVICE ? "no CUDA device" : "the CUDA driver failed to start") +
              std::string(" (cuInit: ") + status_name(st) + ")" + visible_devices_note();
    return;
  }
  int n = 0;
  if (CUresult st = d.cuDeviceGetCount(&n); st != CUDA_SUCCESS || n == 0) {
    reason_ = "no CUDA device (cuDeviceGetCount: " + (st == CUDA_SUCCESS ? "0 devices" : status_name(st)) + ")" +
              visible_devices_note();
    return;
  }
  // Kernels need NVRTC and GEMM cuBLAS: without either a device is unusable, so say why instead.
  for (const std::string* missing : {nvrtc().loaded ? nullptr : &nvrtc().reason,
                                     cublas().loaded ? nullptr : &cublas().reason}) {
    if (missing != nullptr) {
      reason_ = std::to_string(n) + " CUDA device" + (n == 1 ? "" : "s") + " found, but " + *missing;
      return;
    }
  }
  std::string driver = std::to_string(d.version / 1000) + "." + std::to_string(d.version % 1000 / 10);
  for (int i = 0; i < n; ++i) {
    CUdevice dev = 0;
    if (d.cuDeviceGet(&dev, i) != CUDA_SUCCESS) continue;
    auto cd = std::make_unique<CuDevice>();
    cd->dev = dev;
    cd->cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    cd->cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    cd->memory_pools = d.cuMemPoolCreate && d.cuMemPoolSetAttribute && d.cuMemAllocFromPoolAsync && d.cuMemFreeAsync &&
                       attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    char name[256] = {};
    if (d.cuDeviceGetName(name, sizeof name, dev) != CUDA_SUCCESS) std::snprintf(name, sizeof name, "CUDA device %d", i);
    size_t total = 0;
    if (d.cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS) total = 0;
    backend::DeviceProps& p = cd->props;
    p.name = name;
    p.vendor = "NVIDIA";
    p.driver_version = "CUDA " + driver;
    p.total_memory = total;
    p.compute_units = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p.max_work_group_size = static_cast<size_t>(attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    p.fp16 = cd->cc_major * 10 + cd->cc_minor >= 53;
    p.fp64 = true;
    p.is_gpu = true;
    p.host_addressable = false;
    p.device_addressed = true;  // a CUdeviceptr: Tensor::data_ptr() returns it, as PyTorch does
    p.extra = "compute capability " + std::to_string(cd->cc_major) + "." + std::to_string(cd->cc_minor) + "; " +
              std::to_string(p.compute_units) + " SMs; driver " + driver;
    cd->peer_enabled.assign(static_cast<size_t>(n), false);
    devices_.push_back(std::move(cd));
  }
  if (devices_.empty()) reason_ = "no usable CUDA device (cuDeviceGet failed for every device)";
}

CuDevice& Runtime::bind(int index) {
  CuDevice& d = device(index);
  std::call_once(d.ctx_once, [&] {  // an exception leaves the flag unset: the next use retries
    LOCUS_CUDA(drv().cuDevicePrimaryCtxRetain(&d.ctx, d.dev), index, "creating the context");
  });
  CUcontext cur = nullptr;
  if (drv().cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != d.ctx)
    LOCUS_CUDA(drv().cuCtxSetCurrent(d.ctx), index, "");
  return d;
}

}  // namespace locus::cuda
