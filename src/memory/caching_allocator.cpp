// The caching allocator, after PyTorch's CUDACachingAllocator but small.
//
// Memory comes from the device in segments (RawDevice::alloc) and is handed out in blocks, byte
// ranges of a segment. A Buffer is {segment handle, block offset}: the handle may be a cl_mem, so
// nothing here does arithmetic on it, only on offsets.
//
//  - Sizes round up to 512 B. Requests up to 1 MiB come from the small pool, carved out of 2 MiB
//    segments; larger ones from the large pool, whose segments are the request rounded up to
//    2 MiB. (PyTorch gives 1-10 MiB requests 20 MiB segments; we do not, so a limit a few MiB
//    above what is reserved behaves as a user expects.)
//  - Free blocks sit in an ordered set per pool keyed (stream, size, segment, offset): a request
//    takes the smallest free block of its own stream that fits (best fit). Blocks never move
//    between streams, so memory freed on stream A is never handed to work on stream B before A's
//    work with it is done.
//  - A block larger than the request is split when the remainder is worth keeping: >= 512 B in
//    the small pool, > 1 MiB in the large pool (otherwise the block is handed out whole and
//    counted whole). On free, a block merges with free neighbours of its segment.
//  - record_stream(a, s) notes that a's memory is also used on s. Freeing such a block records
//    an event on every such stream and keeps the block out of the pools until all of them are
//    done; pending events are polled at the start of each allocate, and waited for by
//    empty_cache and the release before a retry.
//  - A new segment that would take reserved over the limit, or a device that returns nullptr,
//    makes us release every free whole segment (after waiting for pending events) and try once
//    more; then OutOfMemoryError says what was asked, what is allocated, reserved and free, the
//    largest free block and the remedy that fits.
//  - One mutex guards everything. The hot path (a cached block of the same size on the same
//    stream) does not touch malloc: Block objects and set nodes are recycled. Splitting and
//    merging change a pooled block's key in place when its neighbours in the set stay ordered,
//    so carving a small block off a segment and giving it back costs two tree searches.
#include "memory/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <vector>

#include "core/fault.h"
#include "locus/error.h"

namespace locus::memory {
namespace {

constexpr size_t kMinBlock = 512;             // rounding and smallest small-pool split
constexpr size_t kSmallSize = size_t{1} << 20;  // requests up to this use the small pool
constexpr size_t kSegmentRound = size_t{2} << 20;  // small segments; large ones round to this
constexpr size_t kMaxSpareBlocks = 256;       // recycled Block objects kept

struct Block;
struct Key {
  backend::StreamHandle stream;
  size_t size;
};
inline bool stream_less(const void* a, const void* b) { return std::less<const void*>()(a, b); }
struct BlockLess {
  using is_transparent = void;
  bool operator()(const Block* a, const Block* b) const;
  bool operator()(const Block* a, const Key& k) const;
};
using Pool = std::set<Block*, BlockLess>;

enum class State : uint8_t { Allocated, Cached, Pending };  // Pending: waiting on stream events

struct Block {
  backend::StreamHandle stream = nullptr;
  size_t size = 0;
  void* base = nullptr;  // segment handle
  size_t offset = 0;     // bytes into the segment
  size_t requested = 0;  // while allocated
  Block* prev = nullptr;  // neighbours within the segment
  Block* next = nullptr;
  Pool* pool = nullptr;
  State state = State::Cached;
  int pending_events = 0;
  // record_stream: the streams and their owners (kept alive until free has recorded on them)
  std::vector<std::pair<backend::StreamHandle, std::shared_ptr<void>>> streams;
  Pool::node_type node;  // this block's set node while it is out of the pool, for reuse
  bool whole_segment() const { return prev == nullptr && next == nullptr; }
};

bool BlockLess::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return stream_less(a->stream, b->stream);
  if (a->size != b->size) return a->size < b->size;
  if (a->base != b->base) return stream_less(a->base, b->base);
  return a->offset < b->offset;
}
bool BlockLess::operator()(const Block* a, const Key& k) const {
  return a->stream != k.stream ? stream_less(a->stream, k.stream) : a->size < k.size;
}

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

}  // namespace

struct CachingAllocator::Impl {
  std::unique_ptr<RawDevice> dev;
  std::mutex mu;
  Pool small, large;
  std::vector<std::pair<void*, Block*>> pending;  // (event, block) from record_stream
  std::vector<Block*> spare;
  Stats st;
  size_t limit = 0;

