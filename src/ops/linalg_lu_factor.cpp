// torch::linalg's LU family: lu_factor / lu_factor_ex (LAPACK's packed LU and 1-based pivots), lu
// (P, L, U), lu_solve, torch::lu_unpack and torch::lu_solve, and solve_ex / inv_ex (the result
// and an info code instead of an error for a singular matrix).
//
// The factorization is a host loop, as linalg_lu.cpp's: each matrix is copied to the host as
// float64, factored with partial pivoting (getrf's pivot choice: the first largest magnitude in the
// column), and copied back in the input's dtype. lu_factor and lu are differentiable (custom
// functions; the backward of A = P L U for square, wide and tall A, derived below); lu_unpack and
// lu_solve are composed of differentiable ops (triangular solves, matmul), so they run on the
// tensors' device and differentiate in LU and B.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "locus/custom_function.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/linalg.h"
#include "ops/checks.h"

namespace locus {
namespace {

std::string tag(const char* op) { return "[" + std::string(op) + "] "; }

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

void check_square(const char* op, const Tensor& A) {
  if (A.size(-1) != A.size(-2))
    throw Error(tag(op) + "A must be batches of square matrices, but they are " + std::to_string(A.size(-2)) +
                " by " + std::to_string(A.size(-1)) + " matrices.");
}

void check_matrices(const char* op, const Tensor& A) {
  if (!A.defined()) throw Error(tag(op) + "the input A is an undefined tensor.");
  if (A.dim() < 2)
    throw Error(tag(op) + "expected a tensor with 2 or more dimensions (batches of matrices), got shape " +
                ops::shape_str(A.sizes()) + ".");
  if (A.scalar_type() != kFloat && A.scalar_type() != kDouble)
    throw Error(tag(op) + "expected a float32 or float64 tensor, got " + std::string(dtype_name(A.scalar_type())) +
                "; convert it with .to(kFloat).");
}

// getrf on the row-major m x n matrix a, in place: a becomes L (unit, strictly below the
// diagonal) and U; piv[j] (1-based) is the row swapped with row j at step j. Returns LAPACK's
// info: 0, or the (1-based) index of the first exactly zero pivot (the factorization goes on).
int32_t getrf(double* a, int64_t m, int64_t n, int32_t* piv) {
  const int64_t k = std::min(m, n);
  int32_t info = 0;
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    double best = std::abs(a[j * n + j]);
    for (int64_t i = j + 1; i < m; ++i)
      if (std::abs(a[i * n + j]) > best) best = std::abs(a[i * n + j]), p = i;
    piv[j] = static_cast<int32_t>(p + 1);
    if (best == 0) {  // the column is zero from the diagonal down: nothing to eliminate
      if (info == 0) info = static_cast<int32_t>(j + 1);
      continue;
    }
    if (p != j)
      for (int64_t c = 0; c < n; ++c) std::swap(a[j * n + c], a[p * n + c]);
    const double d = a[j * n + j];
    for (int64_t i = j + 1; i < m; ++i) {
      const double f = a[i * n + j] /= d;
      if (f != 0)
        for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= f * a[j * n + c];
    }
  }
  return info;
}

struct Factored {
  Tensor LU, pivots, info;  // on A's device: A's dtype, int32 [..., min(m, n)], int32 [...]
};

Factored factor_host(const Tensor& A) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  DimVector batch(A.sizes());
  batch.resize(batch.size() - 2);
  DimVector piv_shape = batch;
  piv_shape.push_back(k);
  Tensor a = A.detach().cpu().to(kDouble).contiguous().clone();
  Tensor piv = empty(piv_shape, kInt), info = empty(batch, kInt);
  double* pa = a.data_ptr<double>();
  int32_t* pp = piv.data_ptr<int32_t>();
  int32_t* pi = info.data_ptr<int32_t>();
  for (int64_t b = 0; b < info.numel(); ++b) pi[b] = m * n == 0 ? 0 : getrf(pa + b * m * n, m, n, pp + b * k);
  return {a.to(A.device(), A.scalar_type()), piv.to(A.device()), info.to(A.device())};
}

