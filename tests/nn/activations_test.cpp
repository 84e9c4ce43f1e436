// The activations of nn/functional_activations.h, their layers and torch:: spellings: values printed
// by PyTorch 1.13 for x = [-4, -2.5, -1, -0.3, 0, 0.2, 0.7, 1.5, 3.2, 7], gradients against finite
// differences, in-place forms, training and eval for RReLU, printing and messages, on every device.
#include <sstream>

#include "autograd/gradcheck.h"
#include "nn/cases.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace activations_test {
using V = std::vector<Tensor>;
using D = std::vector<double>;

class Activations : public testing::TestWithParam<Device> {
 protected:
  Tensor x() const {
    return tensor({-4.0, -2.5, -1.0, -0.3, 0.0, 0.2, 0.7, 1.5, 3.2, 7.0},
                  TensorOptions().dtype(kDouble).device(GetParam()));
  }
};

namespace {
void expect_near(const Tensor& got, const D& want) { nn_cases::expect_near(got, want, 1e-10); }
}  // namespace

TEST_P(Activations, ValuesMatchPyTorch) {
  const Tensor t = x();
  expect_near(F::relu6(t), {0, 0, 0, 0, 0, 0.2, 0.7, 1.5, 3.2, 6});
  expect_near(nn::Hardshrink()(t), {-4, -2.5, -1, 0, 0, 0, 0.7, 1.5, 3.2, 7});
  expect_near(F::softshrink(t, 0.5), {-3.5, -2, -0.5, 0, 0, 0, 0.2, 1, 2.7, 6.5});
  expect_near(nn::Tanhshrink()(t), {-3.00067070026, -1.51338570185, -0.238405844044, -0.00868738754841, 0,
                                    0.0026246797751, 0.0956322228828, 0.594851746355, 2.20331760216, 6.00000166306});
  expect_near(F::softsign(t), {-0.8, -0.714285714286, -0.5, -0.230769230769, 0, 0.166666666667, 0.411764705882, 0.6,
                               0.761904761905, 0.875});
  expect_near(nn::LogSigmoid()(t),
              {-4.01814992792, -2.57888973429, -1.31326168752, -0.854355244469, -0.69314718056, -0.598138869382,
               -0.403186048885, -0.201413277983, -0.0399533331624, -0.000911466453774});
  expect_near(log_sigmoid(tensor({-800.0, 800.0}, TensorOptions().dtype(kDouble).device(GetParam()))), {-800, 0});
  expect_near(nn::Threshold(0.5, -9.0)(t), {-9, -9, -9, -9, -9, -9, 0.7, 1.5, 3.2, 7});
  expect_near(nn::CELU(nn::CELUOptions().alpha(1.5))(t),
              {-1.39577482317, -1.21668659574, -0.729874321451, -0.271903870383, 0, 0.2, 0.7, 1.5, 3.2, 7});
  expect_near(hardswish(t),
              {0, -0.208333333333, -0.333333333333, -0.135, 0, 0.106666666667, 0.431666666667, 1.125, 3.2, 7});
  expect_near(hardsigmoid(t),
              {0, 0.0833333333333, 0.333333333333, 0.45, 0.5, 0.533333333333, 0.616666666667, 0.75, 1, 1});
  nn::RReLU rrelu;
  rrelu->eval();
  expect_near(rrelu(t), {-0.916666666667, -0.572916666667, -0.229166666667, -0.06875, 0, 0.2, 0.7, 1.5, 3.2, 7});
  const Tensor g = (arange(12, TensorOptions().dtype(kDouble).device(GetParam())) * 0.3).sin().reshape({4, 3});
  expect_near(nn::GLU(0)(g), {0, 0.207848447588, 0.37420289509, 0.474106915974, 0.49884742168, 0.459491228235});
  expect_near(nn::Softmin(1)(t.reshape({2, 5})),
              {0.759903599127, 0.169557411771, 0.0378333724427, 0.0187874967479, 0.0139181199119, 0.51814456883,
               0.314270567159, 0.141210868394, 0.0257968990728, 0.000577096543754});
  const Tensor img = randn({2, 3, 2, 2}, TensorOptions().device(GetParam()));
  EXPECT_TRUE(nn::Softmax2d()(img).allclose(img.softmax(1)));
  EXPECT_TRUE(nn::Softmax2d()(img[0]).allclose(img[0].softmax(0)));
}

