// DataParallel and data_parallel: training over two devices equals training on one (losses and
// parameters after K steps), outputs and gradients equal module(input), uneven and small batches,
// scatter/gather, buffers, and the errors (naming the replica and its device).
#include "locus/nn/parallel/data_parallel.h"

#include "locus/nn.h"
#include "locus/optim.h"
#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace data_parallel_test {

namespace {

bool two_opencl() { return device_count(kOpenCL) >= 2; }

nn::Sequential make_model(Device d, uint64_t seed = 1) {
  manual_seed(seed);
  nn::Sequential m(nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 3));
  m->to(d);
  return m;
}

void expect_params_close(const nn::Module& a, const nn::Module& b, double tol) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  for (const auto& p : pa) {
    Tensor x = p.value().cpu(), y = pb[p.key()].cpu();
    EXPECT_TRUE(x.allclose(y, tol, tol)) << p.key() << "\n" << x << "\n" << y;
  }
}

/// Fails on `bad` with a DeviceMismatchError, to check how replica errors are reported.
struct FussyImpl : nn::Cloneable<FussyImpl> {
  explicit FussyImpl(Device bad) : bad(bad) { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(2, 2)); }
  Tensor forward(const Tensor& x) {
    if (x.device() == bad) throw DeviceMismatchError("[Fussy] will not run on " + bad.str() + ".");
    return fc(x);
  }
  Device bad;
  nn::Linear fc{nullptr};
};
LOCUS_MODULE(Fussy);

struct PlainImpl : nn::Module {
  PlainImpl() : nn::Module("Plain") { w = register_parameter("w", ones({2})); }
  Tensor forward(const Tensor& x) { return x * w; }
  Tensor w;
};
LOCUS_MODULE(Plain);

/// K SGD steps of the same model: once plainly on devices[0], once through DataParallel.
void train_both_ways(const std::vector<Device>& devices, int64_t batch) {
  Device home = devices.front();
  nn::Sequential ref = make_model(home), wrapped = make_model(home);
  nn::DataParallel dp(wrapped, devices);
  optim::SGD o1(ref->parameters(), optim::SGDOptions(0.1)), o2(dp->parameters(), optim::SGDOptions(0.1));
  manual_seed(7);
  Tensor x = randn({batch, 6}), y = randn({batch, 3});
  for (int step = 0; step < 3; ++step) {
    o1.zero_grad();
    Tensor l1 = F::mse_loss(ref->forward(x.to(home)), y.to(home));
    l1.backward();
    o1.step();
    o2.zero_grad();
    Tensor out = dp->forward(x);  // a cpu batch: each chunk is copied to its replica's device
    EXPECT_EQ(out.device(), home);
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{batch, 3}));
    Tensor l2 = F::mse_loss(out, y.to(home));
    l2.backward();
    o2.step();
    EXPECT_NEAR(l1.item<float>(), l2.item<float>(), 1e-5) << "step " << step;
  }
  expect_params_close(*ref, *wrapped, 1e-5);
}

}  // namespace

TEST(DataParallel, TrainingOverTwoOpenCLDevicesEqualsOneDevice) {
  if (!two_opencl()) GTEST_SKIP() << "needs opencl:0 and opencl:1 (POCL_DEVICES=\"pthread pthread\")";
  train_both_ways({Device("opencl:0"), Device("opencl:1")}, 8);
  train_both_ways({Device("opencl:1"), Device("opencl:0")}, 7);  // uneven: 4 + 3
}

TEST(DataParallel, TrainingOnOneDeviceTwiceEqualsOneDevice) {
  train_both_ways({Device("cpu"), Device("cpu")}, 6);  // a device twice: a clone beside the module
}

TEST(DataParallel, TrainingOverCpuAndOpenCLEqualsOneDevice) {
  if (device_count(kOpenCL) < 1) GTEST_SKIP() << "needs an OpenCL device";
  train_both_ways({Device("cpu"), Device("opencl:0")}, 5);  // 3 + 2
}

TEST(DataParallel, ModuleAndOptions) {
  nn::Sequential m = make_model(Device("cpu"));
  nn::DataParallel dp(m, {Device("cpu"), Device("cpu")}, Device("cpu"));
  EXPECT_EQ(dp->state_dict().keys(), std::vector<std::string>({"module.0.weight", "module.0.bias", "module.2.weight",
                                                              "module.2.bias"}));
  EXPECT_EQ(dp->parameters().size(), 4u);
  EXPECT_EQ(dp->devices().size(), 2u);
  EXPECT_EQ(dp->output_device(), Device("cpu"));
  // no devices: every device of the module's type (cpu: itself)
  nn::DataParallel alone(make_model(Device("cpu")));
  EXPECT_EQ(alone->devices(), std::vector<Device>({Device("cpu")}));
  // eval under no_grad: the output has no graph and equals the module's
  dp->eval();
  NoGradGuard no_grad;
  Tensor x = randn({5, 6});
  Tensor out = dp->forward(x);
  EXPECT_FALSE(out.requires_grad());
  EXPECT_TRUE(out.allclose(m->forward(x), 1e-6, 1e-6));
}

