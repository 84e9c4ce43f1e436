// CPU backend: im2col + gemm against a direct convolution, col2im as its adjoint, the convolution
// kernel and the max-pool backward.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/convert.h"
#include "cpu_testing.h"
#include "locus/parallel.h"

namespace cpu_test {
namespace {
namespace im2col_test {

using P = backend::Backend::Im2Col;

P params(int64_t c, int64_t h, int64_t w, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  P p;
  p.c = c; p.h = h; p.w = w; p.kh = k; p.kw = k;
  p.sh = p.sw = stride; p.ph = p.pw = pad; p.dh = p.dw = dil;
  p.oh = (h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  p.ow = (w + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  return p;
}

// out[f][y][x] = sum_{c,i,j} wt[f][c][i][j] * in[c][y*s - p + i*d][x*s - p + j*d]
std::vector<double> conv_ref(const P& p, int64_t f, const std::vector<double>& in, const std::vector<double>& wt) {
  std::vector<double> out(static_cast<size_t>(f * p.oh * p.ow), 0);
  for (int64_t o = 0; o < f; ++o)
    for (int64_t y = 0; y < p.oh; ++y)
      for (int64_t x = 0; x < p.ow; ++x) {
        double s = 0;
        for (int64_t c = 0; c < p.c; ++c)
          for (int64_t i = 0; i < p.kh; ++i)
            for (int64_t j = 0; j < p.kw; ++j) {
              int64_t ih = y * p.sh - p.ph + i * p.dh, iw = x * p.sw - p.pw + j * p.dw;
              if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
              s += wt[static_cast<size_t>(((o * p.c + c) * p.kh + i) * p.kw + j)] * in[static_cast<size_t>((c * p.h + ih) * p.w + iw)];
            }
        out[static_cast<size_t>((o * p.oh + y) * p.ow + x)] = s;
      }
  return out;
}

TEST(CpuIm2Col, MatchesDirectConvolution) {
  struct Case { int64_t c, h, w, k, s, pad, d, f; };
  for (Case cs : {Case{1, 5, 5, 3, 1, 0, 1, 2}, Case{3, 7, 6, 3, 1, 1, 1, 4}, Case{2, 9, 8, 3, 2, 1, 1, 3},
                  Case{2, 10, 10, 3, 1, 2, 2, 2}, Case{4, 6, 5, 1, 1, 0, 1, 3}, Case{1, 4, 4, 5, 1, 3, 1, 1},
                  // strided: stride 3, padding wider than the window, dilation, a strided 1x1, stride 2 on 32
                  Case{2, 11, 10, 3, 3, 1, 1, 2}, Case{1, 7, 8, 3, 2, 4, 1, 2}, Case{2, 12, 13, 3, 2, 2, 2, 3},
                  Case{3, 9, 7, 1, 2, 0, 1, 2}, Case{2, 32, 32, 3, 2, 1, 1, 2},
                  // rows of 8 or more at stride 1 or 2 (conv_avx2::shift_plane on AVX2): padding wider than
                  // the window, dilation on an odd width, a strided 1x1, a 5x5 window at stride 2
                  Case{2, 20, 21, 3, 2, 4, 1, 2}, Case{3, 19, 17, 3, 2, 2, 2, 2}, Case{2, 18, 18, 1, 2, 0, 1, 2},
                  Case{2, 9, 12, 3, 1, 1, 1, 2}, Case{1, 23, 22, 5, 2, 2, 1, 3}}) {
    P p = params(cs.c, cs.h, cs.w, cs.k, cs.s, cs.pad, cs.d);
    std::vector<double> in(static_cast<size_t>(p.c * p.h * p.w)), wt(static_cast<size_t>(cs.f * p.c * p.kh * p.kw));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(static_cast<int>(i % 13) - 6);
    for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<double>(static_cast<int>(i % 5) - 2);
    const int64_t K = p.c * p.kh * p.kw, N = p.oh * p.ow;
    HostTensor tin = make(kFloat, {p.c * p.h * p.w}, in), col = make(kFloat, {K * N}, {123});
    be().im2col(0, nullptr, kFloat, tin.ref.buf, col.ref.buf, p, false);
    HostTensor twt = make(kFloat, {cs.f * K}, wt), out = make(kFloat, {cs.f * N});
    backend::Backend::Gemm g;
    g.m = cs.f; g.n = N; g.k = K;
    g.lda = K; g.ldb = N; g.ldc = N;
    g.a = twt.ref.buf; g.b = col.ref.buf; g.c = out.ref.buf;
    be().gemm(0, nullptr, g);
    EXPECT_EQ(out.values(), conv_ref(p, cs.f, in, wt)) << "c=" << cs.c << " h=" << cs.h << " k=" << cs.k << " s=" << cs.s;
  }
}

TEST(CpuIm2Col, Col2ImIsTheAdjoint) {
  // <im2col(x), y> == <x, col2im(y)> for every x, y
  P p = params(2, 6, 5, 3, 2, 1, 1);
  const int64_t K = p.c * p.kh * p.kw, N = p.oh * p.ow, M = p.c * p.h * p.w;
  std::vector<double> x(static_cast<size_t>(M)), y(static_cast<size_t>(K * N));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 7) - 3;
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<double>(i % 5) - 2;
  HostTensor tx = make(kDouble, {M}, x), cx = make(kDouble, {K * N});
  be().im2col(0, nullptr, kDouble, tx.ref.buf, cx.ref.buf, p, false);
  HostTensor ty = make(kDouble, {K * N}, y), gy = make(kDouble, {M}, {0});
  be().im2col(0, nullptr, kDouble, gy.ref.buf, ty.ref.buf, p, true);
  double lhs = 0, rhs = 0;
  std::vector<double> cxv = cx.values(), gyv = gy.values();
  for (size_t i = 0; i < y.size(); ++i) lhs += cxv[i] * y[i];
  for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * gyv[i];
  EXPECT_EQ(lhs, rhs);
  // col2im accumulates into what is there
  HostTensor acc = make(kDouble, {M}, {1});
  be().im2col(0, nullptr, kDouble, acc.ref.buf, ty.ref.buf, p, true);
  std::vector<double> av = acc.values();
  for (size_t i = 0; i < av.size(); ++i) EXPECT_EQ(av[i], gyv[i] + 1);
}

// The convolution kernel (forward and backward, image by image) against direct loops, for n images
// (n above and below the pool's thread count: side by side and one after the other), in float and
// double, with and without bias, including a 1x1 window (the image is its own columns). Values are
// small integers, so every sum is exact and the comparison is too.
TEST(CpuConv2d, ForwardAndBackwardMatchDirectLoops) {
  struct Case { int64_t n, c, h, w, k, s, pad, d, f; };
  for (ScalarType dt : {kFloat, kDouble})
    for (Case cs : {Case{5, 3, 7, 6, 3, 1, 1, 1, 4}, Case{1, 2, 9, 8, 3, 2, 1, 1, 3}, Case{3, 2, 10, 10, 3, 1, 2, 2, 2},
                    Case{4, 4, 6, 5, 1, 1, 0, 1, 3}, Case{2, 1, 4, 4, 5, 1, 3, 1, 1}, Case{7, 16, 14, 14, 3, 1, 1, 1, 8},
                    // no padding; padding beyond the window (the input gradient cannot be a plain convolution)
                    Case{3, 2, 6, 7, 3, 1, 0, 1, 5}, Case{2, 2, 5, 5, 3, 1, 3, 1, 2}, Case{2, 3, 8, 9, 2, 1, 1, 1, 7},
                    // one image: fewer than the threads (the GEMM path with the BLAS's threads)
                    Case{1, 3, 7, 6, 3, 1, 1, 1, 4}}) {
      SCOPED_TRACE(::testing::Message() << toString(dt) << " n=" << cs.n << " c=" << cs.c << " h=" << cs.h << " k=" << cs.k
                                        << " s=" << cs.s << " pad=" << cs.pad << " d=" << cs.d);
      P p = params(cs.c, cs.h, cs.w, cs.k, cs.s, cs.pad, cs.d);
      p.n = cs.n;
      const int64_t K = p.c * p.kh * p.kw, L = p.oh * p.ow, image = p.c * p.h * p.w;
      std::vector<double> in(static_cast<size_t>(cs.n * image)), wt(static_cast<size_t>(cs.f * K)), bias(static_cast<size_t>(cs.f)),
          gy(static_cast<size_t>(cs.n * cs.f * L));
      for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(static_cast<int>(i % 13) - 6);
      for (size_t i = 0; i < wt.size(); ++i) wt[i] = static_cast<double>(static_cast<int>(i % 5) - 2);
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<double>(i) - 1;
      for (size_t i = 0; i < gy.size(); ++i) gy[i] = static_cast<double>(static_cast<int>(i % 7) - 3);
      // references: per image, the direct convolution; its gradients by the same loops
      std::vector<double> want(gy.size()), want_gx(in.size(), 0), want_gw(wt.size(), 0), want_gb(bias.size(), 0);
      for (int64_t b = 0; b < cs.n; ++b) {
        std::vector<double> xi(in.begin() + b * image, in.begin() + (b + 1) * image);
        std::vector<double> yi = conv_ref(p, cs.f, xi, wt);
        for (int64_t o = 0; o < cs.f; ++o)
          for (int64_t t = 0; t < L; ++t) {
            const size_t at = static_cast<size_t>((b * cs.f + o) * L + t);
            want[at] = yi[static_cast<size_t>(o * L + t)] + bias[static_cast<size_t>(o)];
            const double g = gy[at];
            want_gb[static_cast<size_t>(o)] += g;
            const int64_t y = t / p.ow, x = t % p.ow;
            for (int64_t c = 0; c < p.c; ++c)
              for (int64_t i = 0; i < p.kh; ++i)
                for (int64_t j = 0; j < p.kw; ++j) {
                  int64_t ih = y * p.sh - p.ph + i * p.dh, iw = x * p.sw - p.pw + j * p.dw;
                  if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                  const size_t wi = static_cast<size_t>(((o * p.c + c) * p.kh + i) * p.kw + j);
                  const size_t xi_at = static_cast<size_t>(b * image + (c * p.h + ih) * p.w + iw);
                  want_gw[wi] += g * in[xi_at];
                  want_gx[xi_at] += g * wt[wi];
                }
          }
      }
      HostTensor tin = make(dt, {cs.n * image}, in), twt = make(dt, {cs.f * K}, wt), tb = make(dt, {cs.f}, bias);
      HostTensor out = make(dt, {cs.n * cs.f * L}, {123});
      ASSERT_TRUE(be().conv2d(0, nullptr, dt, tin.ref.buf, twt.ref.buf, tb.ref.buf, out.ref.buf, cs.f, p));
      EXPECT_EQ(out.values(), want);
      HostTensor nob = make(dt, {cs.n * cs.f * L}, {123});
      ASSERT_TRUE(be().conv2d(0, nullptr, dt, tin.ref.buf, twt.ref.buf, backend::Buffer{}, nob.ref.buf, cs.f, p));
      std::vector<double> nbv = nob.values();
      for (size_t i = 0; i < nbv.size(); ++i) EXPECT_EQ(nbv[i], want[i] - bias[(i / static_cast<size_t>(L)) % static_cast<size_t>(cs.f)]);
      // backward: every gradient, then each one alone (the others' buffers are null and untouched)
      HostTensor tgy = make(dt, {cs.n * cs.f * L}, gy);
      HostTensor gx = make(dt, {cs.n * image}, {55}), gw = make(dt, {cs.f * K}, {55}), gb = make(dt, {cs.f}, {55});
      ASSERT_TRUE(be().conv2d_backward(0, nullptr, dt, tin.ref.buf, twt.ref.buf, tgy.ref.buf, gx.ref.buf, gw.ref.buf,
                                       gb.ref.buf, cs.f, p));
      EXPECT_EQ(gx.values(), want_gx);
      EXPECT_EQ(gw.values(), want_gw);
      EXPECT_EQ(gb.values(), want_gb);
      HostTensor only_gx = make(dt, {cs.n * image}, {55}), only_gw = make(dt, {cs.f * K}, {55});
      ASSERT_TRUE(be().conv2d_backward(0, nullptr, dt, tin.ref.buf, twt.ref.buf, tgy.ref.buf, only_gx.ref.buf,
                                       backend::Buffer{}, backend::Buffer{}, cs.f, p));
      EXPECT_EQ(only_gx.values(), want_gx);
      ASSERT_TRUE(be().conv2d_backward(0, nullptr, dt, tin.ref.buf, twt.ref.buf, tgy.ref.buf, backend::Buffer{},
                                       only_gw.ref.buf, backend::Buffer{}, cs.f, p));
      EXPECT_EQ(only_gw.values(), want_gw);
    }
}

// Non-finite values reach exactly the gradients they reach in the direct loops (the kernel may
// compute positions that no output uses; those must not turn 0 * inf into NaN elsewhere).
// The same check on a batch large enough to be scanned by several threads, the infinity in the
// last image (the last chunk), float (the AVX2 kernels' layout where the CPU has them).
TEST(CpuConv2d, NonFiniteValuesInALargeBatchAreFound) {
  P p = params(1, 32, 32, 3, 1, 0, 1);
  p.n = 64;
  const int64_t L = p.oh * p.ow, image = 32 * 32;
  std::vector<double> in(static_cast<size_t>(p.n * image), 1.0), wt(9, 1.0), gy(static_cast<size_t>(p.n * L), 1.0);
  in[static_cast<size_t>((p.n - 1) * image + 32)] = std::numeric_limits<double>::infinity();  // last image, row 1, column 0
  HostTensor tin = make(kFloat, {p.n * image}, in), twt = make(kFloat, {9}, wt), tgy = make(kFloat, {p.n * L}, gy);
  HostTensor gw = make(kFloat, {9});
  ASSERT_TRUE(be().conv2d_backward(0, nullptr, kFloat, tin.ref.buf, twt.ref.buf, tgy.ref.buf, backend::Buffer{},
                                   gw.ref.buf, backend::Buffer{}, 1, p));
  // row 1, column 0 is read through weight (i, j) by the window at (1 - i, -j): weights (0, 0)
  // and (1, 0) only; every other weight's gradient is finite (it was NaN from the padded layout)
  const std::vector<double> got = gw.values();
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      const double v = got[static_cast<size_t>(i * 3 + j)];
      if (j == 0 && i < 2) EXPECT_TRUE(std::isinf(v)) << i << "," << j << ": " << v;
      else EXPECT_EQ(v, static_cast<double>(p.n * L)) << i << "," << j;
    }
}

TEST(CpuConv2d, NonFiniteValuesStayWhereTheyBelong) {
  P p = params(1, 5, 5, 3, 1, 0, 1);  // no padding: a row's last outputs sit next to the next row's first inputs
  p.n = 3;
  const int64_t L = p.oh * p.ow;
  std::vector<double> in(static_cast<size_t>(3 * 25), 1.0), wt(9, 1.0), gy(static_cast<size_t>(3 * L), 1.0);
  in[5] = std::numeric_limits<double>::infinity();  // image 0, row 1, column 0: read by few windows
  wt[2] = std::numeric_limits<double>::infinity();  // the top-right weight
  // references: gw[i][j] sums in over the windows; gx[y][x] sums w over the windows covering it
  std::vector<double> want_gw(9, 0), want_gx(in.size(), 0);
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t y = 0; y < p.oh; ++y)
      for (int64_t x = 0; x < p.ow; ++x)
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 3; ++j) {
            const size_t at = static_cast<size_t>(b * 25 + (y + i) * 5 + x + j);
            want_gw[static_cast<size_t>(i * 3 + j)] += in[at];
            want_gx[at] += wt[static_cast<size_t>(i * 3 + j)];
          }
  HostTensor tin = make(kDouble, {75}, in), twt = make(kDouble, {9}, wt), tgy = make(kDouble, {3 * L}, gy);
  HostTensor gx = make(kDouble, {75}), gw = make(kDouble, {9});
  ASSERT_TRUE(be().conv2d_backward(0, nullptr, kDouble, tin.ref.buf, twt.ref.buf, tgy.ref.buf, gx.ref.buf, gw.ref.buf,
                                   backend::Buffer{}, 1, p));
  auto same = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]))) << i << ": " << got[i] << " vs " << want[i];
  };
  same(gw.values(), want_gw);
  same(gx.values(), want_gx);
  // the cases the check is about: finite here, but next to an infinity in the padded row layout
  EXPECT_TRUE(std::isfinite(want_gx[5]) && std::isfinite(want_gw[1]) && std::isfinite(want_gw[2]));
}

