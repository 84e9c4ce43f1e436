// nn::Module: registration and keys, moving between devices, placement, mismatch messages, modes.
#include <cmath>
#include <sstream>

#include "core/tensor_impl.h"
#include <utility>

#include "testing.h"

#include <tuple>

using namespace locus;

namespace module_test {

namespace {
struct PairOut : nn::Module {  // forward returns no Tensor
  std::tuple<Tensor, Tensor> forward(Tensor x) { return {x, x}; }
};
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
  EXPECT_EQ(seq->name(), "locus::nn::SequentialImpl");  // libtorch's: the class, "Impl" kept
  EXPECT_EQ(seq->type_name(), "locus::nn::Sequential");
}

TEST(Module, PrettyPrintEveryLayerAsLibtorch) {
  // What libtorch 1.13 prints for the same Sequential (torch:: spelled locus::).
  nn::Sequential seq(
      nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)),
      nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 2}).stride(2).dilation(2).groups(2).bias(false)), nn::BatchNorm2d(4),
      nn::BatchNorm1d(nn::BatchNormOptions(3).momentum(std::nullopt).affine(false)), nn::MaxPool2d(2),
      nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)), nn::AvgPool2d(2),
      nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1)), nn::AdaptiveAvgPool2d(1),
      nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({2, 3})), nn::Flatten(), nn::GELU(), nn::ReLU(),
      nn::ReLU(nn::ReLUOptions(true)), nn::LayerNorm(nn::LayerNormOptions({4})),
      nn::LayerNorm(nn::LayerNormOptions({2, 3}).elementwise_affine(false).eps(1e-6)), nn::Embedding(10, 3),
      nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)), nn::Sigmoid(), nn::Tanh(), nn::Dropout(0.5),
      nn::Dropout(), nn::Linear(nn::LinearOptions(3, 2).bias(false)));
  std::ostringstream os;
  os << seq;
  EXPECT_EQ(os.str(),
            "locus::nn::Sequential(\n"
            "  (0): locus::nn::Conv2d(1, 4, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
            "  (1): locus::nn::Conv2d(4, 8, kernel_size=[3, 2], stride=[2, 2], dilation=[2, 2], groups=2, bias=false)\n"
            "  (2): locus::nn::BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
            "  (3): locus::nn::BatchNorm1d(3, eps=1e-05, momentum=None, affine=false, track_running_stats=true)\n"
            "  (4): locus::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=false)\n"
            "  (5): locus::nn::MaxPool2d(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], dilation=[1, 1], ceil_mode=false)\n"
            "  (6): locus::nn::AvgPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])\n"
            "  (7): locus::nn::AvgPool2d(kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
            "  (8): locus::nn::AdaptiveAvgPool2d(output_size=[1, 1])\n"
            "  (9): locus::nn::AdaptiveAvgPool2d(output_size=[2, 3])\n"
            "  (10): locus::nn::Flatten(start_dim=1, end_dim=-1)\n"
            "  (11): locus::nn::GELU()\n"
            "  (12): locus::nn::ReLU()\n"
            "  (13): locus::nn::ReLU(inplace=true)\n"
            "  (14): locus::nn::LayerNorm([4], eps=1e-05, elementwise_affine=true)\n"
            "  (15): locus::nn::LayerNorm([2, 3], eps=1e-06, elementwise_affine=false)\n"
            "  (16): locus::nn::Embedding(num_embeddings=10, embedding_dim=3)\n"
            "  (17): locus::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0)\n"
            "  (18): locus::nn::Sigmoid()\n"
            "  (19): locus::nn::Tanh()\n"
            "  (20): locus::nn::Dropout(p=0.5, inplace=false)\n"
            "  (21): locus::nn::Dropout(p=0.5, inplace=false)\n"
            "  (22): locus::nn::Linear(in_features=3, out_features=2, bias=false)\n"
            ")");
  // and these, each compared with libtorch 1.13's output of the same program (1-D sizes print as
  // numbers, the padding's names quoted, the modes as their enum names, user modules with "Impl",
  // SmoothL1Loss and HuberLoss without parentheses, as libtorch's do)
  std::ostringstream more;
  more << nn::Conv1d(nn::Conv1dOptions(4, 6, 3).stride(2).padding(2)) << "\n"
       << nn::Conv2d(nn::Conv2dOptions(4, 6, 3).padding(kSame).padding_mode(kReflect)) << "\n"
       << nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2)) << "\n"
       << nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2.5})) << "\n"
       << nn::Unflatten(1, std::vector<int64_t>{2, 3}) << "\n"
       << nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)) << "\n"
       << nn::GELU(nn::GELUOptions().approximate("tanh")) << "\n"
       << nn::SmoothL1Loss() << " " << nn::HuberLoss() << "\n"
       << nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2));
  EXPECT_EQ(more.str(),
            "locus::nn::Conv1d(4, 6, kernel_size=3, stride=2, padding=2)\n"
            "locus::nn::Conv2d(4, 6, kernel_size=[3, 3], stride=[1, 1], padding='same', padding_mode=kReflect)\n"
            "locus::nn::MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=false)\n"
            "locus::nn::Upsample(scale_factor=[2.5], mode=kNearest)\n"
            "locus::nn::Unflatten(dim=1, unflattened_size={2, 3})\n"
            "locus::nn::LeakyReLU(negative_slope=0.2, inplace=true)\n"
            "locus::nn::GELU()\n"
            "locus::nn::SmoothL1Loss locus::nn::HuberLoss\n"
            "locus::nn::MultiheadAttention(\n"
            "  (out_proj): locus::nn::Linear(in_features=8, out_features=8, bias=true)\n"
            ")");
  std::ostringstream losses;
  losses << nn::CrossEntropyLoss() << " " << nn::MSELoss() << " " << nn::NLLLoss() << " " << nn::BCEWithLogitsLoss();
  EXPECT_EQ(losses.str(), "locus::nn::CrossEntropyLoss() locus::nn::MSELoss() locus::nn::NLLLoss() locus::nn::BCEWithLogitsLoss()");
  std::ostringstream list;
  list << nn::ModuleList(nn::Linear(2, 2), nn::ReLU());
  EXPECT_EQ(list.str(),
            "locus::nn::ModuleList(\n"
            "  (0): locus::nn::Linear(in_features=2, out_features=2, bias=true)\n"
            "  (1): locus::nn::ReLU()\n"
            ")");
  std::ostringstream net;
  net << Net();
  EXPECT_EQ(net.str(),  // a user module prints its class name, "Impl" kept (libtorch's "NetImpl(")
            "module_test::(anonymous namespace)::NetImpl(\n"
            "  (fc1): locus::nn::Linear(in_features=4, out_features=3, bias=true)\n"
            "  (bn): locus::nn::BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)\n"
            "  (fc2): locus::nn::Linear(in_features=3, out_features=2, bias=false)\n"
            ")");
}