TEST_P(Activations, RReLUDrawsSlopesWhileTraining) {
  const Tensor neg = -ones({1000}, TensorOptions().device(GetParam()));
  nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.3));
  const Tensor y = m(neg);  // modules start in training mode
  EXPECT_GE(y.max().item<double>(), -0.3 - 1e-6);
  EXPECT_LE(y.min().item<double>(), -0.1 + 1e-6);
  EXPECT_GT(y.std().item<double>(), 0.03);  // U(0.1, 0.3) has a deviation of 0.058
  m->eval();
  EXPECT_TRUE(m(neg).allclose(neg * 0.2));
}

TEST_P(Activations, Gradients) {
  const Device d = GetParam();
  // samples away from the kinks (|x| = lambda, 0, 6, +-3) so that finite differences are smooth there
  const Tensor s = tensor({-4.1, -2.2, -0.9, -0.35, 0.15, 0.8, 2.4, 6.6}, TensorOptions().dtype(kDouble));
  gradcheck([](const V& v) { return F::relu6(v[0]); }, {s}, d);
  gradcheck([](const V& v) { return F::hardshrink(v[0]); }, {s}, d);
  gradcheck([](const V& v) { return F::softshrink(v[0], 0.2); }, {s}, d);
  gradcheck([](const V& v) { return F::tanhshrink(v[0]) + F::softsign(v[0]) + F::logsigmoid(v[0]); }, {s}, d);
  gradcheck([](const V& v) { return F::threshold(v[0], F::ThresholdFuncOptions(0.5, 2.0)); }, {s}, d);
  gradcheck([](const V& v) { return F::celu(v[0], F::CELUFuncOptions().alpha(0.7)); }, {s}, d);
  gradcheck([](const V& v) { return F::hardswish(v[0]) + F::hardsigmoid(v[0]); }, {s}, d);
  gradcheck([](const V& v) { return F::glu(v[0], 1); }, {sample({2, 4})}, d);
  gradcheck([](const V& v) { return F::softmin(v[0], 0); }, {sample({3, 2})}, d);
  gradcheck([](const V& v) { return F::rrelu(v[0]); }, {s}, d);
}

