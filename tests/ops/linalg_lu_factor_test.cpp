// torch::linalg's LU family (src/ops/linalg_lu_factor.cpp) on every device: lu_factor(_ex), lu,
// lu_solve, lu_unpack, solve_ex, inv_ex, for square, wide and tall matrices, with gradients;
// values from PyTorch 1.13 (/usr/bin/python3, Debian's torch), and every error message.
#include <string>
#include <tuple>
#include <vector>

#include "testing.h"

using namespace locus;

namespace linalg_lu_factor_test {
using V = std::vector<double>;

class LinalgLuFactor : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions d() const { return device(GetParam()).dtype(kDouble); }
  Tensor A() const { return tensor({2., 1., 3., 4., -1., 0.5, -2., 5., 1.}, d()).view({3, 3}); }
  Tensor W() const { return tensor({1., 2., 3., 4., 2., 0., 1., -1., 0.5, 3., -2., 1.}, d()).view({3, 4}); }
};

struct LuCase {
  const char* name;
  std::vector<int64_t> p_shape, l_shape, u_shape;
  V P, L, U, grad, LU;
  std::vector<int64_t> pivots;
  V grad_lu;
};

TEST_P(LinalgLuFactor, SquareWideAndTallWithGradients) {
  const std::vector<LuCase> cases = {
      {"square", {3, 3}, {3, 3}, {3, 3}, V{0, 0, 1, 1, 0, 0, 0, 1, 0}, V{1, 0, 0, -0.5, 1, 0, 0.5, 0.333333333333, 1},
       V{4, -1, 0.5, 0, 4.5, 1.25, 0, 0, 2.333333333333},
       V{0.916666666667, 0.166666666667, 5.0, -2.986111111111, -1.611111111111, -3.333333333333, 0.944444444444,
         0.944444444444, 0.333333333333},
       V{4, -1, 0.5, -0.5, 4.5, 1.25, 0.5, 0.333333333333, 2.333333333333}, {2, 3, 3},
       V{-0.62037037037, -1.148148148148, 4.666666666667, 9.29899691358, 3.265432098765, -0.861111111111,
         1.97762345679, 9.382716049383, 0.944444444444}},
      {"wide", {3, 3}, {3, 3}, {3, 4}, V{0, 0, 1, 1, 0, 0, 0, 1, 0}, V{1, 0, 0, 0.25, 1, 0, 0.5, 0.666666666667, 1},
       V{2, 0, 1, -1, 0, 3, -2.25, 1.25, 0, 0, 4, 3.666666666667},
       V{3.5, 4.25, 7.0, 8.0, -5.166666666667, -3.916666666667, -4.083333333333, -3.666666666667, 1.666666666667,
         -0.833333333333, -1.666666666667, -1.333333333333},
       V{2, 0, 1, -1, 0.25, 3, -2.25, 1.25, 0.5, 0.666666666667, 4, 3.666666666667}, {2, 3, 3},
       V{0.166666666667, 3.388888888889, 8.0, 7.333333333333, 2.923611111111, -2.62962962963, 0.458333333333,
         -5.069444444444, 3.972222222222, 3.740740740741, -9.833333333333, -2.388888888889}},
      {"tall", {4, 4}, {4, 3}, {3, 3}, V{0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0},
       V{1, 0, 0, 0.25, 1, 0, 0.75, 0.777777777778, 1, 0.5, 0.222222222222, -0.830188679245},
       V{4, -1, 1, 0, 2.25, 0.25, 0, 0, -2.944444444444},
       V{-0.172281335566, -2.335579200893, 1.353546141371, 4.398846960168, 4.859538784067, -3.735849056604,
         1.750405442823, 2.900162177129, 1.898540405838, -6.469157228309, -6.020996224657, -0.89436731142},
       V{4, -1, 1, 0.25, 2.25, 0.25, 0.75, 0.777777777778, -2.944444444444, 0.5, 0.222222222222, -0.830188679245},
       {4, 4, 3},
       V{-0.156744318942, 3.4638454823, 4.590822758069, 0.142743342607, 0.134875114821, 0.563901744393,
         2.053601740753, 1.293662918523, -5.420744044487, 6.427613102868, -3.903646116878, 4.635901471652}},
  };
  for (const LuCase& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor M = std::string(c.name) == "square" ? A() : std::string(c.name) == "wide" ? W() : W().t().contiguous();
    Tensor X = M.clone().requires_grad_();
    auto [P, L, U] = linalg::lu(X);
    EXPECT_EQ(P.device(), GetParam());
    EXPECT_VALUES(P, c.p_shape, c.P);
    EXPECT_VALUES(L, c.l_shape, c.L);
    EXPECT_VALUES(U, c.u_shape, c.U);
    EXPECT_FALSE(P.requires_grad());
    EXPECT_TRUE(P.matmul(L).matmul(U).allclose(M, 1e-12, 1e-12));
    Tensor wl = arange(L.numel(), d()).view(L.sizes()), wu = arange(U.numel(), d()).view(U.sizes()) - 3;
    ((L * wl).sum() + (U * wu).sum()).backward();
    EXPECT_VALUES(X.grad(), M.sizes().vec(), c.grad);

    Tensor Y = M.clone().requires_grad_();
    auto [LU, pivots] = linalg::lu_factor(Y);
    EXPECT_VALUES(LU, M.sizes().vec(), c.LU);
    EXPECT_EQ(pivots.scalar_type(), kInt);
    EXPECT_EQ(pivots.device(), GetParam());
    EXPECT_VALUES(pivots, {static_cast<int64_t>(c.pivots.size())}, V(c.pivots.begin(), c.pivots.end()));
    (LU * LU).sum().backward();
    EXPECT_VALUES(Y.grad(), M.sizes().vec(), c.grad_lu);

    // lu_unpack gives linalg::lu's factors back
    auto [P2, L2, U2] = lu_unpack(LU.detach(), pivots);
    EXPECT_TRUE(P2.equal(P));
    EXPECT_TRUE(L2.allclose(L.detach()));
    EXPECT_TRUE(U2.allclose(U.detach()));
  }
}