TEST(Module, EmbeddingPaddingIdx) {
  nn::Embedding emb(nn::EmbeddingOptions(4, 2).padding_idx(-1));
  EXPECT_EQ(emb->options.padding_idx().value_or(-1), 3);
  EXPECT_EQ(values(emb->weight.select(0, 3)), std::vector<double>({0, 0}));
  emb(tensor({3, 1, 3})).sum().backward();
  EXPECT_EQ(values(emb->weight.grad()), std::vector<double>({0, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_THROW_MSG(nn::Embedding(nn::EmbeddingOptions(4, 2).padding_idx(4)), Error,
                   "Embedding: padding_idx (4) must be within num_embeddings (4).");
  EXPECT_THROW_MSG(nn::functional::embedding(tensor({0}), ones({4, 2}), nn::functional::EmbeddingFuncOptions().padding_idx(-5)),
                   Error, "[embedding] padding_idx (-5) must be within num_embeddings (4).");
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

TEST(Module, AsGivesTheImplementationOrNullptr) {
  // libtorch's way to reach a layer of a container: seq[i]->as<Linear>() (holder or Impl type)
  nn::Sequential seq(nn::Linear(2, 3), nn::ReLU(), nn::Linear(3, 1));
  nn::LinearImpl* first = seq[0]->as<nn::Linear>();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first, seq[0]->as<nn::LinearImpl>());
  EXPECT_EQ(first->weight.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(seq[1]->as<nn::Linear>(), nullptr);
  EXPECT_NE(seq[1]->as<nn::ReLU>(), nullptr);
  const nn::Module& last = *seq[2];
  const nn::LinearImpl* c = last.as<nn::Linear>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->weight.size(1), 3);
  EXPECT_EQ(last.as<nn::Conv2d>(), nullptr);
  nn::init::zeros_(first->bias);  // the pointer is the module's own: changes show in seq
  EXPECT_EQ(values(seq[0]->as<nn::Linear>()->bias), std::vector<double>({0, 0, 0}));
}

TEST(Module, SequentialAndModuleListExtend) {
  nn::Sequential seq(nn::Linear(2, 3));
  nn::Sequential tail(nn::ReLU(), nn::Linear(3, 1));
  seq->extend(*tail);  // shares tail's modules, keyed on from seq's size
  ASSERT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq[2], tail[1]);
  EXPECT_EQ(seq->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  auto x = randn({4, 2});
  EXPECT_TRUE(allclose(seq->forward(x), tail->forward(seq[0]->as<nn::Linear>()->forward(x))));
  seq->extend(std::vector<nn::Linear>{nn::Linear(1, 5)});  // a container of holders
  EXPECT_EQ(seq->forward(x).sizes(), IntArrayRef({4, 5}));
  seq->extend(*seq);  // by itself: each module once more
  EXPECT_EQ(seq->size(), 8u);

  nn::ModuleList list(nn::Linear(2, 2));
  list->extend(*nn::ModuleList(nn::ReLU(), nn::Tanh()));
  list->extend(std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::SigmoidImpl>()});
  list->extend(*list);
  ASSERT_EQ(list->size(), 8u);
  EXPECT_NE(list[3]->as<nn::Sigmoid>(), nullptr);
  EXPECT_EQ(list[4], list[0]);
  EXPECT_EQ(list->named_children().keys().back(), "7");
}

TEST(Module, SequentialHoldsAModuleWithoutATensorForward) {
  // as libtorch's: an LSTM (forward returns a tuple) can be held, printed, moved and counted;
  // running the Sequential through it is an error naming it
  nn::Sequential seq(nn::Linear(3, 3), nn::LSTM(3, 4));
  EXPECT_EQ(seq->parameters().size(), 2u + 4u);
  EXPECT_NE(seq[1]->as<nn::LSTM>(), nullptr);
  EXPECT_THROW_MSG(seq->forward(ones({2, 1, 3})), Error,
                   "[Sequential::forward] Sequential/1 (locus::nn::LSTM) has no forward(Tensor) returning a Tensor "
                   "(an LSTM returns a tuple); call its forward yourself, or wrap it in a module that returns the "
                   "Tensor you need.");
}

TEST(Module, SequentialOfNamedModulesAndUnregisterModule) {
  // libtorch's NamedAnyModule: holders, shared_ptrs and modules by value, each under its name
  nn::Sequential seq({{"fc", nn::Linear(3, 2)},
                      {"act", std::make_shared<nn::TanhImpl>()},
                      {"lstm", nn::LSTM(2, 2)}});
  seq->push_back(nn::NamedAnyModule("out", nn::LinearImpl(2, 1)));
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"fc", "act", "lstm", "out"}));
  EXPECT_EQ(seq->named_parameters().keys().front(), "fc.weight");
  EXPECT_NE(seq[0]->as<nn::Linear>(), nullptr);
  EXPECT_THROW_MSG(seq->forward(ones({4, 3})), Error, "[Sequential::forward] Sequential/lstm (locus::nn::LSTM) has no");
  seq->unregister_module("lstm");  // the named child goes; the Sequential's own list keeps it (as libtorch's)
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"fc", "act", "out"}));
  EXPECT_EQ(seq->parameters().size(), 4u);
  EXPECT_THROW_MSG(seq->unregister_module("lstm"), Error,
                   "[unregister_module] no submodule named 'lstm' is registered in Sequential; named_children() "
                   "lists the registered ones.");
  nn::Sequential plain({{"a", nn::Linear(2, 2)}, {"b", nn::ReLU()}});
  auto x = ones({1, 2});
  EXPECT_TRUE(equal(plain->forward(x), plain[1]->as<nn::ReLU>()->forward(plain[0]->as<nn::Linear>()->forward(x))));
}

