// Layers and functional: gradients against finite differences (float64), values against
// PyTorch, train/eval behaviour, and small models reaching 100% training accuracy, on every device.
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace layers_test {

using V = std::vector<Tensor>;

class Layers : public testing::TestWithParam<Device> {};

// GroupNorm against its definition (float64 loops), in 4-D, 3-D and 2-D; gradients; the module's
// parameters and printing; every error.
TEST_P(Layers, GroupNormMatchesTheDefinition) {
  const Device d = GetParam();
  manual_seed(3);
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  nn::GroupNorm m(nn::GroupNormOptions(3, 6).eps(1e-3).device(d).dtype(kDouble));
  ASSERT_EQ(m->parameters().size(), 2u);
  EXPECT_EQ(values(m->weight), std::vector<double>(6, 1.0));
  EXPECT_EQ(values(m->bias), std::vector<double>(6, 0.0));
  {
    NoGradGuard ng;
    m->weight.copy_(randn({6}, o));
    m->bias.copy_(randn({6}, o));
  }
  const std::vector<double> w = values(m->weight), b = values(m->bias);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 6, 3, 4}, {2, 6, 5}, {4, 6}}) {
    const Tensor x = randn(shape, o) * 3 + 1;
    const std::vector<double> xv = values(x), yv = values(m(x));
    const int64_t n = shape[0], per_channel = x.numel() / (n * 6), per_group = 2 * per_channel;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t g = 0; g < 3; ++g) {
        const int64_t begin = (i * 6 + g * 2) * per_channel;
        double mean = 0, var = 0;
        for (int64_t e = 0; e < per_group; ++e) mean += xv[static_cast<size_t>(begin + e)];
        mean /= static_cast<double>(per_group);
        for (int64_t e = 0; e < per_group; ++e) var += std::pow(xv[static_cast<size_t>(begin + e)] - mean, 2);
        var /= static_cast<double>(per_group);
        for (int64_t e = 0; e < per_group; ++e) {
          const size_t at = static_cast<size_t>(begin + e), c = static_cast<size_t>(g * 2 + e / per_channel);
          ASSERT_NEAR(yv[at], (xv[at] - mean) / std::sqrt(var + 1e-3) * w[c] + b[c], 1e-9)
              << shape.size() << "-D, image " << i << " group " << g;
        }
      }
  }
  EXPECT_TRUE(group_norm(randn({2, 6, 3}, o), 2).defined());  // torch::group_norm, no affine
  gradcheck([](const V& x) { return F::group_norm(x[0], F::GroupNormFuncOptions(2).weight(x[1]).bias(x[2])); },
            {sample({2, 4, 3}), sample({4}, 1.), sample({4}, 2.)}, d);
  std::ostringstream printed;
  printed << *m;
  EXPECT_EQ(printed.str(), "locus::nn::GroupNorm(3, 6, eps=0.001, affine=true)");
  EXPECT_TRUE(nn::GroupNorm(nn::GroupNormOptions(2, 4).affine(false))->parameters().empty());
  EXPECT_THROW_MSG(nn::GroupNorm(4, 6), Error, "[GroupNorm] num_channels (6) must be divisible by num_groups (4).");
  EXPECT_THROW_MSG(F::group_norm(randn({2, 6, 3}, o), F::GroupNormFuncOptions(4)), Error,
                   "[group_norm] Expected number of channels in input to be divisible by num_groups, but got input of "
                   "shape [2, 6, 3] and num_groups=4.");
  EXPECT_THROW_MSG(F::group_norm(randn({6}, o), F::GroupNormFuncOptions(2)), Error,
                   "[group_norm] expected an input of at least 2 dimensions [N, C, *], got [6].");
  EXPECT_THROW_MSG(F::group_norm(randn({2, 6}, o), F::GroupNormFuncOptions(2).weight(randn({4}, o))), Error,
                   "[group_norm] expected weight of 6 elements (the channels), got [4].");
  if (!d.is_cpu()) EXPECT_THROW(m(randn({2, 6})), DeviceMismatchError);
}

// KLDivLoss against its definition: each reduction (kBatchMean included), log_target, a zero
// target (0, not NaN), gradients, torch::kl_div.
TEST_P(Layers, KLDivLossMatchesTheDefinition) {
  const Device d = GetParam();
  manual_seed(4);
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  const Tensor input = randn({3, 4}, o).log_softmax(1);
  Tensor target = randn({3, 4}, o).softmax(1);
  {
    NoGradGuard ng;
    target.index_put_({0, 1}, 0.0);  // a zero probability contributes 0
  }
  const std::vector<double> x = values(input), t = values(target);
  std::vector<double> want(x.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += want[i] = t[i] == 0 ? 0 : t[i] * (std::log(t[i]) - x[i]);
  const std::vector<double> none = values(nn::KLDivLoss(kNone)(input, target));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(none[i], want[i], 1e-12) << i;
  EXPECT_NEAR(F::kl_div(input, target, kSum).item<double>(), sum, 1e-12);
  EXPECT_NEAR(nn::KLDivLoss()(input, target).item<double>(), sum / 12, 1e-12);  // kMean: over elements
  EXPECT_NEAR(nn::KLDivLoss(nn::KLDivLossOptions().reduction(kBatchMean))(input, target).item<double>(), sum / 3, 1e-12);
  EXPECT_NEAR(kl_div(input, target, Reduction::Sum).item<double>(), sum, 1e-12);  // torch::kl_div
  // log_target: the same divergence from log-probabilities
  const Tensor lt = randn({3, 4}, o).log_softmax(1);
  EXPECT_NEAR(F::kl_div(input, lt, F::KLDivFuncOptions(kSum).log_target(true)).item<double>(),
              F::kl_div(input, lt.exp(), kSum).item<double>(), 1e-12);
  gradcheck([&target](const V& v) { return F::kl_div(v[0], target, kBatchMean); }, {sample({3, 4})}, d);
  gradcheck([](const V& v) { return F::kl_div(v[0], v[1], F::KLDivFuncOptions(kNone).log_target(true)); },
            {sample({3, 4}), sample({3, 4}, 1.)}, d);
  std::ostringstream printed;
  printed << *nn::KLDivLoss();
  EXPECT_EQ(printed.str(), "locus::nn::KLDivLoss()");
  if (!d.is_cpu()) EXPECT_THROW(F::kl_div(input, target.to(kCPU)), DeviceMismatchError);
}

// F::interpolate and nn::Upsample: the values PyTorch 2.15 gives (checked there; each is worked by
// hand from its coordinate rules below),
// for nearest, nearest-exact, linear, bilinear (align_corners both ways), trilinear; sizes or
// factors; gradients; every error.
TEST_P(Layers, InterpolateAndUpsample) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  using VD = std::vector<double>;
  const Tensor x = tensor({0.0, 2.0, 4.0, 6.0}, o).view({1, 1, 2, 2});
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kNearest));
  EXPECT_EQ(values(up(x)), (VD{0, 0, 2, 2, 0, 0, 2, 2, 4, 4, 6, 6, 4, 4, 6, 6}));
  std::ostringstream printed;
  printed << *up;
  EXPECT_EQ(printed.str(), "locus::nn::Upsample(scale_factor=[2, 2], mode=kNearest)");
  // bilinear of 4 r + 2 c is exact: align_corners=true spreads the corners, false clamps the border
  EXPECT_EQ(values(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(kBilinear).align_corners(true))),
            (VD{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  const VD at = {0, 0.25, 0.75, 1};  // align_corners=false, factor 2: (j + 0.5) / 2 - 0.5, clamped
  VD want;
  for (double r : at)
    for (double c : at) want.push_back(4 * r + 2 * c);
  const VD got = values(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}).mode(kBilinear)));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  // 1-D: 3 -> 5 nearest takes floor(j * 3 / 5); nearest-exact floor((j + 0.5) * 3 / 5); linear
  const Tensor line = tensor({1.0, 2.0, 3.0}, o).view({1, 1, 3});
  const F::InterpolateFuncOptions to5 = F::InterpolateFuncOptions().size(std::vector<int64_t>{5});
  EXPECT_EQ(values(F::interpolate(line, to5)), (VD{1, 1, 2, 2, 3}));
  EXPECT_EQ(values(F::interpolate(line, F::InterpolateFuncOptions(to5).mode(kNearestExact))), (VD{1, 1, 2, 3, 3}));
  const VD lin = values(F::interpolate(line, F::InterpolateFuncOptions(to5).mode(kLinear)));
  const VD lin_want = {1, 1.4, 2, 2.6, 3};  // src = (j + 0.5) * 0.6 - 0.5, clamped at 0 and at 2
  for (size_t i = 0; i < lin.size(); ++i) EXPECT_NEAR(lin[i], lin_want[i], 1e-12) << i;
  // trilinear of a constant stays constant; the shape follows the factors per dim
  const Tensor cube = full({1, 2, 2, 3, 4}, 1.5, o);
  const Tensor big = F::interpolate(cube, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 1, 0.5}).mode(kTrilinear));
  EXPECT_EQ(big.sizes(), IntArrayRef({1, 2, 4, 3, 2}));
  EXPECT_TRUE(big.allclose(full({1, 2, 4, 3, 2}, 1.5, o)));
  gradcheck([](const V& v) {
    return F::interpolate(v[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 3}).mode(kBilinear));
  }, {sample({1, 2, 3, 4})}, d);
  gradcheck([](const V& v) { return F::interpolate(v[0], F::InterpolateFuncOptions().scale_factor(std::vector<double>{2})); },
            {sample({2, 1, 3})}, d);
  EXPECT_THROW_MSG(F::interpolate(x), Error, "[interpolate] either size or scale_factor should be defined.");
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).scale_factor(std::vector<double>{2})),
                   Error, "[interpolate] only one of size or scale_factor should be defined.");
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).mode(kLinear)), Error,
                   "[interpolate] Got 4D input, but linear mode needs 3D input.");
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).align_corners(false)), Error,
                   "[interpolate] align_corners option can only be set with the interpolating modes");
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 4, 4})), Error,
                   "[interpolate] Input and output must have the same number of spatial dimensions, but got input with "
                   "spatial dimensions of [2, 2] and output size of 3 values.");
  EXPECT_THROW_MSG(F::interpolate(line, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).mode(kBicubic)), Error,
                   "[interpolate] Got 3D input, but bicubic mode needs 4D input.");
  EXPECT_TRUE(F::interpolate(cube, F::InterpolateFuncOptions().size(std::vector<int64_t>{1}).mode(kArea))
                  .allclose(full({1, 2, 1, 1, 1}, 1.5, o)));  // area in 3-D: the adaptive average pool
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).mode(kArea).align_corners(true)),
                   Error, "[interpolate] align_corners option can only be set with the interpolating modes");
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{-2})), Error,
                   "[interpolate] scale_factor must be positive, got -2");
  std::ostringstream bilinear;
  bilinear << *nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{4, 4}).mode(kBilinear).align_corners(true));
  EXPECT_EQ(bilinear.str(), "locus::nn::Upsample(size=[4, 4], mode=kBilinear)");  // libtorch 1.13 omits align_corners
  EXPECT_THROW_MSG(F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{0.1})), Error,
                   "[interpolate] Input and output sizes should be greater than 0");
  EXPECT_THROW_MSG(F::interpolate(tensor({1.0}, o), F::InterpolateFuncOptions().size(std::vector<int64_t>{2})), Error,
                   "[interpolate] expected a 3-D, 4-D or 5-D input [N, C, *spatial], got [1].");
}

