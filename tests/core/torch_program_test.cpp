// Everyday libtorch programs, written as libtorch users write them (pytorch/examples' cpp/mnist
// shape, custom datasets, archives, indexing, sort/topk, ...), built against <locus/torch.h> and
// run, so that these idioms keep compiling and working. The docs list what still differs
// (docs/migrating-from-libtorch.md).
// the other tests of this binary check locus's default printing; tests/core/print_test.cpp checks
// libtorch's, and tests/package a program that selects it by including this header
#define LOCUS_TORCH_KEEP_PRINT_STYLE
#include "locus/torch.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <cstdio>
#include <sstream>
#include <type_traits>
#include <vector>

#include "test_paths.h"
#include "testing.h"

namespace {

namespace F = torch::nn::functional;
using torch::indexing::None;
using torch::indexing::Slice;

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }
  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

struct MyDataset : torch::data::datasets::Dataset<MyDataset> {
  torch::data::Example<> get(size_t i) override {
    return {torch::full({3}, static_cast<float>(i)), torch::tensor(static_cast<int64_t>(i % 2))};
  }
  torch::optional<size_t> size() const override { return 10; }
};

std::string tmp(const std::string& name) {
  return std::string(LOCUS_BINARY_DIR) + "/" + std::to_string(::getpid()) + "-torch-program-" + name;
}

class TorchProgram : public ::testing::TestWithParam<torch::Device> {};

TEST_P(TorchProgram, MnistShapedTrainingLoop) {
  torch::manual_seed(1);
  torch::Device device = GetParam();
  Net model;
  model.to(device);
  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  auto data = torch::randn({16, 1, 28, 28});
  auto targets = torch::randint(0, 10, {16}, torch::kLong);
  model.train();
  float first = 0, last = 0;
  for (int i = 0; i < 5; ++i) {
    auto d = data.to(device), t = targets.to(device);
    optimizer.zero_grad();
    auto loss = torch::nll_loss(model.forward(d), t);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    (i == 0 ? first : last) = loss.template item<float>();
  }
  EXPECT_LT(last, first);
  torch::NoGradGuard no_grad;
  model.eval();
  auto output = model.forward(data.to(device));
  auto pred = output.argmax(1);
  int64_t correct = pred.eq(targets.to(device)).sum().template item<int64_t>();
  EXPECT_GE(correct, 0);
  // checkpoint a module and a tensor, load them back
  std::string path = tmp("fc1-" + device_test_name({GetParam(), 0}) + ".pt");
  torch::save(model.fc1, path);
  torch::nn::Linear fc(320, 50);
  torch::load(fc, path);
  EXPECT_TRUE(torch::allclose(fc->weight, model.fc1->weight.cpu()));
  ::unlink(path.c_str());
}