// The weight and bias gradients sum over images in fixed blocks: bit for bit the same with one
// pool thread or two (float, inexact sums, 37 images so the blocks are uneven).
// The AVX2 kernels run where the CPU has AVX2 and FMA unless LOCUS_CPU_ISA caps the level below
// avx2 (ctest backends.cpu_conv_generic runs this with LOCUS_CPU_ISA=generic: off there).
TEST(CpuConv2d, Avx2KernelsFollowLocusCpuIsa) {
#if defined(__x86_64__)
  const bool cpu_has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  EXPECT_EQ(cpu::conv_avx2::available(), cpu_has && cpu::convert_level() >= cpu::ConvertLevel::kAvx2);
  const char* isa = std::getenv("LOCUS_CPU_ISA");
  if (isa != nullptr && (std::string(isa) == "generic" || std::string(isa) == "portable"))
    EXPECT_FALSE(cpu::conv_avx2::available());
#else
  EXPECT_FALSE(cpu::conv_avx2::available());
#endif
}

void gradients_do_not_depend_on_the_thread_count(P p, int64_t oc) {
  p.n = 37;
  const int64_t K = p.c * 9, L = p.oh * p.ow, image = p.c * p.h * p.w;
  std::vector<double> in(static_cast<size_t>(p.n * image)), wt(static_cast<size_t>(oc * K)), gy(static_cast<size_t>(p.n * oc * L));
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(0.37 * static_cast<double>(i));
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = std::cos(0.11 * static_cast<double>(i));
  for (size_t i = 0; i < gy.size(); ++i) gy[i] = std::sin(0.05 * static_cast<double>(i) + 1);
  HostTensor tin = make(kFloat, {p.n * image}, in), twt = make(kFloat, {oc * K}, wt), tgy = make(kFloat, {p.n * oc * L}, gy);
  auto run = [&](int threads) {
    const int before = locus::get_num_threads();
    locus::set_num_threads(threads);
    HostTensor gw = make(kFloat, {oc * K}), gb = make(kFloat, {oc});
    bool ok = be().conv2d_backward(0, nullptr, kFloat, tin.ref.buf, twt.ref.buf, tgy.ref.buf, backend::Buffer{},
                                   gw.ref.buf, gb.ref.buf, oc, p);
    locus::set_num_threads(before);
    EXPECT_TRUE(ok);
    std::vector<double> v = gw.values(), b = gb.values();
    v.insert(v.end(), b.begin(), b.end());
    return v;
  };
  EXPECT_EQ(run(1), run(2)) << "c=" << p.c << " oc=" << oc;
}

