// conv3d and the 3-D pools against PyTorch 1.13 (x = sin(0.13 i) [2, 4, 5, 6, 7], w = cos(0.07 i)
// [6, 2, 3, 2, 3]), with their layers, gradients, interpolate's area in 3-D, printing and messages,
// on every device.
#include <sstream>

#include "autograd/gradcheck.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace functional_3d_test {
using V = std::vector<Tensor>;
using D = std::vector<double>;

class Volumes : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().dtype(kDouble).device(GetParam()); }
  Tensor x() const { return (arange(2 * 4 * 5 * 6 * 7, o()) * 0.13).sin().reshape({2, 4, 5, 6, 7}); }
};

namespace {
void expect_near(const Tensor& got, IntArrayRef shape, const D& want) {
  ASSERT_EQ(got.sizes(), shape);
  const D v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-9) << i;
}
}  // namespace

TEST_P(Volumes, MatchPyTorch) {
  const Tensor v = x(), w = (arange(6 * 2 * 3 * 2 * 3, o()) * 0.07).cos().reshape({6, 2, 3, 2, 3});
  Tensor y = F::conv3d(v, w, F::Conv3dFuncOptions()
                                 .bias(arange(6, o()) * 0.1)
                                 .stride({2, 1, 2})
                                 .padding({1, 0, 1})
                                 .dilation({1, 2, 1})
                                 .groups(2));
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 6, 3, 4, 4}));
  expect_near(y[1][4][1], {4, 4},
              {4.29535628346, 5.22385758063, 3.6868384151, 1.61639610373, 0.603834561981, -0.86171275168,
               -2.64221831844, -2.5507363587, -3.24515109143, -5.97259925747, -6.62113553901, -4.43839989976,
               -4.2782265392, -6.16059866326, -5.17616586887, -2.58835838691});
  y = nn::MaxPool3d(nn::MaxPool3dOptions({2, 3, 2}).stride({2, 2, 1}).padding({1, 1, 0}).ceil_mode(true))(v);
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 4, 3, 4, 6}));
  expect_near(y[0][3][1], {4, 6},
              {0.421778283386, 0.5357584211, 0.640696985813, 0.734823012001, 0.816548008836, 0.8844927679,
               0.990413710622, 0.999963226899, 0.999963226899, 0.99940115544, 0.986482441532, 0.956915640244,
               0.990413710622, 0.999963226899, 0.999963226899, 0.992637151197, 0.968559119925, 0.928135479059,
               0.0193710496214, -0.110402223892, -0.238312326007, -0.362200618649, -0.479976336659,
               -0.589651871982});
  y = F::avg_pool3d(v, F::AvgPool3dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 4, 3, 4, 4}));
  expect_near(y[1][2][2], {4, 4},
              {-0.770801631714, -0.808392909914, -0.814370969989, -0.785578541756, -0.360107416048, -0.240879733091,
               -0.0702232797122, 0.0617309442579, 0.646731546645, 0.672208270812, 0.669535231616, 0.640124175819,
               0.754687744541, 0.638035692436, 0.449304854227, 0.288172088362});
  y = nn::AvgPool3d(nn::AvgPool3dOptions({2, 2, 3}).stride({1, 2, 2}).padding({1, 1, 1}))(v);
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 4, 6, 4, 4}));
  expect_near(y[0][1][0], {4, 4},
              {0.131238060309, 0.16285725191, 0.109098770536, 0.0426492055801, -0.131484833313, -0.270515421089,
               -0.35277801265, -0.26704574551, -0.22758563251, -0.27765903134, -0.178399932907, -0.0640160965634,
               0.0796002514668, 0.159018778311, 0.202797283174, 0.151743055883});
  const D aavg{0.402859776694, 0.103443902179, -0.311697224437, -0.574412772477, -0.652454962662, -0.41805178512,
               -0.0154174501876, 0.295375684932, 0.687663138017, 0.683956113268, 0.52158284291, 0.3054245939,
               -0.57979617594, -0.68478086704, -0.664270244773, -0.531512672277, 0.125513251987, 0.422080795996,
               0.712460754108, 0.809088893373, 0.206962621189, -0.108106621079, -0.49498140892, -0.703768900894};
  expect_near(nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({3, 4, 2}))(v)[1][0], {3, 4, 2}, aavg);
  expect_near(F::interpolate(v, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 4, 2}).mode(kArea))[1][0],
              {3, 4, 2}, aavg);
  EXPECT_TRUE(max_pool3d(v, {2, 3, 2}, {2, 2, 1}, {1, 1, 0}, 1, true).equal(
      F::max_pool3d(v, F::MaxPool3dFuncOptions({2, 3, 2}).stride({2, 2, 1}).padding({1, 1, 0}).ceil_mode(true))));
  EXPECT_TRUE(avg_pool3d(v, 2).equal(F::avg_pool3d(v, F::AvgPool3dFuncOptions(2))));
  EXPECT_TRUE(adaptive_avg_pool3d(v, 2).allclose(F::adaptive_avg_pool3d(v, 2)));
  EXPECT_TRUE(conv3d(v, w, {}, 1, {1, 0, 1}, 1, 2).allclose(
      F::conv3d(v, w, F::Conv3dFuncOptions().padding({1, 0, 1}).groups(2))));
  // the layer, unbatched
  nn::Conv3d conv(nn::Conv3dOptions(4, 3, {2, 3, 3}).padding(1).device(GetParam()).dtype(kDouble));
  EXPECT_EQ(conv->weight.sizes(), IntArrayRef({3, 4, 2, 3, 3}));
  EXPECT_TRUE(conv(v[1]).allclose(conv(v)[1]));
}

