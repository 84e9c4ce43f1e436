#pragma once
// torch::linalg: inverse, determinants, solve and norms of (batches of) matrices, as libtorch's
// torch/linalg.h, plus the top-level spellings torch::linalg_inv, torch::linalg_det, ...
//
// inv, det, slogdet and solve factor each matrix by LU with partial pivoting, in float64 on a host
// copy (a device tensor is copied to the host and the result back to its device), and are
// differentiable: d inv = -inv^T g inv^T, d det = g det inv^T, d logabsdet = g inv^T, and solve's
// gA = -solve(A^T, g) X^T, gB = solve(A^T, g). float32 and float64 only. A singular matrix makes
// inv and solve throw (naming the batch element); det gives 0 and slogdet (0, -inf), and det's
// gradient there is the cofactor matrix (from the minors, for n <= 32; PyTorch 1.13 gives zeros;
// it is not differentiable twice). The norms are
// made of differentiable reductions and run on the tensor's device; matrix norms of ord 2, -2 and
// "nuc" take the singular values (svdvals).
//
// The decompositions (linalg batch, stop 47) work the same way, in float64 on a host copy:
// cholesky (reads one triangle; a matrix that is not positive-definite throws, naming the batch
// element), eigh / eigvalsh (cyclic Jacobi; eigenvalues ascending), svd / svdvals (one-sided
// Jacobi; singular values descending) and qr (Householder, R's diagonal signs as LAPACK's geqrf).
// The signs of eigenvectors and singular vectors are not specified by PyTorch (they are LAPACK's);
// locus makes the largest-magnitude entry of each eigenvector and of each left singular vector
// positive. Their gradients are PyTorch 1.13's formulas, made of differentiable ops (differentiable
// once: the saved outputs lose their grad_fn). pinv, matrix_rank, cond, lstsq (the minimum-norm
// solution, as the rank-revealing drivers), matrix_exp (degree-13 Pade with scaling and squaring),
// cholesky_solve / cholesky_inverse, tensorsolve / tensorinv, cross, vecdot and vander are
// compositions of differentiable ops. eig / eigvals (complex results) are not provided.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "locus/tensor.h"

namespace locus {
namespace linalg {

/// The inverse of each square matrix [..., n, n].
Tensor inv(const Tensor& A);
/// The determinant of each square matrix: [..., n, n] -> [...].
Tensor det(const Tensor& A);
/// (sign, log|det|) of each square matrix; sign 0 and -inf for a singular one.
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
/// X with A X = B: A [..., n, n], B [..., n, k] or, when B is 1-D or A's shape without the last
/// dim, the vector case [..., n]; batch dims broadcast. left = false solves X A = B (B [..., k, n]).
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
/// The ord-norm of the vectors along `dim` (all elements when absent): ord inf, -inf, 0 (the
/// count of non-zeros) or any other p ((sum |x|^p)^(1/p)). Floating-point input.
Tensor vector_norm(const Tensor& self, const Scalar& ord = 2, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
/// The norm of the matrices over the two dims `dim`: "fro", 1, -1 (max / min column sum of |a|),
/// inf, -inf (max / min row sum).
Tensor matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& self, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
/// vector_norm for one dim (or a 1-D input), matrix_norm for two dims (or a 2-D input when ord is
/// given); without ord and dim, the 2-norm of all elements.
Tensor norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
            std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);

// ---- ops batch (stop 46) ----
/// The chained matrix product of 2-D tensors (the first and last may be 1-D), in the cheapest order.
Tensor multi_dot(const std::vector<Tensor>& tensors);
// ---- end ops batch (stop 46) ----

// ---- linalg batch (stop 47) ----
/// The Cholesky factor of each symmetric positive-definite matrix [..., n, n]: L (lower, A = L L^T;
/// only A's lower triangle is read) or, when upper, U = L^T (only the upper triangle is read).
Tensor cholesky(const Tensor& A, bool upper = false);
/// (eigenvalues ascending [..., n], eigenvectors as columns [..., n, n]) of each symmetric matrix,
/// read from its lower ("L") or upper ("U") triangle.
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view uplo = "L");
Tensor eigvalsh(const Tensor& A, std::string_view uplo = "L");
/// (U, S, Vh) with A = U diag(S) Vh, S descending; full_matrices: U [m, m] and Vh [n, n], else
/// the reduced [m, k] and [k, n] (k = min(m, n)). The driver (a cuSOLVER option) is ignored.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true,
                                       std::optional<std::string_view> driver = std::nullopt);
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);
/// The pseudo-inverse: singular values (|eigenvalues| when hermitian) at or below
/// max(atol, rtol * the largest) are dropped; rcond is rtol.
Tensor pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian = false);
/// The number of singular values above max(atol, rtol * the largest) (rtol defaults to
/// eps * max(m, n) when atol is absent or zero, else 0); tol is atol with rtol 0. kLong.
Tensor matrix_rank(const Tensor& A, double tol, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// (solution [..., n, k], residuals, rank, singular_values) of min ||A X - B||, A [..., m, n];
/// driver "gelsy" (default), "gels", "gelsd" or "gelss", as PyTorch on the CPU.
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond = std::nullopt,
                                                 std::optional<std::string_view> driver = std::nullopt);
