// torch::linalg's decompositions (cholesky, eigh, svd, qr) and the functions built on them (pinv,
// matrix_rank, cond, lstsq, the spectral and nuclear norms), matrix_exp, cross, vecdot, vander,
// tensorinv and tensorsolve, on every device. Expected values from PyTorch 1.13
// (tests/ops/linalg_decomp_cases.py prints them); eigenvectors and singular vectors, whose signs
// PyTorch does not fix, are compared in absolute value and through the reconstructions;
// gradients by finite differences (gradcheck).
#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace linalg_decomp_test {
using V = std::vector<double>;

namespace {

void expect_values(const Tensor& t, const V& want, double tol) {
  V got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.sizes(), b.sizes());
  expect_values(a, values(b), tol);
}

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

class LinalgDecomp : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kDouble) const { return TensorOptions().device(GetParam()).dtype(t); }
  Tensor P(ScalarType t = kDouble) const {
    return tensor({{4.0, 2.0, 0.6}, {2.0, 5.0, 1.0}, {0.6, 1.0, 3.0}}, o(t));
  }
  Tensor Pb() const { return tensor({{{2.0, 1.0}, {1.0, 3.0}}, {{1.0, 0.5}, {0.5, 2.0}}}, o()); }
  Tensor S() const { return tensor({{2.0, -1.0, 0.5}, {-1.0, 3.0, 0.2}, {0.5, 0.2, 1.0}}, o()); }
  Tensor N() const { return tensor({{2.0, 7.0, 9.0}, {-1.0, 3.0, 4.0}, {0.5, 0.2, 1.0}}, o()); }
  Tensor M(ScalarType t = kDouble) const { return tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 7.0}}, o(t)); }
  Tensor W() const { return tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o()); }
  Tensor R() const { return tensor({{1.0, 2.0}, {2.0, 4.0}}, o()); }
  Tensor B() const { return tensor({{1.0}, {2.0}, {4.0}}, o()); }
  Device other_device() const {
    for (Device d : test_devices())
      if (d != GetParam()) return d;
    return GetParam();
  }
};

TEST_P(LinalgDecomp, Cholesky) {
  const V l{2, 0, 0, 1, 2, 0, 0.3, 0.35, 1.66958079};
  Tensor L = linalg::cholesky(P());
  EXPECT_EQ(L.device(), GetParam());
  EXPECT_EQ(L.scalar_type(), kDouble);
  expect_values(L, l, 1e-8);
  expect_values(linalg::cholesky(P(kFloat)), l, 1e-6);
  EXPECT_EQ(cholesky(P(kFloat)).scalar_type(), kFloat);
  expect_values(linalg::cholesky(P(), true), {2, 1, 0.3, 0, 2, 0.35, 0, 0, 1.66958079}, 1e-8);
  expect_values(P().cholesky(true), {2, 1, 0.3, 0, 2, 0.35, 0, 0, 1.66958079}, 1e-8);
  expect_values(linalg_cholesky(Pb()), {1.41421356, 0, 0.70710678, 1.58113883, 1, 0, 0.5, 1.32287566}, 1e-8);
  // only the lower triangle is read (the upper one when upper)
  expect_values(linalg::cholesky(P().tril()), l, 1e-8);
  expect_values(linalg::cholesky(P().triu(), true), {2, 1, 0.3, 0, 2, 0.35, 0, 0, 1.66958079}, 1e-8);

  Tensor b = tensor({{1.0, 2.0}, {0.0, 1.0}, {3.0, -1.0}}, o());
  const V x{0.24663677, 0.52914798, -0.30941704, 0.08161435, 1.05381166, -0.46636771};
  expect_values(cholesky_solve(b, L), x, 1e-8);
  expect_values(b.cholesky_solve(linalg::cholesky(P(), true), true), x, 1e-8);
  const V pinv_{0.31390135, -0.12107623, -0.02242152, -0.12107623, 0.26098655, -0.06278027, -0.02242152,
                -0.06278027, 0.35874439};
  expect_values(cholesky_inverse(L), pinv_, 1e-8);
  expect_values(mT(L).cholesky_inverse(true), pinv_, 1e-8);

  auto spd = [](const Tensor& X) { return X.matmul(mT(X)) + 3 * eye(X.size(-1), X.options()); };
  Tensor X = sample({3, 3});
  gradcheck([&](const std::vector<Tensor>& t) { return linalg::cholesky(spd(t[0])); }, {X}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) { return linalg::cholesky(spd(t[0]), true); }, {X}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) { return cholesky_solve(t[1], linalg::cholesky(spd(t[0]))); },
            {X, sample({3, 2}, 1.0)}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) { return cholesky_inverse(linalg::cholesky(spd(t[0]))); }, {X},
            GetParam());
  // PyTorch's gradient of sum(cholesky(P) * arange(9)) (not symmetrised: as PyTorch returns it)
  Tensor p = P().requires_grad_();
  (linalg::cholesky(p) * arange(9, o()).reshape({3, 3})).sum().backward();
  expect_values(p.grad(),
                {-0.15470386, 0.16682918, 0.47526181, 0.16682918, 0.76712171, 1.33073308, 0.47526181, 1.33073308,
                 2.39581099},
                1e-7);
}

