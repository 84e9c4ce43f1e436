"""Reference values for tests/nn/embedding_init_test.cpp from PyTorch 1.13 (run with /usr/bin/python3):
Embedding / EmbeddingBag max_norm (the looked-up rows renormalised in place), nn.init's eye_ and dirac_.
The tables are w(n, d) = sin(0.37 i + 1) * 1.5 over the flat index, in float64."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=10)


def w(n, d):
    return ((torch.arange(n * d, dtype=torch.float64) * 0.37 + 1).sin() * 1.5).reshape(n, d)


def emit(name, t):
    print(f"const D k{name} = {{" + ", ".join(f"{v:.10g}" for v in t.detach().reshape(-1).tolist()) + "};")


e = nn.Embedding(5, 4, max_norm=1.0).double()
with torch.no_grad():
    e.weight.copy_(w(5, 4))
y = e(torch.tensor([[1, 3], [3, 4]]))
emit("MaxNormOut", y)
emit("MaxNormWeight", e.weight)
y.sum().backward()
emit("MaxNormGrad", e.weight.grad)
table = w(5, 4)
emit("MaxNormL1Out", F.embedding(torch.tensor([0, 4, 4]), table, max_norm=2.0, norm_type=1.0))
emit("MaxNormL1Weight", table)
bag = nn.EmbeddingBag(6, 3, mode="sum", max_norm=1.0).double()
with torch.no_grad():
    bag.weight.copy_(w(6, 3))
emit("BagMaxNormOut", bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 0]), torch.tensor([0, 3, 5])))
emit("BagMaxNormWeight", bag.weight)
t = torch.empty(3, 4)
nn.init.eye_(t)
emit("Eye34", t)
t = torch.empty(4, 2, 3)
nn.init.dirac_(t)
emit("Dirac423", t)
t = torch.empty(2, 3, 3, 2)
nn.init.dirac_(t)
emit("Dirac2332", t)
