// DistributedSampler: PyTorch's index lists (from PyTorch 1.13 itself), shard sizes with padding
// and drop_last, disjoint shards that cover the dataset, set_epoch, libtorch's spellings, use with
// the loader and DevicePrefetcher, and argument errors.
#include "locus/data/samplers.h"

#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "locus/data.h"
#include "testing.h"

using namespace locus;
using namespace locus::data;

namespace samplers_test {
using samplers::DistributedSampler;

namespace {

std::string run(const std::string& cmd, int* status) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

std::vector<size_t> all_of(DistributedSampler& s) {
  std::vector<size_t> out;
  while (auto b = s.next(3)) out.insert(out.end(), b->begin(), b->end());
  return out;
}

struct Case {
  size_t n, replicas;
  bool shuffle;
  uint64_t seed;
  size_t epoch;
  bool drop_last;
};

/// Example i is data [i, i] (float) and target i (int64).
struct Numbers : datasets::Dataset<Numbers> {
  explicit Numbers(size_t n) : n(n) {}
  Example<> get(size_t i) override { return {full({2}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))}; }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

}  // namespace

TEST(DistributedSampler, IndexListsEqualPyTorchs) {
  // Odd sizes, padding longer than the dataset (2 examples, 5 replicas), drop_last with fewer
  // examples than replicas, an empty dataset, a seed above 2^32, later epochs, no shuffling.
  std::vector<Case> cases = {{10, 3, true, 0, 0, false},  {10, 3, true, 0, 0, true},   {10, 3, false, 0, 0, false},
                             {7, 4, true, 42, 3, false},  {2, 5, true, 1, 0, false},   {2, 5, true, 1, 0, true},
                             {0, 2, true, 0, 0, false},   {1000, 4, true, (1ull << 40) + 5, 1, false},
                             {101, 2, true, 7, 2, true},  {64, 1, true, 9, 0, false}};
  std::ostringstream py;
  py << "import torch\nfrom torch.utils.data import DistributedSampler\nfor n,R,sh,seed,ep,dl in [";
  for (const Case& c : cases)
    py << "(" << c.n << "," << c.replicas << "," << (c.shuffle ? "True" : "False") << "," << c.seed << "," << c.epoch
       << "," << (c.drop_last ? "True" : "False") << "),";
  py << "]:\n  for r in range(R):\n    s = DistributedSampler(range(n), num_replicas=R, rank=r, shuffle=sh, seed=seed, "
        "drop_last=dl)\n    s.set_epoch(ep)\n    print(len(s), *list(s))\n";
  int status = 0;
  std::string out = run("/usr/bin/python3 -c '" + py.str() + "'", &status);
  ASSERT_EQ(status, 0) << "PyTorch 1.13 (/usr/bin/python3 with python3-torch, from scripts/install-deps) failed:\n"
                       << out;
  std::istringstream lines(out);
  for (const Case& c : cases) {
    for (size_t r = 0; r < c.replicas; ++r) {
      std::string line;
      ASSERT_TRUE(std::getline(lines, line)) << out;
      std::istringstream fields(line);
      size_t len = 0, v;
      fields >> len;
      std::vector<size_t> want;
      while (fields >> v) want.push_back(v);
      DistributedSampler s(c.n, c.replicas, r, c.shuffle, c.seed, c.drop_last);
      s.set_epoch(c.epoch);
      s.reset();
      SCOPED_TRACE("n=" + std::to_string(c.n) + " replicas=" + std::to_string(c.replicas) + " rank=" +
                   std::to_string(r) + " epoch=" + std::to_string(c.epoch));
      EXPECT_EQ(s.num_samples(), len);
      EXPECT_EQ(s.indices(), want);
      EXPECT_EQ(all_of(s), want);
    }
  }
}

TEST(DistributedSampler, ShardsAreDisjointAndCoverTheDataset) {
  for (bool drop_last : {false, true}) {
    std::vector<size_t> seen;
    std::vector<std::vector<size_t>> shards;
    for (size_t r = 0; r < 4; ++r) {
      DistributedSampler s(103, 4, r, true, 5, drop_last);
      shards.push_back(s.indices());
      EXPECT_EQ(s.num_samples(), drop_last ? 25u : 26u);  // floor(103/4) or ceil(103/4)
      EXPECT_EQ(s.total_size(), drop_last ? 100u : 104u);
      seen.insert(seen.end(), s.indices().begin(), s.indices().end());
    }
    std::set<size_t> distinct(seen.begin(), seen.end());
    if (drop_last) {
      EXPECT_EQ(distinct.size(), 100u);  // disjoint: 3 examples dropped, none twice
    } else {
      EXPECT_EQ(distinct.size(), 103u);  // all covered; one padding index repeats
      EXPECT_EQ(seen.size(), 104u);
    }
    // Every rank drew from the same permutation: interleaving the shards gives back a prefix of it.
    std::vector<size_t> interleaved;
    for (size_t k = 0; k < shards[0].size(); ++k)
      for (const auto& sh : shards) interleaved.push_back(sh[k]);
    std::set<size_t> prefix(interleaved.begin(), interleaved.begin() + 100);
    EXPECT_EQ(prefix.size(), 100u);
  }
}

TEST(DistributedSampler, SetEpochChangesTheOrderAndResetKeepsIt) {
  DistributedSampler s(50, 2, 1, true, 3);
  std::vector<size_t> e0 = s.indices();
  s.reset();
  EXPECT_EQ(s.indices(), e0);  // no set_epoch: the same order again, as in PyTorch
  s.set_epoch(1);
  EXPECT_EQ(s.epoch(), 1u);
  EXPECT_EQ(s.indices(), e0);  // takes effect at the next reset (the loader's begin())
  s.reset();
  std::vector<size_t> e1 = s.indices();
  EXPECT_NE(e1, e0);
  EXPECT_EQ(std::set<size_t>(e1.begin(), e1.end()).size(), 25u);
  s.set_epoch(0);
  s.reset();
  EXPECT_EQ(s.indices(), e0);
  EXPECT_NE(DistributedSampler(50, 2, 1, true, 4).indices(), e0);  // another seed
  s.reset(10);  // a new dataset size
  EXPECT_EQ(s.num_samples(), 5u);
  for (size_t i : s.indices()) EXPECT_LT(i, 10u);
}

TEST(DistributedSampler, LibtorchSpellingsHaveLibtorchsLayout) {
  // libtorch's DistributedSequentialSampler and DistributedRandomSampler read contiguous blocks,
  // not DistributedSampler's strided shards (values from scripts/libtorch-diff/data_samplers.cpp
  // run against libtorch 1.13; tests/data/libtorch_api_test.cpp has more)
  samplers::DistributedSequentialSampler b(10, 3, 2);
  std::vector<size_t> got;
  while (auto idx = b.next(3)) got.insert(got.end(), idx->begin(), idx->end());
  EXPECT_EQ(got, (std::vector<size_t>{8, 9, 0, 1}));
  samplers::DistributedRandomSampler one(6);
  got.clear();
  while (auto idx = one.next(4)) got.insert(got.end(), idx->begin(), idx->end());
  EXPECT_EQ(std::set<size_t>(got.begin(), got.end()).size(), 6u);
}

TEST(DistributedSampler, WithTheLoaderAndPrefetcher) {
  DistributedSampler sampler(21, 2, 1, true, 11);
  auto loader = make_data_loader(Numbers(21).map(transforms::Stack<>()), sampler, DataLoaderOptions(4).workers(1));
  for (size_t epoch = 0; epoch < 2; ++epoch) {
    loader->sampler().set_epoch(epoch);
    DistributedSampler expect(21, 2, 1, true, 11);
    expect.set_epoch(epoch);
    expect.reset();
    std::vector<size_t> got;
    Device dev = test_devices().back();  // an OpenCL device where there is one
    for (auto& batch : DevicePrefetcher(*loader, dev)) {
      EXPECT_EQ(batch.data.device(), dev);
      for (double v : values(batch.target)) got.push_back(static_cast<size_t>(v));
    }
    EXPECT_EQ(got, expect.indices()) << "epoch " << epoch;
    EXPECT_EQ(got.size(), 11u);
  }
}

TEST(DistributedSampler, Errors) {
  EXPECT_THROW_MSG(DistributedSampler(10, 2, 2), Error,
                   "[DistributedSampler] rank 2 is out of range for num_replicas 2: rank must be in [0, 1]. Pass "
                   "this process's rank (distributed::get_rank()).");
  EXPECT_THROW_MSG(DistributedSampler(10, 0, 0), Error,
                   "[DistributedSampler] num_replicas must be at least 1, got 0. Pass the world size "
                   "(distributed::get_world_size()).");
}

}  // namespace samplers_test