// PixelShuffle: out[n][c][h r + i][w r + j] = in[n][c r^2 + i r + j][h][w] (PyTorch's definition);
// PixelUnshuffle undoes it; extra leading dims; gradients; errors.
TEST_P(Layers, PixelShuffleAndUnshuffle) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  const int64_t r = 3, c = 2, h = 2, w = 4;
  const Tensor x = arange(2 * c * r * r * h * w, o).view({2, c * r * r, h, w});
  nn::PixelShuffle shuffle{nn::PixelShuffleOptions(r)};
  const Tensor y = shuffle(x);
  ASSERT_EQ(y.sizes(), IntArrayRef({2, c, h * r, w * r}));
  const std::vector<double> xv = values(x), yv = values(y);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < h * r; ++i)
        for (int64_t j = 0; j < w * r; ++j)
          ASSERT_EQ(yv[static_cast<size_t>(((n * c + ch) * h * r + i) * w * r + j)],
                    xv[static_cast<size_t>(((n * c * r * r + ch * r * r + (i % r) * r + j % r) * h + i / r) * w + j / r)]);
  EXPECT_TRUE(nn::PixelUnshuffle(nn::PixelUnshuffleOptions(r))(y).equal(x));
  EXPECT_TRUE(pixel_unshuffle(pixel_shuffle(x, r), r).equal(x));  // torch::
  const Tensor many = x.view({2, 1, c * r * r, h, w}).expand({2, 3, c * r * r, h, w});
  EXPECT_EQ(F::pixel_shuffle(many, F::PixelShuffleFuncOptions(r)).sizes(), IntArrayRef({2, 3, c, h * r, w * r}));
  gradcheck([](const V& v) { return F::pixel_shuffle(v[0], F::PixelShuffleFuncOptions(2)); }, {sample({1, 8, 2, 3})}, d);
  std::ostringstream printed;
  printed << *shuffle;
  EXPECT_EQ(printed.str(), "locus::nn::PixelShuffle(upscale_factor=3)");
  EXPECT_THROW_MSG(F::pixel_shuffle(x, F::PixelShuffleFuncOptions(4)), Error,
                   "[pixel_shuffle] expects its input's 'channel' dimension to be divisible by the square of "
                   "upscale_factor, but input.size(-3)=18 is not divisible by 16.");
  EXPECT_THROW_MSG(F::pixel_unshuffle(x, F::PixelUnshuffleFuncOptions(3)), Error,
                   "[pixel_unshuffle] expects height and width to be divisible by downscale_factor, but got input of "
                   "shape [2, 18, 2, 4] and downscale_factor=3.");
  EXPECT_THROW_MSG(F::pixel_shuffle(x[0][0], F::PixelShuffleFuncOptions(2)), Error,
                   "[pixel_shuffle] expects input to have at least 3 dimensions, but got input with 2 dimension(s).");
  EXPECT_THROW_MSG(F::pixel_shuffle(x, F::PixelShuffleFuncOptions(0)), Error,
                   "[pixel_shuffle] upscale_factor must be greater than 0, but got 0.");
}

// InstanceNorm2d/1d against the definition: per image and channel over the positions; running
// statistics as PyTorch updates them (the batch's mean of each image's mean and unbiased variance,
// checked against PyTorch 2.15) and used in eval(); affine; unbatched input; gradients; errors.
TEST_P(Layers, InstanceNormMatchesTheDefinition) {
  const Device d = GetParam();
  manual_seed(6);
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  const Tensor x = randn({2, 3, 2, 3}, o) * 2 + 1;
  nn::InstanceNorm2d m(nn::InstanceNorm2dOptions(3).track_running_stats(true).device(d).dtype(kDouble));
  EXPECT_TRUE(m->parameters().empty());  // affine false by default, as PyTorch
  const Tensor y = m(x);
  const Tensor flat = x.reshape({2, 3, -1}), mean = flat.mean({2}), var = (flat - mean.unsqueeze(2)).pow(2).mean({2});
  EXPECT_TRUE(y.reshape({2, 3, -1}).allclose((flat - mean.unsqueeze(2)) / (var.unsqueeze(2) + 1e-5).sqrt(), 1e-9, 1e-12));
  EXPECT_TRUE(m->running_mean.allclose(mean.mean({0}) * 0.1, 1e-12, 1e-12));
  EXPECT_TRUE(m->running_var.allclose(0.9 + var.mean({0}) * (6.0 / 5.0) * 0.1, 1e-12, 1e-12));
  EXPECT_EQ(m->num_batches_tracked.item<int64_t>(), 1);
  m->eval();  // the running statistics now
  const Tensor rm = m->running_mean.view({1, 3, 1, 1}), rv = m->running_var.view({1, 3, 1, 1});
  EXPECT_TRUE(m(x).allclose((x - rm) / (rv + 1e-5).sqrt(), 1e-9, 1e-12));
  EXPECT_TRUE(m(x[1]).allclose(m(x)[1], 1e-12, 1e-12));  // unbatched [C, H, W]
  // affine, and 1-D; without running statistics eval() still uses the input's
  nn::InstanceNorm1d a(nn::InstanceNorm1dOptions(3).affine(true).device(d).dtype(kDouble));
  {
    NoGradGuard ng;
    a->weight.copy_(tensor({1.0, 2.0, 3.0}, o));
    a->bias.copy_(tensor({0.5, 0.0, -1.0}, o));
  }
  a->eval();
  const Tensor seq = x.reshape({2, 3, 6});
  const Tensor plain = F::instance_norm(seq);
  EXPECT_TRUE(a(seq).allclose(plain * tensor({1.0, 2.0, 3.0}, o).view({1, 3, 1}) + tensor({0.5, 0.0, -1.0}, o).view({1, 3, 1}),
                              1e-9, 1e-12));
  gradcheck([](const V& v) { return F::instance_norm(v[0], F::InstanceNormFuncOptions().weight(v[1]).bias(v[2])); },
            {sample({2, 3, 4}), sample({3}, 1.), sample({3}, 2.)}, d);
  std::ostringstream printed;
  printed << *m;
  EXPECT_EQ(printed.str(), "locus::nn::InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=true)");
  EXPECT_THROW_MSG(m(x[0][0]), Error, "InstanceNorm2d: expected 3D (unbatched) or 4D input (got 2D input).");
  EXPECT_THROW_MSG(m(seq.view({2, 3, 3, 2}).narrow(1, 0, 2)), Error, "InstanceNorm2d: expected input with 3 channels, got 2.");
  EXPECT_THROW_MSG(F::instance_norm(seq, F::InstanceNormFuncOptions().use_input_stats(false)), Error,
                   "[instance_norm] use_input_stats(false) needs running_mean and running_var");
  EXPECT_THROW_MSG(F::instance_norm(seq, F::InstanceNormFuncOptions().running_mean(zeros({3}, o))), Error,
                   "[instance_norm] running_mean and running_var come together: give both or neither.");
  EXPECT_THROW_MSG(F::instance_norm(seq, F::InstanceNormFuncOptions().weight(tensor({1.0}, o))), Error,
                   "[instance_norm] expected weight of 3 elements (the channels), got [1].");
}

// gelu's backward (one fused pass when no graph of it is built) against its derivative in double,
// float and double, both forms, over [-9, 9] (the negative tail included); with create_graph the
// gradient stays differentiable: gelu''(x) = phi(x) (2 - x^2) for the erf form.
TEST_P(Layers, GeluGradientsMatchTheDerivative) {
  const Device d = GetParam();
  for (ScalarType dt : {kFloat, kDouble})
    for (bool tanh_form : {false, true}) {
      SCOPED_TRACE(::testing::Message() << toString(dt) << (tanh_form ? " tanh" : " erf"));
      const Tensor x = linspace(-9, 9, 1001, TensorOptions().device(d).dtype(dt)).requires_grad_(true);
      const Tensor y = F::gelu(x, F::GELUFuncOptions().approximate(tanh_form ? "tanh" : "none"));
      EXPECT_EQ(y.grad_fn()->name(), "GeluBackward0");
      // the gradient as a contiguous tensor (of y * 3), and as a sum's backward gives it (one
      // value broadcast: stride 0)
      for (const double scale : {3.0, 1.0}) {
      const Tensor g = autograd::grad({scale == 1 ? y.sum() : (y * scale).sum()}, {x}, {}, /*retain_graph=*/true)[0];
      const std::vector<double> xv = values(x), gv = values(g);
      int bad = 0;
      for (size_t i = 0; i < xv.size(); ++i) {
        const double b = xv[i], k = std::sqrt(2.0 / M_PI), c = 0.044715, t = std::tanh(k * (b + c * b * b * b));
        const double want = scale * (tanh_form ? 0.5 * (1 + t) + 0.5 * k * b * (1 - t * t) * (1 + 3 * c * b * b)
                                           : 0.5 * std::erfc(-b / std::sqrt(2.0)) + b * std::exp(-0.5 * b * b) / std::sqrt(2 * M_PI));
        // in float the tanh form's 1 - t^2 turns tanh's last-place error (1 ulp at t = -1 on PoCL)
        // into up to 1.2e-7 x 1.5 k |x| (1 + 3 c x^2) here
        const double tol = dt == kDouble ? 1e-12
                           : tanh_form   ? 2e-6 + 1e-6 * std::fabs(b) * (1 + 3 * c * b * b) / std::max(1.0, std::fabs(want))
                                         : 2e-6;
        if (!(std::fabs(gv[i] - want) <= tol * std::max(1.0, std::fabs(want))) && bad++ < 5)
          ADD_FAILURE() << "x = " << b << ": " << gv[i] << ", want " << want << " (scale " << scale << ")";
      }
      }
    }
  const Tensor x = tensor({-2.0, -0.5, 0.0, 0.7, 3.0}, TensorOptions().device(d).dtype(kDouble)).requires_grad_(true);
  const Tensor g = autograd::grad({F::gelu(x).sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  const std::vector<double> xv = values(x), gg = values(autograd::grad({g.sum()}, {x})[0]);
  for (size_t i = 0; i < xv.size(); ++i)
    EXPECT_NEAR(gg[i], std::exp(-0.5 * xv[i] * xv[i]) / std::sqrt(2 * M_PI) * (2 - xv[i] * xv[i]), 1e-12) << xv[i];
}

TEST_P(Layers, FunctionalGradients) {
  Device d = GetParam();
  gradcheck([](const V& x) { return F::linear(x[0], x[1], x[2]); }, {sample({3, 4}), sample({2, 4}, 1.), sample({2}, 2.)}, d);
  gradcheck([](const V& x) { return F::linear(x[0], x[1]); }, {sample({2, 3, 4}), sample({2, 4}, 1.)}, d);
  gradcheck([](const V& x) { return F::gelu(x[0]); }, {sample({2, 3})}, d);
  gradcheck([](const V& x) { return F::gelu(x[0], F::GELUFuncOptions().approximate("tanh")); }, {sample({2, 3})}, d);
  gradcheck([](const V& x) { return F::softmax(x[0], 1) * F::log_softmax(x[0], 0); }, {sample({2, 3})}, d);
  gradcheck([](const V& x) { return F::mse_loss(x[0], x[1]); }, {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) { return F::binary_cross_entropy_with_logits(x[0], x[1]); },
            {sample({2, 3}), sample({2, 3}, 1.).abs()}, d);
  gradcheck([](const V& x) {
    return F::binary_cross_entropy_with_logits(x[0], x[1], F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(x[2]));
  }, {sample({2, 3}), sample({2, 3}, 1.).abs(), sample({3}, 2.).abs()}, d);
  Tensor t = tensor({2, 0, 1}).to(d);
  gradcheck([t](const V& x) { return F::cross_entropy(x[0], t); }, {sample({3, 4})}, d);
  gradcheck([t](const V& x) { return F::cross_entropy(x[0], t, F::CrossEntropyFuncOptions().label_smoothing(0.2)); },
            {sample({3, 4})}, d);
  Tensor cw = sample({4}, 1.).abs().to(d);  // class weights are constants, not differentiated
  gradcheck([t, cw](const V& x) {
    return F::cross_entropy(x[0], t, F::CrossEntropyFuncOptions().weight(cw).ignore_index(0));
  }, {sample({3, 4})}, d);
  gradcheck([t](const V& x) { return F::nll_loss(x[0].log_softmax(1), t, F::NLLLossFuncOptions().reduction(kSum)); },
            {sample({3, 4})}, d);
  Tensor e = tensor({{1, 3}, {0, 1}}).to(d);
  gradcheck([e](const V& x) { return F::embedding(e, x[0]); }, {sample({4, 3})}, d);
  gradcheck([](const V& x) { return F::layer_norm(x[0], F::LayerNormFuncOptions({3}).weight(x[1]).bias(x[2])); },
            {sample({2, 3}), sample({3}, 1.), sample({3}, 2.)}, d);
  gradcheck([](const V& x) {
    Tensor rm = zeros({3}, TensorOptions().dtype(kDouble).device(x[0].device()));
    Tensor rv = ones({3}, TensorOptions().dtype(kDouble).device(x[0].device()));
    return F::batch_norm(x[0], rm, rv, F::BatchNormFuncOptions().weight(x[1]).bias(x[2]).training(true));
  }, {sample({4, 3, 2}), sample({3}, 1.), sample({3}, 2.)}, d);
}

TEST_P(Layers, Conv1dIsConv2dOverAHeightOfOne) {
  Device d = GetParam();
  manual_seed(3);
  nn::Conv1d conv(nn::Conv1dOptions(4, 6, 3).stride(2).padding(2).dilation(2).groups(2).device(d));
  EXPECT_EQ(conv->weight.sizes(), IntArrayRef({6, 2, 3}));
  EXPECT_EQ(conv->bias.sizes(), IntArrayRef({6}));
  EXPECT_EQ(conv->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  const double bound = 1.0 / std::sqrt(2.0 * 3.0);  // PyTorch's init: fan_in = in/groups * k
  EXPECT_LE(conv->bias.abs().max().item<double>(), bound);
  Tensor x = randn({3, 4, 11}, device(d));
  Tensor y = conv(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 6, 6}));  // (11 + 4 - 2*2 - 1) / 2 + 1
  Tensor want = F::conv2d(x.unsqueeze(2), conv->weight.unsqueeze(2),
                          F::Conv2dFuncOptions().bias(conv->bias).stride({1, 2}).padding({0, 2}).dilation({1, 2}).groups(2))
                    .squeeze(2);
  EXPECT_TRUE(y.allclose(want, 1e-5, 1e-6));
  // against a loop: out[n][o][t] = b[o] + sum_c,j w[o][c][j] * x[n][g*2 + c][2t - 2 + 2j]
  std::vector<double> xv = values(x), wv = values(conv->weight), bv = values(conv->bias), yv = values(y);
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t o = 0; o < 6; ++o)
      for (int64_t t = 0; t < 6; ++t) {
        double s = bv[static_cast<size_t>(o)];
        for (int64_t c = 0; c < 2; ++c)
          for (int64_t j = 0; j < 3; ++j) {
            const int64_t at = 2 * t - 2 + 2 * j, ch = (o / 3) * 2 + c;
            if (at >= 0 && at < 11) s += wv[static_cast<size_t>((o * 2 + c) * 3 + j)] * xv[static_cast<size_t>((n * 4 + ch) * 11 + at)];
          }
        EXPECT_NEAR(yv[static_cast<size_t>((n * 6 + o) * 6 + t)], s, 1e-4) << n << " " << o << " " << t;
      }
  // unbatched input [C, L]
  EXPECT_TRUE(conv(x[1]).allclose(y[1], 1e-5, 1e-6));
  std::ostringstream printed;
  printed << *conv;
  EXPECT_EQ(printed.str(), "locus::nn::Conv1d(4, 6, kernel_size=3, stride=2, padding=2, dilation=2, groups=2)");
  // messages
  EXPECT_THROW_MSG(conv(randn({4, 11, 1, 1}, device(d))), Error, "[conv1d] expected a 2-D (unbatched) or 3-D (batched) input");
  EXPECT_THROW_MSG(conv(randn({3, 5, 11}, device(d))), Error,
                   "[conv1d] Given groups=2, weight of size [6, 2, 3], expected input[3, 5, 11] to have 4 channels, but got 5");
  EXPECT_THROW_MSG(F::conv1d(x, randn({6, 2, 3, 1}, device(d))), Error, "[conv1d] expected a 3-D weight");
  EXPECT_THROW_MSG(nn::Conv1d(nn::Conv1dOptions(3, 6, 3).groups(2)), Error,
                   "Conv1d: in_channels (3) and out_channels (6) must be divisible by groups (2).");
}

