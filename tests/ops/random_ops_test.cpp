// The draws of src/ops/random_ops.cpp (bernoulli, random_, exponential_, geometric_,
// log_normal_, cauchy_, multinomial, normal, poisson) by their ranges and moments over many
// draws with fixed seeds, the same numbers on every device for a seed, and isclose against
// PyTorch 1.13's values. On every device.
#include <algorithm>
#include <cmath>
#include <set>

#include "testing.h"

using namespace locus;

namespace random_ops_test {

using V = std::vector<double>;

namespace {
double mean_of(const Tensor& t) { return t.to(kDouble).mean().item<double>(); }
}  // namespace

class RandomOps : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().dtype(t).device(GetParam()); }
};

TEST_P(RandomOps, BernoulliInPlaceAndFromProbabilities) {
  manual_seed(1);
  Tensor t = empty({20000}, o());
  t.bernoulli_(0.3);
  std::set<double> seen;
  for (double v : values(t)) seen.insert(v);
  EXPECT_EQ(seen, (std::set<double>{0, 1}));
  EXPECT_NEAR(mean_of(t), 0.3, 0.015);
  // probabilities 0 and 1 are certain; a tensor of probabilities broadcasts
  Tensor p = tensor({0.0, 1.0, 0.5}, o(kDouble));
  Tensor b = empty({4000, 3}, o()).bernoulli_(p);
  EXPECT_EQ(b.select(1, 0).sum().item<double>(), 0);
  EXPECT_EQ(b.select(1, 1).sum().item<double>(), 4000);
  EXPECT_NEAR(mean_of(b.select(1, 2)), 0.5, 0.03);
  Tensor c = bernoulli(full({5000}, 0.8, o()));
  EXPECT_EQ(c.scalar_type(), kFloat);
  EXPECT_NEAR(mean_of(c), 0.8, 0.02);
  EXPECT_NEAR(mean_of(bernoulli(zeros({5000}, o()), 0.25)), 0.25, 0.02);
  // a seed gives the same draws on every device
  manual_seed(7);
  Tensor here = empty({64}, o()).bernoulli_(0.5);
  manual_seed(7);
  Tensor on_cpu = empty({64}).bernoulli_(0.5);
  EXPECT_EQ(values(here), values(on_cpu));
}

TEST_P(RandomOps, RandomInRanges) {
  manual_seed(2);
  Tensor a = empty({5000}, o()).random_(3, 7);
  EXPECT_EQ(a.min().item<double>(), 3);
  EXPECT_EQ(a.max().item<double>(), 6);
  EXPECT_TRUE(a.eq(a.floor()).all().item<bool>());
  EXPECT_NEAR(mean_of(a), 4.5, 0.06);
  Tensor b = empty({5000}, o(kLong)).random_(5);
  EXPECT_EQ(b.min().item<int64_t>(), 0);
  EXPECT_EQ(b.max().item<int64_t>(), 4);
  Tensor f = empty({5000}, o()).random_();  // [0, 2^24] for float32
  EXPECT_GE(f.min().item<double>(), 0);
  EXPECT_LE(f.max().item<double>(), 16777216.0);
  EXPECT_GT(f.max().item<double>(), 16777216.0 * 0.9);
  Tensor wide = empty({2000}, o(kLong)).random_();  // [0, 2^63 - 1]: the 63-bit path
  EXPECT_GE(wide.min().item<int64_t>(), 0);
  EXPECT_GT(wide.max().item<int64_t>(), int64_t(1) << 61);
  Tensor flags = empty({1000}, o(kBool)).random_();
  EXPECT_NEAR(mean_of(flags), 0.5, 0.06);
  Tensor wider = empty({2000}, o(kLong)).random_(-(int64_t(1) << 60), int64_t(1) << 60);  // 2^61 > 2^53
  EXPECT_GE(wider.min().item<int64_t>(), -(int64_t(1) << 60));
  EXPECT_LT(wider.max().item<int64_t>(), int64_t(1) << 60);
  EXPECT_LT(wider.min().item<int64_t>(), -(int64_t(1) << 58));
  EXPECT_GT(wider.max().item<int64_t>(), int64_t(1) << 58);
  Tensor neg = empty({3000}, o(kLong)).random_(-5, -2);
  EXPECT_EQ(neg.min().item<int64_t>(), -5);
  EXPECT_EQ(neg.max().item<int64_t>(), -3);
}

