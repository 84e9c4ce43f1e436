// The ops batch (stop 46) of reductions and composite ops on every device, against PyTorch 1.13
// (tests/ops/more_ops_cases.py prints the table below; gradients are those of sum(out * W), W =
// 1, 2, 3, ...): prod / all / any along a dim (prod's gradient exact with zeros), nansum, nanmean,
// index_fill, masked_scatter, take, put, swapaxes, tensor_split, round with decimals, fmax / fmin,
// renorm, combinations, matrix_power, multi_dot / chain_matmul, baddbmm, addbmm, addmv, addr, vander,
// cosine_similarity, pairwise_distance, frobenius_norm; plus finite-difference gradchecks and the
// error messages.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace more_ops_test {
using V = std::vector<double>;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Output of tests/ops/more_ops_cases.py (PyTorch 1.13, float64).
const std::map<std::string, V> kTorch = {
{"prod1", {-0.0, 0.0, 3.0}},
{"prod0 keepdim", {0.0, 0.0, 36.0, -1.0}},
{"prod1 grad", {-0.0, -6.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 4.5, 3.0, 18.0}},
{"prod0 grad", {0.0, 0.0, 36.0, 4.0, 2.0, 0.0, 27.0, -2.0, 0.0, 0.0, 36.0, -8.0}},
{"prod all grad", {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
{"prod row grad", {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 1.5, 1.0, 6.0}},
{"nansum", {6.0}},
{"nansum1", {4.0, 2.0}},
{"nansum0 keepdim", {1.0, 0.0, 5.0}},
{"nanmean", {2.0}},
{"nanmean1", {2.0, 2.0}},
{"nanmean0", {1.0, kNan, 2.5}},
{"nansum1 grad", {1.0, 0.0, 1.0, 0.0, 0.0, 2.0}},
{"nanmean1 grad", {0.5, 0.0, 0.5, 0.0, 0.0, 2.0}},
{"nanmean0 grad", {1.0, kNan, 1.5, 0.0, kNan, 1.5}},
{"index_fill1", {-5.0, 1.0, 2.0, -5.0, -5.0, 5.0, 6.0, -5.0, -5.0, 9.0, 10.0, -5.0}},
{"index_fill0 grad", {1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 9.0, 10.0, 11.0, 12.0}},
{"index_fill tensor value grad", {39.0}},
{"masked_scatter", {100.0, 1.0, 101.0, 3.0, 4.0, 5.0, 6.0, 102.0, 103.0, 104.0, 10.0, 11.0}},
{"masked_scatter grad self", {0.0, 2.0, 0.0, 4.0, 5.0, 6.0, 7.0, 0.0, 0.0, 0.0, 11.0, 12.0}},
{"masked_scatter grad source", {1.0, 3.0, 8.0, 9.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}},
{"masked_scatter broadcast", {100.0, 1.0, 2.0, 101.0, 102.0, 5.0, 6.0, 103.0, 104.0, 9.0, 10.0, 105.0}},
{"take", {0.0, 11.0, 5.0, 5.0}},
{"take grad", {1.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0}},
{"put", {0.0, 9.0, 2.0, 3.0, 4.0, 7.0, 6.0, 7.0, 8.0, 9.0, 8.0, 11.0}},
{"put accumulate", {0.0, 18.0, 2.0, 3.0, 4.0, 12.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0}},
{"put grad self", {1.0, 0.0, 3.0, 4.0, 5.0, 0.0, 7.0, 8.0, 9.0, 10.0, 11.0, 0.0}},
{"put grad source", {2.0, 12.0, 6.0}},
{"round2", {-2.35, -0.5, 0.5, 1.5, 2.5, 12.35, 1234.5, -1250.0}},
{"round-2", {-0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 1200.0, -1200.0}},
{"round2 float", {-2.3399999141693115, -0.5, 0.5, 1.5, 2.5, 12.350000381469727, 1234.5, -1250.0}},
{"fmax", {2.0, 5.0, 3.0, kNan, -0.0, 2.0}},
{"fmin", {1.0, 5.0, 3.0, kNan, -0.0, 2.0}},
{"fmax grad a", {0.0, 0.0, 3.0, 4.0}},
{"fmax grad b", {1.0, 2.0, 0.0, 0.0}},
{"fmin grad a", {1.0, 2.0, 0.0, 4.0}},
{"fmin grad b", {0.0, 0.0, 3.0, 0.0}},
{"renorm", {0.0, 1.0, 2.0, 3.0, 1.7817415968764803, 2.2271769960956003, 2.6726123953147205, 3.1180477945338403,
     2.090833483028305, 2.352187668406843, 2.613541853785381, 2.8748960391639193}},
{"renorm p1 dim1", {0.0, 0.6666666622222223, 1.1111111049382716, 1.4285714217687073, 3.333333305555556,
     3.333333311111111, 3.3333333148148148, 3.3333333174603172, 6.666666611111112, 5.99999996, 5.555555524691358,
     5.238095213151928}},
{"renorm inf dim1", {0.0, 0.4444444395061729, 0.7999999920000002, 1.0909090809917357, 1.9999999750000004,
     2.2222221975308645, 2.3999999760000006, 2.54545452231405, 3.9999999500000007, 3.9999999555555563,
     3.9999999600000007, 3.9999999636363643}},
{"renorm grad", {1.0, 2.0, 3.0, 4.0, 0.13433767872645117, 0.05656324860328423, -0.02121118151988349,
     -0.09898561164305003, 0.044273125433797744, 0.0171379929407052, -0.009997139552386883, -0.03713227204547943}},
{"combinations2", {1.0, 2.0, 1.0, 3.0, 1.0, 4.0, 2.0, 3.0, 2.0, 4.0, 3.0, 4.0}},
{"combinations3", {1.0, 2.0, 3.0, 1.0, 2.0, 4.0, 1.0, 3.0, 4.0, 2.0, 3.0, 4.0}},
{"combinations2 replace", {1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0}},
{"combinations grad", {9.0, 18.0, 23.0, 28.0}},
{"matrix_power3", {37.0, 54.0, 81.0, 118.0}},
{"matrix_power-2", {5.5, -2.5, -3.75, 1.75}},
{"matrix_power3 grad", {117.0, 219.0, 191.0, 363.0}},
{"multi_dot", {1.5, 3.4000000000000004, 5.999999999999999, 8.8}},
{"multi_dot 1d", {-0.9000000000000004}},
{"multi_dot grad 1", {-12.75, -2.25, 8.25, 18.75, -18.75, -3.25, 12.25, 27.75, -24.75, -4.25, 16.25, 36.75}},
{"baddbmm", {-0.07142857142857145, 0.2142857142857143, 0.4999999999999999, -3.5, -2.357142857142857,
     -1.2142857142857144, 11.071428571428571, 13.071428571428571, 15.07142857142857, 15.357142857142856,
     18.214285714285715, 21.07142857142857}},
{"addbmm", {10.5, 12.785714285714285, 15.07142857142857, 11.357142857142856, 15.357142857142858,
     19.357142857142854}},
{"addbmm grad b1", {-9.714285714285715, -4.571428571428571, 0.571428571428571, -25.142857142857146,
     -12.285714285714286, 0.5714285714285703, 5.714285714285714, 10.857142857142858, 15.999999999999996,
     13.42857142857143, 26.285714285714285, 39.14285714285714}},
{"addmv", {0.0, -8.5}},
{"addr", {2.5, 3.0, 3.5, 4.0, 5.0, 6.0}},
{"vander", {4.0, 2.0, 1.0, 0.0, 0.0, 1.0, 2.25, -1.5, 1.0}},
{"vander N4 increasing", {1.0, 2.0, 4.0, 8.0, 1.0, 0.0, 0.0, 0.0, 1.0, -1.5, 2.25, -3.375}},
{"vander grad", {23.0, 7.0, 41.75}},
{"vander int", {2.0, 1.0, 3.0, 1.0}},
{"cosine_similarity", {0.47809144373375745, 0.25819888974716115}},
{"cosine_similarity dim0", {0.8944271909999159, 0.3162277660168379, 0.5547001962252291}},
{"pairwise_distance", {3.3166256948897628, 2.4494889262870734}},
{"pairwise_distance p1 keepdim", {5.000001, 3.999999}},
{"frobenius_norm", {4.358898943540674}},
{"frobenius_norm dim1", {3.7416573867739413, 2.23606797749979}},
};

class MoreOps : public ::testing::TestWithParam<Device> {
 protected:
  Device d() const { return GetParam(); }
  TensorOptions f64() const { return TensorOptions().dtype(kDouble).device(d()); }
  Tensor T(const V& v, IntArrayRef shape) const { return tensor(v, kDouble).reshape(shape).to(d()); }
  Tensor L(const std::vector<int64_t>& v) const { return tensor(v, kLong).to(d()); }
  Tensor P() const { return T({2, 0, 3, -1, 0, 0, 4, 2, 1, 2, 3, 0.5}, {3, 4}); }
  Tensor N() const { return T({1, kNan, 3, kNan, kNan, 2}, {2, 3}); }
  Tensor X() const { return arange(12, f64()).reshape({3, 4}); }
  Tensor leaf(const Tensor& t) const { return t.detach().clone().requires_grad_(true); }
  // the gradient of sum(y * W), W = 1, 2, ... (the weights of more_ops_cases.py)
  static void backward_weighted(const Tensor& y) {
    Tensor w = arange(1, y.numel() + 1, TensorOptions().dtype(kDouble).device(y.device())).reshape(y.sizes());
    (y * w).sum().backward();
  }
  static void expect(const std::string& name, const Tensor& t, double tol = 1e-12) {
    SCOPED_TRACE(name);
    auto it = kTorch.find(name);
    ASSERT_NE(it, kTorch.end());
    V got = values(t);
    ASSERT_EQ(got.size(), it->second.size());
    for (size_t i = 0; i < got.size(); ++i) {
      double e = it->second[i];
      if (std::isnan(e)) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
      else EXPECT_NEAR(got[i], e, tol * std::max(1.0, std::abs(e))) << "element " << i;
    }
  }
};

TEST_P(MoreOps, ProdAllAnyAlongADim) {
  expect("prod1", P().prod(1));
  expect("prod1", locus::prod(P(), 1));
  Tensor p0 = P().prod(0, true);
  EXPECT_EQ(p0.sizes(), IntArrayRef({1, 4}));
  expect("prod0 keepdim", p0);
  EXPECT_EQ(L({2, 3, 4}).prod(0).scalar_type(), kLong);
  EXPECT_EQ(L({2, 3, 4}).prod(0).item<int64_t>(), 24);
  EXPECT_EQ(P().prod(-1, false, kFloat).scalar_type(), kFloat);
  for (auto [name, dim] : {std::pair<const char*, int64_t>{"prod1 grad", 1}, {"prod0 grad", 0}}) {
    Tensor x = leaf(P());
    backward_weighted(x.prod(dim));
    expect(name, x.grad());
  }
  Tensor x = leaf(P());
  backward_weighted(x.prod());  // the full prod: exact with zeros too
  expect("prod all grad", x.grad());
  x = leaf(P());
  backward_weighted(x[2].prod());
  expect("prod row grad", x.grad());
  gradcheck([](const std::vector<Tensor>& in) { return in[0].prod(1); },
            {tensor({2.0, 0.0, 3.0, -1.5, 0.7, 1.2, 0.0, 0.0, 4.0}).reshape({3, 3})}, d());
  Tensor b = tensor({1, 0, 1, 1, 1, 1}, kLong).reshape({2, 3}).to(d());
  Tensor all1 = b.all(1), any0 = (b == 0).any(0, true);
  EXPECT_EQ(all1.scalar_type(), kBool);
  EXPECT_EQ(values(all1), V({0, 1}));
  EXPECT_EQ(any0.sizes(), IntArrayRef({1, 3}));
  EXPECT_EQ(values(any0), V({0, 1, 0}));
  EXPECT_EQ(values(locus::all(b, 0)), V({1, 0, 1}));
  EXPECT_EQ(values(locus::any(b, -1)), V({1, 1}));
  Tensor u = b.to(kByte);
  EXPECT_EQ(u.all(0).scalar_type(), kByte);  // uint8 stays uint8, as PyTorch
  EXPECT_EQ(u.any(1).scalar_type(), kByte);
  EXPECT_THROW_MSG(P().prod(2), Error, "[prod] dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW_MSG(b.all(-3), Error, "[all] dimension out of range");
}

TEST_P(MoreOps, NansumNanmean) {
  expect("nansum", N().nansum());
  expect("nansum1", N().nansum(1));
  expect("nansum0 keepdim", locus::nansum(N(), {0}, true));
  expect("nanmean", N().nanmean());
  expect("nanmean1", locus::nanmean(N(), {1}));
  expect("nanmean0", N().nanmean({0}));
  EXPECT_EQ(L({1, 2}).nansum().item<int64_t>(), 3);
  EXPECT_EQ(L({1, 2}).nansum().scalar_type(), kLong);
  EXPECT_EQ(N().nansum(kFloat).scalar_type(), kFloat);
  Tensor x = leaf(N());
  backward_weighted(x.nansum({1}));
  expect("nansum1 grad", x.grad());
  x = leaf(N());
  backward_weighted(x.nanmean({1}));
  expect("nanmean1 grad", x.grad());
  x = leaf(N());
  backward_weighted(x.nanmean({0}));
  expect("nanmean0 grad", x.grad());  // NaN where a column has no numbers, as PyTorch
  EXPECT_THROW_MSG(L({1, 2}).nanmean(), Error, "[nanmean] expected input to have floating point dtype but got Long");
}

TEST_P(MoreOps, IndexFillMaskedScatterTakePut) {
  expect("index_fill1", X().index_fill(1, L({0, -1}), -5.0));
  expect("index_fill1", locus::index_fill(X(), 1, L({0, -1}), tensor(-5.0)));  // a 0-dim cpu value
  Tensor y = X();
  Tensor& r = y.index_fill_(1, L({0, -1}), -5);
  EXPECT_TRUE(r.is_same(y));
  expect("index_fill1", y);
  Tensor x = leaf(X());
  backward_weighted(x.index_fill(0, L({1}), 2.0));
  expect("index_fill0 grad", x.grad());
  x = leaf(X());
  Tensor v = tensor(7.0, kDouble).to(d()).requires_grad_(true);
  backward_weighted(x.index_fill(1, L({1, 2}), v));
  expect("index_fill tensor value grad", v.grad());
  EXPECT_THROW_MSG(X().index_fill(1, L({4}), 0), Error, "[index_fill] index 4 is out of range for 4 elements");
  EXPECT_THROW_MSG(X().index_fill(1, L({0}), T({1, 2}, {2})), Error,
                   "[index_fill] only supports a 0-dimensional value tensor");
  EXPECT_THROW_MSG(X().index_fill(0, L({0}).to(kInt), 0), Error, "[index_fill] expected an int64 (kLong) index");

  Tensor m = tensor({1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0}, kBool).reshape({3, 4}).to(d());
  Tensor s = arange(100, 112, f64());
  expect("masked_scatter", X().masked_scatter(m, s));
  Tensor xm = X();
  xm.masked_scatter_(m, s);
  expect("masked_scatter", xm);
  x = leaf(X());
  Tensor sl = leaf(s);
  backward_weighted(locus::masked_scatter(x, m, sl));
  expect("masked_scatter grad self", x.grad());
  expect("masked_scatter grad source", sl.grad());
  expect("masked_scatter broadcast", X().masked_scatter(tensor({1, 0, 0, 1}, kBool).to(d()), s));
  EXPECT_THROW_MSG(X().masked_scatter(m, arange(3, f64())), Error,
                   "[masked_scatter] the mask selects 5 elements but source has only 3");
  EXPECT_THROW_MSG(X().masked_scatter(m, s.to(kFloat)), Error,
                   "[masked_scatter] expected self and source to have the same dtype, but got Double and Float");
  EXPECT_THROW_MSG(X().masked_scatter(m.to(kLong), s), Error, "[masked_scatter] only supports boolean masks");

  Tensor idx = L({0, -1, 5, 5}).reshape({2, 2});
  Tensor t = X().take(idx);
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 2}));
  expect("take", t);
  expect("take", locus::take(X().t().contiguous().t(), idx));
  x = leaf(X());
  backward_weighted(x.take(idx));
  expect("take grad", x.grad());
  EXPECT_THROW_MSG(X().take(L({12})), Error, "[take] index 12 is out of range for 12 elements");

  Tensor src = T({9, 8, 7}, {3});
  expect("put", X().put(L({1, -2, 5}), src));
  expect("put accumulate", locus::put(X(), L({1, 1, 5}), src, true));
  Tensor xp = X();
  xp.put_(L({1, 1, 5}), src, true);
  expect("put accumulate", xp);
  x = leaf(X());
  Tensor srcl = leaf(src);
  backward_weighted(x.put(L({1, 11, 5}), srcl));
  expect("put grad self", x.grad());
  expect("put grad source", srcl.grad());
  EXPECT_THROW_MSG(X().put(L({1, 2}), src), Error,
                   "[put] expected source and index to have the same number of elements, but got source.numel() = 3");
  EXPECT_THROW_MSG(X().put(L({1, 2, 3}), src.to(kFloat)), Error,
                   "[put] self and source expected to have the same dtype");
  if (!d().is_cpu()) EXPECT_THROW(X().take(tensor({1}, kLong)), DeviceMismatchError);
}

