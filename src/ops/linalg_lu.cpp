// torch::linalg's inv, det, slogdet, solve (LU with partial pivoting) and the vector and matrix
// norms, plus Tensor::inverse / det / logdet / slogdet and the top-level spellings.
//
// The factorizations are host loops: each batch of matrices is copied to the host as float64,
// factored there, and the result copied back to the input's device in its dtype (the matrices a
// libtorch program inverts are small; a device LU kernel would be a later step). Autograd comes
// from custom functions whose backward formulas are made of differentiable ops (inv and solve
// themselves among them), so second derivatives work too.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "locus/custom_function.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/linalg.h"
#include "ops/checks.h"

namespace locus {
namespace linalg_detail {
// matrix_norm's ord 2, -2 and "nuc" (the singular values, linalg_decomp.cpp).
Tensor svd_matrix_norm(const Tensor& x, int64_t d0, int64_t d1, double ord, bool nuc, bool keepdim);
}  // namespace linalg_detail
namespace {

std::string tag(const char* op) { return "[" + std::string(op) + "] "; }

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

void check_square(const char* op, const Tensor& A) {
  if (A.dim() < 2)
    throw Error(tag(op) + "the input A must have at least 2 dimensions, got shape " + ops::shape_str(A.sizes()) + ".");
  if (A.size(-1) != A.size(-2))
    throw Error(tag(op) + "A must be batches of square matrices, but they are " + std::to_string(A.size(-2)) + " by " +
                std::to_string(A.size(-1)) + " matrices.");
  if (A.scalar_type() != kFloat && A.scalar_type() != kDouble)
    throw Error(tag(op) + "expected a float32 or float64 tensor, got " + std::string(dtype_name(A.scalar_type())) +
                "; convert it with .to(kFloat).");
}

// In-place LU with partial pivoting of the row-major n x n matrix a: a becomes L (unit, below
// the diagonal) and U; perm[i] is the original row now at row i. Returns the permutation's sign,
// or 0 with `zero` set to the (0-based) column whose pivot is exactly zero.
int lu_factor(double* a, int64_t n, std::vector<int64_t>& perm, int64_t& zero) {
  perm.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  int sign = 1;
  zero = -1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > best) best = std::abs(a[i * n + k]), p = i;
    if (best == 0) {
      if (zero < 0) zero = k;
      continue;  // a zero column: nothing to eliminate; U[k][k] = 0
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[static_cast<size_t>(k)], perm[static_cast<size_t>(p)]);
      sign = -sign;
    }
    const double piv = a[k * n + k];
    for (int64_t i = k + 1; i < n; ++i) {
      double f = a[i * n + k] /= piv;
      if (f != 0)
        for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return zero >= 0 ? 0 : sign;
}

// Solves LU x = P b for the k right-hand sides b [n, k] (row-major) in place.
void lu_solve(const double* lu, const std::vector<int64_t>& perm, int64_t n, double* b, int64_t k) {
  std::vector<double> x(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) x[static_cast<size_t>(i * k + j)] = b[perm[static_cast<size_t>(i)] * k + j];
  for (int64_t i = 0; i < n; ++i)  // L y = P b
    for (int64_t r = 0; r < i; ++r) {
      double l = lu[i * n + r];
      if (l != 0)
        for (int64_t j = 0; j < k; ++j) x[static_cast<size_t>(i * k + j)] -= l * x[static_cast<size_t>(r * k + j)];
    }
  for (int64_t i = n - 1; i >= 0; --i) {  // U x = y
    for (int64_t r = i + 1; r < n; ++r) {
      double u = lu[i * n + r];
      if (u != 0)
        for (int64_t j = 0; j < k; ++j) x[static_cast<size_t>(i * k + j)] -= u * x[static_cast<size_t>(r * k + j)];
    }
    for (int64_t j = 0; j < k; ++j) x[static_cast<size_t>(i * k + j)] /= lu[i * n + i];
  }
  std::copy(x.begin(), x.end(), b);
}

Tensor host_f64(const Tensor& t) { return t.detach().cpu().to(kDouble).contiguous().clone(); }

std::string batch_str(int64_t b, int64_t batches) {
  return batches > 1 || b > 0 ? " (batch element " + std::to_string(b) + ")" : "";
}

// X = A^-1 B for A [..., n, n], B [..., n, k] of one batch shape (host loop, see the top).
Tensor solve_host(const char* op, const Tensor& A, const Tensor& B, bool inverse) {
  const int64_t n = A.size(-1), k = B.size(-1);
  const int64_t batches = n == 0 ? A.numel() : A.numel() / (n * n);
  Tensor a = host_f64(A), b = host_f64(B);
  double* pa = a.data_ptr<double>();
  double* pb = b.data_ptr<double>();
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < batches && n > 0; ++i) {
    int64_t zero = -1;
    if (lu_factor(pa + i * n * n, n, perm, zero) == 0) {
      if (inverse)
        throw Error(tag(op) + "the matrix" + batch_str(i, batches) + " is singular: the diagonal element " +
                    std::to_string(zero + 1) + " of its LU factorization is zero, so it has no inverse.");
      throw Error(tag(op) + "the matrix A" + batch_str(i, batches) + " is singular (the diagonal element " +
                  std::to_string(zero + 1) + " of its LU factorization is zero), so AX = B has no unique solution.");
    }
    lu_solve(pa + i * n * n, perm, n, pb + i * n * k, k);
  }
  return b.to(A.device(), A.scalar_type());
}

