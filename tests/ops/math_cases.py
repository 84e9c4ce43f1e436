"""PyTorch 1.13's values for tests/ops/math_test.cpp (each block is pasted there under the same
name). Run with /usr/bin/python3 (the python with torch): prints C++ initialisers.

Inputs are float64 so that the printed values are exact to 17 digits; the test compares float64
results to them tightly and float32 results loosely."""
import textwrap

import torch

torch.set_printoptions(precision=17)
inf = float("inf")
nan = float("nan")


def cpp(vals):
    out = []
    for v in vals:
        v = float(v)
        if v != v:
            out.append("kNan")
        elif v == inf:
            out.append("kInf")
        elif v == -inf:
            out.append("-kInf")
        else:
            out.append(repr(v))
    return "{" + ", ".join(out) + "}"


def show(name, t):
    text = f"{{\"{name}\", {cpp(t.flatten().tolist())}}},"
    print("\n".join(textwrap.wrap(text, width=116, subsequent_indent="     ", break_long_words=False)))


d = torch.float64
X = torch.tensor([-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.0, 7.25], dtype=d)  # UNARY_X in the test
unary = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log10", "trunc", "frac",
         "erfc", "erfinv", "lgamma", "digamma", "logit", "sinc", "deg2rad", "rad2deg"]
print("// ---- unary values on UNARY_X")
for n in unary:
    show(n, getattr(torch, n)(X))
show("logit_eps", torch.logit(X, eps=0.25))
show("signbit", torch.signbit(X).to(d))

# edge cases PyTorch defines
show("edges_asin", torch.asin(torch.tensor([2.0, -2.0, 1.0, -1.0], dtype=d)))
show("edges_atanh", torch.atanh(torch.tensor([1.0, -1.0, 2.0], dtype=d)))
show("edges_acosh", torch.acosh(torch.tensor([1.0, 0.5, inf], dtype=d)))
show("edges_erfinv", torch.erfinv(torch.tensor([1.0, -1.0, 1.5, 0.999, -0.9999999], dtype=d)))
show("edges_lgamma", torch.lgamma(torch.tensor([-0.5, -1.0, -2.5, 0.0, 1e-3, 100.0, -inf, inf], dtype=d)))
show("edges_digamma", torch.digamma(torch.tensor([0.0, -0.0, -1.0, -2.5, 1.0, 10.0, 1e-3, 123.4], dtype=d)))
show("polygamma1", torch.polygamma(1, torch.tensor([-2.5, -1.0, -0.5, 0.0, 0.3, 1.0, 2.0, 7.25, 1e-3, 123.4], dtype=d)))
show("edges_trunc", torch.trunc(torch.tensor([-2.7, 2.7, -0.2, inf, -inf], dtype=d)))

# binary
A = torch.tensor([7.5, -7.5, 7.5, -7.5, 5.0, -5.0, 0.0, 3.0], dtype=d)
B = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, 0.0], dtype=d)
print("// ---- binary values on (BIN_A, BIN_B)")
show("hypot", torch.hypot(A, B))
show("fmod", torch.fmod(A, B))
show("remainder", torch.remainder(A, B))
show("copysign", torch.copysign(A, B))
show("xlogy", torch.xlogy(A, B))
show("div_trunc", torch.div(A, B, rounding_mode="trunc"))
show("div_floor", torch.div(A, B, rounding_mode="floor"))
show("fmod_scalar", torch.fmod(A, -2.5))
show("xlogy_edges",
     torch.xlogy(torch.tensor([0.0, 0.0, 0.0, 2.0], dtype=d), torch.tensor([0.0, nan, 5.0, 0.0], dtype=d)))
