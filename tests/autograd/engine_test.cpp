// The autograd engine: accumulation, retain_graph, grad(), grad mode, messages, devices.
#include "autograd/gradcheck.h"
#include "autograd/record.h"

using namespace locus;

namespace engine_test {

class Engine : public testing::TestWithParam<Device> {
 protected:
  TensorOptions opts() const { return TensorOptions().device(GetParam()); }
};

TEST_P(Engine, MatchesPyTorch) {
  // Values from PyTorch 1.13:
  //   x=torch.tensor([[1.,2.],[3.,4.]],requires_grad=True); w=torch.tensor([[0.5,-1.],[2.,0.25]],requires_grad=True)
  //   b=torch.tensor([0.1,-0.2],requires_grad=True)
  //   y=F.cross_entropy(torch.tanh(x@w+b), torch.tensor([1,0])); y.backward()
  Tensor x = tensor({{1., 2.}, {3., 4.}}, opts()).requires_grad_();
  Tensor w = tensor({{0.5, -1.}, {2., 0.25}}, opts()).requires_grad_();
  Tensor b = tensor({0.1, -0.2}, opts()).requires_grad_();
  Tensor y = nn::functional::cross_entropy((x.matmul(w) + b).tanh(), tensor({1, 0}).to(GetParam()));
  y.backward();
  EXPECT_NEAR(y.item<double>(), 0.9586092829704285, 1e-5);
  std::vector<double> gx{0.2643261253833771, -0.06572406738996506, -0.00291801686398685, 0.0007295042159967124};
  std::vector<double> gw{0.00016821791359689087, -0.25548797845840454, 0.00033643582719378173, -0.5168119668960571};
  std::vector<double> gb{0.00016821791359689087, -0.261324018239975};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(values(x.grad())[i], gx[i], 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(values(w.grad())[i], gw[i], 1e-5);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(values(b.grad())[i], gb[i], 1e-5);
  EXPECT_EQ(x.grad().device(), GetParam());
}

TEST_P(Engine, EmptyTensorsStayInTheGraph) {
  // PyTorch 1.13: x = torch.randn(0, 3, requires_grad=True); w = torch.randn(3, requires_grad=True)
  //   y = ((x * w + 1).relu() - x).sum(); y.requires_grad -> True; y.backward()
  //   x.grad: zeros of shape (0, 3); w.grad: zeros of shape (3,)
  Tensor x = randn({0, 3}, opts()).requires_grad_();
  Tensor w = randn({3}, opts()).requires_grad_();
  Tensor h = x * w + 1;  // the broadcast, the scalar and the dense same-shape paths of a binary op
  EXPECT_TRUE(h.requires_grad());
  EXPECT_TRUE((x * 2).requires_grad());
  EXPECT_TRUE(h.relu().requires_grad());  // unary
  EXPECT_TRUE(where(x.gt(0), x, x * 2).requires_grad());
  Tensor y = (h.relu() - x).sum();
  ASSERT_TRUE(y.requires_grad());
  y.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(values(w.grad()), std::vector<double>({0, 0, 0}));
  EXPECT_EQ(w.grad().device(), GetParam());
}

TEST_P(Engine, AccumulatesAndRetains) {
  Tensor x = tensor({1., 2., 3.}, opts()).requires_grad_();
  Tensor y = (x * x).sum();
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");  // libtorch's names: sum() ...0, sum(dims) ...1
  EXPECT_EQ(x.sum(0).grad_fn()->name(), "SumBackward1");
  EXPECT_EQ(x.mean().grad_fn()->name(), "MeanBackward0");
  EXPECT_EQ(x.mean({0}).grad_fn()->name(), "MeanBackward1");
  y.backward({}, /*retain_graph=*/true);
  EXPECT_EQ(values(x.grad()), std::vector<double>({2, 4, 6}));
  y.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({4, 8, 12}));
  EXPECT_THROW_MSG(y.backward(), Error, "Trying to backward through the graph a second time");
}

// As PyTorch: a backward frees what the nodes saved, so only a node that saved tensors refuses a
// second pass; a graph of nodes that saved none (clone, add, views, sums) runs again.
// Anomaly detection (libtorch's DetectAnomalyGuard / AnomalyMode): backward stops at the first
// node whose gradient holds a NaN and names it; off again, the NaN flows through as usual.
TEST_P(Engine, AnomalyModeNamesTheNodeThatMadeANaN) {
  const TensorOptions o = TensorOptions().device(GetParam());
  Tensor x = tensor({0.0f, 4.0f}, o).requires_grad_();
  EXPECT_FALSE(autograd::AnomalyMode::is_enabled());
  {
    autograd::DetectAnomalyGuard guard;
    EXPECT_TRUE(autograd::AnomalyMode::is_enabled());
    Tensor y = (x.sqrt() * 0).sum();  // sqrt's gradient at 0 is inf; times 0: NaN
    EXPECT_THROW_MSG(y.backward(), Error, "Function 'SqrtBackward0' returned nan values in its 0th output.");
    Tensor fine = (x * 3).sum();
    fine.backward();  // no NaN: runs as usual
    EXPECT_EQ(values(x.grad()), (std::vector<double>{3, 3}));
  }
  EXPECT_FALSE(autograd::AnomalyMode::is_enabled());
  x.mutable_grad() = Tensor();
  (x.sqrt() * 0).sum().backward();
  EXPECT_TRUE(std::isnan(values(x.grad())[0]));
  autograd::AnomalyMode::set_enabled(true, /*check_nan=*/false);  // enabled without the NaN check
  EXPECT_NO_THROW((x.sqrt() * 0).sum().backward());
  autograd::AnomalyMode::set_enabled(false);
}

TEST_P(Engine, NodesThatSavedNothingRunAgainWithoutRetainGraph) {
  Tensor x = tensor({1., 2.}, opts()).requires_grad_();
  Tensor h = x.clone();
  Tensor y = (h + 1).view({2, 1}).t().sum();
  y.backward();
  y.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({2, 2}));
  Tensor s = (h * h).sum();  // MulBackward0 saved h
  s.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({4, 6}));
  EXPECT_THROW_MSG(s.backward(), Error, "MulBackward0: Trying to backward through the graph a second time");
  (h * 2).sum().backward();  // through h's CloneBackward0 a third time
  EXPECT_EQ(values(x.grad()), std::vector<double>({6, 8}));
}

