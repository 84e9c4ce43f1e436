// F::affine_grid and F::grid_sample (src/nn/functional_sampling.cpp) against PyTorch 1.13's
// values, printed by tests/nn/sampling_cases.py, on every device: every mode, padding mode and
// align_corners, the 3-D forms, and the gradients to the input, the grid and theta.
#include <cmath>
#include <string>

#include "nn/cases.h"
#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace sampling_test {

using D = std::vector<double>;
using nn_cases::expect_values;

namespace {
// The script's inp2 [1, 2, 3, 4] and grid [1, 2, 3, 2] (points inside, on and outside the edges).
Tensor input(Device d) {
  Tensor a = arange(12, TensorOptions().dtype(kDouble)).reshape({1, 1, 3, 4}) * 0.5 - 1;
  return cat({a, a * -2 + 1}, 1).to(d);
}
Tensor grid(Device d) {
  return tensor({-1.0, -1.0, 0.3, -0.2, 1.2, 0.5, -1.4, 0.9, 0.75, 1.3, 0.1, 0.1}, TensorOptions().dtype(kDouble))
      .reshape({1, 2, 3, 2})
      .to(d);
}
F::GridSampleFuncOptions opts(F::GridSampleFuncOptions::mode_t mode, F::GridSampleFuncOptions::padding_mode_t pad,
                              bool align) {
  return F::GridSampleFuncOptions().mode(mode).padding_mode(pad).align_corners(align);
}
}  // namespace

class Sampling : public testing::TestWithParam<Device> {};