TEST_P(TorchProgram, TensorIdioms) {
  auto o = torch::TensorOptions().device(GetParam());
  auto e = torch::arange(0, 10, o).reshape({2, 5}).to(torch::kFloat);
  EXPECT_NEAR(e.std().item<float>(), 3.02765035, 1e-5);  // torch.arange(10.).std()
  auto idx = e.index({Slice(0, 2), 1});
  EXPECT_EQ(values(idx), (std::vector<double>{1, 6}));
  e.index_put_({e > 7}, 0);
  EXPECT_EQ(values(e.index({1})), (std::vector<double>{5, 6, 7, 0, 0}));
  EXPECT_EQ(e.index({"...", None}).sizes(), torch::IntArrayRef({2, 5, 1}));
  auto t = torch::tensor({{3.0, 1.0, 2.0}, {0.0, 5.0, 4.0}}, o);
  auto [vals, ids] = t.topk(2, -1);
  EXPECT_EQ(values(ids), (std::vector<double>{0, 2, 1, 2}));
  auto [sv, si] = torch::sort(t, 0, /*descending=*/true);
  EXPECT_EQ(values(sv), (std::vector<double>{3, 5, 4, 0, 1, 2}));
  EXPECT_EQ(t.chunk(3, 1).size(), 3u);
  EXPECT_EQ(torch::split(t, 2, 1).size(), 2u);
  EXPECT_NEAR(t.var().item<float>(), 3.5, 1e-5);
  EXPECT_EQ(torch::eye(3, o).trace().item<float>(), 3.0f);
  EXPECT_TRUE(t.is_same_size(t.clone()));
  EXPECT_FALSE(torch::any(torch::isnan(t)).item<bool>());
  EXPECT_EQ(values(t.flip({1}).index({0})), (std::vector<double>{2, 1, 3}));
  EXPECT_EQ(t.repeat({2, 1}).size(0), 4);
  EXPECT_EQ(values(t.masked_select(t > 3)), (std::vector<double>{5, 4}));
  EXPECT_NEAR(t.norm().item<float>(), std::sqrt(55.0f), 1e-5);
  auto u = torch::empty({3, 4}, o);
  u.uniform_(0, 1);
  u.normal_(0, 1);
  u.fill_(2);
  u.zero_();
  EXPECT_TRUE(torch::all(u == 0).item<bool>());
  auto w = torch::ones({2, 2}, o).requires_grad_();
  w.index({Slice(), 0}).sum().backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{1, 0, 1, 0}));
  // torch::where(condition) and nonzero_numpy: one index tensor per dim
  const std::vector<torch::Tensor> at = torch::where(t > 2);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(values(at[0]), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(values(at[1]), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(at[0].scalar_type(), torch::kLong);
  EXPECT_EQ(at[0].device(), t.device());
  EXPECT_EQ(values(t.index({at[0], at[1]})), (std::vector<double>{3, 5, 4}));
  const auto scalar = torch::nonzero_numpy(torch::tensor(7.0, o));
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_EQ(values(scalar[0]), (std::vector<double>{0}));
  EXPECT_EQ(torch::where(torch::zeros({2, 3}, o))[1].numel(), 0);
  // torch::clone: own storage, same values, recorded by autograd
  auto c = torch::clone(w);
  EXPECT_NE(c.data_ptr(), w.data_ptr());
  EXPECT_EQ(values(c), values(w));
  (c * 3).sum().backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{4, 3, 4, 3}));
}

LOCUS_INSTANTIATE_DEVICES(TorchProgram);

TEST(TorchProgram, DatasetArchiveAndHostIdioms) {
  auto ds = MyDataset().map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(ds), torch::data::DataLoaderOptions().batch_size(4));
  int64_t seen = 0;
  for (auto& b : *loader) seen += b.data.size(0);
  EXPECT_EQ(seen, 10);
  torch::Tensor t = torch::randn({2, 2}, torch::requires_grad());
  torch::serialize::OutputArchive ar;
  ar.write("t", t);
  std::string apath = tmp("a.pt"), tpath = tmp("t.pt"), vpath = tmp("v.pt");
  ar.save_to(apath);
  torch::serialize::InputArchive ia;
  ia.load_from(apath);
  torch::Tensor r;
  ia.read("t", r);
  EXPECT_TRUE(torch::equal(r, t.detach()));
  torch::save(t, tpath);
  torch::Tensor u;
  torch::load(u, tpath);
  EXPECT_TRUE(torch::equal(u, t.detach()));
  std::vector<torch::Tensor> vs{t, t * 2};
  torch::save(vs, vpath);
  std::vector<torch::Tensor> back;
  torch::load(back, vpath);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(torch::allclose(back[1], t.detach() * 2));
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  auto x = torch::randn({3}).to(torch::kDouble).to(torch::kCPU, torch::kFloat);
  EXPECT_STREQ(x.dtype().name(), "float");  // caffe2::TypeMeta's spelling
  EXPECT_EQ(x.dtype().itemsize(), 4u);
  EXPECT_EQ(x.dtype(), torch::kFloat);
  EXPECT_STREQ(torch::toString(x.scalar_type()), "Float");
  EXPECT_STREQ(torch::ones({1}, torch::kLong).dtype().name(), "long int");
  auto m = torch::arange(0, 10).reshape({2, 5}).to(torch::kFloat);
  EXPECT_EQ((m.accessor<float, 2>()[1][2]), 7.0f);
  testing::internal::CaptureStderr();
  m.print();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "[" + m.toString() + " [2, 5]]\n");
  for (const auto& p : {apath, tpath, vpath}) ::unlink(p.c_str());
}