TEST(CpuConv2d, GradientsDoNotDependOnTheThreadCount) {
  // 3 -> 5 channels; 40 -> 36 at 8x8 (on AVX-512, Winograd's weight gradient block after block);
  // 128 -> 256 at stride 2, whose per-block sums (1.1 MiB a block) come in 14 blocks, not 16
  for (const auto& [p, oc] : {std::pair{params(3, 9, 11, 3, 1, 1, 1), int64_t{5}},
                              std::pair{params(40, 8, 8, 3, 1, 1, 1), int64_t{36}},
                              std::pair{params(128, 8, 8, 3, 2, 1, 1), int64_t{256}}})
    gradients_do_not_depend_on_the_thread_count(p, oc);
}

TEST(CpuConv2d, OtherDtypesAreLeftToTheCaller) {
  P p = params(1, 4, 4, 3, 1, 1, 1);
  HostTensor t = make(kHalf, {16}), w = make(kHalf, {9}), o = make(kHalf, {16});
  EXPECT_FALSE(be().conv2d(0, nullptr, kHalf, t.ref.buf, w.ref.buf, backend::Buffer{}, o.ref.buf, 1, p));
  EXPECT_FALSE(be().conv2d_backward(0, nullptr, kHalf, t.ref.buf, w.ref.buf, o.ref.buf, t.ref.buf, backend::Buffer{},
                                    backend::Buffer{}, 1, p));
}

