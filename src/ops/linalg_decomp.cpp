// torch::linalg's decompositions (cholesky, eigh, svd, qr) and what is built on them (pinv,
// matrix_rank, cond, lstsq, the spectral and nuclear matrix norms), plus matrix_exp, cross,
// vecdot, vander, tensorsolve, tensorinv and the top-level spellings.
//
// As linalg_lu.cpp: each batch of matrices is copied to the host as float64, factored there
// (Cholesky; cyclic Jacobi for eigh; one-sided Jacobi for svd; Householder for qr) and the result
// copied back to the input's device in its dtype. Autograd comes from custom functions whose
// backward formulas (PyTorch 1.13's) are made of differentiable ops; the functions built on the
// decompositions compose differentiable ops, so they run and differentiate on every device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
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

void check_float(const char* op, const Tensor& A) {
  if (A.scalar_type() != kFloat && A.scalar_type() != kDouble)
    throw Error(tag(op) + "expected a float32 or float64 tensor, got " + std::string(dtype_name(A.scalar_type())) +
                "; convert it with .to(kFloat).");
}

void check_matrix(const char* op, const Tensor& A) {
  if (A.dim() < 2)
    throw Error(tag(op) + "the input A must have at least 2 dimensions, got shape " + ops::shape_str(A.sizes()) + ".");
  check_float(op, A);
}

void check_square(const char* op, const Tensor& A) {
  check_matrix(op, A);
  if (A.size(-1) != A.size(-2))
    throw Error(tag(op) + "A must be batches of square matrices, but they are " + std::to_string(A.size(-2)) + " by " +
                std::to_string(A.size(-1)) + " matrices.");
}

Tensor host_f64(const Tensor& t) { return t.detach().cpu().to(kDouble).contiguous().clone(); }

std::string batch_str(int64_t b, int64_t batches) {
  return batches > 1 || b > 0 ? " (batch element " + std::to_string(b) + ")" : "";
}

DimVector with_last(IntArrayRef sizes, int64_t drop, std::initializer_list<int64_t> add) {
  DimVector d(sizes);
  d.resize(d.size() - static_cast<size_t>(drop));
  for (int64_t a : add) d.push_back(a);
  return d;
}

Tensor to_like(const Tensor& host, const Tensor& like) { return host.to(like.device(), like.scalar_type()); }

// ---- Cholesky --------------------------------------------------------------------------------------

// L of each A [..., n, n] from its lower triangle (host float64).
Tensor cholesky_host(const char* op, const Tensor& A) {
  const int64_t n = A.size(-1);
  Tensor a = host_f64(A);
  Tensor l = zeros(a.sizes(), TensorOptions().dtype(kDouble));
  const double* pa = a.data_ptr<double>();
  double* pl = l.data_ptr<double>();
  const int64_t batches = n == 0 ? 0 : a.numel() / (n * n);
  for (int64_t b = 0; b < batches; ++b) {
    const double* m = pa + b * n * n;
    double* L = pl + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      double s = m[j * n + j];
      for (int64_t k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
      if (!(s > 0))
        throw Error(tag(op) + "the matrix" + batch_str(b, batches) +
                    " is not positive-definite (the leading minor of order " + std::to_string(j + 1) +
                    " is not positive-definite), so it has no Cholesky factorization.");
      const double d = std::sqrt(s);
      L[j * n + j] = d;
      for (int64_t i = j + 1; i < n; ++i) {
        double t = m[i * n + j];
        for (int64_t k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
        L[i * n + j] = t / d;
      }
    }
  }
  return to_like(l, A);
}

struct LinalgCholesky : autograd::Function<LinalgCholesky> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& A) {
    Tensor L = cholesky_host("linalg.cholesky", A);
    ctx->save_for_backward({L});
    return L;
  }
  // PyTorch's cholesky_backward: gA = L^-H Phi(L^H gL) L^-1, Phi symmetrising the lower triangle.
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    Tensor L = ctx->get_saved_variables()[0];
    Tensor gA = mT(L).matmul(g[0]).tril();
    gA = 0.5 * (gA + mT(gA.tril(-1)));
    gA = linalg::solve(mT(L), gA);
    return {linalg::solve(L, gA, false)};
  }
};

// ---- symmetric eigendecomposition (cyclic Jacobi) ---------------------------------------------------

// Makes the largest-magnitude entry (the first of equal ones) of each column j of the row-major
// r x c matrix v non-negative; flips the same columns of w (r2 x c) when given.
void normalize_signs(double* v, int64_t r, int64_t c, double* w = nullptr, int64_t r2 = 0) {
  for (int64_t j = 0; j < c; ++j) {
    int64_t best = 0;
    for (int64_t i = 1; i < r; ++i)
      if (std::abs(v[i * c + j]) > std::abs(v[best * c + j]) + 1e-12 * std::abs(v[best * c + j])) best = i;
    if (r > 0 && v[best * c + j] < 0) {
      for (int64_t i = 0; i < r; ++i) v[i * c + j] = -v[i * c + j];
      for (int64_t i = 0; w && i < r2; ++i) w[i * c + j] = -w[i * c + j];
    }
  }
}

// Eigenvalues (ascending) and eigenvectors (columns) of the symmetric n x n matrix a (destroyed).
void jacobi_eigh(double* a, int64_t n, double* w, double* v) {
  for (int64_t i = 0; i < n * n; ++i) v[i] = 0;
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) (i == j ? total : off) += a[i * n + j] * a[i * n + j];
    if (off <= 1e-32 * (total + off) || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        a[p * n + q] = a[q * n + p] = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return a[x * n + x] < a[y * n + y]; });
  std::vector<double> vs(static_cast<size_t>(n * n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t o = order[static_cast<size_t>(j)];
    w[j] = a[o * n + o];
    for (int64_t i = 0; i < n; ++i) vs[static_cast<size_t>(i * n + j)] = v[i * n + o];
  }
  std::copy(vs.begin(), vs.end(), v);
  normalize_signs(v, n, n);
}