TEST_P(LinalgDecomp, CholeskyErrors) {
  Tensor bad = tensor({{{1.0, 0.0}, {0.0, 1.0}}, {{1.0, 2.0}, {2.0, 1.0}}}, o(kFloat));
  EXPECT_THROW_MSG(linalg::cholesky(bad), Error,
                   "[linalg.cholesky] the matrix (batch element 1) is not positive-definite (the leading minor of "
                   "order 2 is not positive-definite), so it has no Cholesky factorization.");
  EXPECT_THROW_MSG(linalg::cholesky(M()), Error,
                   "[linalg.cholesky] A must be batches of square matrices, but they are 3 by 2 matrices.");
  EXPECT_THROW_MSG(linalg::cholesky(ones({3}, o())), Error,
                   "[linalg.cholesky] the input A must have at least 2 dimensions, got shape [3].");
  EXPECT_THROW_MSG(linalg::cholesky(eye(2, o(kLong))), Error,
                   "[linalg.cholesky] expected a float32 or float64 tensor, got int64");
  EXPECT_THROW_MSG(cholesky_solve(ones({3}, o()), linalg::cholesky(P())), Error,
                   "[cholesky_solve] b should have at least 2 dimensions, but has 1 dimensions instead.");
  if (other_device() != GetParam())
    EXPECT_THROW(cholesky_solve(ones({3, 1}, TensorOptions().device(other_device()).dtype(kDouble)),
                                linalg::cholesky(P())),
                 DeviceMismatchError);
}