// 2x2 max pooling (the vectorised passes; one AVX-512 pass for float) against a window scan: the
// first maximum in row-major order, a NaN winning (the first NaN of a window with two), -inf; rows
// of 13 and 8 outputs (a vector and an overlapping one, exactly one), of 14, 28, 16 and 32 (whole
// and masked AVX-512 steps), of 8, 7 and 3 (two rows an AVX-512 step), odd heights and widths
// (the last row and column belong to no window), many ties; the 16-bit dtypes through the float
// kernel and one vector conversion (exact: a maximum is one of the inputs).
TEST(CpuMaxPool, TwoByTwoMatchesTheWindowScan) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf})
    for (int64_t w : {26, 27, 16, 14, 7, 28, 56, 33, 65})
    for (int64_t h : {7, 8})
    for (int64_t planes : {3, 300}) {  // 300 planes: several groups and chunks (threads)
      P p = params(1, h, w, 2, 2, 0, 1);
      const int64_t hw = p.h * p.w, l = p.oh * p.ow;
      std::vector<double> in(static_cast<size_t>(planes * hw));
      for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>((i * 7 + i / 5) % 4);  // ties everywhere
      for (size_t i = 3; i < in.size(); i += 37) in[i] = std::numeric_limits<double>::quiet_NaN();
      for (size_t i = 4; i < in.size(); i += 41) in[i] = -std::numeric_limits<double>::infinity();
      for (size_t i = 11; i + 1 < in.size(); i += 97) in[i] = in[i + 1] = std::numeric_limits<double>::quiet_NaN();
      std::vector<double> want(static_cast<size_t>(planes * l)), want_ix(want.size());
      for (int64_t q = 0; q < planes; ++q)
        for (int64_t y = 0; y < p.oh; ++y)
          for (int64_t x = 0; x < p.ow; ++x) {
            int64_t best_at = -1;
            double best = 0;
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t j = 0; j < 2; ++j) {
                int64_t at = (2 * y + i) * p.w + 2 * x + j;
                double v = in[static_cast<size_t>(q * hw + at)];
                if (best_at < 0 || (!std::isnan(best) && (v > best || std::isnan(v)))) best = v, best_at = at;
              }
            want[static_cast<size_t>(q * l + y * p.ow + x)] = best;
            want_ix[static_cast<size_t>(q * l + y * p.ow + x)] = static_cast<double>(best_at);
          }
      // 8 guard elements past both outputs: the vector kernels must not write there
      HostTensor tin = make(dt, {planes * hw}, in), out = make(dt, {planes * l + 8}, {-5}),
                 ix = make(kLong, {planes * l + 8}, {-5});
      ASSERT_TRUE(be().max_pool2d(0, nullptr, dt, tin.ref.buf, out.ref.buf, ix.ref.buf, planes, p));
      std::vector<double> got = out.values(), got_ix = ix.values();
      for (size_t i = static_cast<size_t>(planes * l); i < got.size(); ++i)
        ASSERT_TRUE(got[i] == -5 && got_ix[i] == -5) << "written past the end: w=" << w << " planes=" << planes;
      got.resize(static_cast<size_t>(planes * l));
      got_ix.resize(got.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_TRUE(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))
            << toString(dt) << " w=" << w << " planes=" << planes << " at " << i;
      ASSERT_EQ(got_ix, want_ix) << toString(dt) << " w=" << w << " planes=" << planes;
    }
}