bool check_uplo(const char* op, std::string_view uplo) {
  if (uplo != "L" && uplo != "U" && uplo != "l" && uplo != "u")
    throw Error(tag(op) + "uplo must be 'L' or 'U', got '" + std::string(uplo) + "'.");
  return uplo == "U" || uplo == "u";
}

struct LinalgEigh : autograd::Function<LinalgEigh> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& A, bool upper) {
    const int64_t n = A.size(-1);
    Tensor a = host_f64(upper ? mT(A.triu()) + A.triu(1) : A.tril() + mT(A.tril(-1)));
    Tensor w = empty(with_last(a.sizes(), 1, {}), TensorOptions().dtype(kDouble));
    Tensor v = empty(a.sizes(), TensorOptions().dtype(kDouble));
    const int64_t batches = n == 0 ? 0 : a.numel() / (n * n);
    for (int64_t b = 0; b < batches; ++b)
      jacobi_eigh(a.data_ptr<double>() + b * n * n, n, w.data_ptr<double>() + b * n, v.data_ptr<double>() + b * n * n);
    Tensor W = to_like(w, A), V = to_like(v, A);
    ctx->save_for_backward({W, V});
    ctx->set_materialize_grads(false);
    return {W, V};
  }
  // PyTorch's linalg_eig_backward for Hermitian input: gA = V (skew(V^H gV) / E + diag(gL)) V^H,
  // E[i, j] = L[j] - L[i].
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    const Tensor &L = saved[0], &V = saved[1];
    const Tensor &gL = g[0], &gV = g[1];
    if (!gL.defined() && !gV.defined()) return {Tensor(), Tensor()};
    if (!gV.defined()) return {(V * gL.unsqueeze(-2)).matmul(mT(V)), Tensor()};
    Tensor VhgV = mT(V).matmul(gV);
    VhgV = 0.5 * (VhgV - mT(VhgV));
    Tensor E = L.unsqueeze(-2) - L.unsqueeze(-1);
    E = E + eye(L.size(-1), E.options());
    Tensor inner = VhgV / E;
    if (gL.defined()) inner = inner + gL.diag_embed();
    return {V.matmul(inner).matmul(mT(V)), Tensor()};
  }
};

// ---- singular value decomposition (one-sided Jacobi) -----------------------------------------------

// Fills the columns of the row-major m x c matrix u that `valid` (size c) marks false with unit
// vectors orthogonal to all the others (Gram-Schmidt on the standard basis vectors).
void complete_basis(double* u, int64_t m, int64_t c, std::vector<char> valid) {
  std::vector<double> x(static_cast<size_t>(m)), pick;
  for (int64_t j = 0; j < c; ++j) {
    if (valid[static_cast<size_t>(j)]) continue;
    double best = -1;
    for (int64_t e = 0; e < m; ++e) {
      std::fill(x.begin(), x.end(), 0.0);
      x[static_cast<size_t>(e)] = 1;
      for (int rep = 0; rep < 2; ++rep)
        for (int64_t q = 0; q < c; ++q) {
          if (!valid[static_cast<size_t>(q)]) continue;
          double d = 0;
          for (int64_t i = 0; i < m; ++i) d += u[i * c + q] * x[static_cast<size_t>(i)];
          for (int64_t i = 0; i < m; ++i) x[static_cast<size_t>(i)] -= d * u[i * c + q];
        }
      double nrm = 0;
      for (double xi : x) nrm += xi * xi;
      if (nrm > best * (1 + 1e-12)) best = nrm, pick = x;
    }
    const double s = std::sqrt(best);
    for (int64_t i = 0; i < m; ++i) u[i * c + j] = pick[static_cast<size_t>(i)] / s;
    valid[static_cast<size_t>(j)] = 1;
  }
}

// A (row-major m x n, m >= n) = U diag(S) V^T: U m x uc (uc = n, or m for the full one), S n
// (descending), V n x n.
void jacobi_svd_tall(const double* a, int64_t m, int64_t n, int64_t uc, double* U, double* S, double* V) {
  std::vector<double> w(a, a + m * n), v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i * n + i)] = 1;
  auto W = [&](int64_t i, int64_t j) -> double& { return w[static_cast<size_t>(i * n + j)]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += W(i, p) * W(i, p);
          beta += W(i, q) * W(i, q);
          gamma += W(i, p) * W(i, q);
        }
        if (gamma == 0 || std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const double up = W(i, p), uq = W(i, q);
          W(i, p) = c * up - s * uq;
          W(i, q) = s * up + c * uq;
        }
        for (int64_t i = 0; i < n; ++i) {
          double &vp = v[static_cast<size_t>(i * n + p)], &vq = v[static_cast<size_t>(i * n + q)];
          const double a0 = vp, b0 = vq;
          vp = c * a0 - s * b0;
          vq = s * a0 + c * b0;
        }
      }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < m; ++i) s += W(i, j) * W(i, j);
    norms[static_cast<size_t>(j)] = std::sqrt(s);
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[static_cast<size_t>(x)] > norms[static_cast<size_t>(y)]; });
  std::fill(U, U + m * uc, 0.0);
  std::vector<char> have(static_cast<size_t>(uc), 0);
  const double smax = n > 0 ? norms[static_cast<size_t>(order[0])] : 0;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t o = order[static_cast<size_t>(j)];
    const double s = norms[static_cast<size_t>(o)];
    S[j] = s;
    for (int64_t i = 0; i < n; ++i) V[i * n + j] = v[static_cast<size_t>(i * n + o)];
    if (s > 0 && s > smax * 1e-300) {
      // u_j = A v_j / s_j, made orthogonal to the earlier columns again (a tiny s_j leaves rounding
      // noise): a column that loses most of its norm there is replaced below
      for (int64_t i = 0; i < m; ++i) U[i * uc + j] = W(i, o) / s;
      double nrm = 1;
      for (int rep = 0; rep < 2; ++rep) {
        for (int64_t q = 0; q < j; ++q) {
          if (!have[static_cast<size_t>(q)]) continue;
          double d = 0;
          for (int64_t i = 0; i < m; ++i) d += U[i * uc + q] * U[i * uc + j];
          for (int64_t i = 0; i < m; ++i) U[i * uc + j] -= d * U[i * uc + q];
        }
        nrm = 0;
        for (int64_t i = 0; i < m; ++i) nrm += U[i * uc + j] * U[i * uc + j];
        nrm = std::sqrt(nrm);
        if (nrm < 0.5) break;
        for (int64_t i = 0; i < m; ++i) U[i * uc + j] /= nrm;
      }
      have[static_cast<size_t>(j)] = nrm >= 0.5;
    }
  }
  complete_basis(U, m, uc, have);
  if (uc == n) {
    normalize_signs(U, m, n, V, n);  // u_j and v_j flip together
  } else {  // the sign rule on a copy of U's first n columns, then on the completing ones
    std::vector<double> u(static_cast<size_t>(m * uc));
    std::copy(U, U + m * uc, u.begin());
    std::vector<double> un(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) un[static_cast<size_t>(i * n + j)] = U[i * uc + j];
    normalize_signs(un.data(), m, n, V, n);
    normalize_signs(u.data(), m, uc);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < uc; ++j)
        U[i * uc + j] = j < n ? un[static_cast<size_t>(i * n + j)] : u[static_cast<size_t>(i * uc + j)];
  }
}

