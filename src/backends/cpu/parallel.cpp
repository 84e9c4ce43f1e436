// The one CPU thread pool: elementwise ops, reductions and (through blas_set_num_threads) the BLAS.
//
// Design. num_threads - 1 persistent workers plus the calling thread, which always takes part.
// A job is a range split into `chunks` pieces. It is published in one 64-bit word, `state_` =
// generation (32 bits) | chunk count (16) | next unclaimed chunk (16); participants claim chunks
// with a compare-and-swap on that word, so a worker that wakes late, after its job has finished,
// fails the claim (the generation moved on) and never reads the fields of a job it was not part
// of. Job fields are read only after a successful claim; the job cannot finish, and its fields
// cannot be rewritten, until every claimed chunk is done. Workers spin briefly after a job (ops
// arrive in bursts and a futex wake costs microseconds), then sleep on the 32-bit generation
// (std::atomic::wait, a futex on Linux). One parallel region runs at a time: a second thread
// that finds the pool busy runs its range inline, so callers never wait on each other.
// After fork() the child gets a fresh pool on first use (the parent's threads do not exist there).
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/parallel_for.h"
#include "locus/error.h"
#include "locus/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOCUS_CPU_RELAX() _mm_pause()
#else
#define LOCUS_CPU_RELAX() std::this_thread::yield()
#endif

namespace locus::cpu {
namespace {

thread_local bool t_in_parallel = false;

// set_flush_denormal: the mode, and a generation that a pool thread compares with the one it last
// applied before each job (one relaxed load per job).
std::atomic<uint32_t> g_fp_gen{0};
std::atomic<bool> g_flush{false};
thread_local uint32_t t_fp_gen = 0;

bool set_fp_mode(bool flush) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned kFtzDaz = 0x8040;  // MXCSR: flush to zero (bit 15), denormals are zero (bit 6)
  _mm_setcsr(flush ? (_mm_getcsr() | kFtzDaz) : (_mm_getcsr() & ~kFtzDaz));
  return true;
#else
  (void)flush;
  return false;
#endif
}

void follow_fp_mode() noexcept {
  const uint32_t g = g_fp_gen.load(std::memory_order_acquire);
  if (g == t_fp_gen) return;
  t_fp_gen = g;
  set_fp_mode(g_flush.load(std::memory_order_relaxed));
}

int default_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned h = std::thread::hardware_concurrency();
  return h > 0 ? static_cast<int>(h) : 1;
}

std::atomic<int>& thread_count() {
  static std::atomic<int> n{default_threads()};
  return n;
}

// How long an idle worker spins before it sleeps. A training step's ops come every few to a few
// hundred microseconds, with serial work (autograd, small ops) in between; waking a sleeping
// worker costs tens of microseconds on a virtual machine, so a 50 us spin cost a CNN step about
// 10 % (26 sleeps and wakes per step). Callers about to hand the cores to other threads (the
// BLAS's own) park the workers first (detail::park_workers).
constexpr auto kSpin = std::chrono::microseconds(300);

class Pool {
 public:
  explicit Pool(int n) { spawn(n); }

  void run(int64_t begin, int64_t end, int chunks, detail::RangeFn fn, void* ctx) {
    std::unique_lock<std::mutex> lock(run_mu_, std::try_to_lock);
    if (!lock.owns_lock() || workers_.empty()) {  // another region is running: do it here
      fn(ctx, begin, end);
      return;
    }
    if (chunks > static_cast<int>(workers_.size()) + 1) chunks = static_cast<int>(workers_.size()) + 1;
    fn_ = fn;
    ctx_ = ctx;
    begin_ = begin;
    end_ = end;
    error_ = nullptr;
    remaining_.store(chunks, std::memory_order_relaxed);
    uint32_t g = gen_.load(std::memory_order_relaxed) + 1;
    state_.store(pack(g, static_cast<uint32_t>(chunks), 0), std::memory_order_release);
    gen_.store(g, std::memory_order_release);
    gen_.notify_all();
    work(g);
    // wait for the chunks other threads claimed
    auto t0 = std::chrono::steady_clock::now();
    int left;
    while ((left = remaining_.load(std::memory_order_acquire)) != 0) {
      if (std::chrono::steady_clock::now() - t0 < kSpin) {
        LOCUS_CPU_RELAX();
      } else {
        remaining_.wait(left, std::memory_order_acquire);
      }
    }
    if (error_) std::rethrow_exception(error_);
  }

  // Spinning workers go to sleep now (they wake for the next job as usual).
  void park() { park_.fetch_add(1, std::memory_order_relaxed); }

