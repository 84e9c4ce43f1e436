// Pooling in 1-D and 2-D, ceil_mode, divisor_override and the adaptive pools: values against
// PyTorch 1.13 (tests/nn/pooling_test.cpp's numbers were printed by torch.nn.functional), gradients
// against finite differences, the modules and the messages, on every device.
#include <cmath>
#include <limits>
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace pooling_test {
using V = std::vector<Tensor>;
using D = std::vector<double>;

namespace {
// x [1, 2, 5, 7] = sin(0.37 i) and l [2, 3, 9] = cos(0.61 i), in float64 on the device.
Tensor image(Device d) { return (arange(70, TensorOptions().dtype(kDouble)) * 0.37).sin().reshape({1, 2, 5, 7}).to(d); }
Tensor line(Device d) { return (arange(54, TensorOptions().dtype(kDouble)) * 0.61).cos().reshape({2, 3, 9}).to(d); }

void expect_values(const Tensor& got, IntArrayRef shape, const D& want) {
  ASSERT_EQ(got.sizes(), shape);
  const D v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 2e-7) << "element " << i;
}
}  // namespace

class Pooling : public testing::TestWithParam<Device> {};

TEST_P(Pooling, CeilModeMatchesPyTorch) {
  const Tensor x = image(GetParam());
  expect_values(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).ceil_mode(true)), {1, 2, 2, 3},
                {0.6742879, 0.9958808, 0.9958808, 0.9964756, 0.7924272, 0.8987081, 0.9016758, 0.9970241, 0.9975263,
                 0.9554405, 0.6892433, 0.9975263});
  expect_values(F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2).padding(1).ceil_mode(true)), {1, 2, 3, 4},
                {0, 0.6742879, 0.9958808, 0.9612752, 0.5240443, 0.1805963, 0.3679605, 0.8987081,
                 0.9964756, 0.9593748, 0.5182282, 0.01362896, 0.3742885, 0.9016758, 0.9970241, 0.7882521,
                 0.1671746, 0.02044265, 0.6892433, 0.9975263, 0.9554405, 0.7840404, 0.160452, 0.386892});
  // a window reaching past the padded input divides by the part inside it, or by the input part
  expect_values(F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true)), {1, 2, 3, 4},
                {0.1184729, 0.1550075, 0.06213565, -0.02228112, 0.1220671, 0.07953521, -0.08238008, -0.1233273,
                 0.0206864, -0.0643355, -0.1560509, -0.1183149, 0.1138987, 0.1146913, -0.002953207, -0.06440006,
                 0.07827323, -0.004576762, -0.1543098, -0.148658, -0.02466535, -0.1199089, -0.1729636, -0.1050736});
  expect_values(F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false)),
                {1, 2, 3, 4},
                {0.266564, 0.2325112, 0.09320348, -0.05013252, 0.1831006, 0.07953521, -0.08238008, -0.184991,
                 0.0465444, -0.09650325, -0.2340763, -0.2662085, 0.256272, 0.1720369, -0.00442981, -0.1449001,
                 0.1174098, -0.004576762, -0.1543098, -0.2229871, -0.05549703, -0.1798633, -0.2594454, -0.2364156});
  expect_values(F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).ceil_mode(true)), {1, 2, 3, 4},
                {0.266564, 0.2132139, 0.04833958, -0.09933718, 0.09849073, 0.2405541, 0.2567926, 0.1815524,
                 -0.8848364, -0.9420539, -0.506518, 0.01362896, 0.256272, 0.1371491, -0.05371133, -0.1870167,
                 0.1844874, 0.2670044, 0.2098614, 0.09238972, -0.9807345, -0.7685783, -0.1544074, 0.386892});
  const D div3{0.3554187, 0.2842853, 0.06445278, -0.06622478, 0.131321, 0.3207388, 0.3423901, 0.1210349,
               -0.5898909, -0.6280359, -0.3376786, 0.004542988, 0.341696, 0.1828655, -0.0716151, -0.1246778,
               0.2459832, 0.3560059, 0.2798152, 0.06159315, -0.653823, -0.5123856, -0.1029382, 0.128964};
  expect_values(F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).ceil_mode(true).divisor_override(3)), {1, 2, 3, 4}, div3);
  expect_values(avg_pool2d(x, 2, {}, 0, /*ceil_mode=*/true, true, 3), {1, 2, 3, 4}, div3);
  // the last window must start inside the input or its left padding; sizes as PyTorch's
  EXPECT_EQ(F::max_pool2d(zeros({1, 1, 6, 6}), F::MaxPool2dFuncOptions(3).stride(3).padding(1).ceil_mode(true)).sizes(),
            IntArrayRef({1, 1, 3, 3}));
  EXPECT_EQ(max_pool2d(zeros({1, 1, 112, 112}), 3, 2, 0, 1, true).sizes(), IntArrayRef({1, 1, 56, 56}));
  // where rounding up adds nothing, ceil_mode is the plain pool, bit for bit
  const Tensor y = randn({2, 3, 8, 8}).to(GetParam());
  EXPECT_TRUE(F::max_pool2d(y, F::MaxPool2dFuncOptions(2).ceil_mode(true)).equal(F::max_pool2d(y, F::MaxPool2dFuncOptions(2))));
  EXPECT_TRUE(F::avg_pool2d(y, F::AvgPool2dFuncOptions(2).ceil_mode(true)).equal(F::avg_pool2d(y, F::AvgPool2dFuncOptions(2))));
  // integers: the extension holds the dtype's lowest value, never the maximum
  Tensor ints = (arange(15, TensorOptions().dtype(kLong)) - 20).reshape({1, 1, 3, 5}).to(GetParam());
  if (GetParam().is_cpu())
    EXPECT_EQ(values(F::max_pool2d(ints, F::MaxPool2dFuncOptions(2).ceil_mode(true))), (D{-14, -12, -11, -9, -7, -6}));
}