/// (Q, R) with A = Q R by Householder reflections (R's diagonal signs as LAPACK's geqrf);
/// mode "reduced" (Q [m, k]), "complete" (Q [m, m]) or "r" (Q empty).
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
/// The matrix exponential (scaling and squaring with a Pade approximant).
Tensor matrix_exp(const Tensor& A);
/// torch::matrix_power.
Tensor matrix_power(const Tensor& A, int64_t n);
/// The first n columns of the product of the Householder reflectors I - tau_i v_i v_i^T, v_i the
/// columns of input [..., m, n] below the diagonal with a unit first entry (geqrf's form).
Tensor householder_product(const Tensor& input, const Tensor& tau);
/// The tensor X with tensordot(A, X, X.dim()) = B.
Tensor tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims = std::nullopt);
/// The tensor inverse of A over its first ind dims.
Tensor tensorinv(const Tensor& A, int64_t ind = 2);
// ---- end linalg batch (stop 47) ----
/// X with A X = B (left) or X A = B, A [..., n, n] read as upper or lower triangular (the other
/// triangle ignored), with ones on its diagonal when unitriangular; batch dims broadcast.
/// Differentiable through solve; a zero on the diagonal throws as solve does (PyTorch gives inf).
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);
// ---- the LU family (stop 55, src/ops/linalg_lu_factor.cpp) ----
/// A = P L U with partial pivoting, packed as LAPACK's getrf packs it: LU [..., m, n] holds L's
/// strict lower part (its diagonal is 1) and U; pivots [..., min(m, n)] are int32 and 1-based (row
/// j was swapped with row pivots[j] at step j). Throws for a singular matrix (a zero U[k, k]);
/// lu_factor_ex returns info instead (0, or the first zero pivot's 1-based index; it throws only
/// with check_errors). Computed on the host in float64, for float32 and float64 inputs of any
/// shape (square, wide, tall); differentiable. pivot=false is refused, as on PyTorch's cpu.
std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
/// P [..., m, m], L [..., m, k] (unit lower), U [..., k, n] with A = P L U; differentiable in L and U.
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true);
/// X with A X = B (left) or X A = B, or with A^T for adjoint, from lu_factor's LU and pivots;
/// differentiable in LU and B.
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);
/// solve and inv that report a singular matrix in info (int32, per matrix: 0, or the first zero
/// pivot's 1-based index) instead of throwing, unless check_errors; the result is then what the
/// factorization gives (infinities or NaNs), as LAPACK's.
std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false);
}  // namespace linalg
/// torch::lu_unpack: P, L and U from lu_factor's LU and pivots (empty tensors for the parts not
/// asked for); L and U differentiable in LU.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
/// torch::lu_solve(b, LU_data, LU_pivots): linalg::lu_solve(LU_data, LU_pivots, b).
Tensor lu_solve(const Tensor& b, const Tensor& LU_data, const Tensor& LU_pivots);
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);

/// torch::triangular_solve(b, A, upper, transpose, unitriangular): (X with op(A) X = b, A's
/// clone), op(A) = A^T when transpose; as linalg::solve_triangular.
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper = true, bool transpose = false,
                                            bool unitriangular = false);
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);

Tensor linalg_inv(const Tensor& A);
Tensor linalg_det(const Tensor& A);
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord = 2, std::optional<IntArrayRef> dim = std::nullopt,
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
                   std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);

// ---- linalg batch (stop 47) ----
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
Tensor cholesky(const Tensor& A, bool upper = false);
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo = "L");
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true,
                                              std::optional<std::string_view> driver = std::nullopt);
Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);
/// torch::svd: (U, S, V), V not transposed; some: reduced; without compute_uv, U and V are zeros.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some = true, bool compute_uv = true);
Tensor linalg_pinv(const Tensor& A, double rcond = 1e-15, bool hermitian = false);
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian = false);
Tensor pinverse(const Tensor& A, double rcond = 1e-15);
Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian = false);
Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                          std::optional<double> rtol = std::nullopt, bool hermitian = false);
/// The condition number: p absent or 2 (-2) the ratio of the largest (smallest) singular value
/// to the smallest (largest); otherwise norm(A, p) * norm(inv(A), p).
Tensor linalg_cond(const Tensor& A, const std::optional<Scalar>& p = std::nullopt);
Tensor linalg_cond(const Tensor& A, std::string_view p);
Tensor linalg_cond(const Tensor& A, const char* p);
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B,
                                                        std::optional<double> rcond = std::nullopt,
                                                        std::optional<std::string_view> driver = std::nullopt);
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
/// torch::qr: some = true is mode "reduced", false "complete".
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some = true);
Tensor linalg_matrix_exp(const Tensor& A);
Tensor matrix_exp(const Tensor& A);
Tensor linalg_matrix_power(const Tensor& A, int64_t n);
/// The 3-vector cross product along dim (which must have size 3; inputs broadcast).
Tensor linalg_cross(const Tensor& input, const Tensor& other, int64_t dim = -1);
/// The sum of the products along dim (x and y broadcast).
Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
/// The Vandermonde matrix [..., n, N] of powers x^0, x^1, ... (increasing).
Tensor linalg_vander(const Tensor& x, std::optional<int64_t> N = std::nullopt);
Tensor linalg_tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims = std::nullopt);
Tensor linalg_tensorinv(const Tensor& A, int64_t ind = 2);
Tensor linalg_householder_product(const Tensor& input, const Tensor& tau);
/// torch::orgqr: linalg::householder_product.
Tensor orgqr(const Tensor& self, const Tensor& input2);
/// (a, tau): LAPACK's geqrf form of the QR decomposition (R on and above the diagonal, the
/// Householder vectors below it). Not differentiable.
std::tuple<Tensor, Tensor> geqrf(const Tensor& A);
/// The nuclear norm (the sum of the singular values) of a 2-D tensor, or over the two dims.
Tensor nuclear_norm(const Tensor& self, bool keepdim = false);
Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim = false);
// ---- end linalg batch (stop 47) ----

}  // namespace locus
