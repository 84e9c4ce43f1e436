"""PyTorch 1.13's values for tests/ops/more_ops_test.cpp (each block is pasted there under the same
name). Run with /usr/bin/python3 (the python with torch): prints C++ initialisers (float64 inputs,
values flattened row-major; gradients are of sum(out * W) with W = arange(1, numel + 1))."""
import textwrap

import torch

torch.set_printoptions(precision=17)
nan = float("nan")
d = torch.float64


def cpp(vals):
    out = []
    for v in vals:
        v = float(v)
        out.append("kNan" if v != v else repr(v))
    return "{" + ", ".join(out) + "}"


def show(name, t):
    text = f"{{\"{name}\", {cpp(t.detach().flatten().tolist())}}},"
    print("\n".join(textwrap.wrap(text, width=116, subsequent_indent="     ", break_long_words=False)))


def grad_of(f, *xs):
    xs = [x.clone().requires_grad_(True) for x in xs]
    y = f(*xs)
    w = torch.arange(1, y.numel() + 1, dtype=d).reshape(y.shape)
    (y * w).sum().backward()
    return [x.grad for x in xs]


P = torch.tensor([[2.0, 0.0, 3.0, -1.0], [0.0, 0.0, 4.0, 2.0], [1.0, 2.0, 3.0, 0.5]], dtype=d)  # kP in the test
N = torch.tensor([[1.0, nan, 3.0], [nan, nan, 2.0]], dtype=d)  # kN in the test
show("prod1", P.prod(1))
show("prod0 keepdim", P.prod(0, keepdim=True))
show("prod1 grad", grad_of(lambda x: x.prod(1), P)[0])
show("prod0 grad", grad_of(lambda x: x.prod(0), P)[0])
show("prod all grad", grad_of(lambda x: x.prod(), P)[0])
show("prod row grad", grad_of(lambda x: x[2].prod(), P)[0])
show("nansum", N.nansum())
show("nansum1", N.nansum(1))
show("nansum0 keepdim", N.nansum(0, keepdim=True))
show("nanmean", N.nanmean())
show("nanmean1", N.nanmean(1))
show("nanmean0", N.nanmean(0))
show("nansum1 grad", grad_of(lambda x: x.nansum(1), N)[0])
show("nanmean1 grad", grad_of(lambda x: x.nanmean(1), N)[0])
show("nanmean0 grad", grad_of(lambda x: x.nanmean(0), N)[0])

