// nn::Module: registration and keys, moving between devices, placement, mismatch messages, modes.
#include <cmath>
#include <sstream>

#include "testing.h"

using namespace locus;

namespace {
struct NetImpl : nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", nn::Linear(4, 3));
    bn = register_module("bn", nn::BatchNorm1d(3));
    fc2 = register_module("fc2", nn::Linear(nn::LinearOptions(3, 2).bias(false)));
    scale = register_parameter("scale", ones({1}));
    register_buffer("steps", zeros({}, TensorOptions().dtype(kLong)));
  }
  Tensor forward(const Tensor& x) { return fc2(bn(fc1(x)).relu()) * scale; }
  nn::Linear fc1{nullptr}, fc2{nullptr};
  nn::BatchNorm1d bn{nullptr};
  Tensor scale;
};
LOCUS_MODULE(Net);
}  // namespace

TEST(Module, NamedParametersAndBuffers) {
  Net net;
  EXPECT_EQ(net->named_parameters().keys(),
            std::vector<std::string>({"scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight"}));
  EXPECT_EQ(net->named_buffers().keys(), std::vector<std::string>({"steps", "bn.running_mean", "bn.running_var",
                                                                   "bn.num_batches_tracked"}));
  EXPECT_EQ(net->parameters().size(), 6u);
  EXPECT_EQ(net->children().size(), 3u);
  EXPECT_EQ(net->modules().size(), 4u);
  EXPECT_EQ(net->named_modules().keys(), std::vector<std::string>({"", "fc1", "bn", "fc2"}));
  nn::Sequential seq(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 1));
  EXPECT_EQ(seq->named_parameters().keys(), std::vector<std::string>({"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_TRUE(net->fc1->weight.requires_grad());
  EXPECT_TRUE(net->fc1->weight.is_leaf());
  EXPECT_THROW_MSG(net->register_parameter("a.b", ones({1})), Error, "must not contain a dot (got 'a.b')");
  EXPECT_THROW_MSG(net->register_parameter("scale", ones({1})), Error, "Parameter 'scale' already defined");
}

TEST(Module, KaimingUniformInitAsPyTorch) {
  manual_seed(0);
  nn::Linear fc(100, 50);
  double bound = 1.0 / std::sqrt(100.0);
  EXPECT_LE(fc->weight.abs().max().item<double>(), bound);
  EXPECT_GT(fc->weight.abs().max().item<double>(), 0.9 * bound);
  EXPECT_LE(fc->bias.abs().max().item<double>(), bound);
  EXPECT_NEAR(fc->weight.mean().item<double>(), 0.0, 0.01);
}

TEST(Module, PrettyPrint) {
  nn::Sequential seq(nn::Linear(784, 256), nn::ReLU(), nn::Dropout(0.2), nn::Linear(256, 10));
  std::ostringstream os;
  os << seq;
  EXPECT_EQ(os.str(),
            "locus::nn::Sequential(\n"
            "  (0): locus::nn::Linear(in_features=784, out_features=256, bias=true)\n"
            "  (1): locus::nn::ReLU()\n"
            "  (2): locus::nn::Dropout(p=0.2, inplace=false)\n"
            "  (3): locus::nn::Linear(in_features=256, out_features=10, bias=true)\n"
            ")");
  EXPECT_EQ(seq->name(), "locus::nn::Sequential");
}

TEST(Module, TrainEval) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->bn->is_training());
  net->train();
  EXPECT_TRUE(net->fc2->is_training());
}

TEST(Module, ZeroGrad) {
  nn::Linear fc(2, 1);
  fc(ones({3, 2})).sum().backward();
  EXPECT_TRUE(fc->weight.grad().defined());
  fc->zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(values(fc->weight.grad()), std::vector<double>({0, 0}));
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
}

class ModuleDevices : public testing::TestWithParam<Device> {};

