# Prints the expected gradients of tests/autograd/inplace_test.cpp with PyTorch 1.13:
#   /usr/bin/python3 tests/autograd/inplace_cases.py
import torch
torch.set_printoptions(precision=10)
def leaves():
    x = torch.tensor([-1.0, 0.5, 2.0, 1.5], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([3.0, -2.0, 0.5, 1.25], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([0.25, 1.5, -0.75, 2.0], dtype=torch.float64, requires_grad=True)
    return x, w, v
def show(name, *ts):
    print(name, [[round(float(e), 10) for e in t.grad] for t in ts])
# a residual block's in-place add, then an in-place relu on the sum
x, w, v = leaves(); y = x * w; y += v; y = y.relu_(); (y * y).sum().backward(); show("residual", x, w, v)
# accumulating into a tensor that does not require grad
x, w, v = leaves(); acc = torch.zeros(4, dtype=torch.float64); acc += x * x; acc.add_(w, alpha=2); (acc * v).sum().backward(); show("accumulate", x, w, v)
# ops whose formulas read self: mul_, div_, pow_, clamp_, then unary ones saving their result
x, w, v = leaves(); y = x * 1; y.mul_(w); y.div_(v); y.pow_(2); y.clamp_(-3, 3); (y * v).sum().backward(); show("binary", x, w, v)
# (PyTorch refuses this chain in place: each op saves its result, which the next one overwrites;
# locus's in-place ops save a copy of their result, so the chain is the out-of-place one below)
x, w, v = leaves(); y = (x * w).sigmoid().tanh().exp() - v; (y * y).sum().backward(); show("unary", x, w, v)
# masked_fill_ and copy_ into a tensor of the graph, copy_ from one
x, w, v = leaves(); y = x * w; y.masked_fill_(y > 0, 0.5); y.mul_(v); y.sum().backward(); show("masked_fill", x, w, v)
x, w, v = leaves(); y = x * 1; y.copy_(w * 2); (y * v).sum().backward(); show("copy_into", x, w, v)
x, w, v = leaves(); y = torch.empty(4, dtype=torch.float64); y.copy_(w); y.mul_(x); y.sum().backward(); show("copy_from", x, w)