TEST_P(Layers, RegressionLossesByHand) {
  Device d = GetParam();
  TensorOptions o = device(d).dtype(kDouble);
  Tensor x = tensor({0.5, 2.0, -1.0, 3.0}, o), t = tensor({0.0, 0.0, 0.0, 0.5}, o);  // |x - t| = .5 2 1 2.5
  EXPECT_EQ(F::l1_loss(x, t).item<double>(), 1.5);
  EXPECT_EQ(values(nn::L1Loss(kNone)(x, t)), (std::vector<double>{0.5, 2, 1, 2.5}));
  EXPECT_EQ(l1_loss(x, t, Reduction::Sum).item<double>(), 6);
  // smooth L1: 0.5 d^2 / beta below beta, else |d| - beta / 2 (|d| == beta takes the second)
  EXPECT_EQ(values(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(kNone))), (std::vector<double>{0.125, 1.5, 0.5, 2}));
  EXPECT_EQ(F::smooth_l1_loss(x, t).item<double>(), 4.125 / 4);
  EXPECT_EQ(nn::SmoothL1Loss(nn::SmoothL1LossOptions(kSum).beta(2))(x, t).item<double>(), 0.0625 + 1 + 0.25 + 1.5);
  EXPECT_EQ(smooth_l1_loss(x, t, Reduction::Sum, 0.0).item<double>(), 6);  // beta 0 is l1
  // Huber: 0.5 d^2 up to delta, else delta (|d| - delta / 2)
  EXPECT_EQ(values(nn::HuberLoss(kNone)(x, t)), (std::vector<double>{0.125, 1.5, 0.5, 2}));
  EXPECT_EQ(huber_loss(x, t, Reduction::Sum, 2.0).item<double>(), 0.125 + 2 + 0.5 + 3);
  // binary cross entropy on probabilities, with a weight
  Tensor p = tensor({0.25, 0.5, 0.9}, o), y = tensor({0.0, 1.0, 1.0}, o), w = tensor({1.0, 2.0, 3.0}, o);
  std::vector<double> bce = values(nn::BCELoss(nn::BCELossOptions().weight(w).reduction(kNone))(p, y));
  EXPECT_NEAR(bce[0], -std::log(0.75), 1e-12);
  EXPECT_NEAR(bce[1], -2 * std::log(0.5), 1e-12);
  EXPECT_NEAR(bce[2], -3 * std::log(0.9), 1e-12);
  EXPECT_NEAR(nn::BCELoss()(p, y).item<double>(), -(std::log(0.75) + std::log(0.5) + std::log(0.9)) / 3, 1e-12);
  EXPECT_TRUE(binary_cross_entropy(p, y, w, Reduction::Sum).allclose(F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().weight(w).reduction(kSum))));
  EXPECT_EQ(F::binary_cross_entropy(tensor({0.0, 1.0}, o), tensor({1.0, 0.0}, o)).item<double>(), 100);  // logs clamped at -100
  gradcheck([](const V& v) { return F::l1_loss(v[0], v[1]); }, {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& v) { return F::smooth_l1_loss(v[0], v[1], F::SmoothL1LossFuncOptions().beta(0.5)); }, {sample({2, 3}), sample({2, 3}, 0.3)}, d);
  gradcheck([](const V& v) { return F::huber_loss(v[0], v[1], F::HuberLossFuncOptions(kSum).delta(0.5)); }, {sample({2, 3}), sample({2, 3}, 0.3)}, d);
  gradcheck([](const V& v) { return F::binary_cross_entropy(v[0].sigmoid(), v[1].sigmoid()); }, {sample({2, 3}), sample({2, 3}, 1.)}, d);
  EXPECT_THROW_MSG(F::l1_loss(x, t.view({2, 2})), Error, "[l1_loss] target size [2, 2] differs from input size [4]; give both the same shape.");
  EXPECT_THROW_MSG(F::huber_loss(x, t, F::HuberLossFuncOptions().delta(0)), Error, "[huber_loss] delta must be positive");
  EXPECT_THROW_MSG(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions().beta(-1)), Error, "[smooth_l1_loss] beta must not be negative");
}

TEST_P(Layers, MoreActivationsByFormula) {
  Device d = GetParam();
  TensorOptions o = device(d).dtype(kDouble);
  const std::vector<double> xs = {-30.0, -2.0, -0.5, 0.0, 0.75, 3.0, 30.0};
  Tensor x = tensor(xs, o);
  auto softplus = [](double v, double beta, double threshold) { return beta * v > threshold ? v : std::log1p(std::exp(beta * v)) / beta; };
  std::vector<double> silu = values(nn::SiLU()(x)), mish = values(nn::Mish()(x)), sp = values(nn::Softplus()(x)),
                      sp2 = values(nn::Softplus(nn::SoftplusOptions().beta(2).threshold(5))(x)),
                      ht = values(nn::Hardtanh(nn::HardtanhOptions().min_val(-1).max_val(2))(x));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double v = xs[i];
    EXPECT_NEAR(silu[i], v / (1 + std::exp(-v)), 1e-12) << v;
    EXPECT_NEAR(mish[i], v * std::tanh(softplus(v, 1, 20)), 1e-12) << v;
    EXPECT_NEAR(sp[i], softplus(v, 1, 20), 1e-12) << v;
    EXPECT_NEAR(sp2[i], softplus(v, 2, 5), 1e-12) << v;
    EXPECT_EQ(ht[i], std::clamp(v, -1.0, 2.0)) << v;
  }
  // the torch:: functions are the same
  EXPECT_TRUE(locus::silu(x).allclose(F::silu(x)));
  EXPECT_TRUE(locus::mish(x).allclose(F::mish(x)) && locus::softplus(x, 2.0, 5.0).allclose(nn::Softplus(nn::SoftplusOptions().beta(2).threshold(5))(x)));
  EXPECT_TRUE(locus::hardtanh(x).allclose(x.clamp(-1, 1)) && locus::prelu(x, tensor({0.5}, o)).allclose(where(x > 0, x, x * 0.5)));
  // PReLU: one learned slope per channel (dim 1), 0.25 to start
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).device(d).dtype(kDouble));
  EXPECT_EQ(values(prelu->weight), (std::vector<double>{0.25, 0.25, 0.25}));
  EXPECT_EQ(prelu->named_parameters().keys(), std::vector<std::string>{"weight"});
  {
    NoGradGuard no_grad;
    prelu->weight.copy_(tensor({0.1, 0.2, 0.3}, o));
  }
  Tensor in = tensor({{{-1.0, 2.0}, {-1.0, 2.0}, {-1.0, 2.0}}}, o);  // [1, 3, 2]
  EXPECT_TRUE(prelu(in).allclose(tensor({{{-0.1, 2.0}, {-0.2, 2.0}, {-0.3, 2.0}}}, o)));
  EXPECT_TRUE(prelu(tensor({{-2.0, 1.0, -4.0}}, o)).allclose(tensor({{-0.2, 1.0, -1.2}}, o)));
  // at 0 the gradient is the slope (PyTorch's)
  Tensor zero = tensor({0.0}, o).requires_grad_();
  F::prelu(zero, tensor({0.25}, o)).sum().backward();
  EXPECT_EQ(zero.grad().item<double>(), 0.25);
  nn::PReLU shared(nn::PReLUOptions().device(d).dtype(kDouble));
  EXPECT_EQ(values(shared(tensor({-4.0, 4.0}, o))), (std::vector<double>{-1, 4}));
  gradcheck([](const V& v) { return F::prelu(v[0], v[1]); }, {sample({2, 3, 2}, 0.2), sample({3}, 0.5)}, d);  // no input at the kink
  gradcheck([](const V& v) { return F::mish(v[0]) + F::softplus(v[0], F::SoftplusFuncOptions().beta(2)); }, {sample({2, 3})}, d);
  // the branch where() drops stays finite: no NaN gradient far past the threshold
  Tensor big = tensor({100.0, -100.0}, o).requires_grad_();
  (F::softplus(big) + F::mish(big)).sum().backward();
  EXPECT_FALSE(big.grad().isnan().any().item<bool>());
  EXPECT_THROW_MSG(F::prelu(in, tensor({0.1, 0.2}, o)), Error,
                   "[prelu] weight must hold 1 value or one per channel (input.size(1) = 3), got a weight of shape [2].");
  EXPECT_THROW_MSG(nn::Hardtanh(nn::HardtanhOptions().min_val(2).max_val(1)), Error, "Hardtanh: min_val (2.000000) must not be above max_val (1.000000).");
  EXPECT_THROW_MSG(nn::PReLU(nn::PReLUOptions().num_parameters(0)), Error, "PReLU: num_parameters must be at least 1, got 0.");
  EXPECT_THROW_MSG(F::softplus(x, F::SoftplusFuncOptions().beta(0)), Error, "[softplus] beta must not be zero.");
}