// max_pool2d's backward kernel with overlapping windows (1x2, stride 1): zero, then each output's
// gradient added at its index (repeated indices add up).
TEST(CpuMaxPool, BackwardAddsAtTheIndices) {
  P p = params(1, 1, 4, 2, 1, 0, 1);
  p.kh = 1, p.oh = 1;  // [1, 4] planes, windows of 1x2: ow 3
  HostTensor gy = make(kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor idx = make(kLong, {2, 3}, {0, 2, 2, 1, 2, 2});
  HostTensor gx = make(kFloat, {2, 4}, {9});
  ASSERT_TRUE(be().max_pool2d_backward(0, nullptr, kFloat, gy.ref.buf, idx.ref.buf, gx.ref.buf, 2, p));
  EXPECT_EQ(gx.values(), std::vector<double>({1, 0, 5, 0, 0, 4, 11, 0}));
}

// The backward of windows that do not overlap (the plane zeroed, then each window's gradient at its
// maximum): the output gradient at each window's index, zero elsewhere, the rows and columns outside
// every window included; against a direct loop, for 2x2 (the AVX-512 path for float: rows of 14, 16
// and 13 outputs a row a step, of 8, 7 and 3 two rows a step, odd heights and widths) and 3x3
// windows, windows with gaps between them (2x2 at stride 3, dilated 2x2 at stride 3), every
// floating dtype. The gradient buffer starts full of NaN so an element left unwritten shows.
TEST(CpuMaxPool, DisjointBackwardWritesEveryElementOnce) {
  struct Win { int64_t k, s, d; };
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf})
    for (Win win : {Win{2, 2, 1}, Win{3, 3, 1}, Win{2, 3, 1}, Win{2, 3, 2}})
      for (int64_t h : {7, 8})
        for (int64_t w : {28, 33, 32, 27, 7, 14, 15, 16})
          for (int64_t planes : {3, 70}) {
            const int64_t k = win.k;
            P p = params(1, h, w, k, win.s, 0, win.d);
            const int64_t hw = h * w, l = p.oh * p.ow;
            std::vector<double> g(static_cast<size_t>(planes * l)), ix(g.size());
            std::vector<double> want(static_cast<size_t>(planes * hw), 0.0);
            for (int64_t q = 0; q < planes; ++q)
              for (int64_t y = 0; y < p.oh; ++y)
                for (int64_t x = 0; x < p.ow; ++x) {
                  const size_t t = static_cast<size_t>(q * l + y * p.ow + x);
                  const int64_t i = static_cast<int64_t>(t % 5) % k, j = static_cast<int64_t>(t % 3) % k;
                  const int64_t at = (y * win.s + i * win.d) * w + x * win.s + j * win.d;
                  g[t] = static_cast<double>(t % 17) - 8.0;
                  ix[t] = static_cast<double>(at);
                  want[static_cast<size_t>(q * hw + at)] = g[t];
                }
            HostTensor tg = make(dt, {planes * l}, g), tix = make(kLong, {planes * l}, ix),
                       gx = make(dt, {planes * hw + 8}, {std::numeric_limits<double>::quiet_NaN()});
            ASSERT_TRUE(be().max_pool2d_backward(0, nullptr, dt, tg.ref.buf, tix.ref.buf, gx.ref.buf, planes, p));
            std::vector<double> got = gx.values();
            for (size_t i = static_cast<size_t>(planes * hw); i < got.size(); ++i)
              ASSERT_TRUE(std::isnan(got[i])) << "written past the end: " << toString(dt) << " w=" << w;
            got.resize(want.size());
            ASSERT_EQ(got, want) << toString(dt) << " k=" << k << " s=" << win.s << " d=" << win.d << " h=" << h << " w=" << w << " planes=" << planes;
          }
}

}  // namespace im2col_test
}  // namespace
}  // namespace cpu_test