// P (as a matrix of `like`'s dtype, on its device) from getrf's pivots [..., k] for m rows:
// A = P L U, so row i of P^T A is row perm[i] of A, and P[perm[i]][i] = 1.
Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, const Tensor& like) {
  const int64_t k = pivots.size(-1);
  Tensor piv = pivots.detach().cpu().to(kLong).contiguous();
  DimVector shape(pivots.sizes());
  shape.back() = m;
  shape.push_back(m);
  Tensor P = zeros(shape, kDouble);
  int64_t batches = 1;
  for (int64_t d = 0; d + 1 < pivots.dim(); ++d) batches *= pivots.size(d);
  const int64_t* pp = piv.data_ptr<int64_t>();
  double* out = P.data_ptr<double>();
  std::vector<int64_t> perm(static_cast<size_t>(m));
  for (int64_t b = 0; b < batches && m > 0; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t p = pp[b * k + j] - 1;
      if (p < 0 || p >= m)
        throw Error("[lu_unpack] pivot " + std::to_string(p + 1) + " is out of range for matrices with " +
                    std::to_string(m) + " rows (pivots are 1-based, as lu_factor returns them).");
      std::swap(perm[static_cast<size_t>(j)], perm[static_cast<size_t>(p)]);
    }
    for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[static_cast<size_t>(i)] * m + i] = 1;
  }
  return P.to(like.device(), like.scalar_type());
}

// L [..., m, k] (unit lower) and U [..., k, n] (upper) from the packed LU [..., m, n].
std::pair<Tensor, Tensor> unpack_data(const Tensor& LU) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Tensor L = LU.narrow(-1, 0, k).tril(-1) + eye(m, k, TensorOptions().dtype(LU.scalar_type()).device(LU.device()));
  Tensor U = LU.narrow(-2, 0, k).triu();
  return {L, U};
}

// The gradient of A = P L U from gL [.., m, k] and gU [.., k, n]. With X = L^-1 P^T dA U^-1 for a
// square A, dL = L tril(X, -1) and dU = triu(X) U, so gX = tril(L^T gL, -1) + triu(gU U^T) and
// gA = P L^-T gX U^-T. A wide A = P L [U1 U2] adds U2 = L^-1 P^T A2: gA2 = P L^-T gU2, and L's
// gradient gains -L^-T gU2 U2^T. A tall A = P [L1; L2] U adds L2 = (P^T A)2 U^-1: its rows get
// gL2 U^-T, and U's gradient gains -L2^T gL2 U^-T.
Tensor lu_backward(const Tensor& P, const Tensor& L, const Tensor& U, Tensor gL, Tensor gU) {
  const int64_t m = L.size(-2), n = U.size(-1), k = std::min(m, n);
  if (!gL.defined()) gL = zeros_like(L);
  if (!gU.defined()) gU = zeros_like(U);
  Tensor L1 = L.narrow(-2, 0, k), U1 = U.narrow(-1, 0, k);
  Tensor gX = mT(L1).matmul(gL.narrow(-2, 0, k)).tril(-1) + gU.narrow(-1, 0, k).matmul(mT(U1)).triu();
  if (m < n) gX = gX - gU.narrow(-1, k, n - k).matmul(mT(U.narrow(-1, k, n - k))).tril(-1);
  if (m > n) gX = gX - mT(L.narrow(-2, k, m - k)).matmul(gL.narrow(-2, k, m - k)).triu();
  auto left_inv_LT = [&](const Tensor& Y) { return linalg::solve_triangular(mT(L1), Y, true, true, true); };
  auto right_inv_UT = [&](const Tensor& Y) { return linalg::solve_triangular(mT(U1), Y, false, false); };
  Tensor gB = left_inv_LT(right_inv_UT(gX));
  if (m < n) gB = cat({gB, left_inv_LT(gU.narrow(-1, k, n - k))}, -1);
  if (m > n) gB = cat({gB, right_inv_UT(gL.narrow(-2, k, m - k))}, -2);
  return P.matmul(gB);
}