TEST_P(Layers, ConvTranspose2dMatchesADirectLoop) {
  Device d = GetParam();
  manual_seed(4);
  struct Case {
    int64_t cin, cout, kh, kw, sh, sw, ph, pw, oph, opw, dh, dw, groups, h, w;
  };
  for (const Case c : {Case{3, 4, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 5, 4},    // plain
                       Case{4, 2, 4, 4, 2, 2, 1, 1, 0, 0, 1, 1, 1, 3, 3},    // DCGAN's: 3x3 -> 6x6
                       Case{4, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, 4, 3},    // output_padding, groups
                       Case{2, 2, 3, 2, 3, 2, 2, 0, 2, 1, 1, 2, 1, 3, 4},    // uneven stride, dilation
                       Case{2, 3, 2, 2, 1, 1, 0, 0, 1, 0, 2, 1, 1, 3, 3}}) { // output_padding >= stride (dilation 2)
    Tensor x = randn({2, c.cin, c.h, c.w}, device(d).dtype(kDouble));
    nn::ConvTranspose2d m(nn::ConvTranspose2dOptions(c.cin, c.cout, {c.kh, c.kw})
                              .stride({c.sh, c.sw}).padding({c.ph, c.pw}).output_padding({c.oph, c.opw})
                              .dilation({c.dh, c.dw}).groups(c.groups).device(d).dtype(kDouble));
    EXPECT_EQ(m->weight.sizes(), IntArrayRef({c.cin, c.cout / c.groups, c.kh, c.kw}));
    Tensor y = m(x);
    const int64_t oh = (c.h - 1) * c.sh - 2 * c.ph + c.dh * (c.kh - 1) + c.oph + 1;
    const int64_t ow = (c.w - 1) * c.sw - 2 * c.pw + c.dw * (c.kw - 1) + c.opw + 1;
    ASSERT_EQ(y.sizes(), IntArrayRef({2, c.cout, oh, ow}));
    // out[n][o][i*sh - ph + a*dh][j*sw - pw + b*dw] += x[n][ci][i][j] * w[ci][o % (cout/g)][a][b] for ci in o's group
    std::vector<double> xv = values(x), wv = values(m->weight), bv = values(m->bias), want(static_cast<size_t>(2 * c.cout * oh * ow));
    const int64_t cog = c.cout / c.groups, cig = c.cin / c.groups;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t o = 0; o < c.cout; ++o) {
        for (int64_t t = 0; t < oh * ow; ++t) want[static_cast<size_t>((n * c.cout + o) * oh * ow + t)] = bv[static_cast<size_t>(o)];
        for (int64_t ci = (o / cog) * cig; ci < (o / cog + 1) * cig; ++ci)
          for (int64_t i = 0; i < c.h; ++i)
            for (int64_t j = 0; j < c.w; ++j)
              for (int64_t a = 0; a < c.kh; ++a)
                for (int64_t b = 0; b < c.kw; ++b) {
                  const int64_t r = i * c.sh - c.ph + a * c.dh, q = j * c.sw - c.pw + b * c.dw;
                  if (r < 0 || r >= oh || q < 0 || q >= ow) continue;
                  want[static_cast<size_t>(((n * c.cout + o) * oh + r) * ow + q)] +=
                      xv[static_cast<size_t>(((n * c.cin + ci) * c.h + i) * c.w + j)] *
                      wv[static_cast<size_t>(((ci * cog + o % cog) * c.kh + a) * c.kw + b)];
                }
      }
    std::vector<double> got = values(y);
    for (size_t e = 0; e < want.size(); ++e) ASSERT_NEAR(got[e], want[e], 1e-9) << "case " << c.cin << "->" << c.cout << " element " << e;
    // unbatched input
    EXPECT_TRUE(m(x[1]).allclose(y[1], 1e-9, 1e-12));
  }
  // it is conv2d's input gradient: d/dz sum(conv2d(z, w) * g) = conv_transpose2d(g, w)
  Tensor w = randn({3, 2, 3, 3}, device(d).dtype(kDouble)), z = randn({1, 2, 7, 7}, device(d).dtype(kDouble)).requires_grad_();
  Tensor g = randn({1, 3, 4, 4}, device(d).dtype(kDouble));
  (F::conv2d(z, w, F::Conv2dFuncOptions().stride(2).padding(1)) * g).sum().backward();
  EXPECT_TRUE(z.grad().allclose(
      F::conv_transpose2d(g, w, F::ConvTranspose2dFuncOptions().stride(2).padding(1).output_padding(0)), 1e-9, 1e-12));
  // under autocast, as PyTorch 2.x (its lower-precision list): the autocast dtype, bias included,
  // near the float32 result; the float32 weight's gradient in float32
  {
    nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(3, 4, 3).stride(2).device(d));
    Tensor xin = randn({2, 3, 5, 5}, device(d)), y32 = ct(xin);
    Tensor y;
    {
      autocast::AutocastGuard guard(d.type());
      y = ct(xin);
      EXPECT_EQ(y.scalar_type(), autocast::get_autocast_dtype(d.type()));
      EXPECT_EQ(ct(xin.to(y.scalar_type())).scalar_type(), y.scalar_type());
    }
    EXPECT_TRUE(y.to(kFloat).allclose(y32, 0.05, 0.05));
    y.to(kFloat).sum().backward();
    EXPECT_EQ(ct->weight.grad().scalar_type(), kFloat);
    EXPECT_EQ(ct->bias.grad().scalar_type(), kFloat);
  }
  // output_size picks the output_padding
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(2, 1, 3).stride(2).padding(1).device(d));
  Tensor s = randn({1, 2, 4, 4}, device(d));
  EXPECT_EQ(up(s).sizes(), IntArrayRef({1, 1, 7, 7}));
  EXPECT_EQ(up(s, IntArrayRef({8, 7})).sizes(), IntArrayRef({1, 1, 8, 7}));
  EXPECT_EQ(up(s, IntArrayRef({1, 1, 8, 8})).sizes(), IntArrayRef({1, 1, 8, 8}));
  EXPECT_THROW_MSG(up(s, IntArrayRef({9, 7})), Error,
                   "ConvTranspose2d: requested an output size of 9x7, but valid sizes range from 7 to 8 in dim 0");
  std::ostringstream printed;
  printed << *up;
  EXPECT_EQ(printed.str(), "locus::nn::ConvTranspose2d(2, 1, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1])");
  EXPECT_THROW_MSG(up(randn({1, 3, 4, 4}, device(d))), Error,
                   "[conv_transpose2d] Given transposed=1, weight of size [2, 1, 3, 3], expected input[1, 3, 4, 4] to have 2 channels, but got 3 channels instead.");
  EXPECT_THROW_MSG(up(randn({2, 4, 4}, device(d)).view({1, 2, 2, 2, 4})), Error, "[conv_transpose2d] expected a 3-D (unbatched) or 4-D (batched) input");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight, F::ConvTranspose2dFuncOptions().stride(2).output_padding(2)), Error,
                   "[conv_transpose2d] output padding must be smaller than either stride or dilation, but got output_padding_height: 2");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight, F::ConvTranspose2dFuncOptions().padding(3)), Error,
                   "[conv_transpose2d] the output would be 0x0 for input [1, 2, 4, 4] and weight [2, 1, 3, 3]; use less padding.");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight.view({2, 1, 9})), Error,
                   "[conv_transpose2d] expected a 4-D weight [in_channels, out_channels/groups, kh, kw], got [2, 1, 9].");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight, F::ConvTranspose2dFuncOptions().groups(3)), Error,
                   "[conv_transpose2d] groups (3) must be positive and divide in_channels (2).");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight, F::ConvTranspose2dFuncOptions().bias(zeros({2}, device(d)))), Error,
                   "[conv_transpose2d] expected a bias of 1 elements (out_channels), got [2].");
  EXPECT_THROW_MSG(F::conv_transpose2d(s, up->weight, F::ConvTranspose2dFuncOptions().stride(0)), Error,
                   "[conv_transpose2d] stride and dilation must be positive, padding and output_padding non-negative.");
  EXPECT_THROW_MSG(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 3, 3).groups(2)), Error,
                   "ConvTranspose2d: in_channels (4) and out_channels (3) must be divisible by groups (2).");
}

// Bicubic (A = -0.75, taps clamped at the borders) and area (adaptive average pooling) against
// PyTorch 1.13's F.interpolate for x = sin(0.53 i) [1, 2, 4, 5].
TEST_P(Layers, InterpolateBicubicAndArea) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().device(d).dtype(kDouble);
  const Tensor x = (arange(40, o) * 0.53).sin().reshape({1, 2, 4, 5});
  auto near = [](const Tensor& got, const std::vector<double>& want) {
    const std::vector<double> v = values(got);
    ASSERT_EQ(v.size(), want.size());
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-9) << i;
  };
  Tensor y = F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{7, 3}).mode(kBicubic));
  ASSERT_EQ(y.sizes(), IntArrayRef({1, 2, 7, 3}));
  near(y[0][1], {-1.122307345, -0.9631195751, -0.03145313313, -0.3184695195, -0.06436526798, 0.2413637225,
                 0.6772838236, 0.9730621799, 0.4883873092, 0.3430286156, 0.03025435248, -0.3067856847, -0.3616513109,
                 -0.9452241021, -0.7706714456, -0.2772034557, 0.01182825115, 0.2913730033, -0.1393302487,
                 0.8518459766, 1.159791515});
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(kBicubic).align_corners(true));
  y = up(x);
  ASSERT_EQ(y.sizes(), IntArrayRef({1, 2, 8, 10}));
  near(y[0][0][3], {0.0995735719, -0.0332321573, -0.2061174249, -0.3801756129, -0.4841430272, -0.6020533754,
                    -0.6600180315, -0.6862302564, -0.6650553795, -0.6319635244});
  near(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 4}).mode(kArea))[0][0],
       {0.2347914945, 0.2003001027, 0.1108491952, -0.009017164013, -0.2091165822, -0.2344451904, -0.1954453537,
        -0.1028180758, 0.1339154169, 0.2130653089, 0.2337530931, 0.1903023341});
  const Tensor l = tensor({1.0, 2.0, 4.0, 8.0, 16.0}, o).view({1, 1, 5});
  near(F::interpolate(l, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(kArea)), {1.5, 4.666666667, 12});
  near(F::interpolate(l, F::InterpolateFuncOptions().scale_factor(std::vector<double>{0.5}).mode(kArea)),
       {2.333333333, 9.333333333});
  gradcheck([](const V& v) {
    return F::interpolate(v[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 2}).mode(kBicubic));
  }, {sample({1, 2, 3, 4})}, d);
}

// Values printed by PyTorch 1.13's F.conv_transpose1d for x = sin(0.43 i) [2, 4, 5].
TEST_P(Layers, ConvTranspose1dMatchesPyTorch) {
  const Device d = GetParam();
  const TensorOptions o = TensorOptions().dtype(kDouble).device(d);
  const Tensor x = (arange(40, o) * 0.43).sin().reshape({2, 4, 5});
  const Tensor w = (arange(36, o) * 0.29).cos().reshape({4, 3, 3});
  auto near = [](const Tensor& got, const std::vector<double>& want) {
    const std::vector<double> v = values(got);
    ASSERT_EQ(v.size(), want.size());
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-8) << i;
  };
  Tensor y = F::conv_transpose1d(x, w, F::ConvTranspose1dFuncOptions().stride(2).padding(1).output_padding(1));
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 3, 10}));
  near(y[1][2], {-0.623873336, -0.466841275, 0.0884504732, 0.789218249, 0.784670237, 1.90158599, 1.33802627,
                 2.66773482, 1.64776986, 1.43780096});
  const Tensor w2 = (arange(24, o) * 0.37).sin().reshape({4, 3, 2});
  const Tensor b = tensor({0.1, -0.2, 0.3, 0.05, 0.4, -0.6}, o);
  y = conv_transpose1d(x, w2, b, 3, 0, 0, /*groups=*/2, /*dilation=*/2);
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 6, 15}));
  near(y[0][4], {1.36703678, 0.4, 1.17859167, 1.79759279, 0.4, 1.629166, 1.97369118, 0.4, 1.85594792, 1.86326997,
                 0.4, 1.81764759, 1.48643339, 0.4, 1.52123828});
  // the layer: its parameters, unbatched input, output_size, gradients
  nn::ConvTranspose1d m(nn::ConvTranspose1dOptions(4, 3, 3).stride(2).device(d).dtype(kDouble));
  EXPECT_EQ(m->weight.sizes(), IntArrayRef({4, 3, 3}));
  EXPECT_EQ(m->forward(x, IntArrayRef({12})).sizes(), IntArrayRef({2, 3, 12}));
  EXPECT_TRUE(m->forward(x[0]).equal(m->forward(x)[0]));
  std::ostringstream os;
  os << m;
  EXPECT_EQ(os.str(), "locus::nn::ConvTranspose1d(4, 3, kernel_size=3, stride=2)");
  gradcheck([](const V& t) {
    return F::conv_transpose1d(t[0], t[1], F::ConvTranspose1dFuncOptions().bias(t[2]).stride(2).padding(1));
  }, {sample({1, 2, 4}), sample({2, 3, 3}, 1.), sample({3}, 2.)}, d);
  EXPECT_THROW_MSG(m->forward(x, IntArrayRef({14})), Error,
                   "ConvTranspose1d: requested an output size of 14, but valid sizes range from 11 to 12 in dim 0 "
                   "(for an input of [2, 4, 5]).");
  EXPECT_THROW_MSG(F::conv_transpose1d(x, w, F::ConvTranspose1dFuncOptions().output_padding(1)), Error,
                   "[conv_transpose1d] output padding must be smaller than either stride or dilation, but got "
                   "output_padding: 1 stride: 1 dilation: 1.");
  EXPECT_THROW_MSG(F::conv_transpose1d(x, w, F::ConvTranspose1dFuncOptions().stride(0)), Error,
                   "[conv_transpose1d] stride and dilation must be positive, padding and output_padding non-negative.");
  EXPECT_THROW_MSG(F::conv_transpose1d(x, w.unsqueeze(0)), Error,
                   "[conv_transpose1d] expected a 3-D weight [in_channels, out_channels/groups, kernel_size], got "
                   "[1, 4, 3, 3].");
  EXPECT_THROW_MSG(F::conv_transpose1d(x.narrow(1, 0, 3), w), Error,
                   "[conv_transpose1d] Given transposed=1, weight of size [4, 3, 3], expected input[2, 3, 5] to have 4 "
                   "channels, but got 3 channels instead.");
  EXPECT_THROW_MSG(F::conv_transpose1d(x[0][0], w), Error,
                   "[conv_transpose1d] expected a 2-D (unbatched) or 3-D (batched) input [N, C, L], got [5].");
}

