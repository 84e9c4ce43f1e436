# Prints the expected values of tests/nn/pooling_more_test.cpp (PyTorch 1.13, float64):
#   /usr/bin/python3 tests/nn/pooling_more_cases.py
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def fmt(t):
    t = t.detach().flatten().tolist()
    if all(isinstance(v, int) for v in t):
        return "{" + ", ".join(str(v) for v in t) + "}"
    return "{" + ", ".join("%.10g" % v for v in t) + "}"


def show(name, t):
    # a C++ constant for the test: `const D name{...};` (shape in the comment)
    cname = "".join(c if c.isalnum() else "_" for c in name).strip("_")
    while "__" in cname:
        cname = cname.replace("__", "_")
    print("// %s %s\nconst D %s%s;" % (name, list(t.shape), cname, fmt(t)))


image = (torch.arange(70) * 0.37).sin().reshape(1, 2, 5, 7)
line = (torch.arange(54) * 0.61).cos().reshape(2, 3, 9)
vol = (torch.arange(240) * 0.23 + 0.1).sin().reshape(1, 2, 4, 5, 6)
ties = torch.tensor([[1., 3, 3, 0], [3, 1, 0, 3], [2, 2, 2, 2], [0, 2, 2, 1]]).reshape(1, 1, 4, 4)

print("== max pooling with indices")
for name, (v, i) in [
    ("max_pool2d k3 s2 p1", F.max_pool2d(image, 3, 2, 1, return_indices=True)),
    ("max_pool2d k3 s2 ceil", F.max_pool2d(image, 3, 2, ceil_mode=True, return_indices=True)),
    ("max_pool2d k2 s1 d2", F.max_pool2d(image, 2, 1, dilation=2, return_indices=True)),
    ("max_pool2d ties k2 s1", F.max_pool2d(ties, 2, 1, return_indices=True)),
    ("max_pool1d k3 s2 p1", F.max_pool1d(line, 3, 2, 1, return_indices=True)),
    ("max_pool1d k2 ceil", F.max_pool1d(line, 2, ceil_mode=True, return_indices=True)),
    ("max_pool3d k3 s2 p1", F.max_pool3d(vol, 3, 2, 1, return_indices=True)),
    ("max_pool3d k2 s(2,1,2) d(1,2,1) ceil", F.max_pool3d(vol, 2, (2, 1, 2), dilation=(1, 2, 1), ceil_mode=True,
                                                         return_indices=True)),
    # ceil_mode adding a window in H or W (the separable path rather than the backend's kernel)
    ("max_pool2d k2 ceil", F.max_pool2d(image, 2, ceil_mode=True, return_indices=True)),
    ("max_pool3d k2 ceil", F.max_pool3d(vol, 2, ceil_mode=True, return_indices=True)),
    ("adaptive_max_pool1d 4", F.adaptive_max_pool1d(line, 4, return_indices=True)),
    ("adaptive_max_pool2d (3,4)", F.adaptive_max_pool2d(image, (3, 4), return_indices=True)),
    ("adaptive_max_pool2d ties (3,3)", F.adaptive_max_pool2d(ties, (3, 3), return_indices=True)),
    ("adaptive_max_pool2d ties (2,2)", F.adaptive_max_pool2d(ties, (2, 2), return_indices=True)),
    ("adaptive_max_pool3d (2,5,3)", F.adaptive_max_pool3d(vol, (2, 5, 3), return_indices=True)),
    ("adaptive_max_pool3d (3,2,4)", F.adaptive_max_pool3d(vol, (3, 2, 4), return_indices=True)),
]:
    show(name + " values", v)
    show(name + " indices", i)

# all -inf: the first position inside the input, never one in the padding
minf = torch.full((1, 1, 3, 3), -float("inf"))
show("all -inf max_pool2d k2 p1 indices", F.max_pool2d(minf, 2, padding=1, return_indices=True)[1])
show("all -inf max_pool3d k2 p1 indices", F.max_pool3d(minf.unsqueeze(0), 2, padding=1, return_indices=True)[1])

# NaN wins, as PyTorch's kernels
nan = (torch.arange(60) * 1.0).sin().reshape(1, 1, 3, 4, 5)
nan[0, 0, 1, 2, 3] = float("nan")
nan[0, 0, 0, 0, 0] = float("nan")
show("nan max_pool3d k2 s1 indices", F.max_pool3d(nan, 2, 1, return_indices=True)[1])
show("nan adaptive_max_pool3d 2 indices", F.adaptive_max_pool3d(nan, 2, return_indices=True)[1])
show("nan max_pool2d k2 ceil indices", F.max_pool2d(nan[0], 2, ceil_mode=True, return_indices=True)[1])