TEST_P(Engine, SharedSubgraphAndUnusedBranches) {
  Tensor x = tensor({1., -2.}, opts()).requires_grad_();
  Tensor h = x * 3;
  Tensor y = (h * h + h).sum();  // dy/dx = 3 * (2h + 1)
  y.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({21, -33}));
  Tensor z = tensor({5.}, opts());
  Tensor u = (x.sum() * z).sum();
  x.mutable_grad() = Tensor();
  u.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({5, 5}));
  EXPECT_FALSE(z.grad().defined());
}

TEST_P(Engine, ExplicitGradient) {
  Tensor x = tensor({1., 2.}, opts()).requires_grad_();
  Tensor y = x * 2;
  y.backward(tensor({1., 10.}, opts()));
  EXPECT_EQ(values(x.grad()), std::vector<double>({2, 20}));
  Tensor y2 = x * 2;
  EXPECT_THROW_MSG(y2.backward(), Error, "grad can be implicitly created only for scalar outputs");
  EXPECT_THROW_MSG(y2.backward(tensor({1., 2., 3.}, opts())), Error, "Mismatch in shape");
}

TEST_P(Engine, GradAndHigherOrder) {
  Tensor x = tensor({1., 2.}, opts().dtype(kDouble)).requires_grad_();
  Tensor y = (x * x * x).sum();
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_EQ(values(g[0]), std::vector<double>({3, 12}));
  EXPECT_FALSE(x.grad().defined());  // grad() does not accumulate
  EXPECT_TRUE(g[0].requires_grad());
  auto gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_EQ(values(gg[0]), std::vector<double>({6, 12}));
  Tensor unused = tensor({1.}, opts()).requires_grad_();
  Tensor y2 = (x * 2).sum();
  EXPECT_THROW_MSG(autograd::grad({y2}, {unused}), Error, "appears to not have been used in the graph");
  auto r = autograd::grad({(x * 2).sum()}, {unused}, {}, std::nullopt, false, /*allow_unused=*/true);
  EXPECT_FALSE(r[0].defined());
}

TEST_P(Engine, GradModeAndDetach) {
  Tensor x = tensor({1., 2.}, opts()).requires_grad_();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(GradMode::is_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_leaf());
  }
  EXPECT_TRUE(GradMode::is_enabled());
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_alias_of(x));
  Tensor y = (x * d).sum();
  y.backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({1, 2}));
  Tensor i = tensor({1, 2}, opts());
  EXPECT_THROW_MSG(i.requires_grad_(), Error, "only tensors of floating point dtype can require gradients");
}

