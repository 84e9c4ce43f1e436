#pragma once
// Memory statistics and limits per device, with PyTorch's names (torch.cuda.memory_allocated, ...).
// Device-neutral forms take a Device; locus::cuda:: and locus::opencl:: take an index (-1: the
// current device of that type).
#include <cstdint>
#include <map>
#include <string>

#include "locus/device.h"

namespace locus {

/// Bytes occupied by live tensors on `d`.
int64_t memory_allocated(Device d);
int64_t max_memory_allocated(Device d);
/// Bytes held from the device by the caching allocator (allocated + cached).
int64_t memory_reserved(Device d);
int64_t max_memory_reserved(Device d);
void reset_peak_memory_stats(Device d);
/// Releases all unused cached memory of `d` to the device.
void empty_cache(Device d);
/// Every counter by name: "allocated_bytes.current", "allocated_bytes.peak",
/// "reserved_bytes.current", "reserved_bytes.peak", "requested_bytes.current",
/// "num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free", "num_allocs",
/// "num_frees", "num_cache_hits", "segment.current", "largest_free_block", "limit_bytes".
std::map<std::string, int64_t> memory_stats(Device d);
/// A human-readable table of memory_stats.
std::string memory_summary(Device d);
/// Caps what `d` may reserve at fraction * total memory (0 < fraction <= 1).
void set_per_process_memory_fraction(double fraction, Device d);
/// Caps what `d` may reserve at `bytes`; 0 removes the cap.
void set_memory_limit(int64_t bytes, Device d);
/// (free, total) bytes of the device as its driver reports them.
std::pair<int64_t, int64_t> mem_get_info(Device d);

#define LOCUS_DECLARE_MEMORY_API                                        \
  int64_t memory_allocated(int device = -1);                           \
  int64_t max_memory_allocated(int device = -1);                       \
  int64_t memory_reserved(int device = -1);                            \
  int64_t max_memory_reserved(int device = -1);                        \
  void reset_peak_memory_stats(int device = -1);                       \
  void empty_cache();                                                  \
  std::map<std::string, int64_t> memory_stats(int device = -1);        \
  std::string memory_summary(int device = -1);                         \
  void set_per_process_memory_fraction(double fraction, int device = -1); \
  std::pair<int64_t, int64_t> mem_get_info(int device = -1);

namespace cuda { LOCUS_DECLARE_MEMORY_API }
namespace opencl { LOCUS_DECLARE_MEMORY_API }
#undef LOCUS_DECLARE_MEMORY_API

}  // namespace locus