X = torch.arange(12, dtype=d).reshape(3, 4)  # kX: arange(12).reshape({3, 4})
show("index_fill1", X.index_fill(1, torch.tensor([0, -1]), -5.0))
show("index_fill0 grad", grad_of(lambda x: x.index_fill(0, torch.tensor([1]), 2.0), X)[0])
v = torch.tensor(7.0, dtype=d)
show("index_fill tensor value grad", grad_of(lambda x, v: x.index_fill(1, torch.tensor([1, 2]), v), X, v)[1])
M = torch.tensor([[True, False, True, False], [False, False, False, True], [True, True, False, False]])
S = torch.arange(100, 112, dtype=d)
show("masked_scatter", X.masked_scatter(M, S))
g = grad_of(lambda x, s: x.masked_scatter(M, s), X, S)
show("masked_scatter grad self", g[0])
show("masked_scatter grad source", g[1])
show("masked_scatter broadcast", X.masked_scatter(torch.tensor([True, False, False, True]), S))
show("take", X.take(torch.tensor([[0, -1], [5, 5]])))
show("take grad", grad_of(lambda x: x.take(torch.tensor([[0, -1], [5, 5]])), X)[0])
show("put", X.put(torch.tensor([1, -2, 5]), torch.tensor([9.0, 8.0, 7.0], dtype=d)))
show("put accumulate", X.put(torch.tensor([1, 1, 5]), torch.tensor([9.0, 8.0, 7.0], dtype=d), accumulate=True))
g = grad_of(lambda x, s: x.put(torch.tensor([1, 11, 5]), s), X, torch.tensor([9.0, 8.0, 7.0], dtype=d))
show("put grad self", g[0])
show("put grad source", g[1])
R = torch.tensor([-2.345, -0.5, 0.5, 1.5, 2.5, 12.3456, 1234.5, -1250.0], dtype=d)
show("round2", R.round(decimals=2))
show("round-2", R.round(decimals=-2))
show("round2 float", R.float().round(decimals=2).double())
A = torch.tensor([1.0, nan, 3.0, nan, -0.0, 2.0], dtype=d)
B = torch.tensor([2.0, 5.0, nan, nan, 0.0, 2.0], dtype=d)
show("fmax", torch.fmax(A, B))
show("fmin", torch.fmin(A, B))
A2 = torch.tensor([1.0, 4.0, 3.0, 2.0], dtype=d)
B2 = torch.tensor([2.0, 5.0, 1.0, 2.0], dtype=d)
g = grad_of(torch.fmax, A2, B2)
show("fmax grad a", g[0])
show("fmax grad b", g[1])
g = grad_of(torch.fmin, A2, B2)
show("fmin grad a", g[0])
show("fmin grad b", g[1])
show("renorm", X.renorm(2, 0, 5.0))
show("renorm p1 dim1", X.renorm(1, 1, 10.0))
show("renorm inf dim1", X.renorm(float("inf"), 1, 4.0))
show("renorm grad", grad_of(lambda x: x.renorm(2, 0, 5.0), X)[0])
c = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=d)
show("combinations2", torch.combinations(c))
show("combinations3", torch.combinations(c, 3))
show("combinations2 replace", torch.combinations(c[:3], 2, with_replacement=True))
show("combinations grad", grad_of(lambda x: torch.combinations(x), c)[0])
Q = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=d)
show("matrix_power3", torch.matrix_power(Q, 3))
show("matrix_power-2", torch.matrix_power(Q, -2))
show("matrix_power3 grad", grad_of(lambda x: torch.matrix_power(x, 3), Q)[0])
m1 = torch.arange(6, dtype=d).reshape(2, 3) / 4
m2 = torch.arange(12, dtype=d).reshape(3, 4) / 5 - 1
m3 = torch.arange(8, dtype=d).reshape(4, 2) - 3
show("multi_dot", torch.linalg.multi_dot([m1, m2, m3]))
show("multi_dot 1d", torch.linalg.multi_dot([torch.tensor([1.0, -1.0], dtype=d), m1, m2, torch.ones(4, dtype=d)]))
g = grad_of(lambda a, b, c: torch.linalg.multi_dot([a, b, c]), m1, m2, m3)
show("multi_dot grad 1", g[1])
b1 = torch.arange(12, dtype=d).reshape(2, 2, 3) / 3
b2 = torch.arange(18, dtype=d).reshape(2, 3, 3) / 7 - 1
s = torch.ones(2, 3, dtype=d)
show("baddbmm", torch.baddbmm(s, b1, b2, beta=0.5, alpha=2))
show("addbmm", torch.addbmm(s, b1, b2, beta=0.5, alpha=2))
g = grad_of(lambda s, a, b: torch.addbmm(s, a, b, beta=0.5, alpha=2), s, b1, b2)
show("addbmm grad b1", g[1])
show("addmv", torch.addmv(torch.tensor([1.0, -1.0], dtype=d), m1, torch.tensor([1.0, 2.0, 3.0], dtype=d),
                          beta=2, alpha=-1))
show("addr", torch.addr(torch.ones(2, 3, dtype=d), torch.tensor([1.0, 2.0], dtype=d),
                        torch.tensor([3.0, 4.0, 5.0], dtype=d), alpha=0.5))
vx = torch.tensor([2.0, 0.0, -1.5], dtype=d)
show("vander", torch.vander(vx))
show("vander N4 increasing", torch.vander(vx, N=4, increasing=True))
# PyTorch 1.13's own vander backward fails (an in-place cumprod); the powers spelled out instead
show("vander grad", grad_of(lambda x: torch.stack([x ** 3, x ** 2, x, torch.ones_like(x)], 1), vx)[0])
show("vander int", torch.vander(torch.tensor([2, 3])))
x1 = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]], dtype=d)
x2 = torch.tensor([[2.0, 1.0, 0.0], [1.0, 1.0, 1.0]], dtype=d)
show("cosine_similarity", torch.cosine_similarity(x1, x2))
show("cosine_similarity dim0", torch.cosine_similarity(x1, x2, 0))
show("pairwise_distance", torch.pairwise_distance(x1, x2))
show("pairwise_distance p1 keepdim", torch.pairwise_distance(x1, x2, 1.0, 1e-6, True))
show("frobenius_norm", torch.frobenius_norm(x1))
show("frobenius_norm dim1", torch.frobenius_norm(x1, [1], True))