// The decomposition of each A [..., m, n]: U [..., m, m or k], S [..., k], Vh [..., k or n, n].
std::vector<Tensor> svd_host(const Tensor& A, bool full) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool tall = m >= n;
  Tensor a = host_f64(tall ? A : mT(A));  // [.., M, N], M >= N
  const int64_t M = tall ? m : n, N = tall ? n : m, UC = full ? M : N;
  const TensorOptions o = TensorOptions().dtype(kDouble);
  Tensor Ut = empty(with_last(a.sizes(), 2, {M, UC}), o), S = empty(with_last(a.sizes(), 2, {k}), o);
  Tensor Vt = empty(with_last(a.sizes(), 2, {N, N}), o);
  const int64_t batches = M * N == 0 ? 0 : a.numel() / (M * N);
  for (int64_t b = 0; b < batches; ++b)
    jacobi_svd_tall(a.data_ptr<double>() + b * M * N, M, N, UC, Ut.data_ptr<double>() + b * M * UC,
                    S.data_ptr<double>() + b * k, Vt.data_ptr<double>() + b * N * N);
  if (batches == 0) {  // empty matrices: identity-like factors as LAPACK
    Ut = eye(M, UC, o).expand(Ut.sizes()).contiguous();
    Vt = eye(N, o).expand(Vt.sizes()).contiguous();
  }
  // tall: A = Ut S Vt^T; wide: A^T = Ut S Vt^T, so A = Vt S Ut^T
  Tensor U = tall ? Ut : Vt, Vh = tall ? mT(Vt) : mT(Ut);
  return {to_like(U.contiguous(), A), to_like(S, A), to_like(Vh.contiguous(), A)};
}

struct LinalgSvd : autograd::Function<LinalgSvd> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& A, bool full) {
    auto r = svd_host(A, full);
    ctx->save_for_backward({r[0], r[1], r[2]});
    ctx->set_materialize_grads(false);
    return r;
  }
  // PyTorch's svd_backward (on the reduced factors; the full ones are narrowed first).
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    const Tensor& S = saved[1];
    const int64_t k = S.size(-1);
    Tensor U = saved[0].narrow(-1, 0, k), Vh = saved[2].narrow(-2, 0, k);
    Tensor gU = g[0].defined() ? g[0].narrow(-1, 0, k) : Tensor();
    Tensor gS = g[1];
    Tensor gVh = g[2].defined() ? g[2].narrow(-2, 0, k) : Tensor();
    const int64_t m = U.size(-2), n = Vh.size(-1);
    if (!gU.defined() && !gVh.defined()) {
      if (!gS.defined()) return {Tensor(), Tensor()};
      return {m >= n ? U.matmul(gS.unsqueeze(-1) * Vh) : (U * gS.unsqueeze(-2)).matmul(Vh), Tensor()};
    }
    auto skew = [](const Tensor& X) { return X - mT(X); };
    Tensor UhgU = gU.defined() ? skew(mT(U).matmul(gU)) : Tensor();
    Tensor VhgV = gVh.defined() ? skew(Vh.matmul(mT(gVh))) : Tensor();
    Tensor S2 = S * S;
    Tensor E = S2.unsqueeze(-2) - S2.unsqueeze(-1);
    E = E + eye(k, E.options());
    Tensor gA;
    if (gU.defined() && gVh.defined()) gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E;
    else if (gU.defined()) gA = (UhgU / E) * S.unsqueeze(-2);
    else gA = S.unsqueeze(-1) * (VhgV / E);
    if (gS.defined()) gA = gA + gS.diag_embed();
    if (m > n && gU.defined()) {
      gA = U.matmul(gA);
      Tensor gUSinv = gU / S.unsqueeze(-2);
      gA = gA + gUSinv - U.matmul(mT(U).matmul(gUSinv));
      gA = gA.matmul(Vh);
    } else if (m < n && gVh.defined()) {
      gA = gA.matmul(Vh);
      Tensor SinvgVh = gVh / S.unsqueeze(-1);
      gA = gA + SinvgVh - SinvgVh.matmul(mT(Vh)).matmul(Vh);
      gA = U.matmul(gA);
    } else {
      gA = m >= n ? U.matmul(gA.matmul(Vh)) : U.matmul(gA).matmul(Vh);
    }
    return {gA, Tensor()};
  }
};

