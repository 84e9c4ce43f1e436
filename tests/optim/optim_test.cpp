// Optimizers against PyTorch 1.13, on every device; state follows moved parameters.
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace optim_test {

class Optim : public testing::TestWithParam<Device> {};

namespace {
// Three steps on loss = sum(p * p * [1, 2, 3]) + sum(p) from p = [1, -2, 3]. Expected values from
// PyTorch 1.13:
//   p = torch.tensor([1.0, -2.0, 3.0], requires_grad=True); o = torch.optim.<Opt>([p], ...)
//   for i in range(3): o.zero_grad(); ((p*p*torch.tensor([1.,2.,3.])).sum() + p.sum()).backward(); o.step()
template <class Opt, class Options>
std::vector<double> run(Device d, Options options) {
  Tensor p = tensor({1.0, -2.0, 3.0}, TensorOptions().device(d)).requires_grad_();
  Tensor c = tensor({1., 2., 3.}, TensorOptions().device(d));
  Opt opt(std::vector<Tensor>{p}, options);
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    ((p * p * c).sum() + p.sum()).backward();
    opt.step();
  }
  EXPECT_EQ(p.device(), d);
  return values(p);
}
void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-5) << i;
}
}  // namespace

TEST_P(Optim, SGD) {
  Device d = GetParam();
  expect_near(run<optim::SGD>(d, optim::SGDOptions(0.1)), {0.268, -0.628, 0.036});
  expect_near(run<optim::SGD>(d, optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).weight_decay(0.01)),
              {-0.3552509, 0.6353213, -2.8428624});
  expect_near(run<optim::SGD>(d, optim::SGDOptions(0.1).momentum(0.9).nesterov(true)), {-0.662528, 0.5082679, -1.129536});
}

TEST_P(Optim, AdamFusedEqualsComposed) {
  // A backend may update dense tensors in one pass (cpu does); a strided gradient takes the
  // composed path. Both must give the same parameters and state.
  Device d = GetParam();
  manual_seed(4);
  Tensor start = randn({16, 8}), grad_t = randn({8, 16});
  auto steps = [&](bool strided, auto make) {
    Tensor p = start.to(d).clone().requires_grad_();
    auto opt = make(p);
    for (int i = 0; i < 3; ++i) {
      Tensor g = (grad_t.to(d) * (i + 1)).t();  // non-contiguous
      p.set_grad(strided ? g : g.contiguous());
      opt.step();
    }
    std::vector<double> out = values(p);
    for (const auto& s : opt.state_dict()) {
      if (s.value().numel() < 2) continue;
      auto v = values(s.value());
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  };
  auto adam = [](Tensor p) { return optim::Adam(std::vector<Tensor>{p}, optim::AdamOptions(0.05).weight_decay(0.1).amsgrad(true)); };
  auto adamw = [](Tensor p) { return optim::AdamW(std::vector<Tensor>{p}, optim::AdamWOptions(0.05).weight_decay(0.1)); };
  for (int which = 0; which < 2; ++which) {
    auto a = which == 0 ? steps(false, adam) : steps(false, adamw);
    auto b = which == 0 ? steps(true, adam) : steps(true, adamw);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 16u * 8u);  // the parameter and its state tensors
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::max(1.0, std::abs(b[i]))) << which << " " << i;
  }
}

TEST_P(Optim, Adam) {
  Device d = GetParam();
  expect_near(run<optim::Adam>(d, optim::AdamOptions(0.1)), {0.7009028, -1.7007383, 2.7003582});
  expect_near(run<optim::Adam>(d, optim::AdamOptions(0.1).weight_decay(0.1).amsgrad(true)),
              {0.7009223, -1.7007351, 2.7003586});
  expect_near(run<optim::AdamW>(d, optim::AdamWOptions(0.1)), {0.698217, -1.695063, 2.6916792});
}