TEST_P(Engine, DetachInPlace) {
  // a non-leaf becomes a leaf that does not require grad, for every handle to it; the graph that
  // made it still runs backward from its other outputs
  Tensor x = tensor({1., 2.}, opts()).requires_grad_();
  Tensor h = x * 3;
  Tensor same = h;
  Tensor z = (h * 2).sum();
  EXPECT_FALSE(h.is_leaf());
  EXPECT_TRUE(&h.detach_() == &h);
  EXPECT_TRUE(h.is_leaf());
  EXPECT_FALSE(h.requires_grad());
  EXPECT_FALSE(same.requires_grad());
  EXPECT_FALSE(same.grad_fn());
  EXPECT_FALSE((h * x.detach()).requires_grad());  // nothing recorded from it any more
  z.backward();                                     // recorded before: still flows to x
  EXPECT_EQ(values(x.grad()), std::vector<double>({6, 6}));
  // a leaf that required grad stops requiring it, keeping the gradient it has
  x.detach_();
  EXPECT_FALSE(x.requires_grad());
  EXPECT_EQ(values(x.grad()), std::vector<double>({6, 6}));
  EXPECT_FALSE((x * 2).requires_grad());
  Tensor plain = tensor({1., 2.}, opts());
  EXPECT_FALSE(plain.detach_().requires_grad());  // no autograd state: nothing to do
  EXPECT_THROW_MSG(Tensor().detach_(), Error, "the tensor is undefined");
}

TEST_P(Engine, Messages) {
  Tensor x = tensor({1., 2.}, opts());
  EXPECT_THROW_MSG(x.sum().backward(), Error, "element 0 of tensors does not require grad and does not have a grad_fn");
  x.requires_grad_();
  EXPECT_THROW_MSG(x.add_(1.0), Error, "[add_] a leaf Variable that requires grad is being used in an in-place operation");
  EXPECT_THROW_MSG(x.zero_(), Error, "[fill_] a leaf Variable that requires grad");
  {
    NoGradGuard no_grad;
    x.add_(1.0);  // fine outside the graph
  }
  EXPECT_EQ(values(x), std::vector<double>({2, 3}));
}

TEST_P(Engine, MoreMessages) {
  Tensor x = tensor({1., 2.}, opts()).requires_grad_();
  Tensor y = x * 2;
  EXPECT_THROW_MSG(autograd::backward({y.sum(), y.sum()}, {ones({}, opts())}), Error,
                   "[backward] got 1 gradients for 2 tensors; pass one per tensor.");
  EXPECT_THROW_MSG(autograd::backward({Tensor()}), Error, "[backward] tensor 0 is undefined.");
  EXPECT_THROW_MSG(autograd::grad({y.sum()}, {}), Error,
                   "[grad] expected a non-empty list of inputs to differentiate with respect to.");
  Tensor z = tensor({1., 2.}, opts());
  EXPECT_THROW_MSG(autograd::grad({y.sum()}, {x, z}), Error,
                   "[grad] One of the differentiated Tensors (input 1) does not require grad; call requires_grad_(true) "
                   "on it first.");
  EXPECT_THROW_MSG(Tensor().set_data(x), Error, "[set_data] both tensors must be defined.");
  // Internal invariants of the engine, reached through the recorder ops use.
  Tensor bad = x.detach() * 3;
  autograd::record("BadBackward0", bad, {&x}, [](const Tensor& g) -> autograd::variable_list { return {g, g}; });
  EXPECT_THROW_MSG(bad.sum().backward(), Error, "BadBackward0: the backward function returned 2 gradients for 1 inputs.");
  Tensor shape = x.detach() * 3;
  autograd::record("ShapeBackward0", shape, {&x}, [](const Tensor& g) -> autograd::variable_list { return {g.sum()}; });
  EXPECT_THROW_MSG(shape.sum().backward(), Error,
                   "[AccumulateGrad] the gradient has shape [] but the tensor has shape [2].");
}

TEST_P(Engine, NoCycles) {
  std::weak_ptr<autograd::Node> fn;
  std::weak_ptr<TensorImpl> out_impl;
  {
    Tensor x = tensor({1., 2.}, opts()).requires_grad_();
    Tensor y = x.exp();  // saves its result
    fn = y.grad_fn();
    out_impl = y.impl();
  }
  EXPECT_TRUE(fn.expired());
  EXPECT_TRUE(out_impl.expired());
}

