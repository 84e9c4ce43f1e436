// Tensor::register_hook / remove_hook / retain_grad (src/autograd/engine.cpp), as libtorch's:
// a hook sees (and may replace) the gradient of a leaf before it is accumulated and of a non-leaf
// before it flows on; retain_grad keeps a non-leaf's gradient in .grad. On every device.
#include <vector>

#include "testing.h"

using namespace locus;

namespace tensor_hooks_test {
using V = std::vector<double>;

class TensorHooks : public testing::TestWithParam<Device> {
 protected:
  Tensor leaf(V v) const { return tensor(v, TensorOptions().dtype(kDouble)).to(GetParam()).requires_grad_(); }
};

TEST_P(TensorHooks, LeafHookReplacesTheGradientBeforeAccumulation) {
  Tensor x = leaf({1, 2});
  std::vector<V> seen;
  x.register_hook([&](Tensor g) { seen.push_back(values(g)); });  // void: reads only
  unsigned h = x.register_hook([](Tensor g) { return g * 10; });
  (x * x).sum().backward();  // d/dx = 2x = [2, 4]
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (V{2, 4}));
  EXPECT_EQ(values(x.grad()), (V{20, 40}));
  x.remove_hook(h);
  (x * x).sum().backward();  // accumulates the unhooked gradient
  EXPECT_EQ(values(x.grad()), (V{22, 44}));
  EXPECT_EQ(seen.size(), 2u);
}

TEST_P(TensorHooks, NonLeafHookChangesWhatFlowsUpstream) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  y.register_hook([](const Tensor& g) { return g * 3; });
  (y * y).sum().backward();  // dL/dy = 2y = [4, 8], hooked to [12, 24]; dL/dx = 2 * that
  EXPECT_EQ(values(x.grad()), (V{24, 48}));
  EXPECT_FALSE(y.grad().defined());  // not retained
  // a hook on a tensor autograd.grad passes through runs there too
  Tensor a = leaf({3});
  Tensor b = a * a;
  b.register_hook([](Tensor g) { return g * 0.5; });
  EXPECT_EQ(values(autograd::grad({b.sum()}, {a})[0]), (V{3}));  // 2a * 0.5
}

TEST_P(TensorHooks, RetainGradKeepsAndAccumulatesANonLeafGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  EXPECT_FALSE(y.retains_grad());
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  EXPECT_FALSE(x.retains_grad());  // a leaf keeps its gradient anyway
  x.retain_grad();                 // a no-op there
  (y * y).sum().backward(/*gradient=*/{}, /*retain_graph=*/true);
  EXPECT_EQ(values(y.grad()), (V{4, 8}));
  (y * y).sum().backward();
  EXPECT_EQ(values(y.grad()), (V{8, 16}));  // accumulated, as a leaf's
  EXPECT_EQ(values(x.grad()), (V{16, 32}));
  // a hook registered after retain_grad still runs before it (PyTorch 2's order: retain_grad last)
  Tensor z = x.detach().requires_grad_() * 2;
  z.retain_grad();
  z.register_hook([](Tensor g) { return g * 3; });
  (z * z).sum().backward();
  EXPECT_EQ(values(z.grad()), (V{12, 24}));
}

TEST_P(TensorHooks, Messages) {
  Tensor c = tensor({1.0}, TensorOptions().dtype(kDouble)).to(GetParam());
  EXPECT_THROW_MSG(c.register_hook([](Tensor g) { return g; }), Error,
                   "[register_hook] cannot register a hook on a tensor that doesn't require gradient");
  EXPECT_THROW_MSG(c.retain_grad(), Error, "[retain_grad] can't retain_grad on Tensor that has requires_grad=False");
  Tensor x = leaf({1});
  unsigned h = x.register_hook([](Tensor g) { return g; });
  x.remove_hook(h);
  EXPECT_THROW_MSG(x.remove_hook(h), Error, "[remove_hook] this tensor has no hook with handle");
}

LOCUS_INSTANTIATE_DEVICES(TensorHooks);

}  // namespace tensor_hooks_test