// sign, log|det| and det of each matrix of A [..., n, n], as float64 host tensors of the batch shape.
struct HostDet {
  Tensor sign, logabs, det;
};

HostDet slogdet_host(const Tensor& A) {
  const int64_t n = A.size(-1);
  DimVector bs(A.sizes());
  bs.resize(bs.size() - 2);
  Tensor a = host_f64(A);
  Tensor sign = empty(bs, kDouble), logabs = empty(bs, kDouble), det = empty(bs, kDouble);
  double* pa = a.data_ptr<double>();
  double *ps = sign.data_ptr<double>(), *pl = logabs.data_ptr<double>(), *pd = det.data_ptr<double>();
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < sign.numel(); ++i) {
    int64_t zero = -1;
    double* m = pa + i * n * n;
    int s = lu_factor(m, n, perm, zero);
    double l = 0, d = s;
    for (int64_t j = 0; s != 0 && j < n; ++j) {
      double u = m[j * n + j];
      if (u < 0) s = -s;
      l += std::log(std::abs(u));
      d *= u;
    }
    ps[i] = s;
    pl[i] = s == 0 ? -std::numeric_limits<double>::infinity() : l;
    pd[i] = s == 0 ? 0.0 : d;
  }
  return {sign, logabs, det};
}

struct LinalgInv : autograd::Function<LinalgInv> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& A) {
    ctx->save_for_backward({A});
    const int64_t n = A.size(-1);
    Tensor eye_b = eye(n, TensorOptions().dtype(A.scalar_type())).expand(A.sizes());
    return solve_host("linalg.inv", A, eye_b, true);
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    Tensor A = ctx->get_saved_variables()[0];
    Tensor invT = mT(linalg::inv(A));
    return {-invT.matmul(g[0]).matmul(invT)};
  }
};

struct LinalgSolve : autograd::Function<LinalgSolve> {
  // A [..., n, n] and B [..., n, k] of one batch shape.
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& A, const Tensor& B) {
    ctx->save_for_backward({A, B});  // X is solved again in backward, differentiably (not saved:
    return solve_host("linalg.solve", A, B, false);  // a saved output loses its grad_fn)
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    auto saved = ctx->get_saved_variables();
    Tensor gB = LinalgSolve::apply(mT(saved[0]), g[0]);
    Tensor gA = ctx->needs_input_grad(0) ? -gB.matmul(mT(LinalgSolve::apply(saved[0], saved[1]))) : Tensor();
    return {gA, gB};
  }
};