TEST_P(Pooling, OneDimensionalMatchesPyTorch) {
  const Tensor l = line(GetParam());
  expect_values(F::max_pool1d(l, F::MaxPool1dFuncOptions(3).stride(2).padding(1)), {2, 3, 5},
                {1, 0.819648, -0.2563109, -0.4280997, 0.1668273, 0.9832684, 0.9832684, 0.5089647, -0.6334613,
                 -0.5855629, 0.5600331, 0.9704689, 0.9704689, 0.1069619, -0.8969548, -0.1974535, 0.8527566, 0.9981738,
                 0.7835458, -0.3142322, -0.8370915, 0.2260834, 0.9924767, 0.9924767, 0.4560374, -0.6790461,
                 -0.5355258, 0.609056, 0.9541248, 0.9541248});
  expect_values(nn::MaxPool1d(nn::MaxPool1dOptions(2).ceil_mode(true))(l), {2, 3, 5},
                {1, 0.3436457, -0.7638152, -0.4280997, 0.1668273, 0.9832684, 0.910289, -0.07594517, -0.9443373,
                 -0.5855629, 0.5600331, 0.9704689, 0.6572521, -0.4819099, -0.9884647, -0.1974535, 0.8527566, 0.9981738,
                 0.2862897, -0.8014093, -0.8370915, 0.2260834, 0.9924767, 0.8836196, -0.1360393, -0.6790461,
                 -0.5355258, 0.609056, 0.9541248, 0.6105247});
  const Tensor dil = max_pool1d(l, 2, 1, 0, 3);
  ASSERT_EQ(dil.sizes(), IntArrayRef({2, 3, 6}));
  EXPECT_NEAR(values(dil)[6], 0.7015791, 2e-7);
  EXPECT_NEAR(values(dil)[35], 0.6105247, 2e-7);
  expect_values(F::avg_pool1d(l, F::AvgPool1dFuncOptions(4).stride(3).padding(2).ceil_mode(true).count_include_pad(false)),
                {2, 3, 4},
                {0.909824, 0.03579191, -0.7640832, -0.1306362, 0.8424237, 0.5816442, -0.6540573, -0.7649501,
                 0.2722297, 0.7803469, -0.1536627, -0.9427098, -0.4604424, 0.5133059, 0.4384443, -0.5578207,
                 -0.9183032, -0.06009763, 0.7688693, 0.1599991, -0.8280822, -0.5976323, 0.6404009, 0.7823247});
  // unbatched [C, L] and the ATen spellings
  EXPECT_TRUE(avg_pool1d(l[1], 3).equal(F::avg_pool1d(l, F::AvgPool1dFuncOptions(3))[1]));
  EXPECT_TRUE(nn::AvgPool1d(3)(l[0]).equal(avg_pool1d(l, 3)[0]));
}