  explicit Impl(std::unique_ptr<RawDevice> d) : dev(std::move(d)) {}

  Block* new_block() {
    if (spare.empty()) return new Block;
    Block* b = spare.back();
    spare.pop_back();
    return b;
  }
  void recycle(Block* b) {
    if (spare.size() >= kMaxSpareBlocks) {
      delete b;
      return;
    }
    b->prev = b->next = nullptr;
    b->streams.clear();
    b->pending_events = 0;
    spare.push_back(b);
  }
  void insert(Block* b) {
    b->state = State::Cached;
    if (!b->node.empty()) b->pool->insert(std::move(b->node));
    else b->pool->insert(b);
  }
  void extract(Block* b) { b->node = b->pool->extract(b); }

  // Gives the pooled block at `it` a new offset and size: in place when the set stays ordered
  // (the usual case: few blocks per stream and size), else by moving its node.
  void rekey(Pool::iterator it, size_t offset, size_t size) {
    Block* b = *it;
    Pool& pool = *b->pool;
    b->offset = offset;
    b->size = size;
    BlockLess less;
    if ((it != pool.begin() && !less(*std::prev(it), b)) || (std::next(it) != pool.end() && !less(b, *std::next(it)))) {
      b->node = pool.extract(it);
      insert(b);
    }
  }

  // Returns a freed block to its pool, merged with free neighbours: a cached neighbour absorbs it.
  void free_block(Block* b) {
    Block* p = b->prev;
    Block* n = b->next;
    bool prev_free = p != nullptr && p->state == State::Cached;
    bool next_free = n != nullptr && n->state == State::Cached;
    if (!prev_free && !next_free) {
      insert(b);
      return;
    }
    Block* keep = prev_free ? p : n;
    auto it = keep->pool->find(keep);
    size_t offset = prev_free ? p->offset : b->offset;
    size_t size = keep->size + b->size;
    if (prev_free) {
      if (next_free) {  // p absorbs b and n
        extract(n);
        size += n->size;
        p->next = n->next;
        recycle(n);
      } else {
        p->next = n;
      }
      if (p->next) p->next->prev = p;
    } else {  // n absorbs b
      n->prev = p;
      if (p) p->next = n;
    }
    rekey(it, offset, size);
    recycle(b);
  }

  void event_finished(size_t i) {
    Block* b = pending[i].second;
    dev->release_event(pending[i].first);
    pending[i] = pending.back();
    pending.pop_back();
    if (--b->pending_events == 0) free_block(b);
  }
  void process_events() {
    for (size_t i = 0; i < pending.size();) {
      if (dev->event_done(pending[i].first)) event_finished(i);
      else ++i;
    }
  }
  void wait_events() {
    while (!pending.empty()) {
      dev->wait_event(pending.back().first);
      event_finished(pending.size() - 1);
    }
  }

