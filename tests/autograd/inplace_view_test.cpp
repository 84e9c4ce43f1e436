// In-place ops on views (PyTorch's CopySlices): `outputs[t] = h` in an RNN's loop, `y[1:3].mul_(w)`,
// copy_/fill_/index_put_/scatter_/index_add_ on tensors of the graph and on their views. The base
// of the view becomes the output of a CopySlices node (the written part's gradient goes to the
// values written, the rest to the base's previous history) and the view a view of it again. A view
// whose storage was written since its grad_fn was set gets its base's new history when next used.
// Gradients from PyTorch 1.13 (inplace_view_cases.py), in float64, on every device.
#include <string>
#include <vector>

#include "autograd/inplace_fixture.h"

using namespace locus;
using namespace locus::indexing;

namespace inplace_view_test {

class InplaceView : public InplaceFixture {
 protected:
  Tensor idx(std::vector<int64_t> v) const { return tensor(v, TensorOptions().dtype(kLong).device(GetParam())); }
};

TEST_P(InplaceView, RnnLoopWritingEachStepIntoAPreallocatedTensor) {
  Tensor out = zeros({3, 4}, o());
  Tensor h = x;
  for (int64_t t = 0; t < 3; ++t) {
    h = tanh(h * w + v);
    out[t] = h;  // libtorch's idiom: copy_ into the temporary view
  }
  EXPECT_TRUE(out.requires_grad());
  EXPECT_EQ(out.grad_fn()->name(), "torch::autograd::CopySlices");
  Tensor coeff = arange(12, o()).reshape({3, 4}) / 10;
  (out * coeff).sum().backward();
  expect_grad(x, {0.0010951069, -2.3757275359, 0.2239897401, 0.0006570052}, "x");
  expect_grad(w, {-0.0213397682, 0.6488937735, 0.8076661274, 0.0116656075}, "w");
  expect_grad(v, {0.0215174922, 1.2156513194, 1.4033101102, 0.0114264636}, "v");

  // the same as the stacked form
  std::vector<double> gx = values(x.grad()), gw = values(w.grad());
  x.mutable_grad() = Tensor();
  w.mutable_grad() = Tensor();
  h = x;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < 3; ++t) steps.push_back(h = tanh(h * w + v));
  (stack(steps) * coeff).sum().backward();
  expect_grad(x, gx, "x (stack)");
  expect_grad(w, gw, "w (stack)");
}

TEST_P(InplaceView, OpOnAViewReadsItsOldValues) {
  Tensor y = x * 1;
  Tensor part = y.narrow(0, 1, 2);
  part.mul_(w.narrow(0, 1, 2));
  EXPECT_EQ(y.grad_fn()->name(), "torch::autograd::CopySlices");
  EXPECT_EQ(values(y), (std::vector<double>{-1.0, -1.0, 1.0, 1.5}));
  (y * v).sum().backward();
  expect_grad(x, {0.25, -3.0, -0.375, 2.0}, "x");
  expect_grad(w, {0.0, 0.75, -1.5, 0.0}, "w");
  expect_grad(v, {-1.0, -1.0, 1.0, 1.5}, "v");
}

TEST_P(InplaceView, CopyIntoAViewOfAGraphTensor) {
  Tensor y = x * 2;
  y.narrow(0, 0, 2).copy_(w.narrow(0, 2, 2) * v.narrow(0, 0, 2));
  (y * y).sum().backward();
  expect_grad(x, {0.0, 0.0, 16.0, 12.0}, "x");
  expect_grad(w, {0.0, 0.0, 0.0625, 5.625}, "w");
  expect_grad(v, {0.125, 4.6875, 0.0, 0.0}, "v");
}

TEST_P(InplaceView, CopyFromAnotherDeviceIntoAView) {
  Tensor src = tensor({2.0, -1.0}, TensorOptions().dtype(kDouble)).requires_grad_(true);  // on cpu
  Tensor out = zeros({2, 2}, o());
  out[1] = src * 3;
  (out * arange(4, o()).reshape({2, 2})).sum().backward();
  ASSERT_TRUE(src.grad().defined());
  EXPECT_EQ(src.grad().device(), Device(kCPU));
  EXPECT_EQ(values(src.grad()), (std::vector<double>{6.0, 9.0}));
}

TEST_P(InplaceView, IndexPutWithTensorIndices) {
  Tensor y = zeros({4}, o());
  y.index_put_({idx({3, 1})}, x.narrow(0, 0, 2) * w.narrow(0, 0, 2));
  (y * v).sum().backward();
  expect_grad(x, {6.0, -3.0, 0.0, 0.0}, "x");
  expect_grad(w, {-2.0, 0.75, 0.0, 0.0}, "w");
  expect_grad(v, {0.0, -1.0, 0.0, -3.0}, "v");
}

