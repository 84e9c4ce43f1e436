// bilinear, unfold/fold, local_response_norm, embedding_bag and the dropout variants, with their
// layers: values printed by PyTorch 1.13, gradients against finite differences, printing and
// messages, on every device.
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"
#include "nn/cases.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace functional_layers_test {

using V = std::vector<Tensor>;
using D = std::vector<double>;

class FunctionalLayers : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().dtype(kDouble).device(GetParam()); }
  Tensor wave(std::vector<int64_t> shape, double step, bool cosine = false) const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    const Tensor a = arange(n, o()) * step;
    return (cosine ? a.cos() : a.sin()).reshape(shape);
  }
};

using nn_cases::expect_near;

TEST_P(FunctionalLayers, MatchPyTorch) {
  const Tensor x = wave({2, 3, 4, 5}, 0.3);
  expect_near(F::local_response_norm(x, F::LocalResponseNormFuncOptions(3).alpha(0.5).beta(0.6).k(1.5)).select(2, 2)[1],
              {0.594147323261, 0.466620041191, 0.288737580463, 0.0706992411994, -0.162039272469, 0.643457281275,
               0.57521763733, 0.454022100268, 0.277268504266, 0.0575742628181, 0.698313877179, 0.676544156922,
               0.59978791613, 0.463671394933, 0.27206558024});
  const Tensor a = wave({2, 3}, 0.7, true), b = wave({2, 4}, 0.4), w = wave({5, 3, 4}, 0.11);
  expect_near(F::bilinear(a, b, w, arange(5, o()) * 0.3),
              {1.80185595767, 3.95900632921, 0.61429513903, -2.75191092404, -0.626924424968, -3.92909999965,
               -5.73846348105, 1.53190319626, 7.4010144743, 3.49488121046});
  const Tensor u = nn::Unfold(nn::UnfoldOptions({2, 3}).padding(1).stride({2, 1}))(x);
  ASSERT_EQ(u.sizes(), IntArrayRef({2, 18, 15}));
  expect_near(u[1][7].narrow(0, 0, 8), {0, 0, 0, 0, 0, 0.359058354022, 0.61883502212, 0.823333000738});
  const Tensor f = nn::Fold(nn::FoldOptions({4, 5}, {2, 3}).padding(1).stride({2, 1}))(u);
  ASSERT_EQ(f.sizes(), x.sizes());
  expect_near(f[0][1], {-0.558830996398, 0.050441701453, 0.93462409054,   1.73531929316,  1.5873357277,
                        1.87599995355,   2.99563003612,  2.90966943254,   2.56379672426,  1.32593846016,
                        0.824236970484,  0.373363270521, -0.522980343669, -1.37260768133, -1.39974937519,
                        -1.75939151994,  -2.9428086902,  -2.98365776461,  -2.75798557699, -1.52396716784});
  EXPECT_TRUE(
      F::fold(F::unfold(x[0], F::UnfoldFuncOptions(2)), F::FoldFuncOptions({4, 5}, 2))
          .allclose(F::fold(F::unfold(x, F::UnfoldFuncOptions(2)), F::FoldFuncOptions({4, 5}, 2))[0]));  // unbatched
}

TEST_P(FunctionalLayers, EmbeddingBagMatchesPyTorch) {
  const Tensor w = wave({10, 3}, 0.23, true);
  const Tensor in = tensor({1, 2, 4, 5, 4, 3, 2, 9}).to(GetParam()), off = tensor({0, 2, 2, 5}).to(GetParam());
  expect_near(F::embedding_bag(in, w, F::EmbeddingBagFuncOptions().offsets(off).mode(kSum)),
              {0.960886846295, 0.56662652487, 0.142523565275, 0, 0, 0, -2.80896363501, -2.8355900754, -2.71287389784,
               0.708237437653, 0.282260098602, -0.158583092332});
  expect_near(F::embedding_bag(in, w, F::EmbeddingBagFuncOptions().offsets(off)),  // kMean by default
              {0.480443423147, 0.283313262435, 0.0712617826376, 0, 0, 0, -0.936321211671, -0.945196691799,
               -0.904291299279, 0.236079145884, 0.0940866995342, -0.0528610307775});
  expect_near(F::embedding_bag(in, w, F::EmbeddingBagFuncOptions().offsets(off).mode(kMax)),
              {0.771246014997, 0.605820156643, 0.408487440884, 0, 0, 0, -0.928072710209, -0.858526433742,
               -0.719018460923, 0.997323150514, 0.987729751655, 0.926115382554});
  expect_near(F::embedding_bag(
                  in, w, F::EmbeddingBagFuncOptions().offsets(off).mode(kSum).per_sample_weights(arange(8, o()) * 0.5)),
              {0.0948204156489, -0.0195968158865, -0.132981937804, 0, 0, 0, -4.21344545252, -4.2533851131,
               -4.06931084675, 2.86273716029, 1.67378318228, 0.396675713918});
  expect_near(
      F::embedding_bag(tensor({{1, 2, 0}, {0, 0, 3}}).to(GetParam()), w, F::EmbeddingBagFuncOptions().padding_idx(0)),
      {0.480443423147, 0.283313262435, 0.0712617826376, -0.478726544159, -0.66627602128, -0.818734599277});
  nn::EmbeddingBag bag(
      nn::EmbeddingBagOptions(10, 3).mode(kSum).include_last_offset(true).device(GetParam()).dtype(kDouble));
  {
    NoGradGuard no_grad;
    bag->weight.copy_(w);
  }
  expect_near(bag(in, tensor({0, 2, 5, 8}).to(GetParam())),
              {0.960886846295, 0.56662652487, 0.142523565275, -2.80896363501, -2.8355900754, -2.71287389784,
               0.708237437653, 0.282260098602, -0.158583092332});
}