  // Waits for pending events, then returns every free whole segment to the device.
  void release_cached() {
    wait_events();
    for (Pool* pool : {&small, &large}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* b = *it;
        if (!b->whole_segment()) {
          ++it;
          continue;
        }
        it = pool->erase(it);
        dev->free(b->base);
        st.reserved -= static_cast<int64_t>(b->size);
        st.segment_count -= 1;
        st.device_free_count += 1;
        recycle(b);
      }
    }
  }

  size_t largest_free() const {
    size_t m = 0;
    for (const Pool* pool : {&small, &large})
      for (const Block* b : *pool) m = std::max(m, b->size);
    return m;
  }

  // `refuse`: an injected fault (core/fault.h): the device returns nullptr, as when it is full.
  void* try_segment(size_t seg, bool& limit_hit, bool refuse) {
    limit_hit = limit != 0 && static_cast<size_t>(st.reserved) + seg > limit;
    return limit_hit || refuse ? nullptr : dev->alloc(seg);
  }

  [[noreturn]] void throw_oom(size_t bytes, size_t size, bool limit_hit) {
    st.oom_count += 1;
    detail::OomReport r;
    r.device = dev->name();
    r.requested = bytes;
    try {
      r.total = dev->total_memory();
      r.free = dev->free_memory();
    } catch (...) {  // the report matters more than these two numbers
    }
    r.limit = limit;
    r.allocated = static_cast<size_t>(st.allocated);
    r.reserved = static_cast<size_t>(st.reserved);
    r.largest_free = largest_free();
    r.limit_hit = limit_hit;
    r.fragmented = r.reserved - r.allocated >= size;
    throw OutOfMemoryError(detail::oom_message(r));
  }

  bool worth_splitting(const Pool& pool, size_t rest) const {
    return &pool == &small ? rest >= kMinBlock : rest > kSmallSize;
  }

  // A new segment holding one free block of the whole segment, for a request of `size`.
  Block* new_segment(Pool& pool, backend::StreamHandle stream, size_t size, size_t bytes, bool refuse) {
    size_t seg = &pool == &small ? kSegmentRound : round_up(size, kSegmentRound);
    bool limit_hit = false;
    void* base = try_segment(seg, limit_hit, refuse);
    if (base == nullptr) {
      st.retries += 1;
      release_cached();
      base = try_segment(seg, limit_hit, refuse);
      if (base == nullptr) throw_oom(bytes, size, limit_hit);
    }
    st.reserved += static_cast<int64_t>(seg);
    st.reserved_peak = std::max(st.reserved_peak, st.reserved);
    st.segment_count += 1;
    st.device_alloc_count += 1;
    Block* b = new_block();
    b->stream = stream;
    b->size = seg;
    b->base = base;
    b->offset = 0;
    b->pool = &pool;
    return b;
  }

  Allocation allocate(size_t bytes, backend::StreamHandle stream) {
    const bool refuse = fault::hit(fault::kAlloc);  // an injected OOM: no cached block, no segment
    std::lock_guard<std::mutex> lock(mu);
    if (!pending.empty()) process_events();
    if (bytes > (SIZE_MAX >> 1)) throw_oom(bytes, bytes, false);
    size_t size = round_up(bytes, kMinBlock);
    Pool& pool = size <= kSmallSize ? small : large;
    Block* b = nullptr;
    auto it = refuse ? pool.end() : pool.lower_bound(Key{stream, size});
    if (it != pool.end() && (*it)->stream == stream) {
      st.cache_hits += 1;
      Block* f = *it;
      if (worth_splitting(pool, f->size - size)) {  // b takes f's front, f keeps the rest
        b = new_block();
        b->stream = stream;
        b->base = f->base;
        b->offset = f->offset;
        b->size = size;
        b->pool = &pool;
        b->prev = f->prev;
        b->next = f;
        if (f->prev) f->prev->next = b;
        f->prev = b;
        rekey(it, f->offset + size, f->size - size);
      } else {
        b = f;
        b->node = pool.extract(it);
      }
    } else {
      b = new_segment(pool, stream, size, bytes, refuse);
      if (worth_splitting(pool, b->size - size)) {
        Block* r = new_block();
        r->stream = stream;
        r->size = b->size - size;
        r->base = b->base;
        r->offset = size;
        r->pool = &pool;
        r->prev = b;
        b->next = r;
        b->size = size;
        insert(r);
      }
    }
    b->state = State::Allocated;
    b->requested = bytes;
    st.allocated += static_cast<int64_t>(b->size);
    st.allocated_peak = std::max(st.allocated_peak, st.allocated);
    st.requested += static_cast<int64_t>(bytes);
    st.alloc_count += 1;
    Allocation a;
    a.buf.base = b->base;
    a.buf.offset = b->offset;
    a.size = bytes;
    a.ctx = b;
    return a;
  }

  void free(Block* b) noexcept {
    std::vector<std::pair<backend::StreamHandle, std::shared_ptr<void>>> used;  // released after the lock
    std::lock_guard<std::mutex> lock(mu);
    if (b->state != State::Allocated) return;  // double free: ignore
    st.allocated -= static_cast<int64_t>(b->size);
    st.requested -= static_cast<int64_t>(b->requested);
    st.free_count += 1;
    if (b->streams.empty()) {
      free_block(b);
      return;
    }
    b->state = State::Pending;
    bool failed = false;
    used.swap(b->streams);
    for (auto& [s, owner] : used) {
      try {
        void* e = dev->record_event(s);
        pending.emplace_back(e, b);
        b->pending_events += 1;
      } catch (...) {
        failed = true;  // cannot tell when that stream is done with it: never reuse the block
      }
    }
    if (b->pending_events == 0 && !failed) free_block(b);
  }
};

CachingAllocator::CachingAllocator(std::unique_ptr<RawDevice> device)
    : impl_(std::make_unique<Impl>(std::move(device))) {}

