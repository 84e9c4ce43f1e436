// In-place ops in the autograd graph (PyTorch's rebase_history): `y += x`, `y.relu_()`,
// `acc += f(x)` into a tensor that does not require grad, copy_ into and from graph tensors. The
// op runs out of place on a clone of self (so its formula keeps the old values), the result is
// written into self's storage and self becomes the output of the result's node. Every in-place
// write bumps the storage's version; a node whose saved tensor was written afterwards throws in
// backward rather than computing with the new values. Gradients from PyTorch 1.13
// (inplace_cases.py), in float64, on every device.
#include <string>
#include <vector>

#include "autograd/inplace_fixture.h"

using namespace locus;

namespace inplace_test {

class Inplace : public InplaceFixture {};

TEST_P(Inplace, ResidualAddThenReluAsPyTorch) {
  Tensor y = x * w;
  y += v;
  y.relu_();
  (y * y).sum().backward();
  expect_grad(x, {0.0, -2.0, 0.25, 9.6875}, "x");
  expect_grad(w, {0.0, 0.5, 1.0, 11.625}, "w");
  expect_grad(v, {0.0, 1.0, 0.5, 7.75}, "v");
  EXPECT_EQ(y.grad_fn()->name(), "CopyBackwards");
}

TEST_P(Inplace, AccumulatingIntoATensorWithoutGradRecordsIt) {
  Tensor acc = zeros({4}, o());
  acc += x * x;
  acc.add_(w, 2);
  EXPECT_TRUE(acc.requires_grad());
  EXPECT_FALSE(acc.is_leaf());
  (acc * v).sum().backward();
  expect_grad(x, {-0.5, 1.5, -3.0, 6.0}, "x");
  expect_grad(w, {0.5, 3.0, -1.5, 4.0}, "w");
  expect_grad(v, {7.0, -3.75, 5.0, 4.75}, "v");
}

TEST_P(Inplace, OpsReadingSelfUseItsOldValues) {
  Tensor y = x * 1;
  y.mul_(w);
  y.div_(v);
  y.pow_(2);
  y.clamp_(-3, 3);
  (y * v).sum().backward();
  expect_grad(x, {0.0, 2.6666666667, -1.3333333333, 2.34375}, "x");
  expect_grad(w, {0.0, -0.6666666667, -5.3333333333, 2.8125}, "w");
  expect_grad(v, {3.0, -0.4444444444, -1.7777777778, -0.87890625}, "v");
}

TEST_P(Inplace, UnaryChainSavesCopiesOfItsResults) {
  // PyTorch refuses this chain (each op saves its result, the next overwrites it); locus's
  // in-place ops save a copy of their result, so it equals the out-of-place chain.
  Tensor y = x * w;
  y.sigmoid_();
  y.tanh_();
  y.exp_();
  y.sub_(v);
  (y * y).sum().backward();
  expect_grad(x, {0.2264447103, 0.1900833519, 0.5863071909, 0.0039912113}, "x");
  expect_grad(w, {-0.0754815701, -0.047520838, 2.3452287634, 0.0047894536}, "w");
  expect_grad(v, {-1.5970624429, 0.3992841554, -5.231684463, -0.0269615103}, "v");
}

TEST_P(Inplace, MaskedFillAndCopyAsPyTorch) {
  {
    Tensor y = x * w;
    y.masked_fill_(y > 0, 0.5);
    y.mul_(v);
    y.sum().backward();
    expect_grad(x, {0.75, -3.0, 0.0, 0.0}, "masked_fill x");
    expect_grad(w, {-0.25, 0.75, 0.0, 0.0}, "masked_fill w");
    expect_grad(v, {-3.0, -1.0, 0.5, 0.5}, "masked_fill v");
  }
  SetUp();
  {
    Tensor y = x * 1;
    y.copy_(w * 2);
    (y * v).sum().backward();
    expect_grad(x, {0.0, 0.0, 0.0, 0.0}, "copy_ into x");
    expect_grad(w, {0.5, 3.0, -1.5, 4.0}, "copy_ into w");
    expect_grad(v, {6.0, -4.0, 1.0, 2.5}, "copy_ into v");
  }
  SetUp();
  {
    Tensor y = empty({4}, o());
    y.copy_(w);
    y.mul_(x);
    y.sum().backward();
    expect_grad(x, {3.0, -2.0, 0.5, 1.25}, "copy_ from x");
    expect_grad(w, {-1.0, 0.5, 2.0, 1.5}, "copy_ from w");
  }
}

TEST_P(Inplace, CopyFromAnotherDeviceOrDtypeSendsTheGradientBack) {
  Tensor src = tensor({1.0f, 2.0f, 3.0f, 4.0f}, TensorOptions().device(kCPU)).requires_grad_(true);
  Tensor y = zeros({4}, o());
  y.copy_(src);  // float32 on the cpu into float64 on the device
  (y * y).sum().backward();
  EXPECT_EQ(src.grad().device(), Device(kCPU));
  EXPECT_EQ(src.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(src.grad()), (std::vector<double>{2, 4, 6, 8}));
}

TEST_P(Inplace, ModifiedSavedTensorsThrowInBackward) {
  {
    Tensor y = x.exp();
    y.add_(1);
    EXPECT_THROW_MSG(y.sum().backward(), Error,
                     "[backward] one of the variables needed for gradient computation has been modified by an in-place "
                     "operation: the result of ExpBackward0, which its backward saved, is at version 1; expected version 0");
  }
  {
    Tensor y = x * 1;
    Tensor z = y * w;
    y.add_(1);
    EXPECT_THROW_MSG(z.sum().backward(), Error, "input 0 of MulBackward0, which its backward reads, is at version 1");
  }
  {  // an input only added is not read by the backward: no error, the gradient is exact
    Tensor y = x * 2;
    Tensor z = y + w;
    y.mul_(3);
    z.sum().backward();
    expect_grad(x, {2.0, 2.0, 2.0, 2.0}, "x through the add");
  }
  {  // written without grad mode (as an optimizer does) counts as well
    Tensor y = x * 1;
    Tensor z = (y * y).sum();
    {
      NoGradGuard no_grad;
      y.mul_(2);
    }
    EXPECT_THROW_MSG(z.backward(), Error, "input 0 of MulBackward0, which its backward reads, is at version 1");
  }
}

TEST_P(Inplace, OptimizerStepThenBackwardThroughTheOldGraphThrows) {
  Tensor p = tensor({1.0, 2.0}, o()).requires_grad_(true);
  Tensor loss = (p * p).sum();
  loss.backward({}, /*retain_graph=*/true);
  optim::SGD opt({p}, optim::SGDOptions(0.1));
  opt.step();
  EXPECT_THROW_MSG(loss.backward(), Error, "has been modified by an in-place operation: input 0 of MulBackward0");
}

TEST_P(Inplace, RefusalsNameTheOpAndTheFix) {
  EXPECT_THROW_MSG(x.add_(1), Error,
                   "[add_] a leaf Variable that requires grad is being used in an in-place operation. Wrap the update "
                   "in locus::NoGradGuard, or use the out-of-place form.");
  EXPECT_THROW_MSG(x.relu_(), Error, "[relu_] a leaf Variable that requires grad");
  EXPECT_THROW_MSG(x.copy_(w), Error, "[copy_] a leaf Variable that requires grad");
  // nothing was written by the refused ops
  EXPECT_EQ(values(x), (std::vector<double>{-1.0, 0.5, 2.0, 1.5}));
  // (views of tensors in the graph are recorded, through their base: inplace_view_test.cpp)
  Tensor y = x * 1;
  y.view({2, 2}).clamp_(0, 1);
  EXPECT_EQ(y.grad_fn()->name(), "torch::autograd::CopySlices");
}

TEST_P(Inplace, InplaceReluModuleTrainsAsTheOutOfPlaceOne) {
  manual_seed(0);
  nn::Sequential a(nn::Linear(4, 8), nn::ReLU(nn::ReLUOptions().inplace(true)), nn::Linear(8, 2));
  manual_seed(0);
  nn::Sequential b(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 2));
  a->to(GetParam(), kDouble);
  b->to(GetParam(), kDouble);
  Tensor in = arange(12, o()).reshape({3, 4}).sin();
  a->forward(in).pow(2).sum().backward();
  b->forward(in).pow(2).sum().backward();
  auto pa = a->parameters(), pb = b->parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    std::vector<double> ga = values(pa[i].grad()), gb = values(pb[i].grad());
    ASSERT_EQ(ga.size(), gb.size());
    for (size_t k = 0; k < ga.size(); ++k) EXPECT_NEAR(ga[k], gb[k], 1e-12);
  }
}

LOCUS_INSTANTIATE_DEVICES(Inplace);

}  // namespace inplace_test
