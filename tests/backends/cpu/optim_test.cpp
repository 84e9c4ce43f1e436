// The cpu backend's fused Adam (src/backends/cpu/optim.cpp) against the update written out element
// by element. With AVX-512 or AVX2 + FMA (unless LOCUS_CPU_ISA caps them; ctest runs this once more
// with LOCUS_CPU_ISA=portable) the float kernels divide by sqrt(bias_correction2) with a corrected
// reciprocal: they must give the division's result to the bit, extremes included.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/kernels.h"
#include "cpu_testing.h"

namespace optim_test {

namespace {

using namespace cpu_test;
using locus::backend::Backend;
using locus::backend::Buffer;

struct State {
  std::vector<float> p, g, m, v, mx;
};

// Parameters, gradients and moments over many magnitudes, with zeros, infinities and NaN, and
// moments whose square roots fall outside [2^-100, 2^100] (the corrected reciprocal's range).
State sample(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::uniform_int_distribution<int> e(-60, 60);
  State s;
  for (int64_t i = 0; i < n; ++i) {
    s.p.push_back(std::ldexp(u(rng), e(rng) / 4));
    s.g.push_back(std::ldexp(u(rng), e(rng)));
    s.m.push_back(std::ldexp(u(rng), e(rng)));
    s.v.push_back(std::ldexp(std::fabs(u(rng)), 2 * e(rng)));
    s.mx.push_back(std::ldexp(std::fabs(u(rng)), 2 * e(rng)));
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const float special_v[] = {0.f, 0x1p-149f, 0x1p-126f, 0x1p-60f, 0x1p120f, 0x1p127f, 3e38f, inf, nan};
  for (size_t k = 0; k < std::size(special_v) && static_cast<int64_t>(k) < n; ++k) s.v[k * 3 % n] = special_v[k];
  if (n > 5) s.g[5] = nan, s.g[4] = inf, s.g[3] = 0.f;
  return s;
}

// The update as adam_range writes it, with the FMAs the AVX-512 kernel (and the compiler's
// contraction of adam_range) uses.
void reference(State& s, const Backend::Adam& a, bool amsgrad) {
  const float b1 = static_cast<float>(a.beta1), b2 = static_cast<float>(a.beta2), wd = static_cast<float>(a.weight_decay);
  const float eps = static_cast<float>(a.eps), c1 = 1.f - b1, c2 = 1.f - b2;
  const float step = static_cast<float>(a.lr / a.bias_correction1);
  const float root_bc2 = static_cast<float>(std::sqrt(a.bias_correction2));
  const float decay = static_cast<float>(1 - a.lr * a.weight_decay);
  const int kind = a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1;
  for (size_t i = 0; i < s.p.size(); ++i) {
    float pi = s.p[i], gi = s.g[i];
    if (kind == 2) pi = pi * decay;
    if (kind == 1) gi = std::fma(pi, wd, gi);
    const float mi = std::fma(gi, c1, s.m[i] * b1);
    const float vi = std::fma(s.v[i], b2, (gi * gi) * c2);
    s.m[i] = mi;
    s.v[i] = vi;
    float t = vi;
    if (amsgrad) t = s.mx[i] = s.mx[i] > vi ? s.mx[i] : vi;
    const float denom = std::sqrt(t) / root_bc2 + eps;
    s.p[i] = std::fma(-step, mi / denom, pi);
  }
}

bool same_bits(float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); }

// Whether adam_step's float path is one of the vector kernels (AVX-512 or AVX2 + FMA), which
// compute exactly reference()'s arithmetic; otherwise the compiler's loop (adam_range).
bool exact_kernel() { return locus::cpu::conv_avx512::available() || locus::cpu::conv_avx2::available(); }

TEST(CpuOptim, AdamFloatMatchesTheUpdateToTheBit) {
  int checked = 0;
  for (int64_t n : {1, 15, 16, 17, 1000, 40000}) {  // tails, and more than one thread's range
    for (int t : {1, 2, 10, 938, 100000}) {
      for (int variant = 0; variant < 4; ++variant) {  // plain, L2 decay, AdamW, AMSGrad
        Backend::Adam a;
        a.lr = 1e-3, a.beta1 = 0.9, a.beta2 = 0.999, a.eps = 1e-8;
        a.bias_correction1 = 1 - std::pow(a.beta1, t), a.bias_correction2 = 1 - std::pow(a.beta2, t);
        if (variant == 1 || variant == 2) a.weight_decay = 0.01, a.decoupled = variant == 2;
        const bool amsgrad = variant == 3;
        const State before = sample(n, static_cast<uint32_t>(n * 7 + t + variant));
        State got = before, want = before;
        be().adam_step(0, nullptr, kFloat, Buffer{got.p.data(), 0}, Buffer{got.g.data(), 0}, Buffer{got.m.data(), 0},
                       Buffer{got.v.data(), 0}, amsgrad ? Buffer{got.mx.data(), 0} : Buffer{}, n, a);
        reference(want, a, amsgrad);
        for (int64_t i = 0; i < n; ++i) {
          const bool ok = same_bits(got.p[i], want.p[i]) && same_bits(got.m[i], want.m[i]) && same_bits(got.v[i], want.v[i]);
          if (exact_kernel()) {  // the AVX-512 or AVX2 kernel: exactly this arithmetic
            ASSERT_TRUE(ok) << "n " << n << " step " << t << " variant " << variant << " element " << i << ": p "
                            << got.p[i] << " want " << want.p[i] << " (v " << want.v[i] << ")";
          } else if (std::isfinite(want.p[i])) {  // the compiler's loop, with or without FMA contraction:
            // the moments within a few ulps of the terms summed (one rounding more or less per FMA;
            // m's two terms may nearly cancel), the parameter within a few ulps of itself and of
            // the step (which may nearly cancel too)
            const double gs = std::fabs(before.g[i]) + std::fabs(before.p[i]) * a.weight_decay;
            if (std::isfinite(want.m[i]))
              ASSERT_NEAR(got.m[i], want.m[i], 1e-6 * (std::fabs(before.m[i]) + gs) + 1e-37) << "m, element " << i;
            if (std::isfinite(want.v[i]))
              ASSERT_NEAR(got.v[i], want.v[i], 1e-6 * (std::fabs(before.v[i]) + gs * gs) + 1e-37) << "v, element " << i;
            const double scale = std::fabs(want.p[i]) + std::fabs(before.p[i]) + std::fabs(want.p[i] - before.p[i]);
            ASSERT_NEAR(got.p[i], want.p[i], 1e-5 * scale + 1e-30)
                << "n " << n << " step " << t << " variant " << variant << " element " << i;
          }
          if (amsgrad) {  // the running maximum of the second moment, of whichever v this path computed
            const float kept = before.mx[i] > got.v[i] ? before.mx[i] : got.v[i];
            ASSERT_TRUE(same_bits(got.mx[i], kept)) << "n " << n << " step " << t << " element " << i;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// Moments near and in the denormal range: m decaying by beta1 where the gradient is 0 (a rarely
// active input), next to lanes with gradients, tiny parameters and second moments. The AVX-512
// kernel takes the m and p updates of such a vector in double (no microcode assists) or, where the
// CPU needs no such help, in float (AdamDenormalPath): both must give the float arithmetic's
// result, bit for bit, in every lane of the vector. Each path runs here on every CPU. The AVX2
// kernel has the float path only (whichever is asked for): the same bits again.
class AdamDenormalPaths : public ::testing::TestWithParam<locus::cpu::AdamDenormalPath> {
 protected:
  void SetUp() override { locus::cpu::set_adam_denormal_path(GetParam()); }
  void TearDown() override { locus::cpu::set_adam_denormal_path(locus::cpu::AdamDenormalPath::kAuto); }
};

INSTANTIATE_TEST_SUITE_P(CpuOptim, AdamDenormalPaths,
                         ::testing::Values(locus::cpu::AdamDenormalPath::kFloat,
                                           locus::cpu::AdamDenormalPath::kDouble),
                         [](const auto& info) {
                           return info.param == locus::cpu::AdamDenormalPath::kFloat ? "float" : "double";
                         });

TEST(CpuOptim, AdamDenormalPathResolvesPerCpuAndCanBeForced) {
  using locus::cpu::AdamDenormalPath;
  const AdamDenormalPath chosen = locus::cpu::adam_denormal_path();
  EXPECT_TRUE(chosen == AdamDenormalPath::kFloat || chosen == AdamDenormalPath::kDouble);  // never kAuto
#if defined(__x86_64__) && defined(__GNUC__)
  // AMD's float arithmetic takes no microcode assist on denormals (measured on Zen 4); others' may
  EXPECT_EQ(chosen == AdamDenormalPath::kFloat, __builtin_cpu_is("amd") != 0);
#endif
  locus::cpu::set_adam_denormal_path(AdamDenormalPath::kDouble);
  EXPECT_EQ(locus::cpu::adam_denormal_path(), AdamDenormalPath::kDouble);
  locus::cpu::set_adam_denormal_path(AdamDenormalPath::kFloat);
  EXPECT_EQ(locus::cpu::adam_denormal_path(), AdamDenormalPath::kFloat);
  locus::cpu::set_adam_denormal_path(AdamDenormalPath::kAuto);
  EXPECT_EQ(locus::cpu::adam_denormal_path(), chosen);
}

TEST_P(AdamDenormalPaths, AdamFloatNearTheDenormalRangeMatchesToTheBit) {
  int checked = 0, denormal_m = 0;
  for (uint32_t seed = 0; seed < 6; ++seed) {
    for (int variant = 0; variant < 4; ++variant) {  // plain, L2 decay, AdamW, AMSGrad
      const int64_t n = 4099;
      std::mt19937 rng(seed * 4 + static_cast<uint32_t>(variant));
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      std::uniform_int_distribution<int> e_small(-149, -90), e_any(-60, 10), pick(0, 9);
      State before;
      for (int64_t i = 0; i < n; ++i) {
        const int kind = pick(rng);
        float m = std::ldexp(u(rng), e_small(rng));  // denormal or tiny
        if (kind == 9) m = std::ldexp(u(rng), e_any(rng));  // a normal lane in the same vector
        float g = 0.f;
        if (kind == 7) g = std::ldexp(u(rng), e_any(rng));
        if (kind == 8) g = std::ldexp(u(rng), e_small(rng) / 2);  // tiny gradients: g * g denormal
        if (kind == 6) g = -0.f;
        float pv = std::ldexp(u(rng), e_any(rng) / 4);
        if (kind == 5) pv = std::ldexp(u(rng), e_small(rng));  // a tiny parameter
        if (kind == 4) pv = 0.f;
        before.p.push_back(pv);
        before.g.push_back(g);
        before.m.push_back(m);
        before.v.push_back(kind == 3 ? std::ldexp(std::fabs(u(rng)), e_small(rng))
                                     : std::ldexp(std::fabs(u(rng)), 2 * e_any(rng)));
        before.mx.push_back(std::ldexp(std::fabs(u(rng)), 2 * e_any(rng)));
        if (std::fpclassify(m) == FP_SUBNORMAL) ++denormal_m;
      }
      for (int t : {1, 938, 5000}) {
        Backend::Adam a;
        a.lr = 1e-3, a.beta1 = 0.9, a.beta2 = 0.999, a.eps = variant == 0 && t == 938 ? 0.0 : 1e-8;
        a.bias_correction1 = 1 - std::pow(a.beta1, t), a.bias_correction2 = 1 - std::pow(a.beta2, t);
        if (variant == 1 || variant == 2) a.weight_decay = 0.01, a.decoupled = variant == 2;
        const bool amsgrad = variant == 3;
        State got = before, want = before;
        be().adam_step(0, nullptr, kFloat, Buffer{got.p.data(), 0}, Buffer{got.g.data(), 0}, Buffer{got.m.data(), 0},
                       Buffer{got.v.data(), 0}, amsgrad ? Buffer{got.mx.data(), 0} : Buffer{}, n, a);
        reference(want, a, amsgrad);
        for (int64_t i = 0; i < n; ++i) {
          if (!exact_kernel()) {  // the compiler's loop: within the first test's bounds
            const double gs = std::fabs(before.g[i]) + std::fabs(before.p[i]) * a.weight_decay;
            ASSERT_NEAR(got.m[i], want.m[i], 1e-6 * (std::fabs(before.m[i]) + gs) + 1e-37) << "m, element " << i;
            ASSERT_NEAR(got.v[i], want.v[i], 1e-6 * (std::fabs(before.v[i]) + gs * gs) + 1e-37) << "v, element " << i;
            const double scale = std::fabs(want.p[i]) + std::fabs(before.p[i]) + std::fabs(want.p[i] - before.p[i]);
            if (std::isfinite(want.p[i])) ASSERT_NEAR(got.p[i], want.p[i], 1e-5 * scale + 1e-30) << "p, element " << i;
            else ASSERT_TRUE(same_bits(got.p[i], want.p[i])) << "p, element " << i << ": " << got.p[i];
            ++checked;
            continue;
          }
          const std::string where = "seed " + std::to_string(seed) + " variant " + std::to_string(variant) + " step " +
                                    std::to_string(t) + " element " + std::to_string(i);
          ASSERT_TRUE(same_bits(got.m[i], want.m[i])) << where << ": m " << got.m[i] << " want " << want.m[i];
          ASSERT_TRUE(same_bits(got.v[i], want.v[i])) << where << ": v " << got.v[i] << " want " << want.v[i];
          ASSERT_TRUE(same_bits(got.p[i], want.p[i])) << where << ": p " << got.p[i] << " want " << want.p[i];
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(denormal_m, 10000);  // the inputs do reach the denormal range
  EXPECT_EQ(checked, 6 * 4 * 3 * 4099);
}

}  // namespace

}  // namespace optim_test
