// locus/torch.h, the migration header: torch::, at:: and c10:: names, TORCH_MODULE, TORCH_CHECK,
// c10::DeviceGuard and c10::cuda::CUDAGuard. (tests/package builds a whole libtorch program with it.)
// the other tests of this binary check locus's default printing; tests/core/print_test.cpp checks
// libtorch's, and tests/package a program that selects it by including this header
#define LOCUS_TORCH_KEEP_PRINT_STYLE
#include "locus/torch.h"

#include "testing.h"

namespace {
struct TinyImpl : torch::nn::Module {
  TinyImpl() : fc(register_module("fc", torch::nn::Linear(3, 2))) {}
  torch::Tensor forward(const torch::Tensor& x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Tiny);

struct Opts {
  TORCH_ARG(int64_t, width) = 4;
};
}  // namespace

TEST(TorchHeader, LibtorchSpellingsNameLocus) {
  static_assert(std::is_same_v<at::Tensor, locus::Tensor>);
  static_assert(std::is_same_v<c10::Device, locus::Device>);
  static_assert(std::is_same_v<c10::DeviceType, locus::DeviceType>);
  static_assert(std::is_same_v<c10::ScalarType, locus::ScalarType>);
  static_assert(std::is_same_v<c10::optional<int>, std::optional<int>>);
  static_assert(at::kFloat == locus::kFloat && c10::kCUDA == locus::kCUDA && torch::kOpenCL == locus::kOPENCL);
  static_assert(at::Reduction::Mean == locus::Reduction::Mean);
  Tiny net;
  at::Tensor y = net(torch::ones({5, 3}));
  EXPECT_EQ(y.sizes(), torch::IntArrayRef({5, 2}));
  EXPECT_EQ(Opts().width(8).width(), 8);
  c10::Device d = torch::Device(torch::kCPU);
  EXPECT_TRUE(d.is_cpu());
}

// libtorch 2.4's at::autocast functions, as a libtorch program spells them
TEST(TorchHeader, AtAutocastIsLocusAutocast) {
  at::autocast::set_autocast_enabled(at::kCPU, true);
  at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
  EXPECT_TRUE(at::autocast::is_autocast_enabled(at::kCPU));
  EXPECT_EQ(torch::ones({2, 3}).mm(torch::ones({3, 2})).scalar_type(), at::kBFloat16);
  at::autocast::set_autocast_enabled(at::kCPU, false);
  at::autocast::clear_cache();
  EXPECT_FALSE(locus::autocast::is_autocast_enabled(locus::kCPU));
  EXPECT_EQ(at::autocast::get_autocast_dtype(at::kCPU), at::kBFloat16);
}

TEST(TorchHeader, TorchCheckThrowsLocusErrors) {
  EXPECT_NO_THROW(TORCH_CHECK(1 + 1 == 2, "never"));
  EXPECT_THROW_MSG(TORCH_CHECK(1 > 2), c10::Error, "Expected 1 > 2 to be true, but got false.");
  int n = 3;
  EXPECT_THROW_MSG(TORCH_CHECK(n == 4, "n is ", n, ", expected ", 4), locus::Error, "n is 3, expected 4");
}

TEST(TorchHeader, GuardsAreLocusGuards) {
  for (const torch::Device& d : locus::all_devices()) {
    c10::DeviceGuard guard(d);
    EXPECT_EQ(guard.current_device(), d);
  }
  EXPECT_THROW_MSG(c10::cuda::CUDAGuard{torch::Device("opencl:0")}, c10::Error,
                   "CUDAGuard(opencl:0): expected a cuda device; use locus::DeviceGuard for opencl devices.");
  if (torch::cuda::is_available()) {
    c10::cuda::CUDAGuard guard(0);
    EXPECT_EQ(guard.current_device(), torch::Device("cuda:0"));
  } else {
    EXPECT_THROW_MSG(c10::cuda::CUDAGuard{0}, locus::NotAvailableError, "cuda:0 is not available");
  }
}

namespace {
struct CountDataset : torch::data::datasets::Dataset<CountDataset> {
  torch::data::Example<> get(size_t i) override { return {torch::full({1}, static_cast<double>(i)), torch::zeros({})}; }
  torch::optional<size_t> size() const override { return 3; }  // libtorch's spelling of the override
};
int warn_twice() {
  for (int i = 0; i < 2; ++i) TORCH_WARN_ONCE("only once ", i);
  TORCH_WARN("value is ", 7);
  return 0;
}
}  // namespace

TEST(TorchHeader, AssertsWarningsAndOptional) {
  static_assert(std::is_same_v<torch::optional<size_t>, std::optional<size_t>>);
  torch::optional<int> none = torch::nullopt;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(CountDataset().size().value(), 3u);
  AT_ASSERT(1 + 1 == 2);
  TORCH_INTERNAL_ASSERT(true, "never shown");
  try {
    TORCH_INTERNAL_ASSERT(1 > 2, "x is ", 3);
    ADD_FAILURE() << "no throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(std::string(e.what()), std::string("1 > 2 INTERNAL ASSERT FAILED at ") + __FILE__ + ":" +
                                         std::to_string(__LINE__ - 4) + ": x is 3");
  }
  EXPECT_THROW_MSG(AT_ASSERT(false), c10::Error, "false INTERNAL ASSERT FAILED at ");
  testing::internal::CaptureStderr();
  warn_twice();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("] Warning: only once 0 (function warn_twice)\n"), std::string::npos) << err;
  EXPECT_EQ(err.find("only once 1"), std::string::npos) << err;
  EXPECT_NE(err.find("] Warning: value is 7 (function warn_twice)\n"), std::string::npos) << err;
  EXPECT_EQ(err.rfind("[W ", 0), 0u) << err;
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  torch::cuda::manual_seed(5);
  auto a = torch::rand({3});
  torch::cuda::manual_seed_all(5);
  EXPECT_TRUE(torch::equal(a, torch::rand({3})));
}