TEST_P(Optim, StateLivesOnTheParameterDevice) {
  Tensor p = tensor({1.0, 2.0}, TensorOptions().device(GetParam())).requires_grad_();
  optim::Adam opt(std::vector<Tensor>{p}, optim::AdamOptions(0.01));
  (p * p).sum().backward();
  opt.step();
  auto sd = opt.state_dict();
  EXPECT_EQ(sd["state.0.exp_avg"].device(), GetParam());
  EXPECT_EQ(sd["state.0.step"].item<int64_t>(), 1);
  EXPECT_DOUBLE_EQ(sd["param_groups.0.lr"].item<double>(), 0.01);
  opt.zero_grad();
  EXPECT_FALSE(p.grad().defined());  // set to none, as PyTorch 2
  (p * p).sum().backward();
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(values(p.grad()), std::vector<double>({0, 0}));
}

TEST_P(Optim, FollowsAModuleMovedAfterItWasBuilt) {
  manual_seed(1);
  nn::Linear model(3, 2);
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.1));
  auto step = [&](Device d) {
    opt.zero_grad();
    Tensor x = ones({4, 3}, TensorOptions().device(d));
    model->forward(x).pow(2).sum().backward();
    opt.step();
  };
  step(Device(kCPU));
  Tensor before = model->weight.cpu().clone();
  model->to(GetParam());
  step(GetParam());
  EXPECT_EQ(model->weight.device(), GetParam());
  EXPECT_EQ(opt.state_dict()["state.0.exp_avg"].device(), GetParam());
  EXPECT_FALSE(model->weight.cpu().equal(before));  // the moved parameter was updated
}

TEST_P(Optim, RMSprop) {  // expected values from PyTorch 1.13, as SGD's above
  Device d = GetParam();
  expect_near(run<optim::RMSprop>(d, optim::RMSpropOptions(0.01)), {0.7768515, -1.775988, 2.7737374});
  expect_near(run<optim::RMSprop>(d, optim::RMSpropOptions(0.01).momentum(0.9).weight_decay(0.1)),
              {0.5471343, -1.5452915, 2.5411406});
  expect_near(run<optim::RMSprop>(d, optim::RMSpropOptions(0.01).alpha(0.9).centered(true).eps(1e-6)),
              {0.9193519, -1.9192537, 2.918993});
  expect_near(run<optim::RMSprop>(d, optim::RMSpropOptions(0.01).centered(true).momentum(0.5)),
              {0.666442, -1.6651348, 2.6617496});
  // its state: one step each, on the parameter's device, and back through state_dict
  Tensor p = tensor({1.0, -2.0}, TensorOptions().device(d)).requires_grad_();
  optim::RMSprop opt(std::vector<Tensor>{p}, optim::RMSpropOptions(0.01).centered(true).momentum(0.5));
  (p * p).sum().backward();
  opt.step();
  auto sd = opt.state_dict();
  ASSERT_NE(sd.find("state.0.square_avg"), nullptr);
  EXPECT_EQ(sd.find("state.0.square_avg")->device(), d);
  EXPECT_NEAR(values(*sd.find("state.0.square_avg"))[1], 0.01 * 16, 1e-6);  // (1 - alpha) g^2, g = 2p = -4
  EXPECT_NEAR(values(*sd.find("state.0.grad_avg"))[1], 0.01 * -4, 1e-6);
  ASSERT_NE(sd.find("state.0.momentum_buffer"), nullptr);
  EXPECT_EQ(values(*sd.find("state.0.step"))[0], 1);
}