TEST_P(Layers, ConvAndPoolGradients) {
  Device d = GetParam();
  gradcheck([](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2])); },
            {sample({2, 2, 4, 4}), sample({3, 2, 3, 3}, 1.), sample({3}, 2.)}, d);
  gradcheck([](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().stride(2).padding(1).groups(2)); },
            {sample({1, 4, 5, 5}), sample({2, 2, 3, 3}, 1.)}, d);
  gradcheck([](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().dilation(2).padding({1, 0})); },
            {sample({1, 1, 5, 6}), sample({2, 1, 2, 2}, 1.)}, d);
  gradcheck([](const V& x) { return F::max_pool2d(x[0], F::MaxPool2dFuncOptions(2)); }, {sample({1, 2, 4, 4})}, d);
  gradcheck([](const V& x) { return F::max_pool2d(x[0], F::MaxPool2dFuncOptions(3).stride(2).padding(1)); },
            {sample({1, 1, 5, 5})}, d);
  gradcheck([](const V& x) { return F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(2).stride(1)); }, {sample({1, 2, 3, 3})}, d);
  gradcheck([](const V& x) { return F::adaptive_avg_pool2d(x[0], {1, 1}); }, {sample({2, 2, 3, 3})}, d);
  gradcheck([](const V& x) { return F::adaptive_avg_pool2d(x[0], {2, 2}); }, {sample({1, 1, 5, 3})}, d);
}

TEST_P(Layers, MoreFunctionalGradients) {
  Device d = GetParam();
  gradcheck([](const V& x) {
    manual_seed(5);  // the same mask on every call
    return F::dropout(x[0], F::DropoutFuncOptions().p(0.4));
  }, {sample({3, 4})}, d);
  gradcheck([](const V& x) { return F::dropout(x[0], F::DropoutFuncOptions().p(0.4).training(false)); }, {sample({3})}, d);
  gradcheck([](const V& x) {  // eval mode: running statistics are constants
    Tensor rm = tensor({0.2, -0.1, 0.4}, TensorOptions().dtype(kDouble).device(x[0].device()));
    Tensor rv = tensor({1.5, 0.5, 2.0}, TensorOptions().dtype(kDouble).device(x[0].device()));
    return F::batch_norm(x[0], rm, rv, F::BatchNormFuncOptions().weight(x[1]).bias(x[2]));
  }, {sample({2, 3}), sample({3}, 1.), sample({3}, 2.)}, d);
  gradcheck([](const V& x) {  // BatchNorm2d's shape, no running statistics, no affine
    return F::batch_norm(x[0], Tensor(), Tensor(), F::BatchNormFuncOptions().training(true));
  }, {sample({2, 2, 2, 3})}, d);
  gradcheck([](const V& x) { return F::relu(x[0]) + F::sigmoid(x[0]) * F::tanh(x[0]); }, {sample({2, 3}, 0.3)}, d);
  gradcheck([](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().bias(x[2]).padding(1)); },
            {sample({2, 4, 4}), sample({2, 2, 3, 3}, 1.), sample({2}, 2.)}, d);  // unbatched input
  gradcheck([](const V& x) { return F::conv2d(x[0], x[1], F::Conv2dFuncOptions().stride({1, 2}).groups(3)); },
            {sample({2, 3, 3, 4}), sample({3, 1, 2, 2}, 1.)}, d);  // depthwise
  gradcheck([](const V& x) { return F::max_pool2d(x[0], F::MaxPool2dFuncOptions(2).stride(1).dilation(2)); },
            {sample({1, 2, 5, 5})}, d);
  gradcheck([](const V& x) { return F::max_pool2d(x[0], F::MaxPool2dFuncOptions({2, 3})); }, {sample({2, 4, 6})}, d);
  gradcheck([](const V& x) {
    return F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(false));
  }, {sample({1, 2, 5, 4})}, d);
  gradcheck([](const V& x) { return F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(2).padding(1)); }, {sample({1, 1, 3, 3})}, d);
  Tensor t = tensor({2, 0, 1}).to(d), ts = tensor({{2, 0}, {1, 1}, {0, 3}}).to(d);
  Tensor cw = sample({4}, 1.).abs().to(d) + 0.1;
  gradcheck([ts](const V& x) { return F::cross_entropy(x[0], ts); }, {sample({3, 4, 2})}, d);  // [N, C, d]
  gradcheck([ts](const V& x) { return F::cross_entropy(x[0], ts, F::CrossEntropyFuncOptions().reduction(kNone)); },
            {sample({3, 4, 2})}, d);
  gradcheck([t, cw](const V& x) {
    return F::cross_entropy(x[0], t, F::CrossEntropyFuncOptions().weight(cw).label_smoothing(0.3).reduction(kSum));
  }, {sample({3, 4})}, d);
  gradcheck([t, cw](const V& x) {
    return F::cross_entropy(x[0], t, F::CrossEntropyFuncOptions().weight(cw).label_smoothing(0.1));
  }, {sample({3, 4})}, d);
  gradcheck([t, cw](const V& x) {
    return F::nll_loss(x[0], t, F::NLLLossFuncOptions().weight(cw).ignore_index(1));
  }, {sample({3, 4})}, d);
  gradcheck([](const V& x) { return F::mse_loss(x[0], x[1], F::MSELossFuncOptions().reduction(kSum)); },
            {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) { return F::mse_loss(x[0], x[1], F::MSELossFuncOptions().reduction(kNone)); },
            {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) {
    return F::binary_cross_entropy_with_logits(
        x[0], x[1], F::BinaryCrossEntropyWithLogitsFuncOptions().weight(x[2]).reduction(kSum));
  }, {sample({2, 3}), sample({2, 3}, 1.).abs(), sample({3}, 2.)}, d);
  Tensor e = tensor({{1, 0}, {0, 3}}).to(d);
  gradcheck([e](const V& x) { return F::embedding(e.view({-1}), x[0]); }, {sample({4, 3})}, d);
}

namespace {
// Leaves of a module's gradient check: its parameters and the input.
std::vector<Tensor> leaves(const nn::Module& m, const Tensor& input) {
  std::vector<Tensor> out = m.parameters();
  if (input.is_floating_point()) out.push_back(input);
  return out;
}
Tensor input_on(Device d, std::vector<int64_t> sizes) { return sample(sizes).to(d).requires_grad_(); }
}  // namespace

TEST_P(Layers, ModuleGradients) {
  // Every layer as a module, float64 on the device: parameters and input against finite differences.
  Device d = GetParam();
  manual_seed(0);
  nn::Linear fc(3, 2);
  fc->to(d, kDouble);
  Tensor x = input_on(d, {4, 3});
  gradcheck_leaves([&] { return fc(x); }, leaves(*fc, x));
  nn::Conv2d conv(nn::Conv2dOptions(2, 4, 3).stride(2).padding(1).groups(2).device(d).dtype(kDouble));
  x = input_on(d, {2, 2, 5, 5});
  gradcheck_leaves([&] { return conv(x); }, leaves(*conv, x));
  nn::Conv2d dil(nn::Conv2dOptions(1, 2, {2, 3}).dilation({2, 1}).padding({0, 1}).bias(false).device(d).dtype(kDouble));
  x = input_on(d, {1, 1, 4, 4});
  gradcheck_leaves([&] { return dil(x); }, leaves(*dil, x));
  nn::ConvTranspose2d ct(nn::ConvTranspose2dOptions(4, 2, {3, 2}).stride({2, 1}).padding({1, 0}).output_padding({1, 0})
                             .groups(2).dilation({1, 2}).device(d).dtype(kDouble));
  x = input_on(d, {2, 4, 3, 3});
  gradcheck_leaves([&] { return ct(x); }, leaves(*ct, x));
  nn::Conv1d c1(nn::Conv1dOptions(2, 4, 3).stride(2).padding(1).groups(2).device(d).dtype(kDouble));
  x = input_on(d, {2, 2, 7});
  gradcheck_leaves([&] { return c1(x); }, leaves(*c1, x));
  nn::BatchNorm2d bn2(nn::BatchNormOptions(2).device(d).dtype(kDouble));
  x = input_on(d, {3, 2, 2, 2});
  gradcheck_leaves([&] { return bn2(x); }, leaves(*bn2, x));
  nn::BatchNorm1d bn1(nn::BatchNormOptions(3).device(d).dtype(kDouble));
  x = input_on(d, {4, 3});
  bn1(x * 2 + 1);  // running statistics away from (0, 1)
  bn1->eval();
  gradcheck_leaves([&] { return bn1(x); }, leaves(*bn1, x));
  nn::LayerNorm ln(nn::LayerNormOptions({2, 3}).device(d).dtype(kDouble));
  {
    NoGradGuard no_grad;
    ln->weight.copy_(sample({2, 3}, 1.).to(d));
    ln->bias.copy_(sample({2, 3}, 2.).to(d));
  }
  x = input_on(d, {2, 2, 3});
  gradcheck_leaves([&] { return ln(x); }, leaves(*ln, x));
  nn::Embedding emb(nn::EmbeddingOptions(5, 3).device(d).dtype(kDouble));
  Tensor idx = tensor({{4, 2}, {0, 4}}).to(d);
  gradcheck_leaves([&] { return emb(idx); }, leaves(*emb, idx));
  // with padding_idx the row gets no gradient by definition (Module.EmbeddingPaddingIdx); the rest do
  nn::Embedding padded(nn::EmbeddingOptions(5, 3).padding_idx(2).device(d).dtype(kDouble));
  (padded(idx) * sample({2, 2, 3}).to(d)).sum().backward();
  auto gp = values(padded->weight.grad());
  EXPECT_EQ(std::vector<double>(gp.begin() + 6, gp.begin() + 9), std::vector<double>({0, 0, 0}));
  EXPECT_NE(gp[12], 0.0);
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(1)), nn::BatchNorm2d(2), nn::ReLU(),
                     nn::MaxPool2d(2), nn::AvgPool2d(nn::AvgPool2dOptions(2).stride(1)), nn::AdaptiveAvgPool2d(1),
                     nn::Flatten(), nn::Linear(2, 3), nn::GELU(), nn::Sigmoid(), nn::Tanh(),
                     nn::GELU(nn::GELUOptions().approximate("tanh")), nn::Dropout(0.3));
  cnn->to(d, kDouble);
  x = input_on(d, {2, 1, 6, 6});
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().label_smoothing(0.1));
  Tensor y = tensor({2, 0}).to(d);
  gradcheck_leaves([&] {
    manual_seed(11);
    return ce(cnn(x), y);
  }, leaves(*cnn, x));
  nn::MSELoss mse;
  nn::BCEWithLogitsLoss bce;
  nn::NLLLoss nll;
  Tensor a = input_on(d, {2, 3}), b = sample({2, 3}, 1.).abs().to(d);
  gradcheck_leaves([&] { return mse(a, b) + bce(a, b) + nll(a.log_softmax(1), y); }, {a});
}

TEST_P(Layers, ConvMatchesPyTorch) {
  // x = torch.arange(100, dtype=torch.float64).reshape(2,2,5,5).sin()
  // w = torch.arange(36, dtype=torch.float64).reshape(4,1,3,3).cos(); b = torch.tensor([0.1,-0.2,0.3,0.])
  // y = F.conv2d(x, w, b, stride=2, padding=1, groups=2)
  TensorOptions o = TensorOptions().dtype(kDouble);
  Tensor x = arange(100, o).reshape({2, 2, 5, 5}).sin().to(GetParam());
  Tensor w = arange(36, o).reshape({4, 1, 3, 3}).cos().to(GetParam());
  Tensor b = tensor({0.1, -0.2, 0.3, 0.}, o).to(GetParam());
  Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1).groups(2));
  EXPECT_EQ(y.sizes().vec(), std::vector<int64_t>({2, 4, 3, 3}));
  std::vector<double> want{-0.34358670942396274, -1.2043104531655737, 1.715620820552812,
                           0.3022488111951441,   0.3317660607905243,  -0.35952245188129817};
  auto got = values(y);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  EXPECT_NEAR(y.sum().item<double>(), 4.078521934786422, 1e-10);
}