TEST(Module, SequentialOfAnyModulesAndTypedPtr) {
  nn::AnyModule any(nn::Linear(2, 3));
  nn::Sequential seq(nn::Linear(2, 2));
  seq->push_back(any);                            // libtorch's push_back(AnyModule)
  seq->push_back("act", nn::AnyModule(nn::ReLU()));
  EXPECT_EQ(seq->named_children().keys(), (std::vector<std::string>{"0", "1", "act"}));
  EXPECT_EQ(seq->forward(ones({4, 2})).sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(seq->ptr<nn::LinearImpl>(1)->options.out_features(), 3);
  EXPECT_THROW_MSG(seq->ptr<nn::ReLUImpl>(0), Error,
                   "[Sequential::ptr] module 0 is a locus::nn::Linear, not the type asked for.");
  EXPECT_THROW_MSG(seq->ptr(3), Error, "[Sequential] index 3 is out of range for 3 modules.");
  EXPECT_THROW_MSG(seq[7], Error, "[Sequential] index 7 is out of range for 3 modules.");
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());  // the AnyModule's forward runs the clone
  EXPECT_TRUE(equal(copy->forward(ones({1, 2})), seq->forward(ones({1, 2}))));
  nn::ModuleList list(nn::Linear(1, 1));
  EXPECT_EQ(list->ptr<nn::ReLUImpl>(0), nullptr);  // ModuleList's ptr<T>: nullptr for another type
  EXPECT_THROW_MSG(list->ptr(1), Error, "[ModuleList] index 1 is out of range for 1 modules.");
  // an AnyModule whose forward returns no Tensor: held, and forward names it
  nn::Sequential with_pair;
  with_pair->push_back(nn::AnyModule(std::make_shared<PairOut>()));
  EXPECT_THROW_MSG(with_pair->forward(ones({1, 2})), Error, "held by an AnyModule) does not return a Tensor; call its forward");
}

