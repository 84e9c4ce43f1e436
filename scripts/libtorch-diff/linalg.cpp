// scripts/libtorch-diff: torch::linalg's decompositions and what is built on them (cholesky, eigh, svd,
// qr, pinv, matrix_rank, cond, lstsq, the spectral/nuclear norms, matrix_exp, cross, vander,
// tensorinv/solve), their top-level spellings and gradients, on fixed inputs (the deprecated
// torch::cholesky and torch::qr, whose libtorch warnings would differ, are left to
// tests/ops/linalg_decomp_test.cpp). Eigen- and singular vectors, whose signs libtorch does not fix,
// are printed in absolute value or through reconstructions. Built twice by scripts/libtorch-diff/run
// (HDR=<torch/torch.h> against libtorch, HDR=<locus/torch.h> against locus).
#include HDR
#include <iostream>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
int main() {
  auto o = torch::TensorOptions().dtype(torch::kDouble);
  auto x = torch::arange(9, o).reshape({3, 3}).sin();
  auto A = x.matmul(x.t()) + torch::eye(3, o);  // symmetric positive-definite
  auto M = (torch::arange(6, o).reshape({3, 2}) * 0.7 + 0.3).cos() * 2;
  auto Wd = M.t().contiguous();
  auto Ab = torch::stack({A, A * 2 + torch::eye(3, o)});
  auto Af = A.to(torch::kFloat);
  // Cholesky
  auto L = torch::linalg::cholesky(A);
  P(L); P(torch::linalg::cholesky(Ab)); P(torch::linalg_cholesky(A, true));
  P(torch::cholesky_solve(M, L)); P(M.cholesky_solve(L)); P(torch::cholesky_inverse(L)); P(L.t().cholesky_inverse(true));
  // eigh
  auto eh = torch::linalg::eigh(A, "L");
  P(std::get<0>(eh)); P(std::get<1>(eh).abs()); P(torch::linalg::eigvalsh(Ab, "U")); P(torch::linalg_eigvalsh(x));
  P(torch::linalg_eigvalsh(x, "U")); P(std::get<1>(eh).matmul(std::get<0>(eh).diag_embed()).matmul(std::get<1>(eh).t()));
  // svd
  auto sv = torch::linalg::svd(M, false, {});
  P(std::get<0>(sv).abs()); P(std::get<1>(sv)); P(std::get<2>(sv).abs()); P(torch::linalg::svdvals(Wd, {}));
  P(torch::linalg::svdvals(Ab, {})); P(torch::linalg_svdvals(M)); P(std::get<0>(torch::linalg_svd(M)).sizes());
  auto sv2 = torch::svd(M);
  P(std::get<0>(sv2).sizes()); P(std::get<2>(sv2).abs()); P(std::get<1>(M.svd(false, false)));
  P(std::get<0>(M.svd(true, false))); P(std::get<0>(torch::svd(Wd, false)).sizes());
  // norms, pinv, rank, cond, lstsq
  P(torch::linalg::matrix_norm(M, 2, {-2, -1}, false, c10::nullopt));
  P(torch::linalg::matrix_norm(M, -2, {-2, -1}, false, c10::nullopt));
  P(torch::linalg::matrix_norm(M, "nuc", {-2, -1}, false, c10::nullopt)); P(torch::linalg_matrix_norm(Ab, "nuc"));
  P(torch::linalg_norm(M, 2)); P(torch::linalg_norm(Ab, "nuc", torch::IntArrayRef{0, 2})); P(torch::nuclear_norm(M));
  P(torch::nuclear_norm(Ab, {1, 2}, true));
  P(torch::linalg::pinv(M)); P(torch::linalg::pinv(A, 1e-15, true)); P(torch::pinverse(Wd)); P(M.pinverse());
  P(torch::linalg_pinv(M, 0.5, c10::nullopt, false));
  auto Rk = torch::outer(torch::arange(1, 4, o), torch::arange(1, 4, o));
  P(torch::linalg::matrix_rank(Rk, 1e-10, false)); P(torch::linalg::matrix_rank(M, 0.5, c10::nullopt, false));
  P(torch::linalg_matrix_rank(Ab)); P(torch::linalg_matrix_rank(Ab, 0.0, c10::nullopt, true));
  P(torch::linalg_cond(A)); P(torch::linalg_cond(A, -2)); P(torch::linalg_cond(A, 1)); P(torch::linalg_cond(A, "fro"));
  P(torch::linalg_cond(A, "nuc")); P(torch::linalg_cond(M));
  auto b = torch::arange(3, o).reshape({3, 1}) - 0.5;
  auto ls = torch::linalg::lstsq(M, b, {}, {});
  P(std::get<0>(ls)); P(std::get<1>(ls)); P(std::get<2>(ls)); P(std::get<3>(ls));
  auto ls2 = torch::linalg_lstsq(M, b, c10::nullopt, "gelsd");
  P(std::get<0>(ls2)); P(std::get<1>(ls2)); P(std::get<2>(ls2)); P(std::get<3>(ls2));
  // qr
  auto q = torch::linalg::qr(M, "reduced");
  P(std::get<0>(q)); P(std::get<1>(q)); P(std::get<1>(torch::linalg::qr(Wd, "reduced")));
  auto gq = torch::geqrf(M);
  P(std::get<0>(gq)); P(std::get<1>(gq)); P(torch::linalg::householder_product(std::get<0>(gq), std::get<1>(gq)));
  P(torch::linalg_householder_product(std::get<0>(gq), std::get<1>(gq).narrow(0, 0, 1)));
  P(torch::linalg_cond(torch::stack({A, torch::ones({3, 3}, o)}), 1));
  P(std::get<0>(torch::linalg_qr(M, "complete")).sizes()); P(std::get<1>(torch::linalg_qr(M, "r")));
  // matrix_exp and the smaller ones
  P(torch::linalg::matrix_exp(x)); P(torch::matrix_exp(x * 3)); P(Ab.matrix_exp()); P(torch::linalg_matrix_exp(Af));
  P(torch::linalg::matrix_power(A, 3)); P(torch::linalg_cross(x, (x * 2 + 1).cos()));
  P(torch::linalg_cross(torch::ones({1, 3}), torch::arange(6).reshape({2, 3}).to(torch::kFloat)));
  P(torch::linalg_vander(torch::arange(1, 4))); P(torch::linalg_vander(torch::arange(3, o) - 0.5, 5));
  P(torch::linalg_vecdot(M, M.flip({0})));
  auto T4 = torch::tensor({2., 1., 0., 0., 1., 3., 0., 1., 0., 0., 1., 0., 0., 2., 0., 4.}, o).reshape({4, 2, 2});
  P(torch::linalg::tensorinv(T4, 1)); P(torch::linalg::tensorsolve(T4.reshape({2, 2, 2, 2}), torch::ones({2, 2}, o), {}));
  // gradients
  auto a = A.clone().requires_grad_();
  (torch::linalg::cholesky(a) * torch::arange(9, o).reshape({3, 3})).sum().backward(); P(a.grad());
  a.grad().zero_(); (torch::linalg::eigvalsh(a, "L") * torch::arange(3, o)).sum().backward(); P(a.grad());
  a.grad().zero_(); torch::linalg_cond(a).backward(); P(a.grad());
  a.grad().zero_(); torch::linalg::matrix_exp(a * 0.1).sum().backward(); P(a.grad());
  auto m = M.clone().requires_grad_();
  (torch::linalg::svdvals(m, {}) * torch::arange(1, 3, o)).sum().backward(); P(m.grad());
  m.grad().zero_(); torch::linalg::pinv(m).sum().backward(); P(m.grad());
  m.grad().zero_(); (std::get<1>(torch::linalg::qr(m, "reduced")) * torch::arange(4, o).reshape({2, 2})).sum().backward();
  P(m.grad());
  m.grad().zero_(); torch::linalg::matrix_norm(m, "nuc", {-2, -1}, false, c10::nullopt).backward(); P(m.grad());
  m.grad().zero_(); std::get<0>(torch::linalg::lstsq(m, b, {}, {})).sum().backward(); P(m.grad());
  // errors (libtorch's and locus's messages differ; that one is thrown is compared)
  auto throws = [](auto f) { try { f(); return false; } catch (const std::exception&) { return true; } };
  P(throws([&] { torch::linalg::cholesky(-A); })); P(throws([&] { torch::linalg::eigh(M, "L"); }));
  P(throws([&] { torch::linalg::qr(M, "full"); })); P(throws([&] { torch::linalg::svd(torch::ones({3}), true, {}); }));
}
