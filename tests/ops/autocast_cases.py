"""PyTorch's autocast table for the ops locus has: the output dtype of each op inside
torch.autocast("cpu", dtype=torch.bfloat16), with float32 inputs ("f32"), bfloat16 inputs ("bf16")
and mixed inputs ("mixed": the activations x and img in bfloat16, the weights in float32).
Run by tests/ops/autocast_test.cpp with /usr/bin/python3 (PyTorch 1.13); prints one JSON object
"<op>/<variant>" -> dtype name as locus names it ("bfloat16", "float32"), or "error" where
PyTorch raises. The cases here mirror kCases in the test, name for name.
"""
import json

import torch
import torch.nn.functional as F

CASES = {
    "mm": lambda t: t["x"].mm(t["w"].t()),
    "matmul": lambda t: t["x"].matmul(t["w"].t()),
    "bmm": lambda t: t["x"].unsqueeze(0).bmm(t["w"].t().unsqueeze(0)),
    "addmm": lambda t: torch.addmm(t["b"], t["x"], t["w"].t()),
    "linear": lambda t: F.linear(t["x"], t["w"], t["b"]),
    "conv2d": lambda t: F.conv2d(t["img"], t["cw"], t["cb"], padding=1),
    "softmax": lambda t: t["x"].softmax(1),
    "log_softmax": lambda t: t["x"].log_softmax(1),
    "exp": lambda t: t["x"].exp(),
    "log": lambda t: t["x"].abs().log(),
    "sqrt": lambda t: t["x"].abs().sqrt(),
    "rsqrt": lambda t: t["x"].abs().rsqrt(),
    "reciprocal": lambda t: t["x"].reciprocal(),
    "pow_scalar": lambda t: t["x"].pow(2),
    "pow_tensor": lambda t: t["x"].pow(t["y"]),
    "sum": lambda t: t["x"].sum(),
    "sum_dim": lambda t: t["x"].sum(1),
    "mean": lambda t: t["x"].mean(),
    "prod": lambda t: t["x"].prod(),
    "add": lambda t: t["x"] + t["y"],
    "mul": lambda t: t["x"] * t["y"],
    "relu": lambda t: t["x"].relu(),
    "gelu": lambda t: F.gelu(t["x"]),
    "sigmoid": lambda t: t["x"].sigmoid(),
    "tanh": lambda t: t["x"].tanh(),
    "nll_loss": lambda t: F.nll_loss(t["x"], t["tgt"]),
    "cross_entropy": lambda t: F.cross_entropy(t["x"], t["tgt"]),
    "mse_loss": lambda t: F.mse_loss(t["x"], t["y"]),
    "bce_with_logits": lambda t: F.binary_cross_entropy_with_logits(t["x"], t["y"].sigmoid()),
    "layer_norm": lambda t: F.layer_norm(t["x"], (6,), t["lnw"], t["lnb"]),
    "batch_norm": lambda t: F.batch_norm(t["img"], t["rm"], t["rv"], t["bnw"], t["bnb"], training=True),
    "max_pool2d": lambda t: F.max_pool2d(t["img"], 2),
    "avg_pool2d": lambda t: F.avg_pool2d(t["img"], 2),
    "adaptive_avg_pool2d": lambda t: F.adaptive_avg_pool2d(t["img"], 1),
    "embedding": lambda t: F.embedding(t["tgt"], t["w"]),
    "scatter_add": lambda t: t["y"].scatter_add(1, t["tgt"].view(4, 1).expand(4, 6).contiguous() % 6, t["x"]),
}

ACTIVATIONS = {"x", "img"}


def inputs(variant):
    g = torch.Generator().manual_seed(0)
    t = {
        "x": torch.randn(4, 6, generator=g), "y": torch.randn(4, 6, generator=g),
        "w": torch.randn(5, 6, generator=g), "b": torch.randn(5, generator=g),
        "img": torch.randn(2, 3, 8, 8, generator=g), "cw": torch.randn(4, 3, 3, 3, generator=g),
        "cb": torch.randn(4, generator=g), "lnw": torch.ones(6), "lnb": torch.zeros(6),
        "rm": torch.zeros(3), "rv": torch.ones(3), "bnw": torch.ones(3), "bnb": torch.zeros(3),
    }
    for k in t:
        if variant == "bf16" or (variant == "mixed" and k in ACTIVATIONS):
            t[k] = t[k].bfloat16()
    t["tgt"] = torch.tensor([0, 1, 2, 3])
    return t


out = {}
for variant in ("f32", "bf16", "mixed"):
    for name, f in CASES.items():
        t = inputs(variant)
        try:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out[name + "/" + variant] = str(f(t).dtype)[6:]
        except Exception:  # an op PyTorch does not run on these dtypes
            out[name + "/" + variant] = "error"
print(json.dumps(out, sort_keys=True))