TEST_P(FunctionalLayers, Gradients) {
  const Device d = GetParam();
  gradcheck([](const V& v) { return F::bilinear(v[0], v[1], v[2], v[3]); },
            {sample({2, 3}), sample({2, 2}, 1.), sample({4, 3, 2}, 2.), sample({4}, 3.)}, d);
  gradcheck(
      [](const V& v) {
        return F::fold(F::unfold(v[0], F::UnfoldFuncOptions(2).padding(1)), F::FoldFuncOptions({3, 4}, 2).padding(1));
      },
      {sample({1, 2, 3, 4})}, d);
  gradcheck([](const V& v) { return F::local_response_norm(v[0], F::LocalResponseNormFuncOptions(2).alpha(0.3)); },
            {sample({1, 3, 2, 2})}, d);
  const Tensor in = tensor({1, 2, 1, 0, 3}).to(d), off = tensor({0, 3}).to(d);
  gradcheck([&](const V& v) { return F::embedding_bag(in, v[0], F::EmbeddingBagFuncOptions().offsets(off)); },
            {sample({4, 2})}, d);
  gradcheck(
      [&](const V& v) {
        return F::embedding_bag(in, v[0],
                                F::EmbeddingBagFuncOptions().offsets(off).mode(kSum).per_sample_weights(v[1]));
      },
      {sample({4, 2}), sample({5}, 1.)}, d);
  gradcheck(
      [&](const V& v) { return F::embedding_bag(in, v[0], F::EmbeddingBagFuncOptions().offsets(off).mode(kMax)); },
      {sample({4, 2})}, d);
}

