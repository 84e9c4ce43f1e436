// CPU backend: conv_avx2's shifted-copy plane writer against a plain loop, at column strides 1 and
// 2. The convolution and im2col tests run it through whole convolutions; this checks every element
// of a plane directly, over the shifts, row ranges and widths a shifted copy or an im2col row meets,
// including the ones where the image's rows miss the plane entirely.
#include <cmath>
#include <vector>

#include "backends/cpu/conv_avx2.h"
#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace conv_avx2_test {

// What conv_avx2::shift_plane must write: src's row (u - u0) at column x * sw + shift inside
// [u0, u1) x [x0, x1), 0 elsewhere in the rows x n plane.
std::vector<float> want_plane(const std::vector<float>& src, int64_t ss, int64_t shift, int64_t sw, int64_t rows,
                              int64_t n, int64_t u0, int64_t u1, int64_t x0, int64_t x1, int64_t origin) {
  std::vector<float> p(static_cast<size_t>(rows * n), 0.f);
  for (int64_t u = std::max<int64_t>(u0, 0); u < std::min(u1, rows); ++u)
    for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x1, n); ++x)
      p[static_cast<size_t>(u * n + x)] = src[static_cast<size_t>(origin + (u - u0) * ss + x * sw + shift)];
  return p;
}

TEST(CpuConv2d, Avx2ShiftPlaneWritesEveryElement) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "this CPU has no AVX2 + FMA (the kernel's instructions)";
  int cases = 0;
  for (int64_t sw : {1, 2}) {
    for (int64_t w : {8, 9, 14, 15, 16, 17, 28, 33, 34}) {
      for (int64_t pad : {0, 1, 2, 4}) {
        const int64_t h = 5, n = (w + 2 * pad - 3) / sw + 1, rows = h + 2;  // a 3-wide window's output width
        if (n < 8) continue;
        // the image with a row of guard values around it: reads outside [x0, x1) would show
        const int64_t ss = w, origin = 2 * w;
        std::vector<float> src(static_cast<size_t>((h + 4) * w), std::nanf(""));
        for (int64_t y = 0; y < h; ++y)
          for (int64_t x = 0; x < w; ++x) src[static_cast<size_t>(origin + y * w + x)] = float(1 + y * 100 + x);
        for (int64_t j = 0; j < 3; ++j) {
          const int64_t shift = j - pad;
          const int64_t x0 = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
          const int64_t x1 = std::min<int64_t>(n, (w - shift + sw - 1) / sw);
          using Rows = std::pair<int64_t, int64_t>;
          for (auto [u0, u1] : {Rows{pad, pad + h}, Rows{0, h}, Rows{2, rows}, Rows{rows, rows + 3}, Rows{3, 3}}) {
            if (u1 - u0 > h) u1 = u0 + h;
            std::vector<float> plane(static_cast<size_t>(rows * n + 8), -7.f);  // stale values, then a guard
            const float* s = src.data() + origin;
            locus::cpu::conv_avx2::shift_plane(s, ss, shift, plane.data(), rows, n, u0, u1, x0, x1, sw);
            const std::vector<float> want = want_plane(src, ss, shift, sw, rows, n, u0, u1, x0, x1, origin);
            for (int64_t i = 0; i < rows * n; ++i)
              ASSERT_EQ(plane[static_cast<size_t>(i)], want[static_cast<size_t>(i)])
                  << "sw " << sw << " w " << w << " pad " << pad << " shift " << shift << " rows " << u0 << ".." << u1
                  << " at " << i;
            for (int64_t i = rows * n; i < rows * n + 8; ++i)
              ASSERT_EQ(plane[static_cast<size_t>(i)], -7.f) << "written past the plane at " << i - rows * n;
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 200);
#else
  GTEST_SKIP() << "the AVX2 kernels are x86 only";
#endif
}

}  // namespace conv_avx2_test
}  // namespace
}  // namespace cpu_test