TEST_P(Pooling, AdaptiveMatchesPyTorch) {
  const Tensor x = image(GetParam()), l = line(GetParam());
  const D avg1{0.7210979, -0.2254935, -0.8760777, -0.3766273, 0.8650455, 0.4477695, -0.5572973, -0.8307952,
               0.4926977, 0.8537849, 0.0941014, -0.7891098, -0.1737127, 0.7502257, 0.6893365, -0.2764506,
               -0.7364441, 0.1989003, 0.8731466, 0.4012059, -0.8596348, -0.471137, 0.5358263, 0.8394059};
  expect_values(F::adaptive_avg_pool1d(l, F::AdaptiveAvgPool1dFuncOptions(4)), {2, 3, 4}, avg1);
  expect_values(adaptive_avg_pool1d(l, 4), {2, 3, 4}, avg1);
  expect_values(nn::AdaptiveMaxPool1d(4)(l), {2, 3, 4},
                {1, 0.3436457, -0.7638152, 0.1668273, 0.9832684, 0.910289, -0.07594517, -0.5855629, 0.9336336,
                 0.9704689, 0.6572521, -0.4819099, 0.3997466, 0.9981738, 0.9981738, 0.2862897, -0.3727259, 0.7433436,
                 0.9924767, 0.8836196, -0.6790461, 0.04485474, 0.9535683, 0.9541248});
  expect_values(F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions({3, 4})), {1, 2, 3, 4},
                {0.5240443, 0.8956987, 0.9958808, 0.9612752, 0.9964756, 0.9593748, 0.6793047, 0.8987081,
                 0.9964756, 0.9593748, 0.5182282, 0.01362896, 0.6842898, 0.9970241, 0.9970241, 0.7882521,
                 0.9554405, 0.7840404, 0.9046016, 0.9975263, 0.9554405, 0.7840404, 0.160452, 0.386892});
  expect_values(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({3, 4}))(x), {1, 2, 3, 4},
                {0.266564, 0.2325112, 0.09320348, -0.05013252, 0.1831006, 0.07953521, -0.08238008, -0.184991,
                 0.0465444, -0.09650325, -0.2340763, -0.2662085, 0.256272, 0.1720369, -0.00442981, -0.1449001,
                 0.1174098, -0.004576762, -0.1543098, -0.2229871, -0.05549703, -0.1798633, -0.2594454, -0.2364156});
  expect_values(nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({5, 1}))(x[0]), {2, 5, 1},
                {0.9958808, 0.5240443, 0.8987081, 0.9964756, 0.01362896, 0.9970241, 0.1671746, 0.9975263, 0.9554405,
                 0.386892});
  // an output the size of the input is a new tensor with the input's values
  Tensor same = F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions({5, 7}));
  EXPECT_TRUE(same.equal(x));
  EXPECT_NE(same.data_ptr(), x.data_ptr());
}

TEST_P(Pooling, Gradients) {
  const Device d = GetParam();
  gradcheck([](const V& x) { return F::max_pool2d(x[0], F::MaxPool2dFuncOptions(3).stride(2).ceil_mode(true)); },
            {sample({1, 2, 5, 6})}, d);
  gradcheck([](const V& x) {
    return F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
  }, {sample({1, 1, 6, 5})}, d);
  gradcheck([](const V& x) { return F::avg_pool2d(x[0], F::AvgPool2dFuncOptions(2).ceil_mode(true).divisor_override(5)); },
            {sample({1, 1, 3, 5})}, d);
  gradcheck([](const V& x) { return F::max_pool1d(x[0], F::MaxPool1dFuncOptions(2).stride(1).dilation(2)); },
            {sample({2, 2, 7})}, d);
  gradcheck([](const V& x) { return F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(3).stride(2).padding(1)); },
            {sample({3, 8})}, d);
  gradcheck([](const V& x) { return F::adaptive_avg_pool1d(x[0], 3); }, {sample({1, 2, 7})}, d);
  gradcheck([](const V& x) { return F::adaptive_max_pool1d(x[0], 3); }, {sample({1, 2, 7})}, d);
  gradcheck([](const V& x) { return F::adaptive_max_pool2d(x[0], F::AdaptiveMaxPool2dFuncOptions({2, 3})); },
            {sample({1, 2, 5, 4})}, d);
  gradcheck([](const V& x) { return F::adaptive_avg_pool2d(x[0], {3, 2}); }, {sample({1, 1, 5, 5})}, d);
}

TEST_P(Pooling, AdaptiveMaxGradientGoesToTheFirstMaximum) {
  // cells [0, 2) and [1, 3) of a length of 3 share the middle element; ties go to the first
  Tensor x = tensor({5.0, 5.0, 1.0}).view({1, 1, 3}).to(GetParam()).requires_grad_();
  F::adaptive_max_pool1d(x, 2).sum().backward();
  EXPECT_EQ(values(x.grad()), (D{1, 1, 0}));
}

