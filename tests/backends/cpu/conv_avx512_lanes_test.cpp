// CPU backend: the output-channels-in-lanes convolution kernels (conv_avx512_lanes.h: forward and
// weight gradient) called directly, whatever conv_lanes::suits would pick, on shapes that exercise
// their edges: tiny images (1x1, 2x3: taps that meet only padding), rows shorter and longer than a
// block and not a multiple of it, padding 0 to beyond the window, dilation, windows that are not
// square, channel counts that are not a multiple of 16 (a masked last vector) or of the weight
// gradient's 6 rows, and one to four vectors per block; the weight gradient of one image and of
// three summed in one call; against direct loops in double.
#include <cmath>
#include <vector>

#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/conv_avx512_lanes.h"
#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace conv_avx512_lanes_test {

using P = backend::Backend::Im2Col;

struct LaneShape {
  int64_t c, h, w, kh, kw, ph, pw, d, oc, s = 1;  // s: the stride (the forward only at 2)
};

TEST(CpuConv2d, LanesKernelsMatchDirectLoops) {
  if (!cpu::conv_avx512::available()) GTEST_SKIP() << "no AVX-512F (or LOCUS_CPU_ISA caps it)";
  for (const LaneShape s : {
           LaneShape{3, 1, 1, 3, 3, 1, 1, 1, 5},      // 1x1 image: the centre tap only
           LaneShape{4, 2, 3, 3, 3, 1, 1, 1, 17},     // 2x3: every position on a border; 16 + 1 channels
           LaneShape{64, 8, 8, 3, 3, 1, 1, 1, 70},    // the benchmark's kind: 48 + 22 channels
           LaneShape{5, 16, 16, 3, 3, 1, 1, 1, 128},  // two blocks per row, 48 + 48 + 32 channels
           LaneShape{7, 5, 13, 3, 3, 1, 1, 1, 33},    // 13 = 8 + 5 positions per row
           LaneShape{6, 9, 7, 5, 5, 2, 2, 1, 20},     // 5x5, pad 2: two columns beyond on each side
           LaneShape{3, 10, 11, 3, 3, 2, 2, 2, 16},   // dilation 2
           LaneShape{2, 6, 7, 3, 3, 0, 0, 1, 49},     // no padding
           LaneShape{2, 5, 5, 3, 3, 3, 3, 1, 3},      // padding beyond the window
           LaneShape{3, 9, 9, 3, 2, 1, 0, 1, 18},     // a 3x2 window, padding on one side only
           LaneShape{9, 4, 10, 1, 1, 0, 0, 1, 96},    // 1x1
           LaneShape{2, 3, 20, 1, 3, 0, 1, 1, 144},   // 1x3; three blocks of 3 vectors
           LaneShape{4, 32, 32, 3, 3, 1, 1, 1, 40, 2},  // stride 2: 16x16 outputs from 32x32
           LaneShape{3, 15, 31, 3, 3, 1, 1, 1, 35, 2},  // stride 2, odd sizes: 8x16 outputs
           LaneShape{2, 12, 16, 3, 3, 2, 2, 2, 17, 2},  // stride 2, dilation 2, padding 2
           LaneShape{2, 3, 7, 3, 3, 1, 1, 1, 5, 2},     // stride 2 on a tiny image: 2x4 outputs
           // stride 2 on rows of 16+ outputs: blocks of 4 vectors x up to 6 positions
           LaneShape{5, 32, 32, 3, 3, 1, 1, 1, 128, 2},  // 16 = 6 + 5 + 5 positions, 64 + 64 channels
           LaneShape{3, 7, 47, 3, 3, 1, 1, 1, 70, 2},    // rows of 24 = 4 x 6; 64 + 6 channels
           LaneShape{2, 9, 35, 5, 5, 2, 2, 1, 81, 2},    // 5x5, pad 2 (zero columns): rows of 18; 64 + 17
           LaneShape{2, 5, 61, 3, 3, 1, 1, 1, 64, 2},    // rows of 31 = 6 + 5 x 5
       }) {
    SCOPED_TRACE(::testing::Message() << "c=" << s.c << " " << s.h << "x" << s.w << " k=" << s.kh << "x" << s.kw
                                      << " pad=" << s.ph << "," << s.pw << " d=" << s.d << " oc=" << s.oc
                                      << " stride=" << s.s);
    P p;
    p.c = s.c; p.h = s.h; p.w = s.w; p.kh = s.kh; p.kw = s.kw; p.ph = s.ph; p.pw = s.pw; p.dh = p.dw = s.d;
    p.sh = p.sw = s.s;
    p.oh = (s.h + 2 * s.ph - s.d * (s.kh - 1) - 1) / s.s + 1;
    p.ow = (s.w + 2 * s.pw - s.d * (s.kw - 1) - 1) / s.s + 1;
    const int64_t win = s.kh * s.kw, l = p.oh * p.ow, image_size = s.c * s.h * s.w;
    constexpr int64_t kImages = 3;  // the weight gradient's images in one call, at most
    std::vector<float> x(static_cast<size_t>(kImages * image_size)), w(static_cast<size_t>(s.oc * s.c * win)),
        b(static_cast<size_t>(s.oc));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i)));
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(0.5 - 0.1 * static_cast<double>(i));
    // exact sizes: AddressSanitizer reports any read or write past them
    std::vector<float> packed(static_cast<size_t>(cpu::conv_lanes::packed_size(p, s.oc))),
        scratch(static_cast<size_t>(cpu::conv_lanes::scratch_size(p, s.oc))), y(static_cast<size_t>(s.oc * l), 123.f);
    cpu::conv_lanes::pack(w.data(), s.oc, p, packed.data());
    // the weight gradient (transposed, [c*kh*kw, oc]) of 1 or kImages images from gy [images, oc,
    // l]: added to 0.5, and stored over NaN; the bias gradient added to 0.25
    std::vector<float> gy(static_cast<size_t>(kImages * s.oc * l));
    for (size_t i = 0; i < gy.size(); ++i) gy[i] = static_cast<float>(std::sin(0.05 * static_cast<double>(i) + 1));
    for (const int64_t images : {int64_t(1), kImages})
    if (s.s == 1)  // (the weight gradient: stride 1 only)
    for (const bool store : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "images=" << images);
      std::vector<float> gwt(static_cast<size_t>(s.c * win * s.oc), store ? NAN : 0.5f),
          gb(static_cast<size_t>(s.oc), 0.25f),
          gscratch(static_cast<size_t>(cpu::conv_lanes::grad_weight_scratch_size(p, s.oc, images)));
      cpu::conv_lanes::grad_weight(gy.data(), s.oc, p, x.data(), gscratch.data(), gwt.data(), gb.data(), store, images);
      for (int64_t o = 0; o < s.oc; ++o) {
        double want = 0.25, mag = 0.25;
        for (int64_t m = 0; m < images; ++m)
          for (int64_t t = 0; t < l; ++t) {
            const double g = gy[static_cast<size_t>((m * s.oc + o) * l + t)];
            want += g, mag += std::fabs(g);
          }
        EXPECT_NEAR(gb[static_cast<size_t>(o)], want, 1e-5 * mag + 1e-6) << "gb[" << o << "]";
      }
      int bad = 0;
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t t = 0; t < win; ++t)
          for (int64_t o = 0; o < s.oc && bad < 5; ++o) {
            const int64_t i = t / s.kw, j = t % s.kw;
            double want = store ? 0.0 : 0.5, mag = std::fabs(want);
            for (int64_t m = 0; m < images; ++m)
            for (int64_t oy = 0; oy < p.oh; ++oy)
              for (int64_t ox = 0; ox < p.ow; ++ox) {
                const int64_t iy = oy - s.ph + i * s.d, ix = ox - s.pw + j * s.d;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const double v = static_cast<double>(x[static_cast<size_t>(m * image_size + (c * s.h + iy) * s.w + ix)]) *
                                 gy[static_cast<size_t>((m * s.oc + o) * l + oy * p.ow + ox)];
                want += v;
                mag += std::fabs(v);
              }
            const double got = gwt[static_cast<size_t>((c * win + t) * s.oc + o)];
            if (!(std::fabs(got - want) <= 1e-5 * mag + 1e-6) && bad++ < 5)
              ADD_FAILURE() << "store=" << store << " gw[" << c << "][" << t << "][" << o << "]: " << got << ", want "
                            << want;
          }
    }
    // the forward reads the image itself where no tap reads a zero column (3x3 with padding 1,
    // among others), else a copy with zero columns (5x5 with padding 2, padding beyond the window):
    // the image in a vector of its own size (AddressSanitizer), the next one's lines prefetched
    const std::vector<float> image(x.begin(), x.begin() + image_size);
    for (const bool bias : {true, false}) {
      cpu::conv_lanes::forward(packed.data(), s.oc, p, image.data(), bias ? b.data() : nullptr, scratch.data(), y.data(),
                               bias ? x.data() + image_size : nullptr);
      int bad = 0;
      for (int64_t o = 0; o < s.oc && bad < 5; ++o)
        for (int64_t oy = 0; oy < p.oh; ++oy)
          for (int64_t ox = 0; ox < p.ow; ++ox) {
            double want = bias ? b[static_cast<size_t>(o)] : 0.0, mag = std::fabs(want);
            for (int64_t c = 0; c < s.c; ++c)
              for (int64_t i = 0; i < s.kh; ++i)
                for (int64_t j = 0; j < s.kw; ++j) {
                  const int64_t iy = oy * s.s - s.ph + i * s.d, ix = ox * s.s - s.pw + j * s.d;
                  if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                  const double t = static_cast<double>(w[static_cast<size_t>(((o * s.c + c) * s.kh + i) * s.kw + j)]) *
                                   x[static_cast<size_t>((c * s.h + iy) * s.w + ix)];
                  want += t;
                  mag += std::fabs(t);
                }
            const double got = y[static_cast<size_t>(o * l + oy * p.ow + ox)];
            if (!(std::fabs(got - want) <= 1e-5 * mag + 1e-6) && bad++ < 5)
              ADD_FAILURE() << "bias=" << bias << " y[" << o << "][" << oy << "][" << ox << "]: " << got << ", want " << want;
          }
    }
  }
}