TEST_P(LinalgDecomp, Eigh) {
  auto [w, v] = linalg::eigh(S());
  EXPECT_EQ(w.device(), GetParam());
  EXPECT_EQ(v.device(), GetParam());
  expect_values(w, {0.62525419, 1.75326613, 3.62147968}, 1e-8);
  expect_values(v.abs(),
                {0.50147175, 0.68162951, 0.53282952, 0.28010862, 0.45478019, 0.84540767, 0.81857513, 0.57319821,
                 0.03712912},
                1e-8);
  expect_close(v.matmul(w.diag_embed()).matmul(mT(v)), S(), 1e-10);
  expect_close(mT(v).matmul(v), eye(3, o()), 1e-12);
  // N's lower triangle is S's; its upper one another symmetric matrix
  expect_values(linalg::eigvalsh(N()), {0.62525419, 1.75326613, 3.62147968}, 1e-8);
  expect_values(linalg_eigvalsh(N(), "U"), {-7.98689444, -1.50340246, 15.49029691}, 1e-8);
  expect_values(linalg::eigvalsh(Pb()), {1.38196601, 3.61803399, 0.79289322, 2.20710678}, 1e-8);
  auto [wf, vf] = linalg_eigh(S().to(kFloat));
  EXPECT_EQ(wf.scalar_type(), kFloat);
  expect_values(wf, {0.62525419, 1.75326613, 3.62147968}, 1e-5);

  auto sym = [](const Tensor& X) { return X + mT(X); };
  Tensor X = sample({3, 3});
  gradcheck([&](const std::vector<Tensor>& t) { return linalg::eigvalsh(sym(t[0])); }, {X}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) { return std::get<1>(linalg::eigh(sym(t[0]))); }, {X}, GetParam());
  gradcheck([&](const std::vector<Tensor>& t) {
    auto [ww, vv] = linalg::eigh(sym(t[0]), "U");
    return vv * ww.unsqueeze(-2);
  }, {sample({2, 3, 3}, 0.4)}, GetParam());
  // PyTorch's gradient of sum(eigvalsh(S) * [1, 2, 3])
  Tensor s = S().requires_grad_();
  (linalg::eigvalsh(s) * tensor({1.0, 2.0, 3.0}, o())).sum().backward();
  expect_values(s.grad(),
                {2.03243338, -0.59092472, 0.43027579, -0.59092472, 2.63625330, 0.19790071, 0.43027579, 0.19790071,
                 1.33131333},
                1e-7);

  EXPECT_THROW_MSG(linalg::eigh(S(), "X"), Error, "[linalg.eigh] uplo must be 'L' or 'U', got 'X'.");
  EXPECT_THROW_MSG(linalg::eigvalsh(M()), Error,
                   "[linalg.eigvalsh] A must be batches of square matrices, but they are 3 by 2 matrices.");
  EXPECT_THROW_MSG(linalg::eigh(eye(3, o(kInt))), Error, "[linalg.eigh] expected a float32 or float64 tensor, got");
}

