// LSTMCell, GRUCell and RNNCell against PyTorch 1.13 (parameter k in named_parameters order and the
// inputs set to sin(0.37 i + k) * scale in float64, the script's numbers below), on every device:
// values, unbatched input and zero states, gradients, parameters, printing and messages.
#include <sstream>

#include "autograd/gradcheck.h"
#include "nn/cases.h"

using namespace locus;

namespace rnn_cell_test {
using D = std::vector<double>;

class RecurrentCells : public testing::TestWithParam<Device> {
 protected:
  Tensor det(std::vector<int64_t> shape, double k, double scale = 1.0) const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return ((arange(n, TensorOptions().dtype(kDouble)) * 0.37 + k).sin() * scale).reshape(shape).to(GetParam());
  }
  void fill(nn::Module& m) const {
    NoGradGuard no_grad;
    double k = 1;
    for (const auto& item : m.named_parameters()) {
      Tensor p = item.value();
      p.copy_(det(p.sizes().vec(), k++, 0.5));
    }
  }
};

namespace {
void expect_near(const Tensor& got, const D& want) { nn_cases::expect_near(got, want, 1e-10); }
}  // namespace

TEST_P(RecurrentCells, MatchPyTorch) {
  const Device d = GetParam();
  const Tensor x = det({3, 4}, 10), h = det({3, 5}, 11), c = det({3, 5}, 12);
  nn::LSTMCell lstm(nn::LSTMCellOptions(4, 5).device(d).dtype(kDouble));
  std::vector<std::string> names;
  for (const auto& item : lstm->named_parameters()) names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(lstm->weight_ih.sizes(), IntArrayRef({20, 4}));
  fill(*lstm);
  auto [h1, c1] = lstm(x, std::make_tuple(h, c));
  expect_near(h1, {-0.205939889194, 0.125967299965, 0.0306384834273, 0.133013455404, 0.237595688366, 0.20453479733,
                   0.585738451934, 0.212423100251, 0.0449458002773, 0.14995082601, 0.0552180453136, -0.101931367601,
                   -0.198339848389, -0.0458707175688, -0.0320962077409});
  expect_near(c1, {-0.218083737213, 0.591914659696, 0.540679869499, 0.195822013831, 0.351330242503, 0.413781933101,
                   0.858989908201, 0.905272031158, 0.754658011221, 0.234596964125, 0.386385335858, -0.172694399912,
                   -0.236595086535, -0.188086714402, -0.51690506019});
  auto [hu, cu] = lstm(x[1]);  // unbatched, zero states
  EXPECT_EQ(hu.sizes(), IntArrayRef({5}));
  expect_near(hu, {0.138517707812, 0.140194632151, 0.0715615441011, -0.0123029983458, 0.0460305137163});
  nn::GRUCell gru(nn::GRUCellOptions(4, 5).device(d).dtype(kDouble));
  fill(*gru);
  expect_near(gru(x, h), {-0.00448479256995, 0.188731560127, -0.233560575775, -0.570825718607, 0.548113746632,
                          0.676920047511, 0.638508031924, 0.708917429048, 0.786143177519, 0.791760943322, 0.44296564546,
                          -0.336447611158, 0.592569803087, 0.264208124571, -0.291375539465});
  nn::RNNCell rnn(
      nn::RNNCellOptions(4, 5).bias(false).nonlinearity(nn::RNNNonlinearity::ReLU).device(d).dtype(kDouble));
  EXPECT_EQ(rnn->parameters().size(), 2u);
  fill(*rnn);
  expect_near(rnn(x, h), {0, 1.31876839366, 1.69553091271, 0, 0, 0, 0, 1.34250055151, 1.85408407713, 0, 2.09256496152,
                          0, 0, 0.482002445643, 1.43567291402});
}

TEST_P(RecurrentCells, GradientsReachEveryParameter) {
  const Device d = GetParam();
  nn::LSTMCell lstm(nn::LSTMCellOptions(3, 2).device(d).dtype(kDouble));
  nn::GRUCell gru(nn::GRUCellOptions(2, 2).device(d).dtype(kDouble));
  nn::RNNCell rnn(nn::RNNCellOptions(2, 3).device(d).dtype(kDouble));
  std::vector<Tensor> leaves;
  for (nn::Module* m : std::vector<nn::Module*>{lstm.get(), gru.get(), rnn.get()})
    for (const Tensor& p : m->parameters()) leaves.push_back(p);
  const Tensor x = det({2, 3}, 4), h0 = det({2, 2}, 5), c0 = det({2, 2}, 6);
  gradcheck_leaves(
      [&] {
        auto [h, c] = lstm(x, std::make_tuple(h0, c0));
        return rnn(gru(h, c)).sum(1);  // three steps chained
      },
      leaves);
}

TEST(RecurrentCellLayers, PrintAndMessages) {
  std::ostringstream os;
  os << nn::LSTMCell(4, 5) << "\n"
     << nn::GRUCell(nn::GRUCellOptions(2, 3).bias(false)) << "\n"
     << nn::RNNCell(nn::RNNCellOptions(1, 2).nonlinearity(nn::RNNNonlinearity::ReLU));
  EXPECT_EQ(os.str(),
            "locus::nn::LSTMCell(4, 5)\nlocus::nn::GRUCell(2, 3, bias=false)\n"
            "locus::nn::RNNCell(1, 2, nonlinearity=kReLU)");
  nn::LSTMCell lstm(4, 5);
  EXPECT_THROW_MSG(lstm(ones({2, 3})), Error, "[LSTMCell] input has inconsistent input_size: got 3 expected 4.");
  EXPECT_THROW_MSG(lstm(ones({1, 2, 4})), Error,
                   "[LSTMCell] Expected input to be 1-D or 2-D but received 3-D tensor of shape [1, 2, 4].");
  EXPECT_THROW_MSG(lstm(ones({2, 4}), std::make_tuple(zeros({3, 5}), zeros({3, 5}))), Error,
                   "[LSTMCell] Input batch size 2 doesn't match hx[0] batch size 3.");
  EXPECT_THROW_MSG(nn::GRUCell(4, 5)(ones({2, 4}), zeros({2, 6})), Error,
                   "[GRUCell] hx has inconsistent hidden_size: got 6, expected 5.");
  EXPECT_THROW_MSG(nn::RNNCell(4, 5)(ones({4}), zeros({1, 5})), Error,
                   "[RNNCell] Expected hx to be 1-D for a 1-D input, got shape [1, 5].");
  EXPECT_THROW_MSG(nn::RNNCell(0, 5), Error, "[RNNCell] input_size and hidden_size must be positive, got 0 and 5.");
  if (device_count(kOpenCL) > 0)
    EXPECT_THROW_MSG(lstm(ones({2, 4}, device(Device("opencl:0")))), DeviceMismatchError, "opencl:0");
}

LOCUS_INSTANTIATE_DEVICES(RecurrentCells);

}  // namespace rnn_cell_test