TEST_P(Optim, Adagrad) {  // expected values from PyTorch 1.13, as SGD's above
  Device d = GetParam();
  expect_near(run<optim::Adagrad>(d, optim::AdagradOptions(0.1)), {0.7773245, -1.7764606, 2.7742078});
  expect_near(run<optim::Adagrad>(d, optim::AdagradOptions(0.1).lr_decay(0.5).weight_decay(0.1)),
              {0.8270162, -1.826512, 2.8253622});
  expect_near(run<optim::Adagrad>(d, optim::AdagradOptions(0.05).initial_accumulator_value(0.5).eps(1e-6)),
              {0.8892409, -1.887364, 2.8864851});
  // state exists from construction (PyTorch's eager "sum" and step 0), on the parameter's device
  Tensor p = tensor({1.0, -2.0}, TensorOptions().device(d)).requires_grad_();
  optim::Adagrad opt(std::vector<Tensor>{p}, optim::AdagradOptions(0.1).initial_accumulator_value(0.25));
  auto sd = opt.state_dict();
  ASSERT_NE(sd.find("state.0.sum"), nullptr);
  EXPECT_EQ(sd.find("state.0.sum")->device(), d);
  EXPECT_EQ(values(*sd.find("state.0.sum")), (std::vector<double>{0.25, 0.25}));
  EXPECT_EQ(values(*sd.find("state.0.step"))[0], 0);
  (p * p).sum().backward();
  opt.step();
  sd = opt.state_dict();
  EXPECT_EQ(values(*sd.find("state.0.sum")), (std::vector<double>{4.25, 16.25}));  // + g^2, g = 2p
  EXPECT_EQ(values(*sd.find("state.0.step"))[0], 1);
  const std::vector<double> after_one = values(p);
  EXPECT_NEAR(after_one[1], -2 + 0.1 * 4 / std::sqrt(16.25), 1e-6);
  // a group added later gets its state at its first step; a failing step changes nothing
  Tensor q = tensor({3.0}, TensorOptions().device(d)).requires_grad_();
  opt.add_param_group(optim::OptimizerParamGroup({q}));
  EXPECT_EQ(opt.state_dict().find("state.1.sum"), nullptr);
  q.set_grad(tensor({1.0}, TensorOptions().device(d)));
  p.set_grad(tensor({1.0, 2.0, 3.0}, TensorOptions().device(d)));  // the wrong shape: the step fails
  EXPECT_THROW(opt.step(), Error);
  EXPECT_EQ(values(p), after_one);
  EXPECT_EQ(values(q), (std::vector<double>{3}));
  EXPECT_EQ(opt.state_dict().find("state.1.sum"), nullptr);
  EXPECT_EQ(values(*opt.state_dict().find("state.0.step"))[0], 1);
  p.set_grad(tensor({0.0, 0.0}, TensorOptions().device(d)));
  opt.step();
  // the new group takes the optimizer's defaults: its sum starts at 0.25, then + 1^2
  EXPECT_EQ(values(*opt.state_dict().find("state.1.sum")), (std::vector<double>{1.25}));
  EXPECT_NEAR(values(q)[0], 3 - 0.1 / std::sqrt(1.25), 1e-6);
}

// step(closure), as libtorch's: the closure runs first with grad mode on (even under a
// NoGradGuard), its loss comes back, and the update uses the gradients it left.
TEST(OptimClosure, EveryOptimizerCallsItAndReturnsItsLoss) {
  auto check = [](auto make) {
    Tensor p = tensor({1.0, -2.0}).requires_grad_(), q = p.detach().clone().requires_grad_();
    auto with = make(p);
    auto without = make(q);
    int calls = 0;
    Tensor loss;
    {
      NoGradGuard no_grad;
      loss = with.step([&] {
        ++calls;
        with.zero_grad();
        Tensor l = (p * p).sum();
        EXPECT_TRUE(l.requires_grad());
        l.backward();
        return l;
      });
    }
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(loss.defined());
    EXPECT_EQ(loss.item<float>(), 5.0f);
    (q * q).sum().backward();
    EXPECT_FALSE(without.step().defined());  // no closure: an undefined loss
    EXPECT_EQ(values(p), values(q));
    EXPECT_NE(values(p), (std::vector<double>{1.0, -2.0}));
  };
  check([](Tensor t) { return optim::SGD(std::vector<Tensor>{t}, optim::SGDOptions(0.1)); });
  check([](Tensor t) { return optim::Adam(std::vector<Tensor>{t}, optim::AdamOptions(0.1)); });
  check([](Tensor t) { return optim::AdamW(std::vector<Tensor>{t}, optim::AdamWOptions(0.1)); });
  check([](Tensor t) { return optim::RMSprop(std::vector<Tensor>{t}, optim::RMSpropOptions(0.1)); });
  check([](Tensor t) { return optim::Adagrad(std::vector<Tensor>{t}, optim::AdagradOptions(0.1)); });
}

