// Model parallelism by hand (examples/model_parallel.cpp's pattern): a model whose halves live on
// two devices, with .to() between them, trains exactly as the same model on one device; each
// gradient lands on its own parameter's device.
#include "locus/nn.h"
#include "locus/optim.h"
#include "testing.h"

using namespace locus;

namespace model_parallel_test {

namespace {

struct TwoHalvesImpl : nn::Module {
  TwoHalvesImpl(Device first, Device second) : nn::Module("TwoHalves"), first(first), second(second) {
    front = register_module("front", nn::Sequential(nn::Linear(5, 8), nn::Tanh()));
    back = register_module("back", nn::Sequential(nn::Linear(8, 3)));
    front->to(first);
    back->to(second);
  }
  Tensor forward(const Tensor& x) { return back->forward(front->forward(x.to(first)).to(second)); }
  Device first, second;
  nn::Sequential front{nullptr}, back{nullptr};
};
LOCUS_MODULE(TwoHalves);

std::vector<double> train(TwoHalves& model, int steps) {
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.2).momentum(0.9));
  manual_seed(9);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    Tensor x = randn({6, 5}), y = randint(0, 3, {6}, TensorOptions().dtype(kLong));
    opt.zero_grad();
    Tensor loss = nn::functional::cross_entropy(model->forward(x), y.to(model->second));
    loss.backward();
    opt.step();
    losses.push_back(loss.item<float>());
  }
  return losses;
}

void split_equals_whole(Device first, Device second) {
  SCOPED_TRACE(first.str() + " + " + second.str());
  manual_seed(0);
  TwoHalves split(first, second);
  manual_seed(0);
  TwoHalves whole(second, second);
  std::vector<double> ls = train(split, 4), lw = train(whole, 4);
  for (size_t i = 0; i < ls.size(); ++i) EXPECT_NEAR(ls[i], lw[i], 1e-5) << "step " << i;
  for (const auto& p : split->named_parameters()) {
    EXPECT_EQ(p.value().grad().device(), p.value().device()) << p.key();
    EXPECT_TRUE(p.value().cpu().allclose(whole->named_parameters()[p.key()].cpu(), 1e-5, 1e-6)) << p.key();
  }
  EXPECT_EQ(nn::device_of(*split->front), first);
  EXPECT_EQ(nn::device_of(*split->back), second);
}

}  // namespace

TEST(ModelParallel, SplitModelTrainsAsOnOneDevice) {
  split_equals_whole(Device("cpu"), Device("cpu"));
  if (device_count(kOpenCL) >= 1) split_equals_whole(Device("cpu"), Device("opencl:0"));
  if (device_count(kOpenCL) >= 2) split_equals_whole(Device("opencl:0"), Device("opencl:1"));
}

TEST(ModelParallel, ForgettingTheMoveIsADeviceMismatch) {
  if (device_count(kOpenCL) < 1) GTEST_SKIP() << "needs an OpenCL device";
  manual_seed(0);
  TwoHalves split(Device("cpu"), Device("opencl:0"));
  Tensor hidden = split->front->forward(randn({2, 5}));
  // the second half called with the first half's output, without .to(): the layer's message
  EXPECT_THROW_MSG(split->back->forward(hidden), DeviceMismatchError,
                   "weight is on opencl:0 but input is on cpu; move the input with .to(opencl:0)");
}

}  // namespace model_parallel_test
