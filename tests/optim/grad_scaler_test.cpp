// amp::GradScaler (src/optim/grad_scaler.cpp) on every device: PyTorch's torch.amp.GradScaler
// semantics, and the same numbers on every device.
#include <algorithm>
#include <cmath>
#include <limits>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace grad_scaler_test {

namespace {

struct TrainRun {
  std::vector<double> scales;     // get_scale() after each update
  std::vector<double> weights;    // the first layer's weights at the end
  int64_t skipped = 0;
};

// A small MLP trained with the scaler for `steps` steps; at the steps in `poison` one gradient
// element is set to inf (or NaN) after backward, as an overflow in float16 would.
TrainRun train(Device d, int steps, const std::vector<int>& poison, amp::GradScalerOptions o = {}, bool bf16 = true) {
  manual_seed(7);
  nn::Sequential model(nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 3));
  model->to(d);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
  amp::GradScaler scaler(o);
  manual_seed(8);
  Tensor x = randn({16, 6}).to(d), y = randint(3, {16}, TensorOptions().dtype(kLong)).to(d);
  TrainRun r;
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss;
    {
      autocast::AutocastGuard ac(d.type(), kBFloat16, /*enabled=*/bf16);
      loss = F::cross_entropy(model->forward(x), y);
    }
    scaler.scale(loss).backward();
    if (std::find(poison.begin(), poison.end(), s) != poison.end()) {
      Tensor g = model->parameters()[2].grad();
      g.view({-1}).narrow(0, 3, 1).fill_(s % 2 ? std::numeric_limits<double>::quiet_NaN()
                                             : std::numeric_limits<double>::infinity());
    }
    scaler.step(opt);
    scaler.update();
    r.scales.push_back(scaler.get_scale());
  }
  r.weights = values(model->parameters()[0]);
  r.skipped = scaler.skipped_steps();
  return r;
}

}  // namespace

class GradScalerTest : public testing::TestWithParam<Device> {};

TEST_P(GradScalerTest, InfSkipsTheStepAndBacksOff) {
  Device d = GetParam();
  manual_seed(1);
  nn::Linear lin(4, 2);
  lin->to(d);
  optim::SGD opt(lin->parameters(), optim::SGDOptions(0.5));
  amp::GradScaler scaler;
  EXPECT_EQ(scaler.get_scale(), 65536.0);
  Tensor loss = lin->forward(ones({3, 4}, device(d))).sum();
  Tensor scaled = scaler.scale(loss);
  EXPECT_EQ(scaled.item<double>(), loss.item<double>() * 65536.0);
  scaled.backward();
  std::vector<double> before = values(lin->weight);
  lin->bias.grad().view({-1}).narrow(0, 1, 1).fill_(std::numeric_limits<double>::infinity());
  EXPECT_FALSE(scaler.step(opt).defined());  // skipped
  EXPECT_EQ(values(lin->weight), before);    // parameters unchanged
  EXPECT_EQ(scaler.skipped_steps(), 1);
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32768.0);
  // the unscale still ran on every gradient: weight grads are the plain gradients (3 ones per row)
  for (double g : values(lin->weight.grad())) EXPECT_EQ(g, 3.0);
  // a clean step then applies, with the unscaled gradient
  opt.zero_grad();
  scaler.scale(lin->forward(ones({3, 4}, device(d))).sum()).backward();
  scaler.step(opt);
  scaler.update();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_FLOAT_EQ(values(lin->weight)[i], before[i] - 0.5 * 3.0);
  EXPECT_EQ(scaler.get_scale(), 32768.0);
}

TEST_P(GradScalerTest, GrowsAfterGrowthIntervalCleanSteps) {
  TrainRun r = train(GetParam(), 7, {}, amp::GradScalerOptions().init_scale(1024).growth_interval(3));
  EXPECT_EQ(r.scales, (std::vector<double>{1024, 1024, 2048, 2048, 2048, 4096, 4096}));
  EXPECT_EQ(r.skipped, 0);
  // an inf (step 1) and a NaN (step 4) each back off and restart the growth count
  TrainRun p = train(GetParam(), 8, {1, 4}, amp::GradScalerOptions().init_scale(1024).growth_interval(3));
  EXPECT_EQ(p.scales, (std::vector<double>{1024, 512, 512, 512, 256, 256, 256, 512}));
  EXPECT_EQ(p.skipped, 2);
}

