// conv2d on every device against the cpu result: forward, input, weight and bias gradients, over
// shapes chosen to reach the GPU layer's direct kernels (src/kernels/conv.cl: Cin 1, channel counts
// that are not multiples of its 16-channel blocks or 4-channel steps, odd and wide images, dilation,
// padding larger than the kernel, 2 to 25 taps, batches its weight gradient splits unevenly) and
// the im2col + GEMM path around them (stride 2, 1x1, groups). Float64 against finite differences too.
#include <cmath>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace conv_test {

namespace {
struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw;
  int64_t ph = 0, pw = 0, dh = 1, dw = 1, sh = 1, sw = 1, groups = 1;
  bool bias = true;
};

std::string describe(const ConvCase& k) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "x [%lld, %lld, %lld, %lld], w [%lld, %lld, %lld, %lld], pad %lldx%lld dil %lldx%lld "
                "stride %lldx%lld groups %lld%s",
                (long long)k.n, (long long)k.c, (long long)k.h, (long long)k.w, (long long)k.oc,
                (long long)(k.c / k.groups), (long long)k.kh, (long long)k.kw, (long long)k.ph, (long long)k.pw,
                (long long)k.dh, (long long)k.dw, (long long)k.sh, (long long)k.sw, (long long)k.groups,
                k.bias ? "" : ", no bias");
  return buf;
}

// Largest |a - b| relative to the largest |b| (at least 1).
double rel_diff(const Tensor& a, const Tensor& b) {
  Tensor bc = b.cpu().to(kDouble);
  double scale = std::max(1.0, bc.abs().max().item<double>());
  return (a.cpu().to(kDouble) - bc).abs().max().item<double>() / scale;
}
}  // namespace

class Conv : public testing::TestWithParam<Device> {};

TEST_P(Conv, MatchesCpuWithGradients) {
  const Device d = GetParam();
  const std::vector<ConvCase> cases = {
      {64, 1, 28, 28, 16, 3, 3, 1, 1},            // the demo's first convolution (Cin 1)
      {64, 16, 14, 14, 32, 3, 3, 1, 1},           // and its second
      {3, 5, 7, 9, 11, 3, 3, 1, 1},               // channels not multiples of the blocks
      {2, 6, 9, 31, 17, 5, 5, 2, 2},              // 5x5, odd width
      {9, 3, 10, 12, 33, 2, 3, 0, 1, 1, 2},       // 2x3 taps, dilation 1x2, 9 images (uneven splits)
      {2, 1, 5, 6, 2, 2, 2, 1, 0, 2, 2},          // dilation 2, Cin 1
      {1, 2, 40, 70, 3, 3, 3},                    // no padding, wider than one 32-column tile, tall
      {2, 3, 6, 5, 4, 3, 3, 3, 4, 1, 1, 1, 1, 1, false},  // padding beyond the kernel, no bias
      {2, 20, 8, 8, 5, 3, 1, 1, 0},               // a 3x1 kernel, 20 channels (5 steps of 4)
      {1, 70, 5, 5, 3, 3, 3, 1, 1},               // a weight gradient wider than 64 columns per group
      {2, 4, 9, 9, 6, 3, 3, 1, 1, 1, 1, 2, 2},    // stride 2: im2col + GEMM
      {2, 8, 6, 6, 16, 1, 1},                     // 1x1: a GEMM
      {2, 4, 7, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2}, // groups 2: im2col + GEMM
  };
  for (const ConvCase& k : cases) {
    SCOPED_TRACE(describe(k));
    manual_seed(7);
    Tensor x = randn({k.n, k.c, k.h, k.w}), w = randn({k.oc, k.c / k.groups, k.kh, k.kw}), b = randn({k.oc});
    Tensor v;  // the upstream gradient
    struct Out {
      Tensor y, gx, gw, gb;
    };
    auto run = [&](Device dev) {
      Tensor xd = x.to(dev).detach().requires_grad_(), wd = w.to(dev).detach().requires_grad_();
      Tensor bd = k.bias ? b.to(dev).detach().requires_grad_() : Tensor();
      F::Conv2dFuncOptions o;
      o.padding({k.ph, k.pw}).dilation({k.dh, k.dw}).stride({k.sh, k.sw}).groups(k.groups);
      if (k.bias) o.bias(bd);
      Tensor y = F::conv2d(xd, wd, o);
      if (!v.defined()) v = randn(y.sizes());
      (y * v.to(dev)).sum().backward();
      return Out{y, xd.grad(), wd.grad(), k.bias ? bd.grad() : Tensor()};
    };
    Out ref = run(kCPU), got = run(d);
    ASSERT_EQ(got.y.sizes(), ref.y.sizes());
    EXPECT_EQ(got.y.device(), d);
    EXPECT_LT(rel_diff(got.y, ref.y), 1e-5);
    EXPECT_LT(rel_diff(got.gx, ref.gx), 1e-5);
    EXPECT_LT(rel_diff(got.gw, ref.gw), 1e-5);
    if (k.bias) EXPECT_LT(rel_diff(got.gb, ref.gb), 1e-5);
  }
}

TEST_P(Conv, PartialGradientsAndFrozenWeights) {
  // Only some of the three gradients wanted: the input's alone, the weight's alone, the bias's alone.
  const Device d = GetParam();
  manual_seed(3);
  Tensor x = randn({5, 3, 11, 13}), w = randn({7, 3, 3, 3}), b = randn({7}), v = randn({5, 7, 11, 13});
  auto opts = [](const Tensor& bias) { return F::Conv2dFuncOptions().padding(1).bias(bias); };
  for (int wanted = 0; wanted < 3; ++wanted) {
    SCOPED_TRACE("gradient of argument " + std::to_string(wanted));
    auto grad = [&](Device dev) {
      Tensor xd = x.to(dev).detach().requires_grad_(wanted == 0), wd = w.to(dev).detach().requires_grad_(wanted == 1),
             bd = b.to(dev).detach().requires_grad_(wanted == 2);
      (F::conv2d(xd, wd, opts(bd)) * v.to(dev)).sum().backward();
      EXPECT_EQ(xd.grad().defined(), wanted == 0);
      EXPECT_EQ(wd.grad().defined(), wanted == 1);
      EXPECT_EQ(bd.grad().defined(), wanted == 2);
      return wanted == 0 ? xd.grad() : wanted == 1 ? wd.grad() : bd.grad();
    };
    Tensor ref = grad(kCPU), got = grad(d);
    ASSERT_TRUE(ref.defined() && got.defined());
    EXPECT_LT(rel_diff(got, ref), 1e-5);
  }
}

TEST_P(Conv, Float64Gradients) {
  using Vs = std::vector<Tensor>;
  const Device d = GetParam();
  gradcheck([](const Vs& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).padding(1)); },
            {sample({2, 3, 5, 6}), sample({4, 3, 3, 3}, 1.), sample({4}, 2.)}, d);
  gradcheck([](const Vs& x) {
    return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).dilation({1, 2}).padding({0, 2}));
  },
            {sample({3, 1, 4, 7}), sample({2, 1, 2, 3}, 1.), sample({2}, 2.)}, d);
  gradcheck([](const Vs& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().padding(3)); },
            {sample({1, 2, 3, 3}), sample({3, 2, 2, 2}, 1.)}, d);
}

LOCUS_INSTANTIATE_DEVICES(Conv);

}  // namespace conv_test