TEST_P(MoreOps, SwapaxesTensorSplit) {
  Tensor a = arange(24, f64()).reshape({2, 3, 4});
  EXPECT_TRUE(a.swapaxes(0, 2).equal(a.transpose(0, 2)));
  EXPECT_TRUE(locus::swapdims(a, -1, 1).equal(a.transpose(1, 2)));
  Tensor x = arange(7, f64());
  auto s3 = x.tensor_split(3);
  ASSERT_EQ(s3.size(), 3u);
  EXPECT_EQ(values(s3[0]), V({0, 1, 2}));
  EXPECT_EQ(values(s3[1]), V({3, 4}));
  EXPECT_EQ(values(s3[2]), V({5, 6}));
  auto si = locus::tensor_split(x, IntArrayRef({1, 6, -2, 9}));  // torch.tensor_split(x, [1, 6, -2, 9])
  ASSERT_EQ(si.size(), 5u);
  EXPECT_EQ(values(si[0]), V({0}));
  EXPECT_EQ(values(si[1]), V({1, 2, 3, 4, 5}));
  EXPECT_EQ(si[2].numel(), 0);
  EXPECT_EQ(values(si[3]), V({5, 6}));
  EXPECT_EQ(si[4].numel(), 0);
  auto st = a.tensor_split(tensor({1, 3}, kLong), 2);
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[1].sizes(), IntArrayRef({2, 3, 2}));
  EXPECT_TRUE(st[2].equal(a.narrow(2, 3, 1)));
  auto s0 = a.tensor_split(tensor(int64_t{2}), 1);  // a 0-dim tensor: sections
  ASSERT_EQ(s0.size(), 2u);
  EXPECT_EQ(s0[0].size(1), 2);
  EXPECT_EQ(a.tensor_split(5, 0).back().numel(), 0);
  EXPECT_THROW_MSG(x.tensor_split(0), Error, "[tensor_split] number of sections must be larger than 0, got 0");
  EXPECT_THROW_MSG(tensor(1.0).tensor_split(2), Error, "[tensor_split] expected at least a 1-dimensional tensor");
  EXPECT_THROW_MSG(x.tensor_split(tensor({1.0})), Error, "[tensor_split] expected tensor_indices_or_sections to have");
  EXPECT_THROW_MSG(x.tensor_split(tensor({1, 2}, kLong).reshape({1, 2})), Error,
                   "[tensor_split] expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional");
}

