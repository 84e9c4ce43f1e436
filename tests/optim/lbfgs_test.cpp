// L-BFGS against PyTorch 1.13's torch.optim.LBFGS (the numbers below were printed by it): the
// iterates, losses and evaluation counts on Rosenbrock's function with a fixed step and with the
// strong-Wolfe search, several parameters, the stopping rules and the messages, on every device.
#include <cmath>

#include "testing.h"

using namespace locus;

namespace lbfgs_test {

class LBFGSTest : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().dtype(kDouble).device(GetParam()); }
};

namespace {
Tensor rosenbrock(const Tensor& x) { return (1 - x[0]).pow(2) + 100 * (x[1] - x[0].pow(2)).pow(2); }

void expect_close(const Tensor& got, const std::vector<double>& want, double tol) {
  const std::vector<double> v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << i;
}
}  // namespace

TEST_P(LBFGSTest, FixedStepFollowsPyTorch) {
  Tensor x = tensor({-1.5, 2.0}, o()).requires_grad_();
  optim::LBFGS opt({x}, optim::LBFGSOptions(1).max_iter(20).history_size(10));
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = rosenbrock(x);
    loss.backward();
    return loss;
  };
  const std::vector<std::vector<double>> want{{-0.78174276825177735, 0.61410369686710475},
                                              {0.19397540023594384, 0.010145692422616984},
                                              {0.71392949497552638, 0.51215693144330832}};
  const double losses[] = {12.5, 3.1754964895215929, 0.72519489153662675};
  for (int i = 0; i < 3; ++i) {
    Tensor loss = opt.step(closure);
    EXPECT_NEAR(loss.item<double>(), losses[i], 1e-9 * losses[i]) << "step " << i;  // the first evaluation's
    // 60 iterations on Rosenbrock's valley amplify rounding (dot products summed in another order):
    // 5e-9 apart after 40, 5e-7 after 60
    expect_close(x.detach(), want[static_cast<size_t>(i)], 2e-6);
    EXPECT_EQ(opt.func_evals(), 20 * (i + 1));
    EXPECT_EQ(opt.n_iter(), 20 * (i + 1));
  }
}

TEST_P(LBFGSTest, StrongWolfeFollowsPyTorch) {
  Tensor x = tensor({-1.5, 2.0}, o()).requires_grad_();
  optim::LBFGS opt({x}, optim::LBFGSOptions(1).max_iter(20).history_size(10).line_search_fn("strong_wolfe"));
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = rosenbrock(x);
    loss.backward();
    return loss;
  };
  const std::vector<std::vector<double>> want{{-0.085231205505268054, -0.028824645316324921},
                                              {0.99976097866805413, 0.99953878821467657},
                                              {0.99998341792050327, 0.99996690239891972}};
  const int64_t evals[] = {25, 50, 52}, iters[] = {19, 38, 40};
  for (int i = 0; i < 3; ++i) {
    opt.step(closure);
    expect_close(x.detach(), want[static_cast<size_t>(i)], 1e-7);
    EXPECT_EQ(opt.func_evals(), evals[i]) << "step " << i;
    EXPECT_EQ(opt.n_iter(), iters[i]) << "step " << i;
  }
  EXPECT_LT(rosenbrock(x).item<double>(), 1e-7);  // the minimum at (1, 1)
}

TEST_P(LBFGSTest, SeveralParametersAndFewIterations) {
  Tensor a = (arange(12, o()).reshape({4, 3})).sin(), b = arange(4, o()).cos();
  Tensor w = zeros({2, 3}, o()).requires_grad_(), c = zeros({2}, o()).requires_grad_();
  optim::LBFGS opt({w, c}, optim::LBFGSOptions(0.5).max_iter(7).history_size(3));
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (a.matmul(w.t()) + c - b.unsqueeze(1)).pow(2).sum();
    l.backward();
    return l;
  });
  EXPECT_NEAR(loss.item<double>(), 4.8903798292396115, 1e-12);
  expect_close(w.detach(), {-0.055087568879634299, 0.10845447006614249, 0.1722839693965221, -0.055087568879634299,
                            0.10845447006614249, 0.1722839693965221}, 1e-9);
  expect_close(c.detach(), {0.035070629801765563, 0.035070629801765563}, 1e-9);
  EXPECT_EQ(opt.func_evals(), 7);
}

TEST_P(LBFGSTest, StopsAtAZeroGradientWithOneEvaluation) {
  Tensor x = tensor({1.0, 1.0}, o()).requires_grad_();
  optim::LBFGS opt({x});
  int calls = 0;
  opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor loss = rosenbrock(x);
    loss.backward();
    return loss;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(values(x.detach()), (std::vector<double>{1, 1}));
}

TEST(LBFGS, Messages) {
  Tensor x = zeros({2}).requires_grad_();
  optim::LBFGS opt({x});
  EXPECT_THROW_MSG(opt.step(nullptr), Error, "LBFGS requires a closure function");
  EXPECT_THROW_MSG(opt.step([] { return Tensor(); }), Error,
                   "LBFGS: the closure must return the loss, a tensor of one element.");
  EXPECT_THROW_MSG(optim::LBFGS({x}, optim::LBFGSOptions().line_search_fn("backtracking")), Error,
                   "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got 'backtracking'");
  EXPECT_THROW_MSG(optim::LBFGS({x}, optim::LBFGSOptions().history_size(0)), Error,
                   "LBFGS: history_size and max_iter must be positive, got 0 and 20.");
  Tensor y = zeros({2}).requires_grad_();
  EXPECT_THROW_MSG(optim::LBFGS(std::vector<optim::OptimizerParamGroup>{optim::OptimizerParamGroup({x}),
                                                                        optim::OptimizerParamGroup({y})}),
                   Error, "LBFGS doesn't support per-parameter options (parameter groups): got 2 groups");
  if (device_count(kOpenCL) > 0)
    EXPECT_THROW_MSG(optim::LBFGS({x, zeros({2}, device(Device("opencl:0"))).requires_grad_()}), DeviceMismatchError,
                     "LBFGS: every parameter must be on one device, found cpu and opencl:0");
}

LOCUS_INSTANTIATE_DEVICES(LBFGSTest);

}  // namespace lbfgs_test
