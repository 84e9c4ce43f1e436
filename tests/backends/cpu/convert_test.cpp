// CPU backend: bulk float16/bfloat16 conversion (src/backends/cpu/convert.h). Every level this CPU
// supports must give half.h's bits for every input; the GEMM built on it must equal the float32
// GEMM of the widened inputs, rounded once.
#include "backends/cpu/convert.h"

#include <cstdlib>
#include <random>
#include <string>

#include "backends/cpu/blas.h"
#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace convert_test {

using cpu::ConvertLevel;

std::vector<ConvertLevel> levels() {
  std::vector<ConvertLevel> out;
  for (int l = 0; l <= static_cast<int>(cpu::convert_level_supported()); ++l) out.push_back(static_cast<ConvertLevel>(l));
  return out;
}

uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Every exponent, both signs, mantissas at the rounding edges of both formats (ties with an odd
// and an even kept bit, one ulp either side), NaNs with payloads, the float16 overflow and
// subnormal thresholds, and 2^20 random patterns.
std::vector<float> float_inputs() {
  std::vector<uint32_t> mants = {0, 1, 2, 0x7fffff, 0x7ffffe, 0x400000, 0x3fffff, 0x000fff, 0x001000, 0x001001,
                                 0x002fff, 0x003000, 0x003001, 0x007fff, 0x008000, 0x008001, 0x017fff, 0x018000,
                                 0x018001, 0x7fe000, 0x7ff000, 0x7fefff, 0x7ff001, 0x7f8000, 0x7f7fff, 0x7fc000};
  std::vector<uint32_t> u;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t e = 0; e < 256; ++e)
      for (uint32_t m : mants) u.push_back(sign | e << 23 | m);
  for (uint32_t x : {0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x477fffffu, 0x47800000u, 0x7f7fffffu,
                     0x33000000u, 0x33000001u, 0x32ffffffu, 0x387fc000u, 0x387fe000u, 0x38800000u, 0x7f800000u,
                     0x7f800001u, 0x7fa00000u, 0x7fc12345u, 0x7fffffffu, 0xffffffffu, 0xff812345u})
    for (uint32_t sign : {0u, 0x80000000u}) u.push_back(x ^ sign);
  std::mt19937 rng(15);
  for (int i = 0; i < (1 << 20); ++i) u.push_back(rng());
  std::vector<float> f(u.size());
  for (size_t i = 0; i < u.size(); ++i) f[i] = from_bits(u[i]);
  return f;
}

TEST(CpuConvert, EveryHalfPatternWidensAsPortable) {
  std::vector<Half> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i] = Half::from_bits(static_cast<uint16_t>(i));
  for (ConvertLevel l : levels()) {
    std::vector<float> f(65536, -1.0f);
    cpu::half_to_float(h.data(), f.data(), 65536, l);
    int bad = 0;
    for (uint32_t i = 0; i < 65536; ++i)
      if (bits(f[i]) != bits(Half::to_float(static_cast<uint16_t>(i))) && ++bad < 5)
        ADD_FAILURE() << cpu::half_convert_path(l) << ": half 0x" << std::hex << i << " -> 0x" << bits(f[i])
                      << ", portable 0x" << bits(Half::to_float(static_cast<uint16_t>(i)));
    EXPECT_EQ(bad, 0) << cpu::half_convert_path(l);
  }
  // the reference itself: exact values, and a signalling NaN made quiet with its payload (as c10)
  EXPECT_EQ(Half::to_float(0x3c00), 1.0f);
  EXPECT_EQ(Half::to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(Half::to_float(0x7bff), 65504.0f);
  EXPECT_EQ(bits(Half::to_float(0xfc00)), 0xff800000u);
  EXPECT_EQ(bits(Half::to_float(0x7c01)), 0x7fc02000u);
  EXPECT_EQ(bits(Half::to_float(0xfe01)), 0xffc02000u);
}

TEST(CpuConvert, EveryBFloat16PatternWidensAsPortable) {
  std::vector<BFloat16> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i] = BFloat16::from_bits(static_cast<uint16_t>(i));
  for (ConvertLevel l : levels()) {
    std::vector<float> f(65536, -1.0f);
    cpu::bf16_to_float(h.data(), f.data(), 65536, l);
    int bad = 0;
    for (uint32_t i = 0; i < 65536; ++i) bad += bits(f[i]) != i << 16;
    EXPECT_EQ(bad, 0) << cpu::bf16_convert_path(l);
  }
}