// ---- QR (Householder) -----------------------------------------------------------------------------

// Q (m x qc, qc = k or m; empty when qc = 0) and R (rr x n, rr = k or m) of the row-major m x n a.
// With `compact` and `tau`, also LAPACK's geqrf form: R on and above the diagonal, the reflectors'
// vectors (unit first entry implied) below it, and their scales tau [k].
void householder_qr(const double* a, int64_t m, int64_t n, double* Q, int64_t qc, double* R, int64_t rr,
                    double* compact = nullptr, double* tau_out = nullptr) {
  const int64_t k = std::min(m, n);
  std::vector<double> r(a, a + m * n);
  std::vector<std::vector<double>> vs;
  std::vector<double> taus;
  for (int64_t j = 0; j < k; ++j) {  // LAPACK's dlarfg
    const double alpha = r[static_cast<size_t>(j * n + j)];
    double xnorm = 0;
    for (int64_t i = j + 1; i < m; ++i)
      xnorm += r[static_cast<size_t>(i * n + j)] * r[static_cast<size_t>(i * n + j)];
    xnorm = std::sqrt(xnorm);
    std::vector<double> v(static_cast<size_t>(m), 0.0);
    double tau = 0;
    if (xnorm != 0) {
      const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
      tau = (beta - alpha) / beta;
      v[static_cast<size_t>(j)] = 1;
      for (int64_t i = j + 1; i < m; ++i)
        v[static_cast<size_t>(i)] = r[static_cast<size_t>(i * n + j)] / (alpha - beta);
      for (int64_t c = j; c < n; ++c) {  // r = (I - tau v v^T) r
        double d = 0;
        for (int64_t i = j; i < m; ++i) d += v[static_cast<size_t>(i)] * r[static_cast<size_t>(i * n + c)];
        for (int64_t i = j; i < m; ++i) r[static_cast<size_t>(i * n + c)] -= tau * d * v[static_cast<size_t>(i)];
      }
      for (int64_t i = j + 1; i < m; ++i) r[static_cast<size_t>(i * n + j)] = 0;
    }
    vs.push_back(std::move(v));
    taus.push_back(tau);
  }
  for (int64_t i = 0; i < rr; ++i)
    for (int64_t c = 0; c < n; ++c) R[i * n + c] = c >= i ? r[static_cast<size_t>(i * n + c)] : 0.0;
  if (compact) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < n; ++c)
        compact[i * n + c] = c >= i || c >= k ? r[static_cast<size_t>(i * n + c)]
                                              : vs[static_cast<size_t>(c)][static_cast<size_t>(i)];
    for (int64_t j = 0; j < k; ++j) tau_out[j] = taus[static_cast<size_t>(j)];
  }
  if (qc == 0) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < qc; ++c) Q[i * qc + c] = i == c ? 1.0 : 0.0;
  for (int64_t j = k - 1; j >= 0; --j) {  // Q = H_0 ... H_{k-1} I
    const auto& v = vs[static_cast<size_t>(j)];
    const double tau = taus[static_cast<size_t>(j)];
    if (tau == 0) continue;
    for (int64_t c = 0; c < qc; ++c) {
      double d = 0;
      for (int64_t i = j; i < m; ++i) d += v[static_cast<size_t>(i)] * Q[i * qc + c];
      for (int64_t i = j; i < m; ++i) Q[i * qc + c] -= tau * d * v[static_cast<size_t>(i)];
    }
  }
}

// The QR gradient for m >= n (reduced Q [m, n], R [n, n]; gQ or gR may be undefined), equal to
// PyTorch's linalg_qr_backward: gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T, copyltu(M) the
// symmetric matrix with M's lower triangle.
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M;
  if (gR.defined()) M = gQ.defined() ? R.matmul(mT(gR)) - mT(gQ).matmul(Q) : R.matmul(mT(gR));
  else M = -mT(gQ).matmul(Q);
  Tensor C = M.tril() + mT(M.tril(-1));
  Tensor Y = gQ.defined() ? gQ + Q.matmul(C) : Q.matmul(C);
  return linalg::solve(mT(R), Y, false);  // Y R^-T
}

struct LinalgQr : autograd::Function<LinalgQr> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& A, std::string mode) {
    const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
    const bool complete = mode == "complete";
    const int64_t qc = mode == "r" ? 0 : complete ? m : k, rr = complete ? m : k;
    Tensor a = host_f64(A);
    const TensorOptions o = TensorOptions().dtype(kDouble);
    Tensor Q = zeros(qc == 0 ? DimVector{0} : with_last(a.sizes(), 2, {m, qc}), o);
    Tensor R = empty(with_last(a.sizes(), 2, {rr, n}), o);
    const int64_t batches = m * n == 0 ? 0 : a.numel() / (m * n);
    for (int64_t b = 0; b < batches; ++b)
      householder_qr(a.data_ptr<double>() + b * m * n, m, n, qc ? Q.data_ptr<double>() + b * m * qc : nullptr, qc,
                     R.data_ptr<double>() + b * rr * n, rr);
    if (batches == 0) {
      R.zero_();
      if (qc) Q = eye(m, qc, o).expand(Q.sizes()).contiguous();
    }
    Tensor Qd = to_like(Q, A), Rd = to_like(R, A);
    ctx->save_for_backward({Qd, Rd});
    ctx->saved_data["mode"] = mode;
    ctx->set_materialize_grads(false);
    return {Qd, Rd};
  }
  // PyTorch's linalg_qr_backward (the wide case reduced to the square one).
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    const Tensor &Q = saved[0], &R = saved[1];
    const std::string mode = ctx->saved_data["mode"].toStringRef();
    const Tensor &gQ = g[0], &gR = g[1];
    if (!gQ.defined() && !gR.defined()) return {Tensor(), Tensor()};
    if (mode == "r")
      throw Error("[linalg.qr] the derivative of linalg.qr depends on Q, which is not computed when mode='r'; use "
                  "mode='reduced' to differentiate through linalg.qr.");
    const int64_t m = Q.size(-2), n = R.size(-1);
    if (mode == "complete" && m > n)
      throw Error("[linalg.qr] the QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (m >= n) return {qr_backward_tall(gQ, gR, Q, R), Tensor()};
    // wide: A = [X | Y] with X = Q U (square) and V = Q^T Y: Y's gradient is Q gV, and V adds Y gV^T
    // to Q's gradient for X's square backward
    Tensor gQz = gQ.defined() ? gQ : zeros_like(Q), gRz = gR.defined() ? gR : zeros_like(R);
    Tensor U = R.narrow(-1, 0, m), Vr = R.narrow(-1, m, n - m);
    Tensor gU = gRz.narrow(-1, 0, m), gV = gRz.narrow(-1, m, n - m);
    Tensor gX = qr_backward_tall(gQz + Q.matmul(Vr).matmul(mT(gV)), gU, Q, U);
    Tensor gA = cat({gX, Q.matmul(gV)}, -1);
    return {gA, Tensor()};
  }
};