print("== max_unpool")
v, i = F.max_pool2d(image, 2, 2, return_indices=True)
show("max_unpool2d k2", F.max_unpool2d(v, i, 2))
show("max_unpool2d k2 output_size (5,7)", F.max_unpool2d(v, i, 2, output_size=(5, 7)))
v, i = F.max_pool1d(line, 3, 2, 1, return_indices=True)
show("max_unpool1d k3 s2 p1", F.max_unpool1d(v, i, 3, 2, 1))
v, i = F.max_pool3d(vol, 2, 2, return_indices=True)
u = F.max_unpool3d(v, i, 2, output_size=(1, 2, 5, 5, 7))
print("// max_unpool3d shape", list(u.shape))
show("max_unpool3d nonzero positions", u.flatten().nonzero().flatten())
show("max_unpool3d nonzero values", u.flatten()[u.flatten() != 0])
for args in [dict(output_size=[9, 9]), dict(output_size=[1, 1, 2, 2, 2])]:
    try:
        F.max_unpool2d(*F.max_pool2d(image, 2, 2, return_indices=True), 2, **args)
    except Exception as e:
        print(repr(e))

print("== conv_transpose3d")
x = (torch.arange(2 * 4 * 3 * 2 * 3) * 0.41).sin().reshape(2, 4, 3, 2, 3)
w = (torch.arange(4 * 3 * 2 * 3 * 2) * 0.29).cos().reshape(4, 3, 2, 3, 2)
b = torch.tensor([0.5, -0.25, 0.125, 1.0, -1.5, 0.75])
y = F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 0), groups=2,
                       dilation=(1, 2, 1))
show("conv_transpose3d channel sums", y.sum(dim=(2, 3, 4)))
show("conv_transpose3d y[1, 4, 2]", y[1, 4, 2])
show("conv_transpose3d y[0, :, 4, 5, 3]", y[0, :, 4, 5, 3])
print("// conv_transpose3d shape", list(y.shape))
show("conv_transpose3d grad x sums", torch.autograd.functional.vjp(
    lambda x: F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 0), groups=2,
                                 dilation=(1, 2, 1)), x, (torch.arange(y.numel()) * 0.1).sin().reshape(y.shape))[1].sum(
    dim=(2, 3, 4)))
y = F.conv_transpose3d(x[:1, :2], w[:2, :, :, :2], None, stride=1)
show("conv_transpose3d plain", y)

print("== lp_pool")
show("lp_pool2d p2 k(3,2) s(2,1)", F.lp_pool2d(image, 2, (3, 2), (2, 1)))
show("lp_pool2d p3 k2 ceil", F.lp_pool2d(image.abs() + 0.1, 3, 2, ceil_mode=True))
show("lp_pool1d p2 k3 s2", F.lp_pool1d(line, 2, 3, 2))
show("lp_pool1d p1.5 k2", F.lp_pool1d(line.abs(), 1.5, 2))

print("== fractional_max_pool")
img = (torch.arange(2 * 3 * 9 * 8) * 0.53).sin().reshape(2, 3, 9, 8)
s2 = ((torch.arange(2 * 3 * 2) * 0.37 + 0.2).sin().abs() * 0.999).reshape(2, 3, 2)
v, i = F.fractional_max_pool2d(img, (2, 3), output_size=(4, 5), return_indices=True, _random_samples=s2)
show("fractional_max_pool2d k(2,3) out(4,5) values", v)
show("fractional_max_pool2d k(2,3) out(4,5) indices", i)
v, i = F.fractional_max_pool2d(img, 2, output_ratio=(0.5, 0.7), return_indices=True, _random_samples=s2)
show("fractional_max_pool2d k2 ratio(0.5,0.7) values", v)
show("fractional_max_pool2d k2 ratio(0.5,0.7) indices", i)
volf = (torch.arange(2 * 2 * 6 * 7 * 5) * 0.31).cos().reshape(2, 2, 6, 7, 5)
s3 = ((torch.arange(2 * 2 * 3) * 0.41 + 0.3).sin().abs() * 0.999).reshape(2, 2, 3)
v, i = F.fractional_max_pool3d(volf, (2, 3, 2), output_size=(3, 4, 3), return_indices=True, _random_samples=s3)
show("fractional_max_pool3d values", v)
show("fractional_max_pool3d indices", i)
show("s2", s2)
show("s3", s3)
# float32: the interval arithmetic in float
imgf = img.float()
v, i = F.fractional_max_pool2d(imgf, (2, 3), output_size=(4, 5), return_indices=True, _random_samples=s2.float())
show("fractional_max_pool2d float32 indices", i)
