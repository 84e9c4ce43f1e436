#pragma once
// torch::special, as libtorch 1.13's torch/special.h: the special functions of scipy.special.
//
// Most are made of differentiable locus ops and run on the tensor's device (ndtr, ndtri,
// log_ndtr, entr, xlog1py, multigammaln, expit, ...). The ones with no closed form in those ops
// (i0, i0e, i1, i1e, erfcx, zeta, polygamma for n >= 2, gammainc / gammaincc, the Bessel
// functions and the orthogonal polynomials) are evaluated in float64 on a host copy and the result
// copied back to the tensor's device, in its dtype (integer inputs give the default float dtype).
// Gradients as PyTorch's: i0, i0e, i1, i1e, erfcx, polygamma, zeta (in its second argument),
// gammainc / gammaincc (in their second argument); the Bessel functions and polynomials are not
// differentiable, as in PyTorch 1.13 (a backward through them throws, naming the function).
#include <cstdint>
#include <optional>

#include "locus/tensor.h"

namespace locus {
namespace special {

Tensor gammaln(const Tensor& self);
Tensor gammainc(const Tensor& self, const Tensor& other);
Tensor gammaincc(const Tensor& self, const Tensor& other);
Tensor multigammaln(const Tensor& self, int64_t p);
Tensor polygamma(int64_t n, const Tensor& self);
Tensor psi(const Tensor& self);
Tensor digamma(const Tensor& self);
Tensor entr(const Tensor& self);
Tensor erf(const Tensor& self);
Tensor erfc(const Tensor& self);
Tensor erfcx(const Tensor& self);
Tensor erfinv(const Tensor& self);
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false);
Tensor ndtri(const Tensor& self);
Tensor log_ndtr(const Tensor& self);
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor expit(const Tensor& self);
Tensor exp2(const Tensor& self);
Tensor expm1(const Tensor& self);
Tensor xlogy(const Tensor& self, const Tensor& other);
Tensor xlogy(const Scalar& self, const Tensor& other);
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlog1py(const Tensor& self, const Tensor& other);
Tensor xlog1py(const Scalar& self, const Tensor& other);
Tensor xlog1py(const Tensor& self, const Scalar& other);
/// The Hurwitz zeta function sum_k (q + k)^-x.
Tensor zeta(const Tensor& self, const Tensor& other);
Tensor zeta(const Scalar& self, const Tensor& other);
Tensor zeta(const Tensor& self, const Scalar& other);
Tensor i0(const Tensor& self);
Tensor ndtr(const Tensor& self);
Tensor i0e(const Tensor& self);
Tensor i1(const Tensor& self);
Tensor i1e(const Tensor& self);
Tensor sinc(const Tensor& self);
Tensor round(const Tensor& self);
Tensor log1p(const Tensor& self);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor bessel_j0(const Tensor& self);
Tensor bessel_j1(const Tensor& self);
Tensor bessel_y0(const Tensor& self);
Tensor bessel_y1(const Tensor& self);
Tensor modified_bessel_i0(const Tensor& self);
Tensor modified_bessel_i1(const Tensor& self);
Tensor modified_bessel_k0(const Tensor& self);
Tensor modified_bessel_k1(const Tensor& self);
Tensor scaled_modified_bessel_k0(const Tensor& x);
Tensor scaled_modified_bessel_k1(const Tensor& x);
Tensor spherical_bessel_j0(const Tensor& x);
/// Orthogonal polynomials of integer degree n (n < 0 gives 0), elementwise with broadcasting.
#define LOCUS_SPECIAL_POLYNOMIAL(name)             \
  Tensor name(const Tensor& x, const Tensor& n);   \
  Tensor name(const Scalar& x, const Tensor& n);   \
  Tensor name(const Tensor& x, const Scalar& n);
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v)
LOCUS_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v)
LOCUS_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w)
LOCUS_SPECIAL_POLYNOMIAL(hermite_polynomial_h)
LOCUS_SPECIAL_POLYNOMIAL(hermite_polynomial_he)
LOCUS_SPECIAL_POLYNOMIAL(laguerre_polynomial_l)
LOCUS_SPECIAL_POLYNOMIAL(legendre_polynomial_p)
#undef LOCUS_SPECIAL_POLYNOMIAL

}  // namespace special
}  // namespace locus