// The cofactor matrices of A [..., n, n] (d det / dA), from the (n-1) x (n-1) minors' determinants
// on the host: det's gradient where a matrix is singular and det * inv^T does not exist.
Tensor cofactors(const Tensor& A) {
  const int64_t n = A.size(-1);
  constexpr int64_t kMaxN = 32;  // n^2 minors of O(n^3) each
  if (n > kMaxN)
    throw Error("[linalg.det] the gradient at a singular matrix is computed from cofactors, for matrices up to " +
                std::to_string(kMaxN) + " x " + std::to_string(kMaxN) + "; this one is " + std::to_string(n) + " x " +
                std::to_string(n) + ".");
  Tensor a = host_f64(A), c = empty(a.sizes(), kDouble);
  const double* pa = a.data_ptr<double>();
  double* pc = c.data_ptr<double>();
  const int64_t batches = n == 0 ? 0 : a.numel() / (n * n);
  std::vector<double> minor(static_cast<size_t>((n - 1) * (n - 1)));
  std::vector<int64_t> perm;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        size_t k = 0;
        for (int64_t r = 0; r < n; ++r)
          for (int64_t q = 0; r != i && q < n; ++q)
            if (q != j) minor[k++] = pa[b * n * n + r * n + q];
        int64_t zero = -1;
        double d = lu_factor(minor.data(), n - 1, perm, zero);
        for (int64_t r = 0; d != 0 && r < n - 1; ++r) d *= minor[static_cast<size_t>(r * (n - 1) + r)];
        pc[b * n * n + i * n + j] = (i + j) % 2 ? -d : d;
      }
  return c.to(A.device(), A.scalar_type());
}

struct LinalgDet : autograd::Function<LinalgDet> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& A) {
    HostDet d = slogdet_host(A);
    bool singular = false;
    const double* ps = d.sign.data_ptr<double>();
    for (int64_t i = 0; i < d.sign.numel(); ++i) singular = singular || ps[i] == 0;
    ctx->save_for_backward({A});
    ctx->saved_data["singular"] = singular;
    return d.det.to(A.device(), A.scalar_type());
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    Tensor A = ctx->get_saved_variables()[0];
    Tensor gd = g[0].unsqueeze(-1).unsqueeze(-1);
    // singular: the cofactors (a constant here, so not differentiable twice); else det * inv^T
    if (ctx->saved_data["singular"].toBool()) return {gd * cofactors(A)};
    return {gd * linalg::det(A).unsqueeze(-1).unsqueeze(-1) * mT(linalg::inv(A))};
  }
};

// log|det A| (differentiable); sign separately, not differentiable.
struct LinalgLogAbsDet : autograd::Function<LinalgLogAbsDet> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& A) {
    ctx->save_for_backward({A});
    return slogdet_host(A).logabs.to(A.device(), A.scalar_type());
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list g) {
    Tensor A = ctx->get_saved_variables()[0];
    return {g[0].unsqueeze(-1).unsqueeze(-1) * mT(linalg::inv(A))};
  }
};

// ---- norms -------------------------------------------------------------------------------------

Tensor norm_input(const char* op, const Tensor& self, std::optional<ScalarType> dtype) {
  if (!is_floating_point(self.scalar_type()))
    throw Error(tag(op) + "expected a floating-point tensor, got " + std::string(dtype_name(self.scalar_type())) +
                "; convert it with .to(kFloat).");
  return dtype ? self.to(*dtype) : self;
}

DimVector all_dims(const Tensor& t) {
  DimVector d;
  for (int64_t i = 0; i < t.dim(); ++i) d.push_back(i);
  return d;
}

}  // namespace

namespace linalg {

Tensor inv(const Tensor& A) {
  check_square("linalg.inv", A);
  return LinalgInv::apply(A);
}

Tensor det(const Tensor& A) {
  check_square("linalg.det", A);
  return LinalgDet::apply(A);
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  check_square("linalg.slogdet", A);
  Tensor sign = slogdet_host(A).sign.to(A.device(), A.scalar_type());  // not differentiable
  return {sign, LinalgLogAbsDet::apply(A)};
}

Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  const char* op = "linalg.solve";
  ops::check_same_device(op, {{"A", &A}, {"B", &B}});
  check_square(op, A);
  if (!left) {  // X A = B  <=>  A^T X^T = B^T
    if (B.dim() < 2 || B.size(-1) != A.size(-1))
      throw Error(tag(op) + "incompatible shapes of A and B for the equation XA = B: A " + ops::shape_str(A.sizes()) +
                  " and B " + ops::shape_str(B.sizes()) + " (B needs " + std::to_string(A.size(-1)) + " columns).");
    return solve(mT(A), mT(B), true).transpose(-2, -1);
  }
  if (B.scalar_type() != A.scalar_type())
    throw Error(tag(op) + "expected A and B to have the same dtype, but A is " + dtype_name(A.scalar_type()) +
                " and B is " + dtype_name(B.scalar_type()) + ".");
  const int64_t n = A.size(-1);
  bool vector = B.dim() == 1;
  if (!vector && B.dim() == A.dim() - 1) {
    vector = true;
    for (int64_t i = 0; i < B.dim(); ++i) vector = vector && B.size(i) == A.size(i);
  }
  Tensor b = vector ? B.unsqueeze(-1) : B;
  if (b.dim() < 2 || b.size(-2) != n)
    throw Error(tag(op) + "incompatible shapes of A and B for the equation AX = B: A " + ops::shape_str(A.sizes()) +
                " and B " + ops::shape_str(B.sizes()) + " (B needs " + std::to_string(n) + " rows).");
  DimVector ba(A.sizes()), bb(b.sizes());
  ba.resize(ba.size() - 2);
  bb.resize(bb.size() - 2);
  DimVector batch = ops::broadcast_shapes(ba, bb, op);
  DimVector ea(batch), eb(batch);
  ea.push_back(n), ea.push_back(n);
  eb.push_back(n), eb.push_back(b.size(-1));
  Tensor X = LinalgSolve::apply(A.expand(ea), b.expand(eb));
  return vector ? X.squeeze(-1) : X;
}