// cross_entropy without weights or smoothing (one kernel each way on the cpu) against its
// definition composed of log_softmax, gather and sums: loss and gradient for both reductions,
// float and double, ignored rows (the default -100 and another index), a batch whose rows are all
// ignored (mean: NaN, as PyTorch's 0 / 0; gradient 0), a second derivative (create_graph), and a
// target out of range.
TEST_P(Layers, CrossEntropyMatchesLogSoftmaxAndNll) {
  const Device d = GetParam();
  auto reference = [](const Tensor& x, const Tensor& t, int64_t ignore, bool mean) {
    Tensor valid = t.ne(ignore);
    Tensor picked = x.log_softmax(1).gather(1, where(valid, t, 0).unsqueeze(1)).squeeze(1);
    Tensor sum = -(picked * valid.to(x.scalar_type())).sum();
    return mean ? sum / valid.to(x.scalar_type()).sum() : sum;
  };
  for (ScalarType dt : {kFloat, kDouble}) {
    const double tol = dt == kFloat ? 2e-5 : 1e-12;
    manual_seed(3);
    Tensor logits = (randn({37, 11}, TensorOptions().dtype(dt)) * 3).to(d);
    Tensor t = randint(0, 11, {37}, TensorOptions().dtype(kLong));
    t.index_put_({indexing::Slice(0, 37, 5)}, -100);  // every fifth row ignored
    t = t.to(d);
    Tensor t3 = where(t.ne(-100), t, 3);  // the same rows, ignored as class 3 below
    for (bool mean : {true, false}) {
      for (int64_t ignore : {int64_t{-100}, int64_t{3}}) {
        const Tensor& tg = ignore == 3 ? t3 : t;
        auto opt = F::CrossEntropyFuncOptions().ignore_index(ignore).reduction(mean ? kMean : kSum);
        Tensor x = logits.clone().requires_grad_(true), y = logits.clone().requires_grad_(true);
        Tensor loss = F::cross_entropy(x, tg, opt), want = reference(y, tg, ignore, mean);
        loss.backward();
        want.backward();
        EXPECT_NEAR(loss.item<double>(), want.item<double>(), tol * std::abs(want.item<double>()))
            << dtype_name(dt) << " mean " << mean << " ignore " << ignore;
        EXPECT_TRUE(x.grad().allclose(y.grad(), tol, tol)) << dtype_name(dt) << " mean " << mean;
        if (dt == kFloat) EXPECT_EQ(loss.grad_fn()->name(), "NllLossBackward0");  // the fused path, one node
      }
    }
    Tensor x = logits.clone().requires_grad_(true);
    Tensor all_ignored = full({37}, -100, TensorOptions().dtype(kLong).device(d));
    Tensor nan_loss = F::cross_entropy(x, all_ignored);
    EXPECT_TRUE(std::isnan(nan_loss.item<double>()));
    nan_loss.backward();
    EXPECT_EQ(x.grad().abs().max().item<double>(), 0.0);
    EXPECT_EQ(F::cross_entropy(x, all_ignored, F::CrossEntropyFuncOptions().reduction(kSum)).item<double>(), 0.0);
  }
  {  // d/dx of |d loss / dx|^2 through the gradient's own graph, against central differences
    manual_seed(4);
    Tensor x0 = randn({6, 5}, TensorOptions().dtype(kDouble)) * 2;
    Tensor t = tensor({4, -100, 0, 2, 2, 1}, TensorOptions().dtype(kLong)).to(d);
    auto grad_at = [&](const Tensor& x, bool graph) {
      Tensor a = x.to(d).detach().clone().requires_grad_(true);
      return std::make_pair(autograd::grad({F::cross_entropy(a, t)}, {a}, {}, std::nullopt, graph)[0], a);
    };
    auto [g, a] = grad_at(x0, true);
    (g * g).sum().backward();
    for (int64_t i = 0; i < x0.numel(); ++i) {
      Tensor p = x0.clone(), m = x0.clone();
      p.data_ptr<double>()[i] += 1e-6;
      m.data_ptr<double>()[i] -= 1e-6;
      Tensor gp = grad_at(p, false).first, gm = grad_at(m, false).first;
      double numeric = ((gp * gp).sum().item<double>() - (gm * gm).sum().item<double>()) / 2e-6;
      EXPECT_NEAR(a.grad().cpu().data_ptr<double>()[i], numeric, 1e-6) << "element " << i;
    }
  }
  {  // 600 rows of 500 classes: past what a GPU's one-group kernel takes (composed there), same loss
    manual_seed(5);
    Tensor x = (randn({600, 500}) * 2).to(d).requires_grad_(true), y = x.detach().clone().requires_grad_(true);
    Tensor t = randint(0, 500, {600}, TensorOptions().dtype(kLong)).to(d);
    Tensor loss = F::cross_entropy(x, t), want = reference(y, t, -100, true);
    loss.backward();
    want.backward();
    EXPECT_NEAR(loss.item<double>(), want.item<double>(), 1e-5 * std::abs(want.item<double>()));
    EXPECT_TRUE(x.grad().allclose(y.grad(), 1e-5, 1e-8));
  }
  Tensor bad = tensor({1, 12, 0, -3}, TensorOptions().dtype(kLong)).to(d);
  EXPECT_THROW_MSG(F::cross_entropy(randn({4, 10}).to(d), bad), Error,
                   "[cross_entropy] Target 12 is out of bounds: targets are class indices in [0, 10) or "
                   "ignore_index (-100), found at row 1.");
}

TEST_P(Layers, CrossEntropyLabelSmoothingMatchesPyTorch) {
  // x = torch.tensor([[1.,-2.,3.],[0.5,4.,-1.]], requires_grad=True)
  // y = F.cross_entropy(x, torch.tensor([2,1]), label_smoothing=0.1); y.backward()
  Tensor x = tensor({{1., -2., 3.}, {0.5, 4., -1.}}, TensorOptions().device(GetParam())).requires_grad_();
  Tensor y = F::cross_entropy(x, tensor({2, 1}).to(GetParam()), F::CrossEntropyFuncOptions().label_smoothing(0.1));
  y.backward();
  EXPECT_NEAR(y.item<double>(), 0.34289076924324036, 1e-6);
  std::vector<double> g{0.042583167552948, -0.013716792687773705, -0.02886638045310974,
                        -0.002105788327753544, 0.01552349328994751, -0.013417696580290794};
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(values(x.grad())[i], g[i], 1e-6);
}

TEST_P(Layers, DropoutTrainEval) {
  Device d = GetParam();
  nn::Dropout drop(0.5);
  drop->to(d);
  Tensor x = ones({1000}, TensorOptions().device(d));
  Tensor y = drop(x);
  auto v = values(y);
  int zeros_n = 0;
  for (double e : v) {
    EXPECT_TRUE(e == 0.0 || e == 2.0);
    zeros_n += e == 0.0;
  }
  EXPECT_GT(zeros_n, 400);
  EXPECT_LT(zeros_n, 600);
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_THROW_MSG(nn::Dropout(1.5), Error, "dropout probability has to be between 0 and 1");
}

TEST_P(Layers, Dropout2dZeroesWholeChannels) {
  Device d = GetParam();
  nn::Dropout2d drop(0.5);
  Tensor x = ones({8, 50, 3, 3}, TensorOptions().device(d));
  Tensor y = drop(x);
  Tensor per_channel = y.sum({2, 3});  // 0 (dropped) or 9 * 2 (kept, scaled by 1/(1-p))
  auto v = values(per_channel);
  int dropped = 0;
  for (double e : v) {
    EXPECT_TRUE(e == 0.0 || e == 18.0) << e;
    dropped += e == 0.0;
  }
  EXPECT_GT(dropped, 150);
  EXPECT_LT(dropped, 250);
  auto all = values(y);  // within a channel, all or nothing
  for (double e : all) EXPECT_TRUE(e == 0.0 || e == 2.0);
  EXPECT_EQ(F::dropout2d(ones({4, 2, 2}, TensorOptions().device(d)), F::Dropout2dFuncOptions().p(1.0)).sum().item<double>(), 0.0);
  Tensor u = F::dropout3d(ones({40, 2, 2, 2}, TensorOptions().device(d)), F::Dropout3dFuncOptions().p(0.25));
  for (double e : values(u.sum({1, 2, 3}))) EXPECT_TRUE(e == 0.0 || std::abs(e - 8 / 0.75) < 1e-5) << e;
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  nn::Dropout3d drop3(nn::Dropout3dOptions(0.2));
  std::ostringstream s;
  s << *drop << " " << *drop3;
  EXPECT_EQ(s.str(), "locus::nn::Dropout2d(p=0.5, inplace=false) locus::nn::Dropout3d(p=0.2, inplace=false)");
  EXPECT_THROW_MSG(nn::Dropout2d(1.5), Error, "Dropout2d: dropout probability has to be between 0 and 1, but got 1.500000.");
  EXPECT_THROW_MSG(F::dropout2d(ones({2, 3}, TensorOptions().device(d))), Error,
                   "[dropout2d] expected a 4-D input [N, C, ...] or a 3-D unbatched input [C, ...], got 2-D [2, 3]; "
                   "for elementwise dropout use dropout().");
}

TEST_P(Layers, LeakyReLUSiluSoftmaxIdentityModules) {
  // expected values from PyTorch 1.13
  Device d = GetParam();
  Tensor x = tensor({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}).to(d);
  auto near = [](const Tensor& t, std::vector<double> want) {
    std::vector<double> got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  };
  near(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1))(x), {1.0, -0.2, 3.0, -0.4, 5.0, -0.6});
  near(F::leaky_relu(x), {1.0, -0.02, 3.0, -0.04, 5.0, -0.06});
  near(F::silu(x), {0.7310585975646973, -0.23840583860874176, 2.857722520828247, -0.07194484025239944,
                    4.966535568237305, -0.014835738576948643});
  near(nn::Softmax(nn::SoftmaxOptions(1))(x).sum(1), {1.0, 1.0});
  near(nn::LogSoftmax(1)(x).exp().sum(1), {1.0, 1.0});
  EXPECT_TRUE(nn::Identity()(x).is_same(x));
  nn::Sequential seq(nn::Linear(3, 2), nn::LeakyReLU(), nn::Identity());
  seq->to(d);
  Tensor v = nn::utils::parameters_to_vector(seq->parameters());
  EXPECT_EQ(v.sizes(), IntArrayRef({8}));
  nn::utils::vector_to_parameters(arange(8, TensorOptions().dtype(kFloat).device(d)), seq->parameters());
  near(seq->parameters()[1], {6.0, 7.0});
  std::ostringstream s;
  s << *nn::LeakyReLU() << " " << *nn::Softmax(1) << " " << *nn::Identity();
  EXPECT_EQ(s.str(), "locus::nn::LeakyReLU(negative_slope=0.01) locus::nn::Softmax(dim=1) locus::nn::Identity()");
}

