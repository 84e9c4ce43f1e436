#pragma once
// BlockClaims: blocks [0, blocks) handed to `threads` threads as they come free, each thread first
// taking its own contiguous share in order (thread t: blocks [t * blocks / threads, (t + 1) *
// blocks / threads)), then, when that is done, what is left of the others' shares. With no
// thread held up, thread t works on the same t-th part of the data as the pool's static splits
// (parallel_for gives its chunk t the t-th part of the range): the elementwise ops and pools before
// and after a convolution find their part in their own core's cache. A single shared counter
// instead handed the blocks out alternately, so about half of each thread's blocks had been
// written, or would be read next, on the other core. A thread held up (a shared machine's core
// taken away for a while) still holds no one up: the others take its blocks.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace locus::cpu {

class BlockClaims {
 public:
  BlockClaims(int64_t blocks, int64_t threads)
      : threads_(std::max<int64_t>(threads, 1)), shares_(new Share[static_cast<size_t>(threads_)]) {
    for (int64_t t = 0; t < threads_; ++t) {
      shares_[t].next.store(t * blocks / threads_, std::memory_order_relaxed);
      shares_[t].end = (t + 1) * blocks / threads_;
    }
  }

  /// The next block for thread t (0 <= t < threads), or -1 when every block has been taken.
  int64_t next(int64_t t) {
    for (int64_t i = 0; i < threads_; ++i) {
      Share& s = shares_[(t + i) % threads_];
      if (s.next.load(std::memory_order_relaxed) >= s.end) continue;
      const int64_t b = s.next.fetch_add(1, std::memory_order_relaxed);
      if (b < s.end) return b;
    }
    return -1;
  }

 private:
  struct alignas(64) Share {  // one cache line each: the threads' counters do not share one
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  int64_t threads_;
  std::unique_ptr<Share[]> shares_;
};

}  // namespace locus::cpu