// The input gradient of a stride-2 convolution as four stride-1 ones (grad_input), against loops
// in double, and where grad_input_suits refuses.
TEST(CpuConv2d, LanesStrideTwoInputGradientMatchesDirectLoops) {
  if (!cpu::conv_avx512::available()) GTEST_SKIP() << "no AVX-512F (or LOCUS_CPU_ISA caps it)";
  struct Shape {
    int64_t c, h, w, k, pad, oc;
  };
  for (const Shape s : {
           Shape{64, 32, 32, 3, 1, 128},  // the benchmark's kind: rows of 16 (4 vectors x 6 positions)
           Shape{32, 31, 29, 3, 1, 40},   // odd sizes: classes of 16 / 15 rows and 15 / 14 columns
           Shape{48, 20, 36, 5, 2, 33},   // 5x5, pad 2: classes of 3x3, 3x2, 2x3, 2x2 taps
           Shape{35, 17, 16, 4, 1, 64},   // an even window: 2x2 taps in every class; 32 + 3 channels
           Shape{40, 12, 12, 3, 1, 32},   // rows of 6 (3 vectors x 8 blocking)
       }) {
    SCOPED_TRACE(::testing::Message() << "c=" << s.c << " " << s.h << "x" << s.w << " k=" << s.k << " pad=" << s.pad
                                      << " oc=" << s.oc);
    P p;
    p.c = s.c; p.h = s.h; p.w = s.w; p.kh = p.kw = s.k; p.ph = p.pw = s.pad; p.sh = p.sw = 2;
    p.oh = (s.h + 2 * s.pad - s.k) / 2 + 1;
    p.ow = (s.w + 2 * s.pad - s.k) / 2 + 1;
    ASSERT_TRUE(cpu::conv_lanes::grad_input_suits(p, s.oc));
    const int64_t win = s.k * s.k, l = p.oh * p.ow;
    std::vector<float> w(static_cast<size_t>(s.oc * s.c * win)), gy(static_cast<size_t>(2 * s.oc * l));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i)));
    for (size_t i = 0; i < gy.size(); ++i) gy[i] = static_cast<float>(std::sin(0.05 * static_cast<double>(i) + 1));
    // exact sizes: AddressSanitizer reports any read or write past them; gx starts as NaN
    std::vector<float> packed(static_cast<size_t>(cpu::conv_lanes::grad_input_packed_size(p, s.oc))),
        scratch(static_cast<size_t>(cpu::conv_lanes::grad_input_scratch_size(p, s.oc))),
        gx(static_cast<size_t>(s.c * s.h * s.w), NAN);
    cpu::conv_lanes::grad_input_pack(w.data(), s.oc, p, packed.data());
    const std::vector<float> g0(gy.begin(), gy.begin() + s.oc * l);  // one image's, the next one prefetched
    cpu::conv_lanes::grad_input(packed.data(), s.oc, p, g0.data(), scratch.data(), gx.data(), gy.data() + s.oc * l);
    int bad = 0;
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t iy = 0; iy < s.h; ++iy)
        for (int64_t ix = 0; ix < s.w; ++ix) {
          double want = 0, mag = 0;
          for (int64_t o = 0; o < s.oc; ++o)
            for (int64_t i = 0; i < s.k; ++i)
              for (int64_t j = 0; j < s.k; ++j) {
                const int64_t ty = iy + s.pad - i, tx = ix + s.pad - j;
                if (ty % 2 != 0 || tx % 2 != 0 || ty < 0 || tx < 0 || ty / 2 >= p.oh || tx / 2 >= p.ow) continue;
                const double t = static_cast<double>(w[static_cast<size_t>(((o * s.c + c) * s.k + i) * s.k + j)]) *
                                 g0[static_cast<size_t>(o * l + (ty / 2) * p.ow + tx / 2)];
                want += t;
                mag += std::fabs(t);
              }
          const double got = gx[static_cast<size_t>((c * s.h + iy) * s.w + ix)];
          if (!(std::fabs(got - want) <= 1e-5 * mag + 1e-6) && bad++ < 5)
            ADD_FAILURE() << "gx[" << c << "][" << iy << "][" << ix << "]: " << got << ", want " << want;
        }
  }
  // refused: stride 1, dilation 2, a 1x1 window (a class without taps), padding past the window
  // (a class with negative padding), 16 channels
  auto geometry = [](int64_t c, int64_t hw, int64_t k, int64_t pad, int64_t stride, int64_t d) {
    P p;
    p.c = c; p.h = p.w = hw; p.kh = p.kw = k; p.ph = p.pw = pad; p.sh = p.sw = stride; p.dh = p.dw = d;
    p.oh = p.ow = (hw + 2 * pad - d * (k - 1) - 1) / stride + 1;
    return p;
  };
  EXPECT_FALSE(cpu::conv_lanes::grad_input_suits(geometry(64, 32, 3, 1, 1, 1), 64));
  EXPECT_FALSE(cpu::conv_lanes::grad_input_suits(geometry(64, 32, 3, 2, 2, 2), 64));
  EXPECT_FALSE(cpu::conv_lanes::grad_input_suits(geometry(64, 32, 1, 0, 2, 1), 64));
  EXPECT_FALSE(cpu::conv_lanes::grad_input_suits(geometry(64, 32, 3, 3, 2, 1), 64));
  EXPECT_FALSE(cpu::conv_lanes::grad_input_suits(geometry(16, 32, 3, 1, 2, 1), 64));
  EXPECT_TRUE(cpu::conv_lanes::grad_input_suits(geometry(64, 32, 3, 1, 2, 1), 64));
}

}  // namespace conv_avx512_lanes_test
}  // namespace
}  // namespace cpu_test
