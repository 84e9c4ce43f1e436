// torch::linalg's inv, det, slogdet, solve and norms, and Tensor::inverse / det / logdet /
// slogdet, on every device; expected values from PyTorch 1.13 (tests/ops/linalg_more_cases.py
// prints them), gradients from PyTorch and by finite differences.
#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace linalg_more_test {
using V = std::vector<double>;

namespace {

const double inf_ = std::numeric_limits<double>::infinity();

void expect_values(const Tensor& t, const V& want, double tol) {
  V got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": " << got[i];
    else if (std::isinf(want[i])) EXPECT_EQ(got[i], want[i]) << "at " << i;
    else EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

class LinalgMore : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kDouble) const { return TensorOptions().device(GetParam()).dtype(t); }
  Tensor A(ScalarType t = kDouble) const { return tensor({{2.0, 1.0, 0.0}, {1.0, 3.0, 1.0}, {0.0, 1.0, 4.0}}, o(t)); }
  Tensor Bm() const { return tensor({{{0.0, 2.0}, {1.0, 1.0}}, {{3.0, -1.0}, {2.0, 5.0}}}, o()); }
};

TEST_P(LinalgMore, InverseAndDeterminants) {
  const V inv_a{0.61111111, -0.22222222, 0.05555556, -0.22222222, 0.44444444, -0.11111111, 0.05555556, -0.11111111,
                0.27777778};
  Tensor i = A().inverse();
  EXPECT_EQ(i.device(), GetParam());
  EXPECT_EQ(i.scalar_type(), kDouble);
  expect_values(i, inv_a, 1e-8);
  expect_values(inverse(A(kFloat)), inv_a, 1e-6);
  EXPECT_EQ(inverse(A(kFloat)).scalar_type(), kFloat);
  expect_values(linalg::inv(Bm()), {-0.5, 1.0, 0.5, 0.0, 0.29411765, 0.05882353, -0.11764706, 0.17647059}, 1e-8);
  expect_values(A().det(), {18}, 1e-12);
  Tensor d = det(Bm());
  EXPECT_EQ(d.sizes(), IntArrayRef({2}));
  expect_values(d, {-2, 17}, 1e-12);
  expect_values(linalg::det(A(kFloat)), {18}, 1e-5);
  expect_values(linalg_det(Bm()), {-2, 17}, 1e-12);
  auto [sign, logabs] = slogdet(Bm());
  expect_values(sign, {-1, 1}, 0);
  expect_values(logabs, {0.69314718, 2.83321334}, 1e-8);
  auto [sign2, logabs2] = linalg::slogdet(Bm());
  expect_values(sign2, {-1, 1}, 0);
  expect_values(logabs2, {0.69314718, 2.83321334}, 1e-8);
  expect_values(Bm().logdet(), {std::nan(""), 2.83321334}, 1e-8);
  // singular: det 0, slogdet (0, -inf), logdet -inf
  Tensor s = tensor({{1.0, 2.0}, {2.0, 4.0}}, o(kFloat));
  expect_values(s.det(), {0}, 0);
  auto [ss, sl] = s.slogdet();
  expect_values(ss, {0}, 0);
  expect_values(sl, {-inf_}, 0);
  expect_values(logdet(s), {-inf_}, 0);
  // empty matrices
  expect_values(det(zeros({0, 0}, o(kFloat))), {1}, 0);
  EXPECT_EQ(inverse(zeros({0, 0}, o(kFloat))).sizes(), IntArrayRef({0, 0}));
}

TEST_P(LinalgMore, Solve) {
  Tensor b = tensor({1.0, -2.0, 0.5}, o());
  Tensor x = linalg::solve(A(), b);
  EXPECT_EQ(x.sizes(), IntArrayRef({3}));
  expect_values(x, {1.08333333, -1.16666667, 0.41666667}, 1e-8);
  // [2, 2, 2] and [2, 2]: the vector case (B is A's shape without the last dim)
  Tensor xv = linalg_solve(Bm(), tensor({{1.0, 2.0}, {3.0, 4.0}}, o()));
  EXPECT_EQ(xv.sizes(), IntArrayRef({2, 2}));
  expect_values(xv, {1.5, 0.5, 1.11764706, 0.35294118}, 1e-8);
  // [2, 2, 2] and [2, 3]: a matrix broadcast over the batch
  Tensor xm = linalg::solve(Bm(), tensor({{1.0, 0.0, 2.0}, {3.0, 1.0, 4.0}}, o()));
  EXPECT_EQ(xm.sizes(), IntArrayRef({2, 2, 3}));
  expect_values(xm, {2.5, 1.0, 3.0, 0.5, 0.0, 1.0, 0.47058824, 0.05882353, 0.82352941, 0.41176471, 0.17647059,
                     0.47058824}, 1e-8);
  Tensor xr = linalg::solve(A(), tensor({{1.0, 0.0, 2.0}, {3.0, 1.0, 4.0}}, o()), /*left=*/false);  // X A = B
  EXPECT_EQ(xr.sizes(), IntArrayRef({2, 3}));
  expect_values(xr, {0.72222222, -0.44444444, 0.61111111, 1.83333333, -0.66666667, 1.16666667}, 1e-8);
  EXPECT_THROW_MSG(linalg::solve(A(), b, false), Error,
                   "[linalg.solve] incompatible shapes of A and B for the equation XA = B: A [3, 3] and B [3]");
  Tensor xf = linalg::solve(A(kFloat), b.to(kFloat));
  EXPECT_EQ(xf.scalar_type(), kFloat);
  expect_values(xf, {1.08333333, -1.16666667, 0.41666667}, 1e-6);
}

