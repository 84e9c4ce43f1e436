# Prints the PyTorch 1.13 values that tests/nn/conv_padding_test.cpp compares against:
#   /usr/bin/python3 tests/nn/conv_padding_cases.py
import torch
import torch.nn.functional as F


def det(shape, k, scale):
    n = 1
    for s in shape:
        n *= s
    return (torch.sin(torch.arange(n, dtype=torch.float64) * 0.37 + k) * scale).reshape(shape)


def show(name, t):
    print(name, list(t.shape), [round(v, 6) for v in t.detach().flatten().tolist()])


x = det([1, 2, 4, 5], 0, 1.0)
w = det([3, 2, 2, 4], 1, 0.5)
b = det([3], 2, 0.5)
show("conv2d same 2x4", F.conv2d(x, w, b, padding="same"))
show("conv2d same dil", F.conv2d(x, det([2, 2, 3, 3], 3, 0.5), None, padding="same", dilation=(1, 2)))
show("conv2d valid", F.conv2d(x, w, b, padding="valid"))
x1 = det([2, 2, 7], 4, 1.0)
show("conv1d same 4", F.conv1d(x1, det([3, 2, 4], 5, 0.5), None, padding="same"))
x3 = det([1, 1, 3, 4, 4], 6, 1.0)
show("conv3d same", F.conv3d(x3, det([2, 1, 2, 3, 2], 7, 0.5), None, padding="same"))
for mode in ["reflect", "replicate", "circular"]:
    m = torch.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode, bias=False).double()
    with torch.no_grad():
        m.weight.copy_(det([3, 2, 3, 3], 8, 0.5))
    show("Conv2d " + mode, m(x))
m = torch.nn.Conv1d(2, 3, 4, padding="same", padding_mode="reflect", bias=False).double()
with torch.no_grad():
    m.weight.copy_(det([3, 2, 4], 5, 0.5))
show("Conv1d same reflect", m(x1))
print(torch.nn.Conv2d(2, 3, 3, padding="same", padding_mode="circular"), torch.nn.Conv1d(2, 3, 3, padding="valid"))