struct LinalgLuFactor : autograd::Function<LinalgLuFactor> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& A) {
    Factored f = factor_host(A);
    ctx->mark_non_differentiable({f.pivots, f.info});
    ctx->save_for_backward({f.LU, f.pivots});
    return {f.LU, f.pivots, f.info};
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    const Tensor& LU = saved[0];
    const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
    auto [L, U] = unpack_data(LU);
    Tensor P = pivots_to_permutation(saved[1], m, LU);
    // the packed LU holds L's strict lower part and U: its gradient splits the same way
    return {lu_backward(P, L, U, g[0].narrow(-1, 0, k).tril(-1), g[0].narrow(-2, 0, k).triu())};
  }
};

struct LinalgLu : autograd::Function<LinalgLu> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& A) {
    Factored f = factor_host(A);
    auto [L, U] = unpack_data(f.LU);
    Tensor P = pivots_to_permutation(f.pivots, A.size(-2), f.LU);
    ctx->mark_non_differentiable({P});
    ctx->save_for_backward({P, L, U});
    return {P, L, U};
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    return {lu_backward(saved[0], saved[1], saved[2], g[1], g[2])};
  }
};

std::string batch_prefix(const Tensor& info, int64_t b) {
  return info.dim() > 0 ? "(batch element " + std::to_string(b) + ") " : "";
}

// The first nonzero info code and its batch element, or -1.
std::pair<int64_t, int32_t> first_failure(const Tensor& info) {
  Tensor h = info.cpu().contiguous();
  const int32_t* p = h.data_ptr<int32_t>();
  for (int64_t b = 0; b < h.numel(); ++b)
    if (p[b] != 0) return {b, p[b]};
  return {-1, 0};
}

// X = A^-1 B from the factors of singular matrices, as LAPACK's getrs computes it: the division
// by a zero pivot gives infinities and NaNs, not an error. A [..., n, n], B [..., n, k] of A's
// batch shape (or broadcast to it); not differentiable (the result has no meaning there).
Tensor singular_solve_host(const Tensor& A, const Tensor& B) {
  const int64_t n = A.size(-1);
  DimVector shape(A.sizes());
  shape.back() = B.size(-1);
  const int64_t k = shape.back();
  Factored f = factor_host(A);
  Tensor lu = f.LU.detach().cpu().to(kDouble).contiguous();
  Tensor piv = f.pivots.cpu().contiguous();
  Tensor x = B.detach().expand(shape).cpu().to(kDouble).contiguous().clone();
  const double* a = lu.data_ptr<double>();
  const int32_t* p = piv.data_ptr<int32_t>();
  double* xb = x.data_ptr<double>();
  const int64_t batches = n == 0 ? 0 : lu.numel() / (n * n);
  for (int64_t b = 0; b < batches; ++b) {
    const double* m = a + b * n * n;
    double* X = xb + b * n * k;
    for (int64_t j = 0; j < n; ++j) {  // the row swaps, in order
      const int64_t r = p[b * n + j] - 1;
      if (r != j)
        for (int64_t c = 0; c < k; ++c) std::swap(X[j * k + c], X[r * k + c]);
    }
    for (int64_t i = 0; i < n; ++i)  // L y = P^T b (unit diagonal)
      for (int64_t r = 0; r < i; ++r)
        for (int64_t c = 0; c < k; ++c) X[i * k + c] -= m[i * n + r] * X[r * k + c];
    for (int64_t i = n - 1; i >= 0; --i) {  // U x = y
      for (int64_t r = i + 1; r < n; ++r)
        for (int64_t c = 0; c < k; ++c) X[i * k + c] -= m[i * n + r] * X[r * k + c];
      for (int64_t c = 0; c < k; ++c) X[i * k + c] /= m[i * n + i];
    }
  }
  return x.to(A.device(), A.scalar_type());
}