// values and gradients from PyTorch 1.13's triangular_solve and linalg.solve_triangular
TEST_P(LinalgMore, TriangularSolve) {
  const auto od = TensorOptions().dtype(kDouble).device(GetParam());
  Tensor a = tensor({{2.0, 1.0, 3.0}, {0.5, 4.0, -1.0}, {1.0, 2.0, 5.0}}, od).requires_grad_();
  Tensor b = tensor({{1.0, 2.0}, {3.0, -1.0}, {0.5, 1.0}}, od).requires_grad_();
  auto [x, a_copy] = triangular_solve(b, a);  // upper, the lower triangle ignored
  expect_values(x, {-0.0375, 0.8, 0.775, -0.2, 0.1, 0.2}, 1e-12);
  EXPECT_TRUE(equal(a_copy, a));
  EXPECT_FALSE(a_copy.is_alias_of(a));
  expect_values(std::get<0>(triangular_solve(b, a, /*upper=*/false, /*transpose=*/true, /*unitriangular=*/true)),
                {-0.5, 2.5, 2.0, -3.0, 0.5, 1.0}, 1e-12);
  expect_values(linalg::solve_triangular(a, b.t().contiguous(), /*upper=*/false, /*left=*/false),
                {0.275, 0.7, 0.1, 0.9875, -0.35, 0.2}, 1e-12);
  (x * arange(1.0, 7.0, od).view({3, 2})).sum().backward();
  expect_values(a.grad(), {-0.78125, -0.1875, -0.25, 0.0, -0.334375, -0.2125, 0.0, 0.0, -0.2325}, 1e-12);
  expect_values(b.grad(), {0.5, 1.0, 0.625, 0.75, 0.825, 0.75}, 1e-12);
  EXPECT_THROW_MSG(linalg::solve_triangular(ones({2, 3}, od), b, true), Error,
                   "[solve_triangular] A must be a batch of square matrices, got shape [2, 3].");
}