TEST_P(GradScalerTest, SameResultsAsOnCpu) {
  Device d = GetParam();
  std::vector<int> poison = {2, 5};
  // float32 forward: the devices' float32 sums agree to rounding, so the weights can be compared
  TrainRun here = train(d, 10, poison, {}, false), cpu = train(Device(kCPU), 10, poison, {}, false);
  EXPECT_EQ(here.scales, cpu.scales);
  EXPECT_EQ(here.skipped, 2);
  ASSERT_EQ(here.weights.size(), cpu.weights.size());
  for (size_t i = 0; i < here.weights.size(); ++i) EXPECT_NEAR(here.weights[i], cpu.weights[i], 1e-5) << i;
}

TEST_P(GradScalerTest, StateRoundTrips) {
  Device d = GetParam();
  amp::GradScaler a(amp::GradScalerOptions().init_scale(256).growth_interval(5).growth_factor(4).backoff_factor(0.25));
  nn::Linear lin(2, 1);
  lin->to(d);
  optim::SGD opt(lin->parameters(), optim::SGDOptions(0.1));
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    a.scale(lin->forward(ones({1, 2}, device(d))).sum()).backward();
    a.step(opt);
    a.update();
  }
  auto sd = a.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "growth_factor", "backoff_factor", "growth_interval",
                                                 "_growth_tracker"}));
  EXPECT_EQ(sd["_growth_tracker"].item<int64_t>(), 3);
  amp::GradScaler b;
  b.load_state_dict(sd);
  EXPECT_EQ(b.get_scale(), 256.0);
  EXPECT_EQ(b.get_growth_factor(), 4.0);
  EXPECT_EQ(b.get_backoff_factor(), 0.25);
  EXPECT_EQ(b.get_growth_interval(), 5);
  // both grow at the same step: the tracker came along
  for (amp::GradScaler* s : {&a, &b}) {
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      s->scale(lin->forward(ones({1, 2}, device(d))).sum()).backward();
      s->step(opt);
      s->update();
    }
  }
  EXPECT_EQ(a.get_scale(), 1024.0);
  EXPECT_EQ(b.get_scale(), 1024.0);
  EXPECT_THROW_MSG(b.load_state_dict(OrderedDict<std::string, Tensor>()), Error,
                   "[GradScaler::load_state_dict] The source state dict is empty, possibly because it was saved "
                   "from a disabled instance of GradScaler.");
  OrderedDict<std::string, Tensor> partial;
  partial.insert("scale", full({}, 2.0, TensorOptions().dtype(kDouble)));
  EXPECT_THROW_MSG(b.load_state_dict(partial), Error,
                   "[GradScaler::load_state_dict] the state dict has no scalar \"growth_factor\"; expected the keys");
  // a disabled scaler: pass-through, empty state, scale 1
  amp::GradScaler off(amp::GradScalerOptions().enabled(false));
  Tensor loss = full({}, 3.0, device(d));
  EXPECT_TRUE(off.scale(loss).is_same(loss));
  EXPECT_TRUE(off.state_dict().is_empty());
  EXPECT_EQ(off.get_scale(), 1.0);
}

