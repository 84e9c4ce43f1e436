#!/usr/bin/python3
"""Second derivatives through ops whose backward uses their saved result (tests/autograd/
second_order_test.cpp): for x = [0.3, 0.7, 1.2] (float64), y = f(x), g = d sum(y * y) / dx with
create_graph, then h = d sum(g) / dx. Prints h per op, as PyTorch 1.13 computes it.

    /usr/bin/python3 tests/autograd/second_order_cases.py
"""
import torch
import torch.nn.functional as F

w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
ops = {
    "exp": lambda x: x.exp(),
    "sigmoid": lambda x: x.sigmoid(),
    "tanh": lambda x: x.tanh(),
    "sqrt": lambda x: x.sqrt() + x * x,
    "rsqrt": lambda x: x.rsqrt(),
    "reciprocal": lambda x: x.reciprocal(),
    "expm1": lambda x: x.expm1(),
    "exp2": lambda x: x.exp2(),
    "pow_tensor": lambda x: torch.pow(x, x),
    "softmax": lambda x: (x * w).softmax(0) * w,
    "log_softmax": lambda x: (x * w).log_softmax(0) * w,
    "prod": lambda x: x.prod() * x,
    "norm": lambda x: x.norm() * x,
    "logsumexp": lambda x: x.logsumexp(0) * x,
    "elu": lambda x: F.elu(x - 1),
    "softplus": lambda x: F.softplus(x),
    "gelu": lambda x: F.gelu(x),
    "silu": lambda x: F.silu(x),
    "logsigmoid": lambda x: F.logsigmoid(x),
}
for name, f in ops.items():
    x = torch.tensor([0.3, 0.7, 1.2], dtype=torch.float64, requires_grad=True)
    y = f(x)
    (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    print('{"%s", {%s}},' % (name, ", ".join(repr(v) for v in h.tolist())))