TEST_P(LinalgMore, Gradients) {
  Tensor a = A().requires_grad_();
  det(a).backward();
  expect_values(a.grad(), {11, -4, 1, -4, 8, -2, 1, -2, 5}, 1e-10);
  a = A().requires_grad_();
  (inverse(a) * arange(9, o()).reshape({3, 3})).sum().backward();
  expect_values(a.grad(), {0.19753086, -0.06172840, -0.12345679, -0.28395062, -0.09876543, -0.19753086, -0.56790123,
                           -0.19753086, -0.39506173}, 1e-8);
  a = A().requires_grad_();
  Tensor bb = tensor({1.0, -2.0, 0.5}, o()).requires_grad_();
  (linalg::solve(a, bb) * tensor({1.0, 2.0, 3.0}, o())).sum().backward();
  expect_values(a.grad(), {-0.36111111, 0.38888889, -0.13888889, -0.36111111, 0.38888889, -0.13888889, -0.72222222,
                           0.77777778, -0.27777778}, 1e-8);
  expect_values(bb.grad(), {0.33333333, 0.33333333, 0.66666667}, 1e-8);
  a = A().requires_grad_();
  logdet(a).backward();
  expect_values(a.grad(), {0.61111111, -0.22222222, 0.05555556, -0.22222222, 0.44444444, -0.11111111, 0.05555556,
                           -0.11111111, 0.27777778}, 1e-8);
  // at a singular matrix: the cofactor matrix (computed independently with numpy, see
  // linalg_more_cases.py; PyTorch 1.13 gives zeros there), next to a regular one (PyTorch's numbers)
  Tensor sb = tensor({{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 9.0}}, {{2.0, 0.0, 0.0}, {0.0, 3.0, 0.0},
                     {0.0, 0.0, 4.0}}}, o()).requires_grad_();
  (det(sb) * tensor({1.0, 2.0}, o())).sum().backward();
  expect_values(sb.grad(), {-3, 6, -3, 6, -12, 6, -3, 6, -3, 24, 0, 0, 0, 16, 0, 0, 0, 12}, 1e-9);
  Tensor s2 = tensor({{1.0, 2.0}, {2.0, 4.0}}, o(kFloat)).requires_grad_();
  s2.det().backward();
  expect_values(s2.grad(), {4, -2, -2, 1}, 1e-6);
  // batched, by finite differences
  Tensor m = tensor({{{1.5, 0.2, -0.3}, {0.1, 2.0, 0.4}, {-0.2, 0.3, 1.2}}, {{0.5, -1.0, 0.2}, {0.7, 0.3, 0.1},
                    {0.0, 0.4, -0.9}}}, TensorOptions().dtype(kDouble));
  Tensor r = tensor({{0.3, -1.0}, {2.0, 0.5}, {-0.7, 1.1}}, TensorOptions().dtype(kDouble));
  gradcheck([](const std::vector<Tensor>& t) { return linalg::inv(t[0]); }, {m}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return linalg::det(t[0]); }, {m}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return std::get<1>(linalg::slogdet(t[0])); }, {m}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return linalg::solve(t[0], t[1]); }, {m, r}, GetParam());
  // second order: the backward formulas are differentiable ops themselves
  // (the finite differences run under NoGradGuard with plain inputs: the first derivative is then
  // taken of a fresh leaf, with grad mode on for it)
  auto first = [](const std::function<Tensor(const Tensor&)>& f, const Tensor& x) {
    AutoGradMode on(true);
    Tensor leaf = x.requires_grad() ? x : x.detach().requires_grad_();
    return autograd::grad({f(leaf).sum()}, {leaf}, {}, true, x.requires_grad())[0];
  };
  gradcheck([&](const std::vector<Tensor>& t) { return first([](const Tensor& x) { return linalg::det(x); }, t[0]); },
            {m}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) { return first([](const Tensor& x) { return linalg::inv(x); }, t[0]); },
            {m}, GetParam());
  gradcheck(
      [&](const std::vector<Tensor>& t) {
        return first([&](const Tensor& x) { return linalg::solve(x, t[1]); }, t[0]);
      },
      {m, r}, GetParam());
}

TEST_P(LinalgMore, Errors) {
  Tensor s = tensor({{1.0, 2.0}, {2.0, 4.0}}, o(kFloat));
  EXPECT_THROW_MSG(s.inverse(), Error,
                   "[linalg.inv] the matrix is singular: the diagonal element 2 of its LU factorization is zero");
  EXPECT_THROW_MSG(linalg::inv(stack({eye(2, o(kFloat)), s})), Error,
                   "[linalg.inv] the matrix (batch element 1) is singular");
  EXPECT_THROW_MSG(linalg::solve(s, ones({2}, o(kFloat))), Error, "[linalg.solve] the matrix A is singular");
  EXPECT_THROW_MSG(inverse(ones({2, 3}, o())), Error,
                   "[linalg.inv] A must be batches of square matrices, but they are 2 by 3 matrices.");
  EXPECT_THROW_MSG(det(ones({3}, o())), Error, "[linalg.det] the input A must have at least 2 dimensions");
  EXPECT_THROW_MSG(det(ones({2, 2}, o(kLong))), Error, "[linalg.det] expected a float32 or float64 tensor, got int64");
  EXPECT_THROW_MSG(linalg::solve(A(), ones({2}, o())), Error,
                   "[linalg.solve] incompatible shapes of A and B for the equation AX = B: A [3, 3] and B [2]");
  Tensor big = zeros({33, 33}, o()).requires_grad_();
  EXPECT_THROW_MSG(det(big).backward(), Error,
                   "[linalg.det] the gradient at a singular matrix is computed from cofactors, for matrices up to "
                   "32 x 32; this one is 33 x 33.");
  EXPECT_THROW_MSG(linalg::solve(A(kFloat), ones({3}, o())), Error,
                   "[linalg.solve] expected A and B to have the same dtype, but A is float32 and B is float64.");
}

