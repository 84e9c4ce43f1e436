// torch::einsum on every device: against the ops each equation spells (matmul, bmm, transpose,
// diag, outer and elementwise products, sums), PyTorch's ordering of implicit outputs, "..."
// broadcasting, gradients, and each error's message.
#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace einsum_test {

using V = std::vector<double>;

class Einsum : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
  static bool same(const Tensor& a, const Tensor& b) {
    return a.sizes() == b.sizes() && a.to(kCPU).allclose(b.to(kCPU), 1e-5, 1e-5);
  }
};

TEST_P(Einsum, MatchesTheOpsItSpells) {
  manual_seed(3);
  Tensor a = randn({3, 4}, o()), b = randn({4, 5}, o()), c = randn({5, 2}, o());
  EXPECT_TRUE(same(einsum("ij,jk->ik", {a, b}), a.matmul(b)));
  EXPECT_TRUE(same(einsum("ij,jk", {a, b}), a.matmul(b)));  // implicit output: i, k
  EXPECT_TRUE(same(einsum("ij,jk,kl->il", {a, b, c}), a.matmul(b).matmul(c)));
  EXPECT_TRUE(same(einsum("ij->ji", {a}), a.t()));
  EXPECT_TRUE(same(einsum("ba", {a}), a.t()));  // implicit output in alphabetical order: a, b
  EXPECT_TRUE(same(einsum("aB", {a}), a.t()));  // uppercase before lowercase: B, a
  EXPECT_TRUE(same(einsum("ij->", {a}), a.sum()));
  EXPECT_TRUE(same(einsum("ij->j", {a}), a.sum(0)));
  EXPECT_TRUE(same(einsum("ij,ij->ij", {a, a}), a * a));
  EXPECT_TRUE(same(einsum("ij,ij", {a, a}), (a * a).sum()));
  Tensor u = randn({3}, o()), v = randn({4}, o());
  EXPECT_TRUE(same(einsum("i,j->ij", {u, v}), u.unsqueeze(1) * v.unsqueeze(0)));
  EXPECT_TRUE(same(einsum("i,i->", {u, u}), u.dot(u)));
  EXPECT_TRUE(same(einsum("ij,j->i", {a, v}), a.matmul(v)));
  Tensor s = randn({4, 4}, o());
  EXPECT_TRUE(same(einsum("ii->i", {s}), s.diag()));
  EXPECT_TRUE(same(einsum("ii", {s}), s.diag().sum()));  // the trace
  EXPECT_TRUE(same(einsum("ij, jk -> ik", {a, b}), a.matmul(b)));  // spaces are allowed
}

TEST_P(Einsum, BatchesAndEllipsis) {
  manual_seed(4);
  Tensor x = randn({2, 3, 4}, o()), y = randn({2, 4, 5}, o());
  EXPECT_TRUE(same(einsum("bij,bjk->bik", {x, y}), x.bmm(y)));
  // attention scores: q k^T per batch and head
  Tensor q = randn({2, 3, 5, 8}, o()), k = randn({2, 3, 6, 8}, o());
  EXPECT_TRUE(same(einsum("bhqd,bhkd->bhqk", {q, k}), q.matmul(k.transpose(-1, -2))));
  // "..." broadcast, right aligned: [2, 1] with [5] -> [2, 5]
  Tensor p = randn({2, 1, 3, 4}, o()), r = randn({5, 4, 2}, o());
  EXPECT_TRUE(same(einsum("...ij,...jk->...ik", {p, r}), p.matmul(r)));
  EXPECT_TRUE(same(einsum("...ij,...jk", {p, r}), p.matmul(r)));  // implicit: "..." first
  EXPECT_TRUE(same(einsum("i...->...", {x}), x.sum(0)));
  Tensor d = randn({2, 3, 3}, o());
  EXPECT_TRUE(same(einsum("...ii->...i", {d}), stack({d[0].diag(), d[1].diag()})));
  // a size-1 dimension broadcasts against the same subscript of another operand
  Tensor one = randn({1, 4}, o()), full = randn({3, 4}, o());
  EXPECT_TRUE(same(einsum("ij,ij->ij", {one, full}), one * full));
  EXPECT_TRUE(same(einsum("ij,ij->j", {one, full}), (one * full).sum(0)));
}

TEST_P(Einsum, GradientsFlowToEveryOperand) {
  gradcheck([](const std::vector<Tensor>& t) { return einsum("bij,bjk->bik", {t[0], t[1]}); },
            {randn({2, 3, 4}, kDouble), randn({2, 4, 2}, kDouble)}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return einsum("ii->i", {t[0]}); }, {randn({3, 3}, kDouble)}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return einsum("i,ij,j->", {t[0], t[1], t[2]}); },
            {randn({3}, kDouble), randn({3, 4}, kDouble), randn({4}, kDouble)}, GetParam());
}

TEST_P(Einsum, ErrorsNameTheProblem) {
  Tensor a = ones({2, 3}, o()), s = ones({2, 3}, o());
  EXPECT_THROW_MSG(einsum("ij,jk->ik", {a}), Error,
                   "[einsum] the equation has subscripts for 2 operand(s) but 1 tensor(s) were given");
  EXPECT_THROW_MSG(einsum("ijk->i", {a}), Error,
                   "[einsum] operand 0 has 2 dimensions but its subscripts name 3; give one subscript per dimension");
  EXPECT_THROW_MSG(einsum("i1->i", {a}), Error, "[einsum] invalid subscript '1' at index 1 of the equation");
  EXPECT_THROW_MSG(einsum("ij->ii", {a}), Error, "[einsum] output subscript i appears more than once in the output.");
  EXPECT_THROW_MSG(einsum("ij->k", {a}), Error, "[einsum] output subscript k does not appear in any operand's subscripts.");
  EXPECT_THROW_MSG(einsum("ij,ij->i", {a, ones({2, 4}, o())}), Error,
                   "[einsum] subscript j has size 4 in operand 1 but size 3 in an earlier one");
  EXPECT_THROW_MSG(einsum("ii->i", {s}), Error, "[einsum] subscript i is repeated in operand 0 over dimensions of sizes 2 and 3");
  EXPECT_THROW_MSG(einsum("i.j->i", {a}), Error, "[einsum] a '.' that is not part of \"...\" at index 1");
  EXPECT_THROW_MSG(einsum("...i...->i", {a}), Error, "[einsum] more than one \"...\" in one operand's subscripts");
  EXPECT_THROW_MSG(einsum("i", {}), Error, "[einsum] no operands");
  if (GetParam() != Device(kCPU))
    EXPECT_THROW_MSG(einsum("ij,ij->ij", {a, ones({2, 3})}), DeviceMismatchError,
                     "[einsum] Expected all tensors to be on the same device, but found at least two devices, " +
                         GetParam().str() + " and cpu! Argument 'operands[1]' is on cpu; move it with .to(" +
                         GetParam().str() + ").");
}

LOCUS_INSTANTIATE_DEVICES(Einsum);

}  // namespace einsum_test