// The two matrix dims of a norm moved last.
Tensor dims_last(const Tensor& x, int64_t d0, int64_t d1) { return x.movedim({d0, d1}, {-2, -1}); }

Tensor restore_keepdim(Tensor r, int64_t d0, int64_t d1, bool keepdim) {
  if (!keepdim) return r;
  return r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
}

double dtype_eps(ScalarType t) {
  return t == kFloat ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

}  // namespace

// ---- public -------------------------------------------------------------------------------------

namespace linalg {

Tensor cholesky(const Tensor& A, bool upper) {
  check_square("linalg.cholesky", A);
  if (upper) return mT(LinalgCholesky::apply(mT(A)));
  return LinalgCholesky::apply(A);
}

std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view uplo) {
  check_square("linalg.eigh", A);
  auto r = LinalgEigh::apply(A, check_uplo("linalg.eigh", uplo));
  return {r[0], r[1]};
}

Tensor eigvalsh(const Tensor& A, std::string_view uplo) {
  check_square("linalg.eigvalsh", A);
  return LinalgEigh::apply(A, check_uplo("linalg.eigvalsh", uplo))[0];
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices, std::optional<std::string_view>) {
  check_matrix("linalg.svd", A);
  auto r = LinalgSvd::apply(A, full_matrices);
  return {r[0], r[1], r[2]};
}

Tensor svdvals(const Tensor& A, std::optional<std::string_view>) {
  check_matrix("linalg.svdvals", A);
  return LinalgSvd::apply(A, false)[1];
}

Tensor pinv(const Tensor& A, double rcond, bool hermitian) { return pinv(A, 0.0, rcond, hermitian); }

Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "linalg.pinv";
  check_matrix(op, A);
  const double at = atol.value_or(0.0);
  const double rt = rtol ? *rtol : (at > 0 ? 0.0 : dtype_eps(A.scalar_type()) * std::max(A.size(-2), A.size(-1)));
  if (hermitian) {
    if (A.size(-1) != A.size(-2))
      throw Error(tag(op) + "hermitian=true needs square matrices, got " + std::to_string(A.size(-2)) + " by " +
                  std::to_string(A.size(-1)) + ".");
    auto [w, V] = eigh(A);
    Tensor aw = w.abs();
    Tensor tol = (aw.amax({-1}, true) * rt).clamp_min(at);
    Tensor winv = where(aw.gt(tol), w.reciprocal(), zeros({}, w.options()));
    return (V * winv.unsqueeze(-2)).matmul(mT(V));
  }
  auto [U, S, Vh] = linalg::svd(A, false);
  if (S.size(-1) == 0) return zeros(with_last(A.sizes(), 2, {A.size(-1), A.size(-2)}), A.options());
  Tensor tol = (S.narrow(-1, 0, 1) * rt).clamp_min(at);
  Tensor sinv = where(S.gt(tol), S.reciprocal(), zeros({}, S.options()));
  return (mT(Vh) * sinv.unsqueeze(-2)).matmul(mT(U));
}