// libtorch's apply() overloads: by reference (const or not), with qualified names, with shared_ptrs.
TEST(Module, ApplyOverloads) {
  nn::Sequential net(nn::Linear(2, 3), nn::Sequential(nn::ReLU(), nn::Linear(3, 1)));
  std::vector<std::string> names;
  net->apply([&](const std::string& name, nn::Module& m) { names.push_back(name + "=" + m.name()); });
  EXPECT_EQ(names, (std::vector<std::string>{"=locus::nn::SequentialImpl", "0=locus::nn::LinearImpl",
                                             "1=locus::nn::SequentialImpl", "1.0=locus::nn::ReLUImpl",
                                             "1.1=locus::nn::LinearImpl"}));  // name() is libtorch's class name
  names.clear();
  std::as_const(*net).apply([&](const std::string& name, const nn::Module&) { names.push_back(name); }, "net");
  EXPECT_EQ(names, (std::vector<std::string>{"net", "net.0", "net.1", "net.1.0", "net.1.1"}));
  int count = 0;
  std::as_const(*net).apply([&](const nn::Module&) { ++count; });
  EXPECT_EQ(count, 5);
  std::vector<std::shared_ptr<nn::Module>> all;
  net->apply([&](const std::shared_ptr<nn::Module>& m) { all.push_back(m); });
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].get(), net.ptr().get());
  int linears = 0;
  net->apply([&](const std::string&, const std::shared_ptr<nn::Module>& m) { linears += m->as<nn::Linear>() != nullptr; });
  EXPECT_EQ(linears, 2);
  // reinitialise every Linear, the way libtorch programs do
  net->apply([](nn::Module& m) {
    if (auto* fc = m.as<nn::Linear>()) {
      NoGradGuard g;
      fc->weight.fill_(0.5);
    }
  });
  EXPECT_EQ(net[0]->as<nn::Linear>()->weight.min().item<float>(), 0.5f);
  nn::LinearImpl on_stack(2, 2);  // not in a shared_ptr: the pointer forms cannot hand it out
  EXPECT_THROW_MSG(on_stack.apply([](const std::shared_ptr<nn::Module>&) {}), Error,
                   "[Module::apply] this locus::nn::Linear is not stored in a shared_ptr");
}