TEST_P(Layers, EluSeluNormalizeAndPadMatchPyTorch) {
  // expected values and gradients from PyTorch 1.13 (torch.nn.functional)
  Device d = GetParam();
  auto near = [](const Tensor& t, std::vector<double> want, double tol = 1e-6) {
    std::vector<double> got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << i;
  };
  Tensor x = tensor({{-2.0, -0.5, 0.0, 1.5}}).to(d).requires_grad_();
  Tensor y = F::elu(x, F::ELUFuncOptions().alpha(0.7));
  y.sum().backward();
  near(y, {-0.6052653193473816, -0.27542853355407715, 0.0, 1.5});
  near(x.grad(), {0.09473469853401184, 0.4245714545249939, 0.699999988079071, 1.0});
  x.mutable_grad() = Tensor();
  y = nn::SELU()(x);
  y.sum().backward();
  near(y, {-1.5201665163040161, -0.6917581558227539, 0.0, 1.5760514736175537});
  near(x.grad(), {0.23793286085128784, 1.0663411617279053, 1.7580993175506592, 1.0507010221481323});
  near(nn::ELU(nn::ELUOptions().alpha(0.7))(x), {-0.6052653193473816, -0.27542853355407715, 0.0, 1.5});
  {  // inplace outside the graph writes into the input
    Tensor w = tensor({-1.0, 2.0}).to(d);
    Tensor r = F::elu(w, F::ELUFuncOptions().inplace(true));
    EXPECT_TRUE(r.is_same(w));
    near(w, {std::expm1(-1.0), 2.0});
  }
  Tensor big = tensor({100.0}).to(d).requires_grad_();  // exp(100) is inf in the unused branch
  F::elu(big).sum().backward();
  near(big.grad(), {1.0});

  Tensor v = tensor({{3.0, 4.0}, {0.0, 0.0}, {1.0, -1.0}}).to(d).requires_grad_();
  Tensor n = F::normalize(v, F::NormalizeFuncOptions().p(2).dim(1));
  (n * tensor({{1.0, 2.0}}).to(d)).sum().backward();
  near(n, {0.6, 0.8, 0.0, 0.0, 0.7071067690849304, -0.7071067690849304});
  near(v.grad(), {-0.064, 0.048, 1e12, 2e12, 1.0606601238250732, 1.0606601238250732}, 1e-5);  // 1/eps on the zero row
  near(F::normalize(v.detach(), F::NormalizeFuncOptions().p(1).dim(0)), {0.75, 0.8, 0.0, 0.0, 0.25, -0.2});
  Tensor z = zeros({3}, TensorOptions().device(d)).requires_grad_();
  z.norm().backward();  // a zero vector's norm has the gradient 0, not NaN
  near(z.grad(), {0.0, 0.0, 0.0});
  EXPECT_THROW_MSG(F::normalize(v, F::NormalizeFuncOptions().dim(2)), Error, "[normalize] dim 2 is out of range");

  Tensor a = arange(1, 7, TensorOptions().dtype(kFloat).device(d)).reshape({1, 2, 3}).requires_grad_();
  struct Case {
    enumtype::PadMode mode;
    std::vector<double> out, grad;
  };
  const std::vector<Case> cases = {
      {kConstant, {-1, -1, 1, 2, 3, -1, -1, -1, 4, 5, 6, -1}, {2, 3, 4, 8, 9, 10}},
      {kReflect, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}, {2, 9, 4, 8, 27, 16}},
      {kReplicate, {1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6}, {3, 3, 9, 21, 9, 21}},
      {kCircular, {2, 3, 1, 2, 3, 1, 5, 6, 4, 5, 6, 4}, {7, 3, 5, 19, 15, 17}},
  };
  for (const Case& c : cases) {
    a.mutable_grad() = Tensor();
    Tensor p = F::pad(a, F::PadFuncOptions({2, 1}).mode(c.mode).value(-1));
    EXPECT_EQ(p.sizes(), IntArrayRef({1, 2, 6}));
    EXPECT_EQ(p.device(), d);
    (p * arange(12, TensorOptions().dtype(kFloat).device(d)).reshape({1, 2, 6})).sum().backward();
    near(p, c.out);
    near(a.grad(), c.grad);
  }
  Tensor b = arange(1, 10, TensorOptions().dtype(kFloat).device(d)).reshape({1, 1, 3, 3});
  near(F::pad(b, F::PadFuncOptions({1, 1, 2, 0}).mode(kReflect)),
       {8, 7, 8, 9, 8, 5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 8, 7, 8, 9, 8});
  near(F::pad(b, F::PadFuncOptions({-1, 1, 0, 1})), {2, 3, 0, 5, 6, 0, 8, 9, 0, 0, 0, 0});
  Tensor same = F::pad(b, F::PadFuncOptions({0, 0}));
  EXPECT_FALSE(same.is_same(b));  // a new tensor, as PyTorch
  near(same, values(b));
  EXPECT_THROW_MSG(F::pad(b.reshape({1, 3, 3}), F::PadFuncOptions({3, 0}).mode(kReflect)), Error,
                   "[pad] reflect padding (3, 0) of dim 2 of size 3: each amount must be less than the dim's size");
  EXPECT_THROW_MSG(F::pad(b.reshape({1, 3, 3}), F::PadFuncOptions({4, 0}).mode(kCircular)), Error,
                   "each amount must be at most the dim's size");
  EXPECT_THROW_MSG(F::pad(b, F::PadFuncOptions({1})), Error, "[pad] the padding {1} has an odd length");
  EXPECT_THROW_MSG(F::pad(b, F::PadFuncOptions({1, 1, 1, 1, 1, 1, 1, 1, 1, 1})), Error, "pads 5 dims, but the input has only 4");
  EXPECT_THROW_MSG(F::pad(b, F::PadFuncOptions({1, 1}).mode(kReplicate)), Error,
                   "replicate padding of 1 dims takes an input of 2 or 3 dims");
  EXPECT_THROW_MSG(F::pad(b, F::PadFuncOptions({-4, 0})), Error, "crops dim 3 of size 3 below zero");
  std::ostringstream s;
  s << *nn::ELU() << " " << *nn::SELU();
  EXPECT_EQ(s.str(), "locus::nn::ELU(alpha=1) locus::nn::SELU()");
}

TEST_P(Layers, BatchNormTrainEval) {
  Device d = GetParam();
  nn::BatchNorm1d bn(nn::BatchNormOptions(2).device(d));
  Tensor x = tensor({{1., 10.}, {3., 20.}, {5., 30.}}, TensorOptions().device(d));
  Tensor y = bn(x);
  // batch statistics: each column normalised to mean 0, biased variance 1
  auto v = values(y);
  EXPECT_NEAR(v[0], -1.2247356, 1e-4);
  EXPECT_NEAR(v[5], 1.2247449, 1e-4);
  // running stats: momentum 0.1, unbiased variance (PyTorch: running_var = 0.9 + 0.1 * var_unbiased)
  EXPECT_NEAR(values(bn->running_mean)[0], 0.3, 1e-6);
  EXPECT_NEAR(values(bn->running_var)[0], 0.9 + 0.1 * 4.0, 1e-5);
  EXPECT_NEAR(values(bn->running_var)[1], 0.9 + 0.1 * 100.0, 1e-4);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  Tensor z = bn(x);
  EXPECT_NEAR(values(z)[0], (1 - 0.3) / std::sqrt(1.3 + 1e-5), 1e-5);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  EXPECT_THROW_MSG(bn(ones({3, 2, 2, 2}, TensorOptions().device(d))), Error, "BatchNorm1d: expected 2D or 3D input (got 4D input)");
}

TEST_P(Layers, BatchNorm2dCumulativeAverageMatchesPyTorch) {
  // bn = torch.nn.BatchNorm2d(2, momentum=None).double()
  // x1 = torch.arange(24, dtype=torch.float64).reshape(3,2,2,2).sin(); x2 = (...).cos() * 2
  // bn(x1); y2 = bn(x2); bn.eval(); z = bn(x1)
  Device d = GetParam();
  nn::BatchNorm2d bn(nn::BatchNormOptions(2).momentum(std::nullopt).device(d).dtype(kDouble));
  TensorOptions o = TensorOptions().dtype(kDouble).device(d);
  Tensor x1 = arange(24, o).reshape({3, 2, 2, 2}).sin(), x2 = arange(24, o).reshape({3, 2, 2, 2}).cos() * 2;
  bn(x1);
  Tensor y2 = bn(x2);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << i;
  };
  near(values(bn->running_mean), {-0.11595359598106587, 0.11170262637488537});
  near(values(bn->running_var), {1.3918491027193494, 1.3331167959974417});
  near(values(y2), {1.539595367240289, 0.902983747426014, -0.42155332464446965, -1.2162425733252278});
  bn->eval();
  near(values(bn(x1)), {0.09828485122377058, 0.8115344046439903, 0.8690256079685018, 0.21790131399501733});
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_THROW_MSG(bn(ones({3, 2, 2}, o)), Error, "BatchNorm2d: expected 4D input (got 3D input).");
  EXPECT_THROW_MSG(bn(ones({3, 5, 2, 2}, o)), Error, "BatchNorm2d: expected input with 2 channels (dim 1), got 5.");
  bn->train();
  EXPECT_THROW_MSG(bn(ones({1, 2, 1, 1}, o)), Error, "[batch_norm] Expected more than 1 value per channel when training");
}

TEST_P(Layers, LayersOnTheDevice) {
  Device d = GetParam();
  DefaultDeviceGuard guard(d);
  nn::Embedding emb(10, 4);
  EXPECT_EQ(emb(tensor({{1, 2}, {3, 4}})).sizes().vec(), std::vector<int64_t>({2, 2, 4}));
  nn::LayerNorm ln(std::vector<int64_t>{4});
  EXPECT_EQ(ln(randn({3, 4})).device(), d);
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::GELU(),
                     nn::MaxPool2d(2), nn::AvgPool2d(2), nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Sigmoid(),
                     nn::Tanh());
  Tensor out = cnn(randn({2, 1, 8, 8}));
  EXPECT_EQ(out.sizes().vec(), std::vector<int64_t>({2, 4}));
  EXPECT_EQ(out.device(), d);
  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  EXPECT_EQ(list->size(), 2u);
  EXPECT_EQ(list->named_parameters().keys(), std::vector<std::string>({"0.weight", "0.bias"}));
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> named{
      {"enc", std::make_shared<nn::LinearImpl>(2, 3)}, {"act", std::make_shared<nn::ReLUImpl>()}};
  nn::ModuleDict dict(named);
  EXPECT_TRUE(dict->contains("enc"));
  EXPECT_EQ(dict->named_parameters().keys(), std::vector<std::string>({"enc.weight", "enc.bias"}));
}

namespace {
// A tiny separable set: 4 classes from the sign pattern of two coordinates.
std::pair<Tensor, Tensor> toy_set(Device d) {
  manual_seed(3);
  Tensor x = randn({32, 8});
  Tensor y = (x.select(1, 0) > 0).to(kLong) * 2 + (x.select(1, 1) > 0).to(kLong);
  return {x.to(d), y.to(d)};
}
double accuracy(const Tensor& logits, const Tensor& y) { return logits.argmax(1).eq(y).to(kDouble).mean().item<double>(); }
}  // namespace

TEST_P(Layers, MlpReachesFullTrainingAccuracy) {
  Device d = GetParam();
  auto [x, y] = toy_set(d);
  manual_seed(0);
  nn::Sequential mlp(nn::Linear(8, 32), nn::ReLU(), nn::Linear(32, 4));
  mlp->to(d);
  optim::Adam opt(mlp->parameters(), optim::AdamOptions(0.02));
  for (int i = 0; i < 200; ++i) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(mlp(x), y);
    loss.backward();
    opt.step();
  }
  EXPECT_EQ(accuracy(mlp(x), y), 1.0);
}

TEST_P(Layers, CnnReachesFullTrainingAccuracy) {
  Device d = GetParam();
  // 16 images 1x6x6: class = which quadrant holds the bright square
  Tensor x = zeros({16, 1, 6, 6});
  std::vector<int64_t> labels;
  {
    NoGradGuard no_grad;
    for (int64_t i = 0; i < 16; ++i) {
      int64_t q = i % 4;
      x.select(0, i).narrow(1, (q / 2) * 3, 3).narrow(2, (q % 2) * 3, 3).fill_(1.0 + 0.1 * static_cast<double>(i / 4));
      labels.push_back(q);
    }
  }
  Tensor y = tensor(labels).to(d);
  x = x.to(d);
  manual_seed(0);
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                     nn::Linear(36, 4));
  cnn->to(d);
  optim::SGD opt(cnn->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  for (int i = 0; i < 60; ++i) {
    opt.zero_grad();
    F::cross_entropy(cnn(x), y).backward();
    opt.step();
  }
  EXPECT_EQ(accuracy(cnn(x), y), 1.0);
}

TEST_P(Layers, SequentialReluThenMaxPoolMatchesTheOrderWritten) {
  // Sequential runs ReLU -> MaxPool2d as pool then relu (src/nn/modules.cpp): the output, the
  // input's gradient and the parameters' gradients must be what relu then pool gives, exactly,
  // with ties, all-negative windows, overlapping windows (stride 1), padding and NaN.
  Device d = GetParam();
  for (auto pool : {nn::MaxPool2dOptions(2), nn::MaxPool2dOptions(3).stride(1).padding(1)}) {
    manual_seed(3);
    nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 3, 3).padding(1)), nn::ReLU(), nn::MaxPool2d(pool),
                       nn::Flatten());
    seq->to(d);
    Tensor x = randn({2, 1, 6, 6});
    x.data_ptr<float>()[0] = std::nanf("");  // a NaN input reaches the conv outputs around it
    x = x.to(d).requires_grad_();
    Tensor y = seq(x);
    Tensor g = randn(y.sizes()).to(d);
    (y * g).sum().backward();
    Tensor gx = x.grad().clone(), gw = seq->parameters()[0].grad().clone();
    x.mutable_grad() = Tensor();
    seq->zero_grad();

    auto& conv = seq->at<nn::Conv2dImpl>(0);
    Tensor ref = F::max_pool2d(F::relu(conv.forward(x)), pool).flatten(1);
    (ref * g).sum().backward();
    auto same = [](const Tensor& a, const Tensor& b) {  // equal, NaN where NaN
      if (a.sizes() != b.sizes()) return false;
      Tensor ha = a.to(kCPU).contiguous(), hb = b.to(kCPU).contiguous();
      for (int64_t i = 0; i < ha.numel(); ++i) {
        float u = ha.data_ptr<float>()[i], v = hb.data_ptr<float>()[i];
        if (!(u == v || (std::isnan(u) && std::isnan(v)))) return false;
      }
      return true;
    };
    EXPECT_TRUE(same(y, ref));
    EXPECT_TRUE((y != y).any().item<bool>());
    EXPECT_TRUE(same(gx, x.grad()));
    EXPECT_TRUE(same(gw, seq->parameters()[0].grad()));
  }
  // An in-place ReLU keeps its order: the caller's tensor is changed as with no pooling after it.
  nn::Sequential inplace(nn::ReLU(nn::ReLUOptions().inplace(true)), nn::MaxPool2d(2));
  Tensor x = tensor({{{{-1.0f, 2.0f}, {-3.0f, -4.0f}}}}).to(d);
  Tensor y = inplace(x);
  EXPECT_EQ(x.flatten().to(kCPU).min().item<float>(), 0.0f);
  EXPECT_EQ(y.item<float>(), 2.0f);
}