TEST(DataParallel, BuffersOfTheModulesOwnDeviceAreKept) {
  std::vector<std::vector<Device>> lists = {{Device("cpu"), Device("cpu")}};  // the clone gets its own buffers
  if (device_count(kOpenCL) >= 1) lists.push_back({Device("cpu"), Device("opencl:0")});
  for (const auto& devices : lists) {
    manual_seed(2);
    nn::Sequential m(nn::Linear(3, 4), nn::BatchNorm1d(4));
    nn::DataParallel dp(m, devices);
    Tensor x = randn({8, 3});
    dp->forward(x);
    dp->forward(x);
    // the replica on cpu is the module itself: its running stats saw the first half of each batch
    manual_seed(2);
    nn::Sequential ref(nn::Linear(3, 4), nn::BatchNorm1d(4));
    ref->forward(x.narrow(0, 0, 4));
    ref->forward(x.narrow(0, 0, 4));
    auto& bn = m->at<nn::BatchNorm1dImpl>(1);
    auto& rbn = ref->at<nn::BatchNorm1dImpl>(1);
    EXPECT_TRUE(bn.running_mean.allclose(rbn.running_mean, 1e-5, 1e-6)) << devices[1];
    EXPECT_TRUE(bn.running_var.allclose(rbn.running_var, 1e-5, 1e-6)) << devices[1];
    EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 2) << devices[1];
  }
}

TEST(DataParallelFunction, OutputAndGradientsEqualTheModules) {
  std::vector<Device> devs = all_devices();  // cpu, opencl:0, opencl:1 in CI
  if (devs.size() < 2) GTEST_SKIP() << "needs a second device";
  for (int64_t batch : {5, 2}) {  // 2 + 2 + 1 over three devices; 2 rows use two of them
    nn::Sequential a = make_model(Device("cpu")), b = make_model(Device("cpu"));
    manual_seed(4);
    Tensor x = randn({batch, 6});
    Tensor want = a->forward(x);
    Tensor got = nn::parallel::data_parallel(b, x, devs, Device("cpu"));
    EXPECT_EQ(got.device(), Device("cpu"));
    EXPECT_TRUE(got.allclose(want, 1e-5, 1e-6)) << got << want;
    want.pow(2).sum().backward();
    got.pow(2).sum().backward();
    expect_params_close(*a, *b, 1e-5);  // same values: check the gradients next
    auto ga = a->parameters(), gb = b->parameters();
    for (size_t i = 0; i < ga.size(); ++i) {
      ASSERT_TRUE(gb[i].grad().defined()) << i;
      EXPECT_EQ(gb[i].grad().device(), Device("cpu"));
      EXPECT_TRUE(gb[i].grad().allclose(ga[i].grad(), 1e-4, 1e-5)) << i;
    }
  }
  // one device: libtorch moves the module and the input there
  if (device_count(kOpenCL) >= 1) {
    nn::Sequential c = make_model(Device("cpu"));
    Tensor out = nn::parallel::data_parallel(c, randn({3, 6}), std::vector<Device>{Device("opencl:0")});
    EXPECT_EQ(out.device(), Device("opencl:0"));
    EXPECT_EQ(nn::device_of(*c), Device("opencl:0"));
  }
}

TEST(DataParallelFunction, ScatterAndGather) {
  std::vector<Device> devs = all_devices();
  Tensor x = arange(30, TensorOptions().dtype(kFloat)).view({3, 10});
  std::vector<Tensor> parts = nn::parallel::scatter(x, {devs.front(), devs.back(), devs.front()}, 1);
  ASSERT_EQ(parts.size(), 3u);  // ceil(10 / 3) = 4: 4 + 4 + 2
  EXPECT_EQ(parts[0].size(1), 4);
  EXPECT_EQ(parts[2].size(1), 2);
  EXPECT_EQ(parts[1].device(), devs.back());
  EXPECT_TRUE(nn::parallel::gather(parts, Device("cpu"), 1).equal(x));
  EXPECT_TRUE(nn::parallel::gather(parts, Device("cpu"), -1).equal(x));
  // per-replica scalars become a vector
  Tensor v = nn::parallel::gather({tensor(1.0f), tensor(2.0f).to(devs.back())}, Device("cpu"));
  EXPECT_EQ(values(v), (std::vector<double>{1, 2}));
}