// A's info codes (getrf's, per matrix) and the first failure in them (batch element or -1, code).
std::tuple<Tensor, int64_t, int32_t> singular_info(const Tensor& A) {
  NoGradGuard no_grad;
  Tensor info = factor_host(A).info;
  auto [b, code] = first_failure(info);
  return {info, b, code};
}

void check_pivot(const char* op, bool pivot) {
  if (!pivot)
    throw Error(tag(op) + "LU without pivoting is not implemented (as on PyTorch's cpu); pass pivot=true.");
}

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex_impl(const char* op, const Tensor& A, bool pivot, bool check_errors) {
  check_matrices(op, A);
  check_pivot(op, pivot);
  autograd::variable_list r = LinalgLuFactor::apply(A);
  if (check_errors) {
    auto [b, code] = first_failure(r[2]);
    if (b >= 0)
      throw Error(tag(op) + batch_prefix(r[2], b) + "U[" + std::to_string(code) + "," + std::to_string(code) +
                  "] is zero: the matrix is singular.");
  }
  return {r[0], r[1], r[2]};
}

// B as matrices for a solve with A [..., n, n]: a vector (or a batch of vectors) gets a column.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  for (int64_t d = 0; d < B.dim(); ++d)
    if (B.size(d) != A.size(d)) return false;
  return true;
}

}  // namespace

namespace linalg {

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return lu_factor_ex_impl("linalg.lu_factor_ex", A, pivot, check_errors);
}

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = lu_factor_ex_impl("linalg.lu_factor", A, pivot, false);
  auto [b, code] = first_failure(info);
  if (b >= 0)
    throw Error("[linalg.lu_factor] " + batch_prefix(info, b) + "U[" + std::to_string(code) + "," +
                std::to_string(code) +
                "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
                "perform the factorization, consider calling linalg::lu(A, pivot) or linalg::lu_factor_ex(A, pivot).");
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot) {
  check_matrices("linalg.lu", A);
  check_pivot("linalg.lu", pivot);
  autograd::variable_list r = LinalgLu::apply(A);
  return {r[0], r[1], r[2]};
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_matrices(op, LU);
  if (!pivots.defined() || !B.defined()) throw Error(tag(op) + "pivots and B must be defined tensors.");
  ops::check_same_device(op, {{"LU", &LU}, {"pivots", &pivots}, {"B", &B}});
  const int64_t n = LU.size(-1);
  if (LU.size(-2) != n)
    throw Error(tag(op) + "LU must be batches of square matrices, got " + std::to_string(LU.size(-2)) + " by " +
                std::to_string(n) + ".");
  if (pivots.scalar_type() != kInt)
    throw Error(tag(op) + "expected int32 pivots (as lu_factor returns them), got " +
                std::string(dtype_name(pivots.scalar_type())) + ".");
  if (pivots.dim() != LU.dim() - 1 || pivots.size(-1) != n)
    throw Error(tag(op) + "pivots " + ops::shape_str(pivots.sizes()) + " do not fit LU " +
                ops::shape_str(LU.sizes()) + ": expected one pivot per row of each matrix.");
  if (B.scalar_type() != LU.scalar_type())
    throw Error(tag(op) + "expected B of LU's dtype (" + std::string(dtype_name(LU.scalar_type())) + "), got " +
                dtype_name(B.scalar_type()) + ".");
  if (B.dim() < 2 || B.size(left ? -2 : -1) != n)
    throw Error(tag(op) + "B " + ops::shape_str(B.sizes()) + " does not fit the " + std::to_string(n) + " x " +
                std::to_string(n) + " matrices of LU: it needs " + std::to_string(n) + (left ? " rows" : " columns") +
                ".");
  auto [L, U] = unpack_data(LU);
  Tensor P = pivots_to_permutation(pivots, n, LU);
  // A = P L U
  if (left && !adjoint)  // X = U^-1 L^-1 P^T B
    return linalg::solve_triangular(U, linalg::solve_triangular(L, mT(P).matmul(B), false, true, true), true);
  if (left)  // A^T X = B: X = P L^-T U^-T B
    return P.matmul(linalg::solve_triangular(mT(L), linalg::solve_triangular(mT(U), B, false), true, true, true));
  if (!adjoint)  // X A = B: X = B U^-1 L^-1 P^T
    return linalg::solve_triangular(L, linalg::solve_triangular(U, B, true, false), false, false, true).matmul(mT(P));
  // X A^T = B: X = B P L^-T U^-T
  return linalg::solve_triangular(mT(U), linalg::solve_triangular(mT(L), B.matmul(P), true, false, true), false, false);
}

