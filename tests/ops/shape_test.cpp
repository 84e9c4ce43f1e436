// flip and repeat (copies composed of index_select / expand); expected values from PyTorch 1.13.
#include "testing.h"

using namespace locus;

namespace shape_test {

using V = std::vector<double>;

namespace {

class Shape : public ::testing::TestWithParam<Device> {
 protected:
  Tensor x() const { return tensor({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}, TensorOptions().device(GetParam())); }
};

TEST_P(Shape, FlipAndRepeat) {
  EXPECT_EQ(values(x().flip({0})), (V{-4, 5, -6, 1, -2, 3}));
  EXPECT_EQ(values(flip(x(), {0, -1})), (V{-6, 5, -4, 3, -2, 1}));
  Tensor a = x();
  EXPECT_FALSE(a.flip({}).is_alias_of(a));
  Tensor r = tensor({1.0, 2.0}, TensorOptions().device(GetParam())).repeat({2, 2});
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(values(r), (V{1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(x().repeat({1, 2}).sizes(), IntArrayRef({2, 6}));
  Tensor w = x().requires_grad_();
  (w.flip({1}) * tensor({1.0, 2.0, 3.0}, TensorOptions().device(GetParam()))).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{3, 2, 1, 3, 2, 1}));
  EXPECT_THROW_MSG(x().repeat({2}), Error,
                   "[repeat] number of dimensions of repeat dims (1) can not be smaller than number of dimensions of tensor (2).");
  EXPECT_THROW_MSG(x().flip({0, 0}), Error, "[flip] dim 0 appears multiple times in the list of dims.");
}

LOCUS_INSTANTIATE_DEVICES(Shape);

}  // namespace

}  // namespace shape_test
