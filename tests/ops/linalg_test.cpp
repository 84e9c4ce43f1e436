#include "testing.h"

using namespace locus;

namespace linalg_test {

using V = std::vector<double>;

class Linalg : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
};

TEST_P(Linalg, MmAndTransposedOperands) {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, o());  // 3x2
  Tensor b = tensor({{1.0, 0.0, 2.0}, {0.0, 1.0, 3.0}}, o());    // 2x3
  EXPECT_EQ(values(a.mm(b)), (V{1, 2, 8, 3, 4, 18, 5, 6, 28}));
  EXPECT_EQ(values(b.mm(a)), (V{11, 14, 18, 22}));
  EXPECT_EQ(values(a.t().mm(a)), (V{35, 44, 44, 56}));
  EXPECT_EQ(values(b.mm(b.t())), (V{5, 6, 6, 10}));
  EXPECT_EQ(values(matmul(a, b)), values(a.mm(b)));
  EXPECT_THROW_MSG(a.mm(a), Error, "mat1 and mat2 shapes cannot be multiplied (3x2 and 3x2)");
  EXPECT_THROW_MSG(a.mm(a.to(kDouble).t()), Error, "expected both operands to have the same dtype");
}

TEST_P(Linalg, MatmulShapes) {
  Tensor v = tensor({1.0, 2.0}, o());
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_EQ(v.matmul(v).item<double>(), 5);
  EXPECT_EQ(v.matmul(v).dim(), 0);
  EXPECT_EQ(values(m.matmul(v)), (V{5, 11}));
  EXPECT_EQ(values(v.matmul(m)), (V{7, 10}));
  Tensor bm = stack({m, m * 2});  // [2,2,2]
  EXPECT_EQ(values(bm.matmul(m)), (V{7, 10, 15, 22, 14, 20, 30, 44}));
  EXPECT_EQ(values(bm.bmm(bm)), (V{7, 10, 15, 22, 28, 40, 60, 88}));
  EXPECT_EQ(bm.matmul(v).sizes(), IntArrayRef({2, 2}));
  Tensor big = ones({3, 1, 2, 2}, o());
  EXPECT_EQ(big.matmul(bm).sizes(), IntArrayRef({3, 2, 2, 2}));
  EXPECT_THROW_MSG(v.matmul(ones({3}, o())), Error, "inconsistent tensor size");
}

TEST_P(Linalg, SharedMatrixBroadcastOverABatch) {
  // one matrix against a batch (matmul broadcasts it: batch stride 0), row-major, transposed,
  // and as bmm of an expanded tensor; every dtype the GEMMs take; each entry as mm computes it
  manual_seed(5);
  for (ScalarType t : {kFloat, kDouble, kHalf, kLong}) {
    Tensor w = randn({7, 5}, o(kFloat)).mul(4).round().to(t);
    Tensor x = randn({6, 5, 3}, o(kFloat)).mul(4).round().to(t);
    for (const Tensor& a : {w, w.t().contiguous().t()}) {
      Tensor y = a.matmul(x);
      Tensor e = a.unsqueeze(0).expand({6, 7, 5}).bmm(x);
      ASSERT_EQ(y.sizes(), IntArrayRef({6, 7, 3}));
      for (int64_t i = 0; i < 6; ++i) {
        EXPECT_EQ(values(y[i]), values(a.mm(x[i]))) << dtype_name(t) << " entry " << i;
        EXPECT_EQ(values(e[i]), values(a.mm(x[i]))) << dtype_name(t) << " entry " << i << " (bmm)";
      }
      EXPECT_EQ(values(x.transpose(1, 2).matmul(a.t())), values(y.transpose(1, 2))) << dtype_name(t);
    }
  }
}

TEST_P(Linalg, AddmmAndOtherDtypes) {
  Tensor bias = tensor({1.0, 2.0}, o());
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_EQ(values(addmm(bias, a, a)), (V{8, 12, 16, 24}));
  EXPECT_EQ(values(bias.addmm(a, a, 0.5, 2)), (V{14.5, 21, 30.5, 45}));
  EXPECT_EQ(values(a.to(kDouble).mm(a.to(kDouble))), (V{7, 10, 15, 22}));
  EXPECT_EQ(values(a.to(kLong).mm(a.to(kLong))), (V{7, 10, 15, 22}));
  EXPECT_EQ(values(a.to(kHalf).mm(a.to(kHalf))), (V{7, 10, 15, 22}));
  Tensor k0 = zeros({2, 0}, o());
  EXPECT_EQ(values(k0.mm(zeros({0, 3}, o()))), V(6, 0.0));
}

TEST_P(Linalg, LargerGemmMatchesCpu) {
  manual_seed(3);
  Tensor a = randn({65, 129}, o()), b = randn({129, 33}, o());
  Tensor ref = a.cpu().to(kDouble).mm(b.cpu().to(kDouble));
  EXPECT_TRUE(a.mm(b).cpu().to(kDouble).allclose(ref, 1e-4, 1e-4));
  EXPECT_TRUE(b.t().contiguous().t().t().mm(a.t()).cpu().to(kDouble).allclose(ref.t(), 1e-4, 1e-4));
}

TEST_P(Linalg, BatchOfSmallGemmsMatchesOneByOne) {
  // A batch of small GEMMs may run side by side on the cpu (one BLAS thread each); every entry
  // must equal its own product, for broadcast and transposed operands too.
  manual_seed(5);
  Tensor w = randn({8, 27}, o()), cols = randn({6, 27, 40}, o()), g = randn({6, 8, 40}, o());
  Tensor out = w.matmul(cols), gw = g.matmul(cols.transpose(1, 2)), gc = w.t().matmul(g);
  for (int64_t i = 0; i < 6; ++i) {
    Tensor ci = cols.select(0, i).cpu().to(kDouble), gi = g.select(0, i).cpu().to(kDouble), wd = w.cpu().to(kDouble);
    EXPECT_TRUE(out.select(0, i).cpu().to(kDouble).allclose(wd.mm(ci), 1e-4, 1e-4)) << i;
    EXPECT_TRUE(gw.select(0, i).cpu().to(kDouble).allclose(gi.mm(ci.t()), 1e-4, 1e-4)) << i;
    EXPECT_TRUE(gc.select(0, i).cpu().to(kDouble).allclose(wd.t().mm(gi), 1e-4, 1e-4)) << i;
  }
}

TEST_P(Linalg, Trace) {
  EXPECT_EQ(arange(12, o()).reshape({3, 4}).trace().item<double>(), 15.0);
  Tensor i = trace(arange(6, o(kLong)).reshape({3, 2}));
  EXPECT_EQ(i.item<int64_t>(), 3);
  EXPECT_EQ(i.scalar_type(), kLong);
  EXPECT_EQ(arange(12, o()).reshape({3, 4}).t().trace().item<double>(), 15.0);  // strided
  Tensor w = arange(6, o()).reshape({2, 3}).requires_grad_();
  w.trace().backward();
  EXPECT_EQ(values(w.grad()), (V{1, 0, 0, 0, 1, 0}));
  EXPECT_THROW_MSG(ones({3}, o()).trace(), Error, "[trace] expected a matrix (2-D tensor), got 1-D [3].");
}

LOCUS_INSTANTIATE_DEVICES(Linalg);

}  // namespace linalg_test