TEST(OptimMessages, Validation) {
  Tensor p = ones({2}).requires_grad_();
  EXPECT_THROW_MSG(optim::SGD(std::vector<Tensor>{p}, optim::SGDOptions(0.1).nesterov(true)), Error,
                   "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_THROW_MSG(optim::Adam(std::vector<Tensor>{p}, optim::AdamOptions(-1)), Error, "Invalid learning rate: -1");
  EXPECT_THROW_MSG(optim::Adam(std::vector<Tensor>{p * 2}, optim::AdamOptions(0.1)), Error,
                   "can't optimize a non-leaf Tensor");
}

TEST(OptimMessages, EveryCheck) {
  std::vector<Tensor> p{ones({2}).requires_grad_()};
  EXPECT_THROW_MSG(optim::SGD(p, optim::SGDOptions(-0.1)), Error, "SGD: Invalid learning rate: -0.100000");
  EXPECT_THROW_MSG(optim::RMSprop(p, optim::RMSpropOptions(-0.1)), Error, "RMSprop: Invalid learning rate: -0.100000");
  EXPECT_THROW_MSG(optim::RMSprop(p, optim::RMSpropOptions().alpha(-1)), Error, "RMSprop: Invalid alpha value: -1.000000");
  EXPECT_THROW_MSG(optim::RMSprop(p, optim::RMSpropOptions().momentum(-1)), Error, "RMSprop: Invalid momentum value");
  EXPECT_THROW_MSG(optim::RMSprop(p, optim::RMSpropOptions().eps(-1)), Error, "RMSprop: Invalid epsilon value");
  EXPECT_THROW_MSG(optim::RMSprop(p, optim::RMSpropOptions().weight_decay(-1)), Error, "RMSprop: Invalid weight_decay value");
  EXPECT_THROW_MSG(optim::Adam(p, optim::AdamOptions(0.1).eps(-1)), Error, "Adam: Invalid epsilon value: -1.000000");
  EXPECT_THROW_MSG(optim::Adagrad(p, optim::AdagradOptions(-0.1)), Error, "Adagrad: Invalid learning rate: -0.100000");
  EXPECT_THROW_MSG(optim::Adagrad(p, optim::AdagradOptions().lr_decay(-1)), Error,
                   "Adagrad: Invalid lr_decay value: -1.000000");
  EXPECT_THROW_MSG(optim::Adagrad(p, optim::AdagradOptions().weight_decay(-1)), Error,
                   "Adagrad: Invalid weight_decay value: -1.000000");
  EXPECT_THROW_MSG(optim::Adagrad(p, optim::AdagradOptions().initial_accumulator_value(-1)), Error,
                   "Adagrad: Invalid initial_accumulator_value value: -1.000000");
  EXPECT_THROW_MSG(optim::Adagrad(p, optim::AdagradOptions().eps(-1)), Error,
                   "Adagrad: Invalid epsilon value: -1.000000");
  EXPECT_THROW_MSG(optim::Adam(p, optim::AdamOptions(0.1).betas(std::make_tuple(1.0, 0.999))), Error,
                   "Adam: Invalid beta parameter at index 0: 1.000000");
  EXPECT_THROW_MSG(optim::AdamW(p, optim::AdamWOptions(0.1).betas(std::make_tuple(0.9, -0.5))), Error,
                   "AdamW: Invalid beta parameter at index 1: -0.500000");
  EXPECT_THROW_MSG(optim::AdamW(p, optim::AdamWOptions(0.1).weight_decay(-1)), Error,
                   "AdamW: Invalid weight_decay value: -1.000000");
  EXPECT_THROW_MSG(optim::SGD(std::vector<Tensor>{Tensor()}, optim::SGDOptions(0.1)), Error,
                   "Optimizer: a parameter is undefined.");
  optim::SGD opt(p, optim::SGDOptions(0.1));
  EXPECT_THROW_MSG(opt.add_param_group(optim::OptimizerParamGroup(p)), Error,
                   "Optimizer: some parameters appear in more than one parameter group.");
  OrderedDict<std::string, Tensor> sd;
  sd.insert("param_groups.3.lr", tensor(0.5));
  EXPECT_THROW_MSG(opt.load_state_dict(sd), Error, "[load_state_dict] 'param_groups.3.lr' names a missing param group.");
  OrderedDict<std::string, Tensor> sd2;
  sd2.insert("momentum.0", ones({2}));
  EXPECT_THROW_MSG(opt.load_state_dict(sd2), Error, "[load_state_dict] unexpected key 'momentum.0'.");
  OrderedDict<std::string, Tensor> sd3;
  sd3.insert("state.4.momentum_buffer", ones({2}));
  EXPECT_THROW_MSG(opt.load_state_dict(sd3), Error,
                   "[load_state_dict] 'state.4.momentum_buffer' names parameter 4 but the optimizer has 1.");
  // a state that does not fit is refused whole, naming the entry; the optimizer keeps its state
  OrderedDict<std::string, Tensor> bad;
  bad.insert("param_groups.0.lr", tensor(0.7));
  bad.insert("state.0.momentum_buffer", ones({3}));
  EXPECT_THROW_MSG(opt.load_state_dict(bad), Error,
                   "[load_state_dict] 'state.0.momentum_buffer' has shape [3] but parameter 0 has shape [2]; was the "
                   "state saved from an optimizer over other parameters, or in another order?");
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_EQ(opt.state_dict().size(), 1u);  // still only its lr
  for (const char* key : {"state.x.step", "state.0", "state..step", "param_groups.0", "state.99999999999.step"}) {
    OrderedDict<std::string, Tensor> m;
    m.insert(key, tensor(1.0));
    EXPECT_THROW_MSG(opt.load_state_dict(m), Error, "[load_state_dict] malformed key '" + std::string(key) + "'");
  }
  OrderedDict<std::string, Tensor> lr;
  lr.insert("param_groups.0.lr", ones({2}));
  EXPECT_THROW_MSG(opt.load_state_dict(lr), Error, "[load_state_dict] 'param_groups.0.lr' must hold one number, got a tensor of shape [2].");
  OrderedDict<std::string, Tensor> step;
  step.insert("state.0.step", ones({2}));
  EXPECT_THROW_MSG(opt.load_state_dict(step), Error, "[load_state_dict] 'state.0.step' has shape [2] but a step is one number");
  EXPECT_THROW_MSG(optim::StepLR(opt, 0), Error, "StepLR: step_size must be positive.");
  EXPECT_THROW_MSG(optim::CosineAnnealingLR(opt, 0), Error, "CosineAnnealingLR: T_max must be positive.");
}

TEST_P(Optim, StateDictRoundTrip) {
  // state saved from one optimizer and loaded into a fresh one continues identically
  Device d = GetParam();
  auto make = [&] { return tensor({1.0, -2.0, 3.0}, TensorOptions().device(d)).requires_grad_(); };
  Tensor a = make(), b = make();
  optim::Adam oa(std::vector<Tensor>{a}, optim::AdamOptions(0.1)), ob(std::vector<Tensor>{b}, optim::AdamOptions(0.5));
  auto step = [](optim::Optimizer& o, Tensor& p) {
    o.zero_grad();
    (p * p * p).sum().backward();
    o.step();
  };
  step(oa, a);
  {
    NoGradGuard no_grad;
    b.copy_(a);
  }
  ob.load_state_dict(oa.state_dict());
  EXPECT_DOUBLE_EQ(ob.param_groups()[0].options().get_lr(), 0.1);
  step(oa, a);
  step(ob, b);
  EXPECT_EQ(values(a), values(b));
  EXPECT_EQ(ob.state_dict()["state.0.step"].item<int64_t>(), 2);
  EXPECT_EQ(ob.state_dict()["state.0.exp_avg"].device(), d);
}

TEST_P(Optim, SaveAndLoadThroughAFile) {
  // libtorch's torch::save(optimizer, path) / torch::load(optimizer, path): a model and its
  // optimizer restored from checkpoints continue exactly as the originals
  Device d = GetParam();
  manual_seed(5);
  nn::Sequential a(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 1)), b(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 1));
  a->to(d);
  b->to(d);
  optim::Adam oa(a->parameters(), optim::AdamOptions(0.05)), ob(b->parameters(), optim::AdamOptions(0.5));
  Tensor x = randn({8, 3}, device(d)), y = randn({8, 1}, device(d));
  auto step = [&](nn::Sequential& m, optim::Optimizer& o) {
    o.zero_grad();
    F::mse_loss(m->forward(x), y).backward();
    o.step();
  };
  for (int i = 0; i < 3; ++i) step(a, oa);
  const std::string dir = std::filesystem::temp_directory_path().string() + "/locus-optim-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  for (const char* ext : {".pt", ".safetensors"}) {
    save(a, dir + "/model" + ext);
    save(oa, dir + "/optimizer" + ext);
    load(b, dir + "/model" + ext);
    load(ob, dir + "/optimizer" + ext);
    EXPECT_DOUBLE_EQ(ob.param_groups()[0].options().get_lr(), 0.05);
    EXPECT_EQ(ob.state_dict()["state.0.step"].item<int64_t>(), 3 + (ext[1] == 's' ? 1 : 0));
    EXPECT_EQ(ob.state_dict()["state.0.exp_avg"].device(), d);
    step(a, oa);
    step(b, ob);
    for (size_t k = 0; k < a->parameters().size(); ++k)
      EXPECT_EQ(values(a->parameters()[k]), values(b->parameters()[k])) << ext << " parameter " << k;
  }
  // an optimizer over other parameters refuses the file, keeping its own state
  optim::Adam other(std::vector<Tensor>{ones({2}, device(d)).requires_grad_()}, optim::AdamOptions(0.1));
  EXPECT_THROW_MSG(load(other, dir + "/optimizer.pt"), Error, "[load_state_dict] 'state.0.exp_avg' has shape [4, 3] but parameter 0 has shape [2]");
  EXPECT_DOUBLE_EQ(other.param_groups()[0].options().get_lr(), 0.1);
  std::filesystem::remove_all(dir);
}