TEST_P(LinalgDecomp, Svd) {
  const V s{10.19142826, 0.36713769};
  auto [U, Sv, Vh] = linalg::svd(M());
  EXPECT_EQ(U.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(Vh.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(U.device(), GetParam());
  expect_values(Sv, s, 1e-8);
  expect_values(U.abs(),
                {0.21678390, 0.93892288, 0.26726124, 0.49045414, 0.34146390, 0.80178373, 0.84407315, 0.04273442,
                 0.53452248},
                1e-8);
  expect_values(Vh.abs(), {0.57975309, 0.81479221, 0.81479221, 0.57975309}, 1e-8);
  expect_close(mT(U).matmul(U), eye(3, o()), 1e-12);
  auto [Ur, Sr, Vhr] = linalg_svd(M(), false);
  EXPECT_EQ(Ur.sizes(), IntArrayRef({3, 2}));
  expect_close((Ur * Sr.unsqueeze(-2)).matmul(Vhr), M(), 1e-12);
  // wide, rank-deficient, batched, float32
  expect_values(linalg::svdvals(W()), {9.50803200, 0.77286964}, 1e-8);
  auto [Uw, Sw, Vhw] = linalg::svd(W());
  EXPECT_EQ(Vhw.sizes(), IntArrayRef({3, 3}));
  expect_close(Vhw.matmul(mT(Vhw)), eye(3, o()), 1e-12);
  expect_close((Uw * Sw.unsqueeze(-2)).matmul(Vhw.narrow(0, 0, 2)), W(), 1e-12);
  expect_values(linalg_svdvals(R()), {5, 0}, 1e-12);
  auto [Ud, Sd, Vhd] = linalg::svd(R());
  expect_close(mT(Ud).matmul(Ud), eye(2, o()), 1e-12);
  expect_close(Vhd.matmul(mT(Vhd)), eye(2, o()), 1e-12);
  expect_values(linalg::svdvals(Pb()), {3.61803399, 1.38196601, 2.20710678, 0.79289322}, 1e-8);
  Tensor sf = linalg::svdvals(M(kFloat));
  EXPECT_EQ(sf.scalar_type(), kFloat);
  expect_values(sf, s, 1e-5);
  // torch::svd gives V, reduced unless some = false; without compute_uv, zeros
  auto [U1, S1, V1] = svd(M());
  EXPECT_EQ(U1.sizes(), IntArrayRef({3, 2}));
  expect_values(V1.abs(), {0.57975309, 0.81479221, 0.81479221, 0.57975309}, 1e-8);
  expect_close((U1 * S1.unsqueeze(-2)).matmul(mT(V1)), M(), 1e-12);
  EXPECT_EQ(std::get<0>(M().svd(false)).sizes(), IntArrayRef({3, 3}));
  auto [U0, S0, V0] = M().svd(true, false);
  EXPECT_EQ(U0.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(V0.sizes(), IntArrayRef({2, 2}));
  expect_values(U0, V(9, 0.0), 0);
  expect_values(S0, s, 1e-8);

  // gradients: svdvals (PyTorch's numbers, and finite differences), the vectors (sign-normalised)
  Tensor m = M().requires_grad_();
  (linalg::svdvals(m) * tensor({1.0, -2.0}, o())).sum().backward();
  expect_values(m.grad(), {1.65573523, -0.91205306, -0.27210196, 0.79554772, 0.41971468, 0.73729505}, 1e-7);
  for (auto shape : {std::vector<int64_t>{3, 2}, std::vector<int64_t>{2, 3}, std::vector<int64_t>{2, 3, 3}}) {
    Tensor X = sample(shape, 0.2) + 0.8 * eye(shape[shape.size() - 2], shape.back(), TensorOptions().dtype(kDouble));
    gradcheck([](const std::vector<Tensor>& t) { return linalg::svdvals(t[0]); }, {X}, GetParam());
    gradcheck([](const std::vector<Tensor>& t) { return std::get<0>(linalg::svd(t[0], false)); }, {X}, GetParam());
    gradcheck([](const std::vector<Tensor>& t) { return std::get<2>(linalg::svd(t[0], false)); }, {X}, GetParam());
  }

  EXPECT_THROW_MSG(linalg::svd(ones({3}, o())), Error,
                   "[linalg.svd] the input A must have at least 2 dimensions, got shape [3].");
  EXPECT_THROW_MSG(linalg::svdvals(eye(2, o(kLong))), Error,
                   "[linalg.svdvals] expected a float32 or float64 tensor, got int64");
}

TEST_P(LinalgDecomp, SingularValueNorms) {
  expect_values(linalg::matrix_norm(M(), 2), {10.19142826}, 1e-8);
  expect_values(linalg::matrix_norm(M(), -2), {0.36713769}, 1e-8);
  expect_values(linalg::matrix_norm(M(), "nuc"), {10.55856594}, 1e-8);
  Tensor k = linalg_matrix_norm(Pb(), "nuc", {0, 2}, true);
  EXPECT_EQ(k.sizes(), IntArrayRef({1, 2, 1}));
  expect_values(k, {2.5, 3.90512484}, 1e-8);
  expect_values(linalg::norm(W(), 2), {9.50803200}, 1e-8);
  expect_values(nuclear_norm(W()), {10.28090164}, 1e-8);
  expect_values(nuclear_norm(Pb(), {1, 2}), {5.0, 3.0}, 1e-8);
  gradcheck([](const std::vector<Tensor>& t) { return linalg::matrix_norm(t[0], 2); }, {sample({3, 2})}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return linalg::matrix_norm(t[0], "nuc"); }, {sample({2, 3})},
            GetParam());
  EXPECT_THROW_MSG(nuclear_norm(ones({2, 2, 2}, o())), Error,
                   "[nuclear_norm] expected a 2-D tensor, got 3-D; pass dim.");
}

TEST_P(LinalgDecomp, PinvRankCond) {
  expect_values(linalg::pinv(M()), {-2.07142857, 0.78571429, 0.14285714, 1.5, -0.5, 0}, 1e-8);
  expect_values(linalg_pinv(R()), {0.04, 0.08, 0.08, 0.16}, 1e-10);
  expect_values(linalg::pinv(S(), 1e-15, true),
                {0.74559194, 0.27707809, -0.42821159, 0.27707809, 0.44080605, -0.22670025, -0.42821159,
                 -0.22670025, 1.25944584},
                1e-8);
  expect_values(pinverse(W()), {-0.94444444, 0.44444444, -0.11111111, 0.11111111, 0.72222222, -0.22222222}, 1e-8);
  expect_values(W().pinverse(), {-0.94444444, 0.44444444, -0.11111111, 0.11111111, 0.72222222, -0.22222222}, 1e-8);
  expect_values(linalg::pinv(M(), 0.5, std::nullopt),
                {0.01233204, 0.02790014, 0.04801624, 0.01733161, 0.03921121, 0.06748262}, 1e-8);
  gradcheck([](const std::vector<Tensor>& t) { return linalg::pinv(t[0]); }, {sample({3, 2})}, GetParam());

  Tensor r = linalg::matrix_rank(R());
  EXPECT_EQ(r.scalar_type(), kLong);
  EXPECT_EQ(r.dim(), 0);
  expect_values(r, {1}, 0);
  expect_values(linalg_matrix_rank(M()), {2}, 0);
  expect_values(linalg::matrix_rank(M(), 0.5), {1}, 0);
  expect_values(linalg::matrix_rank(Pb(), std::nullopt, std::nullopt, true), {2, 2}, 0);
  expect_values(linalg::matrix_rank(M(), 0.4, 0.0), {1}, 0);
  expect_values(linalg::matrix_rank(M(kFloat)), {2}, 0);

  expect_values(linalg_cond(P()), {2.91047970}, 1e-7);
  expect_values(linalg_cond(M()), {27.75914499}, 1e-7);
  expect_values(linalg_cond(P(), -2), {0.34358597}, 1e-8);
  expect_values(linalg_cond(P(), 1), {3.65919283}, 1e-7);
  expect_values(linalg_cond(P(), std::numeric_limits<double>::infinity()), {3.65919283}, 1e-7);
  expect_values(linalg_cond(P(), "fro"), {4.50036857}, 1e-7);
  expect_values(linalg_cond(P(), "nuc"), {11.20358744}, 1e-7);
  // (sample's 3 x 3 matrices are singular: sin(a + k b) is a linear recurrence; eye makes them regular)
  gradcheck([](const std::vector<Tensor>& t) { return linalg_cond(t[0]); },
            {sample({3, 3}) + eye(3, TensorOptions().dtype(kDouble))}, GetParam());

  // singular matrices: inf (PyTorch gives 4.8e16 for 'nuc' there, from rounding)
  Tensor sb = tensor({{{1.0, 2.0}, {2.0, 4.0}}, {{2.0, 1.0}, {1.0, 3.0}}}, o());
  const double inf = std::numeric_limits<double>::infinity();
  Tensor c1 = linalg_cond(sb, 1);
  EXPECT_EQ(values(c1)[0], inf);
  EXPECT_NEAR(values(c1)[1], 3.2, 1e-12);
  Tensor cf = linalg_cond(sb, "fro");
  EXPECT_EQ(values(cf)[0], inf);
  EXPECT_NEAR(values(cf)[1], 3.0, 1e-12);
  Tensor cn = linalg_cond(sb, -inf);
  EXPECT_EQ(values(cn)[0], inf);
  EXPECT_NEAR(values(cn)[1], 1.8, 1e-12);
  EXPECT_THROW_MSG(linalg_cond(P(), 3), Error, "[linalg.cond] p must be one of 2, -2, 1, -1, inf, -inf, 'fro' or");
  EXPECT_THROW_MSG(linalg_cond(P(), "max"), Error, "[linalg.cond] p must be 'fro' or 'nuc' as a string, got 'max'.");
  EXPECT_THROW_MSG(linalg_cond(M(), "fro"), Error, "[linalg.cond] A must be batches of square matrices");
  EXPECT_THROW_MSG(linalg::pinv(M(), 1e-15, true), Error,
                   "[linalg.pinv] hermitian=true needs square matrices, got 3 by 2.");
  EXPECT_THROW_MSG(linalg::matrix_rank(eye(2, o(kLong))), Error,
                   "[linalg.matrix_rank] expected a float32 or float64 tensor, got int64");
}

TEST_P(LinalgDecomp, Lstsq) {
  auto [x, res, rank, sv] = linalg::lstsq(M(), B());
  EXPECT_EQ(x.sizes(), IntArrayRef({2, 1}));
  expect_values(x, {0.07142857, 0.5}, 1e-8);
  EXPECT_EQ(res.numel(), 0);
  EXPECT_EQ(rank.scalar_type(), kLong);
  expect_values(rank, {2}, 0);
  EXPECT_EQ(sv.numel(), 0);
  auto [x2, res2, rank2, sv2] = linalg_lstsq(M(), B(), std::nullopt, "gelsd");
  expect_values(x2, {0.07142857, 0.5}, 1e-8);
  expect_values(res2, {0.07142857}, 1e-8);
  expect_values(rank2, {2}, 0);
  expect_values(sv2, {10.19142826, 0.36713769}, 1e-8);
  auto [x3, res3, rank3, sv3] = linalg::lstsq(M(), B(), std::nullopt, "gels");
  expect_values(res3, {0.07142857}, 1e-8);
  EXPECT_EQ(rank3.numel(), 0);
  auto [x4, res4, rank4, sv4] = linalg::lstsq(W(), B().narrow(0, 0, 2));
  expect_values(x4, {-0.05555556, 0.11111111, 0.27777778}, 1e-8);
  gradcheck([](const std::vector<Tensor>& t) { return std::get<0>(linalg::lstsq(t[0], t[1])); },
            {sample({3, 2}), sample({3, 2}, 1.0)}, GetParam());
  EXPECT_THROW_MSG(linalg::lstsq(M(), B(), std::nullopt, "svd"), Error,
                   "[linalg.lstsq] driver must be one of 'gels', 'gelsy', 'gelsd' or 'gelss', got 'svd'.");
  EXPECT_THROW_MSG(linalg::lstsq(M(), ones({2, 1}, o())), Error,
                   "[linalg.lstsq] incompatible shapes of A and B: A [3, 2] and B [2, 1] (B needs 3 rows).");
  if (other_device() != GetParam())
    EXPECT_THROW(linalg::lstsq(M(), ones({3, 1}, TensorOptions().device(other_device()).dtype(kDouble))),
                 DeviceMismatchError);
}

TEST_P(LinalgDecomp, Qr) {
  const V q{-0.169030851, 0.948683298, -0.507092553, -0.316227766, -0.845154255, 0};
  const V r{-5.91607978, -8.28251170, 0, 0.63245553};
  auto [Q, Rr] = linalg::qr(M());
  EXPECT_EQ(Q.device(), GetParam());
  expect_values(Q, q, 1e-8);
  expect_values(Rr, r, 1e-8);
  auto [Qc, Rc] = linalg_qr(M(), "complete");
  EXPECT_EQ(Qc.sizes(), IntArrayRef({3, 3}));
  expect_values(Qc,
                {-0.169030851, 0.948683298, -0.267261242, -0.507092553, -0.316227766, -0.801783726, -0.845154255, 0,
                 0.534522484},
                1e-8);
  expect_values(Rc, {-5.91607978, -8.28251170, 0, 0.63245553, 0, 0}, 1e-8);
  auto [Qr_, Rr_] = linalg::qr(M(), "r");
  EXPECT_EQ(Qr_.numel(), 0);
  expect_values(Rr_, r, 1e-8);
  auto [Qw, Rw] = qr(W());
  expect_values(Qw, {-0.24253563, -0.97014250, -0.97014250, 0.24253563}, 1e-8);
  expect_values(Rw, {-4.12310563, -5.33578375, -6.54846188, 0, -0.72760688, -1.45521375}, 1e-8);
  auto [Qs, Rs] = M().qr(false);
  EXPECT_EQ(Qs.sizes(), IntArrayRef({3, 3}));
  auto [Qf, Rf] = linalg::qr(M(kFloat));
  EXPECT_EQ(Qf.scalar_type(), kFloat);
  expect_values(Rf, r, 1e-5);

  Tensor m = M().requires_grad_();
  (std::get<1>(linalg::qr(m)) * arange(4, o()).reshape({2, 2})).sum().backward();
  expect_values(m.grad(), {-4.08588836, 2.67701904, 1.36196279, -1.45577585, 0, -0.845154255}, 1e-7);
  for (auto shape : {std::vector<int64_t>{3, 2}, std::vector<int64_t>{2, 3}, std::vector<int64_t>{3, 3}}) {
    Tensor X = sample(shape, 0.3) + 0.8 * eye(shape[0], shape[1], TensorOptions().dtype(kDouble));
    gradcheck([](const std::vector<Tensor>& t) { return std::get<0>(linalg::qr(t[0])); }, {X}, GetParam());
    gradcheck([](const std::vector<Tensor>& t) { return std::get<1>(linalg::qr(t[0])); }, {X}, GetParam());
  }
  // geqrf's compact form and householder_product / orgqr (PyTorch's numbers)
  auto [a, tau] = geqrf(M());
  expect_values(a, {-5.91607978, -8.28251170, 0.43377175, 0.63245553, 0.72295291, 0.39696565}, 1e-7);
  expect_values(tau, {1.16903085, 1.72773978}, 1e-7);
  expect_values(linalg::householder_product(a, tau), q, 1e-8);
  expect_values(orgqr(a, tau.narrow(0, 0, 1)),
                {-0.16903085, -0.50709255, -0.50709255, 0.78003758, -0.84515425, -0.36660404}, 1e-7);
  gradcheck([](const std::vector<Tensor>& t) { return linalg_householder_product(t[0], t[1]); },
            {sample({2, 4, 3}), sample({2, 2}, 0.5)}, GetParam());
  EXPECT_THROW_MSG(linalg::householder_product(W(), tensor({1.0}, o())), Error,
                   "[linalg.householder_product] input.shape[-2] must be greater than or equal to input.shape[-1]");
  EXPECT_THROW_MSG(linalg::householder_product(M(), ones({3}, o())), Error,
                   "[linalg.householder_product] tau must have one dim less than input and tau.shape[-1] <= "
                   "input.shape[-1], got tau [3] and input [3, 2].");
  if (other_device() != GetParam())
    EXPECT_THROW(linalg::householder_product(M(), ones({2}, TensorOptions().device(other_device()).dtype(kDouble))),
                 DeviceMismatchError);

  EXPECT_THROW_MSG(linalg::qr(M(), "full"), Error,
                   "[linalg.qr] mode must be 'reduced', 'complete' or 'r', got 'full'.");
  Tensor mr = M().requires_grad_();
  EXPECT_THROW_MSG(std::get<1>(linalg::qr(mr, "r")).sum().backward(), Error,
                   "[linalg.qr] the derivative of linalg.qr depends on Q, which is not computed when mode='r'");
}

TEST_P(LinalgDecomp, MatrixExpAndSmallerOnes) {
  expect_values(linalg::matrix_exp(tensor({{0.0, 0.5}, {-0.5, 0.0}}, o())),
                {0.87758256, 0.47942554, -0.47942554, 0.87758256}, 1e-8);
  expect_values(matrix_exp(tensor({{2.0, 4.0}, {6.0, 8.0}}, o())),
                {11079.10353330, 16146.29362577, 24219.44043865, 35298.54397195}, 1e-6);
  expect_values(Pb().matrix_exp(),
                {13.18150710, 14.88394368, 14.88394368, 28.06545077, 3.21727469, 2.43230597, 2.43230597, 8.08188663},
                1e-7);
  expect_values(linalg_matrix_exp(tensor({{0.0, 0.5}, {-0.5, 0.0}}, o(kFloat))),
                {0.87758256, 0.47942554, -0.47942554, 0.87758256}, 1e-6);
  gradcheck([](const std::vector<Tensor>& t) { return linalg::matrix_exp(t[0]); }, {sample({3, 3})}, GetParam());
  gradcheck([](const std::vector<Tensor>& t) { return linalg::matrix_exp(t[0] * 4); }, {sample({2, 2})},
            GetParam(), 1e-6, 1e-4);

  expect_values(linalg::matrix_power(Pb(), 3), {15, 20, 20, 35, 2, 3.625, 3.625, 9.25}, 1e-12);
  expect_values(linalg_matrix_power(Pb(), 3), {15, 20, 20, 35, 2, 3.625, 3.625, 9.25}, 1e-12);
  Tensor c = linalg_cross(tensor({{1.0, 2.0, 3.0}}, o(kFloat)), tensor({{4.0, 5.0, 6.0}, {-1.0, 0.0, 2.0}}, o(kFloat)));
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 3}));
  expect_values(c, {-3, 6, -3, 4, -5, 2}, 0);
  expect_values(linalg_vecdot(M(), tensor({1.0, -1.0}, o())), {-1, -1, -2}, 0);
  Tensor vd = linalg_vander(tensor({1, 2, 3}, o(kLong)));
  EXPECT_EQ(vd.scalar_type(), kLong);
  expect_values(vd, {1, 1, 1, 1, 2, 4, 1, 3, 9}, 0);
  expect_values(linalg_vander(tensor({0.5, -2.0}, o(kFloat)), 4), {1, 0.5, 0.25, 0.125, 1, -2, 4, -8}, 0);
  Tensor T = tensor({{2.0, 1.0, 0.0, 0.0}, {1.0, 3.0, 0.0, 1.0}, {0.0, 0.0, 1.0, 0.0}, {0.0, 2.0, 0.0, 4.0}}, o());
  Tensor ti = linalg::tensorinv(T.reshape({4, 2, 2}), 1);
  EXPECT_EQ(ti.sizes(), IntArrayRef({2, 2, 4}));
  expect_values(ti, {0.625, -0.25, 0, 0.0625, -0.25, 0.5, 0, -0.125, 0, 0, 1, 0, 0.125, -0.25, 0, 0.3125}, 1e-12);
  Tensor ts = linalg_tensorsolve(T.reshape({2, 2, 2, 2}), tensor({{1.0, 2.0}, {3.0, 4.0}}, o()));
  EXPECT_EQ(ts.sizes(), IntArrayRef({2, 2}));
  expect_values(ts, {0.375, 0.25, 3, 0.875}, 1e-12);

  EXPECT_THROW_MSG(linalg::matrix_exp(M()), Error,
                   "[linalg.matrix_exp] A must be batches of square matrices, but they are 3 by 2 matrices.");
  EXPECT_THROW_MSG(linalg_cross(ones({2, 4}, o()), ones({2, 4}, o())), Error,
                   "[linalg.cross] dimension -1 does not have size 3 (sizes [2, 4] and [2, 4]).");
  EXPECT_THROW_MSG(linalg_vander(tensor({1.0}, o()), 1), Error, "[linalg.vander] N must be greater than 1, got 1.");
  EXPECT_THROW_MSG(linalg::tensorinv(ones({2, 3}, o()), 1), Error,
                   "[linalg.tensorinv] expected prod(shape[:ind]) == prod(shape[ind:]), but got 2 != 3.");
  if (other_device() != GetParam())
    EXPECT_THROW(linalg_cross(ones({3}, o()), ones({3}, TensorOptions().device(other_device()).dtype(kDouble))),
                 DeviceMismatchError);
}

LOCUS_INSTANTIATE_DEVICES(LinalgDecomp);

}  // namespace

}  // namespace linalg_decomp_test