TEST_P(MoreOps, RoundDecimalsFmaxFminRenorm) {
  Tensor r = T({-2.345, -0.5, 0.5, 1.5, 2.5, 12.3456, 1234.5, -1250.0}, {8});
  expect("round2", r.round(2));
  expect("round-2", locus::round(r, -2));
  expect("round2 float", r.to(kFloat).round(2), 1e-7);
  EXPECT_EQ(r.to(kFloat).round(2).scalar_type(), kFloat);
  EXPECT_TRUE(r.round(0).equal(r.round()));
  EXPECT_THROW_MSG(L({1}).round(1), Error, "[round] not implemented for 'Long' with decimals");

  Tensor a = T({1, kNan, 3, kNan, -0.0, 2}, {6}), b = T({2, 5, kNan, kNan, 0, 2}, {6});
  expect("fmax", a.fmax(b));
  expect("fmin", locus::fmin(a, b));
  EXPECT_EQ(values(L({1, 5}).fmax(L({3, 2}))), V({3, 5}));
  EXPECT_EQ(L({1, 5}).fmax(T({3, 2}, {2})).scalar_type(), kDouble);
  Tensor a2 = leaf(T({1, 4, 3, 2}, {4})), b2 = leaf(T({2, 5, 1, 2}, {4}));
  backward_weighted(locus::fmax(a2, b2));
  expect("fmax grad a", a2.grad());
  expect("fmax grad b", b2.grad());
  a2 = leaf(a2);
  b2 = leaf(b2);
  backward_weighted(a2.fmin(b2));
  expect("fmin grad a", a2.grad());
  expect("fmin grad b", b2.grad());

  expect("renorm", X().renorm(2, 0, 5.0), 1e-10);
  expect("renorm p1 dim1", locus::renorm(X(), 1, 1, 10.0), 1e-10);
  expect("renorm inf dim1", X().renorm(INFINITY, 1, 4.0), 1e-10);
  Tensor xr = X();
  xr.renorm_(2, 0, 5.0);
  expect("renorm", xr, 1e-10);
  Tensor x = leaf(X());
  backward_weighted(x.renorm(2, 0, 5.0));
  expect("renorm grad", x.grad(), 1e-9);
  EXPECT_THROW_MSG(X().renorm(0, 0, 1), Error, "[renorm] non-positive norm not supported");
  EXPECT_THROW_MSG(X().renorm(2, 0, -1), Error, "[renorm] expected maxnorm to be >= 0 but got -1");
}