// A custom autograd function, as the libtorch tutorial writes one ("Autograd in C++ Frontend")
struct ScaleBy : torch::autograd::Function<ScaleBy> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x, double c) {
    ctx->saved_data["c"] = c;
    ctx->save_for_backward({x});
    return x * c;
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grad_outputs) {
    EXPECT_EQ(ctx->get_saved_variables().size(), 1u);
    return {grad_outputs[0] * ctx->saved_data["c"].toDouble(), torch::Tensor()};
  }
};

TEST(TorchProgram, CustomAutogradFunction) {
  auto x = torch::randn({2}).requires_grad_();
  auto y = ScaleBy::apply(x, 5.5);
  EXPECT_EQ(y.grad_fn()->name(), "ScaleByBackward");
  y.sum().backward();
  EXPECT_TRUE(x.grad().equal(torch::full({2}, 5.5)));
  c10::IValue v = 3.0;
  EXPECT_EQ(v.toDouble(), 3.0);
}

struct TwoOutputs : torch::autograd::Function<TwoOutputs> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext*, const torch::Tensor& x) {
    return {x * 2, x * 3};
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*, torch::autograd::variable_list g) {
    return {g[0] * 2 + g[1] * 3};
  }
};

TEST(TorchProgram, TensorStateIdioms) {
  // _version(): bumped by in-place writes, shared with views
  auto a = torch::zeros({4});
  const int64_t v0 = a._version();
  a.add_(1);
  EXPECT_EQ(a._version(), v0 + 1);
  auto view = a.narrow(0, 1, 2);
  view.mul_(2);
  EXPECT_EQ(a._version(), v0 + 2);
  EXPECT_EQ(view._version(), a._version());
  EXPECT_EQ((a + 1)._version(), 0);  // a new tensor starts at 0
  // output_nr(): which output of its grad_fn a tensor is
  auto x = torch::randn({3, 4}).requires_grad_();
  EXPECT_EQ(x.output_nr(), 0);
  EXPECT_EQ((x * 2).output_nr(), 0);
  const auto outs = TwoOutputs::apply(x);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].output_nr(), 0);
  EXPECT_EQ(outs[1].output_nr(), 1);
  EXPECT_EQ(outs[0].grad_fn(), outs[1].grad_fn());
  // reset(): the handle becomes undefined; others keep the tensor
  auto keep = a;
  a.reset();
  EXPECT_FALSE(a.defined());
  EXPECT_TRUE(keep.defined());
  EXPECT_THROW_MSG(a._version(), torch::Error, "[_version] the tensor is undefined");
  EXPECT_THROW_MSG(a.output_nr(), torch::Error, "[output_nr] the tensor is undefined");
}

template <typename scalar_t>
double sum_as(const torch::Tensor& t) {
  double s = 0;
  const scalar_t* p = t.data_ptr<scalar_t>();
  for (int64_t i = 0; i < t.numel(); ++i) s += static_cast<double>(p[i]);
  return s;
}

