# Prints the expected values of tests/ops/special_test.cpp with PyTorch 1.13:
#   /usr/bin/python3 tests/ops/special_cases.py
import torch
torch.set_printoptions(precision=17)
d = torch.float64
x = torch.tensor([-3.5, -1.0, -0.25, 0.0, 0.5, 2.0, 7.5, 30.0], dtype=d)
pos = torch.tensor([0.25, 1.0, 2.5, 6.0, 40.0], dtype=d)
p = torch.tensor([0.001, 0.1, 0.5, 0.8, 0.999], dtype=d)
import mpmath
mpmath.mp.dps = 40
def mp(f, *ts):  # an mpmath reference where PyTorch 1.13's float64 kernels are off (by up to 3e-8)
    return torch.tensor([float(f(*[float(v) for v in vs])) for vs in zip(*[t.flatten() for t in ts])], dtype=d)
def show(name, t):
    print('{"%s", {%s}},' % (name, ", ".join(repr(float(v)).replace('inf', 'kInf') for v in t.flatten())))
S = torch.special
# bessel_j0 / j1 / y0 / y1 and gammainc / gammaincc: PyTorch 1.13 gives J0(7.5) = 0.26633966007879
# against 0.26633965788038 (mpmath), Y0(6) off by 3e-8, P(40, 45) off by 2e-10: mpmath's values
show("bessel_j0", mp(lambda v: mpmath.besselj(0, v), x))
show("bessel_j1", mp(lambda v: mpmath.besselj(1, v), x))
for n in ["i0", "i0e", "i1", "i1e", "erfcx", "ndtr", "log_ndtr", "modified_bessel_i0",
          "modified_bessel_i1", "spherical_bessel_j0", "entr", "expit", "sinc"]:
    show(n, getattr(S, n)(x))
show("bessel_y0", mp(lambda v: mpmath.bessely(0, v), pos))
show("bessel_y1", mp(lambda v: mpmath.bessely(1, v), pos))
for n in ["modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
          "scaled_modified_bessel_k1"]:
    show(n, getattr(S, n)(pos))
show("ndtri", S.ndtri(p))
show("zeta", S.zeta(torch.tensor([2.0, 3.5, 1.5, 4.0, 2.0], dtype=d), pos))
gx = torch.tensor([0.5, 2.0, 2.5, 3.0, 45.0], dtype=d)
show("gammainc", mp(lambda a, v: mpmath.gammainc(a, 0, v, regularized=True), pos, gx))
show("gammaincc", mp(lambda a, v: mpmath.gammainc(a, v, mpmath.inf, regularized=True), pos, gx))
show("multigammaln", S.multigammaln(torch.tensor([1.5, 2.0, 4.25], dtype=d), 3))
show("xlog1py", S.xlog1py(torch.tensor([0.0, 1.5, -2.0, 3.0], dtype=d), torch.tensor([-1.0, 0.5, 2.0, -0.5], dtype=d)))
show("polygamma3", torch.polygamma(3, pos))
n = torch.tensor([0.0, 1.0, 2.0, 5.0, 9.0], dtype=d)
xp = torch.tensor([-0.7, 0.3, 1.0, -1.0, 0.45], dtype=d)
for name in ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
             "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
             "laguerre_polynomial_l", "legendre_polynomial_p"]:
    show(name, getattr(S, name)(xp, n))
# gradients
g = torch.tensor([-2.0, -0.5, 0.75, 3.0], dtype=d, requires_grad=True)
for name in ["i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr", "ndtr"]:
    g.grad = None
    getattr(S, name)(g).sum().backward()
    show("grad_" + name, g.grad)
q = torch.tensor([0.5, 1.5, 3.0], dtype=d, requires_grad=True)
S.zeta(torch.tensor([2.0, 3.0, 4.5], dtype=d), q).sum().backward(); show("grad_zeta_q", q.grad)
q.grad = None; S.gammainc(torch.tensor([0.5, 2.0, 3.5], dtype=d), q).sum().backward(); show("grad_gammainc_x", q.grad)
q.grad = None; S.multigammaln(q + 2, 2).sum().backward(); show("grad_multigammaln", q.grad)