TEST(CpuConvert, FloatsRoundAsPortable) {
  const std::vector<float> in = float_inputs();
  const int64_t n = static_cast<int64_t>(in.size());
  for (ConvertLevel l : levels()) {
    std::vector<Half> h(in.size());
    std::vector<BFloat16> b(in.size());
    cpu::float_to_half(in.data(), h.data(), n, l);
    cpu::float_to_bf16(in.data(), b.data(), n, l);
    int bad_h = 0, bad_b = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (h[i].x != Half::from_float(in[i]) && ++bad_h < 5)
        ADD_FAILURE() << cpu::half_convert_path(l) << ": float 0x" << std::hex << bits(in[i]) << " -> half 0x" << h[i].x
                      << ", portable 0x" << Half::from_float(in[i]);
      if (b[i].x != BFloat16::from_float(in[i]) && ++bad_b < 5)
        ADD_FAILURE() << cpu::bf16_convert_path(l) << ": float 0x" << std::hex << bits(in[i]) << " -> bf16 0x" << b[i].x
                      << ", portable 0x" << BFloat16::from_float(in[i]);
    }
    EXPECT_EQ(bad_h, 0) << cpu::half_convert_path(l);
    EXPECT_EQ(bad_b, 0) << cpu::bf16_convert_path(l);
  }
  // the reference's rules at the edges
  EXPECT_EQ(Half::from_float(65504.0f), 0x7bff);
  EXPECT_EQ(Half::from_float(from_bits(0x477fefff)), 0x7bff);  // just below the overflow tie
  EXPECT_EQ(Half::from_float(65520.0f), 0x7c00);                // the tie rounds to even: inf
  EXPECT_EQ(Half::from_float(from_bits(0x7fc12345)), 0x7e00);   // NaN payload dropped
  EXPECT_EQ(Half::from_float(from_bits(0xffc12345)), 0xfe00);   // ... sign kept
  EXPECT_EQ(Half::from_float(std::ldexp(1.0f, -25)), 0x0000);   // subnormal tie to even: 0
  EXPECT_EQ(Half::from_float(std::ldexp(3.0f, -25)), 0x0002);   // ... and up to 2
  EXPECT_EQ(Half::from_float(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie, even kept bit
  EXPECT_EQ(Half::from_float(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie, odd kept bit
  EXPECT_EQ(BFloat16::from_float(from_bits(0xffc12345)), 0x7fc0);
  EXPECT_EQ(BFloat16::from_float(from_bits(0x007fffff)), 0x0080);  // a denormal rounds up (VCVTNEPS2BF16 gives 0)
  EXPECT_EQ(BFloat16::from_float(from_bits(0x00008000)), 0x0000);  // tie, even
  EXPECT_EQ(BFloat16::from_float(from_bits(0x00018000)), 0x0002);  // tie, odd
  EXPECT_EQ(BFloat16::from_float(from_bits(0x7f7fffff)), 0x7f80);  // overflow to inf
}

// Lengths 0..70 at every element offset from a 16-byte boundary (floats at 0/4/8/12 bytes, 16-bit
// values at odd element offsets): the vector bodies (unaligned loads and stores) and the tails
// write exactly [0, n) and agree with the reference. Pointers stay element-aligned, as every
// tensor's are (a misaligned Half* would be undefined behaviour, which UBSan reports).
TEST(CpuConvert, TailsAndUnalignedPointers) {
  std::mt19937 rng(3);
  std::vector<float> pool(80);
  for (float& f : pool) f = std::ldexp(static_cast<float>(rng() % 20001) - 10000.0f, static_cast<int>(rng() % 40) - 20);
  pool[7] = NAN;
  pool[41] = from_bits(0x00400001);  // a denormal, for VCVTNEPS2BF16's fix-up
  for (ConvertLevel l : levels())
    for (int64_t n = 0; n <= 70; ++n)
      for (size_t off = 0; off < 4; ++off) {
        // float side `off` elements past the vector's (16-byte aligned) start, 16-bit side 2 * off + 1
        std::vector<unsigned char> fbuf(4 * 80 + 16), hbuf(2 * 80 + 16, 0xab);
        float* f = reinterpret_cast<float*>(fbuf.data() + 4 * off);
        std::memcpy(f, pool.data(), static_cast<size_t>(n) * 4);
        unsigned char* h = hbuf.data() + 2 * (2 * off + 1);
        cpu::float_to_half(f, reinterpret_cast<Half*>(h), n, l);
        for (int64_t i = 0; i < n; ++i) {
          uint16_t got;
          std::memcpy(&got, h + 2 * i, 2);
          ASSERT_EQ(got, Half::from_float(pool[static_cast<size_t>(i)])) << "n=" << n << " i=" << i;
        }
        for (size_t i = static_cast<size_t>(2 * n); i + (h - hbuf.data()) < hbuf.size(); ++i) ASSERT_EQ(h[i], 0xab);
        std::vector<unsigned char> back(4 * 80 + 16, 0xcd);
        float* g = reinterpret_cast<float*>(back.data() + 4 * (3 - off));
        cpu::half_to_float(reinterpret_cast<const Half*>(h), g, n, l);
        for (int64_t i = 0; i < n; ++i) {
          uint16_t hb;
          std::memcpy(&hb, h + 2 * i, 2);
          float v;
          std::memcpy(&v, back.data() + 4 * (3 - off) + 4 * i, 4);
          ASSERT_EQ(bits(v), bits(Half::to_float(hb)));
        }
        ASSERT_EQ(back[4 * (3 - off) + 4 * static_cast<size_t>(n)], 0xcd);

        std::fill(hbuf.begin(), hbuf.end(), 0xab);
        cpu::float_to_bf16(f, reinterpret_cast<BFloat16*>(h), n, l);
        for (int64_t i = 0; i < n; ++i) {
          uint16_t got;
          std::memcpy(&got, h + 2 * i, 2);
          ASSERT_EQ(got, BFloat16::from_float(pool[static_cast<size_t>(i)])) << "n=" << n << " i=" << i;
        }
        for (size_t i = static_cast<size_t>(2 * n); i + (h - hbuf.data()) < hbuf.size(); ++i) ASSERT_EQ(h[i], 0xab);
        std::fill(back.begin(), back.end(), 0xcd);
        cpu::bf16_to_float(reinterpret_cast<const BFloat16*>(h), g, n, l);
        for (int64_t i = 0; i < n; ++i) {
          uint16_t hb;
          std::memcpy(&hb, h + 2 * i, 2);
          float v;
          std::memcpy(&v, back.data() + 4 * (3 - off) + 4 * i, 4);
          ASSERT_EQ(bits(v), static_cast<uint32_t>(hb) << 16);
        }
        ASSERT_EQ(back[4 * (3 - off) + 4 * static_cast<size_t>(n)], 0xcd);
      }
}

// The level in use is the supported one capped by LOCUS_CPU_ISA (ctest runs this binary once more
// with LOCUS_CPU_ISA=portable: backends.cpu_convert_portable).
TEST(CpuConvert, LevelAndPathNames) {
  const char* env = std::getenv("LOCUS_CPU_ISA");
  EXPECT_EQ(cpu::convert_level(), std::min(cpu::parse_convert_level(env), cpu::convert_level_supported()));
  if (env != nullptr && std::string(env) == "portable") EXPECT_STREQ(cpu::convert_path(cpu::convert_level()), "portable");
  EXPECT_STREQ(cpu::half_convert_path(ConvertLevel::kPortable), "portable");
  EXPECT_STREQ(cpu::half_convert_path(ConvertLevel::kAvx2), "f16c");
  EXPECT_STREQ(cpu::bf16_convert_path(ConvertLevel::kAvx2), "avx2");
  EXPECT_STREQ(cpu::bf16_convert_path(ConvertLevel::kAvx512Bf16), "avx512_bf16");
  EXPECT_STREQ(cpu::convert_path(ConvertLevel::kAvx512Bf16), "f16c+avx512_bf16");
  EXPECT_EQ(cpu::parse_convert_level("portable"), ConvertLevel::kPortable);
  EXPECT_EQ(cpu::parse_convert_level("generic"), ConvertLevel::kPortable);  // issue 18's spelling
  EXPECT_EQ(cpu::parse_convert_level("avx2"), ConvertLevel::kAvx2);
  EXPECT_EQ(cpu::parse_convert_level("avx512"), ConvertLevel::kAvx512Bf16);
  EXPECT_EQ(cpu::parse_convert_level("avx512_bf16"), ConvertLevel::kAvx512Bf16);
  EXPECT_EQ(cpu::parse_convert_level(""), ConvertLevel::kAvx512Bf16);  // no cap
  try {
    cpu::parse_convert_level("AVX2");
    ADD_FAILURE() << "no error for LOCUS_CPU_ISA=AVX2";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "[cpu] LOCUS_CPU_ISA='AVX2' is not a cpu code level: use generic (or portable), avx2 or avx512 "
                 "(or avx512_bf16) (the highest level used; unset: the best this CPU has).");
  }
  if (cpu::convert_level_supported() < ConvertLevel::kAvx512Bf16) {
    float f = 1;
    BFloat16 b;
    EXPECT_THROW(cpu::float_to_bf16(&f, &b, 1, ConvertLevel::kAvx512Bf16), Error);
  }
}

// float16/bfloat16 GEMM == float32 GEMM of the exactly widened inputs, rounded once: transposes,
// row strides wider than the matrix, a batch with a broadcast operand, alpha and beta.
template <class T>
void gemm_matches_widened(ScalarType dt, bool ta, bool tb, int64_t batch, int64_t m, int64_t n, int64_t k,
                          float alpha, float beta, bool broadcast_b) {
  const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  const int64_t lda = ac + 3, ldb = bc + 1, ldc = n + 2;
  const int64_t sa = ar * lda, sb = broadcast_b ? 0 : br * ldb, sc = m * ldc;
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 7 + k));
  std::normal_distribution<float> nd;
  auto fill = [&](std::vector<T>& v) { for (T& x : v) x = T(nd(rng)); };
  std::vector<T> a(static_cast<size_t>(batch * sa)), b(static_cast<size_t>(std::max<int64_t>(sb * batch, br * ldb))),
      c(static_cast<size_t>(batch * sc));
  fill(a), fill(b), fill(c);
  // expected: per entry, widened element by element with the reference conversion
  std::vector<T> want = c;
  for (int64_t e = 0; e < batch; ++e) {
    std::vector<float> fa(static_cast<size_t>(ar * ac)), fb(static_cast<size_t>(br * bc)), fc(static_cast<size_t>(m * n));
    for (int64_t r = 0; r < ar; ++r)
      for (int64_t q = 0; q < ac; ++q) fa[static_cast<size_t>(r * ac + q)] = static_cast<float>(a[static_cast<size_t>(e * sa + r * lda + q)]);
    for (int64_t r = 0; r < br; ++r)
      for (int64_t q = 0; q < bc; ++q) fb[static_cast<size_t>(r * bc + q)] = static_cast<float>(b[static_cast<size_t>(e * sb + r * ldb + q)]);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t q = 0; q < n; ++q) fc[static_cast<size_t>(r * n + q)] = static_cast<float>(c[static_cast<size_t>(e * sc + r * ldc + q)]);
    cpu::gemm_f32(ta, tb, m, n, k, alpha, fa.data(), ac, fb.data(), bc, beta, fc.data(), n);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t q = 0; q < n; ++q) want[static_cast<size_t>(e * sc + r * ldc + q)] = T(fc[static_cast<size_t>(r * n + q)]);
  }
  backend::Backend::Gemm g;
  g.dtype = dt;
  g.trans_a = ta, g.trans_b = tb;
  g.m = m, g.n = n, g.k = k;
  g.alpha = alpha, g.beta = beta;
  g.a.base = a.data(), g.b.base = b.data(), g.c.base = c.data();
  g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.batch = batch, g.stride_a = sa, g.stride_b = sb, g.stride_c = sc;
  be().gemm(0, nullptr, g);
  int bad = 0;
  for (size_t i = 0; i < c.size(); ++i) bad += c[i].x != want[i].x;  // padding columns untouched too
  EXPECT_EQ(bad, 0) << dtype_name(dt) << " ta=" << ta << " tb=" << tb << " batch=" << batch << " " << m << "x" << n
                    << "x" << k << " beta=" << beta;
}

TEST(CpuConvert, HalfGemmIsWidenedFloatGemmRoundedOnce) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      gemm_matches_widened<Half>(kHalf, ta, tb, 1, 17, 33, 29, 1, 0, false);
      gemm_matches_widened<BFloat16>(kBFloat16, ta, tb, 1, 17, 33, 29, 1, 0, false);
      gemm_matches_widened<Half>(kHalf, ta, tb, 3, 9, 20, 70, 0.5f, 1, false);
      gemm_matches_widened<BFloat16>(kBFloat16, ta, tb, 3, 9, 20, 70, -2, 0.25f, true);
    }
  gemm_matches_widened<BFloat16>(kBFloat16, false, false, 2, 130, 150, 90, 1, 0, false);
}

}  // namespace convert_test
}  // namespace
}  // namespace cpu_test