// What a libtorch extension's C++ spells: ATen's dispatch macros, at::parallel_for, InferenceMode,
// the deprecated type() and data<T>(), scalar_tensor.
TEST(TorchProgram, ExtensionIdioms) {
  auto f = torch::arange(6, torch::kFloat);
  auto d = f.to(torch::kDouble);
  auto l = torch::arange(4);
  auto h = f.to(torch::kHalf);
  EXPECT_EQ(AT_DISPATCH_FLOATING_TYPES(f.scalar_type(), "sum_as", [&] { return sum_as<scalar_t>(f); }), 15.0);
  EXPECT_EQ(AT_DISPATCH_FLOATING_TYPES(d.scalar_type(), "sum_as", [&] { return sum_as<scalar_t>(d); }), 15.0);
  EXPECT_EQ(AT_DISPATCH_ALL_TYPES(l.scalar_type(), "sum_as", [&] { return sum_as<scalar_t>(l); }), 6.0);
  EXPECT_EQ(AT_DISPATCH_FLOATING_TYPES_AND_HALF(h.scalar_type(), "sum_as", [&] { return sum_as<scalar_t>(h); }), 15.0);
  const bool bf16 = AT_DISPATCH_FLOATING_TYPES_AND(at::ScalarType::BFloat16, f.to(torch::kBFloat16).scalar_type(),
                                                    "sum_as", [&] { return std::is_same_v<scalar_t, torch::BFloat16>; });
  EXPECT_TRUE(bf16);
  EXPECT_EQ(AT_DISPATCH_INTEGRAL_TYPES(torch::kByte, "size", [&] { return sizeof(scalar_t); }), 1u);
  EXPECT_THROW_MSG(AT_DISPATCH_FLOATING_TYPES(l.scalar_type(), "my_kernel", [&] { return sum_as<scalar_t>(l); }),
                   torch::Error, "\"my_kernel\" not implemented for 'Long'");
  // at::parallel_for: every index once, on however many threads; a throw comes back here
  std::vector<int> hits(1000, 0);
  at::parallel_for(0, 1000, 16, [&](int64_t b, int64_t e) {
    EXPECT_LE(e - b, 1000);
    for (int64_t i = b; i < e; ++i) hits[i] += 1;
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 1000);
  EXPECT_THROW_MSG(at::parallel_for(0, 100, 1, [](int64_t b, int64_t) {
                     if (b >= 0) throw torch::Error("from the body");
                   }),
                   torch::Error, "from the body");
  EXPECT_THROW_MSG(at::parallel_for(0, 10, -1, [](int64_t, int64_t) {}), torch::Error,
                   "[parallel_for] grain_size must be non-negative, got -1.");
  EXPECT_FALSE(at::in_parallel_region());
  EXPECT_EQ(at::get_num_interop_threads(), 1);
  EXPECT_THROW_MSG(at::set_num_interop_threads(0), torch::Error,
                   "[set_num_interop_threads] expected a positive number of threads, got 0.");
  // InferenceMode: no history inside, grad mode back after
  auto w = torch::ones({2}, torch::requires_grad());
  {
    c10::InferenceMode guard;
    EXPECT_TRUE(c10::InferenceMode::is_enabled());
    EXPECT_FALSE((w * 2).requires_grad());
    {
      torch::InferenceMode off(false);
      EXPECT_FALSE(torch::InferenceMode::is_enabled());
      EXPECT_TRUE((w * 2).requires_grad());
    }
  }
  EXPECT_FALSE(c10::InferenceMode::is_enabled());
  EXPECT_TRUE((w * 2).requires_grad());
  // deprecated spellings old programs still use
  EXPECT_EQ(f.type().scalarType(), torch::kFloat);
  EXPECT_EQ(f.type().toString(), "CPUFloatType");
  EXPECT_FALSE(f.type().is_cuda());
  EXPECT_EQ(f.type(), torch::zeros({1}).type());
  EXPECT_NE(f.type(), d.type());
  std::ostringstream os;
  os << d.type();
  EXPECT_EQ(os.str(), "CPUDoubleType");
  EXPECT_THROW_MSG(torch::Tensor().type(), torch::Error, "[type] the tensor is undefined");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(f.data<float>()[4], 4.0f);
#pragma GCC diagnostic pop
  EXPECT_TRUE(f.is_variable());
  EXPECT_FALSE(f.is_complex());
  EXPECT_FALSE(f.has_names());
  EXPECT_EQ(torch::scalar_tensor(3).scalar_type(), torch::kFloat);
  EXPECT_EQ(torch::scalar_tensor(3.5, torch::kDouble).item<double>(), 3.5);
  EXPECT_EQ(torch::scalar_tensor(2).dim(), 0);
}

TEST(TorchProgram, ModuleIdioms) {
  torch::nn::Sequential seq(torch::nn::Linear(4, 8), torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.1)),
                            torch::nn::Identity(), torch::nn::Linear(8, 3), torch::nn::LogSoftmax(1));
  auto out = seq->forward(torch::randn({5, 4}));
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({5, 3}));
  torch::nn::CrossEntropyLoss ce;
  auto loss = ce(torch::randn({2, 5}), torch::tensor({1, 2}));
  EXPECT_EQ(loss.dim(), 0);
  EXPECT_EQ(torch::nn::utils::parameters_to_vector(seq->parameters()).numel(), 4 * 8 + 8 + 8 * 3 + 3);
  EXPECT_EQ(F::silu(torch::zeros({1})).item<float>(), 0.0f);
  // a layer of a container by its type, and grad mode in torch::autograd's spelling
  torch::nn::LinearImpl* last = seq[3]->as<torch::nn::Linear>();
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->weight.sizes(), torch::IntArrayRef({3, 8}));
  EXPECT_EQ(seq[1]->as<torch::nn::Linear>(), nullptr);
  EXPECT_TRUE(torch::autograd::GradMode::is_enabled());
  {
    torch::autograd::AutoGradMode off(false);
    EXPECT_FALSE(torch::autograd::GradMode::is_enabled());
    EXPECT_FALSE(seq->forward(torch::randn({1, 4})).requires_grad());
  }
  EXPECT_TRUE(torch::autograd::GradMode::is_enabled());
  // names and printing as libtorch's (the style locus/torch.h selects, this file keeps locus's):
  // the class name with "Impl", and the stream left as the layers' printing left it
  // (std::boolalpha: a bool printed next reads "true")
  const locus::PrintStyle saved = locus::print_style();
  locus::set_print_style(locus::PrintStyle::kLibtorch);
  torch::nn::Sequential fresh(torch::nn::Linear(2, 2));  // names are taken on first use
  EXPECT_EQ(fresh->name(), "torch::nn::SequentialImpl");
  EXPECT_EQ(fresh[0]->name(), "torch::nn::LinearImpl");
  std::ostringstream os;
  os << torch::nn::Linear(2, 2) << " " << true;
  EXPECT_EQ(os.str(), "torch::nn::Linear(in_features=2, out_features=2, bias=true) true");
  os.str("");
  os << std::setprecision(2) << torch::nn::Dropout(0.123);  // the stream's own settings apply
  EXPECT_EQ(os.str(), "torch::nn::Dropout(p=0.12, inplace=false)");
  locus::set_print_style(saved);
}


