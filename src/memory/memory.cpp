// One allocator per device, the public memory API (include/locus/memory.h) and the pinned pool.
//
// Allocators are created on first use and never destroyed: tensors held by static objects may be
// freed after main returns, and backends may be gone by then, so handing memory back at exit
// would only add risk. Lookup is an atomic load from a fixed table indexed by (type, index).
#include <atomic>
#include <bit>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "locus/error.h"
#include "locus/guard.h"
#include "locus/memory.h"
#include "locus/stream.h"
#include "core/tensor_impl.h"
#include "memory/caching_allocator.h"

namespace locus::memory {
namespace {

constexpr int kMaxIndex = 128;  // DeviceIndex is int8_t
std::atomic<DeviceAllocator*> g_allocators[kNumDeviceTypes][kMaxIndex];
std::mutex g_create_mu;

DeviceAllocator& cpu_allocator() {
  static DeviceAllocator* a = make_cpu_allocator().release();
  return *a;
}

DeviceAllocator& create_allocator(Device d) {
  std::lock_guard<std::mutex> lock(g_create_mu);
  auto& slot = g_allocators[static_cast<int>(d.type())][d.index()];
  if (DeviceAllocator* a = slot.load(std::memory_order_acquire)) return *a;
  check_device_available(d);  // NotAvailableError naming d and the devices present
  auto* a = new CachingAllocator(backend_raw_device(backend::get(d.type()), d.index()));
  slot.store(a, std::memory_order_release);
  return *a;
}

}  // namespace

DeviceAllocator& allocator_for(Device d) {
  if (d.is_cpu()) return cpu_allocator();
  if (!d.has_index()) d = resolve_device(d);
  DeviceAllocator* a = g_allocators[static_cast<int>(d.type())][d.index()].load(std::memory_order_acquire);
  return a != nullptr ? *a : create_allocator(d);
}

// ---- pinned host memory ---------------------------------------------------------------------
// Blocks are cached per (device, size class) and never returned: page-locked memory is slow to
// get and a program that pins once tends to pin the same sizes again. Classes are powers of two
// from 4 KiB to 64 MiB, then multiples of 2 MiB.
namespace {

struct PinnedRecord {
  Device device = Device(kCPU);
  size_t cls = 0;
  void* ptr = nullptr;
  void* backend_ctx = nullptr;
  bool pinned = false;  // false: the backend had none, this is ordinary aligned host memory
};

struct PinnedPool {
  std::mutex mu;
  std::map<std::pair<size_t, size_t>, std::vector<PinnedRecord*>> free;
  std::map<uintptr_t, PinnedRecord*> live;  // pinned blocks in use, by start address
};
PinnedPool& pinned_pool() {
  static PinnedPool* p = new PinnedPool;
  return *p;
}

size_t pinned_class(size_t bytes) {
  constexpr size_t kMin = 4096, kPow2Max = size_t{64} << 20, kRound = size_t{2} << 20;
  if (bytes <= kMin) return kMin;
  if (bytes <= kPow2Max) return std::bit_ceil(bytes);
  return (bytes + kRound - 1) / kRound * kRound;
}

}  // namespace

PinnedBlock pinned_allocate(Device d, size_t bytes) {
  d = resolve_device(d);
  PinnedPool& pool = pinned_pool();
  size_t cls = pinned_class(bytes);
  if (cls < bytes) throw OutOfMemoryError("[pin_memory] cannot pin " + std::to_string(bytes) + " bytes.");
  auto key = std::make_pair(std::hash<Device>()(d), cls);
  PinnedRecord* r = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    auto it = pool.free.find(key);
    if (it != pool.free.end() && !it->second.empty()) {
      r = it->second.back();
      it->second.pop_back();
      if (r->pinned) pool.live[reinterpret_cast<uintptr_t>(r->ptr)] = r;
    }
  }
  if (r == nullptr) {
    check_device_available(d);
    backend::Backend* b = backend::get(d.type());
    auto rec = std::make_unique<PinnedRecord>();
    rec->device = d;
    rec->cls = cls;
    int index = backend::device_index(d);
    rec->ptr = b != nullptr ? b->host_alloc(index, cls, &rec->backend_ctx) : nullptr;
    rec->pinned = rec->ptr != nullptr;
    if (!rec->pinned) rec->ptr = std::aligned_alloc(64, cls);
    if (rec->ptr == nullptr)
      throw OutOfMemoryError("[pin_memory] out of host memory: tried to allocate " + detail::format_size(bytes) +
                             " of pinned memory for " + d.str() + ". Free pinned tensors you no longer need.");
    r = rec.release();
    if (r->pinned) {
      std::lock_guard<std::mutex> lock(pool.mu);
      pool.live[reinterpret_cast<uintptr_t>(r->ptr)] = r;
    }
  }
  PinnedBlock blk;
  blk.ptr = r->ptr;
  blk.size = bytes;
  blk.ctx = r;
  blk.device = d;
  return blk;
}