TEST_P(Engine, GradientsStayOnTheirDevice) {
  // The forward moved explicitly with .to(); the backward moves the gradient back.
  Device d = GetParam();
  Tensor x = tensor({1., 2.}).requires_grad_();  // cpu
  Tensor y = (x.to(d) * 3).sum();
  y.backward();
  EXPECT_EQ(x.grad().device(), Device(kCPU));
  EXPECT_EQ(values(x.grad()), std::vector<double>({3, 3}));
}

TEST(EngineDevices, GradientOnAnotherDeviceIsAnError) {
  std::vector<Device> devs = test_devices();
  if (devs.size() < 2) GTEST_SKIP() << "needs two devices";
  Device other = devs[1];
  Tensor x = tensor({1., 2.}).requires_grad_();
  x.mutable_grad() = zeros({2}, TensorOptions().device(other));  // bypasses set_grad's check
  EXPECT_THROW_MSG((x * 2).sum().backward(), DeviceMismatchError,
                   "[AccumulateGrad] Expected all tensors to be on the same device, but found at least two devices, "
                   "cpu and " + other.str() + "! Argument 'grad' is on " + other.str() + "; move it with .to(cpu).");
  Tensor z = tensor({1., 2.}, TensorOptions().device(other)).requires_grad_();
  EXPECT_THROW_MSG((z * 2).backward(tensor({1., 1.})), DeviceMismatchError,
                   "[backward] Expected all tensors to be on the same device, but found at least two devices, " +
                       other.str() + " and cpu! Argument 'gradient' is on cpu; move it with .to(" + other.str() + ").");
  EXPECT_THROW_MSG(x.set_grad(zeros({2}, TensorOptions().device(other))), DeviceMismatchError, "[set_grad]");
}

LOCUS_INSTANTIATE_DEVICES(Engine);

// ---- post-accumulate-grad hooks and final callbacks (what DistributedDataParallel builds on) ----
TEST(EngineHooks, PostAccumulateGradHookSeesTheAccumulatedGrad) {
  Tensor w = tensor({1., 2.}).requires_grad_();
  std::vector<std::vector<float>> seen;
  uint64_t h = autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& t) {
    EXPECT_TRUE(t.is_same(w));
    seen.push_back({t.grad()[0].item<float>(), t.grad()[1].item<float>()});
  });
  (w * w).sum().backward();         // grad 2w = (2, 4)
  (w * 3.0).sum().backward();       // accumulated: (5, 7)
  (w * w + w * w).sum().backward();  // one accumulation of the summed gradient: (9, 15)
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::vector<float>{2, 4}));
  EXPECT_EQ(seen[1], (std::vector<float>{5, 7}));
  EXPECT_EQ(seen[2], (std::vector<float>{9, 15}));
  autograd::remove_post_accumulate_grad_hook(w, h);
  (w * w).sum().backward();
  EXPECT_EQ(seen.size(), 3u);
}

TEST(EngineHooks, FinalCallbackRunsAfterEveryNodeInOrder) {
  Tensor a = tensor({1.}).requires_grad_(), b = tensor({2.}).requires_grad_();
  std::vector<std::string> log;
  autograd::register_post_accumulate_grad_hook(a, [&](const Tensor&) {
    log.push_back("a");
    autograd::queue_callback([&] {
      log.push_back("final1");
      EXPECT_TRUE(b.grad().defined()) << "final callbacks run after the whole pass";
      autograd::queue_callback([&] { log.push_back("final2"); });
    });
  });
  autograd::register_post_accumulate_grad_hook(b, [&](const Tensor&) { log.push_back("b"); });
  (a * b).sum().backward();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[2], "final1");
  EXPECT_EQ(log[3], "final2");
}

TEST(EngineHooks, Errors) {
  Tensor w = tensor({1.}).requires_grad_();
  EXPECT_THROW_MSG(autograd::register_post_accumulate_grad_hook(w * 2, [](const Tensor&) {}), Error,
                   "[register_post_accumulate_grad_hook] post accumulate grad hooks cannot be registered on non-leaf "
                   "tensors");
  EXPECT_THROW_MSG(autograd::register_post_accumulate_grad_hook(tensor({1.}), [](const Tensor&) {}), Error,
                   "tensors that do not require grad");
  EXPECT_THROW_MSG(autograd::queue_callback([] {}), Error,
                   "[queue_callback] Final callbacks can only be installed during backward pass");
  autograd::register_post_accumulate_grad_hook(w, [](const Tensor&) { throw Error("hook failed"); });
  EXPECT_THROW_MSG((w * 2).sum().backward(), Error, "hook failed");
}

}  // namespace engine_test