TEST(TorchHeader, GlobalContextSetFlushDenormal) {
  // at::globalContext().setFlushDenormal(on) is locus::set_flush_denormal (tests/backends/cpu)
  volatile float tiny = 1e-30f, scale = 1e-10f;
#if defined(__x86_64__) || defined(__i386__)
  ASSERT_TRUE(at::globalContext().setFlushDenormal(true));
  EXPECT_EQ(tiny * scale, 0.0f);
  ASSERT_TRUE(at::globalContext().setFlushDenormal(false));
#else
  EXPECT_FALSE(at::globalContext().setFlushDenormal(true));
#endif
  EXPECT_GT(tiny * scale, 0.0f);
}

// An optimizer step written as libtorch's own Adam writes it (mul_, add_ with alpha, addcmul_,
// addcdiv_ with a negative value), in torch:: spelling, against torch::optim::Adam.
TEST(TorchHeader, HandWrittenAdamStepMatchesTheOptimizer) {
  torch::manual_seed(3);
  torch::Tensor w0 = torch::randn({4, 5}), x = torch::randn({8, 5});
  torch::Tensor a = w0.clone().requires_grad_(true), b = w0.clone().requires_grad_(true);
  torch::optim::Adam opt({a}, torch::optim::AdamOptions(0.01));
  torch::Tensor exp_avg = torch::zeros_like(b), exp_avg_sq = torch::zeros_like(b);
  const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, lr = 0.01;
  for (int step = 1; step <= 3; ++step) {
    opt.zero_grad();
    x.mm(a.t()).tanh().sum().backward();
    opt.step();
    b.mutable_grad() = torch::Tensor();
    x.mm(b.t()).tanh().sum().backward();
    torch::NoGradGuard no_grad;
    const torch::Tensor& grad = b.grad();
    exp_avg.mul_(beta1).add_(grad, 1 - beta1);
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
    const double bias_correction1 = 1 - std::pow(beta1, step), bias_correction2 = 1 - std::pow(beta2, step);
    torch::Tensor denom = (exp_avg_sq.sqrt() / std::sqrt(bias_correction2)).add_(eps);
    b.addcdiv_(exp_avg, denom, -lr / bias_correction1);
  }
  EXPECT_FALSE(torch::equal(a, w0));
  EXPECT_TRUE(torch::allclose(a, b, 1e-5, 1e-7)) << a - b;
}

// In-place ops are const members, as libtorch's (a Tensor is a handle): they work through
// grad()'s const reference, const references and range-for over const parameters, and change the
// tensor the reference names.
TEST(TorchHeader, InPlaceOpsThroughConstReferencesAsLibtorch) {
  torch::Tensor x = torch::ones({3}, torch::requires_grad());
  (x * 2).sum().backward();
  EXPECT_EQ(x.grad().sum().item<float>(), 6.0f);
  x.grad().zero_();
  EXPECT_EQ(x.grad().sum().item<float>(), 0.0f);
  const torch::Tensor& c = torch::zeros({2});
  c.add_(1).mul_(3);
  EXPECT_EQ(c.sum().item<float>(), 6.0f);
  torch::nn::Linear lin(2, 2);
  for (const auto& p : lin->parameters()) p.requires_grad_(false);
  for (const auto& p : lin->parameters()) EXPECT_FALSE(p.requires_grad());
  auto reset = [](const torch::Tensor& t) {
    torch::NoGradGuard no_grad;
    t.uniform_(-1, 1).clamp_(-0.5, 0.5);
  };
  reset(lin->weight);
  EXPECT_LE(lin->weight.abs().max().item<float>(), 0.5f);
  const torch::Tensor& same = x.grad().fill_(2);
  EXPECT_TRUE(same.is_same(x.grad()));
  EXPECT_EQ(x.grad().sum().item<float>(), 6.0f);
}