TEST(DataParallelErrors, NameTheReplicaAndItsDevice) {
  if (!two_opencl()) GTEST_SKIP() << "needs opencl:0 and opencl:1";
  Fussy f(Device("opencl:1"));
  f->to(Device("opencl:0"));
  nn::DataParallel dp(f, {Device("opencl:0"), Device("opencl:1")});
  EXPECT_THROW_MSG(dp->forward(randn({4, 2})), DeviceMismatchError,
                   "[DataParallel] replica 1 on opencl:1: [Fussy] will not run on opencl:1.");
  Fussy g(Device("opencl:1"));
  EXPECT_THROW_MSG(nn::parallel::data_parallel(g, randn({4, 2}), std::vector<Device>{Device("cpu"), Device("opencl:1")}),
                   DeviceMismatchError, "[data_parallel] replica 1 on opencl:1: [Fussy] will not run on opencl:1.");
}

TEST(DataParallelErrors, BadArguments) {
  nn::Sequential m = make_model(Device("cpu"));
  Tensor x = randn({4, 6});
  nn::DataParallel elsewhere(m, {Device("opencl:0"), Device("cpu")});
  EXPECT_THROW_MSG(elsewhere->forward(x), DeviceMismatchError,
                   "[DataParallel] the module must have its parameters and buffers on devices[0] (opencl:0), but they "
                   "are on cpu; move it with .to(opencl:0) first.");
  nn::DataParallel missing(m, {Device("cpu"), Device("opencl:7")});
  EXPECT_THROW_MSG(missing->forward(x), NotAvailableError, "[DataParallel] ");
  EXPECT_THROW_MSG(missing->forward(x), NotAvailableError, "opencl:7");
  nn::DataParallel dp(m, {Device("cpu"), Device("cpu")});
  EXPECT_THROW_MSG(dp->forward(tensor(1.0f)), Error,
                   "[DataParallel] the input is a 0-dim tensor, which has no batch dimension to split");
  nn::DataParallel dim2(m, {Device("cpu"), Device("cpu")}, std::nullopt, 2);
  EXPECT_THROW_MSG(dim2->forward(x), Error,
                   "[DataParallel] dim 2 is out of range for an input of 2 dimensions [4, 6]: the batch is split along "
                   "dim, which must be in [-2, 1].");
  EXPECT_THROW_MSG(dp->forward(randn({0, 6})), Error, "[DataParallel] the batch (dim 0) is empty");
  EXPECT_THROW_MSG(nn::parallel::data_parallel(m, x, std::vector<Device>{}), Error,
                   "[data_parallel] devices is empty: pass at least one device, e.g. {opencl:0, opencl:1}.");
  Plain p;
  EXPECT_THROW_MSG(nn::parallel::data_parallel(p, randn({4, 2}), std::vector<Device>{Device("cpu"), Device("cpu")}),
                   Error, "[clone] clone() has not been implemented for Plain");
}

TEST(DataParallelFunction, LibtorchReplicateAndParallelApply) {
  std::vector<Device> devs = all_devices();
  nn::Sequential m = make_model(Device("cpu"));
  std::vector<std::shared_ptr<nn::SequentialImpl>> replicas = nn::parallel::replicate(m.ptr(), devs);
  ASSERT_EQ(replicas.size(), devs.size());
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < devs.size(); ++i) {
    ASSERT_TRUE(replicas[i]);
    EXPECT_EQ(nn::device_of(*replicas[i]), devs[i]);
    inputs.push_back(randn({2, 6}).to(devs[i]));
  }
  std::vector<Tensor> outs = nn::parallel::parallel_apply(replicas, inputs);
  for (size_t i = 0; i < devs.size(); ++i) {
    EXPECT_EQ(outs[i].device(), devs[i]);
    EXPECT_TRUE(outs[i].cpu().allclose(m->forward(inputs[i].cpu()), 1e-5, 1e-6)) << devs[i];
    outs[i].sum().backward();  // each replica's gradient reaches the original on cpu
  }
  nn::Sequential ref = make_model(Device("cpu"));  // the same inputs through one model: the same summed gradients
  for (const Tensor& x : inputs) ref->forward(x.cpu()).sum().backward();
  auto pm = m->parameters(), pr = ref->parameters();
  for (size_t i = 0; i < pm.size(); ++i) {
    ASSERT_TRUE(pm[i].grad().defined());
    EXPECT_EQ(pm[i].grad().device(), Device("cpu"));
    EXPECT_TRUE(pm[i].grad().allclose(pr[i].grad(), 1e-4, 1e-5)) << i;
  }
  EXPECT_THROW_MSG(nn::parallel::parallel_apply(replicas, {inputs[0]}), Error,
                   "[parallel_apply] got " + std::to_string(devs.size()) + " modules, 1 inputs and 1 devices; pass "
                   "one input and one device per module.");
}

}  // namespace data_parallel_test
