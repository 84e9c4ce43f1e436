// locus/torch.h, the migration header: torch::, at:: and c10:: names, TORCH_MODULE, TORCH_CHECK,
// c10::DeviceGuard and c10::cuda::CUDAGuard. (tests/package builds a whole libtorch program with it.)
// the other tests of this binary check locus's default printing; tests/core/print_test.cpp checks
// libtorch's, and tests/package a program that selects it by including this header
#define LOCUS_TORCH_KEEP_PRINT_STYLE
#include <mutex>

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

// Spellings found by compiling pytorch/examples' C++ programs against locus (stop 48).
namespace {
struct Rows : torch::data::Dataset<Rows> {  // torch::data::Dataset, as torch/data.h names it
  torch::data::Example<> get(size_t i) override {
    return {torch::full({2}, static_cast<double>(i)), torch::tensor({static_cast<int64_t>(i)})};
  }
  std::optional<size_t> size() const override { return 3; }
};
}  // namespace

TEST(TorchHeader, SpellingsOfThePytorchExamples) {
  assert(true);  // <cassert> comes with the header, as with libtorch's
  torch::Tensor x = torch::arange(6, torch::kDouble).reshape({2, 3}) - 2;
  EXPECT_EQ(at::size(x, 1), 3);
  EXPECT_EQ(torch::size(x, -2), 2);
  EXPECT_EQ(torch::_unsafe_view(x, {3, 2}).sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Rows().get_batch({0, 2}).size(), 2u);

  const torch::ExpandingArray<2> k({2, 3});
  torch::IntArrayRef r = k;  // ExpandingArray converts to IntArrayRef, * and -> reach its array
  EXPECT_EQ(r[1], 3);
  EXPECT_EQ((*k)[0], 2);
  EXPECT_EQ(k->size(), 2u);

  // Functional with bound arguments: the function's other arguments after the input
  torch::nn::Functional pool(torch::max_pool2d, 2, 2, 0, 1, false);
  torch::nn::Functional leaky(torch::leaky_relu, 0.2);
  torch::Tensor img = torch::arange(16, torch::kFloat).reshape({1, 1, 4, 4}) - 8;
  EXPECT_EQ(values(pool(img)), (std::vector<double>{-3, -1, 5, 7}));
  EXPECT_EQ(values(leaky(torch::tensor({-5.0, 5.0}))), (std::vector<double>{-1.0, 5.0}));
}

TEST(TorchHeader, ActivationsInAtensSpelling) {
  torch::Tensor x = torch::tensor({-2.0, -0.5, 0.0, 1.0, 7.0});
  // values from PyTorch 1.13 (torch.nn.functional / torch.ops.aten)
  auto near = [](const torch::Tensor& t, std::vector<double> want) {
    std::vector<double> got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  };
  near(torch::leaky_relu(x, 0.1), {-0.2, -0.05, 0.0, 1.0, 7.0});
  near(torch::elu(x), {-0.8646647167633873, -0.3934693402873666, 0.0, 1.0, 7.0});
  near(torch::elu(x, 1.5, 2.0, 0.5), {-1.896361676485673, -0.6635976507857854, 0.0, 2.0, 14.0});
  near(torch::selu(x), {-1.5201665163040161, -0.6917581558227539, 0.0, 1.0507010221481323, 7.354907035827637});
  near(torch::relu6(x), {0.0, 0.0, 0.0, 1.0, 6.0});
  near(torch::rrelu(x), {-0.4583333333333333, -0.11458333333333333, 0.0, 1.0, 7.0});  // eval: the mean slope

  torch::Tensor w = torch::tensor({-2.0, 1.0}, torch::requires_grad());
  torch::Tensor h = w * 1;
  torch::leaky_relu_(h, 0.5);  // in place in the graph
  h.sum().backward();
  near(h, {-1.0, 1.0});
  near(w.grad(), {0.5, 1.0});
  torch::Tensor y = x.clone();
  torch::elu_(y);
  torch::hardtanh_(y, -0.5, 0.5);
  near(y, {-0.5, -0.3934693402873666, 0.0, 0.5, 0.5});
  EXPECT_THROW_MSG(torch::selu_(w), locus::Error, "[selu] a leaf Variable that requires grad");
}

// libtorch's generator spellings (locus/generator.h; the draws are tested in tests/ops/generator_test.cpp)
TEST(TorchHeader, GeneratorSpellings) {
  at::Generator def = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> lock(def.mutex());  // torch.manual_seed's idiom
    def.set_current_seed(33);
  }
  EXPECT_EQ(torch::initial_seed(), 33u);
  EXPECT_EQ(at::globalContext().defaultGenerator(torch::kCPU).current_seed(), 33u);
  EXPECT_EQ(at::cuda::detail::getDefaultCUDAGenerator().current_seed(), 33u);
  EXPECT_EQ(at::cuda::detail::getDefaultCUDAGenerator().device().type(), torch::kCUDA);
  at::Generator a = at::detail::createCPUGenerator(7), b = torch::make_generator<at::CPUGeneratorImpl>(7);
  EXPECT_TRUE(torch::randn({5}, a).equal(torch::randn({5}, b)));
  EXPECT_EQ(at::cuda::detail::createCUDAGenerator(0).device(), torch::Device("cuda:0"));
  EXPECT_EQ(b.get<at::CPUGeneratorImpl>()->current_seed(), 7u);
  at::Generator c = torch::make_generator<at::CUDAGeneratorImpl>(1);
  EXPECT_EQ(c.device(), torch::Device("cuda:1"));
  EXPECT_EQ(at::CUDAGeneratorImpl::device_type(), torch::kCUDA);
  EXPECT_EQ(c.current_seed(), at::default_rng_seed_val);
}