TEST(TorchProgram, OptimizerStateAndShortDtypeNames) {
  // torch::kU8 ... kF64 (torch/types.h's short names) are the long ones
  EXPECT_EQ(torch::kU8, torch::kByte);
  EXPECT_EQ(torch::kI8, torch::kChar);
  EXPECT_EQ(torch::kI16, torch::kShort);
  EXPECT_EQ(torch::kI32, torch::kInt);
  EXPECT_EQ(torch::kI64, torch::kLong);
  EXPECT_EQ(torch::kF16, torch::kHalf);
  EXPECT_EQ(torch::kF32, torch::kFloat);
  EXPECT_EQ(torch::kF64, torch::kDouble);
  EXPECT_EQ(torch::tensor({1, 2, 250}, torch::kU8).sum().item<int64_t>(), 253);
  // Optimizer::state(): one entry per parameter that has been stepped, keyed by its TensorImpl
  torch::nn::Linear a(3, 2), b(2, 2);
  torch::optim::SGD sgd(a->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  EXPECT_TRUE(sgd.state().empty());
  a(torch::ones({1, 3})).sum().backward();
  sgd.step();
  EXPECT_EQ(sgd.state().size(), 2u);
  ASSERT_EQ(sgd.state().count(a->weight.unsafeGetTensorImpl()), 1u);
  const torch::optim::SGD& const_sgd = sgd;
  EXPECT_EQ(const_sgd.state().at(a->weight.unsafeGetTensorImpl()).tensors["momentum_buffer"].sizes(),
            torch::IntArrayRef({2, 3}));
  sgd.add_param_group(torch::optim::OptimizerParamGroup(b->parameters()));
  EXPECT_EQ(sgd.param_groups().size(), 2u);
  EXPECT_EQ(sgd.state().count(b->weight.unsafeGetTensorImpl()), 0u);  // not stepped yet
}

TEST_P(TorchProgram, DeviceSpellings) {
  const torch::Device d = GetParam();
  auto t = torch::ones({2}, torch::device(d));
  EXPECT_EQ(t.get_device(), d.is_cpu() ? -1 : d.index());
  EXPECT_EQ(c10::DeviceTypeName(d.type(), /*lower_case=*/true), torch::device_type_name(d.type()));
}

TEST(TorchProgram, DeviceTypeNamesAndCudaStreams) {
  EXPECT_EQ(c10::DeviceTypeName(torch::kCPU), "CPU");
  EXPECT_EQ(c10::DeviceTypeName(torch::kCUDA), "CUDA");
  EXPECT_EQ(c10::DeviceTypeName(torch::kOpenCL), "OPENCL");
  EXPECT_EQ(c10::DeviceTypeName(torch::kCUDA, true), "cuda");
  EXPECT_EQ(at::cuda::device_count(), torch::cuda::device_count());
  EXPECT_EQ(at::cuda::is_available(), torch::cuda::is_available());
  for (const torch::Device& d : locus::all_devices()) {  // a stream of another device type is refused
    if (d.is_cuda() || d.is_cpu()) continue;
    EXPECT_THROW_MSG(c10::cuda::CUDAStream(locus::Stream::create(d)), torch::Error,
                     "CUDAStream: expected a stream on a cuda device, got one on " + d.str() +
                         "; use locus::Stream for opencl devices.");
  }
  if (!torch::cuda::is_available()) {  // the same NotAvailableError as any use of a missing device
    EXPECT_THROW_MSG(at::cuda::getStreamFromPool(), locus::NotAvailableError, "cuda:0 is not available");
    EXPECT_THROW_MSG(at::cuda::getCurrentCUDAStream(), locus::NotAvailableError, "cuda:0 is not available");
    EXPECT_THROW_MSG(at::cuda::getDefaultCUDAStream(0), locus::NotAvailableError, "cuda:0 is not available");
  }
}

TEST(TorchProgram, CudaStreamGuard) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no cuda device";
  const auto before = at::cuda::getCurrentCUDAStream();
  EXPECT_EQ(before, at::cuda::getDefaultCUDAStream());
  auto s = at::cuda::getStreamFromPool();
  EXPECT_NE(s, before);
  EXPECT_EQ(s.device(), torch::Device(torch::kCUDA, 0));
  {
    c10::cuda::CUDAStreamGuard guard(s);
    EXPECT_EQ(at::cuda::getCurrentCUDAStream(), s);
    EXPECT_EQ(guard.original_stream(), before);
    auto x = torch::ones({1024}, torch::kCUDA) * 2;  // queued on s
    s.synchronize();
    EXPECT_EQ(x.sum().item<float>(), 2048.0f);
  }
  EXPECT_EQ(at::cuda::getCurrentCUDAStream(), before);
}