Tensor matrix_rank(const Tensor& A, double tol, bool hermitian) { return matrix_rank(A, tol, 0.0, hermitian); }

Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "linalg.matrix_rank";
  check_matrix(op, A);
  if (hermitian && A.size(-1) != A.size(-2))
    throw Error(tag(op) + "hermitian=true needs square matrices, got " + std::to_string(A.size(-2)) + " by " +
                std::to_string(A.size(-1)) + ".");
  NoGradGuard no_grad;
  const double at = atol.value_or(0.0);
  const double rt = rtol ? *rtol : (at > 0 ? 0.0 : dtype_eps(A.scalar_type()) * std::max(A.size(-2), A.size(-1)));
  Tensor S = hermitian ? eigvalsh(A).abs() : svdvals(A);
  if (S.size(-1) == 0) return zeros(with_last(A.sizes(), 2, {}), A.options().dtype(kLong));
  Tensor tol = (S.amax({-1}, true) * rt).clamp_min(at);
  return S.gt(tol).sum({-1}, false, kLong);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  const char* op = "linalg.lstsq";
  ops::check_same_device(op, {{"A", &A}, {"B", &B}});
  check_matrix(op, A);
  const std::string drv(driver.value_or("gelsy"));
  if (drv != "gelsy" && drv != "gels" && drv != "gelsd" && drv != "gelss")
    throw Error(tag(op) + "driver must be one of 'gels', 'gelsy', 'gelsd' or 'gelss', got '" + drv + "'.");
  if (B.scalar_type() != A.scalar_type())
    throw Error(tag(op) + "expected A and B to have the same dtype, but A is " + dtype_name(A.scalar_type()) +
                " and B is " + dtype_name(B.scalar_type()) + ".");
  const int64_t m = A.size(-2), n = A.size(-1);
  const bool vector = B.dim() == A.dim() - 1;
  Tensor b = vector ? B.unsqueeze(-1) : B;
  if (b.dim() < 2 || b.size(-2) != m)
    throw Error(tag(op) + "incompatible shapes of A and B: A " + ops::shape_str(A.sizes()) + " and B " +
                ops::shape_str(B.sizes()) + " (B needs " + std::to_string(m) + " rows).");
  const double rt = rcond && *rcond > 0 ? *rcond : dtype_eps(A.scalar_type()) * std::max(m, n);
  // the minimum-norm solution (what the rank-revealing gelsy/gelsd/gelss give; gels equals it for
  // full-rank A): X = pinv(A) B, dropping singular values below rcond * the largest
  Tensor X = pinv(A, 0.0, drv == "gels" ? 0.0 : rt, false).matmul(b);
  if (vector) X = X.squeeze(-1);
  Tensor S, rank;
  {
    NoGradGuard no_grad;
    S = svdvals(A);
    if (drv != "gels") {
      Tensor tol = S.size(-1) ? S.amax({-1}, true) * rt : S;
      rank = S.size(-1) ? S.gt(tol).sum({-1}, false, kLong)
                        : zeros(with_last(A.sizes(), 2, {}), A.options().dtype(kLong));
    }
  }
  Tensor residuals = empty({0}, A.options());
  bool full_rank = m > n && drv != "gelsy";
  if (full_rank) {
    NoGradGuard no_grad;
    full_rank = S.size(-1) > 0 && S.narrow(-1, n - 1, 1).gt(S.narrow(-1, 0, 1) * rt).all().item<bool>();
  }
  if (full_rank) {
    Tensor Xm = vector ? X.unsqueeze(-1) : X;
    residuals = (A.matmul(Xm) - b).pow(2).sum({-2});
    if (vector) residuals = residuals.squeeze(-1);
  }
  if (drv == "gels") rank = empty({0}, A.options().dtype(kLong));
  Tensor sv = drv == "gelsd" || drv == "gelss" ? S : empty({0}, A.options());
  return {X, residuals, rank, sv};
}

std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) {
  const char* op = "linalg.qr";
  check_matrix(op, A);
  if (mode != "reduced" && mode != "complete" && mode != "r")
    throw Error(tag(op) + "mode must be 'reduced', 'complete' or 'r', got '" + std::string(mode) + "'.");
  auto r = LinalgQr::apply(A, std::string(mode));
  return {r[0], r[1]};
}

Tensor matrix_exp(const Tensor& A) {
  const char* op = "linalg.matrix_exp";
  check_square(op, A);
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return A.clone();
  // scaling and squaring with the degree-13 Pade approximant (Higham 2005), one s for the batch
  double norm1 = 0;
  {
    NoGradGuard no_grad;
    norm1 = A.abs().sum({-2}).amax({-1}).max().item<double>();
  }
  const double theta13 = 5.371920351148152;
  int s = norm1 > theta13 ? static_cast<int>(std::ceil(std::log2(norm1 / theta13))) : 0;
  Tensor X = s > 0 ? A / std::ldexp(1.0, s) : A;
  static const double b[] = {64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
                             129060195264000.,   10559470521600.,    670442572800.,     33522128640.,
                             1323241920.,        40840800.,          960960.,           16380.,
                             182.,               1.};
  Tensor I = eye(n, A.options()).expand(A.sizes());
  Tensor X2 = X.matmul(X), X4 = X2.matmul(X2), X6 = X4.matmul(X2);
  Tensor U = X.matmul(X6.matmul(b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * I);
  Tensor V = X6.matmul(b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * I;
  Tensor R = linalg::solve(V - U, V + U);
  for (int i = 0; i < s; ++i) R = R.matmul(R);
  return R;
}

Tensor matrix_power(const Tensor& A, int64_t n) { return locus::matrix_power(A, n); }

Tensor householder_product(const Tensor& input, const Tensor& tau) {
  const char* op = "linalg.householder_product";
  ops::check_same_device(op, {{"input", &input}, {"tau", &tau}});
  check_matrix(op, input);
  const int64_t m = input.size(-2), n = input.size(-1);
  if (m < n)
    throw Error(tag(op) + "input.shape[-2] must be greater than or equal to input.shape[-1], got " +
                ops::shape_str(input.sizes()) + ".");
  if (tau.dim() != input.dim() - 1 || tau.size(-1) > n)
    throw Error(tag(op) + "tau must have one dim less than input and tau.shape[-1] <= input.shape[-1], got tau " +
                ops::shape_str(tau.sizes()) + " and input " + ops::shape_str(input.sizes()) + ".");
  for (int64_t d = 0; d + 1 < tau.dim(); ++d)
    if (tau.size(d) != input.size(d))
      throw Error(tag(op) + "the batch dims of tau " + ops::shape_str(tau.sizes()) + " and input " +
                  ops::shape_str(input.sizes()) + " must be equal.");
  if (tau.scalar_type() != input.scalar_type())
    throw Error(tag(op) + "expected tau to have the dtype of input (" + dtype_name(input.scalar_type()) +
                "), got " + dtype_name(tau.scalar_type()) + ".");
  // Q [:, :n] = H_0 (H_1 (... (H_{k-1} E))), H_i = I - tau_i v_i v_i^T, E the first n columns of I
  const TensorOptions opt = input.options();
  Tensor rows = arange(m, opt);
  Tensor Q = eye(m, n, opt).expand(with_last(input.sizes(), 2, {m, n}));
  for (int64_t i = tau.size(-1) - 1; i >= 0; --i) {
    Tensor below = rows.gt(static_cast<double>(i)).to(input.scalar_type());
    Tensor v = (input.select(-1, i) * below + rows.eq(static_cast<double>(i)).to(input.scalar_type())).unsqueeze(-1);
    Tensor t = tau.select(-1, i).unsqueeze(-1).unsqueeze(-1);
    Q = Q - t * v.matmul(mT(v).matmul(Q));
  }
  return Q;
}

Tensor tensorinv(const Tensor& A, int64_t ind) {
  const char* op = "linalg.tensorinv";
  if (ind <= 0) throw Error(tag(op) + "ind must be a positive integer, got " + std::to_string(ind) + ".");
  if (ind > A.dim())
    throw Error(tag(op) + "ind (" + std::to_string(ind) + ") must not exceed the number of dims (" +
                std::to_string(A.dim()) + ").");
  DimVector out;
  for (int64_t i = ind; i < A.dim(); ++i) out.push_back(A.size(i));
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < A.dim(); ++i) (i < ind ? rows : cols) *= A.size(i);
  if (rows != cols)
    throw Error(tag(op) + "expected prod(shape[:ind]) == prod(shape[ind:]), but got " + std::to_string(rows) +
                " != " + std::to_string(cols) + ".");
  for (int64_t i = 0; i < ind; ++i) out.push_back(A.size(i));
  return inv(A.reshape({rows, cols})).reshape(out);
}

Tensor tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  const char* op = "linalg.tensorsolve";
  Tensor a = A;
  if (dims && !dims->empty()) {
    DimVector src, dst;
    for (size_t i = 0; i < dims->size(); ++i) {
      src.push_back((*dims)[i]);
      dst.push_back(A.dim() - static_cast<int64_t>(dims->size()) + static_cast<int64_t>(i));
    }
    a = A.movedim(src, dst);
  }
  if (B.dim() > a.dim()) throw Error(tag(op) + "B has more dims than A.");
  for (int64_t i = 0; i < B.dim(); ++i)
    if (a.size(i) != B.size(i))
      throw Error(tag(op) + "the leading dims of A " + ops::shape_str(a.sizes()) + " must equal B's shape " +
                  ops::shape_str(B.sizes()) + ".");
  DimVector xs;
  for (int64_t i = B.dim(); i < a.dim(); ++i) xs.push_back(a.size(i));
  int64_t rows = B.numel(), cols = 1;
  for (int64_t s : xs) cols *= s;
  if (rows != cols)
    throw Error(tag(op) + "expected prod(B.shape) == prod(A.shape[B.dim():]), but got " + std::to_string(rows) +
                " != " + std::to_string(cols) + ".");
  return solve(a.reshape({rows, cols}), B.reshape({rows})).reshape(xs);
}

}  // namespace linalg

