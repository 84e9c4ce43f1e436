// sort, argsort, topk on every device; expected values from PyTorch 1.13.
#include <cmath>
#include <limits>

#include "testing.h"

using namespace locus;

namespace sort_test {

using V = std::vector<double>;

namespace {

class Sort : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
  Tensor t() const { return tensor({{3.0, 1.0, 2.0, 5.0}, {0.0, -1.0, 4.0, 4.0}}, o()); }
};

TEST_P(Sort, SortAlongDims) {
  auto [v, i] = t().sort();
  EXPECT_EQ(values(v), (V{1, 2, 3, 5, -1, 0, 4, 4}));
  EXPECT_EQ(values(i), (V{1, 2, 0, 3, 1, 0, 2, 3}));
  EXPECT_EQ(i.scalar_type(), kLong);
  EXPECT_EQ(i.device(), GetParam());
  auto [v0, i0] = sort(t(), 0, /*descending=*/true);
  EXPECT_EQ(values(v0), (V{3, 1, 4, 5, 0, -1, 2, 4}));
  EXPECT_EQ(values(i0), (V{0, 0, 1, 0, 1, 1, 0, 1}));
  EXPECT_EQ(values(t().argsort(1)), (V{1, 2, 0, 3, 1, 0, 2, 3}));
  EXPECT_EQ(values(std::get<1>(tensor({5, 2, 9, 2}, o(kLong)).sort())), (V{1, 3, 0, 2}));  // stable
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor n = tensor({1.0, nan, -2.0, 3.0}, o());
  EXPECT_EQ(values(std::get<1>(n.sort())), (V{2, 0, 3, 1}));  // NaN last ascending
  EXPECT_EQ(values(std::get<1>(n.sort(0, true))), (V{1, 3, 0, 2}));  // and first descending
  auto [s, si] = full({}, 7.0, o()).sort();
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(si.item<int64_t>(), 0);
}

TEST_P(Sort, TopkAndItsGradient) {
  auto [v, i] = t().topk(2);
  EXPECT_EQ(values(v), (V{5, 3, 4, 4}));
  EXPECT_EQ(values(i), (V{3, 0, 2, 3}));
  auto [v1, i1] = topk(t(), 1, 0, /*largest=*/false);
  EXPECT_EQ(v1.sizes(), IntArrayRef({1, 4}));
  EXPECT_EQ(values(v1), (V{0, -1, 2, 4}));
  EXPECT_EQ(values(i1), (V{1, 1, 0, 1}));
  Tensor w = t().requires_grad_();
  std::get<0>(w.topk(2)).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{1, 0, 0, 1, 0, 0, 1, 1}));
  EXPECT_EQ(std::get<0>(t().topk(0)).sizes(), IntArrayRef({2, 0}));
  EXPECT_THROW_MSG(t().topk(5), Error, "[topk] k (5) is out of range for dimension 1 of size 4; pick 0 <= k <= 4.");
  EXPECT_THROW_MSG(t().sort(2), Error, "[sort] dimension out of range");
}

LOCUS_INSTANTIATE_DEVICES(Sort);

}  // namespace

}  // namespace sort_test