TEST_P(LinalgMore, Norms) {
  Tensor a = A(kFloat);
  expect_values(linalg::norm(a), {5.74456263}, 1e-6);
  expect_values(linalg::norm(a, "fro"), {5.74456263}, 1e-6);
  expect_values(linalg_norm(a, 1), {5}, 1e-6);
  expect_values(linalg::norm(a, inf_), {5}, 1e-6);
  expect_values(linalg::norm(tensor({3.0, -4.0}, o(kFloat)), 1), {7}, 1e-6);
  expect_values(linalg::norm(tensor({3.0, -4.0}, o(kFloat)), inf_), {4}, 1e-6);
  expect_values(linalg::norm(ones({2, 2, 2}, o(kFloat))), {2.82842708}, 1e-6);
  expect_values(linalg::norm(a, std::nullopt, IntArrayRef{1}), {2.23606801, 3.31662488, 4.12310553}, 1e-6);
  expect_values(linalg::norm(a, 1, IntArrayRef{1}), {3, 5, 5}, 1e-6);
  expect_values(linalg::vector_norm(a, 1, IntArrayRef{1}), {3, 5, 5}, 1e-6);
  Tensor mn = linalg::vector_norm(a, -inf_, IntArrayRef{0, 1}, true);
  EXPECT_EQ(mn.sizes(), IntArrayRef({1, 1}));
  expect_values(mn, {0}, 0);
  expect_values(linalg_vector_norm(a, 0), {7}, 0);
  expect_values(linalg::vector_norm(a, 3), {4.68754816}, 1e-5);
  Tensor d = linalg::vector_norm(a, 2, std::nullopt, false, kDouble);
  EXPECT_EQ(d.scalar_type(), kDouble);
  expect_values(d, {5.74456265}, 1e-8);
  expect_values(linalg::matrix_norm(a, -1), {3}, 1e-6);
  expect_values(linalg::matrix_norm(a, -inf_), {3}, 1e-6);
  Tensor fk = linalg_matrix_norm(a, "fro", {1, 0}, true);
  EXPECT_EQ(fk.sizes(), IntArrayRef({1, 1}));
  expect_values(fk, {5.74456263}, 1e-6);
  expect_values(linalg::matrix_norm(arange(8, o(kFloat)).reshape({2, 2, 2}), 1), {4, 12}, 1e-6);
  Tensor c = tensor({{1.0, -2.0}, {3.0, 0.5}}, o(kFloat));
  expect_values(linalg::vector_norm(c, -1, IntArrayRef{0}), {0.75, 0.40000001}, 1e-6);
  expect_values(linalg::vector_norm(c, 0.5), {23.55521202}, 1e-4);
  expect_values(linalg::matrix_norm(c, inf_), {3.5}, 1e-6);
  Tensor cg = c.clone().requires_grad_();
  linalg::norm(cg).backward();
  expect_values(cg.grad(), {0.26490647, -0.52981293, 0.79471946, 0.13245323}, 1e-6);
  cg = c.clone().requires_grad_();
  linalg::matrix_norm(cg, 1).backward();
  expect_values(cg.grad(), {1, 0, 1, 0}, 0);

  EXPECT_THROW_MSG(linalg::norm(ones({2, 2, 2}, o(kFloat)), 1), Error,
                   "[linalg.norm] without dim, an ord needs a 1-D or 2-D input, got 3-D; pass dim.");
  EXPECT_THROW_MSG(linalg::matrix_norm(a, 3), Error, "[linalg.matrix_norm] order 3");
  EXPECT_THROW_MSG(linalg::matrix_norm(ones({3}, o(kFloat))), Error,
                   "[linalg.matrix_norm] the input must have at least 2 dimensions, got shape [3].");
  EXPECT_THROW_MSG(linalg::vector_norm(tensor({1, 2}, o(kLong))), Error,
                   "[linalg.vector_norm] expected a floating-point tensor, got int64");
  EXPECT_THROW_MSG(linalg::matrix_norm(a, 1, {0, 0}), Error,
                   "[linalg.matrix_norm] dims must be different, got [0, 0].");
  EXPECT_THROW_MSG(linalg::matrix_norm(a, "fro", {0}), Error, "[linalg.matrix_norm] dim must be a 2-tuple, got [0].");
  EXPECT_THROW_MSG(linalg::matrix_norm(a, "max"), Error,
                   "[linalg.matrix_norm] ord must be 'fro', 'nuc' or a number, got 'max'.");
  EXPECT_THROW_MSG(linalg::norm(ones({2, 2, 2}, o(kFloat)), 2, IntArrayRef{0, 1, 2}), Error,
                   "[linalg.norm] dim must be one or two dims, got [0, 1, 2].");
  EXPECT_THROW_MSG(linalg::norm(tensor({3.0, -4.0}, o(kFloat)), "fro"), Error,
                   "[linalg.norm] ord 'fro' without dim needs a 2-D input, got 1-D; pass dim.");
}

TEST_P(LinalgMore, MixedDevicesAreRefused) {
  std::optional<Device> other;
  for (Device d : test_devices())
    if (d != GetParam()) other = d;
  if (!other) GTEST_SKIP() << "one device only";
  EXPECT_THROW(linalg::solve(A(), ones({3}, TensorOptions().dtype(kDouble).device(*other))), DeviceMismatchError);
}

LOCUS_INSTANTIATE_DEVICES(LinalgMore);

}  // namespace

}  // namespace linalg_more_test