show("copysign_zero", torch.copysign(torch.tensor([1.0, 1.0], dtype=d), torch.tensor([-0.0, 0.0], dtype=d)))
I = torch.tensor([7, -7, 7, -7, 6, -6, 0, 5])
J = torch.tensor([2, 2, -2, -2, 3, 3, 2, 1])
print("// ---- integer binary (BIN_I, BIN_J), results stay int64")
show("int_div_trunc", torch.div(I, J, rounding_mode="trunc"))
show("int_div_floor", torch.div(I, J, rounding_mode="floor"))
show("int_fmod", torch.fmod(I, J))
show("int_remainder", torch.remainder(I, J))
show("int_floor_divide", torch.floor_divide(I, J))
show("pow_scalar_base", torch.pow(2, torch.tensor([0, 1, 5, 10])))
show("pow_scalar_base_f", torch.pow(2.5, torch.tensor([-1.0, 0.5, 2.0], dtype=d)))
show("float_power", torch.float_power(torch.tensor([2, 3]), torch.tensor([0.5, 2.0])))
show("ldexp", torch.ldexp(torch.tensor([1.0, -3.0, 0.5], dtype=d), torch.tensor([3, -1, 4])))
show("nextafter_up", torch.nextafter(torch.tensor([1.0, 0.0], dtype=d), torch.tensor([2.0, -1.0], dtype=d)))
show("nextafter_f32", torch.nextafter(torch.tensor([1.0, 0.0]), torch.tensor([2.0, 1.0])).to(d))

# integer promotion
show("int_tan", torch.tan(torch.tensor([1, 2])).to(d))
show("int_copysign", torch.copysign(torch.tensor([1, 2]), torch.tensor([-1, 1])).to(d))


# gradients (first order) at G_X for unary ops, and second order where locus supports it
def grad(fn, x):
    x = x.clone().requires_grad_(True)
    y = fn(x)
    (g,) = torch.autograd.grad(y.sum(), x)
    return g


def grad2(fn, x):
    x = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    return gg


GX = torch.tensor([-0.7, -0.2, 0.3, 0.6], dtype=d)  # G_X in the test
GP = torch.tensor([1.5, 2.0, 3.25, 4.0], dtype=d)  # G_P (acosh, lgamma, digamma, log10)
print("// ---- gradients")
for n in ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "trunc", "frac", "erfc", "erfinv",
          "sinc", "deg2rad", "rad2deg"]:
    show("grad_" + n, grad(getattr(torch, n), GX))
for n in ["acosh", "log10", "lgamma", "digamma"]:
    show("grad_" + n, grad(getattr(torch, n), GP))
show("grad_logit", grad(lambda x: torch.logit(x), GX.abs()))
show("grad_logit_eps", grad(lambda x: torch.logit(x, eps=0.25), GX.abs()))
show("grad_sinc0", grad(torch.sinc, torch.tensor([0.0, 1.0], dtype=d)))
for n in ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erfc", "erfinv"]:
    show("grad2_" + n, grad2(getattr(torch, n), GX))
show("grad2_acosh", grad2(torch.acosh, GP))
show("grad2_log10", grad2(torch.log10, GP))
show("grad2_lgamma", grad2(torch.lgamma, GP))


def grad_bin(fn, a, b):
    a = a.clone().requires_grad_(True)
    b = b.clone().requires_grad_(True)
    ga, gb = torch.autograd.grad(fn(a, b).sum(), (a, b), allow_unused=True)
    return ga, (gb if gb is not None else torch.zeros_like(b))


GA = torch.tensor([1.5, -2.0, 0.0, 3.0], dtype=d)
GB = torch.tensor([0.5, 3.0, 2.0, -4.0], dtype=d)
for n in ["hypot", "fmod", "copysign", "xlogy", "remainder"]:
    ga, gb = grad_bin(getattr(torch, n), GA, GB)
    show(f"grad_{n}_a", ga)
    show(f"grad_{n}_b", gb)
ga, gb = grad_bin(lambda a, b: torch.div(a, b, rounding_mode="floor"), GA, GB)
show("grad_div_floor_a", ga)
show("grad_div_floor_b", gb)
