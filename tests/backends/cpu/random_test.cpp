// CPU backend: the Philox stream (known-answer vector, determinism, offsets) and distributions.
#include <cmath>
#include <set>

#include "backends/cpu/random_normal.h"
#include "cpu_testing.h"
#include "kernels/philox.h"

namespace cpu_test {
namespace {
namespace random_test {

using backend::RandomKind;
using locus::cpu::convert_level_supported;
using locus::cpu::convert_path;
using locus::cpu::ConvertLevel;
using locus::cpu::normal_fill;

// Value i % 4 of block `ctr` of a normal draw, from philox.h's formula in double precision (u1, u2
// and the angle 2 pi u2 rounded to float32 first, as philox.h computes them).
double normal_reference(uint64_t seed, uint64_t ctr, int lane, double mean, double stdv) {
  locus_philox_block blk = locus_philox(ctr, seed);
  int p = lane & ~1;
  float u1 = static_cast<float>((blk.x[p] >> 8) + 1u) * LOCUS_PHILOX_U24_SCALE;
  float u2 = static_cast<float>(blk.x[p + 1] >> 8) * LOCUS_PHILOX_U24_SCALE;
  float angle = 6.28318530717958647692f * u2;
  double r = std::sqrt(-2.0 * std::log(static_cast<double>(u1)));
  double z = r * (lane & 1 ? std::sin(static_cast<double>(angle)) : std::cos(static_cast<double>(angle)));
  return mean + stdv * z;
}

std::vector<double> draw(RandomKind kind, ScalarType dt, int64_t n, uint64_t seed, uint64_t offset, double a, double b) {
  HostTensor t = make(dt, {n});
  be().random(0, nullptr, kind, t, seed, offset, a, b);
  return t.values();
}

TEST(CpuRandom, PhiloxKnownAnswer) {
  // Random123's published Philox4x32-10 test vector for counter 0, key 0
  locus_philox_block blk = locus_philox(0, 0);
  EXPECT_EQ(blk.x[0], 0x6627e8d5u);
  EXPECT_EQ(blk.x[1], 0xe169c58du);
  EXPECT_EQ(blk.x[2], 0xbc57ac4cu);
  EXPECT_EQ(blk.x[3], 0x9b00dbd8u);
  // through the backend: integers in [0, 2^32) are the raw lanes
  std::vector<double> raw = draw(RandomKind::Int, kLong, 4, 0, 0, 0, 4294967296.0);
  EXPECT_EQ(raw, (std::vector<double>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(CpuRandom, StreamLayoutFollowsPhiloxH) {
  // element i of a draw at offset `off` uses counter off/4 + i/4, lane i%4
  const uint64_t seed = 0x123456789abcdefULL;
  std::vector<double> v = draw(RandomKind::Uniform, kFloat, 10, seed, 8, 0, 1);
  for (int i = 0; i < 10; ++i) {
    locus_philox_block blk = locus_philox(2 + static_cast<uint64_t>(i / 4), seed);
    float u = static_cast<float>(blk.x[i % 4] >> 8) * LOCUS_PHILOX_U24_SCALE;
    EXPECT_EQ(v[static_cast<size_t>(i)], u) << i;
  }
  // normal: Box-Muller over lanes (0,1) and (2,3); the float32 log, cos and sin are locus's own
  // (random_normal.h), so the values are held to the formula in double precision, within a few
  // float32 roundings
  const int64_t nz = 4003;
  std::vector<double> z = draw(RandomKind::Normal, kFloat, nz, seed, 8, 0.5, 2);
  for (int64_t i = 0; i < nz; ++i) {
    double want = normal_reference(seed, 2 + static_cast<uint64_t>(i / 4), static_cast<int>(i % 4), 0.5, 2);
    EXPECT_NEAR(z[static_cast<size_t>(i)], want, 2e-6 * (1 + std::fabs(want))) << i;
  }
}

// Every vector level gives the portable code's bits: lengths around the group sizes (16 and 8
// blocks), offsets, counters whose low word wraps inside a group, and a mean and std.
TEST(CpuRandom, NormalLevelsMatchPortable) {
  struct Case {
    int64_t n;
    uint64_t seed, offset;
  };
  const Case cases[] = {{1, 1, 0},         {3, 1, 4},          {4, 2, 0},       {31, 3, 8},     {32, 3, 0},
                        {63, 4, 12},       {64, 5, 0},         {65, 6, 4},      {1000, 7, 0},   {4099, 8, 40},
                        {100003, 42, 0},   {257, 9, (uint64_t{1} << 34) - 24},  {999, ~uint64_t{0}, 4 * 0xfffffff9ull}};
  for (ConvertLevel level : {ConvertLevel::kAvx2, ConvertLevel::kAvx512Bf16}) {
    if (level > convert_level_supported()) continue;
    for (const Case& c : cases) {
      std::vector<float> want(static_cast<size_t>(c.n)), got(static_cast<size_t>(c.n), -1.0f);
      normal_fill(want.data(), c.n, c.seed, c.offset, 0.25f, 1.5f, ConvertLevel::kPortable);
      normal_fill(got.data(), c.n, c.seed, c.offset, 0.25f, 1.5f, level);
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
          << convert_path(level) << " n=" << c.n << " offset=" << c.offset;
    }
  }
  // a level this CPU lacks is refused
  if (convert_level_supported() < ConvertLevel::kAvx512Bf16) {
    float x;
    EXPECT_THROW(normal_fill(&x, 1, 0, 0, 0, 1, ConvertLevel::kAvx512Bf16), Error);
  }
}

// The portable code over a large sample (every level gives its bits, above): finite, and within a
// few float32 ulps of the formula in double precision, every octant of the angle included.
TEST(CpuRandom, NormalIsAccurate) {
  const int64_t n = 1 << 20;
  std::vector<float> z(static_cast<size_t>(n));
  normal_fill(z.data(), n, 123, 0, 0.0f, 1.0f, ConvertLevel::kPortable);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    double want = normal_reference(123, static_cast<uint64_t>(i / 4), static_cast<int>(i % 4), 0, 1);
    ASSERT_TRUE(std::isfinite(z[static_cast<size_t>(i)])) << i;
    worst = std::max(worst, std::fabs(z[static_cast<size_t>(i)] - want) / std::max(1.0, std::fabs(want)));
  }
  EXPECT_LT(worst, 1.5e-6);  // the angle's own float32 rounding (up to 2.4e-7 x 5.8) included
}

TEST(CpuRandom, DeterministicAndOffsetsShiftTheStream) {
  const int64_t n = 100003;  // parallel, and not a multiple of 4
  std::vector<double> a = draw(RandomKind::Normal, kFloat, n, 42, 0, 0, 1);
  std::vector<double> b = draw(RandomKind::Normal, kFloat, n, 42, 0, 0, 1);
  EXPECT_EQ(a, b);
  std::vector<double> c = draw(RandomKind::Normal, kFloat, n - 8, 42, 8, 0, 1);
  EXPECT_TRUE(std::equal(c.begin(), c.end(), a.begin() + 8));
  std::vector<double> d = draw(RandomKind::Normal, kFloat, n, 43, 0, 0, 1);
  EXPECT_NE(a, d);
  // float64 output holds the float32 values
  std::vector<double> e = draw(RandomKind::Normal, kDouble, n, 42, 0, 0, 1);
  EXPECT_EQ(a, e);
  // the thread count does not change the values
  int nt = get_num_threads();
  set_num_threads(1);
  std::vector<double> f = draw(RandomKind::Normal, kFloat, n, 42, 0, 0, 1);
  set_num_threads(nt);
  EXPECT_EQ(a, f);
}

TEST(CpuRandom, UniformInRange) {
  std::vector<double> v = draw(RandomKind::Uniform, kFloat, 100000, 7, 0, -2, 3);
  double mn = 1e9, mx = -1e9, sum = 0;
  for (double x : v) {
    mn = std::min(mn, x);
    mx = std::max(mx, x);
    sum += x;
  }
  EXPECT_GE(mn, -2);
  EXPECT_LT(mx, 3);
  EXPECT_NEAR(sum / 1e5, 0.5, 0.02);
  std::vector<double> h = draw(RandomKind::Uniform, kHalf, 1000, 7, 0, 0, 1);
  for (double x : h) {
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 1);  // rounding to half can reach 1
  }
}

TEST(CpuRandom, NormalMoments) {
  std::vector<double> v = draw(RandomKind::Normal, kFloat, 100000, 3, 0, 1.5, 2);
  double sum = 0, sq = 0;
  for (double x : v) {
    EXPECT_TRUE(std::isfinite(x));
    sum += x;
  }
  double mean = sum / 1e5;
  for (double x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 1.5, 0.03);
  EXPECT_NEAR(std::sqrt(sq / 1e5), 2.0, 0.03);
}

TEST(CpuRandom, IntAndBernoulli) {
  std::vector<double> v = draw(RandomKind::Int, kLong, 10000, 11, 0, -5, 5);
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(*seen.begin(), -5);
  EXPECT_EQ(*seen.rbegin(), 4);
  std::vector<double> w = draw(RandomKind::Int, kInt, 1000, 11, 0, 0, 3);
  for (double x : w) EXPECT_TRUE(x == 0 || x == 1 || x == 2);
  // a range wider than 2^32 stays in range
  std::vector<double> big = draw(RandomKind::Int, kLong, 1000, 11, 0, 0, 1e12);
  for (double x : big) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 1e12);
  }
  std::vector<double> bern = draw(RandomKind::Bernoulli, kFloat, 100000, 5, 0, 0.3, 0);
  double s = 0;
  for (double x : bern) {
    EXPECT_TRUE(x == 0 || x == 1);
    s += x;
  }
  EXPECT_NEAR(s / 1e5, 0.3, 0.01);
  std::vector<double> bb = draw(RandomKind::Bernoulli, kBool, 1000, 5, 0, 0.3, 0);
  EXPECT_TRUE(std::equal(bb.begin(), bb.end(), bern.begin()));
}

}  // namespace random_test
}  // namespace
}  // namespace cpu_test
