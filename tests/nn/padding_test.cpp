// The padding layers (values printed by PyTorch 1.13 for x = arange(48) [2, 2, 3, 4]), Unflatten,
// BatchNorm3d and InstanceNorm3d, on every device.
#include <sstream>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace padding_test {

using D = std::vector<double>;

class PaddingLayers : public testing::TestWithParam<Device> {
 protected:
  Tensor x() const { return arange(48, TensorOptions().dtype(kDouble).device(GetParam())).reshape({2, 2, 3, 4}); }
};

TEST_P(PaddingLayers, MatchPyTorch) {
  const Tensor t = x();
  const Tensor r = nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 2, 0, 1}))(t);
  ASSERT_EQ(r.sizes(), IntArrayRef({2, 2, 4, 7}));
  EXPECT_EQ(values(r[1][1]), (D{37, 36, 37, 38, 39, 38, 37, 41, 40, 41, 42, 43, 42, 41, 45, 44, 45, 46, 47, 46, 45,
                                41, 40, 41, 42, 43, 42, 41}));
  EXPECT_EQ(values(nn::ReplicationPad1d(nn::ReplicationPad1dOptions({2, 1}))(t[0])[1]),
            (D{12, 12, 12, 13, 14, 15, 15, 16, 16, 16, 17, 18, 19, 19, 20, 20, 20, 21, 22, 23, 23}));
  EXPECT_EQ(values(nn::ConstantPad2d(1, 3.5)(t[0][0])),
            (D{3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 0, 1, 2, 3, 3.5, 3.5, 4, 5, 6, 7, 3.5, 3.5, 8, 9, 10, 11, 3.5,
               3.5, 3.5, 3.5, 3.5, 3.5, 3.5}));
  EXPECT_EQ(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 1, 2, 0}))(t).sizes(), IntArrayRef({2, 2, 5, 6}));
  EXPECT_EQ(nn::ReplicationPad3d(1)(t.unsqueeze(0)).sizes(), IntArrayRef({1, 2, 4, 5, 6}));
  EXPECT_TRUE(nn::CircularPad1d(1)(t[0]).equal(F::pad(t[0], F::PadFuncOptions({1, 1}).mode(kCircular))));
  EXPECT_TRUE(nn::ZeroPad1d(nn::ZeroPad1dOptions({0, 2}))(t).narrow(-1, 4, 2).equal(zeros({2, 2, 3, 2}, t.options())));
  // unflatten undoes flatten
  nn::Unflatten unflatten(1, std::vector<int64_t>{3, 4});
  EXPECT_TRUE(unflatten(t.flatten(2).flatten(0, 1)).equal(t.reshape({4, 3, 4})));
  EXPECT_EQ(nn::Unflatten(nn::UnflattenOptions(-1, {2, -1}))(t).sizes(), IntArrayRef({2, 2, 3, 2, 2}));
}

TEST_P(PaddingLayers, BatchNorm3dAndInstanceNorm3d) {
  const TensorOptions o = TensorOptions().device(GetParam());
  const Tensor v = randn({2, 3, 2, 3, 4}, o) * 2 + 1;
  nn::BatchNorm3d bn(3);
  bn->to(GetParam());
  const Tensor y = bn(v);
  EXPECT_TRUE(y.allclose(F::batch_norm(v, Tensor(), Tensor(), F::BatchNormFuncOptions().training(true)), 1e-4, 1e-5));
  EXPECT_TRUE(bn->running_mean.allclose(v.mean({0, 2, 3, 4}) * 0.1, 1e-4, 1e-5));
  nn::InstanceNorm3d in(3);
  const Tensor z = in(v);
  EXPECT_TRUE(z.mean({2, 3, 4}).allclose(zeros({2, 3}, o), 1e-4, 1e-5));
  EXPECT_TRUE(in(v[0]).allclose(z[0], 1e-4, 1e-5));  // unbatched
  EXPECT_THROW_MSG(bn(ones({2, 3, 4, 4}, o)), Error, "BatchNorm3d: expected 5D input (got 4D input).");
  EXPECT_THROW_MSG(in(ones({3, 4}, o)), Error, "InstanceNorm3d: expected 4D (unbatched) or 5D input (got 2D input).");
}

TEST(PaddingLayerPrinting, NamesPaddingAndValue) {
  std::ostringstream os;
  os << nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 2, 0, 1})) << "\n" << nn::ConstantPad1d(2, 0.5) << "\n"
     << nn::Unflatten(1, std::vector<int64_t>{2, 3}) << "\n" << nn::BatchNorm3d(4);
  EXPECT_EQ(os.str(),
            "locus::nn::ReflectionPad2d(padding=[1, 2, 0, 1])\nlocus::nn::ConstantPad1d(padding=[2, 2], value=0.5)\n"
            "locus::nn::Unflatten(dim=1, unflattened_size={2, 3})\n"
            "locus::nn::BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  EXPECT_THROW_MSG(nn::ReflectionPad2d(3)(ones({1, 1, 2, 2})), Error, "[pad]");
}

LOCUS_INSTANTIATE_DEVICES(PaddingLayers);

}  // namespace padding_test