TEST_P(Volumes, Gradients) {
  const Device d = GetParam();
  gradcheck([](const V& t) {
    return F::conv3d(t[0], t[1], F::Conv3dFuncOptions().bias(t[2]).stride({2, 1, 1}).padding({1, 0, 1}));
  }, {sample({1, 2, 3, 3, 2}), sample({2, 2, 2, 2, 2}, 1.), sample({2}, 2.)}, d);
  gradcheck([](const V& t) { return F::max_pool3d(t[0], F::MaxPool3dFuncOptions(2).stride(1).ceil_mode(true)); },
            {sample({1, 1, 3, 3, 2})}, d);
  gradcheck([](const V& t) {
    return F::avg_pool3d(t[0], F::AvgPool3dFuncOptions(2).padding(1).count_include_pad(false));
  }, {sample({1, 1, 3, 2, 3})}, d);
  gradcheck([](const V& t) { return F::adaptive_avg_pool3d(t[0], {2, 1, 2}); }, {sample({1, 2, 3, 2, 3})}, d);
}

TEST(VolumeLayers, PrintAndMessages) {
  std::ostringstream os;
  os << nn::Conv3d(2, 4, 3) << "\n" << nn::MaxPool3d(2) << "\n" << nn::AvgPool3d(nn::AvgPool3dOptions(3).stride(2))
     << "\n" << nn::AdaptiveAvgPool3d(1);
  EXPECT_EQ(os.str(),
            "locus::nn::Conv3d(2, 4, kernel_size=[3, 3, 3], stride=[1, 1, 1])\n"
            "locus::nn::MaxPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0], dilation=[1, 1, 1], "
            "ceil_mode=false)\n"
            "locus::nn::AvgPool3d(kernel_size=[3, 3, 3], stride=[2, 2, 2], padding=[0, 0, 0])\n"
            "locus::nn::AdaptiveAvgPool3d(output_size=[1, 1, 1])");
  EXPECT_THROW_MSG(F::conv3d(ones({2, 3, 3}), ones({4, 2, 1, 1, 1})), Error,
                   "[conv3d] expected a 4-D (unbatched) or 5-D (batched) input [N, C, D, H, W], got [2, 3, 3].");
  EXPECT_THROW_MSG(F::conv3d(ones({1, 3, 3, 3, 3}), ones({4, 2, 1, 1, 1})), Error,
                   "[conv3d] Given groups=1, weight of size [4, 2, 1, 1, 1], expected input[1, 3, 3, 3, 3] to have 2 "
                   "channels, but got 3 channels instead.");
  EXPECT_THROW_MSG(F::conv3d(ones({1, 2, 3, 3, 3}), ones({4, 2, 3, 3})), Error, "[conv3d] expected a 5-D weight");
  EXPECT_THROW_MSG(F::conv3d(ones({1, 2, 3, 3, 3}), ones({4, 2, 1, 1, 1}), F::Conv3dFuncOptions().stride(0)), Error,
                   "[conv3d] kernel_size, stride and dilation must be positive and padding non-negative.");
  EXPECT_THROW_MSG(F::conv3d(ones({1, 2, 2, 3, 3}), ones({4, 2, 3, 1, 1})), Error,
                   "[conv3d] the kernel does not fit the padded input [1, 2, 2, 3, 3] in depth.");
  EXPECT_THROW_MSG(F::max_pool3d(ones({1, 1, 1, 4, 4}), F::MaxPool3dFuncOptions(2)), Error,
                   "[max_pool3d] the window does not fit the padded input [1, 1, 1, 4, 4].");
  EXPECT_THROW_MSG(F::avg_pool3d(ones({1, 1, 4, 1, 4}), F::AvgPool3dFuncOptions(2)), Error,
                   "[avg_pool3d] the window does not fit the padded input [1, 1, 4, 1, 4].");
  EXPECT_THROW_MSG(F::max_pool3d(ones({1, 1, 4, 4, 4}), F::MaxPool3dFuncOptions(2).padding(2)), Error,
                   "[max_pool3d] padding (2, 2, 2) must be at most half of kernel_size (2, 2, 2) in each dim");
  EXPECT_THROW_MSG(F::avg_pool3d(ones({1, 1, 4, 4, 4}), F::AvgPool3dFuncOptions(2).divisor_override(0)), Error,
                   "[avg_pool3d] divisor_override must not be zero");
  EXPECT_THROW_MSG(max_pool3d(ones({1, 1, 4, 4, 4}), {2, 2}), Error,
                   "[max_pool3d] kernel_size must have 1 or 3 values, got 2 ([2, 2]).");
  EXPECT_THROW_MSG(F::adaptive_avg_pool3d(ones({1, 1, 4, 4, 4}), {0, 1, 1}), Error,
                   "[adaptive_avg_pool3d] output_size must be positive, got 0, 1, 1.");
}

LOCUS_INSTANTIATE_DEVICES(Volumes);

}  // namespace functional_3d_test