void pinned_free(const PinnedBlock& b) noexcept {
  auto* r = static_cast<PinnedRecord*>(b.ctx);
  if (r == nullptr) return;
  PinnedPool& pool = pinned_pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  if (r->pinned) pool.live.erase(reinterpret_cast<uintptr_t>(r->ptr));
  try {
    pool.free[std::make_pair(std::hash<Device>()(r->device), r->cls)].push_back(r);
  } catch (...) {  // no memory for the free list: give the block back instead
    if (r->pinned) {
      backend::Backend* be = backend::get(r->device.type());
      be->host_free(backend::device_index(r->device), r->ptr, r->backend_ctx);
    } else {
      std::free(r->ptr);
    }
    delete r;
  }
}

bool is_pinned_ptr(const void* ptr) noexcept {
  auto p = reinterpret_cast<uintptr_t>(ptr);
  PinnedPool& pool = pinned_pool();
  std::lock_guard<std::mutex> lock(pool.mu);
  auto it = pool.live.upper_bound(p);
  if (it == pool.live.begin()) return false;
  --it;
  return p < it->first + it->second->cls;
}

}  // namespace locus::memory

// ---- the public API -------------------------------------------------------------------------
namespace locus {
namespace {

memory::DeviceAllocator& alloc_of(Device d) { return memory::allocator_for(d); }

std::string format_double(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

int64_t memory_allocated(Device d) { return alloc_of(d).stats().allocated; }
int64_t max_memory_allocated(Device d) { return alloc_of(d).stats().allocated_peak; }
int64_t memory_reserved(Device d) { return alloc_of(d).stats().reserved; }
int64_t max_memory_reserved(Device d) { return alloc_of(d).stats().reserved_peak; }
void reset_peak_memory_stats(Device d) { alloc_of(d).reset_peak_stats(); }
void empty_cache(Device d) { alloc_of(d).empty_cache(); }

std::map<std::string, int64_t> memory_stats(Device d) {
  memory::Stats s = alloc_of(d).stats();
  return {
      {"allocated_bytes.current", s.allocated}, {"allocated_bytes.peak", s.allocated_peak},
      {"reserved_bytes.current", s.reserved},   {"reserved_bytes.peak", s.reserved_peak},
      {"requested_bytes.current", s.requested}, {"num_alloc_retries", s.retries},
      {"num_ooms", s.oom_count},                {"num_device_alloc", s.device_alloc_count},
      {"num_device_free", s.device_free_count}, {"num_allocs", s.alloc_count},
      {"num_frees", s.free_count},              {"num_cache_hits", s.cache_hits},
      {"segment.current", s.segment_count},     {"largest_free_block", s.largest_free_block},
      {"limit_bytes", s.limit},
  };
}

std::string memory_summary(Device d) {
  d = resolve_device(d);
  memory::Stats s = alloc_of(d).stats();
  auto sz = [](int64_t v) { return memory::detail::format_size(static_cast<size_t>(v)); };
  std::ostringstream os;
  os << "locus memory summary for " << d.str() << "\n"
     << "  allocated        " << sz(s.allocated) << " (peak " << sz(s.allocated_peak) << ", requested "
     << sz(s.requested) << ")\n"
     << "  reserved         " << sz(s.reserved) << " (peak " << sz(s.reserved_peak) << ") in " << s.segment_count
     << " segments\n"
     << "  largest free     " << sz(s.largest_free_block) << "\n"
     << "  allocations      " << s.alloc_count << " (" << s.cache_hits << " from the cache), " << s.free_count
     << " frees\n"
     << "  device allocs    " << s.device_alloc_count << ", device frees " << s.device_free_count << "\n"
     << "  retries / OOMs   " << s.retries << " / " << s.oom_count << "\n"
     << "  limit            " << (s.limit == 0 ? std::string("none") : sz(s.limit)) << "\n";
  return os.str();
}

void set_per_process_memory_fraction(double fraction, Device d) {
  if (!(fraction > 0 && fraction <= 1))
    throw Error("[set_per_process_memory_fraction] fraction must be in (0, 1], got " + format_double(fraction) +
                ". Pass the share of the device's total memory to allow, or a byte cap to set_memory_limit().");
  memory::DeviceAllocator& a = alloc_of(d);
  auto bytes = static_cast<size_t>(fraction * static_cast<double>(a.total_memory()));
  a.set_limit(bytes == 0 ? 1 : bytes);  // 0 would mean "no limit"
}

void set_memory_limit(int64_t bytes, Device d) {
  if (bytes < 0)
    throw Error("[set_memory_limit] the limit must be a byte count >= 0 (0 removes it), got " +
                std::to_string(bytes) + ".");
  alloc_of(d).set_limit(static_cast<size_t>(bytes));
}

std::pair<int64_t, int64_t> mem_get_info(Device d) {
  d = resolve_device(d);
  memory::DeviceAllocator& a = alloc_of(d);  // checks that d exists
  backend::Backend* b = backend::get(d.type());
  if (b == nullptr) return {static_cast<int64_t>(a.total_memory()), static_cast<int64_t>(a.total_memory())};
  int index = backend::device_index(d);
  return {static_cast<int64_t>(b->free_memory(index)), static_cast<int64_t>(b->props(index).total_memory)};
}

namespace {
// Device `index` of `type` for the namespaced forms (-1: the current device).
Device indexed(DeviceType type, int index, const char* fn) {
  if (index == -1) return Device(type, current_device_index(type));
  if (index < 0 || index >= memory::kMaxIndex)
    throw Error("[" + std::string(device_type_name(type)) + "::" + fn + "] device index must be -1 (the current " +
                device_type_name(type) + " device) or a device number, got " + std::to_string(index) + ".");
  return Device(type, static_cast<DeviceIndex>(index));
}
// empty_cache() of a device type: every device of it that has an allocator.
void empty_cache_all(DeviceType type) {
  for (auto& slot : memory::g_allocators[static_cast<int>(type)])
    if (memory::DeviceAllocator* a = slot.load(std::memory_order_acquire)) a->empty_cache();
}
}  // namespace

#define LOCUS_DEFINE_MEMORY_API(ns, TYPE)                                                                  \
  namespace ns {                                                                                         \
  int64_t memory_allocated(int i) { return locus::memory_allocated(indexed(TYPE, i, "memory_allocated")); } \
  int64_t max_memory_allocated(int i) {                                                                  \
    return locus::max_memory_allocated(indexed(TYPE, i, "max_memory_allocated"));                        \
  }                                                                                                      \
  int64_t memory_reserved(int i) { return locus::memory_reserved(indexed(TYPE, i, "memory_reserved")); }   \
  int64_t max_memory_reserved(int i) {                                                                   \
    return locus::max_memory_reserved(indexed(TYPE, i, "max_memory_reserved"));                          \
  }                                                                                                      \
  void reset_peak_memory_stats(int i) {                                                                  \
    locus::reset_peak_memory_stats(indexed(TYPE, i, "reset_peak_memory_stats"));                         \
  }                                                                                                      \
  void empty_cache() { empty_cache_all(TYPE); }                                                          \
  std::map<std::string, int64_t> memory_stats(int i) {                                                   \
    return locus::memory_stats(indexed(TYPE, i, "memory_stats"));                                        \
  }                                                                                                      \
  std::string memory_summary(int i) { return locus::memory_summary(indexed(TYPE, i, "memory_summary")); } \
  void set_per_process_memory_fraction(double f, int i) {                                                \
    locus::set_per_process_memory_fraction(f, indexed(TYPE, i, "set_per_process_memory_fraction"));      \
  }                                                                                                      \
  std::pair<int64_t, int64_t> mem_get_info(int i) {                                                      \
    return locus::mem_get_info(indexed(TYPE, i, "mem_get_info"));                                        \
  }                                                                                                      \
  }

LOCUS_DEFINE_MEMORY_API(cuda, kCUDA)
LOCUS_DEFINE_MEMORY_API(opencl, kOpenCL)
#undef LOCUS_DEFINE_MEMORY_API

// ---- Tensor::record_stream ------------------------------------------------------------------
void Tensor::record_stream(const Stream& stream) const {
  if (!defined()) throw Error("[record_stream] the tensor is undefined. Call it on a tensor that holds memory.");
  Device d = device();
  if (stream.device() != d)
    throw DeviceMismatchError("[record_stream] the stream is on " + stream.device().str() + " but the tensor is on " +
                              d.str() + ". Record a stream of the tensor's own device.");
  const Storage* s = impl()->storage.get();
  if (d.is_cpu() || s == nullptr || s->allocator == nullptr) return;  // synchronous, or not ours
  s->allocator->record_stream(s->alloc, stream.handle(), stream.handle_);
}

}  // namespace locus
