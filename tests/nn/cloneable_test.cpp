// nn::Cloneable and Module::clone (libtorch's): deep copies on any device, containers, user
// modules with submodules, and the errors for modules that cannot be cloned.
#include "locus/nn/cloneable.h"

#include "testing.h"

using namespace locus;

namespace cloneable_test {

namespace {

struct TwoLayerImpl : nn::Cloneable<TwoLayerImpl> {
  explicit TwoLayerImpl(int64_t hidden) : hidden(hidden) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", nn::Linear(4, hidden));
    bn = register_module("bn", nn::BatchNorm1d(hidden));
    head = register_module("head", nn::Sequential(nn::ReLU(), nn::Linear(hidden, 2)));
    scale = register_parameter("scale", full({1}, 2.0));
    register_buffer("steps", zeros({}, TensorOptions().dtype(kLong)));
  }
  Tensor forward(const Tensor& x) { return head(bn(fc1(x))) * scale; }
  int64_t hidden;
  nn::Linear fc1{nullptr};
  nn::BatchNorm1d bn{nullptr};
  nn::Sequential head{nullptr};
  Tensor scale;
};
LOCUS_MODULE(TwoLayer);

struct PlainImpl : nn::Module {
  PlainImpl() : nn::Module("Plain") { register_module("fc", nn::Linear(2, 2)); }
};

struct ForgetfulImpl : nn::Cloneable<ForgetfulImpl> {
  ForgetfulImpl() { register_parameter("w", ones({2})); }  // in the constructor, not in reset()
  void reset() override {}
};

void expect_deep_copy(const nn::Module& a, const nn::Module& b, Device where) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  for (const auto& p : pa) {
    const Tensor& q = pb[p.key()];
    EXPECT_EQ(q.device(), where) << p.key();
    EXPECT_TRUE(q.cpu().equal(p.value().cpu())) << p.key();
    EXPECT_FALSE(q.is_same(p.value())) << p.key();
    EXPECT_TRUE(q.is_leaf() && q.requires_grad()) << p.key();
  }
  auto ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.keys(), bb.keys());
  for (const auto& x : ba) EXPECT_TRUE(bb[x.key()].cpu().equal(x.value().cpu())) << x.key();
}

}  // namespace

class Clone : public testing::TestWithParam<Device> {};

TEST_P(Clone, DeepCopiesOntoADevice) {
  manual_seed(3);
  TwoLayer net(5);
  {
    NoGradGuard no_grad;
    net->bn->running_mean.fill_(0.5);  // values reset() would not give
  }
  net->eval();
  auto copy = std::dynamic_pointer_cast<TwoLayerImpl>(net->clone(GetParam()));
  ASSERT_TRUE(copy);
  expect_deep_copy(*net, *copy, GetParam());
  EXPECT_EQ(copy->hidden, 5);
  EXPECT_FALSE(copy->is_training());
  EXPECT_FALSE(copy->fc1->is_training());
  // the clone's members are its own submodules, and they carry the copied values
  EXPECT_EQ(copy->fc1->weight.device(), GetParam());
  EXPECT_TRUE(copy->fc1->weight.is_same(copy->named_parameters()["fc1.weight"]));
  EXPECT_EQ(copy->fc1->path(), "TwoLayer/fc1");
  EXPECT_EQ(copy->head->ptr(1)->path(), "TwoLayer/head/1");
  Tensor x = randn({3, 4});
  EXPECT_TRUE(copy->forward(x.to(GetParam())).cpu().allclose(net->forward(x), 1e-5, 1e-6));
  // changing the clone leaves the original alone
  {
    NoGradGuard no_grad;
    copy->fc1->weight.fill_(0);
  }
  EXPECT_NE(net->fc1->weight.abs().sum().item<float>(), 0.0f);
}

TEST_P(Clone, ContainersCloneTheirChildren) {
  nn::Sequential seq(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 1));
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone(GetParam()));
  ASSERT_TRUE(copy);
  expect_deep_copy(*seq, *copy, GetParam());
  Tensor x = randn({2, 3});
  EXPECT_TRUE(copy->forward(x.to(GetParam())).cpu().allclose(seq->forward(x), 1e-5, 1e-6));
  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  expect_deep_copy(*list, *list->clone(GetParam()), GetParam());
  nn::ModuleDict dict;
  dict->insert("a", nn::Linear(2, 3));
  expect_deep_copy(*dict, *dict->clone(GetParam()), GetParam());
}

LOCUS_INSTANTIATE_DEVICES(Clone);

TEST(CloneErrors, ModulesThatCannotBeCloned) {
  auto plain = std::make_shared<PlainImpl>();
  EXPECT_THROW_MSG(plain->clone(), Error,
                   "[clone] clone() has not been implemented for Plain: derive its class from nn::Cloneable<the "
                   "class> instead of nn::Module, and register its parameters, buffers and submodules in reset() "
                   "(locus/nn/cloneable.h).");
  nn::ModuleList list(nn::Linear(2, 2));
  list->push_back(plain);
  EXPECT_THROW_MSG(list->clone(), Error, "clone() has not been implemented for Plain");
  auto forgetful = std::make_shared<ForgetfulImpl>();
  EXPECT_THROW_MSG(forgetful->clone(), Error,
                   "::reset() registered 0 parameters but the module has 1. Register every parameter, buffer and "
                   "submodule in reset(), not in the constructor.");
}

}  // namespace cloneable_test