CachingAllocator::~CachingAllocator() {
  Impl& m = *impl_;
  for (auto& [e, b] : m.pending) m.dev->release_event(e);  // their blocks stay with the process
  for (Pool* pool : {&m.small, &m.large}) {
    for (Block* b : *pool) {
      if (b->whole_segment()) m.dev->free(b->base);
      delete b;
    }
    pool->clear();
  }
  for (Block* b : m.spare) delete b;
}

Allocation CachingAllocator::allocate(size_t bytes, backend::StreamHandle stream) {
  if (bytes == 0) return {};
  return impl_->allocate(bytes, stream);
}

void CachingAllocator::free(const Allocation& a) noexcept {
  if (a.ctx != nullptr) impl_->free(static_cast<Block*>(a.ctx));
}

void CachingAllocator::record_stream(const Allocation& a, backend::StreamHandle stream,
                                     std::shared_ptr<void> keep_alive) {
  auto* b = static_cast<Block*>(a.ctx);
  if (b == nullptr) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (b->state != State::Allocated || stream == b->stream) return;
  for (const auto& [s, owner] : b->streams)
    if (s == stream) return;
  b->streams.emplace_back(stream, std::move(keep_alive));
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->release_cached();
}

Stats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Stats s = impl_->st;
  s.largest_free_block = static_cast<int64_t>(impl_->largest_free());
  s.limit = static_cast<int64_t>(impl_->limit);
  return s;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->st.allocated_peak = impl_->st.allocated;
  impl_->st.reserved_peak = impl_->st.reserved;
}

void CachingAllocator::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->limit = bytes;
}

size_t CachingAllocator::total_memory() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->dev->total_memory();
}

// ---- a Backend device as a RawDevice ----------------------------------------------------------
namespace {
class BackendRawDevice final : public RawDevice {
 public:
  BackendRawDevice(backend::Backend* b, int index) : b_(b), index_(index) {}
  void* alloc(size_t bytes) override { return b_->raw_alloc(index_, bytes); }
  void free(void* base) noexcept override { b_->raw_free(index_, base); }
  size_t total_memory() override {
    if (total_ == 0) total_ = b_->props(index_).total_memory;
    return total_;
  }
  size_t free_memory() override { return b_->free_memory(index_); }
  void* record_event(backend::StreamHandle stream) override {
    backend::EventHandle e = b_->event_create(index_, false);
    try {
      b_->event_record(index_, e, stream);
    } catch (...) {
      b_->event_destroy(index_, e);
      throw;
    }
    return e;
  }
  bool event_done(void* e) override { return b_->event_query(index_, e); }
  void wait_event(void* e) override { b_->event_synchronize(index_, e); }
  void release_event(void* e) noexcept override { b_->event_destroy(index_, e); }
  std::string name() override {
    return Device(b_->type(), static_cast<DeviceIndex>(index_)).str();
  }

 private:
  backend::Backend* b_;
  int index_;
  size_t total_ = 0;
};
}  // namespace

std::unique_ptr<RawDevice> backend_raw_device(backend::Backend* b, int index) {
  return std::make_unique<BackendRawDevice>(b, index);
}

// ---- the out-of-memory report ---------------------------------------------------------------
namespace detail {

std::string format_size(size_t bytes) {
  char buf[64];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else if (bytes < (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / 1024.0);
  else if (bytes < (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  return buf;
}

std::string oom_message(const OomReport& r) {
  using detail::format_size;
  std::string m = r.device + " out of memory: tried to allocate " + format_size(r.requested) + ". Device " +
                  r.device + " has a total capacity of " + format_size(r.total) + " of which " +
                  format_size(r.free) + " is free";
  if (r.limit != 0)
    m += "; the limit set with set_per_process_memory_fraction/set_memory_limit is " + format_size(r.limit);
  m += ". Of the allocated memory " + format_size(r.allocated) + " is allocated by locus";
  if (r.caching)
    m += ", and " + format_size(r.reserved - r.allocated) + " is reserved by locus but unallocated (largest free cached block: " +
         format_size(r.largest_free) + ")";
  m += ". ";
  if (r.fragmented)
    m += "The unallocated reserved memory would hold the request, but fragmentation prevents reusing it: its free "
         "blocks are too small and lie in segments that live tensors still use; freeing those tensors returns it. ";
  if (r.limit_hit)
    m += "The request would exceed the limit: free tensors you no longer need, reduce the batch size, or raise the "
         "limit with set_memory_limit(bytes, device) or set_per_process_memory_fraction(fraction, device).";
  else
    m += "Free tensors you no longer need or reduce the batch size.";
  return m;
}

}  // namespace detail
}  // namespace locus::memory
