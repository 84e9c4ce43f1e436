# Prints the expected gradients of tests/autograd/inplace_view_test.cpp with PyTorch 1.13:
#   /usr/bin/python3 tests/autograd/inplace_view_cases.py
import torch
torch.set_printoptions(precision=10)
f64 = torch.float64
def leaves():
    x = torch.tensor([-1.0, 0.5, 2.0, 1.5], dtype=f64, requires_grad=True)
    w = torch.tensor([3.0, -2.0, 0.5, 1.25], dtype=f64, requires_grad=True)
    v = torch.tensor([0.25, 1.5, -0.75, 2.0], dtype=f64, requires_grad=True)
    return x, w, v
def show(name, *ts):
    print(name, [[round(float(e), 10) for e in (t.grad if t.grad is not None else torch.zeros(4))] for t in ts])
# an RNN's loop writing each step into a preallocated tensor: outputs[t] = h
x, w, v = leaves(); out = torch.zeros(3, 4, dtype=f64); h = x
for t in range(3):
    h = torch.tanh(h * w + v); out[t] = h
(out * torch.arange(12, dtype=f64).reshape(3, 4) / 10).sum().backward(); show("rnn_loop", x, w, v)
# an in-place op on a view of a graph tensor, reading the view's old values
x, w, v = leaves(); y = x * 1; y[1:3].mul_(w[1:3]); (y * v).sum().backward(); show("view_mul", x, w, v)
# copy_ into a view of a graph tensor
x, w, v = leaves(); y = x * 2; y[0:2].copy_(w[2:4] * v[0:2]); (y * y).sum().backward(); show("view_copy", x, w, v)
# index_put_ with a tensor index, then accumulating
x, w, v = leaves(); y = torch.zeros(4, dtype=f64); y.index_put_((torch.tensor([3, 1]),), x[0:2] * w[0:2]); (y * v).sum().backward(); show("index_put", x, w, v)
x, w, v = leaves(); y = x * 1; y.index_put_((torch.tensor([0, 0, 2]),), w[0:3], accumulate=True); (y * y * v).sum().backward(); show("index_put_acc", x, w, v)
# fill_ on a graph tensor, a scalar written into a slice of one
x, w, v = leaves(); y = x * w; y.fill_(2); (y * v).sum().backward(); show("fill", x, w)
x, w, v = leaves(); y = x * w; y[1:3] = 0; (y * v).sum().backward(); show("slice_zero", x, w, v)
# scatter_, scatter_add_, index_add_ on graph tensors
x, w, v = leaves(); y = x * 1; y.scatter_(0, torch.tensor([1, 3]), w[0:2]); (y * v).sum().backward(); show("scatter", x, w, v)
x, w, v = leaves(); y = x * x; y.scatter_add_(0, torch.tensor([2, 2]), w[0:2] * v[0:2]); (y * v).sum().backward(); show("scatter_add", x, w, v)
x, w, v = leaves(); y = x * 1; y.index_add_(0, torch.tensor([0, 0, 2]), w[0:3], alpha=2); (y * y).sum().backward(); show("index_add", x, w)
# a view taken before its base was changed in place: its history is its base's new one
x, w, v = leaves(); y = x * 1; r = y[0:2]; y.mul_(w); (r * v[0:2]).sum().backward(); show("stale_view", x, w, v)
# a view taken before its base joined the graph, then modified in place: PyTorch 1.13 refuses it
# ("a leaf Variable that requires grad is being used in an in-place operation"); locus records it
# (the view is put in its base's graph first), so the gradients are those of the same values
# computed out of place
x, w, v = leaves(); out = torch.cat([x[0:2] * w[0:2], torch.zeros(2, dtype=f64)]); (out * v).sum().backward(); show("stale_plain_view", x, w, v)
# second derivative through a slice
x, w, v = leaves(); g, = torch.autograd.grad(x[1:3].pow(2).sum(), x, create_graph=True); (g * g * v).sum().backward(); show("double_slice", x)
# a view of a view, select then narrow, and a transposed view of a 2-D base
x, w, v = leaves(); y = (x * 1).reshape(2, 2).clone(); y.t()[1].mul_(w[0:2]); (y.reshape(4) * v).sum().backward(); show("transposed", x, w, v)
# a view taken before its base joined the graph, only read afterwards
x, w, v = leaves(); out = torch.zeros(4, dtype=f64); first = out[0:2]; out[0:2].copy_(x[0:2] * w[0:2]); print("read_view requires_grad", first.requires_grad); (first * v[0:2]).sum().backward(); show("read_view", x, w)
# a view made under no_grad of a graph tensor, modified in place with grad mode on: refused
x, w, v = leaves(); y = x * 1
with torch.no_grad():
    t = y[0:2]
print("no_grad view requires_grad", t.requires_grad)
try:
    t.mul_(w[0:2])
except RuntimeError as e:
    print("no_grad view:", str(e).split(".")[0])
