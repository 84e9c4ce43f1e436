// nn::init with libtorch's spellings (include/locus/enum.h): torch::kFanIn / kFanOut, the
// nonlinearity tags and torch::kLinear, and the other options that take the same tags.
#include <cmath>
#include <sstream>

#include "testing.h"

using namespace locus;

namespace init_test {

TEST(InitTags, GainsAsPyTorch) {
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kLeakyReLU, 0.2), 1.3867504905630728);  // PyTorch 1.13's
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kSigmoid), 1.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(kLinear), 1.0);
  for (nn::init::NonlinearityType conv : {nn::init::NonlinearityType(kConv1D), nn::init::NonlinearityType(kConv2D),
                                          nn::init::NonlinearityType(kConv3D), nn::init::NonlinearityType(kConvTranspose1D),
                                          nn::init::NonlinearityType(kConvTranspose2D),
                                          nn::init::NonlinearityType(kConvTranspose3D)})
    EXPECT_DOUBLE_EQ(nn::init::calculate_gain(conv), 1.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain(nn::init::Nonlinearity::LeakyReLU, 0.2), 1.3867504905630728);
  EXPECT_THROW_MSG(nn::init::calculate_gain(kBilinear), Error,
                   "[calculate_gain] an interpolation mode other than kLinear is not a nonlinearity");
}

TEST(InitTags, KaimingWithTagsEqualsKaimingWithTheEnums) {
  for (const Device& d : all_devices()) {
    SCOPED_TRACE(d.str());
    Tensor a = empty({64, 32, 3, 3}, d), b = empty({64, 32, 3, 3}, d);
    manual_seed(3);
    nn::init::kaiming_normal_(a, 0.0, kFanOut, kReLU);  // the ResNet examples' line
    manual_seed(3);
    nn::init::kaiming_normal_(b, 0.0, nn::init::FanMode::FanOut, nn::init::Nonlinearity::ReLU);
    EXPECT_TRUE(equal(a, b));
    // the drawn std is gain / sqrt(fan_out) = sqrt(2) / sqrt(64 * 9)
    EXPECT_NEAR(a.std().item<double>(), std::sqrt(2.0 / (64 * 9)), 0.003);
    Tensor u = empty({20, 50}, d);
    nn::init::kaiming_uniform_(u, 0.0, kFanIn, kLinear);
    EXPECT_LE(u.abs().max().item<double>(), std::sqrt(3.0 / 50) + 1e-6);
    EXPECT_GT(u.abs().max().item<double>(), 0.9 * std::sqrt(3.0 / 50));
  }
}

TEST(InitTags, RnnAndTransformerTakeTheSameTags) {
  nn::RNN relu_rnn(nn::RNNOptions(3, 4).nonlinearity(kReLU));
  EXPECT_EQ(relu_rnn->options.nonlinearity(), nn::RNNNonlinearity::ReLU);
  std::ostringstream s;
  s << *relu_rnn;
  // libtorch prints no nonlinearity for RNN (its RNNCell does, as "kReLU")
  EXPECT_EQ(s.str().find("nonlinearity"), std::string::npos) << s.str();
  nn::RNN tanh_rnn(nn::RNNOptions(3, 4).nonlinearity(kTanh));
  EXPECT_EQ(tanh_rnn->options.nonlinearity(), nn::RNNNonlinearity::Tanh);
  nn::RNNCell cell(nn::RNNCellOptions(3, 4).nonlinearity(kReLU));
  Tensor h = cell->forward(full({2, 3}, -100.0));
  EXPECT_GE(h.min().item<double>(), 0.0);  // relu, not tanh
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).activation(kGELU));
  EXPECT_EQ(layer->forward(randn({3, 1, 8})).sizes(), IntArrayRef({3, 1, 8}));
}

}  // namespace init_test