// ModuleDict as libtorch's: insert replaces, update, pop, clear, items, at<T>.
TEST(Module, ModuleDictEdits) {
  nn::ModuleDict dict;
  dict->insert("a", nn::Linear(2, 2));
  dict->update({{"b", std::make_shared<nn::ReLUImpl>()}, {"a", std::make_shared<nn::LinearImpl>(2, 5)}});
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dict->at<nn::LinearImpl>("a").options.out_features(), 5);  // replaced in place
  EXPECT_EQ(dict->named_children()["a"].get(), dict["a"].get());      // and registered as the child
  EXPECT_THROW_MSG(dict->at<nn::LinearImpl>("b"), Error, "[ModuleDict::at] the module under 'b' is a locus::nn::ReLU, not the type asked for.");
  nn::ModuleDict other;
  other->insert("c", nn::Linear(1, 1));
  dict->update(*other);
  EXPECT_EQ(dict->items().size(), 3u);
  auto b = dict->pop("b");
  EXPECT_NE(b->as<nn::ReLU>(), nullptr);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(dict->named_children().keys(), (std::vector<std::string>{"a", "c"}));
  EXPECT_ANY_THROW(dict->pop("b"));
  EXPECT_EQ(dict->parameters().size(), 4u);
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_TRUE(dict->parameters().empty());
}

TEST(Module, ZeroGrad) {
  nn::Linear fc(2, 1);
  fc(ones({3, 2})).sum().backward();
  EXPECT_TRUE(fc->weight.grad().defined());
  fc->zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(values(fc->weight.grad()), std::vector<double>({0, 0}));
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
  // layers without a bias register it empty: zero_grad passes over it (it threw "the tensor is
  // undefined" from every model with a bias(false) layer)
  nn::Conv2d conv(nn::Conv2dOptions(1, 2, 1).bias(false));
  nn::Sequential net(conv, nn::ConvTranspose2d(nn::ConvTranspose2dOptions(2, 1, 2).bias(false)));
  net->forward(ones({1, 1, 2, 2})).sum().backward();
  net->zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(values(conv->weight.grad()), std::vector<double>({0, 0}));
  net->zero_grad();
  EXPECT_FALSE(conv->weight.grad().defined());
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
  // both at once, back to cpu float32; every overload returns the module itself
  EXPECT_EQ(&net->to(Device(kCPU), kFloat), net.get());
  EXPECT_EQ(&net->to(kFloat), net.get());
  for (const auto& p : net->named_parameters()) {
    EXPECT_EQ(p.value().device(), Device(kCPU)) << p.key();
    EXPECT_EQ(p.value().scalar_type(), kFloat) << p.key();
    EXPECT_EQ(p.value().grad().device(), Device(kCPU)) << p.key();
    EXPECT_EQ(p.value().grad().scalar_type(), kFloat) << p.key();
  }
  EXPECT_EQ(net->bn->running_var.scalar_type(), kFloat);
  EXPECT_EQ(net->bn->num_batches_tracked.device(), Device(kCPU));
  EXPECT_EQ(w.unsafeGetTensorImpl(), impl);
  EXPECT_TRUE(w.is_leaf());
}

