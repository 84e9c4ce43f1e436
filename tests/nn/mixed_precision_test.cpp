// Mixed precision: modules moved to float16 / bfloat16 run forward, backward and optimizer steps
// on every device, with float32 accumulation inside reductions, GEMM and convolutions.
#include <cmath>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace mixed_precision_test {

class MixedPrecision : public testing::TestWithParam<std::tuple<Device, ScalarType>> {
 protected:
  Device device() const { return std::get<0>(GetParam()); }
  ScalarType dtype() const { return std::get<1>(GetParam()); }
  // Relative precision of the reduced type (float16: 10 mantissa bits, bfloat16: 7).
  double tol() const { return dtype() == kHalf ? 2e-3 : 1.6e-2; }
};

TEST_P(MixedPrecision, AccumulatesInFloat32) {
  // 4096 ones: a float16 accumulator would stop at 2048 (2048 + 1 rounds back to 2048); a
  // bfloat16 one at 256.
  TensorOptions o = TensorOptions().device(device()).dtype(dtype());
  EXPECT_EQ(ones({4096}, o).sum().item<double>(), 4096);
  EXPECT_EQ(ones({4, 4096}, o).mean({1}).sum().item<double>(), 4);
  EXPECT_EQ(ones({1, 4096}, o).mm(ones({4096, 1}, o)).item<double>(), 4096);
  Tensor conv = F::conv2d(ones({1, 16, 16, 16}, o), ones({1, 16, 16, 16}, o));  // 4096 products per output
  EXPECT_EQ(conv.scalar_type(), dtype());
  EXPECT_EQ(values(conv)[0], 4096);
  // softmax of logits whose exp overflows the type: computed in float32, stable
  Tensor p = tensor({100.0, 101.0, 99.0}, o).softmax(0);
  EXPECT_EQ(p.scalar_type(), dtype());
  EXPECT_NEAR(values(p)[1], 0.6652409557748219, tol());
}

TEST_P(MixedPrecision, ModuleToReducedTypeTrains) {
  Device d = device();
  manual_seed(2);
  nn::Sequential ref(nn::Linear(8, 16), nn::LayerNorm(nn::LayerNormOptions({16})), nn::GELU(), nn::Linear(16, 4));
  manual_seed(2);
  nn::Sequential model(nn::Linear(8, 16), nn::LayerNorm(nn::LayerNormOptions({16})), nn::GELU(), nn::Linear(16, 4));
  Tensor w = model->parameters()[0];
  nn::Module& same = dtype() == kHalf ? model->to(kFloat16).to(d) : model->to(d, kBFloat16);
  EXPECT_EQ(&same, model.get());
  EXPECT_TRUE(w.is_same(model->parameters()[0]));
  for (const auto& p : model->named_parameters()) {
    EXPECT_EQ(p.value().scalar_type(), dtype()) << p.key();
    EXPECT_EQ(p.value().device(), d) << p.key();
  }
  manual_seed(3);
  Tensor x = randn({32, 8}), y = randint(4, {32});
  // the forward agrees with float32 to the type's precision
  Tensor out = model(x.to(d, dtype()));
  EXPECT_EQ(out.scalar_type(), dtype());
  auto got = values(out), want = values(ref(x));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 8 * tol() * std::max(1.0, std::abs(want[i]))) << i;
  // and it trains: gradients in the parameter's type on its device, loss going down
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.2).momentum(0.9));
  Tensor xd = x.to(d, dtype()), yd = y.to(d);
  double first = 0, last = 0;
  for (int i = 0; i < 30; ++i) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(model(xd), yd);
    EXPECT_EQ(loss.scalar_type(), dtype());
    loss.backward();
    EXPECT_EQ(w.grad().scalar_type(), dtype());
    EXPECT_EQ(w.grad().device(), d);
    opt.step();
    (i == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, 0.5 * first);
}

TEST_P(MixedPrecision, CnnWithBatchNormAndAdam) {
  Device d = device();
  manual_seed(5);
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::ReLU(),
                     nn::MaxPool2d(2), nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(4, 2));
  cnn->to(d, dtype());
  for (const auto& b : cnn->named_buffers())
    EXPECT_EQ(b.value().scalar_type(), b.key().find("num_batches") != std::string::npos ? kLong : dtype()) << b.key();
  optim::Adam opt(cnn->parameters(), optim::AdamOptions(0.05).eps(dtype() == kHalf ? 1e-4 : 1e-8));
  manual_seed(6);
  Tensor x = randn({8, 1, 6, 6}).to(d, dtype());
  Tensor y = (x.mean({1, 2, 3}) > 0).to(kLong);
  double first = 0, last = 0;
  for (int i = 0; i < 60; ++i) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(cnn(x), y);
    loss.backward();
    opt.step();
    (i == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_EQ(opt.state_dict()["state.0.exp_avg"].scalar_type(), dtype());
  EXPECT_EQ(opt.state_dict()["state.0.exp_avg"].device(), d);
  EXPECT_LT(last, 0.5 * first);
  NoGradGuard no_grad;
  EXPECT_EQ(cnn(x).argmax(1).eq(y).to(kFloat).mean().item<double>(), 1.0);  // batch statistics
  cnn->eval();
  Tensor out = cnn(x);  // running statistics, in the reduced type
  EXPECT_EQ(out.scalar_type(), dtype());
  EXPECT_TRUE(out.abs().max().to(kFloat).item<double>() < 1e3);
}

namespace {
std::vector<std::tuple<Device, ScalarType>> cases() {
  std::vector<std::tuple<Device, ScalarType>> out;
  for (Device d : test_devices())
    for (ScalarType t : {kHalf, kBFloat16}) out.emplace_back(d, t);
  return out;
}
std::string case_name(const testing::TestParamInfo<std::tuple<Device, ScalarType>>& info) {
  std::string s = std::get<0>(info.param).str() + "_" + (std::get<1>(info.param) == kHalf ? "float16" : "bfloat16");
  for (char& c : s)
    if (c == ':') c = '_';
  return s;
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(AllDevices, MixedPrecision, testing::ValuesIn(cases()), case_name);

}  // namespace mixed_precision_test