TEST_P(LinalgLuFactor, SolveUnpackAndBatches) {
  Tensor B = tensor({1., 0., 2., 1., 0., 3.}, d()).view({3, 2});
  auto [LU0, pivots] = linalg::lu_factor(A());
  Tensor LU = LU0.detach().requires_grad_(), Bg = B.clone().requires_grad_();
  Tensor X = linalg::lu_solve(LU, pivots, Bg);
  EXPECT_VALUES(X, {3, 2}, V{0.583333333333, 0.583333333333, 0.261904761905, 0.97619047619, -0.142857142857,
                             -0.714285714286});
  X.sum().backward();
  EXPECT_VALUES(LU.grad(), {3, 3}, V{-0.291666666667, -0.309523809524, 0.214285714286, -0.607142857143,
                                     -0.343915343915, 0.238095238095, -0.678571428571, -1.017857142857, 0.19387755102});
  EXPECT_VALUES(Bg.grad(), {3, 2}, V{0.22619047619, 0.22619047619, 0.238095238095, 0.238095238095, 0.202380952381,
                                     0.202380952381});
  NoGradGuard no_grad;
  EXPECT_VALUES(linalg::lu_solve(LU0, pivots, B, true, true), {3, 2},
                V{-0.3214285714285714, 1.1666666666666667, 0.7142857142857142, -0.6666666666666667,
                  0.6071428571428571, -0.16666666666666669});
  EXPECT_VALUES(linalg::lu_solve(LU0, pivots, B.t(), false), {2, 3},
                V{-0.3214285714285714, 0.7142857142857142, 0.6071428571428571, 1.1666666666666667,
                  -0.6666666666666667, -0.16666666666666669});
  // X A^T = B: X = B A^-T
  EXPECT_TRUE(linalg::lu_solve(LU0, pivots, B.t(), false, true).allclose(linalg::solve(A().t(), B.t(), false)));
  EXPECT_VALUES(lu_solve(B, LU0, pivots), {3, 2}, V{0.583333333333, 0.583333333333, 0.261904761905, 0.97619047619,
                                                    -0.142857142857, -0.714285714286});
  EXPECT_TRUE(linalg_lu_solve(LU0, pivots, B).allclose(linalg::solve(A(), B)));
  auto [P, L, U] = lu_unpack(LU0, pivots, false, true);
  EXPECT_EQ(L.numel(), 0);
  EXPECT_EQ(U.numel(), 0);
  EXPECT_VALUES(P, {3, 3}, V{0, 0, 1, 1, 0, 0, 0, 1, 0});
  // a batch: pivots [2, 3], info [2]
  Tensor batch = stack({A(), A().t()});
  auto [bLU, bpiv, binfo] = linalg::lu_factor_ex(batch);
  EXPECT_EQ(bpiv.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_VALUES(binfo, {2}, V{0, 0});
  EXPECT_TRUE(linalg::lu_solve(bLU, bpiv, stack({B, B})).allclose(linalg::solve(batch, stack({B, B}))));
  auto [tLU, tpiv] = linalg_lu_factor(batch);
  EXPECT_TRUE(tLU.equal(bLU));
  EXPECT_TRUE(std::get<0>(linalg_lu(A())).equal(std::get<0>(linalg::lu(A()))));
}

TEST_P(LinalgLuFactor, SingularMatricesReportInfo) {
  Tensor S = tensor({1., 2., 2., 4.}, d()).view({2, 2});
  auto [LU, pivots, info] = linalg::lu_factor_ex(S);
  EXPECT_VALUES(LU, {2, 2}, V{2, 4, 0.5, 0});
  EXPECT_VALUES(pivots, {2}, V{2, 2});
  EXPECT_EQ(info.scalar_type(), kInt);
  EXPECT_VALUES(info, {}, V{2});
  auto [X, sinfo] = linalg::solve_ex(S, ones({2}, d()));
  EXPECT_VALUES(sinfo, {}, V{2});
  EXPECT_EQ(X.sizes().vec(), std::vector<int64_t>{2});
  EXPECT_FALSE(X.isfinite().all().item<bool>());  // LAPACK's division by the zero pivot
  auto [Xi, iinfo] = linalg::inv_ex(S);
  EXPECT_VALUES(iinfo, {}, V{2});
  EXPECT_EQ(Xi.sizes().vec(), (std::vector<int64_t>{2, 2}));
  // invertible: the results of solve and inv, info 0
  Tensor B = tensor({1., 0., 2., 1., 0., 3.}, d()).view({3, 2});
  auto [Xs, ok] = linalg_solve_ex(A(), B);
  EXPECT_VALUES(ok, {}, V{0});
  EXPECT_VALUES(Xs, {3, 2}, V{0.583333333333, 0.583333333333, 0.261904761905, 0.97619047619, -0.142857142857,
                              -0.714285714286});
  auto [inv, iok] = linalg_inv_ex(A().to(kFloat));
  EXPECT_VALUES(iok, {}, V{0});
  EXPECT_EQ(inv.scalar_type(), kFloat);
  EXPECT_VALUES(inv, {3, 3}, V{-0.0833333358, 0.3333333433, 0.0833333358, -0.1190476269, 0.1904762089, 0.2619047761,
                               0.4285714328, -0.2857143283, -0.1428571641});
}

TEST_P(LinalgLuFactor, Errors) {
  Tensor S = tensor({1., 2., 2., 4.}, d()).view({2, 2});
  EXPECT_THROW_MSG(linalg::lu_factor(S), Error,
                   "[linalg.lu_factor] U[2,2] is zero and using it on lu_solve would result in a division by zero. If "
                   "you still want to perform the factorization, consider calling linalg::lu(A, pivot) or "
                   "linalg::lu_factor_ex(A, pivot).");
  EXPECT_THROW_MSG(linalg::lu_factor(stack({A(), zeros({3, 3}, d())})), Error,
                   "[linalg.lu_factor] (batch element 1) U[1,1] is zero");
  EXPECT_THROW_MSG(linalg::lu_factor_ex(S, true, true), Error, "[linalg.lu_factor_ex] U[2,2] is zero: the matrix is singular.");
  EXPECT_THROW_MSG(linalg::lu_factor(A(), false), Error,
                   "[linalg.lu_factor] LU without pivoting is not implemented (as on PyTorch's cpu); pass pivot=true.");
  EXPECT_THROW_MSG(linalg::lu(A(), false), Error, "[linalg.lu] LU without pivoting is not implemented");
  EXPECT_THROW_MSG(linalg::lu_factor(ones({3}, d())), Error,
                   "[linalg.lu_factor] expected a tensor with 2 or more dimensions (batches of matrices), got shape [3].");
  EXPECT_THROW_MSG(linalg::lu(ones({3, 3}, device(GetParam()).dtype(kLong))), Error,
                   "[linalg.lu] expected a float32 or float64 tensor, got int64; convert it with .to(kFloat).");
  EXPECT_THROW_MSG(linalg::solve_ex(S, ones({2}, d()), true, true), Error,
                   "[linalg.solve_ex] the solver failed because the input matrix is singular (U[2,2] of its LU "
                   "factorization is zero).");
  EXPECT_THROW_MSG(linalg::inv_ex(S, true), Error,
                   "[linalg.inv_ex] the diagonal element 2 is zero, the inversion could not be completed because the "
                   "input matrix is singular.");
  EXPECT_THROW_MSG(linalg::inv_ex(W()), Error, "[linalg.inv_ex] A must be batches of square matrices, but they are 3 by 4");
  auto [LU, pivots] = linalg::lu_factor(A());
  EXPECT_THROW_MSG(linalg::lu_solve(LU, pivots.to(kLong), ones({3, 1}, d())), Error,
                   "[linalg.lu_solve] expected int32 pivots (as lu_factor returns them), got int64.");
  EXPECT_THROW_MSG(linalg::lu_solve(LU, pivots, ones({2, 1}, d())), Error,
                   "[linalg.lu_solve] B [2, 1] does not fit the 3 x 3 matrices of LU: it needs 3 rows.");
  EXPECT_THROW_MSG(linalg::lu_solve(LU, pivots, ones({3, 1}, device(GetParam()).dtype(kFloat))), Error,
                   "[linalg.lu_solve] expected B of LU's dtype (float64), got float32.");
  EXPECT_THROW_MSG(lu_unpack(LU, pivots.narrow(0, 0, 2)), Error,
                   "[lu_unpack] pivots [2] do not fit LU [3, 3]: expected min(m, n) = 3 pivots per matrix.");
  EXPECT_THROW_MSG(lu_unpack(LU, pivots * 5), Error,
                   "[lu_unpack] pivot 10 is out of range for matrices with 3 rows (pivots are 1-based, as lu_factor "
                   "returns them).");
}

LOCUS_INSTANTIATE_DEVICES(LinalgLuFactor);

}  // namespace linalg_lu_factor_test