Tensor vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  Tensor x = norm_input("linalg.vector_norm", self, dtype);
  DimVector dims = dim ? DimVector(*dim) : all_dims(x);
  if (dims.empty()) dims = all_dims(x);
  const double p = ord.toDouble();
  if (std::isinf(p)) {
    Tensor a = x.abs();
    return p > 0 ? a.amax(dims, keepdim) : a.amin(dims, keepdim);
  }
  if (p == 0) return x.ne(0).sum(dims, keepdim, x.scalar_type());
  if (p > 0) return x.norm(ord, dims, keepdim);
  return x.abs().pow(p).sum(dims, keepdim).pow(1.0 / p);
}

/// matrix_norm's two dims of x, wrapped and checked.
static std::pair<int64_t, int64_t> matrix_dims(const char* op, const Tensor& x, IntArrayRef dim) {
  if (x.dim() < 2)
    throw Error(tag(op) + "the input must have at least 2 dimensions, got shape " + ops::shape_str(x.sizes()) + ".");
  if (dim.size() != 2) throw Error(tag(op) + "dim must be a 2-tuple, got " + ops::shape_str(dim) + ".");
  int64_t d0 = detail::wrap_dim(dim[0], x.dim(), op), d1 = detail::wrap_dim(dim[1], x.dim(), op);
  if (d0 == d1) throw Error(tag(op) + "dims must be different, got " + ops::shape_str(dim) + ".");
  return {d0, d1};
}

Tensor matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* op = "linalg.matrix_norm";
  Tensor x = norm_input(op, self, dtype);
  const auto [d0, d1] = matrix_dims(op, x, dim);
  const double p = ord.toDouble();
  if (p == 2 || p == -2) return linalg_detail::svd_matrix_norm(x, d0, d1, p, false, keepdim);
  if (!(std::abs(p) == 1 || std::isinf(p)))
    throw Error(tag(op) + "order " + std::to_string(p) + " is not supported; use 'fro', 'nuc', 2, -2, 1, -1, inf or "
                "-inf.");
  // |1|: max/min over columns (d1) of the sums over rows (d0); inf: the other way round.
  int64_t sum_dim = std::abs(p) == 1 ? d0 : d1, ext_dim = std::abs(p) == 1 ? d1 : d0;
  Tensor s = x.abs().sum({sum_dim}, true);
  Tensor r = p > 0 ? s.amax({ext_dim}, true) : s.amin({ext_dim}, true);
  if (!keepdim) r = r.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
  return r;
}

Tensor matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* op = "linalg.matrix_norm";
  if (ord != "fro" && ord != "nuc")
    throw Error(tag(op) + "ord must be 'fro', 'nuc' or a number, got '" + std::string(ord) + "'.");
  Tensor x = norm_input(op, self, dtype);
  const auto [d0, d1] = matrix_dims(op, x, dim);
  if (ord == "nuc") return linalg_detail::svd_matrix_norm(x, d0, d1, 0, true, keepdim);
  return x.norm(2, {d0, d1}, keepdim);
}

Tensor matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return matrix_norm(self, std::string_view(ord), dim, keepdim, dtype);
}