TEST_P(MoreOps, CombinationsVander) {
  Tensor c = T({1, 2, 3, 4}, {4});
  Tensor c2 = locus::combinations(c);
  EXPECT_EQ(c2.sizes(), IntArrayRef({6, 2}));
  expect("combinations2", c2);
  expect("combinations3", locus::combinations(c, 3));
  expect("combinations2 replace", locus::combinations(c.narrow(0, 0, 3), 2, true));
  Tensor cl = leaf(c);
  backward_weighted(locus::combinations(cl));
  expect("combinations grad", cl.grad());
  EXPECT_EQ(locus::combinations(c, 0).sizes(), IntArrayRef({0}));
  EXPECT_EQ(locus::combinations(c.narrow(0, 0, 2), 3).sizes(), IntArrayRef({0, 3}));
  EXPECT_THROW_MSG(locus::combinations(X()), Error, "[combinations] expects a 1-D tensor as input, got a 2-D tensor");

  Tensor vx = T({2, 0, -1.5}, {3});
  expect("vander", locus::vander(vx));
  expect("vander N4 increasing", locus::vander(vx, 4, true));
  Tensor vl = leaf(vx);
  backward_weighted(locus::vander(vl, 4));
  expect("vander grad", vl.grad());
  Tensor vi = locus::vander(L({2, 3}));
  EXPECT_EQ(vi.scalar_type(), kLong);
  expect("vander int", vi);
  EXPECT_EQ(locus::vander(vx, 0).sizes(), IntArrayRef({3, 0}));
  EXPECT_THROW_MSG(locus::vander(X()), Error, "[vander] x must be a one-dimensional tensor");
  EXPECT_THROW_MSG(locus::vander(vx, -1), Error, "[vander] N must be non-negative");
}