TEST_P(ModuleDevices, ToOnAlreadyPlacedModuleIsANoOp) {
  Device d = GetParam();
  nn::Linear fc(nn::LinearOptions(3, 2).device(d));
  Tensor w = fc->weight;
  const void* storage = w.impl()->storage.get();
  fc->to(d);
  fc->to(d, kFloat);
  EXPECT_EQ(fc->weight.impl()->storage.get(), storage);  // no copy when nothing changes
}

TEST_P(ModuleDevices, TrainingStepMatchesCpu) {
  // A CNN with batch norm and Adam: initialised with one seed on cpu and on the device, one step
  // each on the same batch: parameters and running statistics agree within float tolerance.
  Device d = GetParam();
  auto make = [](std::optional<Device> dev) {
    manual_seed(21);
    // no conv bias before batch norm: its gradient is zero up to rounding, and Adam's first step
    // (lr * sign(g)) would turn that rounding into differences of lr
    nn::Sequential m(nn::Conv2d(nn::Conv2dOptions(1, 3, 3).padding(1).bias(false).device(dev)),
                     nn::BatchNorm2d(nn::BatchNormOptions(3).device(dev)), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                     nn::Linear(nn::LinearOptions(12, 3).device(dev)));
    return m;
  };
  nn::Sequential a = make(std::nullopt), b = make(d);
  EXPECT_EQ(nn::device_of(b), d);
  for (size_t i = 0; i < a->parameters().size(); ++i) EXPECT_EQ(values(a->parameters()[i]), values(b->parameters()[i])) << i;
  manual_seed(4);
  Tensor x = randn({5, 1, 4, 4}), y = tensor({0, 1, 2, 1, 0});
  optim::Adam oa(a->parameters(), optim::AdamOptions(0.01)), ob(b->parameters(), optim::AdamOptions(0.01));
  nn::functional::cross_entropy(a(x), y).backward();
  oa.step();
  nn::functional::cross_entropy(b(x.to(d)), y.to(d)).backward();
  ob.step();
  auto sa = a->named_parameters(), sb = b->named_parameters();
  for (size_t i = 0; i < sa.size(); ++i) {
    auto va = values(sa[i].value()), vb = values(sb[i].value());
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], 1e-5) << sa[i].key();
  }
  auto ba = a->named_buffers(), bb = b->named_buffers();
  for (size_t i = 0; i < ba.size(); ++i) {
    EXPECT_EQ(bb[i].value().device(), d);
    auto va = values(ba[i].value()), vb = values(bb[i].value());
    for (size_t k = 0; k < va.size(); ++k) EXPECT_NEAR(va[k], vb[k], 1e-5) << ba[i].key();
  }
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
  std::string exact;
  try {
    model->forward(x);
  } catch (const DeviceMismatchError& e) {
    exact = e.what();
  }
  EXPECT_EQ(exact, "Sequential/0 (Linear 784->256): weight is on " + d.str() + " but input is on cpu; move the input with .to(" +
                       d.str() + ")");
  if (d == Device(kOpenCL, 0))  // the text, word for word
    EXPECT_EQ(exact, "Sequential/0 (Linear 784->256): weight is on opencl:0 but input is on cpu; move the input with .to(opencl:0)");
  model->to(d);
  EXPECT_THROW_MSG(model(ones({2, 784}, TensorOptions().device(d)).cpu()), DeviceMismatchError, "Sequential/0");
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 2, 3)), nn::BatchNorm2d(2), nn::Flatten(), nn::Embedding(3, 2));
  cnn->to(d);
  EXPECT_THROW_MSG(cnn(ones({1, 1, 3, 3})), DeviceMismatchError,
                   "Sequential/0 (Conv2d 1->2 3x3): weight is on " + d.str() + " but input is on cpu; move the input with .to(" + d.str() + ")");
  EXPECT_THROW_MSG(cnn->at<nn::BatchNorm2dImpl>(1).forward(ones({2, 2, 1, 1})), DeviceMismatchError,
                   "Sequential/1 (BatchNorm2d): weight is on " + d.str() + " but input is on cpu");
  EXPECT_THROW_MSG(cnn->at<nn::EmbeddingImpl>(3).forward(tensor({0})), DeviceMismatchError,
                   "Sequential/3 (Embedding): weight is on " + d.str() + " but input is on cpu");
  nn::Linear alone(3, 2);
  EXPECT_THROW_MSG(alone(ones({1, 3}, TensorOptions().device(d))), DeviceMismatchError,
                   "Linear 3->2: weight is on cpu but input is on " + d.str() + "; move the input with .to(cpu)");
  Net net;
  net->fc2->to(d);
  EXPECT_THROW_MSG(nn::device_of(net), DeviceMismatchError,
                   "[device_of] Net is split across devices: scale is on cpu but fc2.weight is on " + d.str());
  EXPECT_THROW_MSG(net->forward(ones({5, 4})), DeviceMismatchError,
                   "Net/fc2 (Linear 3->2): weight is on " + d.str() + " but input is on cpu");
}