  // Joins the workers and starts n - 1 new ones (n >= 1).
  void resize(int n) {
    std::lock_guard<std::mutex> lock(run_mu_);
    stop_.store(true, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    stop_.store(false, std::memory_order_relaxed);
    spawn(n);
  }

 private:
  static uint64_t pack(uint32_t gen, uint32_t chunks, uint32_t next) {
    return (static_cast<uint64_t>(gen) << 32) | (static_cast<uint64_t>(chunks) << 16) | next;
  }

  void spawn(int n) {
    uint32_t g = gen_.load(std::memory_order_acquire);
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, g] { worker(g); });
  }

  // Claims and runs chunks of job `g` until none is left.
  void work(uint32_t g) {
    bool was = t_in_parallel;
    t_in_parallel = true;
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if (static_cast<uint32_t>(s >> 32) != g) break;
      uint32_t chunks = static_cast<uint32_t>(s >> 16) & 0xffffu, next = static_cast<uint32_t>(s) & 0xffffu;
      if (next >= chunks) break;
      if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      int64_t n = end_ - begin_, q = n / chunks, r = n % chunks;
      int64_t b = begin_ + q * next + std::min<int64_t>(next, r);
      int64_t e = b + q + (next < r ? 1 : 0);
      try {
        fn_(ctx_, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
      s = state_.load(std::memory_order_acquire);
    }
    t_in_parallel = was;
  }

  void worker(uint32_t seen) {
    t_in_parallel = true;
    for (;;) {
      uint32_t g = gen_.load(std::memory_order_acquire);
      if (g == seen) {
        auto t0 = std::chrono::steady_clock::now();
        const uint32_t parked = park_.load(std::memory_order_relaxed);
        while ((g = gen_.load(std::memory_order_acquire)) == seen &&
               park_.load(std::memory_order_relaxed) == parked && std::chrono::steady_clock::now() - t0 < kSpin)
          LOCUS_CPU_RELAX();
        if (g == seen) {
          gen_.wait(seen, std::memory_order_acquire);
          continue;
        }
      }
      seen = g;
      if (stop_.load(std::memory_order_relaxed)) return;
      follow_fp_mode();
      work(g);
    }
  }

  std::mutex run_mu_;
  std::vector<std::thread> workers_;
  std::atomic<uint32_t> gen_{0};
  std::atomic<uint32_t> park_{0};
  std::atomic<uint64_t> state_{0};
  std::atomic<int> remaining_{0};
  std::atomic<bool> stop_{false};
  detail::RangeFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t begin_ = 0, end_ = 0;
  std::mutex error_mu_;
  std::exception_ptr error_;
};

std::atomic<Pool*> g_pool{nullptr};
std::mutex g_pool_mu;

void forget_pool_after_fork() { g_pool.store(nullptr); }  // the child re-creates it (the old one leaks)

Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p) return *p;
  std::lock_guard<std::mutex> lock(g_pool_mu);
  p = g_pool.load(std::memory_order_acquire);
  if (!p) {
    static bool registered = (pthread_atfork(nullptr, nullptr, forget_pool_after_fork), true);
    (void)registered;
    p = new Pool(thread_count().load());  // lives for the process: no exit-time join
    g_pool.store(p, std::memory_order_release);
  }
  return *p;
}

}  // namespace

int num_threads() noexcept { return thread_count().load(std::memory_order_relaxed); }
bool in_parallel_region() noexcept { return t_in_parallel; }

void detail::park_workers() noexcept {
  if (Pool* p = g_pool.load(std::memory_order_acquire)) p->park();
}

void detail::parallel_run(int64_t begin, int64_t end, int chunks, RangeFn fn, void* ctx) {
  pool().run(begin, end, chunks, fn, ctx);
}

}  // namespace locus::cpu

namespace locus {

int get_num_threads() { return cpu::num_threads(); }

bool set_flush_denormal(bool on) {
  if (!cpu::set_fp_mode(on)) return false;
  cpu::g_flush.store(on, std::memory_order_relaxed);
  cpu::t_fp_gen = cpu::g_fp_gen.fetch_add(1, std::memory_order_acq_rel) + 1;  // this thread has it
  return true;
}

void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const std::function<void(int64_t, int64_t)>& f) {
  LOCUS_CHECK(static_cast<bool>(f), "[parallel_for] the function is empty.");
  LOCUS_CHECK(grain_size >= 0, "[parallel_for] grain_size must be non-negative, got " + std::to_string(grain_size) + ".");
  cpu::parallel_for(begin, end, grain_size, [&f](int64_t b, int64_t e) { f(b, e); });
}

bool in_parallel_region() { return cpu::in_parallel_region(); }

namespace {
std::atomic<int> g_interop_threads{1};
}

int get_num_interop_threads() { return g_interop_threads.load(std::memory_order_relaxed); }

void set_num_interop_threads(int n) {
  LOCUS_CHECK(n >= 1, "[set_num_interop_threads] expected a positive number of threads, got " + std::to_string(n) + ".");
  g_interop_threads.store(n, std::memory_order_relaxed);
}

void set_num_threads(int n) {
  LOCUS_CHECK(n >= 1, "[set_num_threads] expected a positive number of threads, got " + std::to_string(n) + ".");
  LOCUS_CHECK(!cpu::in_parallel_region(), "[set_num_threads] cannot be called from inside a parallel region.");
  if (n > 0xffff) n = 0xffff;
  cpu::thread_count().store(n);
  if (cpu::g_pool.load() != nullptr) cpu::pool().resize(n);
  cpu::blas_set_num_threads(n);
}

}  // namespace locus