TEST_P(ModuleDevices, ToMovesInPlaceKeepingIdentity) {
  Device d = GetParam();
  Net net;
  net->forward(ones({5, 4})).sum().backward();
  Tensor w = net->fc1->weight;  // a handle, as an optimizer holds
  TensorImpl* impl = w.unsafeGetTensorImpl();
  nn::Module& same = net->to(d);
  EXPECT_EQ(&same, net.get());
  for (const auto& p : net->named_parameters()) {
    EXPECT_EQ(p.value().device(), d) << p.key();
    EXPECT_EQ(p.value().grad().device(), d) << p.key();
  }
  for (const auto& b : net->named_buffers()) EXPECT_EQ(b.value().device(), d) << b.key();
  EXPECT_EQ(w.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(w.device(), d);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(nn::device_of(net), d);
  net->to(kDouble);
  EXPECT_EQ(net->fc1->weight.scalar_type(), kDouble);
  EXPECT_EQ(net->fc1->weight.grad().scalar_type(), kDouble);
  EXPECT_EQ(net->bn->num_batches_tracked.scalar_type(), kLong);  // integer buffers keep their dtype
  Tensor out = net->forward(ones({5, 4}, TensorOptions().device(d).dtype(kDouble)));
  EXPECT_EQ(out.device(), d);
}

TEST_P(ModuleDevices, BuiltDirectlyOnTheDevice) {
  Device d = GetParam();
  {
    DefaultDeviceGuard guard(d);
    nn::Linear fc(3, 2);
    EXPECT_EQ(fc->weight.device(), d);
    EXPECT_EQ(nn::device_of(fc), d);
  }
  nn::Linear fc(nn::LinearOptions(3, 2).device(d));
  EXPECT_EQ(fc->bias.device(), d);
  nn::Conv2d conv(nn::Conv2dOptions(1, 2, 3).device(d));
  EXPECT_EQ(conv->weight.device(), d);
}

TEST_P(ModuleDevices, SameSeedSameParametersAsCpu) {
  Device d = GetParam();
  manual_seed(7);
  nn::Sequential a(nn::Linear(5, 4), nn::ReLU(), nn::Linear(4, 3));
  manual_seed(7);
  nn::Sequential b(nn::Linear(nn::LinearOptions(5, 4).device(d)), nn::ReLU(), nn::Linear(nn::LinearOptions(4, 3).device(d)));
  auto pa = a->parameters(), pb = b->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(values(pa[i]), values(pb[i])) << i;
  // one training step on each gives the same parameters within float tolerance
  Tensor x = randn({6, 5}), y = tensor({0, 1, 2, 0, 1, 2});
  optim::SGD oa(a->parameters(), optim::SGDOptions(0.5)), ob(b->parameters(), optim::SGDOptions(0.5));
  nn::functional::cross_entropy(a(x), y).backward();
  oa.step();
  nn::functional::cross_entropy(b(x.to(d)), y.to(d)).backward();
  ob.step();
  for (size_t i = 0; i < pa.size(); ++i) {
    auto va = values(pa[i]), vb = values(pb[i]);
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], 1e-5);
  }
}

LOCUS_INSTANTIATE_DEVICES(ModuleDevices);

TEST(ModuleMismatch, NamesThePathAndBothDevices) {
  std::vector<Device> devs = test_devices();
  if (devs.size() < 2) GTEST_SKIP() << "needs two devices";
  Device d = devs[1];
  nn::Sequential model(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  model->to(d);
  Tensor x = ones({2, 784});
  EXPECT_THROW_MSG(model->forward(x), DeviceMismatchError,
                   "Sequential/0 (Linear 784->256): weight is on " + d.str() +
                       " but input is on cpu; move the input with .to(" + d.str() + ")");
  nn::Linear alone(3, 2);
  EXPECT_THROW_MSG(alone(ones({1, 3}, TensorOptions().device(d))), DeviceMismatchError,
                   "Linear 3->2: weight is on cpu but input is on " + d.str() + "; move the input with .to(cpu)");
  Net net;
  net->fc2->to(d);
  EXPECT_THROW_MSG(nn::device_of(net), DeviceMismatchError,
                   "device_of(): Net is split across devices: scale is on cpu but fc2.weight is on " + d.str());
  EXPECT_THROW_MSG(net->forward(ones({5, 4})), DeviceMismatchError,
                   "Net/fc2 (Linear 3->2): weight is on " + d.str() + " but input is on cpu");
}