TEST_P(RandomOps, ContinuousDistributionsByTheirMoments) {
  manual_seed(3);
  const int64_t n = 40000;
  Tensor e = empty({n}, o()).exponential_(2.0);
  EXPECT_GE(e.min().item<double>(), 0);
  EXPECT_NEAR(mean_of(e), 0.5, 0.015);
  Tensor g = empty({n}, o()).geometric_(0.25);
  EXPECT_GE(g.min().item<double>(), 1);
  EXPECT_TRUE(g.eq(g.floor()).all().item<bool>());
  EXPECT_NEAR(mean_of(g), 4.0, 0.08);  // 1 / p
  Tensor l = empty({n}, o(kDouble)).log_normal_(0.0, 0.5);
  EXPECT_GT(l.min().item<double>(), 0);
  EXPECT_NEAR(mean_of(l.log()), 0.0, 0.01);
  EXPECT_NEAR(l.log().std().item<double>(), 0.5, 0.01);
  Tensor c = empty({n}, o(kDouble)).cauchy_(1.0, 2.0);
  V sorted = values(std::get<0>(c.sort(0)));
  EXPECT_NEAR(sorted[n / 2], 1.0, 0.06);            // median
  EXPECT_NEAR(sorted[3 * n / 4] - sorted[n / 4], 4.0, 0.15);  // interquartile range 2 sigma
  Tensor m = normal(tensor({0.0, 10.0}, o(kDouble)).expand({n, 2}).contiguous(), tensor({1.0, 0.1}, o(kDouble)));
  EXPECT_EQ(m.sizes(), IntArrayRef({n, 2}));
  EXPECT_NEAR(mean_of(m.select(1, 1)), 10.0, 0.005);
  EXPECT_NEAR(m.select(1, 0).std().item<double>(), 1.0, 0.02);
  Tensor s = normal(3.0, 0.5, {n}, o());
  EXPECT_EQ(s.device(), GetParam());
  EXPECT_NEAR(mean_of(s), 3.0, 0.01);
  EXPECT_NEAR(mean_of(normal(full({n}, -2.0, o()))), -2.0, 0.02);
  EXPECT_NEAR(normal(0.0, full({n}, 4.0, o())).std().item<double>(), 4.0, 0.08);
  Tensor pz = poisson(tensor({0.0, 2.0, 50.0}, o()).expand({n / 4, 3}).contiguous());
  EXPECT_EQ(pz.device(), GetParam());
  EXPECT_EQ(pz.select(1, 0).abs().sum().item<double>(), 0);
  EXPECT_NEAR(mean_of(pz.select(1, 1)), 2.0, 0.05);
  EXPECT_NEAR(mean_of(pz.select(1, 2)), 50.0, 0.3);
  EXPECT_TRUE(pz.eq(pz.floor()).all().item<bool>());
}

TEST_P(RandomOps, MultinomialWithAndWithoutReplacement) {
  manual_seed(4);
  Tensor w = tensor({0.0, 1.0, 3.0}, o());
  Tensor draws = w.multinomial(8000, true);
  EXPECT_EQ(draws.scalar_type(), kLong);
  EXPECT_EQ(draws.sizes(), IntArrayRef({8000}));
  EXPECT_EQ(draws.eq(0).sum().item<int64_t>(), 0);  // weight 0: never
  EXPECT_NEAR(mean_of(draws.eq(2)), 0.75, 0.02);
  // without replacement: each row a set of distinct, non-zero-weight categories
  Tensor rows = tensor({{1.0, 0.0, 2.0, 1.0}, {5.0, 5.0, 0.0, 1.0}}, o());
  for (int i = 0; i < 20; ++i) {
    V r = values(multinomial(rows, 3));
    EXPECT_EQ(std::set<double>(r.begin(), r.begin() + 3).size(), 3u);
    EXPECT_EQ(std::set<double>(r.begin() + 3, r.end()).size(), 3u);
    EXPECT_TRUE(std::find(r.begin(), r.begin() + 3, 1.0) == r.begin() + 3);
    EXPECT_TRUE(std::find(r.begin() + 3, r.end(), 2.0) == r.end());
  }
  // the first draw without replacement follows the weights
  Tensor first = tensor({1.0, 3.0}, o()).expand({6000, 2}).contiguous().multinomial(1).squeeze(1);
  EXPECT_NEAR(mean_of(first), 0.75, 0.02);
  EXPECT_EQ(values(std::get<0>(tensor({2.0, 1.0, 4.0}, o()).multinomial(3).sort(0))), (V{0, 1, 2}));
}