TEST_P(FunctionalLayers, Dropouts) {
  const Tensor ones_ = ones({64, 32, 8}, TensorOptions().device(GetParam()));
  nn::Dropout1d drop(0.5);
  const Tensor y = drop(ones_);
  // whole channels: each [n, c, :] row is all 0 or all 2
  EXPECT_TRUE((y.amax({2}) == y.amin({2})).all().item<bool>());
  const double kept = (y.select(2, 0) > 0).to(kFloat).mean().item<double>();
  EXPECT_NEAR(kept, 0.5, 0.05);
  drop->eval();
  EXPECT_TRUE(drop(ones_).equal(ones_));
  // alpha dropout keeps a standard normal input's mean and variance
  manual_seed(7);
  const Tensor z = randn({200000}, TensorOptions().device(GetParam()));
  const Tensor az = F::alpha_dropout(z, F::AlphaDropoutFuncOptions().p(0.2).training(true));
  EXPECT_NEAR(az.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(az.std().item<double>(), 1.0, 0.02);
  const Tensor fz = nn::FeatureAlphaDropout(0.3)(randn({8, 16, 10}, TensorOptions().device(GetParam())));
  const Tensor dropped = fz.amax({2}) == fz.amin({2});  // a dropped channel is constant
  EXPECT_GT(dropped.to(kFloat).sum().item<double>(), 0);
  EXPECT_TRUE(F::alpha_dropout(z, F::AlphaDropoutFuncOptions().p(0.2).training(false)).equal(z));
}

TEST(FunctionalLayerModules, PrintAndMessages) {
  std::ostringstream os;
  os << nn::Bilinear(3, 4, 5) << "\n"
     << nn::Unfold(nn::UnfoldOptions(2).stride(2)) << "\n"
     << nn::Fold(nn::FoldOptions({4, 4}, 2)) << "\n"
     << nn::LocalResponseNorm(2) << "\n"
     << nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 3).mode(kMax)) << "\n"
     << nn::Dropout1d(0.2) << "\n"
     << nn::AlphaDropout();
  EXPECT_EQ(os.str(),
            "locus::nn::Bilinear(in1_features=3, in2_features=4, out_features=5, bias=true)\n"
            "locus::nn::Unfold(kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[2, 2])\n"
            "locus::nn::Fold(output_size=[4, 4], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])\n"
            "locus::nn::LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1)\n"
            "locus::nn::EmbeddingBag(num_embeddings=10, embedding_dim=3, mode=kMax)\n"
            "locus::nn::Dropout1d(p=0.2, inplace=false)\nlocus::nn::AlphaDropout(p=0.5, inplace=false)");
  EXPECT_THROW_MSG(F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 3, 3})), Error,
                   "[bilinear] the inputs' last dims (3, 4) must match weight [5, 3, 3]'s dims 1 and 2.");
  EXPECT_THROW_MSG(F::fold(ones({1, 5, 4}), F::FoldFuncOptions({3, 3}, 2)), Error,
                   "[fold] Expected size of input's dimension 1 to be divisible by the product of kernel_size");
  EXPECT_THROW_MSG(F::fold(ones({1, 4, 5}), F::FoldFuncOptions({3, 3}, 2)), Error,
                   "calculated number of sliding blocks 4, but got input.size(2)=5.");
  EXPECT_THROW_MSG(F::local_response_norm(ones({2, 3}), 2), Error,
                   "[local_response_norm] Expected 3D or higher dimensionality input (got 2 dimensions).");
  const Tensor w = ones({5, 2});
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2}), w, F::EmbeddingBagFuncOptions().offsets(tensor({1}))), Error,
                   "[embedding_bag] offsets[0] has to be 0");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({{1, 2}}), w, F::EmbeddingBagFuncOptions().offsets(tensor({0}))), Error,
                   "[embedding_bag] if input is 2-D, then offsets has to be None");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2}), w,
                                    F::EmbeddingBagFuncOptions().offsets(tensor({0})).per_sample_weights(ones({2}))),
                   Error, "per_sample_weights is only supported for mode='sum' (got mode='mean')");
  EXPECT_THROW_MSG(F::EmbeddingBagFuncOptions().mode(kNone), Error, "[embedding_bag] mode must be kSum, kMean or kMax");
  EXPECT_THROW_MSG(F::dropout1d(ones({2, 3, 4, 5})), Error, "[dropout1d] Expected 2D or 3D input, but received a 4D");
  // the remaining argument checks, by message
  EXPECT_THROW_MSG(F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 12})), Error,
                   "[bilinear] expected a 3-D weight [out_features, in1_features, in2_features], got [5, 12].");
  EXPECT_THROW_MSG(F::bilinear(ones({2, 3}), ones({3, 4}), ones({5, 3, 4})), Error,
                   "[bilinear] input1 and input2 must have the same leading dims, got [2, 3] and [3, 4].");
  EXPECT_THROW_MSG(F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 3, 4}), ones({4})), Error,
                   "[bilinear] expected a bias of 5 elements, got [4].");
  EXPECT_THROW_MSG(F::unfold(ones({4, 4}), F::UnfoldFuncOptions(2)), Error,
                   "[unfold] expected a 3-D (unbatched) or 4-D (batched) input, got [4, 4].");
  EXPECT_THROW_MSG(F::fold(ones({4}), F::FoldFuncOptions({3, 3}, 2)), Error,
                   "[fold] expected a 2-D (unbatched) or 3-D (batched) input [N, C * kh * kw, L], got [4].");
  EXPECT_THROW_MSG(F::fold(ones({1, 4, 4}), F::FoldFuncOptions({3, 3}, 2).stride(0)), Error,
                   "[fold] output_size, kernel_size, dilation and stride must be positive and padding non-negative.");
  EXPECT_THROW_MSG(F::local_response_norm(ones({1, 2, 3}), 0), Error, "[local_response_norm] size must be positive, got 0.");
  EXPECT_THROW_MSG(F::embedding_bag(ones({2}), w, F::EmbeddingBagFuncOptions().offsets(tensor({0}))), Error,
                   "[embedding_bag] expected int64 (or int32) indices, got float");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2}), ones({5}), F::EmbeddingBagFuncOptions().offsets(tensor({0}))), Error,
                   "[embedding_bag] expected a 2-D weight [num_embeddings, embedding_dim], got [5].");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2}), w,
                                    F::EmbeddingBagFuncOptions().offsets(tensor({0})).mode(kSum).per_sample_weights(
                                        ones({3}))),
                   Error, "[embedding_bag] per_sample_weights [3] must have input's shape [2].");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2}), w), Error,
                   "[embedding_bag] a 1-D input needs 1-D offsets (where each bag starts), got none.");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({1, 2, 3}), w, F::EmbeddingBagFuncOptions().offsets(tensor({0, 2, 1}))),
                   Error, "[embedding_bag] offsets must be non-decreasing and at most input's length (3), got 1 after 2.");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({{{1}}}), w), Error, "[embedding_bag] input has to be 1-D or 2-D, got [1, 1, 1].");
  EXPECT_THROW_MSG(F::embedding_bag(tensor({{1, 2}}), w, F::EmbeddingBagFuncOptions().padding_idx(5)), Error,
                   "[embedding_bag] padding_idx (5) must be within num_embeddings (5).");
  EXPECT_THROW_MSG(F::feature_alpha_dropout(ones({4}), F::FeatureAlphaDropoutFuncOptions().p(0.5)), Error,
                   "[feature_alpha_dropout] expected an input with channels [N, C, *], got [4].");
  EXPECT_THROW_MSG(F::alpha_dropout(ones({2}), F::AlphaDropoutFuncOptions().p(1.5)), Error,
                   "[alpha_dropout] dropout probability has to be between 0 and 1, but got 1.500000.");
}

LOCUS_INSTANTIATE_DEVICES(FunctionalLayers);

}  // namespace functional_layers_test
