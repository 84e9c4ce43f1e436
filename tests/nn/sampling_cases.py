# Prints the PyTorch 1.13 values that tests/nn/sampling_test.cpp compares against:
#   /usr/bin/python3 tests/nn/sampling_cases.py
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=8)


def show(name, t):
    print(name, [round(v, 6) for v in t.detach().flatten().tolist()])


inp = torch.arange(12, dtype=torch.float64).reshape(1, 1, 3, 4) * 0.5 - 1
inp2 = torch.cat([inp, inp * -2 + 1], 1)  # [1, 2, 3, 4]
grid = torch.tensor([[[[-1.0, -1.0], [0.3, -0.2], [1.2, 0.5]],
                      [[-1.4, 0.9], [0.75, 1.3], [0.1, 0.1]]]], dtype=torch.float64)  # [1, 2, 3, 2]
for mode in ["bilinear", "nearest"]:
    for pad in ["zeros", "border", "reflection"]:
        for ac in [False, True]:
            show(f"grid_sample {mode} {pad} {ac}", F.grid_sample(inp2, grid, mode=mode, padding_mode=pad, align_corners=ac))

# gradients (bilinear): to the input and to the grid, loss = sum(out * weights)
for pad in ["zeros", "border", "reflection"]:
    x = inp2.clone().requires_grad_()
    g = grid.clone().requires_grad_()
    out = F.grid_sample(x, g, mode="bilinear", padding_mode=pad, align_corners=False)
    w = torch.arange(out.numel(), dtype=torch.float64).reshape(out.shape) * 0.1 + 1
    (out * w).sum().backward()
    show(f"grad input {pad}", x.grad)
    show(f"grad grid {pad}", g.grad)

theta = torch.tensor([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.4]]], dtype=torch.float64)
for ac in [False, True]:
    show(f"affine_grid 2d {ac}", F.affine_grid(theta, [1, 1, 2, 3], align_corners=ac))
theta3 = torch.tensor([[[0.9, 0.1, 0.0, 0.2], [0.0, 1.0, -0.2, 0.1], [0.3, 0.0, 0.8, -0.1]]], dtype=torch.float64)
show("affine_grid 3d False", F.affine_grid(theta3, [1, 1, 2, 2, 3], align_corners=False))

vol = torch.arange(24, dtype=torch.float64).reshape(1, 1, 2, 3, 4) * 0.25
g3 = torch.tensor([[[[[0.1, -0.5, 0.3], [0.9, 0.9, -0.9], [-1.2, 0.0, 0.5]]]]], dtype=torch.float64)  # [1,1,1,3,3]
show("grid_sample 3d bilinear zeros False", F.grid_sample(vol, g3, mode="bilinear", padding_mode="zeros", align_corners=False))
show("grid_sample 3d nearest border True", F.grid_sample(vol, g3, mode="nearest", padding_mode="border", align_corners=True))

# nearest at exact halves: 2-D rounds them to even, 3-D away from zero
x = torch.arange(6.0, dtype=torch.float64).reshape(1, 1, 1, 6)
g = torch.tensor([[[[-0.6, 0.0], [0.0, 0.0], [0.2, 0.0]]]], dtype=torch.float64)  # x = 1.0, 2.5, 3.0
show("nearest halves 2d", F.grid_sample(x, g, mode="nearest", align_corners=True))
show("nearest halves 3d", F.grid_sample(x.reshape(1, 1, 1, 1, 6), torch.cat([g, torch.zeros(1, 1, 3, 1, dtype=torch.float64)], -1).reshape(1, 1, 1, 3, 3), mode="nearest", align_corners=True))

# the spatial transformer's path: gradient to theta through affine_grid and grid_sample
t = theta.clone().requires_grad_()
out = F.grid_sample(inp2, F.affine_grid(t, [1, 2, 2, 3], align_corners=False), align_corners=False)
out.pow(2).sum().backward()
show("grad theta", t.grad)
print("gain", torch.nn.init.calculate_gain("leaky_relu", 0.2), torch.nn.init.calculate_gain("conv2d"))