std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  const char* op = "linalg.solve_ex";
  check_matrices(op, A);
  if (!B.defined()) throw Error(tag(op) + "B is an undefined tensor.");
  check_square(op, A);
  auto [info, b, code] = singular_info(A);
  if (b < 0) return {solve(A, B, left), info};
  if (check_errors)
    throw Error(tag(op) + batch_prefix(info, b) + "the solver failed because the input matrix is singular (U[" +
                std::to_string(code) + "," + std::to_string(code) + "] of its LU factorization is zero).");
  // as LAPACK: the solve goes on through the zero pivot (infinities and NaNs where it divides by it)
  if (!left) return {mT(singular_solve_host(mT(A), mT(B))), info};  // X A = B: A^T X^T = B^T
  const bool vec = is_vector_rhs(A, B);
  Tensor X = singular_solve_host(A, vec ? B.unsqueeze(-1) : B);
  return {vec ? X.squeeze(-1) : X, info};
}

std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  const char* op = "linalg.inv_ex";
  check_matrices(op, A);
  check_square(op, A);
  auto [info, b, code] = singular_info(A);
  if (b < 0) return {inv(A), info};
  if (check_errors)
    throw Error(tag(op) + batch_prefix(info, b) + "the diagonal element " + std::to_string(code) +
                " is zero, the inversion could not be completed because the input matrix is singular.");
  Tensor I = eye(A.size(-1), TensorOptions().dtype(A.scalar_type()).device(A.device()));
  return {singular_solve_host(A, I), info};
}

}  // namespace linalg

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data_,
                                             bool unpack_pivots) {
  const char* op = "lu_unpack";
  check_matrices(op, LU);
  if (!pivots.defined()) throw Error(tag(op) + "pivots is an undefined tensor.");
  ops::check_same_device(op, {{"LU", &LU}, {"pivots", &pivots}});
  const int64_t m = LU.size(-2), k = std::min(m, LU.size(-1));
  if (pivots.scalar_type() != kInt)
    throw Error(tag(op) + "expected int32 pivots (as lu_factor returns them), got " +
                std::string(dtype_name(pivots.scalar_type())) + ".");
  if (pivots.dim() != LU.dim() - 1 || pivots.size(-1) != k)
    throw Error(tag(op) + "pivots " + ops::shape_str(pivots.sizes()) + " do not fit LU " + ops::shape_str(LU.sizes()) +
                ": expected min(m, n) = " + std::to_string(k) + " pivots per matrix.");
  Tensor P, L, U;
  TensorOptions none = TensorOptions().dtype(LU.scalar_type()).device(LU.device());
  if (unpack_data_) std::tie(L, U) = unpack_data(LU);
  else L = empty({0}, none), U = empty({0}, none);
  P = unpack_pivots ? pivots_to_permutation(pivots, m, LU) : empty({0}, none);
  return {P, L, U};
}

Tensor lu_solve(const Tensor& b, const Tensor& LU_data, const Tensor& LU_pivots) {
  return linalg::lu_solve(LU_data, LU_pivots, b);
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) { return linalg::lu_factor(A, pivot); }
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return linalg::lu_factor_ex(A, pivot, check_errors);
}
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) { return linalg::lu(A, pivot); }
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return linalg::lu_solve(LU, pivots, B, left, adjoint);
}
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  return linalg::solve_ex(A, B, left, check_errors);
}
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  return linalg::inv_ex(A, check_errors);
}

}  // namespace locus
