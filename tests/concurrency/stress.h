#pragma once
// Helpers of the concurrency tests: a bounded run time, threads that rethrow, and the memory
// statistics that must come back to where they were.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "locus/locus.h"

namespace stress {

/// A check inside a worker thread: throws, so run_threads reports it with the thread's number
/// (gtest's EXPECT_* macros are not meant to fail from many threads at once).
inline void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

/// How long each test hammers: LOCUS_STRESS_SECONDS (default 2). Every thread does at least one
/// round whatever the time, so a slow sanitizer build still runs every path.
inline double seconds() {
  const char* s = std::getenv("LOCUS_STRESS_SECONDS");
  double v = s != nullptr ? std::atof(s) : 0.0;
  return v > 0 ? v : 2.0;
}

/// Runs body(thread, round) on `threads` threads until seconds() have passed (at least one round
/// each). Returns the rounds done in all; the first exception of any thread fails the test.
inline int64_t run_threads(int threads, const std::function<void(int, int64_t)>& body) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds());
  std::atomic<int64_t> rounds{0};
  std::mutex mu;
  std::string first_error;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        for (int64_t r = 0; r == 0 || std::chrono::steady_clock::now() < end; ++r) {
          body(t, r);
          rounds.fetch_add(1, std::memory_order_relaxed);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> g(mu);
        if (first_error.empty()) first_error = "thread " + std::to_string(t) + ": " + e.what();
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(first_error, "");
  return rounds.load();
}

/// The counters that must return exactly to their values before a test: live bytes (rounded and
/// requested), reserved bytes and segments once the cache is emptied, and allocs minus frees.
struct Snapshot {
  int64_t allocated, requested, reserved, segments, live_allocs;
};
inline Snapshot settled(locus::Device d) {
  locus::synchronize(d);
  locus::empty_cache(d);
  auto s = locus::memory_stats(d);
  return {s["allocated_bytes.current"], s["requested_bytes.current"], s["reserved_bytes.current"],
          s["segment.current"], s["num_allocs"] - s["num_frees"]};
}
inline void expect_same(const Snapshot& before, const Snapshot& after) {
  EXPECT_EQ(after.allocated, before.allocated) << "allocated_bytes.current";
  EXPECT_EQ(after.requested, before.requested) << "requested_bytes.current";
  EXPECT_EQ(after.reserved, before.reserved) << "reserved_bytes.current after empty_cache";
  EXPECT_EQ(after.segments, before.segments) << "segment.current after empty_cache";
  EXPECT_EQ(after.live_allocs, before.live_allocs) << "num_allocs - num_frees";
}

}  // namespace stress