Tensor norm(const Tensor& self, const std::optional<Scalar>& ord, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  if (dim) {
    if (dim->size() == 2) return ord ? matrix_norm(self, *ord, *dim, keepdim, dtype)
                                     : matrix_norm(self, "fro", *dim, keepdim, dtype);
    if (dim->size() != 1)
      throw Error("[linalg.norm] dim must be one or two dims, got " + ops::shape_str(*dim) + ".");
    return vector_norm(self, ord.value_or(Scalar(2)), dim, keepdim, dtype);
  }
  if (!ord) return vector_norm(self, 2, std::nullopt, keepdim, dtype);
  if (self.dim() == 2) return matrix_norm(self, *ord, {-2, -1}, keepdim, dtype);
  if (self.dim() != 1)
    throw Error("[linalg.norm] without dim, an ord needs a 1-D or 2-D input, got " + std::to_string(self.dim()) +
                "-D; pass dim.");
  return vector_norm(self, *ord, std::nullopt, keepdim, dtype);
}

Tensor norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  if (dim) return matrix_norm(self, ord, *dim, keepdim, dtype);
  if (self.dim() != 2)
    throw Error("[linalg.norm] ord '" + std::string(ord) + "' without dim needs a 2-D input, got " +
                std::to_string(self.dim()) + "-D; pass dim.");
  return matrix_norm(self, ord, {-2, -1}, keepdim, dtype);
}

Tensor norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  return norm(self, std::string_view(ord), dim, keepdim, dtype);
}

}  // namespace linalg

// ---- top-level spellings ---------------------------------------------------------------------------

Tensor Tensor::inverse() const { return linalg::inv(*this); }
Tensor Tensor::det() const { return linalg::det(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return linalg::slogdet(*this); }
Tensor Tensor::logdet() const {
  // log(det): NaN for a negative determinant, -inf for a singular matrix
  auto [sign, logabs] = linalg::slogdet(*this);
  return locus::where(sign.lt(0), full({}, std::numeric_limits<double>::quiet_NaN(), logabs.options()), logabs);
}

Tensor inverse(const Tensor& self) { return self.inverse(); }
Tensor det(const Tensor& self) { return self.det(); }
Tensor logdet(const Tensor& self) { return self.logdet(); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return self.slogdet(); }

Tensor linalg_inv(const Tensor& A) { return linalg::inv(A); }
Tensor linalg_det(const Tensor& A) { return linalg::det(A); }
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) { return linalg::slogdet(A); }
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) { return linalg::solve(A, B, left); }

Tensor linalg::solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  if (!A.defined() || !B.defined()) throw Error("[solve_triangular] an argument is undefined.");
  if (A.dim() < 2 || A.size(-1) != A.size(-2))
    throw Error("[solve_triangular] A must be a batch of square matrices, got shape " + ops::shape_str(A.sizes()) + ".");
  if (B.dim() < 2)
    throw Error("[solve_triangular] B must have at least 2 dims, got shape " + ops::shape_str(B.sizes()) + ".");
  Tensor T = upper ? A.triu() : A.tril();
  if (unitriangular) {
    const int64_t n = A.size(-1);
    Tensor eye_n = eye(n, TensorOptions().dtype(A.scalar_type()).device(A.device()));
    T = T * (1 - eye_n) + eye_n;  // the diagonal read as ones, its stored values ignored
  }
  return linalg::solve(T, B, left);
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return linalg::solve_triangular(A, B, upper, left, unitriangular);
}

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  if (!A.defined() || !b.defined()) throw Error("[triangular_solve] an argument is undefined.");
  if (A.dim() < 2) throw Error("[triangular_solve] A must have at least 2 dims, got shape " + ops::shape_str(A.sizes()) + ".");
  // op(A) = A^T is triangular the other way round
  Tensor X = transpose ? linalg::solve_triangular(A.transpose(-2, -1), b, !upper, true, unitriangular)
                       : linalg::solve_triangular(A, b, upper, true, unitriangular);
  return {X, A.clone()};
}
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return linalg::vector_norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return linalg::matrix_norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return linalg::matrix_norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return linalg::matrix_norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg::norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_norm(const Tensor& self, std::string_view ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg::norm(self, ord, dim, keepdim, dtype);
}
Tensor linalg_norm(const Tensor& self, const char* ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg::norm(self, ord, dim, keepdim, dtype);
}

}  // namespace locus
