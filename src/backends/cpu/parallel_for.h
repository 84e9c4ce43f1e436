#pragma once
// parallel_for over the one CPU thread pool (src/backends/cpu/parallel.cpp).
//
// parallel_for(begin, end, grain, fn) calls fn(b, e) on disjoint sub-ranges covering [begin, end),
// each at least `grain` long (except when the whole range is shorter). It runs inline, on the
// calling thread and with no synchronisation at all, when the range is below 2 * grain, when the
// pool has one thread, or when called from inside another parallel region (no nesting). fn must
// not throw across threads; an exception thrown by fn is rethrown on the calling thread.
#include <cstdint>
#include <type_traits>

namespace locus::cpu {

/// Threads the pool uses, the calling thread included (locus::get_num_threads()).
int num_threads() noexcept;
/// True on a thread currently running a parallel_for body.
bool in_parallel_region() noexcept;

namespace detail {
using RangeFn = void (*)(void* ctx, int64_t b, int64_t e);
/// Splits [begin, end) into `chunks` pieces and runs them on the pool and the calling thread.
void parallel_run(int64_t begin, int64_t end, int chunks, RangeFn fn, void* ctx);
/// Makes the pool's spinning workers sleep now: for callers about to run other threads (the
/// BLAS's own) on the cores the workers would spin on.
void park_workers() noexcept;
}  // namespace detail

template <class F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, F&& fn) {
  int64_t n = end - begin;
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = n / grain;
  if (chunks >= 2) {
    int nt = num_threads();
    if (nt > 1 && !in_parallel_region()) {
      using Fn = std::remove_reference_t<F>;
      detail::parallel_run(begin, end, static_cast<int>(chunks < nt ? chunks : nt),
                           [](void* c, int64_t b, int64_t e) { (*static_cast<Fn*>(c))(b, e); },
                           const_cast<void*>(static_cast<const void*>(&fn)));
      return;
    }
  }
  fn(begin, end);
}

}  // namespace locus::cpu