TEST_P(InplaceView, IndexPutAccumulatingIntoAGraphTensor) {
  Tensor y = x * 1;
  y.index_put_({std::optional<Tensor>(idx({0, 0, 2}))}, w.narrow(0, 0, 3), /*accumulate=*/true);
  (y * y * v).sum().backward();
  expect_grad(x, {0.0, 1.5, -3.75, 6.0}, "x");
  expect_grad(w, {0.0, 0.0, -3.75, 0.0}, "w");
  expect_grad(v, {0.0, 0.25, 6.25, 2.25}, "v");
}

TEST_P(InplaceView, FillAndScalarWritesGiveTheOverwrittenPartNoGradient) {
  Tensor y = x * w;
  y.fill_(2);
  EXPECT_EQ(y.grad_fn()->name(), "FillBackward2");
  (y * v).sum().backward();
  expect_grad(x, {0.0, 0.0, 0.0, 0.0}, "x (fill_)");
  expect_grad(w, {0.0, 0.0, 0.0, 0.0}, "w (fill_)");

  x.mutable_grad() = w.mutable_grad() = v.mutable_grad() = Tensor();
  Tensor z = x * w;
  z.index_put_({Slice(1, 3)}, 0);  // z[1:3] = 0
  EXPECT_EQ(values(z), (std::vector<double>{-3.0, 0.0, 0.0, 1.875}));
  (z * v).sum().backward();
  expect_grad(x, {0.75, 0.0, 0.0, 2.5}, "x (slice)");
  expect_grad(w, {-0.25, 0.0, 0.0, 3.0}, "w (slice)");
  expect_grad(v, {-3.0, 0.0, 0.0, 1.875}, "v (slice)");
}

TEST_P(InplaceView, ScatterAndIndexAddOnGraphTensors) {
  Tensor y = x * 1;
  y.scatter_(0, idx({1, 3}), w.narrow(0, 0, 2));
  (y * v).sum().backward();
  expect_grad(x, {0.25, 0.0, -0.75, 0.0}, "x (scatter_)");
  expect_grad(w, {1.5, 2.0, 0.0, 0.0}, "w (scatter_)");
  expect_grad(v, {-1.0, 3.0, 2.0, -2.0}, "v (scatter_)");

  x.mutable_grad() = w.mutable_grad() = v.mutable_grad() = Tensor();
  y = x * x;
  y.scatter_add_(0, idx({2, 2}), w.narrow(0, 0, 2) * v.narrow(0, 0, 2));
  (y * v).sum().backward();
  expect_grad(x, {-0.5, 1.5, -3.0, 6.0}, "x (scatter_add_)");
  expect_grad(w, {-0.1875, -1.125, 0.0, 0.0}, "w (scatter_add_)");
  expect_grad(v, {-1.25, 1.75, 1.75, 2.25}, "v (scatter_add_)");

  x.mutable_grad() = w.mutable_grad() = v.mutable_grad() = Tensor();
  y = x * 1;
  y.index_add_(0, idx({0, 0, 2}), w.narrow(0, 0, 3), 2);
  (y * y).sum().backward();
  expect_grad(x, {2.0, 1.0, 6.0, 3.0}, "x (index_add_)");
  expect_grad(w, {4.0, 4.0, 12.0, 0.0}, "w (index_add_)");
}

TEST_P(InplaceView, AViewTakenBeforeItsBaseChangedFollowsTheBase) {
  Tensor y = x * 1;
  Tensor r = y.narrow(0, 0, 2);
  y.mul_(w);  // r's values are y's new ones, so is its history
  (r * v.narrow(0, 0, 2)).sum().backward();
  expect_grad(x, {0.75, -3.0, 0.0, 0.0}, "x");
  expect_grad(w, {-0.25, 0.75, 0.0, 0.0}, "w");
  expect_grad(v, {-3.0, -1.0, 0.0, 0.0}, "v");
}

TEST_P(InplaceView, AViewTakenBeforeItsBaseJoinedTheGraph) {
  Tensor out = zeros({4}, o());
  Tensor r = out.narrow(0, 0, 2);
  out.narrow(0, 0, 2).copy_(x.narrow(0, 0, 2));
  r.mul_(w.narrow(0, 0, 2));  // PyTorch refuses this; locus puts r in out's graph first
  (out * v).sum().backward();
  expect_grad(x, {0.75, -3.0, 0.0, 0.0}, "x");
  expect_grad(w, {-0.25, 0.75, 0.0, 0.0}, "w");
  expect_grad(v, {-3.0, -1.0, 0.0, 0.0}, "v");
}

