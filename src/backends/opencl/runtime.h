#pragma once
// The OpenCL runtime: devices across all platforms, one context per platform (shared by its
// devices, so peer copies are direct), one default in-order queue per device with profiling.
//
// Order is stable: GPUs, then accelerators, then CPUs (then anything else); within a kind,
// platform order then the platform's device order. LOCUS_OPENCL_DEVICES keeps only devices
// whose platform or device name contains one of its comma-separated, case-insensitive
// substrings ("nvidia", "pthread,intel"). The runtime is created on first use, never
// destroyed (drivers may already be unloaded at exit), and enumeration never throws: no ICD
// or no platform means zero devices and a reason.
#include <CL/cl.h>  // CL_TARGET_OPENCL_VERSION comes from CMake

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/gpu/device_table.h"
#include "core/backend.h"

namespace locus::opencl {

struct ClDevice {
  cl_device_id id = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;  // the default stream
  std::string platform_name;
  backend::DeviceProps props;
  size_t max_alloc = 0;       // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  size_t global_mem = 0;      // CL_DEVICE_GLOBAL_MEM_SIZE
  bool int64_atomics = false;
  // Caps::row_items: a CPU driver, unless LOCUS_OPENCL_ROW_ITEMS=0 asks for an item per element
  // (what a GPU runs; the tests run those kernel paths on PoCL with it)
  bool row_items = false;
  // PoCL compiles each kernel variant on its worker threads at first execution. A process that
  // exits while such a compile runs crashes inside LLVM (its static objects are torn down under
  // the compile), so on these drivers the first launch of each variant waits for completion.
  bool lazy_compile = false;
  // CLBlast call classes already run once (lazy_compile only): a bit per Runtime::first_launch
  // variant, tested without a lock on every GEMM.
  static constexpr uint32_t kVariants = 4096;
  std::array<std::atomic<uint64_t>, kVariants / 64> variants{};

  // raw allocations, counted here because drivers (PoCL) may allocate lazily
  std::mutex mem_mu;
  std::unordered_map<cl_mem, size_t> live;
  size_t allocated = 0;
};

class Runtime : public gpu::DeviceTable<ClDevice> {
 public:
  /// The process-wide runtime, enumerated on first call; never throws.
  static Runtime& get() noexcept;

  /// The queue for stream handle `s` (nullptr: the device's default queue).
  cl_command_queue queue(int index, backend::StreamHandle s) {
    return s ? static_cast<cl_command_queue>(s) : device(index).queue;
  }
  /// Devices that share `a`'s context (same platform): direct peer copies are possible.
  bool same_context(int a, int b) { return device(a).ctx == device(b).ctx; }
  /// Queues created for streams are tracked, so that all work can be drained at exit.
  void track_queue(cl_command_queue q);
  void untrack_queue(cl_command_queue q);
  /// Waits for every queue (registered with atexit): a driver that compiles kernels lazily on
  /// its own threads (PoCL) would otherwise still be compiling while the process tears down the
  /// compiler's static objects, and crash after main returned.
  void drain() noexcept;
  /// On a lazily compiling driver, true the first time `variant` (a CLBlast call class, packed
  /// by the caller into an integer below ClDevice::kVariants; no string, no lock per call) runs
  /// on `index` (the caller then waits for it; a variant out of range always waits); always
  /// false elsewhere. Our own kernels keep their work-group sizes in Kernel::launched instead.
  bool first_launch(int index, uint32_t variant);

 private:
  Runtime();
  std::mutex queues_mu_;
  std::vector<cl_command_queue> streams_;  // queues of Stream::create, not the default ones
};

}  // namespace locus::opencl