TEST_P(MoreOps, MatrixProducts) {
  Tensor q = T({1, 2, 3, 4}, {2, 2});
  expect("matrix_power3", q.matrix_power(3));
  expect("matrix_power-2", locus::matrix_power(q, -2), 1e-10);
  EXPECT_TRUE(q.matrix_power(0).equal(eye(2, f64())));
  EXPECT_TRUE(q.matrix_power(1).equal(q));
  Tensor ql = leaf(q);
  backward_weighted(ql.matrix_power(3));
  expect("matrix_power3 grad", ql.grad());
  Tensor batch = stack({q, q * 2});
  EXPECT_TRUE(batch.matrix_power(2)[1].allclose(q.mm(q) * 4));
  EXPECT_THROW_MSG(T({1, 2}, {1, 2}).matrix_power(2), Error, "[matrix_power] expected a (batch of) square matrices");

  Tensor m1 = arange(6, f64()).reshape({2, 3}) / 4, m2 = arange(12, f64()).reshape({3, 4}) / 5 - 1;
  Tensor m3 = arange(8, f64()).reshape({4, 2}) - 3;
  expect("multi_dot", linalg::multi_dot({m1, m2, m3}));
  expect("multi_dot", locus::chain_matmul({m1, m2, m3}));
  Tensor r1 = linalg::multi_dot({T({1, -1}, {2}), m1, m2, ones({4}, f64())});
  EXPECT_EQ(r1.dim(), 0);
  expect("multi_dot 1d", r1);
  Tensor l1 = leaf(m1), l2 = leaf(m2), l3 = leaf(m3);
  backward_weighted(linalg::multi_dot({l1, l2, l3}));
  expect("multi_dot grad 1", l2.grad());
  EXPECT_TRUE(locus::chain_matmul({m1}).equal(m1));
  EXPECT_THROW_MSG(linalg::multi_dot({m1}), Error, "[multi_dot] expected at least 2 tensors but got 1");
  EXPECT_THROW_MSG(linalg::multi_dot({m1, m1}), Error, "[multi_dot] tensors 0 and 1 can't be multiplied");
  EXPECT_THROW_MSG(locus::chain_matmul({m1, ones({3}, f64())}), Error,
                   "[chain_matmul] expected every tensor to be a 2-D");

  Tensor b1 = arange(12, f64()).reshape({2, 2, 3}) / 3, b2 = arange(18, f64()).reshape({2, 3, 3}) / 7 - 1;
  Tensor s = ones({2, 3}, f64());
  expect("baddbmm", locus::baddbmm(s, b1, b2, 0.5, 2));
  expect("addbmm", s.addbmm(b1, b2, 0.5, 2));
  Tensor sb = s.clone();
  sb.addbmm_(b1, b2, 0.5, 2);
  expect("addbmm", sb);
  Tensor sl = leaf(s), bl1 = leaf(b1), bl2 = leaf(b2);
  backward_weighted(locus::addbmm(sl, bl1, bl2, 0.5, 2));
  expect("addbmm grad b1", bl1.grad());
  Tensor nan_self = full({2, 2, 3}, kNan, f64());
  EXPECT_FALSE(nan_self.baddbmm(b1, b2, 0).isnan().any().item<bool>());  // beta = 0 ignores self
  Tensor bs = zeros({2, 2, 3}, f64());
  bs.baddbmm_(b1, b2);
  EXPECT_TRUE(bs.allclose(b1.bmm(b2)));
  expect("addmv", locus::addmv(T({1, -1}, {2}), m1, T({1, 2, 3}, {3}), 2, -1));
  Tensor mv = T({1, -1}, {2});
  mv.addmv_(m1, T({1, 2, 3}, {3}), 2, -1);
  expect("addmv", mv);
  expect("addr", ones({2, 3}, f64()).addr(T({1, 2}, {2}), T({3, 4, 5}, {3}), 1, 0.5));
  Tensor ar = ones({2, 3}, f64());
  ar.addr_(T({1, 2}, {2}), T({3, 4, 5}, {3}), 1, 0.5);
  expect("addr", ar);
  gradcheck([](const std::vector<Tensor>& in) { return in[0].addmv(in[1], in[2], 0.5, 2); },
            {tensor({1.0, -1.0}), tensor({0.5, 1.0, -2.0, 3.0, 0.25, 1.5}).reshape({2, 3}), tensor({1.0, 2.0, -1.0})},
            d());
  EXPECT_THROW_MSG(s.baddbmm(m1, b2), Error, "[baddbmm] expected batch1 to be a 3-D tensor, got 2-D");
  EXPECT_THROW_MSG(s.addr(m1, T({1}, {1})), Error, "[addr] expected vec1 to be a 1-D tensor, got 2-D");
}

