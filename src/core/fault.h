#pragma once
// Fault injection (docs/reliability.md, "Injected faults"): fails the N-th allocation, kernel
// launch or host<->device copy as the device would, so tests can prove that every failure point
// of a training step leaves the model and the optimizer as they were.
//
//  - alloc:  the N-th DeviceAllocator::allocate (any device) is refused by the device: no cached
//            block is used, the raw allocation fails, the cache is released and the one retry
//            fails too, so the caller sees the OutOfMemoryError of a real OOM.
//  - launch: the N-th kernel launch or BLAS call of the OpenCL or CUDA runtime returns the
//            driver's status (CL_OUT_OF_RESOURCES, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
//            CUBLAS_STATUS_EXECUTION_FAILED) through the runtime's check macro: a BackendError.
//  - copy:   the N-th host->device, device->host, device or peer copy of those runtimes, the same
//            way (CL_OUT_OF_RESOURCES, CUDA_ERROR_OUT_OF_MEMORY).
//  - scratch: the N-th request for a cpu kernel's scratch memory (convolution and Winograd
//            buffers, the GEMM's transposes: std::vector, outside the allocator) throws the
//            std::bad_alloc of a system out of memory, which the cpu backend reports as the
//            OutOfMemoryError of the op.
// Only that one call fails; the calls after it succeed (a transient fault).
//
// Armed from the environment (LOCUS_FAULT=alloc:N[,launch:N][,copy:N][,scratch:N], counted from the start of
// the process; a malformed value makes the first counted call throw locus::Error) or, in tests,
// by a fault::Injector scope (in this namespace, not locus::testing, which would make gtest's
// `testing::` ambiguous in tests that use namespace locus). Always compiled in: unarmed, a check
// is one relaxed atomic load.
#include <atomic>
#include <cstdint>
#include <string>

namespace locus::fault {

enum Site : int { kAlloc = 0, kLaunch = 1, kCopy = 2, kScratch = 3 };
constexpr int kSites = 4;

namespace detail {
extern std::atomic<bool> armed;
bool hit_slow(Site s);
}  // namespace detail

/// True when this call at `site` is the one to fail. Counts the call while armed.
inline bool hit(Site s) { return detail::armed.load(std::memory_order_relaxed) && detail::hit_slow(s); }

/// Parses a LOCUS_FAULT value: {fail_at per site, 0 = never}. Throws locus::Error:
/// "[LOCUS_FAULT] cannot parse 'x': expected site:N[,site:N] with site alloc, launch, copy or
/// scratch and N >= 1 (e.g. LOCUS_FAULT=alloc:3)."
struct Plan {
  int64_t fail_at[kSites] = {0, 0, 0, 0};
};
Plan parse(const std::string& value);

/// Arms fault injection for its lifetime (not nested, one at a time per process): counts every
/// allocation, launch and copy from construction on, and fails the `n`-th call at `site`
/// (n = 0: count only). The destructor disarms.
class Injector {
 public:
  Injector() : Injector(kAlloc, 0) {}
  Injector(Site site, int64_t n);
  ~Injector();
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;
  /// Calls seen at `site` since construction (the failed one included).
  int64_t calls(Site site) const;
  /// Whether the armed call has been reached (and failed).
  bool fired() const;
};

}  // namespace locus::fault