// A -inf (or NaN) in one image must not change another's pooling: the im2col path (devices without
// their own max-pool kernel) once shifted the whole batch by its minimum, which a -inf made inf.
TEST_P(Pooling, MaxPoolWithPaddingKeepsInfinitiesToTheirImage) {
  const Tensor v = (arange(3 * 4 * 6 * 7, TensorOptions().dtype(kDouble)) * 0.37).sin().reshape({3, 4, 6, 7});
  Tensor w = v.clone();
  w[0].fill_(-std::numeric_limits<double>::infinity());
  w[2][1][3][3].fill_(std::nan(""));
  const auto o = F::MaxPool2dFuncOptions({3, 2}).stride({2, 1}).padding({1, 0});
  const Tensor got = F::max_pool2d(w.to(GetParam()), o).cpu();
  EXPECT_TRUE(got[0].eq(-std::numeric_limits<double>::infinity()).all().item<bool>());
  EXPECT_TRUE(got[1].equal(F::max_pool2d(v[1].unsqueeze(0), o)[0]));
  EXPECT_TRUE(got[2].isnan().any().item<bool>());  // NaN propagates, as PyTorch's
  EXPECT_TRUE(got[2][0].equal(F::max_pool2d(v[2].unsqueeze(0), o)[0][0]));
  Tensor x = w.to(GetParam()).requires_grad_();
  F::max_pool2d(x, o).narrow(0, 1, 1).sum().backward();  // image 1's gradient: one 1 per window maximum
  EXPECT_EQ(x.grad().cpu()[1].sum().item<double>(), 4 * 3 * 6);
  EXPECT_EQ(x.grad().cpu()[0].abs().sum().item<double>(), 0);
}

TEST(PoolingModules, PrintAndMessages) {
  std::ostringstream os;
  os << nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2)) << "\n"
     << nn::AvgPool1d(2) << "\n"
     << nn::AdaptiveAvgPool1d(4) << "\n"
     << nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({2, 3}));
  EXPECT_EQ(os.str(),
            "locus::nn::MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=false)\n"
            "locus::nn::AvgPool1d(kernel_size=2, stride=2, padding=0)\n"
            "locus::nn::AdaptiveAvgPool1d(output_size=4)\n"
            "locus::nn::AdaptiveMaxPool2d(output_size=[2, 3])");
  EXPECT_THROW_MSG(F::max_pool1d(ones({4}), F::MaxPool1dFuncOptions(2)), Error,
                   "[max_pool1d] expected a 2-D (unbatched) or 3-D (batched) input, got [4].");
  EXPECT_THROW_MSG(F::avg_pool1d(ones({1, 1, 6}), F::AvgPool1dFuncOptions(2).padding(2)), Error,
                   "[avg_pool1d] padding (2) must be at most half of kernel_size (2) in each dim, as in PyTorch; use "
                   "padding <= kernel_size / 2.");
  EXPECT_THROW_MSG(F::max_pool1d(ones({1, 1, 6}), F::MaxPool1dFuncOptions(2).stride(0)), Error,
                   "[max_pool1d] kernel_size (2), stride (0) and dilation must be positive and padding non-negative.");
  EXPECT_THROW_MSG(F::avg_pool1d(ones({1, 1, 6}), F::AvgPool1dFuncOptions(2).divisor_override(0)), Error,
                   "[avg_pool1d] divisor_override must not be zero; leave it unset to divide by the window size.");
  EXPECT_THROW_MSG(F::adaptive_max_pool2d(ones({1, 2, 3}), F::AdaptiveMaxPool2dFuncOptions({0, 2})), Error,
                   "[adaptive_max_pool2d] output_size must be positive, got 0, 2.");
  EXPECT_THROW_MSG(F::adaptive_avg_pool1d(ones({1, 2, 3}), 0), Error, "[adaptive_avg_pool1d] output_size must be positive, got 0.");
  EXPECT_THROW_MSG(F::adaptive_max_pool1d(ones({2, 0}), 2), Error,
                   "[adaptive_max_pool1d] expected an input with non-zero sizes in its pooled dims, got [1, 2, 1, 0].");
  EXPECT_THROW_MSG(F::adaptive_max_pool2d(ones({5}), F::AdaptiveMaxPool2dFuncOptions(2)), Error,
                   "[adaptive_max_pool2d] expected a 3-D (unbatched) or 4-D (batched) input, got [5].");
  EXPECT_THROW_MSG(max_pool1d(ones({1, 4}), {2, 2}), Error, "[max_pool1d] kernel_size must have 1 value, got 2 ([2, 2]).");
}

LOCUS_INSTANTIATE_DEVICES(Pooling);

}  // namespace pooling_test