TEST_P(Activations, InPlaceAsLibtorch) {
  Tensor t = x();
  Tensor same = F::relu6(t, true);
  EXPECT_TRUE(same.is_same(t));
  EXPECT_EQ(values(t).back(), 6);
  Tensor u = x();
  EXPECT_TRUE(F::threshold(u, F::ThresholdFuncOptions(0, 0).inplace(true)).is_same(u));
  EXPECT_EQ(values(u)[0], 0);
  Tensor w = x().requires_grad_();  // a leaf that requires grad: refused, as libtorch, nothing written
  EXPECT_THROW_MSG(F::celu(w, F::CELUFuncOptions().inplace(true)), Error,
                   "[celu] a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(values(w.detach())[0], -4);
  Tensor h = w * 1;  // in the graph: overwritten and recorded, with the out-of-place gradient
  Tensor r = F::celu(h, F::CELUFuncOptions().inplace(true));
  EXPECT_TRUE(r.is_same(h));
  r.sum().backward();
  Tensor w2 = x().requires_grad_();
  F::celu(w2).sum().backward();
  EXPECT_EQ(values(h.detach()), values(F::celu(x())));
  EXPECT_EQ(values(w.grad()), values(w2.grad()));
}

TEST(ActivationLayers, PrintAndMessages) {
  std::ostringstream os;
  os << nn::ReLU6() << "\n"
     << nn::Hardshrink(0.3) << "\n"
     << nn::Threshold(0.1, 20) << "\n"
     << nn::CELU(nn::CELUOptions().alpha(2)) << "\n"
     << nn::GLU() << "\n"
     << nn::Softmin(1) << "\n"
     << nn::RReLU() << "\n"
     << nn::LogSigmoid() << "\n"
     << nn::Softmax2d();
  EXPECT_EQ(os.str(),
            "locus::nn::ReLU6()\nlocus::nn::Hardshrink(0.3)\nlocus::nn::Threshold(threshold=0.1, value=20)\n"
            "locus::nn::CELU(alpha=2)\nlocus::nn::GLU(dim=-1)\nlocus::nn::Softmin(dim=1)\n"
            "locus::nn::RReLU(lower=0.125, upper=0.333333)\nlocus::nn::LogSigmoid()\nlocus::nn::Softmax2d()");
  EXPECT_THROW_MSG(F::glu(ones({2, 3})), Error, "[glu] Halving dimension must be even, but dimension 1 is size 3.");
  EXPECT_THROW_MSG(F::glu(ones({2, 4}), 2), Error,
                   "[glu] Dimension out of range (expected to be in range of [-2, 1], but got 2).");
  EXPECT_THROW_MSG(F::glu(tensor(1.0)), Error, "[glu] glu does not support scalars");
  EXPECT_THROW_MSG(F::softshrink(ones({2}), -1), Error,
                   "[softshrink] lambda must be greater or equal to 0, but found to be -1.");
  EXPECT_THROW_MSG(F::celu(ones({2}), F::CELUFuncOptions().alpha(0)), Error, "[celu] alpha must not be zero");
  EXPECT_THROW_MSG(F::rrelu(ones({2}), F::RReLUFuncOptions().lower(0.5).upper(0.1)), Error,
                   "[rrelu] lower bound (0.5) must not be above the upper bound (0.1).");
  EXPECT_THROW_MSG(nn::Softmax2d()(ones({2, 3})), Error,
                   "[Softmax2d] expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got [2, 3].");
}

TEST_P(Activations, HardswishAndHardsigmoidLayers) {
  Tensor x = tensor({-4.0, -1.0, 0.0, 0.5, 3.5}, TensorOptions().dtype(kFloat)).to(GetParam());
  nn::Hardswish hs;
  nn::Hardsigmoid hsig;
  // PyTorch 1.13: nn.Hardswish()(x), nn.Hardsigmoid()(x)
  const std::vector<double> swish{0.0, -0.3333333432674408, 0.0, 0.2916666567325592, 3.5};
  const std::vector<double> sig{0.0, 0.3333333432674408, 0.5, 0.5833333134651184, 1.0};
  std::vector<double> a = values(hs(x)), b = values(hsig->forward(x));
  for (size_t i = 0; i < swish.size(); ++i) {
    EXPECT_NEAR(a[i], swish[i], 1e-7) << i;
    EXPECT_NEAR(b[i], sig[i], 1e-7) << i;
  }
  std::ostringstream os;
  os << hs << " " << hsig;
  EXPECT_EQ(os.str(), "locus::nn::Hardswish() locus::nn::Hardsigmoid()");
}

// F::gumbel_softmax: a sample over the last dim sums to one; a small tau sharpens it; hard gives
// the one-hot of the soft sample's argmax with the soft sample's gradient (straight through).
TEST_P(Activations, GumbelSoftmax) {
  manual_seed(7);
  Tensor logits = tensor({1.0f, 2.0f, 0.5f, -1.0f, 0.0f, 3.0f}, device(GetParam())).view({2, 3});
  Tensor soft = F::gumbel_softmax(logits);
  EXPECT_EQ(soft.sizes(), logits.sizes());
  EXPECT_TRUE(allclose(soft.sum(-1), ones({2}, device(GetParam())), 1e-5, 1e-6));
  EXPECT_TRUE(soft.ge(0).all().item<bool>());
  Tensor sharp = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.01));
  EXPECT_GT(sharp.amax(-1).min().item<double>(), 0.999);
  Tensor x = logits.detach().requires_grad_();
  manual_seed(3);
  Tensor hard = F::gumbel_softmax(x, F::GumbelSoftmaxFuncOptions().hard(true).dim(1));
  EXPECT_TRUE(allclose(hard.sum(1), ones({2}, device(GetParam()))));
  EXPECT_TRUE(hard.eq(0).logical_or(hard.eq(1)).all().item<bool>());
  (hard * tensor({1.0f, 2.0f, 3.0f}, device(GetParam()))).sum().backward();
  Tensor x2 = logits.detach().requires_grad_();
  manual_seed(3);  // the same noise: the soft sample's gradient
  (F::gumbel_softmax(x2, F::GumbelSoftmaxFuncOptions().dim(1)) * tensor({1.0f, 2.0f, 3.0f}, device(GetParam())))
      .sum()
      .backward();
  EXPECT_TRUE(allclose(x.grad(), x2.grad(), 1e-5, 1e-6));
  EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0);
}

LOCUS_INSTANTIATE_DEVICES(Activations);

}  // namespace activations_test
