#include <cmath>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace index_test {

using V = std::vector<double>;

class Indexing : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
};

TEST_P(Indexing, CatAndStack) {
  Tensor a = tensor({{1.0, 2.0}}, o()), b = tensor({{3.0, 4.0}, {5.0, 6.0}}, o());
  EXPECT_EQ(values(cat({a, b})), (V{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cat({a, b}).sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(values(cat({b, b}, 1)), (V{3, 4, 3, 4, 5, 6, 5, 6}));
  EXPECT_EQ(stack({a, a}).sizes(), IntArrayRef({2, 1, 2}));
  EXPECT_EQ(values(stack({b.select(0, 0), b.select(0, 1)}, 1)), (V{3, 5, 4, 6}));
  EXPECT_EQ(cat({a, a.to(kDouble)}).dtype(), kDouble);
  EXPECT_THROW_MSG(cat({a, ones({1, 3}, o())}), Error, "Sizes of tensors must match except in dimension 0");
  EXPECT_THROW_MSG(stack({a, b}), Error, "[stack] expects each tensor to be equal size");
}

// Every layout cat and stack take (on the cpu, contiguous parts of one dtype are copied row by row
// without views): each part lands where narrow()/select() of the result says, along every dim,
// with an empty part, a non-contiguous part, another dtype, 0-d parts, parts that need gradients
// and a result too large for the direct copy.
TEST_P(Indexing, CatAndStackPlaceEveryPartAlongEveryDim) {
  Tensor base = arange(24, o()).reshape({2, 3, 4});
  for (int64_t d = 0; d < 3; ++d) {
    Tensor a = base, e = base.narrow(d, 0, 0) * 2, c = (base * -1).narrow(d, 1, 1).contiguous();
    Tensor nc = (base + 100).transpose(0, 2).contiguous().transpose(0, 2);  // base's shape, not contiguous
    ASSERT_FALSE(nc.is_contiguous());
    std::vector<Tensor> parts = {a, e, c, nc};
    Tensor out = cat(parts, d);
    int64_t off = 0;
    for (const Tensor& p : parts) {
      EXPECT_TRUE(out.narrow(d, off, p.size(d)).equal(p)) << "cat along " << d << " at " << off;
      off += p.size(d);
    }
    EXPECT_EQ(off, out.size(d));
    EXPECT_TRUE(cat(parts, d - 3).equal(out));
  }
  for (int64_t d = 0; d <= 3; ++d) {
    std::vector<Tensor> parts = {base, base * 3, (base - 7).transpose(1, 2).contiguous().transpose(1, 2)};
    ASSERT_FALSE(parts[2].is_contiguous());
    Tensor out = stack(parts, d);
    EXPECT_EQ(out.size(d), 3);
    for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(out.select(d, i).equal(parts[i])) << "stack along " << d;
  }
  Tensor longs = stack({tensor(int64_t{7}, o(kLong)), tensor(int64_t{-2}, o(kLong)), tensor(int64_t{5}, o(kLong))});
  EXPECT_EQ(longs.dtype(), kLong);
  EXPECT_EQ(values(longs), (V{7, -2, 5}));
  EXPECT_EQ(values(stack({tensor({1.0, 2.0}, o()), tensor({3.0, 4.0}, o(kDouble))}, 1)), (V{1, 3, 2, 4}));
  Tensor big = arange(1 << 20, o()), big2 = big * 2;  // 8 MiB together
  Tensor bc = cat({big, big2});
  EXPECT_TRUE(bc.narrow(0, 0, 1 << 20).equal(big));
  EXPECT_TRUE(bc.narrow(0, 1 << 20, 1 << 20).equal(big2));
  Tensor w = ones({2, 2}, o()).requires_grad_(true);
  Tensor s = stack({w, w * 2});
  (s * arange(8, o()).reshape({2, 2, 2})).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{0 + 8, 1 + 10, 2 + 12, 3 + 14}));
}

TEST_P(Indexing, IndexSelectGatherScatterAdd) {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  Tensor i = tensor({2, 0}, o(kLong));
  EXPECT_EQ(values(x.index_select(1, i)), (V{3, 1, 6, 4}));
  EXPECT_EQ(values(x.index_select(0, tensor({1, 1}, o(kLong)))), (V{4, 5, 6, 4, 5, 6}));
  Tensor g = tensor({{0, 0}, {1, 0}}, o(kLong));
  EXPECT_EQ(values(x.gather(1, g)), (V{1, 1, 5, 4}));
  Tensor base = zeros({2, 3}, o());
  Tensor idx = tensor({{0, 1, 1}, {2, 2, 2}}, o(kLong));
  EXPECT_EQ(values(base.scatter_add(1, idx, x)), (V{1, 5, 0, 0, 0, 15}));  // duplicates accumulate
  // scatter_add_ reads src out of order while it writes: src (or index) sharing self's memory at
  // all is refused, as in PyTorch, and so is an expand()ed self
  Tensor y = x.clone();
  EXPECT_THROW_MSG(y.scatter_add_(1, idx, y), Error,
                   "[scatter_add_] unsupported operation: some elements of the input tensor and the written-to tensor "
                   "refer to a single memory location");
  EXPECT_THROW_MSG(zeros({1, 3}, o()).expand({2, 3}).scatter_add_(1, idx, x), Error,
                   "[scatter_add_] unsupported operation: more than one element of the written-to tensor refers");
  EXPECT_TRUE(y.equal(x));  // nothing written
  EXPECT_EQ(values(y.scatter_add_(1, idx, x.clone())), (V{2, 7, 3, 4, 5, 21}));
  EXPECT_THROW_MSG(x.index_select(1, tensor({3}, o(kLong))), Error, "index 3 is out of bounds");
  EXPECT_THROW_MSG(x.index_select(1, tensor({-1}, o(kLong))), Error, "index -1 is out of bounds");
  EXPECT_THROW_MSG(x.index_select(1, tensor({0.0}, o())), Error, "expected 'index' to be int64");
}

TEST_P(Indexing, Scatter) {  // expected values from PyTorch 1.13
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  Tensor idx = tensor({{2, 0}, {1, 1}}, o(kLong));
  Tensor z = zeros({2, 4}, o());
  Tensor r = z.scatter(1, idx, x);  // src larger than index: its first [2, 2] block; the last write wins
  EXPECT_EQ(values(r), (V{2, 0, 1, 0, 0, 5, 0, 0}));
  EXPECT_EQ(values(z), V(8, 0.0));  // scatter copies
  EXPECT_EQ(values(scatter(full({3, 3}, 9.0, o()), 0, tensor({{2, 0, 1}}, o(kLong)), x)),
            (V{9, 2, 9, 9, 9, 3, 1, 9, 9}));
  Tensor s = zeros({2, 3}, o());
  EXPECT_TRUE(s.scatter_(1, tensor({{0}, {2}}, o(kLong)), 1.5).is_same(s));
  EXPECT_EQ(values(s), (V{1.5, 0, 0, 0, 0, 1.5}));
  // one-hot rows the libtorch way, int64, int32 indices
  Tensor onehot = zeros({3, 4}, o(kLong)).scatter_(1, tensor({{1}, {3}, {0}}, o(kInt)), 1);
  EXPECT_EQ(values(onehot), (V{0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(values(zeros({2}, o()).scatter(0, tensor({1}, o(kLong)), x[0])), (V{0, 1}));
  EXPECT_EQ(values(s.scatter(1, empty({2, 0}, o(kLong)), 7.0)), values(s));  // an empty index writes nothing
  // the checks scatter shares with scatter_add_; nothing is written when one fails
  Tensor y = x.clone();
  EXPECT_THROW_MSG(y.scatter_(1, tensor({0, 1}, o(kLong)), x), Error,
                   "[scatter_] index and src must have as many dimensions as self (2), got 1 and 2.");
  EXPECT_THROW_MSG(y.scatter_(1, tensor({0, 1}, o(kLong)), 1.0), Error,
                   "[scatter_] index must have as many dimensions as self (2), got 1.");
  EXPECT_THROW_MSG(y.scatter_add_(1, tensor({{0, 1, 2, 0}}, o(kLong)), x), Error,
                   "[scatter_add_] expected index [1, 4] to be no larger than src [2, 3] and than self [2, 3] apart "
                   "from dim 1.");
  EXPECT_THROW_MSG(y.scatter_(0, tensor({{0, 1, 2, 0}}, o(kLong)), 1.0), Error,
                   "[scatter_] expected index [1, 4] to be no larger than self [2, 3] apart from dim 0.");
  EXPECT_THROW_MSG(y.scatter_(1, tensor({{3}}, o(kLong)), x), Error,
                   "[scatter_] index 3 is out of bounds for the scattered dimension with size 3 (valid indices "
                   "are 0..2).");
  EXPECT_THROW_MSG(y.scatter_(1, tensor({{0.0}}, o()), x), Error, "[scatter_] expected 'index' to be int64");
  EXPECT_THROW_MSG(zeros({2, 3}, o(kLong)).scatter_(1, idx, x), Error,
                   "[scatter_] expected self and src to have the same dtype, got int64 and float32; convert src with "
                   ".to(self.scalar_type()).");
  EXPECT_THROW_MSG(y.scatter(1, idx, x.to(kDouble)), Error, "[scatter_] expected self and src to have the same dtype");
  EXPECT_THROW_MSG(zeros({1, 3}, o()).expand({2, 3}).scatter_(1, idx, x), Error,
                   "[scatter_] unsupported operation: more than one element of the written-to tensor refers");
  EXPECT_TRUE(y.equal(x));
  Tensor leaf = x.clone().requires_grad_(true);
  EXPECT_THROW_MSG(leaf.scatter_(1, idx, 0.0), Error, "[scatter_] a leaf Variable that requires grad");
  // gradients: self's is zero where written, src's is the gradient at index (a repeated position
  // too, as PyTorch's formula)
  using Vs = std::vector<Tensor>;
  const Device d = GetParam();
  gradcheck([&](const Vs& v) { return v[0].scatter(1, tensor({{2, 0}, {1, 3}}, o(kLong)), v[1]); },
            {sample({2, 4}), sample({2, 3}, 1.)}, d);
  gradcheck([&](const Vs& v) { return v[0].scatter(0, tensor({{1, 0, 1}}, o(kLong)), 2.5) * v[0]; },
            {sample({2, 3})}, d);
  Tensor src = x.clone().requires_grad_(true);
  zeros({2, 4}, o()).scatter(1, idx, src).sum().backward();
  EXPECT_EQ(values(src.grad()), (V{1, 1, 0, 1, 1, 0}));
}

// index_add: rows (or columns) of source added at index, repeats adding up; values from PyTorch 1.13:
//   torch.zeros(3, 4).index_add(0, torch.tensor([2, 0]), torch.arange(8.).reshape(2, 4), alpha=2)
//   torch.ones(2, 3).index_add(1, torch.tensor([0, 0, 2]), torch.arange(6.).reshape(2, 3))
TEST_P(Indexing, IndexAdd) {
  Tensor src = arange(8, o()).reshape({2, 4});
  Tensor got = zeros({3, 4}, o()).index_add(0, tensor({2, 0}).to(GetParam()), src, 2);
  EXPECT_EQ(values(got), (V{8, 10, 12, 14, 0, 0, 0, 0, 0, 2, 4, 6}));
  Tensor y = ones({2, 3}, o());
  Tensor& same = y.index_add_(1, tensor({0, 0, 2}).to(GetParam()), arange(6, o()).reshape({2, 3}));
  EXPECT_TRUE(same.is_same(y));
  EXPECT_EQ(values(y), (V{2, 1, 3, 8, 1, 6}));
  EXPECT_EQ(values(locus::index_add(zeros({3}, o()), 0, tensor({1}).to(GetParam()), ones({1}, o()))), (V{0, 1, 0}));
  const Tensor at = tensor({2, 0, 2}).to(GetParam());  // a repeated index: both rows add up
  gradcheck([&](const std::vector<Tensor>& t) { return t[0].index_add(0, at, t[1], 0.5); },
            {randn({3, 2}, kDouble), randn({3, 2}, kDouble)}, GetParam());
  EXPECT_THROW_MSG(zeros({3, 4}, o()).index_add(0, tensor({0, 1, 2}).to(GetParam()), src), Error,
                   "[index_add] source [2, 4] must have self's shape [3, 4] but with 3 (the number of indices) "
                   "along dim 0.");
  EXPECT_THROW_MSG(zeros({3, 4}, o()).index_add(0, tensor({0, 3}).to(GetParam()), src), Error, "[index_add]");
  EXPECT_THROW_MSG(zeros({3, 4}, o()).index_add_(0, tensor({{0, 1}}).to(GetParam()), src), Error,
                   "[index_add_] index must be a vector (0-D or 1-D), got shape [1, 2].");
  // in place on a tensor autograd tracks: refused before anything is written, as PyTorch refuses a leaf
  Tensor leaf = zeros({3, 4}, o()).requires_grad_();
  const Tensor rows = tensor({2, 0}).to(GetParam());
  EXPECT_THROW_MSG(leaf.index_add_(0, rows, src), Error,
                   "[index_add_] a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_THROW_MSG(leaf.scatter_add_(0, zeros({1, 4}, o(kLong)), src.slice(0, 0, 1)), Error,
                   "[scatter_add_] a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(values(leaf.detach()), V(12, 0.0));
  Tensor inner = leaf * 2;
  inner.index_add_(0, rows, src);  // on a tensor of the graph: recorded (tests/autograd/inplace_view_test.cpp)
  EXPECT_EQ(values(inner.detach()), (V{4, 5, 6, 7, 0, 0, 0, 0, 0, 1, 2, 3}));
  inner.sum().backward();
  EXPECT_EQ(values(leaf.grad()), V(12, 2.0));
  {
    NoGradGuard no_grad;  // the documented way to update a parameter in place
    leaf.index_add_(0, rows, src);
  }
  EXPECT_EQ(values(leaf.detach()), (V{4, 5, 6, 7, 0, 0, 0, 0, 0, 1, 2, 3}));
}

TEST_P(Indexing, OneHot) {
  Tensor labels = tensor({0, 2, 1}, o(kLong));
  Tensor h = one_hot(labels);
  EXPECT_EQ(h.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(values(h), (V{1, 0, 0, 0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(one_hot(labels, 5).size(1), 5);
  EXPECT_THROW_MSG(one_hot(labels, 2), Error, "class value 2 is out of range for num_classes = 2");
}

TEST_P(Indexing, AllcloseAndEqual) {
  Tensor a = tensor({1.0, 2.0}, o());
  EXPECT_TRUE(a.allclose(a + 1e-7));
  EXPECT_FALSE(a.allclose(a + 1e-3));
  EXPECT_TRUE(a.equal(a.clone()));
  EXPECT_FALSE(a.equal(a + 1));
  EXPECT_FALSE(a.equal(ones({3}, o())));
  Tensor n = tensor({std::nan("")}, o());
  EXPECT_FALSE(n.allclose(n));
  EXPECT_TRUE(n.allclose(n, 1e-5, 1e-8, true));
}

LOCUS_INSTANTIATE_DEVICES(Indexing);

}  // namespace index_test
