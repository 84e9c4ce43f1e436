"""PyTorch's results for tests/ops/composite_more_test.cpp (the composed shape ops of
src/ops/composite_more.cpp). Run with /usr/bin/python3 (PyTorch 1.13); prints each case's shape and
values (and gradients where the test compares them) as the test spells them."""
import math
import warnings

import torch

warnings.simplefilter("ignore")
torch.set_printoptions(precision=10)


def v(t):
    t = t.detach().double().flatten().tolist()
    return "V{" + ", ".join(repr(x) if not math.isnan(x) else "nan" for x in t) + "}"


def show(name, t):
    print(f"{name}: shape {list(t.shape)} dtype {t.dtype} {v(t)}")


def grad(name, f, *inputs):
    xs = [x.clone().double().requires_grad_(True) for x in inputs]
    out = f(*xs)
    w = (torch.arange(out.numel(), dtype=torch.double) * 0.37 + 0.5).sin().reshape(out.shape)
    (out * w).sum().backward()
    for i, x in enumerate(xs):
        print(f"{name} grad{i}: {v(x.grad)}")


x = torch.tensor([1., 2., 3.])
show("broadcast_to", torch.broadcast_to(x, (2, 3)))
a, b = torch.broadcast_tensors(torch.tensor([[1.], [2.], [3.]]), torch.tensor([4., 5., 6., 7.]))
show("broadcast_tensors0", a)
show("broadcast_tensors1", b)

g = torch.meshgrid(torch.tensor([1, 2, 3]), torch.tensor([4, 5]), indexing="ij")
show("meshgrid_ij0", g[0]); show("meshgrid_ij1", g[1])
g = torch.meshgrid(torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor(7), indexing="xy")
show("meshgrid_xy0", g[0]); show("meshgrid_xy1", g[1]); show("meshgrid_xy2", g[2])
show("cartesian_prod", torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])))
show("cartesian_prod3", torch.cartesian_prod(torch.tensor([1., 2.]), torch.tensor([3.]), torch.tensor([5., 6.])))

m = torch.tensor([[1., 2.], [3., 4.]])
show("tile2", m.tile((2,)))
show("tile212", m.tile((2, 1, 2)))

show("unfold", torch.arange(7.).unfold(0, 3, 2))
show("unfold2d", torch.arange(12.).view(3, 4).unfold(1, 2, 1))
show("unfold_dim0", torch.arange(12.).view(3, 4).unfold(0, 2, 1))
grad("unfold", lambda t: t.unfold(0, 3, 1), torch.arange(6.) * 0.5)

y = torch.tensor([1., 4., 9., 16., 25.])
show("diff", torch.diff(y)); show("diff2", torch.diff(y, n=2))
yy = torch.tensor([[1., 2., 4.], [7., 11., 16.]])
show("diff_dim0_pp", torch.diff(yy, dim=0, prepend=torch.tensor([[0., 0., 0.]]), append=torch.tensor([[1., 1., 1.]])))
show("diff_n2_dim1_append", torch.diff(yy, n=2, dim=1, append=torch.tensor([[20.], [30.]])))
show("diff_bool", torch.diff(torch.tensor([True, False, False, True])))
show("diff_long_prepend", torch.diff(torch.tensor([5, 7, 10]), prepend=torch.tensor([1])))
show("diff_n5", torch.diff(y, n=5))

t = torch.arange(24.).view(2, 3, 4)
show("diagonal_1_1_2", t.diagonal(1, 1, 2))
show("diagonal_m1_2_0", t.diagonal(-1, 2, 0))
show("diagonal_default", torch.diagonal(torch.arange(12.).view(3, 4)))
show("diag_embed_1", torch.diag_embed(m, 1))
show("diag_embed_m1_0_2", torch.diag_embed(m, -1, 0, 2))
show("diag_embed_2_0", torch.diag_embed(torch.tensor([[1., 2., 3.]]), 0, 2, 0))
grad("diag_embed", lambda q: torch.diag_embed(q, -1, 0, 2), torch.tensor([[0.5, -1.], [2., 3.]]))

show("kron", torch.kron(m, torch.tensor([[0., 1.], [1., 2.]])))
show("kron_bool", torch.kron(torch.tensor([True, False]), torch.tensor([True, True])))
show("kron_mixed", torch.kron(torch.tensor([1, 2]), torch.tensor([[1, 10], [100, 1000]])))

ca = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
cb = torch.tensor([[7., 8., 9.], [1., 0., -1.]])
show("cross", torch.cross(ca, cb, dim=1))
show("cross_default", torch.cross(ca, cb))
show("cross_dim0", torch.cross(ca.t(), cb.t(), dim=0))
show("cross_bcast", torch.linalg.cross(ca, torch.tensor([[0., 0., 1.]]), dim=1))

ta = torch.arange(24.).view(2, 3, 4)
tb = torch.arange(12.).view(4, 3)
show("tensordot", torch.tensordot(ta, tb, ([1, 2], [1, 0])))
show("tensordot_one", torch.tensordot(ta, tb, ([2], [0])))
show("tensordot_bcast", torch.tensordot(torch.arange(6.).view(2, 3), torch.arange(4.).view(1, 4), ([0], [0])))
show("tensordot_long", torch.tensordot(torch.tensor([[1, 2], [3, 4]]), torch.tensor([5, 6]), ([1], [0])))
show("tensordot_none", torch.tensordot(torch.tensor([1., 2.]), torch.tensor([3., 4., 5.]), ([], [])))

