// CPU backend: im2col + gemm against a direct convolution, and col2im as its adjoint.
#include "cpu_testing.h"

namespace cpu_test {
namespace {

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
                  Case{2, 10, 10, 3, 1, 2, 2, 2}, Case{4, 6, 5, 1, 1, 0, 1, 3}, Case{1, 4, 4, 5, 1, 3, 1, 1}}) {
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

}  // namespace
}  // namespace cpu_test