TEST_P(GradScalerTest, MisuseIsRefusedWithPyTorchsMessages) {
  Device d = GetParam();
  nn::Linear lin(2, 1);
  lin->to(d);
  optim::SGD opt(lin->parameters(), optim::SGDOptions(0.1));
  {
    amp::GradScaler none;
    EXPECT_THROW_MSG(none.update(), Error,
                     "[GradScaler::update] No inf checks were recorded prior to update(). Call step() (or unscale_()) "
                     "on an optimizer first.");
    EXPECT_THROW_MSG(none.step(opt), Error,
                     "[GradScaler::step] No inf checks were recorded for this optimizer: none of its parameters has "
                     "a gradient. Call backward() on scale(loss) before step().");
  }
  amp::GradScaler s;
  s.scale(lin->forward(ones({1, 2}, device(d))).sum()).backward();
  s.unscale_(opt);
  EXPECT_THROW_MSG(s.unscale_(opt), Error,
                   "[GradScaler::unscale_] unscale_() has already been called on this optimizer since the last "
                   "update(). Call it at most once per step, before step().");
  s.step(opt);
  EXPECT_THROW_MSG(s.step(opt), Error,
                   "[GradScaler::step] step() has already been called since the last update(). Call update() first.");
  EXPECT_THROW_MSG(s.unscale_(opt), Error,
                   "[GradScaler::unscale_] unscale_() is being called after step(). Call update() first.");
  s.update();
  s.update(8.0);  // an explicit new scale
  EXPECT_EQ(s.get_scale(), 8.0);
  // float16 gradients: refused, as PyTorch's "Attempting to unscale FP16 gradients."
  lin->to(kHalf);
  opt.zero_grad();
  s.scale(lin->forward(ones({1, 2}, device(d).dtype(kHalf))).sum()).backward();
  EXPECT_THROW_MSG(s.unscale_(opt), Error, "[GradScaler::unscale_] Attempting to unscale FP16 gradients.");
  EXPECT_THROW_MSG(amp::GradScaler(amp::GradScalerOptions().growth_factor(1.0)), Error,
                   "GradScaler: growth_factor must be > 1.0, got 1.000000. Use GradScalerOptions().growth_factor(2.0).");
  EXPECT_THROW_MSG(amp::GradScaler(amp::GradScalerOptions().backoff_factor(1.5)), Error,
                   "GradScaler: backoff_factor must be < 1.0, got 1.500000.");
  EXPECT_THROW_MSG(amp::GradScaler(amp::GradScalerOptions().growth_interval(0)), Error,
                   "GradScaler: growth_interval must be positive, got 0.");
}

LOCUS_INSTANTIATE_DEVICES(GradScalerTest);

// One optimizer over parameters on every device (model parallel): one fused pass per device, and
// an inf on any one device skips the whole step.
TEST(GradScalerDevices, InfOnAnyDeviceSkipsTheStep) {
  std::vector<Device> devs = test_devices();
  std::vector<nn::Linear> layers;
  std::vector<Tensor> params;
  for (const Device& d : devs) {
    layers.emplace_back(3, 3);
    layers.back()->to(d);
    for (const Tensor& p : layers.back()->parameters()) params.push_back(p);
  }
  optim::SGD opt(params, optim::SGDOptions(0.1));
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(8));
  for (size_t poisoned = 0; poisoned <= devs.size(); ++poisoned) {  // == size: none poisoned
    opt.zero_grad();
    for (size_t i = 0; i < devs.size(); ++i)
      scaler.scale(layers[i]->forward(ones({2, 3}, device(devs[i]))).sum()).backward();
    std::vector<std::vector<double>> before;
    for (const Tensor& p : params) before.push_back(values(p));
    if (poisoned < devs.size())
      layers[poisoned]->weight.grad().view({-1}).narrow(0, 4, 1).fill_(std::numeric_limits<double>::infinity());
    double scale = scaler.get_scale();
    scaler.step(opt);
    scaler.update();
    bool skipped = poisoned < devs.size();
    EXPECT_EQ(scaler.get_scale(), skipped ? scale / 2 : scale) << poisoned;
    for (size_t k = 0; k < params.size(); ++k) {
      if (skipped) EXPECT_EQ(values(params[k]), before[k]) << "poisoned " << poisoned << ", param " << k;
      else EXPECT_NE(values(params[k]), before[k]) << k;
    }
    // unscaled on every device: a weight's gradient is the sum of its 2 input rows of ones
    for (size_t i = 0; i < devs.size(); ++i)
      if (i != poisoned) EXPECT_EQ(values(layers[i]->weight.grad()), std::vector<double>(9, 2.0)) << devs[i];
  }
  EXPECT_EQ(scaler.skipped_steps(), static_cast<int64_t>(devs.size()));
}

}  // namespace grad_scaler_test