TEST_P(Layers, Messages) {
  Device d = GetParam();
  TensorOptions o = TensorOptions().device(d);
  EXPECT_THROW_MSG(F::conv2d(ones({1, 3, 5, 5}, o), ones({2, 2, 3, 3}, o)), Error,
                   "[conv2d] Given groups=1, weight of size [2, 2, 3, 3], expected input[1, 3, 5, 5] to have 2 channels, but got 3 channels instead.");
  EXPECT_THROW_MSG(F::cross_entropy(ones({2, 3}, o), ones({2}, o)), Error,
                   "[cross_entropy] a floating-point target holds class probabilities and needs the input's shape [2, 3], "
                   "got [2]; for class indices pass an int64 target (.to(locus::kLong)).");
  EXPECT_THROW_MSG(F::cross_entropy(ones({2, 3}, o), ones({2}, o).to(kBool)), Error,
                   "[cross_entropy] expected target to hold int64 class indices, got bool");
  EXPECT_THROW_MSG(F::cross_entropy(ones({2, 3}, o), tensor({0, 1, 2}).to(d)), Error,
                   "Expected input batch_size (2) to match target batch_size (3).");
  EXPECT_THROW_MSG(F::layer_norm(ones({2, 3}, o), F::LayerNormFuncOptions({4})), Error,
                   "[layer_norm] Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3].");
  nn::Linear empty = nullptr;
  EXPECT_THROW_MSG(empty->forward(ones({1})), Error, "Accessing empty ModuleHolder");
}

TEST_P(Layers, ConvSecondDerivatives) {
  // With create_graph the weight's gradient stays differentiable (the cpu backend's own convolution
  // then differentiates the composed form). gw = d/dw sum(v * conv(x, w)) is linear in x, and
  // d/dx sum(u * gw) is the input gradient of sum(v * conv(x, u)): the same formula, by a plain
  // first-order backward.
  Device d = GetParam();
  TensorOptions o = TensorOptions().dtype(kDouble).device(d);
  manual_seed(5);
  Tensor x = randn({2, 3, 6, 5}, o).requires_grad_();
  Tensor w = randn({4, 3, 3, 3}, o).requires_grad_();
  Tensor b = randn({4}, o).requires_grad_();
  Tensor u = randn({4, 3, 3, 3}, o);
  auto opts = F::Conv2dFuncOptions().padding(1).stride({1, 2}).bias(b);
  Tensor y = F::conv2d(x, w, opts);
  Tensor v = randn(y.sizes(), o);
  autograd::variable_list g = autograd::grad({(y * v).sum()}, {w, b}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  ASSERT_TRUE(g[0].requires_grad());
  // the first-order values are those of a plain backward
  Tensor w2 = w.detach().clone().requires_grad_(), b2 = b.detach().clone().requires_grad_();
  (F::conv2d(x.detach(), w2, F::Conv2dFuncOptions().padding(1).stride({1, 2}).bias(b2)) * v).sum().backward();
  EXPECT_TRUE(allclose(g[0], w2.grad(), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(g[1], b2.grad(), 1e-12, 1e-12));
  Tensor gx = autograd::grad({(g[0] * u).sum()}, {x})[0];
  Tensor x2 = x.detach().clone().requires_grad_();
  (F::conv2d(x2, u, F::Conv2dFuncOptions().padding(1).stride({1, 2})) * v).sum().backward();
  EXPECT_TRUE(allclose(gx, x2.grad(), 1e-12, 1e-12));
}

TEST_P(Layers, MaxPoolValuesIndicesAndTies) {
  // A backend may pool with its own kernel (cpu) or through im2col (the others): both must give
  // PyTorch's values and send the gradient to the first maximum of each window.
  Device d = GetParam();
  manual_seed(11);
  Tensor x = randn({2, 3, 9, 8});
  for (auto o : {F::MaxPool2dFuncOptions(2), F::MaxPool2dFuncOptions(3).stride(2).padding(1),
                 F::MaxPool2dFuncOptions({2, 3}).stride(1).dilation(2)}) {
    Tensor xd = x.to(d).clone().requires_grad_();
    Tensor want = F::max_pool2d(x.to(kDouble), o);  // reference: float64 on cpu
    Tensor got = F::max_pool2d(xd, o);
    EXPECT_EQ(got.sizes(), want.sizes());
    EXPECT_EQ(values(got), values(want));
    got.sum().backward();
    // each output's gradient lands on exactly one input, which holds that output's value
    EXPECT_EQ(xd.grad().sum().item<double>(), static_cast<double>(got.numel()));
    Tensor hit = xd.grad().cpu().gt(0);
    EXPECT_EQ(hit.sum().item<int64_t>() > 0, true);
  }
  // ties: all equal, so the first position of each 2x2 window takes the gradient
  Tensor flat = ones({1, 1, 4, 4}, TensorOptions().device(d)).requires_grad_();
  F::max_pool2d(flat, F::MaxPool2dFuncOptions(2)).sum().backward();
  EXPECT_EQ(values(flat.grad()), std::vector<double>({1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}));
  // a NaN wins its window, the first NaN in row-major order taking the gradient (PyTorch's rule)
  Tensor nan = tensor({0.0, NAN, 0.0, 0.0, NAN, 0.0, 0.0, 5.0}).view({1, 1, 2, 4}).to(d).requires_grad_();
  Tensor pooled = F::max_pool2d(nan, F::MaxPool2dFuncOptions(2));
  std::vector<double> pv = values(pooled);
  ASSERT_EQ(pv.size(), 2u);
  EXPECT_TRUE(std::isnan(pv[0]));
  EXPECT_EQ(pv[1], 5.0);
  pooled.sum().backward();
  EXPECT_EQ(values(nan.grad()), std::vector<double>({0, 1, 0, 0, 0, 0, 0, 1}));
}

// 2x2 pooling and relu as the CNN uses them, against direct loops: odd heights and widths (the last
// row and column in no window), rows of 14 and 33 outputs, a non-contiguous input, NaN (PyTorch:
// a NaN wins its window and relu passes it; relu's backward passes the gradient at a NaN output),
// -inf, ties; values and gradients, float and double everywhere, the 16-bit types on cpu.
TEST_P(Layers, PoolAndReluMatchDirectLoops) {
  Device d = GetParam();
  std::vector<ScalarType> dtypes = {kFloat, kDouble};
  if (d.is_cpu()) dtypes.insert(dtypes.end(), {kBFloat16, kHalf});
  for (ScalarType dt : dtypes)
    for (int64_t h : {7, 28})
      for (int64_t w : {29, 66})
        for (bool strided : {false, true}) {
          const int64_t n = 2, c = 3, oh = h / 2, ow = w / 2, hw = h * w;
          std::vector<double> xv(static_cast<size_t>(n * c * hw)), gv(static_cast<size_t>(n * c * oh * ow));
          for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<double>((i * 7 + i / 3) % 9) - 4.0;  // ties
          for (size_t i = 5; i < xv.size(); i += 31) xv[i] = NAN;
          for (size_t i = 9; i < xv.size(); i += 23) xv[i] = -INFINITY;
          for (size_t i = 0; i < gv.size(); ++i) gv[i] = static_cast<double>(i % 13) - 6.0;
          Tensor x = tensor(xv).view({n, c, h, w});
          if (strided) x = x.transpose(2, 3).contiguous().transpose(2, 3);  // same values, other strides
          Tensor xd = x.to(d).to(dt).requires_grad_();
          Tensor r = xd.relu();
          Tensor y = F::max_pool2d(r, F::MaxPool2dFuncOptions(2));
          Tensor g = tensor(gv).view({n, c, oh, ow}).to(d).to(dt);
          y.backward(g);
          // direct loops
          std::vector<double> rv(xv.size()), want_y(gv.size()), want_g(xv.size(), 0.0);
          for (size_t i = 0; i < xv.size(); ++i) rv[i] = xv[i] < 0 ? 0.0 : xv[i];
          for (int64_t q = 0; q < n * c; ++q)
            for (int64_t yy = 0; yy < oh; ++yy)
              for (int64_t xx = 0; xx < ow; ++xx) {
                int64_t best_at = -1;
                double best = 0;
                for (int64_t i = 0; i < 2; ++i)
                  for (int64_t j = 0; j < 2; ++j) {
                    const int64_t at = q * hw + (2 * yy + i) * w + 2 * xx + j;
                    const double v = rv[static_cast<size_t>(at)];
                    if (best_at < 0 || (!std::isnan(best) && (v > best || std::isnan(v)))) best = v, best_at = at;
                  }
                const size_t t = static_cast<size_t>((q * oh + yy) * ow + xx);
                want_y[t] = best;
                const double r_at = rv[static_cast<size_t>(best_at)];
                want_g[static_cast<size_t>(best_at)] = r_at <= 0 ? 0.0 : gv[t];  // relu's backward
              }
          const std::string what = std::string(toString(dt)) + " h=" + std::to_string(h) + " w=" + std::to_string(w) +
                                   (strided ? " strided" : "");
          std::vector<double> got_y = values(y), got_g = values(xd.grad());
          ASSERT_EQ(got_y.size(), want_y.size()) << what;
          for (size_t i = 0; i < want_y.size(); ++i)
            ASSERT_TRUE(got_y[i] == want_y[i] || (std::isnan(got_y[i]) && std::isnan(want_y[i]))) << what << " y " << i;
          ASSERT_EQ(got_g, want_g) << what;
        }
}

TEST_P(Layers, EmbeddingFromPretrainedUsesTheTable) {
  const Device d = GetParam();
  Tensor table = arange(12, TensorOptions().dtype(kFloat)).reshape({4, 3}).to(d);
  nn::Embedding frozen = nn::Embedding::from_pretrained(table);
  EXPECT_TRUE(frozen->weight.is_same(table));  // the table itself, as PyTorch's
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_EQ(frozen->options.num_embeddings(), 4);
  EXPECT_EQ(frozen->options.embedding_dim(), 3);
  Tensor idx = tensor({2, 0, 2}, TensorOptions().dtype(kLong)).to(d);
  EXPECT_EQ(values(frozen->forward(idx)), (std::vector<double>{6, 7, 8, 0, 1, 2, 6, 7, 8}));
  // freeze(false) trains it; padding_idx keeps its row (not zeroed, as PyTorch) and gives it no gradient
  nn::Embedding trained = nn::Embedding::from_pretrained(
      table.clone(), nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  EXPECT_TRUE(trained->weight.requires_grad());
  EXPECT_EQ(values(trained->weight.select(0, 0)), (std::vector<double>{0, 1, 2}));
  trained->forward(idx).sum().backward();
  EXPECT_EQ(values(trained->weight.grad()), (std::vector<double>{0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0}));
  // a clone owns its own table
  auto copy = std::dynamic_pointer_cast<nn::EmbeddingImpl>(frozen->clone());
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->weight.is_same(table));
  EXPECT_TRUE(equal(copy->weight, table));
  { NoGradGuard g; copy->weight.fill_(-1); }
  EXPECT_EQ(table.min().item<double>(), 0);
  EXPECT_THROW_MSG(nn::Embedding::from_pretrained(zeros({4}, d)), Error,
                   "[Embedding::from_pretrained] Embeddings parameter is expected to be 2-dimensional, got 1 dimensions [4]");
  EXPECT_THROW_MSG(nn::Embedding(nn::EmbeddingOptions(5, 3)._weight(zeros({4, 3}, d))), Error,
                   "[Embedding] _weight has shape [4, 3], but the options say [5, 3] (num_embeddings, embedding_dim)");
  // F::one_hot is locus::one_hot
  EXPECT_EQ(values(F::one_hot(tensor({0, 2}, TensorOptions().dtype(kLong)).to(d), 3)),
            (std::vector<double>{1, 0, 0, 0, 0, 1}));
}

LOCUS_INSTANTIATE_DEVICES(Layers);

}  // namespace layers_test