TEST(Schedulers, StepAndCosine) {
  Tensor p = ones({2}).requires_grad_();
  optim::SGD opt(std::vector<Tensor>{p}, optim::SGDOptions(1.0));
  optim::StepLR step(opt, 2, 0.5);
  std::vector<double> lrs;
  for (int i = 0; i < 5; ++i) {
    step.step();
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  EXPECT_EQ(lrs, std::vector<double>({1, 0.5, 0.5, 0.25, 0.25}));  // torch.optim.lr_scheduler.StepLR
  optim::SGD opt2(std::vector<Tensor>{p}, optim::SGDOptions(1.0));
  optim::CosineAnnealingLR cos(opt2, 4, 0.1);
  cos.step();
  cos.step();
  EXPECT_NEAR(cos.get_last_lr()[0], 0.55, 1e-12);
  cos.step();
  cos.step();
  EXPECT_NEAR(cos.get_last_lr()[0], 0.1, 1e-12);
}

TEST_P(Optim, ClipGradNorm) {
  // torch.nn.utils.clip_grad_norm_([p], 1.0) with p.grad = [3, 4] -> 5.0, grad [0.6, 0.8]
  Tensor p = tensor({1.0, 2.0}, TensorOptions().device(GetParam())).requires_grad_();
  p.set_grad(tensor({3.0, 4.0}, TensorOptions().device(GetParam())));
  EXPECT_NEAR(nn::utils::clip_grad_norm_({p}, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(values(p.grad())[0], 0.6, 1e-5);
  EXPECT_NEAR(values(p.grad())[1], 0.8, 1e-5);
  EXPECT_EQ(p.grad().device(), GetParam());
}

LOCUS_INSTANTIATE_DEVICES(Optim);

}  // namespace optim_test