TEST_P(RandomOps, IscloseMatchesPyTorch) {
  const double inf = INFINITY, nan = NAN;
  Tensor a = tensor({1.0, 1 + 1e-6, inf, nan, -inf, 1e-9, 2.0}, o());
  Tensor b = tensor({1.0, 1.0, inf, nan, inf, 0.0, 2.1}, o());
  // PyTorch 1.13: torch.isclose(a, b), (..., equal_nan=True), (..., rtol=0.1)
  EXPECT_EQ(values(isclose(a, b)), (V{1, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(values(a.isclose(b, 1e-5, 1e-8, true)), (V{1, 1, 1, 1, 0, 1, 0}));
  EXPECT_EQ(values(a.isclose(b, 0.1)), (V{1, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(isclose(a, b).scalar_type(), kBool);
  EXPECT_EQ(values(isclose(tensor({1, 2, 3}, o(kLong)), tensor({1, 3, 3}, o(kLong)))), (V{1, 0, 1}));
}

TEST_P(RandomOps, Messages) {
  Tensor t = empty({4}, o());
  EXPECT_THROW_MSG(t.bernoulli_(1.5), Error, "[bernoulli_] expects 0 <= p <= 1, but got p=1.5.");
  EXPECT_THROW_MSG(t.bernoulli_(tensor({0.5, 2.0}, o())), Error, "[bernoulli_] expects every probability in p to be in [0, 1].");
  EXPECT_THROW_MSG(t.random_(5, 5), Error, "[random_] expects 'from' to be less than 'to', but got from=5 >= to=5.");
  EXPECT_THROW_MSG(t.exponential_(0), Error, "[exponential_] expects lambda > 0.0, but found lambda=0.");
  EXPECT_THROW_MSG(t.geometric_(1), Error, "[geometric_] expects p to be in (0, 1), but got p=1.");
  EXPECT_THROW_MSG(t.log_normal_(0, -1), Error, "[log_normal_] expects std > 0.0, but found std=-1.");
  EXPECT_THROW_MSG(t.cauchy_(0, 0), Error, "[cauchy_] expects sigma > 0.0, but found sigma=0.");
  EXPECT_THROW_MSG(empty({4}, o(kLong)).exponential_(), Error, "[exponential_] expects a floating-point tensor, got int64");
  EXPECT_THROW_MSG(t.multinomial(5), Error,
                   "[multinomial] cannot sample n_sample > prob_dist.size(-1) samples without replacement (5 > 4)");
  EXPECT_THROW_MSG(tensor({1.0, -1.0}, o()).multinomial(1), Error,
                   "[multinomial] probability tensor contains either inf, nan or element < 0.");
  EXPECT_THROW_MSG(zeros({3}, o()).multinomial(1, true), Error,
                   "[multinomial] invalid multinomial distribution (sum of probabilities <= 0).");
  EXPECT_THROW_MSG(tensor({1.0, 0.0, 0.0}, o()).multinomial(2), Error,
                   "[multinomial] invalid multinomial distribution (with replacement=False, not enough non-negative");
  EXPECT_THROW_MSG(zeros({1, 2, 3}, o()).multinomial(1), Error, "[multinomial] prob_dist must be 1 or 2 dim, got 3 dims");
  EXPECT_THROW_MSG(t.multinomial(0), Error, "[multinomial] cannot sample n_sample <= 0 samples (got 0).");
  EXPECT_THROW_MSG(normal(0.0, -1.0, {2}), Error, "[normal] expects std >= 0.0, but found std -1.");
  EXPECT_THROW_MSG(normal(0.0, tensor({-1.0}, o())), Error, "[normal] expects all elements of std >= 0.0.");
  EXPECT_THROW_MSG(poisson(tensor({1.0, -2.0}, o())), Error,
                   "[poisson] expects every rate to be finite and >= 0, got -2 at flat index 1.");
  EXPECT_THROW_MSG(isclose(t, empty({4}, o(kDouble))), Error, "[isclose] float32 did not match float64");
  EXPECT_THROW_MSG(isclose(t, t, -1), Error, "[isclose] rtol must be greater than or equal to zero, but got -1.");
}

LOCUS_INSTANTIATE_DEVICES(RandomOps);

}  // namespace random_ops_test