// ParameterList and ParameterDict: registration under libtorch's keys, requires_grad kept, handles
// that reach the module's parameters, insertion order, pop/clear, clone, printing, messages.
TEST(ParameterContainers, ListAndDict) {
  nn::ParameterList list(ones({2, 3}).requires_grad_(), zeros({4}));
  list->append(full({1}, 2.0).requires_grad_());
  ASSERT_EQ(list->size(), 3u);
  std::vector<std::string> keys;
  for (const auto& item : list->named_parameters()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_TRUE(list[0].requires_grad());
  EXPECT_FALSE(list->at(1).requires_grad());
  {
    NoGradGuard no_grad;
    list[2].fill_(5);  // a handle: the module's parameter changes
  }
  EXPECT_EQ(list->parameters()[2].item<double>(), 5);
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->size(), 3u);
  EXPECT_NE(copy->at(0).data_ptr(), list[0].data_ptr());
  EXPECT_TRUE(copy->at(0).requires_grad());
  EXPECT_EQ(copy->at(2).item<double>(), 5);
  std::ostringstream os;
  os << *list;
  EXPECT_EQ(os.str(), "locus::nn::ParameterList(\n(0): Parameter containing: [Float of size [2, 3]]\n"
                      "(1): Parameter containing: [Float of size [4]]\n(2): Parameter containing: [Float of size [1]]\n)");
  EXPECT_THROW_MSG(list->at(3), Error, "[ParameterList::at] index 3 is out of range for a list of 3 parameters.");

  nn::ParameterDict dict;
  dict->insert("w", randn({3, 2}).requires_grad_());
  dict->insert("b", zeros({2}).requires_grad_());
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"w", "b"}));
  EXPECT_TRUE(dict->contains("b"));
  Tensor b = dict->pop("b");
  EXPECT_EQ(b.sizes(), IntArrayRef({2}));
  EXPECT_FALSE(dict->contains("b"));
  EXPECT_EQ(dict->parameters().size(), 1u);  // unregistered from the module too
  dict->insert("w", ones({1}).requires_grad_());  // replaces
  EXPECT_EQ(dict["w"].sizes(), IntArrayRef({1}));
  EXPECT_EQ(dict->named_parameters().size(), 1u);
  EXPECT_THROW_MSG(dict->pop("x"), Error, "[ParameterDict::pop] no parameter named 'x'; the keys are 'w'.");
  auto dcopy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(dict->clone());
  EXPECT_EQ(dcopy->keys(), dict->keys());
  dict->clear();
  EXPECT_TRUE(dict->empty());
  EXPECT_TRUE(dict->parameters().empty());
  EXPECT_EQ(dcopy->size(), 1u);  // the clone keeps its own
  // inside a model: parameters() and an optimizer see them
  struct NetImpl : nn::Module {
    NetImpl() { params = register_module("params", nn::ParameterList(ones({2}).requires_grad_())); }
    nn::ParameterList params{nullptr};
  };
  NetImpl net;
  ASSERT_EQ(net.named_parameters().size(), 1u);
  EXPECT_EQ(net.named_parameters()[0].key(), "params.0");
}

}  // namespace module_test
