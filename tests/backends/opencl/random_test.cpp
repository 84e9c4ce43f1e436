// Philox random fills on OpenCL equal a host implementation of src/kernels/philox.h: bit for
// bit for uniform, int and bernoulli, within 1e-5 for normal.
#include <cmath>

#include "kernels/philox.h"
#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace random_test {

using backend::RandomKind;

// The stream exactly as philox.h specifies it, computed in float32 like every backend.
double host_random(RandomKind kind, uint64_t seed, uint64_t offset, int64_t i, double a, double b) {
  locus_philox_block x = locus_philox(offset / 4 + static_cast<uint64_t>(i) / 4, seed);
  uint32_t lane = x.x[i % 4];
  float fa = static_cast<float>(a), fb = static_cast<float>(b);
  float u = static_cast<float>(lane >> 8) * LOCUS_PHILOX_U24_SCALE;
  switch (kind) {
    case RandomKind::Uniform: return fa + (fb - fa) * u;
    case RandomKind::Normal: {
      int p = static_cast<int>(i % 4) & ~1;
      float u1 = static_cast<float>((x.x[p] >> 8) + 1u) * LOCUS_PHILOX_U24_SCALE;
      float u2 = static_cast<float>(x.x[p + 1] >> 8) * LOCUS_PHILOX_U24_SCALE;
      float r = std::sqrt(-2.0f * std::log(u1));
      float th = 6.28318530717958647692f * u2;
      float z = (i % 2 == 0) ? r * std::cos(th) : r * std::sin(th);
      return fa + fb * z;
    }
    case RandomKind::Int: {
      uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(b) - static_cast<int64_t>(a));
      uint64_t bits = range <= (uint64_t{1} << 32) ? lane : (uint64_t{lane} << 32) | x.x[(i % 4) ^ 1];
      return static_cast<double>(static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(a)) + bits % range));
    }
    case RandomKind::Bernoulli: return u < fa ? 1 : 0;
  }
  return 0;
}

void check_random(RandomKind kind, ScalarType dt, int64_t n, uint64_t seed, uint64_t offset, double a, double b) {
  DevMem O(0, static_cast<size_t>(n) * 8 + 64);
  be().random(0, nullptr, kind, ref(O.at(16), dt, {n}), seed, offset, a, b);
  std::vector<double> got = download_as(0, dt, O.at(16), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double want = round_to(dt, host_random(kind, seed, offset, i, a, b));
    if (kind == RandomKind::Normal)
      ASSERT_NEAR(got[static_cast<size_t>(i)], want, 1e-5 * std::max(1.0, std::fabs(want))) << i;
    else
      ASSERT_EQ(got[static_cast<size_t>(i)], want) << "kind " << static_cast<int>(kind) << " " << dtype_name(dt)
                                                   << " element " << i;
  }
}

TEST(OpenCLRandom, MatchesHostPhilox) {
  LOCUS_REQUIRE_OPENCL(1);
  const uint64_t seed = 0x1234567890abcdefull;
  check_random(RandomKind::Uniform, kFloat, 1001, seed, 0, 0, 1);
  check_random(RandomKind::Uniform, kFloat, 37, seed, 4096, -2, 3);  // a later generator offset
  check_random(RandomKind::Normal, kFloat, 1003, seed, 8, 0.5, 2);
  check_random(RandomKind::Int, kLong, 999, 42, 0, -5, 10);
  check_random(RandomKind::Int, kInt, 64, 42, 12, -2147483648.0, 2147483648.0);  // range 2^32
  check_random(RandomKind::Int, kLong, 33, 42, 0, -1e12, 1e12);  // wider than 2^32: 64 bits per draw
  check_random(RandomKind::Bernoulli, kFloat, 500, 7, 0, 0.3, 0);
  check_random(RandomKind::Uniform, kDouble, 100, 7, 0, 0, 1);
  check_random(RandomKind::Normal, kHalf, 100, 7, 0, 0, 1);
}

}  // namespace random_test
}  // namespace
}  // namespace locus::opencl::test
