// CPU backend: BlockClaims (src/backends/cpu/block_claims.h), how the convolutions hand their
// blocks of images to the pool's threads: each thread its own contiguous share first, in order,
// then the rest of the others'; every block exactly once, however the threads interleave.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "backends/cpu/block_claims.h"

namespace block_claims_test {
namespace {

using locus::cpu::BlockClaims;

std::vector<int64_t> drain(BlockClaims& c, int64_t t) {
  std::vector<int64_t> got;
  for (int64_t b; (b = c.next(t)) >= 0;) got.push_back(b);
  return got;
}

TEST(CpuBlockClaims, EachThreadTakesItsOwnShareFirstInOrder) {
  BlockClaims c(16, 2);
  // taken in turns: thread 0 the first half, thread 1 the second, each in order
  std::vector<int64_t> t0, t1;
  for (int i = 0; i < 8; ++i) {
    t0.push_back(c.next(0));
    t1.push_back(c.next(1));
  }
  EXPECT_EQ(t0, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t1, (std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(c.next(0), -1);
  EXPECT_EQ(c.next(1), -1);
}

TEST(CpuBlockClaims, AThreadThatIsHeldUpHasItsBlocksTakenByTheOthers) {
  BlockClaims c(10, 3);  // shares [0, 3), [3, 6), [6, 10)
  EXPECT_EQ(c.next(1), 3);
  EXPECT_EQ(drain(c, 0), (std::vector<int64_t>{0, 1, 2, 4, 5, 6, 7, 8, 9}));  // its own, then 1's, then 2's
  EXPECT_EQ(c.next(1), -1);
  EXPECT_EQ(c.next(2), -1);
}

TEST(CpuBlockClaims, MoreThreadsThanBlocksAndNoBlocks) {
  BlockClaims few(2, 4);  // shares [0, 0), [0, 1), [1, 1), [1, 2)
  std::vector<int64_t> all;
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t b : drain(few, t)) all.push_back(b);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int64_t>{0, 1}));
  BlockClaims none(0, 2);
  EXPECT_EQ(none.next(0), -1);
  EXPECT_EQ(none.next(1), -1);
}

TEST(CpuBlockClaims, EveryBlockOnceUnderContention) {
  constexpr int64_t kBlocks = 20000, kThreads = 4;
  BlockClaims c(kBlocks, kThreads);
  std::vector<std::atomic<int>> seen(kBlocks);
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int64_t b; (b = c.next(t)) >= 0;) seen[static_cast<size_t>(b)].fetch_add(1);
    });
  for (std::thread& th : threads) th.join();
  int64_t wrong = 0;
  for (const auto& s : seen) wrong += s.load() != 1;
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace block_claims_test