// ---- the matrix norms that need singular values, linalg_cond -----------------------------------

namespace linalg_detail {
// matrix_norm's ord 2 / -2 / "nuc" (linalg_lu.cpp's matrix_norm calls this).
Tensor svd_matrix_norm(const Tensor& x, int64_t d0, int64_t d1, double ord, bool nuc, bool keepdim) {
  Tensor s = linalg::svdvals(dims_last(x, d0, d1));
  Tensor r = nuc ? s.sum({-1}) : ord > 0 ? s.amax({-1}) : s.amin({-1});
  return restore_keepdim(r, d0, d1, keepdim);
}
}  // namespace linalg_detail

// norm(A) * norm(inv(A)), inf for the singular matrices (an exactly zero LU pivot), as PyTorch.
template <class F>
Tensor cond_via_inv(const Tensor& A, F norm) {
  Tensor singular;
  {
    NoGradGuard no_grad;
    singular = linalg::det(A).eq(0);
  }
  if (!singular.any().item<bool>()) return norm(A) * norm(linalg::inv(A));
  Tensor mask = singular.unsqueeze(-1).unsqueeze(-1);
  Tensor safe = where(mask, eye(A.size(-1), A.options()).expand(A.sizes()), A);
  return where(singular, full({}, std::numeric_limits<double>::infinity(), A.options()),
               norm(A) * norm(linalg::inv(safe)));
}

Tensor linalg_cond(const Tensor& A, const std::optional<Scalar>& p) {
  const char* op = "linalg.cond";
  check_matrix(op, A);
  const double pv = p ? p->toDouble() : 2.0;
  if (pv == 2 || pv == -2) {
    Tensor s = linalg::svdvals(A);
    if (s.size(-1) == 0) return zeros(with_last(A.sizes(), 2, {}), A.options());
    Tensor a = s.narrow(-1, 0, 1).squeeze(-1), b = s.narrow(-1, s.size(-1) - 1, 1).squeeze(-1);
    return pv > 0 ? a / b : b / a;
  }
  if (!(std::abs(pv) == 1 || std::isinf(pv)))
    throw Error(tag(op) + "p must be one of 2, -2, 1, -1, inf, -inf, 'fro' or 'nuc', got " + std::to_string(pv) + ".");
  check_square(op, A);
  return cond_via_inv(A, [&](const Tensor& X) { return linalg::matrix_norm(X, *p); });
}

Tensor linalg_cond(const Tensor& A, std::string_view p) {
  const char* op = "linalg.cond";
  if (p != "fro" && p != "nuc")
    throw Error(tag(op) + "p must be 'fro' or 'nuc' as a string, got '" + std::string(p) + "'.");
  check_square(op, A);
  return cond_via_inv(A, [&](const Tensor& X) { return linalg::matrix_norm(X, p); });
}
Tensor linalg_cond(const Tensor& A, const char* p) { return linalg_cond(A, std::string_view(p)); }

