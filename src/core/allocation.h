#pragma once
// The records of memory a Storage (core/tensor_impl.h) holds. src/memory/ makes them (its
// allocators and the pinned pool, memory/allocator.h); they are declared here, in core, so that
// core includes nothing above it.
#include <cstddef>

#include "core/backend.h"

namespace locus::memory {

/// One allocation handed to a Storage. `ctx` is the allocator's own bookkeeping (a Block*).
struct Allocation {
  backend::Buffer buf;
  size_t size = 0;  // bytes requested
  void* ctx = nullptr;
};

/// A block of pinned (page-locked) host memory from the pinned pool.
struct PinnedBlock {
  void* ptr = nullptr;
  size_t size = 0;
  void* ctx = nullptr;
  Device device{kCPU};  ///< the accelerator whose driver pinned it (its copies run at full speed)
};

class DeviceAllocator;  // memory/allocator.h

}  // namespace locus::memory
