// CPU backend: the float convolution on shapes that exercise the kernels' edges (odd sizes, borders,
// channel counts that are not a multiple of a register block, runs longer than a block, strides,
// batch 1),
// against direct loops in double. Which kernels run is up to the process: the AVX-512 ones where
// the CPU has them, the AVX2 ones under LOCUS_CPU_ISA=avx2 (ctest backends.cpu_conv_avx2), the
// im2col + GEMM paths under LOCUS_CPU_ISA=generic (backends.cpu_conv_generic); all three must
// agree with the loops.
#include <cmath>
#include <cstdlib>
#include <string>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/convert.h"
#include "cpu_testing.h"
#include "locus/parallel.h"

namespace cpu_test {
namespace {
namespace conv_avx512_test {

using P = backend::Backend::Im2Col;

struct Shape {
  int64_t n, c, h, w, kh, kw, ph, pw, d, oc, s = 1;
};

P geometry(const Shape& s) {
  P p;
  p.n = s.n; p.c = s.c; p.h = s.h; p.w = s.w; p.kh = s.kh; p.kw = s.kw;
  p.sh = p.sw = s.s; p.ph = s.ph; p.pw = s.pw; p.dh = p.dw = s.d;
  p.oh = (s.h + 2 * s.ph - s.d * (s.kh - 1) - 1) / s.s + 1;
  p.ow = (s.w + 2 * s.pw - s.d * (s.kw - 1) - 1) / s.s + 1;
  return p;
}

// Forward (y, with bias), input, weight and bias gradients by direct loops, in double; with
// `magnitude` the same sums of |terms| (the scale of each sum's rounding error in float).
struct Want {
  std::vector<double> y, gx, gw, gb;
};
Want direct(const P& p, int64_t oc, const std::vector<double>& x, const std::vector<double>& w,
            const std::vector<double>& b, const std::vector<double>& gy, bool magnitude) {
  auto m = [&](double v) { return magnitude ? std::fabs(v) : v; };
  const int64_t L = p.oh * p.ow, image = p.c * p.h * p.w, K = p.c * p.kh * p.kw;
  Want r{std::vector<double>(static_cast<size_t>(p.n * oc * L)), std::vector<double>(x.size(), 0),
         std::vector<double>(w.size(), 0), std::vector<double>(b.size(), 0)};
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < p.oh; ++y)
        for (int64_t xo = 0; xo < p.ow; ++xo) {
          const size_t at = static_cast<size_t>((n * oc + o) * L + y * p.ow + xo);
          const double g = gy[at];
          double s = m(b[static_cast<size_t>(o)]);
          r.gb[static_cast<size_t>(o)] += m(g);
          for (int64_t c = 0; c < p.c; ++c)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                const int64_t ih = y * p.sh - p.ph + i * p.dh, iw = xo * p.sw - p.pw + j * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                const size_t wi = static_cast<size_t>(o * K + (c * p.kh + i) * p.kw + j);
                const size_t xi = static_cast<size_t>(n * image + (c * p.h + ih) * p.w + iw);
                s += m(w[wi] * x[xi]);
                r.gw[wi] += m(g * x[xi]);
                r.gx[xi] += m(g * w[wi]);
              }
          r.y[at] = s;
        }
  return r;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& mag,
                 const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5 * mag[i] + 1e-6)) {
      ++bad;
      ADD_FAILURE() << what << "[" << i << "]: " << got[i] << ", want " << want[i];
    }
}

// The first n values of t, whose elements past them (the guard) must still hold `sentinel`: no
// kernel writes past its output (whole-vector stores that reach past a row must stop at the end).
constexpr int64_t kGuard = 16;
std::vector<double> unguarded(const HostTensor& t, size_t n, double sentinel, const char* what) {
  std::vector<double> v = t.values();
  for (size_t i = n; i < v.size(); ++i)
    if (v[i] != sentinel) ADD_FAILURE() << what << ": element " << i - n << " past the end was written";
  v.resize(n);
  return v;
}