Tensor linalg_cholesky(const Tensor& A, bool upper) { return linalg::cholesky(A, upper); }
Tensor cholesky(const Tensor& A, bool upper) { return linalg::cholesky(A, upper); }

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  const char* op = "cholesky_solve";
  ops::check_same_device(op, {{"self", &B}, {"input2", &L}});
  check_square(op, L);
  if (B.dim() < 2)
    throw Error(tag(op) + "b should have at least 2 dimensions, but has " + std::to_string(B.dim()) +
                " dimensions instead.");
  Tensor Lo = upper ? mT(L.triu()) : L.tril();  // A = Lo Lo^T
  return linalg::solve(mT(Lo), linalg::solve(Lo, B));
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  check_square("cholesky_inverse", L);
  Tensor Lo = upper ? mT(L.triu()) : L.tril();
  Tensor Li = linalg::inv(Lo);
  return mT(Li).matmul(Li);
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view uplo) { return linalg::eigh(A, uplo); }
Tensor linalg_eigvalsh(const Tensor& A, std::string_view uplo) { return linalg::eigvalsh(A, uplo); }
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  return linalg::svd(A, full_matrices, driver);
}
Tensor linalg_svdvals(const Tensor& A, std::optional<std::string_view> driver) { return linalg::svdvals(A, driver); }

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some, bool compute_uv) {
  check_matrix("svd", A);
  if (!compute_uv) {
    const int64_t m = A.size(-2), n = A.size(-1);
    return {zeros(with_last(A.sizes(), 2, {m, m}), A.options()), linalg::svdvals(A),
            zeros(with_last(A.sizes(), 2, {n, n}), A.options())};
  }
  auto [U, S, Vh] = linalg::svd(A, !some);
  return {U, S, mT(Vh)};
}

Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian) { return linalg::pinv(A, rcond, hermitian); }
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return linalg::pinv(A, atol, rtol, hermitian);
}
Tensor pinverse(const Tensor& A, double rcond) { return linalg::pinv(A, rcond); }
Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return linalg::matrix_rank(A, tol, hermitian);
}
Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return linalg::matrix_rank(A, atol, rtol, hermitian);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                        std::optional<std::string_view> driver) {
  return linalg::lstsq(A, B, rcond, driver);
}
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) { return linalg::qr(A, mode); }
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some) { return linalg::qr(A, some ? "reduced" : "complete"); }
Tensor linalg_matrix_exp(const Tensor& A) { return linalg::matrix_exp(A); }
Tensor matrix_exp(const Tensor& A) { return linalg::matrix_exp(A); }
Tensor linalg_matrix_power(const Tensor& A, int64_t n) { return locus::matrix_power(A, n); }
Tensor linalg_householder_product(const Tensor& input, const Tensor& tau) {
  return linalg::householder_product(input, tau);
}
Tensor orgqr(const Tensor& self, const Tensor& input2) { return linalg::householder_product(self, input2); }

std::tuple<Tensor, Tensor> geqrf(const Tensor& A) {
  check_matrix("geqrf", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Tensor a = host_f64(A);
  const TensorOptions o = TensorOptions().dtype(kDouble);
  Tensor c = empty(a.sizes(), o), tau = zeros(with_last(a.sizes(), 2, {k}), o);
  const int64_t batches = m * n == 0 ? 0 : a.numel() / (m * n);
  for (int64_t b = 0; b < batches; ++b)
    householder_qr(a.data_ptr<double>() + b * m * n, m, n, nullptr, 0, nullptr, 0, c.data_ptr<double>() + b * m * n,
                   tau.data_ptr<double>() + b * k);
  return {to_like(c, A), to_like(tau, A)};  // not differentiable (as PyTorch's)
}

Tensor linalg_cross(const Tensor& input, const Tensor& other, int64_t dim) {
  const char* op = "linalg.cross";
  ops::check_same_device(op, {{"input", &input}, {"other", &other}});
  if (input.dim() != other.dim())
    throw Error(tag(op) + "inputs must have the same number of dimensions, got " + std::to_string(input.dim()) +
                " and " + std::to_string(other.dim()) + ".");
  DimVector shape = ops::broadcast_shapes(input.sizes(), other.sizes(), op);
  const int64_t d = detail::wrap_dim(dim, static_cast<int64_t>(shape.size()), op);
  if (input.size(d) != 3 || other.size(d) != 3)
    throw Error(tag(op) + "dimension " + std::to_string(dim) + " does not have size 3 (sizes " +
                ops::shape_str(input.sizes()) + " and " + ops::shape_str(other.sizes()) + ").");
  return input.expand(shape).cross(other.expand(shape), d);
}

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  ops::check_same_device("linalg.vecdot", {{"x", &x}, {"y", &y}});
  return (x * y).sum({dim});
}

Tensor linalg_vander(const Tensor& x, std::optional<int64_t> N) {
  const char* op = "linalg.vander";
  if (x.dim() < 1) throw Error(tag(op) + "x must have at least one dimension.");
  const int64_t n = N.value_or(x.size(-1));
  if (n <= 1) throw Error(tag(op) + "N must be greater than 1, got " + std::to_string(n) + ".");
  ScalarType t = x.scalar_type() == kBool ? kLong : x.scalar_type();
  Tensor xe = x.to(t).unsqueeze(-1);
  DimVector es(xe.sizes());
  es.back() = n - 1;
  Tensor ones_ = ones_like(xe);
  return cat({ones_, xe.expand(es)}, -1).cumprod(-1);
}

Tensor linalg_tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  return linalg::tensorsolve(A, B, dims);
}
Tensor linalg_tensorinv(const Tensor& A, int64_t ind) { return linalg::tensorinv(A, ind); }

Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  if (self.dim() != 2)
    throw Error("[nuclear_norm] expected a 2-D tensor, got " + std::to_string(self.dim()) + "-D; pass dim.");
  return linalg::matrix_norm(self, "nuc", {-2, -1}, keepdim);
}
Tensor nuclear_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return linalg::matrix_norm(self, "nuc", dim, keepdim);
}

Tensor Tensor::cholesky(bool upper) const { return linalg::cholesky(*this, upper); }
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return locus::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const { return locus::cholesky_inverse(*this, upper); }
std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return locus::svd(*this, some, compute_uv);
}
Tensor Tensor::pinverse(double rcond) const { return linalg::pinv(*this, rcond); }
std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return locus::qr(*this, some); }
Tensor Tensor::matrix_exp() const { return linalg::matrix_exp(*this); }

}  // namespace locus