x1 = torch.tensor([[0., 1., 2.], [1., -1., 0.5]])
x2 = torch.tensor([[0., 1., 2.], [2., 0., 0.], [-1., 1., 1.]])
for p in [2., 1., 0., math.inf, 0.5, 3.]:
    show(f"cdist_p{p}", torch.cdist(x1, x2, p=p))
show("cdist_batched", torch.cdist(torch.stack([x1, x1 * 2]), x2.unsqueeze(0)))
for p in [2., 1., 3., 0.5]:
    grad(f"cdist_p{p}", lambda u, w: torch.cdist(u, w, p=p), x1, x2)

show("logspace", torch.logspace(0, 2, 3))
show("logspace_base2", torch.logspace(-1, 3, 5, base=2))
show("logspace_long", torch.logspace(0, 2, 3, dtype=torch.long))
show("logspace_one", torch.logspace(1, 5, 1, base=2))
show("logspace_none", torch.logspace(0, 1, 0))
show("tril_indices", torch.tril_indices(3, 4, 1))
show("triu_indices", torch.triu_indices(4, 3, -1))
show("tril_indices_neg", torch.tril_indices(3, 3, -1))

vm = torch.tensor([[1., 2., 4.], [3., 5., 9.]])
for name, r in [("var_mean", torch.var_mean(vm)), ("var_mean_dim1", torch.var_mean(vm, [1], unbiased=False)),
                ("var_mean_corr", torch.var_mean(vm, [0], correction=0, keepdim=True)),
                ("std_mean", torch.std_mean(vm)), ("std_mean_dim0", torch.std_mean(vm, [0]))]:
    show(name + "0", r[0]); show(name + "1", r[1])

am = torch.tensor([[1., 5., -2.], [3., 2., 8.]])
r = torch.aminmax(am); show("aminmax0", r[0]); show("aminmax1", r[1])
r = torch.aminmax(am, dim=1, keepdim=True); show("aminmax_d1_0", r[0]); show("aminmax_d1_1", r[1])
r = torch.aminmax(am, dim=0); show("aminmax_d0_0", r[0]); show("aminmax_d0_1", r[1])

cm = torch.tensor([1., 3., 3., 2., float('nan'), 5., float('nan'), 1.])
r = torch.cummax(cm, 0); show("cummax0", r[0]); show("cummax1", r[1])
r = torch.cummin(cm, 0); show("cummin0", r[0]); show("cummin1", r[1])
c2 = torch.tensor([[2, 1, 2, 3, 0], [5, 5, 4, 6, 6]])
r = torch.cummax(c2, 1); show("cummax_int0", r[0]); show("cummax_int1", r[1])
r = torch.cummin(c2, 0); show("cummin_int_d0_0", r[0]); show("cummin_int_d0_1", r[1])
r = torch.cummax(torch.tensor([True, False, True]), 0); show("cummax_bool0", r[0]); show("cummax_bool1", r[1])
cg = torch.tensor([[0.5, 2., 2., -1., 3.], [1., 0., 4., 4., 4.]])
grad("cummax", lambda q: torch.cummax(q, 1)[0], cg)
grad("cummin", lambda q: torch.cummin(q, 1)[0], cg)

show("logcumsumexp", torch.logcumsumexp(torch.tensor([0.5, -1., 2., 0., 3., -2., 1.]), 0))
show("logcumsumexp_extreme", torch.logcumsumexp(torch.tensor([-1000., 0., float('-inf'), 1000.]), 0))
show("logcumsumexp_neginf", torch.logcumsumexp(torch.tensor([float('-inf'), float('-inf'), 1.]), 0))
show("logcumsumexp_dim0", torch.logcumsumexp(torch.tensor([[1., 2.], [3., -4.], [0., 0.]]), 0))
grad("logcumsumexp", lambda q: torch.logcumsumexp(q, 1), cg)

r9 = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
for k in [1, 2, 3, -1, 4]:
    show(f"rot90_k{k}", torch.rot90(r9, k))
show("rot90_3d", torch.rot90(torch.arange(8.).view(2, 2, 2), 1, [2, 0]))
show("fliplr", torch.fliplr(r9)); show("flipud", torch.flipud(r9))

show("block_diag", torch.block_diag(m, torch.tensor(7), torch.tensor([8., 9., 10.])))
show("block_diag_int", torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3], [4]])))
print("block_diag_dtype", torch.block_diag(torch.tensor([1], dtype=torch.int32), torch.tensor(2)).dtype)

h1, h2 = torch.tensor([1., 2.]), torch.tensor([3., 4.])
show("hstack", torch.hstack([h1, h2])); show("hstack2d", torch.hstack([m, m]))
show("vstack", torch.vstack([h1, h2])); show("dstack", torch.dstack([h1, h2]))
show("column_stack", torch.column_stack([h1, m, torch.tensor([5., 6.])]))

ty = torch.tensor([[1., 4., 9., 16.], [2., 3., 5., 7.]])
show("trapezoid", torch.trapezoid(ty))
show("trapezoid_dx", torch.trapezoid(ty, dx=0.5))
show("trapezoid_x", torch.trapezoid(ty, torch.tensor([0., 1., 3., 6.])))
show("trapezoid_x2d_dim0", torch.trapezoid(ty, torch.tensor([[0., 1., 2., 3.], [1., 3., 2., 5.]]), dim=0))
show("trapezoid_long", torch.trapezoid(torch.tensor([1, 2, 3])))
show("trapz_dx", torch.trapz(ty, dx=2.0, dim=0))
grad("trapezoid_x", lambda q, xx: torch.trapezoid(q, xx), ty, torch.tensor([0., 1., 3., 6.]))