// The spatial transformer tutorial's shape, in libtorch's spellings: kaiming with enum tags, a
// localisation net, affine_grid + grid_sample, a gradient hook, and the archive round trip.
struct StnImpl : torch::nn::Module {
  StnImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 4, 3).padding(torch::kSame)
                                                         .padding_mode(torch::kReflect)));
    fc = register_module("fc", torch::nn::Linear(4 * 6 * 6, 6));
    torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
    torch::NoGradGuard no_grad;
    fc->weight.zero_();
    fc->bias.copy_(torch::tensor({1.0, 0.0, 0.0, 0.0, 1.0, 0.0}));  // the identity transform
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto theta = fc->forward(torch::relu(conv->forward(x)).flatten(1)).view({-1, 2, 3});
    auto grid = F::affine_grid(theta, x.sizes(), /*align_corners=*/false);
    return F::grid_sample(x, grid, F::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kZeros)
                                       .align_corners(false));
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Stn);

TEST(TorchProgram, SpatialTransformerHooksAndArchives) {
  torch::manual_seed(0);
  Stn stn;
  auto x = torch::rand({2, 1, 6, 6});
  auto y = stn->forward(x);
  EXPECT_TRUE(torch::allclose(y, x, 1e-5, 1e-6));  // the identity transform samples every pixel's centre
  int calls = 0;
  auto h = stn->fc->weight.register_hook([&](torch::Tensor g) { ++calls; return g * 0; });
  y.pow(2).sum().backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(stn->fc->weight.grad().abs().sum().item<double>(), 0.0);  // the hook replaced it
  stn->fc->weight.remove_hook(h);
  EXPECT_TRUE(torch::isclose(torch::tensor({1.0}), torch::tensor({1.0 + 1e-9})).all().item<bool>());
  torch::serialize::OutputArchive out;
  out << stn;
  const std::string path = std::string(LOCUS_BINARY_DIR) + "/torch-program-stn.pt";
  out.save_to(path);
  Stn other;
  torch::serialize::InputArchive in;
  in.load_from(path);
  in >> other;
  EXPECT_TRUE(torch::equal(other->conv->weight, stn->conv->weight));
  std::remove(path.c_str());
}

}  // namespace
