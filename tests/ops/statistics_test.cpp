// The unique family, median, nanmedian, kthvalue, mode, quantile, nanquantile, bincount, histc,
// bucketize and searchsorted on every device; expected values from PyTorch 1.13
// (tests/ops/statistics_cases.py prints them).
#include <cmath>
#include <limits>

#include "testing.h"

using namespace locus;

namespace statistics_test {
using V = std::vector<double>;

namespace {

const double nan_ = std::numeric_limits<double>::quiet_NaN();

// Values equal, NaN matching NaN.
void expect_values(const Tensor& t, const V& want, double tol = 0) {
  V got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": " << got[i];
    else EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

class Statistics : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
};

TEST_P(Statistics, Unique) {
  Tensor x = tensor({5, 3, 5, 1, 3, 3}, o(kLong));
  auto [u, inv] = _unique(x, true, true);
  EXPECT_EQ(values(u), (V{1, 3, 5}));
  EXPECT_EQ(values(inv), (V{2, 1, 2, 0, 1, 1}));
  EXPECT_EQ(u.device(), GetParam());
  EXPECT_EQ(inv.scalar_type(), kLong);
  auto [u2, inv2, cnt2] = _unique2(x, true, true, true);
  EXPECT_EQ(values(u2), (V{1, 3, 5}));
  EXPECT_EQ(values(cnt2), (V{1, 3, 2}));
  auto [u3, inv3, cnt3] = _unique2(tensor({{2, 1}, {1, 2}}, o(kLong)), true, true, true);
  EXPECT_EQ(values(u3), (V{1, 2}));
  EXPECT_EQ(inv3.sizes(), IntArrayRef({2, 2}));  // the input's shape
  EXPECT_EQ(values(inv3), (V{1, 0, 0, 1}));
  EXPECT_EQ(values(cnt3), (V{2, 2}));
  auto [ub, ib, cb] = _unique2(tensor({true, false, true}, o(kBool)), true, true, true);
  EXPECT_EQ(ub.scalar_type(), kBool);
  EXPECT_EQ(values(ub), (V{0, 1}));
  EXPECT_EQ(values(ib), (V{1, 0, 1}));
  EXPECT_EQ(values(cb), (V{1, 2}));
  auto [us, is, cs] = _unique2(full({}, 3.0, o()), true, true, true);
  EXPECT_EQ(us.sizes(), IntArrayRef({1}));
  EXPECT_EQ(is.dim(), 0);
  EXPECT_EQ(values(cs), (V{1}));
  auto [un, in, cn] = _unique2(x);  // no inverse, no counts: empty int64 tensors
  EXPECT_EQ(in.sizes(), IntArrayRef({0}));
  EXPECT_EQ(cn.sizes(), IntArrayRef({0}));
  EXPECT_EQ(cn.scalar_type(), kLong);
  // NaN: each NaN is a value of its own, sorted last (PyTorch 2.x; see statistics_cases.py)
  auto [uf, iff, cf] = _unique2(tensor({2.0, 1.0, nan_, 1.0, nan_}, o()), true, true, true);
  expect_values(uf, {1, 2, nan_, nan_});
  EXPECT_EQ(values(iff), (V{1, 0, 2, 0, 3}));
  EXPECT_EQ(values(cf), (V{2, 1, 1, 1}));
}

TEST_P(Statistics, UniqueDimAndConsecutive) {
  Tensor m = tensor({{1, 2}, {0, 1}, {1, 2}, {0, 0}}, o(kLong));
  auto [u, inv, cnt] = unique_dim(m, 0, true, true, true);
  EXPECT_EQ(u.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(values(u), (V{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(values(inv), (V{2, 1, 2, 0}));
  EXPECT_EQ(values(cnt), (V{1, 1, 2}));
  auto [u1, inv1, cnt1] = unique_dim(m, 1, true, true, true);
  EXPECT_EQ(values(u1), values(m));
  EXPECT_EQ(values(inv1), (V{0, 1}));
  EXPECT_EQ(values(cnt1), (V{1, 1}));
  auto [un, invn, cntn] = unique_dim(tensor({{1.0, nan_}, {1.0, nan_}}, o()), 0, true, true, true);
  EXPECT_EQ(un.size(0), 2);  // rows with NaN never compare equal
  EXPECT_EQ(values(invn), (V{0, 1}));
  EXPECT_EQ(values(cntn), (V{1, 1}));
  EXPECT_THROW_MSG(unique_dim(zeros({2, 0}, o()), 0), Error,
                   "[unique_dim] the tensor [2, 0] has a zero-sized dimension other than dim 0");
  EXPECT_THROW_MSG(unique_dim(m, 2), Error, "[unique_dim] dimension out of range");

  auto [c, ci, cc] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1, 2}, o(kLong)), true, true);
  EXPECT_EQ(values(c), (V{1, 2, 3, 1, 2}));
  EXPECT_EQ(values(ci), (V{0, 0, 1, 1, 2, 3, 3, 4}));
  EXPECT_EQ(values(cc), (V{2, 2, 1, 2, 1}));
  auto [cn, cni, cnc] = unique_consecutive(tensor({1.0, nan_, nan_, 2.0}, o()), true, true);
  expect_values(cn, {1, nan_, nan_, 2});
  EXPECT_EQ(values(cni), (V{0, 1, 2, 3}));
  EXPECT_EQ(values(cnc), (V{1, 1, 1, 1}));
  auto [cd, cdi, cdc] = unique_consecutive(tensor({{1, 1, 2}, {1, 1, 2}}, o(kLong)), true, true, 1);
  EXPECT_EQ(cd.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(values(cd), (V{1, 2, 1, 2}));
  EXPECT_EQ(values(cdi), (V{0, 0, 1}));
  EXPECT_EQ(values(cdc), (V{2, 1}));
}

TEST_P(Statistics, MedianAndKthvalue) {
  Tensor x = tensor({{3.0, 1.0, 4.0, 1.0}, {5.0, 9.0, 2.0, 6.0}, {5.0, 3.0, 5.0, 8.0}}, o());
  EXPECT_EQ(values(x.median()), (V{4}));  // the lower of the two middle values
  auto [v, i] = x.median(1);
  EXPECT_EQ(values(v), (V{1, 5, 5}));
  EXPECT_EQ(values(i), (V{3, 0, 0}));
  EXPECT_EQ(i.scalar_type(), kLong);
  auto [v0, i0] = median(x, 0, /*keepdim=*/true);
  EXPECT_EQ(v0.sizes(), IntArrayRef({1, 4}));
  EXPECT_EQ(values(v0), (V{5, 3, 4, 6}));
  EXPECT_EQ(values(i0), (V{1, 2, 0, 1}));
  Tensor y = tensor({{1.0, nan_, 3.0, 2.0}, {nan_, nan_, 1.0, 0.0}}, o());
  expect_values(y.median(), {nan_});
  auto [yv, yi] = y.median(1);
  expect_values(yv, {nan_, nan_});
  EXPECT_EQ(values(yi), (V{1, 0}));
  EXPECT_EQ(values(nanmedian(y)), (V{1}));
  auto [nv, ni] = y.nanmedian(1);
  EXPECT_EQ(values(nv), (V{2, 0}));
  EXPECT_EQ(values(ni), (V{3, 3}));
  expect_values(tensor({nan_, nan_}, o()).nanmedian(), {nan_});
  auto [li, lidx] = tensor({4, 1, 3, 2}, o(kLong)).median(0);
  EXPECT_EQ(li.scalar_type(), kLong);
  EXPECT_EQ(values(li), (V{2}));
  EXPECT_EQ(values(lidx), (V{3}));
  expect_values(zeros({0}, o()).median(), {nan_});
  EXPECT_THROW_MSG(zeros({0}, o(kLong)).median(), Error,
                   "[median] the median of an empty int64 tensor is undefined (a floating-point one gives NaN).");
  auto [sv, si] = full({}, 5.0, o()).median(0);
  EXPECT_EQ(sv.dim(), 0);
  EXPECT_EQ(si.item<int64_t>(), 0);

  auto [kv, ki] = x.kthvalue(2);
  EXPECT_EQ(values(kv), (V{1, 5, 5}));
  EXPECT_EQ(values(ki), (V{3, 0, 0}));
  auto [kv3, ki3] = kthvalue(x, 3, 0, true);
  EXPECT_EQ(kv3.sizes(), IntArrayRef({1, 4}));
  EXPECT_EQ(values(kv3), (V{5, 9, 5, 8}));
  EXPECT_EQ(values(ki3), (V{2, 1, 2, 2}));
  auto [kn, kni] = y.kthvalue(4, 1);
  expect_values(kn, {nan_, nan_});
  EXPECT_EQ(values(kni), (V{1, 1}));

  EXPECT_THROW_MSG(x.kthvalue(5), Error,
                   "[kthvalue] k (5) is out of range for dimension 1 of size 4; pick 1 <= k <= 4.");
  EXPECT_THROW_MSG(zeros({2, 0}, o()).median(1), Error,
                   "[median] expected reduction dim 1 to have non-zero size, but the input is [2, 0].");
  EXPECT_THROW_MSG(x.median(2), Error, "[median] dimension out of range");
}

TEST_P(Statistics, Mode) {
  Tensor z = tensor({{1.0, 2.0, 2.0, 3.0, 3.0}, {4.0, 4.0, 1.0, 1.0, 0.0}, {7.0, 6.0, 5.0, 6.0, 7.0}}, o());
  auto [v, i] = z.mode();
  EXPECT_EQ(values(v), (V{2, 1, 6}));  // the smallest of the most frequent
  EXPECT_EQ(values(i), (V{2, 3, 3}));  // and the last index it has
  auto [v0, i0] = mode(z, 0);
  EXPECT_EQ(values(v0), (V{1, 2, 1, 1, 0}));
  EXPECT_EQ(values(i0), (V{0, 0, 1, 1, 1}));
  auto [vl, il] = tensor({3, 1, 3, 1, 2}, o(kLong)).mode(0, true);
  EXPECT_EQ(vl.sizes(), IntArrayRef({1}));
  EXPECT_EQ(values(vl), (V{1}));
  EXPECT_EQ(values(il), (V{3}));
  EXPECT_THROW_MSG(zeros({2, 0}, o()).mode(1), Error, "[mode] expected reduction dim 1 to have non-zero size");
}

TEST_P(Statistics, SelectionGradients) {
  Tensor base = tensor({{3.0, 1.0, 4.0, 1.0}, {5.0, 9.0, 2.0, 6.0}}, o());
  Tensor a = base.clone().requires_grad_();
  a.median().backward();
  EXPECT_EQ(values(a.grad()), (V{1, 0, 0, 0, 0, 0, 0, 0}));
  a = base.clone().requires_grad_();
  std::get<0>(a.median(1)).sum().backward();
  EXPECT_EQ(values(a.grad()), (V{0, 0, 0, 1, 1, 0, 0, 0}));
  a = base.clone().requires_grad_();
  std::get<0>(a.kthvalue(2, 0)).sum().backward();
  EXPECT_EQ(values(a.grad()), (V{0, 0, 1, 0, 1, 1, 0, 1}));
  a = base.clone().requires_grad_();
  std::get<0>(a.mode(1)).sum().backward();
  EXPECT_EQ(values(a.grad()), (V{0, 0, 0, 1, 0, 0, 1, 0}));
  a = base.clone().requires_grad_();
  a.nanmedian().backward();
  EXPECT_EQ(values(a.grad()), (V{1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST_P(Statistics, Quantile) {
  Tensor x = tensor({{0.5, -1.0, 2.0, 3.5}, {4.0, 0.0, 1.5, -2.0}, {1.0, 1.0, 7.0, 2.5}}, o(kDouble));
  expect_values(x.quantile(0.3), {0.65}, 1e-12);
  expect_values(quantile(x, 0.3, 1), {0.35, -0.2, 1.0}, 1e-12);
  Tensor q = tensor({0.0, 0.25, 0.9}, o(kDouble));
  Tensor r = x.quantile(q, 0);
  EXPECT_EQ(r.sizes(), IntArrayRef({3, 4}));
  expect_values(r, {0.5, -1, 1.5, -2, 0.75, -0.5, 1.75, 0.25, 3.4, 0.8, 6.0, 3.3}, 1e-12);
  expect_values(x.quantile(0.4, 1, false, "lower"), {0.5, 0.0, 1.0});
  expect_values(x.quantile(0.4, 1, false, "higher"), {2.0, 1.5, 2.5});
  expect_values(x.quantile(0.4, 1, false, "midpoint"), {1.25, 0.75, 1.75});
  expect_values(x.quantile(0.4, 1, false, "nearest"), {0.5, 0.0, 1.0});
  EXPECT_EQ(x.quantile(0.5, 1, true).sizes(), IntArrayRef({3, 1}));
  Tensor q2 = tensor({0.2, 0.8}, o(kDouble));
  EXPECT_EQ(x.quantile(q2, std::nullopt, true).sizes(), IntArrayRef({2, 1, 1}));
  EXPECT_EQ(x.quantile(q2, 1, true).sizes(), IntArrayRef({2, 3, 1}));
  Tensor y = tensor({{1.0, nan_, 3.0, 2.0}, {nan_, nan_, nan_, nan_}, {4.0, 0.0, 1.0, 5.0}}, o());
  expect_values(y.quantile(0.5, 1), {nan_, nan_, 2.5});
  expect_values(nanquantile(y, 0.5, 1), {2.0, nan_, 2.5});
  expect_values(y.nanquantile(0.25), {1.0});
  expect_values(y.quantile(0.25), {nan_});
  Tensor n = tensor({1.0, 2.0, 3.0, 4.0}, o());
  expect_values(n.quantile(tensor({0.125, 0.375, 0.625}, o()), std::nullopt, false, "nearest"), {1, 2, 3});
  EXPECT_EQ(full({}, 3.0, o()).quantile(0.5, 0, true).dim(), 0);

  Tensor a = tensor({{0.5, -1.0, 2.0, 3.5}, {4.0, 0.0, 1.5, -2.0}}, o()).requires_grad_();
  a.quantile(tensor({0.3, 0.5}, o()), 1).sum().backward();
  expect_values(a.grad(), {1.4, 0.1, 0.5, 0, 0, 1.4, 0.5, 0.1}, 1e-6);
  a = tensor({{0.5, -1.0, 2.0, 3.5}, {4.0, 0.0, 1.5, -2.0}}, o()).requires_grad_();
  a.quantile(0.7).backward();
  expect_values(a.grad(), {0, 0, 0.9, 0, 0, 0, 0.1, 0}, 1e-6);

  Tensor f = tensor({1.0, 2.0}, o());
  EXPECT_THROW_MSG(tensor({1, 2}, o(kLong)).quantile(0.5), Error,
                   "[quantile] the input tensor must be float32 or float64, got int64");
  EXPECT_THROW_MSG(f.quantile(1.5), Error, "[quantile] q must be in the range [0, 1], got 1.5");
  EXPECT_THROW_MSG(f.quantile(tensor({0.5}, o(kDouble))), Error,
                   "[quantile] q (float64) must have the input's dtype (float32).");
  EXPECT_THROW_MSG(f.quantile(0.5, std::nullopt, false, "foo"), Error,
                   "[quantile] interpolation must be one of linear, lower, higher, midpoint or nearest, got 'foo'.");
  EXPECT_THROW_MSG(zeros({0}, o()).quantile(0.5), Error, "[quantile] the input tensor must be non-empty.");
  EXPECT_THROW_MSG(f.quantile(tensor({{0.5}}, o())), Error, "[quantile] q must be a scalar or a 1-D tensor");
  EXPECT_THROW_MSG(f.nanquantile(tensor({0.5, 2.0}, o())), Error,
                   "[nanquantile] q values must be in the range [0, 1].");
}

TEST_P(Statistics, BincountAndHistc) {
  Tensor x = tensor({1, 3, 1, 0}, o(kLong));
  Tensor c = bincount(x);
  EXPECT_EQ(c.scalar_type(), kLong);
  EXPECT_EQ(c.device(), GetParam());
  EXPECT_EQ(values(c), (V{1, 2, 0, 1}));
  Tensor w = x.bincount(tensor({0.5, 1.0, 2.0, 0.25}, o()), 6);
  EXPECT_EQ(w.scalar_type(), kFloat);
  EXPECT_EQ(values(w), (V{0.25, 2.5, 0, 1, 0, 0}));
  Tensor wl = x.bincount(tensor({1, 2, 3, 4}, o(kLong)));
  EXPECT_EQ(wl.scalar_type(), kDouble);
  EXPECT_EQ(values(wl), (V{4, 4, 0, 2}));
  EXPECT_EQ(values(bincount(zeros({0}, o(kLong)), {}, 3)), (V{0, 0, 0}));
  EXPECT_EQ(values(bincount(tensor({1, 2}, o(kByte)))), (V{0, 1, 1}));
  EXPECT_THROW_MSG(bincount(tensor({-1, 2}, o(kLong))), Error,
                   "[bincount] only supports 1-D non-negative integer inputs");
  EXPECT_THROW_MSG(bincount(tensor({1.0, 2.0}, o())), Error, "[bincount] expected an integer tensor, got float32.");
  EXPECT_THROW_MSG(bincount(tensor({1, 2}, o(kLong)), tensor({1.0}, o())), Error,
                   "[bincount] weights should be 1-D and have the input's length (2), got shape [1].");
  EXPECT_THROW_MSG(bincount(tensor({1, 2}, o(kLong)), {}, -1), Error, "[bincount] minlength should be >= 0, got -1.");

  Tensor h = tensor({1.0, 2.0, 1.0, 4.0, 2.5}, o());
  EXPECT_EQ(values(histc(h, 4, 0, 3)), (V{0, 2, 1, 1}));
  EXPECT_EQ(values(h.histc(4)), (V{2, 1, 1, 1}));
  EXPECT_EQ(values(tensor({2.0, 2.0}, o()).histc(4)), (V{0, 0, 2, 0}));
  Tensor hd = tensor({1.0, 2.0, 3.0}, o(kDouble)).histc(3, 0, 6);
  EXPECT_EQ(hd.scalar_type(), kDouble);
  EXPECT_EQ(values(hd), (V{1, 2, 0}));
  EXPECT_EQ(values(zeros({0}, o()).histc(2)), (V{0, 0}));
  EXPECT_THROW_MSG(tensor({1, 2, 3}, o(kLong)).histc(3), Error, "[histc] expected a floating-point tensor, got int64");
  EXPECT_THROW_MSG(h.histc(0), Error, "[histc] bins must be > 0, got 0.");
  EXPECT_THROW_MSG(h.histc(2, 3, 1), Error, "[histc] max (1) must be larger than min (3).");
  EXPECT_THROW_MSG(tensor({1.0, std::numeric_limits<double>::infinity()}, o()).histc(2), Error,
                   "[histc] the range [1, inf] is not finite");
}

TEST_P(Statistics, BucketizeAndSearchsorted) {
  Tensor b = tensor({1.0, 3.0, 5.0, 7.0}, o());
  Tensor x = tensor({{1.0, 5.0}, {3.0, 9.0}}, o());
  Tensor l = bucketize(x, b);
  EXPECT_EQ(l.scalar_type(), kLong);
  EXPECT_EQ(l.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(values(l), (V{0, 2, 1, 4}));
  EXPECT_EQ(values(bucketize(x, b, false, /*right=*/true)), (V{1, 3, 2, 4}));
  Tensor i32 = bucketize(tensor({1.0, 5.0, nan_}, o()), b, /*out_int32=*/true);
  EXPECT_EQ(i32.scalar_type(), kInt);
  EXPECT_EQ(values(i32), (V{0, 2, 4}));
  Tensor s = bucketize(3, b);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<int64_t>(), 1);
  EXPECT_THROW_MSG(bucketize(tensor({1.0}, o()), b.unsqueeze(0)), Error,
                   "[bucketize] boundaries must be a 1-D tensor, got shape [1, 4].");

  Tensor seq = tensor({{1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}}, o(kLong));
  Tensor v = tensor({{3, 6, 9}, {3, 6, 9}}, o(kLong));
  EXPECT_EQ(values(searchsorted(seq, v)), (V{1, 3, 4, 1, 2, 4}));
  EXPECT_EQ(values(searchsorted(seq, v, false, true)), (V{2, 3, 5, 1, 3, 4}));
  Tensor seq1 = tensor({1, 3, 5, 7, 9}, o(kLong));
  EXPECT_EQ(values(searchsorted(seq1, v, false, false, "right")), (V{2, 3, 5, 2, 3, 5}));
  Tensor sc = searchsorted(seq1, 5);
  EXPECT_EQ(sc.dim(), 0);
  EXPECT_EQ(sc.item<int64_t>(), 2);
  EXPECT_EQ(values(searchsorted(tensor({9, 1, 7, 3, 5}, o(kLong)), tensor({3, 6}, o(kLong)), false, false,
                                std::nullopt, tensor({1, 3, 4, 2, 0}, o(kLong)))),
            (V{1, 3}));
  EXPECT_EQ(values(searchsorted(seq1, tensor({3.5, 6.0}, o()))), (V{2, 3}));
  EXPECT_THROW_MSG(searchsorted(seq1.unsqueeze(0), v), Error,
                   "[searchsorted] the boundaries tensor should be 1-D, or its first N-1 dimensions must match the "
                   "input's, but got boundaries [1, 5] and input [2, 3].");
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, true, "left"), Error,
                   "[searchsorted] side and right can't be set to opposites");
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, false, "foo"), Error,
                   "[searchsorted] side can only be 'left' or 'right', got 'foo'.");
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, false, std::nullopt, tensor({1, 3}, o(kLong))), Error,
                   "[searchsorted] boundaries and sorter must have the same size, got boundaries [5] and sorter [2].");
  // many values against many boundaries: searched in chunks (of 2^22 comparisons), the same answers
  Tensor many = (arange(0, 1100, o(kLong)) * 7).remainder(4096);  // 3 chunks of 512
  Tensor bounds = arange(0, 8192, o(kLong)) / 2;  // 0, 0.5, 1, ...: each value v has 2v below it
  Tensor pos = searchsorted(bounds, many.to(kFloat));
  EXPECT_EQ(values(pos), values(many * 2));
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, false, std::nullopt, tensor({1, 3, 4, 2, 0}, o(kInt))), Error,
                   "[searchsorted] sorter must be an int64 tensor, got int32.");
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, false, std::nullopt, tensor({1, 3, 5, 2, 0}, o(kLong))), Error,
                   "[searchsorted] sorter index out of range: every entry must be in [0, 5)");
  EXPECT_THROW_MSG(searchsorted(seq1, v, false, false, std::nullopt, tensor({1, 3, -1, 2, 0}, o(kLong))), Error,
                   "[searchsorted] sorter index out of range");
  EXPECT_THROW_MSG(searchsorted(full({}, 1, o(kLong)), v), Error,
                   "[searchsorted] the boundaries tensor should have at least one dimension");
}

TEST_P(Statistics, MixedDevicesAreRefused) {
  std::optional<Device> other;
  for (Device d : test_devices())
    if (d != GetParam()) other = d;
  if (!other) GTEST_SKIP() << "one device only";
  Tensor a = tensor({1.0, 2.0}, o());
  Tensor c = tensor({0.5}, TensorOptions().dtype(kFloat).device(*other));
  EXPECT_THROW(a.quantile(c), DeviceMismatchError);
  EXPECT_THROW(searchsorted(c, a), DeviceMismatchError);
}

LOCUS_INSTANTIATE_DEVICES(Statistics);

}  // namespace

}  // namespace statistics_test