TEST_P(InplaceView, AViewReadAfterItsBaseJoinedTheGraphFollowsIt) {
  Tensor out = zeros({4}, o());
  Tensor first = out.narrow(0, 0, 2);
  EXPECT_FALSE(first.requires_grad());
  out.narrow(0, 0, 2).copy_(x.narrow(0, 0, 2) * w.narrow(0, 0, 2));
  EXPECT_TRUE(first.requires_grad());  // as PyTorch's
  ASSERT_NE(first.grad_fn(), nullptr);
  EXPECT_EQ(first.grad_fn()->name(), "AsStridedBackward0");
  (first * v.narrow(0, 0, 2)).sum().backward();
  expect_grad(x, {0.75, -3.0, 0.0, 0.0}, "x");
  expect_grad(w, {-0.25, 0.75, 0.0, 0.0}, "w");
}

TEST_P(InplaceView, AViewMadeUnderNoGradStaysOutOfTheGraph) {
  Tensor y = x * 1;
  Tensor t;
  {
    NoGradGuard no_grad;
    t = y.narrow(0, 0, 2);
  }
  EXPECT_FALSE(t.requires_grad());
  EXPECT_THROW_MSG(t.mul_(w.narrow(0, 0, 2)), Error,
                   "[mul_] the tensor is a view made while grad mode was off (under NoGradGuard) of a tensor in the "
                   "autograd graph, and is being modified in place with grad mode on: the op cannot be recorded. Make "
                   "the view and modify it both with grad mode on, or both under NoGradGuard.");
  EXPECT_EQ(values(y), (std::vector<double>{-1.0, 0.5, 2.0, 1.5}));
  Tensor u = t * 2;  // read: a constant, as a tensor computed under NoGradGuard
  EXPECT_FALSE(u.requires_grad());
}

TEST_P(InplaceView, AViewOfATransposedView) {
  Tensor y = (x * 1).reshape({2, 2}).clone();
  y.t()[1].mul_(w.narrow(0, 0, 2));  // column 1 of y
  (y.reshape({4}) * v).sum().backward();
  expect_grad(x, {0.25, 4.5, -0.75, -4.0}, "x");
  expect_grad(w, {0.75, 3.0, 0.0, 0.0}, "w");
  expect_grad(v, {-1.0, 1.5, 2.0, -3.0}, "v");
}

TEST_P(InplaceView, SecondDerivativeThroughASlice) {
  // the gradient reaching the slice depends on x: slicing's backward must be recorded
  Tensor g = autograd::grad({x.narrow(0, 1, 2).pow(2).sum()}, {x}, {}, true, /*create_graph=*/true)[0];
  EXPECT_TRUE(g.requires_grad());
  (g * g * v).sum().backward();
  expect_grad(x, {0.0, 6.0, -12.0, 0.0}, "x");
}

TEST_P(InplaceView, RefusalsNameTheOpAndWriteNothing) {
  EXPECT_THROW_MSG(x.narrow(0, 0, 2).mul_(2), Error,
                   "[mul_] a view of a leaf Variable that requires grad is being used in an in-place operation. Wrap "
                   "the update in locus::NoGradGuard, or modify a clone() of the view.");
  EXPECT_THROW_MSG(x[0].fill_(1), Error, "[fill_] a view of a leaf Variable that requires grad");
  EXPECT_THROW_MSG(x.index_put_({Slice(0, 2)}, 0), Error, "[index_put_] a leaf Variable that requires grad");
  EXPECT_THROW_MSG(x.scatter_(0, idx({0}), w.narrow(0, 0, 1)), Error, "[scatter_] a leaf Variable that requires grad");
  EXPECT_EQ(values(x), (std::vector<double>{-1.0, 0.5, 2.0, 1.5}));
  {
    NoGradGuard no_grad;  // outside the graph: an ordinary write
    x.narrow(0, 0, 2).mul_(2);
  }
  EXPECT_EQ(values(x), (std::vector<double>{-2.0, 1.0, 2.0, 1.5}));
}

LOCUS_INSTANTIATE_DEVICES(InplaceView);

TEST(InplaceViewCpu, AViewOfANonContiguousTensorIsRefused) {
  std::vector<double> buf = {1, 2, 3, 4};
  Tensor b = from_blob(buf.data(), {2, 2}, {1, 2}, TensorOptions().dtype(kDouble));  // column-major: no view
  Tensor x = tensor({5.0, 6.0}, TensorOptions().dtype(kDouble)).requires_grad_(true);
  EXPECT_THROW_MSG(b[0].copy_(x), Error,
                   "[copy_] the tensor is a view of a non-contiguous tensor, and locus records in-place operations only "
                   "on views of contiguous tensors; make the base contiguous() first, or use the out-of-place form.");
  EXPECT_EQ(buf, (std::vector<double>{1, 2, 3, 4}));
  Tensor c = b.contiguous();
  c[0].copy_(x);
  (c * c).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{10.0, 12.0}));
}

}  // namespace inplace_view_test
