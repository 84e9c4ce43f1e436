// Stop 53 probe: linalg solvers, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
int main() {
  auto a = torch::tensor({{4.0, 1.0, 0.5}, {1.0, 3.0, 0.2}, {0.5, 0.2, 2.0}});
  auto b = torch::tensor({{1.0}, {2.0}, {3.0}});
  std::cout << torch::inverse(a) << torch::det(a) << torch::logdet(a) << "\n";
  std::cout << torch::linalg::norm(a, 2, c10::nullopt, false, c10::nullopt) << "\n";
  std::cout << torch::linalg::det(a) << torch::linalg::inv(a).sum() << "\n";
  std::cout << torch::linalg::solve(a, b, true) << "\n";
  std::cout << torch::linalg::cholesky(a) << "\n";
  auto qr = torch::linalg::qr(a);
  std::cout << std::get<1>(qr).abs() << "\n";
  auto [e, v] = torch::linalg::eigh(a, "L");
  std::cout << e << "\n";
  auto svd = torch::linalg::svd(a, false, c10::nullopt);
  std::cout << std::get<1>(svd) << "\n";
  std::cout << torch::linalg::matrix_norm(a, "fro", {-2, -1}, false, c10::nullopt) << torch::linalg::vector_norm(a, 3, c10::nullopt, false, c10::nullopt) << "\n";
  std::cout << torch::matrix_power(a, 2) << torch::trace(a) << torch::diag(a) << "\n";
  std::cout << torch::outer(torch::ones(2), torch::arange(3.)) << torch::dot(torch::ones(3), torch::arange(3.)) << "\n";
  std::cout << torch::einsum("ij,jk->ik", {a, b}) << "\n";
  std::cout << torch::kron(torch::eye(2), torch::ones({1, 2})) << "\n";
  std::cout << torch::linalg::pinv(a).sum() << torch::linalg::matrix_rank(a, 1e-7, false) << "\n";
  std::cout << torch::linalg::solve_triangular(a, b, true, true, false) << torch::linalg::solve_triangular(a, b.t(), false, false, true) << "\n";
}
