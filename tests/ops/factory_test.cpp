#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "testing.h"

using namespace locus;

namespace factory_test {

using V = std::vector<double>;

class Factory : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
};

TEST_P(Factory, FillsOnTheTargetDevice) {
  Device d = GetParam();
  EXPECT_EQ(values(zeros({2, 2}, o())), V(4, 0.0));
  EXPECT_EQ(values(ones({3}, o(kInt))), V(3, 1.0));
  EXPECT_EQ(values(full({2}, 7, o())), (V{7, 7}));
  EXPECT_EQ(full({2}, 7, device(d)).dtype(), kLong);
  EXPECT_EQ(full({2}, 7.5, device(d)).dtype(), kFloat);
  EXPECT_EQ(full({2}, true, device(d)).dtype(), kBool);
  EXPECT_EQ(values(arange(5, device(d))), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(5, device(d)).dtype(), kLong);
  EXPECT_EQ(values(arange(1, 2, 0.25, device(d))), (V{1, 1.25, 1.5, 1.75}));
  EXPECT_EQ(arange(1, 2, 0.25, device(d)).dtype(), kFloat);
  EXPECT_EQ(values(linspace(0, 1, 5, o())), (V{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values(eye(2, 3, o())), (V{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(eye(3, o())), (V{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  for (const Tensor& t : {zeros({1}, o()), randn({1}, o()), rand({1}, o()), randint(3, {1}, device(d)), eye(2, o())})
    EXPECT_EQ(t.device().type(), d.type());
  EXPECT_THROW_MSG(arange(0, 1, 0, device(d)), Error, "step must be nonzero");
  EXPECT_THROW_MSG(zeros({-1}, o()), Error, "negative dimension -1");
  EXPECT_THROW_MSG(rand({2}, o(kLong)), Error, "expected a floating dtype");
  EXPECT_THROW_MSG(randint(3, 3, {1}, device(d)), Error, "expected low < high");
}

// Every int64 fills exactly, beyond 2^53 too (a double holds integers exactly only up to there),
// on a 0-dim tensor and on a strided view; values at 2^53 and below keep the fast fill.
TEST_P(Factory, Int64FillsAreExactBeyondTwoToThe53) {
  const int64_t big = (int64_t{1} << 53) + 1, top = std::numeric_limits<int64_t>::max(),
                low = std::numeric_limits<int64_t>::min() + 1;
  for (int64_t v : {big, -big, top, low, int64_t{1} << 53}) {
    Tensor t = full({5}, v, o(kLong));
    std::vector<int64_t> got(5);
    std::memcpy(got.data(), t.cpu().data_ptr(), sizeof(int64_t) * 5);
    EXPECT_EQ(got, std::vector<int64_t>(5, v)) << v;
    EXPECT_EQ(full({}, v, o(kLong)).item<int64_t>(), v) << v;
  }
  Tensor m = zeros({3, 4}, o(kLong));
  m.select(1, 2).fill_(big);  // a strided view: column 2 only
  Tensor h = m.cpu();
  const int64_t* p = static_cast<const int64_t*>(h.data_ptr());
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(p[i], i % 4 == 2 ? big : 0) << i;
}

// requires_grad in the options: the filled factories fill first, then make the leaf require grad
// (filling a leaf that requires grad in place is refused).
TEST_P(Factory, FilledFactoriesTakeRequiresGrad) {
  TensorOptions g = o().requires_grad(true);
  for (const Tensor& t : {zeros({2, 3}, g), ones({4}, g), full({2}, 2.5, g), eye(3, g), rand({2}, g), randn({2}, g),
                          arange(0, 3, 1, g), linspace(0, 1, 3, g), empty({2}, g)}) {
    EXPECT_TRUE(t.requires_grad());
    EXPECT_TRUE(t.is_leaf());
  }
  EXPECT_EQ(values(ones({3}, g)), V(3, 1.0));
  EXPECT_EQ(values(eye(2, g)), (V{1, 0, 0, 1}));
  Tensor z = zeros({3}, g);
  (z * 2).sum().backward();
  EXPECT_EQ(values(z.grad()), V(3, 2.0));
}

TEST_P(Factory, LikeKeepsDeviceAndDtype) {
  Tensor x = zeros({2, 3}, o(kHalf));
  for (const Tensor& t : {empty_like(x), zeros_like(x), ones_like(x), full_like(x, 2), rand_like(x), randn_like(x)}) {
    EXPECT_EQ(t.device(), x.device());
    EXPECT_EQ(t.dtype(), kHalf);
    EXPECT_EQ(t.sizes(), x.sizes());
  }
  EXPECT_EQ(randint_like(x.to(kLong), 0, 5).dtype(), kLong);
  EXPECT_EQ(zeros_like(x, kFloat).dtype(), kFloat);  // options override
  EXPECT_EQ(zeros_like(x, device(kCPU)).device(), Device(kCPU));
}

TEST_P(Factory, RandomNumbersAreTheSameOnEveryDevice) {
  manual_seed(42);
  Tensor here = rand({1000}, o());
  Tensor n_here = randn({1001}, o());
  Tensor i_here = randint(-5, 5, {999}, device(GetParam()));
  manual_seed(42);
  Tensor cpu = rand({1000});
  Tensor n_cpu = randn({1001});
  Tensor i_cpu = randint(-5, 5, {999});
  EXPECT_TRUE(here.cpu().equal(cpu));
  EXPECT_TRUE(i_here.cpu().equal(i_cpu));
  EXPECT_TRUE(n_here.cpu().allclose(n_cpu, 1e-5, 1e-5));
  V u = values(cpu);
  double mean = 0;
  for (double v : u) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
    mean += v / u.size();
  }
  EXPECT_NEAR(mean, 0.5, 0.05);
  V iv = values(i_cpu);
  for (double v : iv) {
    EXPECT_GE(v, -5);
    EXPECT_LT(v, 5);
  }
  // the stream advances: two draws differ, reseeding repeats
  manual_seed(1);
  Tensor a = rand({8}, o()), b = rand({8}, o());
  manual_seed(1);
  EXPECT_FALSE(a.equal(b));
  EXPECT_TRUE(rand({8}, o()).equal(a));
}

TEST_P(Factory, NormalStatistics) {
  manual_seed(7);
  Tensor n = randn({100000}, o());
  EXPECT_NEAR(n.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR((n * n).mean().item<double>(), 1.0, 0.03);
}

TEST_P(Factory, RandpermIsAPermutation) {
  manual_seed(5);
  Tensor p = randperm(50, device(GetParam()));
  EXPECT_EQ(p.dtype(), kLong);
  V v = values(p);
  std::sort(v.begin(), v.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(v[i], i);
}

TEST_P(Factory, UniformAndNormalInPlace) {
  Tensor t = zeros({2000}, TensorOptions().device(GetParam()));
  Tensor alias = t;
  t.uniform_(-2, 3);
  std::vector<double> v = values(alias);  // filled in place
  double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  EXPECT_GE(lo, -2.0);
  EXPECT_LT(hi, 3.0);
  EXPECT_NEAR(t.mean().item<double>(), 0.5, 0.15);
  manual_seed(3);
  t.normal_(10, 2);
  EXPECT_NEAR(t.mean().item<double>(), 10.0, 0.2);
  EXPECT_NEAR(t.std().item<double>(), 2.0, 0.2);
  manual_seed(3);
  EXPECT_TRUE(t.allclose(randn({2000}, TensorOptions().device(GetParam())) * 2 + 10));
  EXPECT_THROW_MSG(t.uniform_(1, 0), Error, "[uniform_] expects from <= to, got from=1.000000 > to=0.000000.");
}

LOCUS_INSTANTIATE_DEVICES(Factory);

}  // namespace factory_test