TEST_P(MoreOps, AtenSpellings) {
  Tensor x1 = T({1, 2, 3, 0, -1, 2}, {2, 3}), x2 = T({2, 1, 0, 1, 1, 1}, {2, 3});
  expect("cosine_similarity", locus::cosine_similarity(x1, x2));
  expect("cosine_similarity dim0", locus::cosine_similarity(x1, x2, 0));
  expect("pairwise_distance", locus::pairwise_distance(x1, x2));
  Tensor pd = locus::pairwise_distance(x1, x2, 1.0, 1e-6, true);
  EXPECT_EQ(pd.sizes(), IntArrayRef({2, 1}));
  expect("pairwise_distance p1 keepdim", pd);
  expect("frobenius_norm", locus::frobenius_norm(x1));
  Tensor fn = locus::frobenius_norm(x1, {1}, true);
  EXPECT_EQ(fn.sizes(), IntArrayRef({2, 1}));
  expect("frobenius_norm dim1", fn);
  EXPECT_THROW_MSG(locus::frobenius_norm(arange(8, f64()).reshape({2, 2, 2}), {0, 1, 2}), Error,
                   "[frobenius_norm] expected at most 2 dims to be specified, got 3");
}

}  // namespace

LOCUS_INSTANTIATE_DEVICES(MoreOps);

}  // namespace more_ops_test