TEST_P(Sampling, GridSampleMatchesPyTorchInEveryMode) {
  const Device d = GetParam();
  const std::vector<int64_t> shape{1, 2, 2, 3};
  struct Case {
    F::GridSampleFuncOptions::mode_t mode;
    F::GridSampleFuncOptions::padding_mode_t pad;
    bool align;
    D want;
  };
  const std::vector<Case> cases = {
      {kBilinear, kZeros, false, {-0.25, 1.45, 0.4, 0.0, 0.225, 2.15, 0.75, -1.9, -0.7, 0.0, -0.4, -3.3}},
      {kBilinear, kZeros, true, {-1.0, 1.575, 2.45, 1.12, 3.01875, 2.025, 3.0, -2.15, -4.2, -1.84, -5.3375, -3.05}},
      {kBilinear, kBorder, false, {-1.0, 1.45, 4.0, 3.0, 4.5, 2.15, 3.0, -1.9, -7.0, -5.0, -8.0, -3.3}},
      {kBilinear, kBorder, true, {-1.0, 1.575, 3.5, 2.8, 4.3125, 2.025, 3.0, -2.15, -6.0, -4.6, -7.625, -3.05}},
      {kBilinear, kReflection, false, {-1.0, 1.45, 4.0, 3.15, 4.5, 2.15, 3.0, -1.9, -7.0, -5.3, -8.0, -3.3}},
      {kBilinear, kReflection, true, {-1.0, 1.575, 3.35, 3.1, 3.7125, 2.025, 3.0, -2.15, -5.7, -5.2, -6.425, -3.05}},
      {kNearest, kZeros, false, {-1.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, -3.0, 0.0, 0.0, 0.0, -3.0}},
      {kNearest, kZeros, true, {-1.0, 2.0, 4.5, 0.0, 4.5, 2.0, 3.0, -3.0, -8.0, 0.0, -8.0, -3.0}},
      {kNearest, kBorder, false, {-1.0, 2.0, 4.5, 3.0, 4.5, 2.0, 3.0, -3.0, -8.0, -5.0, -8.0, -3.0}},
      {kNearest, kBorder, true, {-1.0, 2.0, 4.5, 3.0, 4.5, 2.0, 3.0, -3.0, -8.0, -5.0, -8.0, -3.0}},
      {kNearest, kReflection, false, {-1.0, 2.0, 4.5, 3.0, 4.5, 2.0, 3.0, -3.0, -8.0, -5.0, -8.0, -3.0}},
      {kNearest, kReflection, true, {-1.0, 2.0, 4.5, 3.5, 4.5, 2.0, 3.0, -3.0, -8.0, -6.0, -8.0, -3.0}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    Tensor out = F::grid_sample(input(d), grid(d), opts(c.mode, c.pad, c.align));
    EXPECT_EQ(out.device(), d);
    expect_values(out, shape, c.want, 1e-9);
  }
  // align_corners unset is false (PyTorch's default since 1.3)
  expect_values(F::grid_sample(input(d), grid(d)), shape, cases[0].want, 1e-9);
  // float32 too
  expect_values(F::grid_sample(input(d).to(kFloat), grid(d).to(kFloat)), shape, cases[0].want, 1e-5);
}

TEST_P(Sampling, GridSampleGradientsMatchPyTorch) {
  const Device d = GetParam();
  struct Case {
    F::GridSampleFuncOptions::padding_mode_t pad;
    D grad_input, grad_grid;
  };
  const std::vector<Case> cases = {
      {kZeros,
       {0.25, 0.0, 0.297, 0.033, 0.0, 0.3825, 1.5855, 0.107, 0.0, 0.0675, 0.1575, 0.16,
        0.4, 0.0, 0.459, 0.051, 0.0, 0.5355, 2.3205, 0.164, 0.0, 0.0945, 0.2205, 0.235},
       {3.8, 2.85, -2.3, -6.9, 15.6, -0.72, 0.0, 0.0, 0.97, 14.55, -2.7, -8.1}},
      {kBorder,
       {1.0, 0.0, 0.297, 0.033, 0.0, 0.3825, 1.5855, 0.377, 1.3, 0.0675, 0.1575, 2.3,
        1.6, 0.0, 0.459, 0.051, 0.0, 0.5355, 2.3205, 0.569, 1.9, 0.0945, 0.2205, 3.35},
       {0.0, 0.0, -2.3, -6.9, 0.0, -7.2, 0.0, 0.0, 0.0, 0.0, -2.7, -8.1}},
      {kReflection,
       {1.0, 0.0, 0.297, 0.033, 0.0, 0.3825, 1.5855, 0.377, 0.91, 0.4575, 0.1575, 2.3,
        1.6, 0.0, 0.459, 0.051, 0.0, 0.5355, 2.3205, 0.569, 1.33, 0.6645, 0.2205, 3.35},
       {0.0, 0.0, -2.3, -6.9, 0.0, -7.2, 2.5, 0.0, 0.0, 0.0, -2.7, -8.1}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("padding mode " + std::to_string(i));
    Tensor x = input(d).requires_grad_();
    Tensor g = grid(d).requires_grad_();
    Tensor out = F::grid_sample(x, g, opts(kBilinear, cases[i].pad, false));
    Tensor w = arange(out.numel(), TensorOptions().dtype(kDouble)).reshape(out.sizes()).to(d) * 0.1 + 1;
    (out * w).sum().backward();
    expect_values(x.grad(), {1, 2, 3, 4}, cases[i].grad_input, 1e-9);
    expect_values(g.grad(), {1, 2, 3, 2}, cases[i].grad_grid, 1e-9);
  }
}

TEST_P(Sampling, AffineGridMatchesPyTorch) {
  const Device d = GetParam();
  Tensor theta = tensor({0.8, -0.3, 0.1, 0.2, 1.1, -0.4}, TensorOptions().dtype(kDouble)).reshape({1, 2, 3}).to(d);
  expect_values(F::affine_grid(theta, {1, 1, 2, 3}, false), {1, 2, 3, 2},
                {-0.283333, -1.083333, 0.25, -0.95, 0.783333, -0.816667, -0.583333, 0.016667, -0.05, 0.15, 0.483333,
                 0.283333},
                1e-6);
  expect_values(F::affine_grid(theta, {1, 1, 2, 3}, true), {1, 2, 3, 2},
                {-0.4, -1.7, 0.4, -1.5, 1.2, -1.3, -1.0, 0.5, -0.2, 0.7, 0.6, 0.9}, 1e-9);
  Tensor theta3 = tensor({0.9, 0.1, 0.0, 0.2, 0.0, 1.0, -0.2, 0.1, 0.3, 0.0, 0.8, -0.1}, TensorOptions().dtype(kDouble))
                      .reshape({1, 3, 4})
                      .to(d);
  expect_values(F::affine_grid(theta3, {1, 1, 2, 2, 3}, false), {1, 2, 2, 3, 3},
                {-0.45, -0.3, -0.7,  0.15, -0.3, -0.5, 0.75, -0.3, -0.3, -0.35, 0.7, -0.7, 0.25, 0.7, -0.5, 0.85, 0.7, -0.3,
                 -0.45, -0.5, 0.1,   0.15, -0.5, 0.3,  0.75, -0.5, 0.5,  -0.35, 0.5, 0.1,  0.25, 0.5, 0.3,  0.85, 0.5, 0.5},
                1e-9);
}

TEST_P(Sampling, VolumesAndTheSpatialTransformerPath) {
  const Device d = GetParam();
  Tensor vol = (arange(24, TensorOptions().dtype(kDouble)) * 0.25).reshape({1, 1, 2, 3, 4}).to(d);
  Tensor g3 = tensor({0.1, -0.5, 0.3, 0.9, 0.9, -0.9, -1.2, 0.0, 0.5}, TensorOptions().dtype(kDouble))
                  .reshape({1, 1, 1, 3, 3})
                  .to(d);
  expect_values(F::grid_sample(vol, g3, opts(kBilinear, kZeros, false)), {1, 1, 1, 1, 3}, {3.075, 0.75075, 0.4}, 1e-9);
  expect_values(F::grid_sample(vol, g3, opts(kNearest, kBorder, true)), {1, 1, 1, 1, 3}, {4.5, 2.75, 4.0}, 1e-9);
  // nearest at exact halves (x = 1.0, 2.5, 3.0): 2-D rounds them to even, 3-D away from zero, as PyTorch
  Tensor row = arange(6, TensorOptions().dtype(kDouble)).reshape({1, 1, 1, 6}).to(d);
  Tensor g2 = tensor({-0.6, 0.0, 0.0, 0.0, 0.2, 0.0}, TensorOptions().dtype(kDouble)).reshape({1, 1, 3, 2}).to(d);
  expect_values(F::grid_sample(row, g2, opts(kNearest, kZeros, true)), {1, 1, 1, 3}, {1.0, 2.0, 3.0}, 0);
  Tensor g3h = cat({g2, zeros({1, 1, 3, 1}, TensorOptions().dtype(kDouble)).to(d)}, -1).reshape({1, 1, 1, 3, 3});
  expect_values(F::grid_sample(row.reshape({1, 1, 1, 1, 6}), g3h, opts(kNearest, kZeros, true)), {1, 1, 1, 1, 3},
                {1.0, 3.0, 3.0}, 0);
  // a NaN coordinate (PyTorch 1.13): zeros padding gives NaN (bilinear) or 0 (nearest); border and reflection
  // read the first cell along that axis
  Tensor img = arange(4, TensorOptions().dtype(kDouble)).reshape({1, 1, 2, 2}).to(d);
  Tensor nan_x = tensor({NAN, 0.0}, TensorOptions().dtype(kDouble)).reshape({1, 1, 1, 2}).to(d);
  EXPECT_TRUE(std::isnan(F::grid_sample(img, nan_x, opts(kBilinear, kZeros, false)).item<double>()));
  EXPECT_EQ(F::grid_sample(img, nan_x, opts(kNearest, kZeros, false)).item<double>(), 0.0);
  EXPECT_EQ(F::grid_sample(img, nan_x, opts(kBilinear, kBorder, false)).item<double>(), 1.0);
  EXPECT_EQ(F::grid_sample(img, nan_x, opts(kBilinear, kReflection, false)).item<double>(), 1.0);
  // theta -> affine_grid -> grid_sample -> loss: theta's gradient as PyTorch's
  Tensor theta = tensor({0.8, -0.3, 0.1, 0.2, 1.1, -0.4}, TensorOptions().dtype(kDouble)).reshape({1, 2, 3}).to(d);
  theta.requires_grad_();
  Tensor out = F::grid_sample(input(d), F::affine_grid(theta, {1, 2, 2, 3}, false), F::GridSampleFuncOptions().align_corners(false));
  out.pow(2).sum().backward();
  expect_values(theta.grad(), {1, 2, 3}, {12.945722, 27.847792, 49.304417, 34.254222, 75.071833, 164.856333}, 1e-5);
}

LOCUS_INSTANTIATE_DEVICES(Sampling);

TEST(SamplingMessages, NameWhatIsWrong) {
  Tensor x = zeros({1, 2, 3, 4});
  EXPECT_THROW_MSG(F::grid_sample(x, zeros({1, 2, 2, 3})), Error,
                   "[grid_sample] for an input of shape [1, 2, 3, 4] the grid must be [1, H_out, W_out, 2], got [1, 2, 2, 3].");
  EXPECT_THROW_MSG(F::grid_sample(zeros({2, 3}), zeros({2, 3})), Error,
                   "[grid_sample] expected a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], got [2, 3].");
  EXPECT_THROW_MSG(F::grid_sample(x, zeros({1, 2, 2, 2}, kDouble)), Error,
                   "[grid_sample] input and grid must have the same floating-point dtype, got float32 and float64.");
  EXPECT_THROW_MSG(F::grid_sample(x, zeros({1, 2, 2, 2}), F::GridSampleFuncOptions().mode(kBicubic)), Error,
                   "[grid_sample] mode must be kBilinear or kNearest");
  EXPECT_THROW_MSG(F::grid_sample(zeros({1, 2, 0, 4}), zeros({1, 2, 2, 2})), Error,
                   "[grid_sample] the input's spatial sizes must be positive, got [1, 2, 0, 4].");
  EXPECT_THROW_MSG(F::affine_grid(zeros({1, 2, 3}), {1, 1, 4}), Error,
                   "[affine_grid] size must be {N, C, H, W} (2-D) or {N, C, D, H, W} (3-D), got [1, 1, 4].");
  EXPECT_THROW_MSG(F::affine_grid(zeros({2, 2, 3}), {1, 1, 4, 4}), Error,
                   "[affine_grid] Expected a batch of 2D affine matrices of shape [1, 2, 3] for size [1, 1, 4, 4], got "
                   "theta of shape [2, 2, 3].");
  EXPECT_THROW_MSG(F::affine_grid(zeros({1, 2, 3}), {1, 1, 0, 4}), Error,
                   "[affine_grid] every entry of size must be positive, got [1, 1, 0, 4].");
  EXPECT_THROW_MSG(F::affine_grid(zeros({1, 2, 3}, kLong), {1, 1, 2, 4}), Error,
                   "[affine_grid] expected theta of a floating-point dtype, got");
  for (const Device& d : all_devices()) {
    if (d.is_cpu()) continue;
    EXPECT_THROW(F::grid_sample(x.to(d), zeros({1, 2, 2, 2})), DeviceMismatchError);
    break;
  }
}

}  // namespace sampling_test