TEST(CpuConv2d, KernelsMatchDirectLoopsOnOddShapes) {
  const int before = locus::get_num_threads();
  for (Shape s : {
           Shape{1, 3, 7, 6, 3, 3, 1, 1, 1, 4},      // batch 1 (one pool thread below)
           Shape{3, 17, 9, 11, 3, 3, 1, 1, 1, 29},   // 99 positions: a masked last vector; 29 = 15 + 14 channels
           Shape{2, 40, 5, 5, 3, 3, 1, 1, 1, 15},    // 25 positions: two vectors, the second masked; k = 360
           Shape{2, 5, 12, 13, 5, 5, 2, 2, 1, 70},   // 5x5; 70 channels: 64 + 6 in the weight gradient
           Shape{2, 4, 10, 9, 3, 3, 2, 2, 2, 33},    // dilation 2
           Shape{2, 3, 6, 7, 3, 3, 0, 0, 1, 5},      // no padding
           Shape{2, 2, 5, 5, 3, 3, 3, 3, 1, 2},      // padding beyond the window (no transposed input gradient)
           Shape{2, 6, 8, 8, 1, 1, 1, 1, 1, 20},     // 1x1 with padding
           Shape{4, 130, 4, 4, 3, 3, 1, 1, 1, 7},    // 16 positions; input gradient with 130 output channels
           Shape{2, 3, 9, 7, 3, 2, 1, 0, 1, 18},     // a 3x2 window, padding on one side only
           Shape{2, 32, 16, 16, 3, 3, 1, 1, 1, 64},  // the benchmark shapes' kind, smaller
           // conv_avx512_lanes.h's shapes (forward and input gradient): 64 -> 70 channels at 8x8,
           // 70 -> 64 at 16x16 (48 + 22 channels in the lanes, a masked last vector)
           Shape{2, 64, 8, 8, 3, 3, 1, 1, 1, 70}, Shape{2, 70, 16, 16, 3, 3, 1, 1, 1, 64},
           Shape{2, 6, 7, 8, 1, 1, 0, 0, 1, 20},     // 1x1 without padding
           // the weight gradient over groups of images within a block (16 blocks; a group of up
           // to 256 / positions images, at most 8): 1x1 without padding on whole vectors of
           // positions (the image is its own shifted copy), groups of 8 and of 4; 3x3 at 4x4
           // (groups of up to 8 on the shifted layout: blocks of 4 and 5 images); the lanes
           // kernels at 8x8 with a 5x5 window (3x3 goes to Winograd's; groups of 4: blocks of 2
           // and 3 images)
           Shape{37, 6, 4, 8, 1, 1, 0, 0, 1, 20}, Shape{20, 5, 8, 8, 1, 1, 0, 0, 1, 7},
           Shape{70, 6, 4, 4, 3, 3, 1, 1, 1, 9}, Shape{40, 33, 8, 8, 5, 5, 2, 2, 1, 40},
           // strided (the input gradient by other kernels; the weight gradient alone by these)
           Shape{3, 5, 11, 10, 3, 3, 1, 1, 1, 17, 2}, Shape{2, 3, 12, 13, 3, 3, 2, 2, 2, 9, 2},
           Shape{2, 4, 11, 10, 3, 3, 1, 1, 1, 6, 3}, Shape{2, 7, 9, 9, 1, 1, 0, 0, 1, 5, 2},
           Shape{1, 16, 32, 32, 3, 3, 1, 1, 1, 30, 2},
           // strided, 32 channels or more both ways: the forward on the lanes kernels,
           // at stride 2 the input gradient as four stride-1 convolutions (conv_lanes::grad_input;
           // not with dilation 2)
           Shape{2, 32, 16, 16, 3, 3, 1, 1, 1, 40, 2}, Shape{3, 33, 15, 31, 3, 3, 1, 1, 1, 35, 2},
           Shape{2, 32, 12, 16, 3, 3, 2, 2, 2, 32, 2},
           // and rows of 14 and 13 (position blocks of 7 + 7 and 7 + 6)
           Shape{2, 32, 28, 28, 3, 3, 1, 1, 1, 40, 2}, Shape{2, 33, 25, 26, 3, 3, 1, 1, 1, 64, 2},
           // the CNN's two convolutions (Cin 1: the direct kernels; 16 -> 32: Winograd's)
           Shape{2, 1, 28, 28, 3, 3, 1, 1, 1, 16}, Shape{2, 16, 14, 14, 3, 3, 1, 1, 1, 32},
           // AVX2's weight gradient with the channels in the lanes (conv_avx2::lanes_suit: 16k
           // channels, 64+ column rows): 32 + 16 channels with 400 rows (blocks of 3 and of 6 rows
           // and the rest) on 63 positions (an 8x8 transpose's last 7 columns); 16 on 25 positions
           Shape{2, 16, 9, 7, 5, 5, 2, 2, 1, 48}, Shape{3, 16, 5, 5, 3, 3, 1, 1, 1, 16},
           // Winograd F(2x2, 3x3) (3x3, stride 1, 8 channels or more both ways, output rows up to
           // 30; the weight gradient with at most 32 channels both ways, or more on outputs up to
           // 8x8, block after block):
           Shape{5, 8, 6, 6, 3, 3, 1, 1, 1, 9},      // 5 images: a block of 4 and one of 1
           Shape{1, 8, 5, 5, 3, 3, 1, 1, 1, 8},      // batch 1 (one thread)
           Shape{2, 8, 1, 1, 3, 3, 1, 1, 1, 8},      // a 1x1 image: one tile, mostly padding
           Shape{2, 9, 8, 9, 3, 3, 0, 0, 1, 10},     // no padding (the input gradient's is 2)
           Shape{2, 10, 5, 6, 3, 3, 2, 2, 1, 12},    // padding 2 (the input gradient's is 0)
           Shape{3, 12, 7, 17, 3, 3, 1, 1, 1, 20},   // 17 columns: 9 tiles a row (rows one by one), odd rows
           Shape{2, 8, 6, 30, 3, 3, 1, 1, 1, 31},    // 30 columns: 15 tiles, the most
           Shape{2, 8, 3, 31, 3, 3, 1, 1, 1, 8},     // 31 columns: the direct kernels again
           Shape{3, 8, 140, 30, 3, 3, 1, 1, 1, 9},   // 1050 tiles an image: one image a block
           Shape{2, 32, 4, 4, 3, 3, 1, 1, 1, 33},    // 33 output channels at 4x4
           Shape{2, 40, 10, 10, 3, 3, 1, 1, 1, 36},  // 10x10: the weight gradient by the direct kernels
           Shape{5, 40, 8, 8, 3, 3, 1, 1, 1, 70},    // 40 -> 70 at 8x8: blocks of 4 and 1 images
           Shape{3, 130, 4, 4, 3, 3, 1, 1, 1, 33},   // 4 tiles an image: up to 8 images a block (32 tiles)
           Shape{3, 64, 24, 24, 3, 3, 1, 1, 1, 66},  // 144 tiles, 130 channels: 3 images a block (V and M in 4 MiB)
           Shape{2, 260, 3, 3, 3, 3, 1, 1, 1, 300},  // hundreds of channels (300 outputs: blocks of 13 and 14 rows)
           // the same edges for AVX2 machines, where Winograd's needs 1/c + 1/oc <= 1/16: 32 channels
           // or more both ways (eight tiles a vector: rows of 1 to 15 tiles, stores reaching past
           // a row, an image, a block)
           Shape{5, 32, 6, 6, 3, 3, 1, 1, 1, 32},    // blocks of 4 images and 1
           Shape{2, 32, 1, 1, 3, 3, 1, 1, 1, 33},    // a 1x1 image
           Shape{2, 33, 3, 3, 3, 3, 1, 1, 1, 32},    // 3x3 outputs: whole-vector rows past the image
           Shape{2, 32, 8, 9, 3, 3, 0, 0, 1, 40},    // no padding
           Shape{2, 34, 5, 6, 3, 3, 2, 2, 1, 32},    // padding 2
           Shape{3, 32, 7, 17, 3, 3, 1, 1, 1, 35},   // 9 tiles a row: two vectors, the second one tile
           Shape{2, 32, 6, 30, 3, 3, 1, 1, 1, 32},   // 15 tiles a row
       }) {
    SCOPED_TRACE(::testing::Message() << "s=" << s.s << " n=" << s.n << " c=" << s.c << " " << s.h << "x" << s.w << " k=" << s.kh
                                      << "x" << s.kw << " pad=" << s.ph << "," << s.pw << " d=" << s.d
                                      << " oc=" << s.oc);
    const P p = geometry(s);
    const int64_t K = s.c * s.kh * s.kw, L = p.oh * p.ow, image = s.c * s.h * s.w;
    std::vector<double> x(static_cast<size_t>(s.n * image)), w(static_cast<size_t>(s.oc * K)),
        b(static_cast<size_t>(s.oc)), gy(static_cast<size_t>(s.n * s.oc * L));
    // values exact in float
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i)));
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(0.5 - 0.1 * static_cast<double>(i));
    for (size_t i = 0; i < gy.size(); ++i) gy[i] = static_cast<float>(std::sin(0.05 * static_cast<double>(i) + 1));
    const Want want = direct(p, s.oc, x, w, b, gy, false), mag = direct(p, s.oc, x, w, b, gy, true);
    HostTensor tx = make(kFloat, {s.n * image}, x), tw = make(kFloat, {s.oc * K}, w), tb = make(kFloat, {s.oc}, b),
               tgy = make(kFloat, {s.n * s.oc * L}, gy);
    locus::set_num_threads(s.n == 1 ? 1 : before);
    HostTensor y = make(kFloat, {s.n * s.oc * L + kGuard}, {123});
    ASSERT_TRUE(be().conv2d(0, nullptr, kFloat, tx.ref.buf, tw.ref.buf, tb.ref.buf, y.ref.buf, s.oc, p));
    HostTensor gx = make(kFloat, {s.n * image + kGuard}, {55}), gw = make(kFloat, {s.oc * K + kGuard}, {55}),
               gb = make(kFloat, {s.oc + kGuard}, {55});
    ASSERT_TRUE(be().conv2d_backward(0, nullptr, kFloat, tx.ref.buf, tw.ref.buf, tgy.ref.buf, gx.ref.buf, gw.ref.buf,
                                     gb.ref.buf, s.oc, p));
    HostTensor only_gw = make(kFloat, {s.oc * K + kGuard}, {55});
    ASSERT_TRUE(be().conv2d_backward(0, nullptr, kFloat, tx.ref.buf, tw.ref.buf, tgy.ref.buf, backend::Buffer{},
                                     only_gw.ref.buf, backend::Buffer{}, s.oc, p));
    locus::set_num_threads(before);
    expect_near(unguarded(y, want.y.size(), 123, "y"), want.y, mag.y, "y");
    expect_near(unguarded(gx, want.gx.size(), 55, "gx"), want.gx, mag.gx, "gx");
    expect_near(unguarded(gw, want.gw.size(), 55, "gw"), want.gw, mag.gw, "gw");
    expect_near(unguarded(gb, want.gb.size(), 55, "gb"), want.gb, mag.gb, "gb");
    expect_near(unguarded(only_gw, want.gw.size(), 55, "gw alone"), want.gw, mag.gw, "gw alone");
  }
}

// The AVX-512 kernels run where the CPU has AVX-512F (and the AVX2 kernels' features) unless
// LOCUS_CPU_ISA caps the level below avx512 (ctest backends.cpu_conv_avx2 and
// backends.cpu_conv_generic run this with avx2 and generic: off there).
TEST(CpuConv2d, Avx512KernelsFollowLocusCpuIsa) {
  const char* isa = std::getenv("LOCUS_CPU_ISA");
  const bool capped = isa != nullptr && *isa != '\0' && std::string(isa) != "avx512" && std::string(isa) != "avx512_bf16";
#if defined(__x86_64__)
  const bool cpu_has = __builtin_cpu_supports("avx512f") && cpu::conv_avx2::available();
  EXPECT_EQ(cpu::conv_avx512::available(), cpu_has && !capped);
#else
  EXPECT_FALSE(cpu::conv_avx512::available());
#endif
  if (capped) EXPECT_FALSE(cpu::conv_avx512::available());
}

}  // namespace conv_avx512_test
}  // namespace
}  // namespace cpu_test
