"""PyTorch's results for the int8/int16 cases of tests/ops/small_int_test.cpp (which mirrors each
case by name). Run by the test with /usr/bin/python3 (PyTorch 1.13):

    small_int_cases.py DTYPE A B F DEVICES
    small_int_cases.py result_types NAMES

DTYPE is int8 or int16; A and B are comma-separated integers (six each), F comma-separated
floats, DEVICES the comma-separated devices whose printed form is wanted. Prints one JSON object:
name -> {"dtype", "shape", "values"}, and "repr_<case>@<device>" -> {"repr"}: PyTorch's repr of
the cpu tensor as it prints on that device, with dtypes named as locus names them ("int8", not
"torch.int8") before the line-width decision that PyTorch's _add_suffixes makes."""
import json
import sys

import torch

if sys.argv[1] == "result_types":
    # small_int_cases.py result_types NAMES: torch.result_type of a 1-D tensor of each dtype with a
    # 1-D tensor, a 0-dim tensor and the scalars 2, 2.5 and True
    names = sys.argv[2].split(",")
    out = {}
    for x in names:
        a = torch.ones(1, dtype=getattr(torch, x))
        for y in names:
            b = getattr(torch, y)
            out[x + "," + y] = str(torch.result_type(a, torch.ones(1, dtype=b)))[6:]
            out[x + ",0dim " + y] = str(torch.result_type(a, torch.ones((), dtype=b)))[6:]
        for s in ("2", "2.5", "True"):
            out[x + "," + s] = str(torch.result_type(a, eval(s)))[6:]
    print(json.dumps(out))
    sys.exit(0)

dt = getattr(torch, sys.argv[1])
other_small = torch.int16 if dt == torch.int8 else torch.int8
a_vals = [int(x) for x in sys.argv[2].split(",")]
b_vals = [int(x) for x in sys.argv[3].split(",")]
f_vals = [float(x) for x in sys.argv[4].split(",")]
A = torch.tensor(a_vals, dtype=dt)
B = torch.tensor(b_vals, dtype=dt)
F = torch.tensor(f_vals, dtype=torch.float64)
big_ints = [300, -129, 70000, -40000, 2**40 + 5, -(2**33) - 3]
A2 = A.view(2, 3)

cases = {
    # creation
    "zeros": torch.zeros(4, dtype=dt),
    "ones": torch.ones(2, 3, dtype=dt),
    "full": torch.full((3,), -5, dtype=dt),
    "arange": torch.arange(-5, 7, 3, dtype=dt),
    "tensor": A,
    "arange_wraps": torch.arange(1200).to(dt),
    # casts from the small type
    "to_float32": A.to(torch.float32),
    "to_float64": A.to(torch.float64),
    "to_float16": A.to(torch.float16),
    "to_bfloat16": A.to(torch.bfloat16),
    "to_bool": A.to(torch.bool),
    "to_uint8": A.to(torch.uint8),
    "to_int32": A.to(torch.int32),
    "to_int64": A.to(torch.int64),
    "to_other_small": A.to(other_small),
    # casts into it: out-of-range floats truncate through int32 and wrap, integers wrap
    "from_float32": F.to(torch.float32).to(dt),
    "from_float64": F.to(dt),
    "from_float16": F.to(torch.float16).to(dt),
    "from_bfloat16": F.to(torch.bfloat16).to(dt),
    "from_int64": torch.tensor(big_ints).to(dt),
    "from_int32": torch.tensor(big_ints[:4], dtype=torch.int32).to(dt),
    "from_uint8": torch.tensor([0, 200, 255], dtype=torch.uint8).to(dt),
    "from_bool": torch.tensor([True, False]).to(dt),
    "from_other_small": torch.tensor([-30000, 300, -129, 5], dtype=other_small).to(dt)
    if dt == torch.int8 else torch.tensor([-128, 127, 5], dtype=other_small).to(dt),
    # elementwise
    "add": A + B,
    "sub": A - B,
    "mul": A * B,
    "div": A / B,
    "remainder": A.remainder(B),
    "maximum": torch.maximum(A, B),
    "minimum": torch.minimum(A, B),
    "pow2": A.pow(2),
    "pow_tensor": B.pow(torch.tensor([2, 3, 5, 1, 7, 2], dtype=dt)),
    "eq": A == B,
    "ne": A != B,
    "lt": A < B,
    "le": A <= B,
    "gt": A > B,
    "ge": A >= B,
    "add_scalar": A + 200,
    "gt_scalar": A > 200,
    "mul_scalar": A * 3,
    "add_float_scalar": A + 2.5,
    "add_uint8": A + torch.tensor([1, 2, 3, 4, 200, 255], dtype=torch.uint8),
    "add_int64": A + A.to(torch.int64),
    "add_float32": A + F[:6].to(torch.float32),
    "add_0dim_int64": A + torch.tensor(1000),
    "add_broadcast": A2 + B[:3],
    "neg": -A,
    "abs": A.abs(),
    "sign": A.sign(),
    "relu": A.relu(),
    "square": A.square(),
    "clamp": A.clamp(-5, 50),
    "exp_of_small": (B.remainder(4)).exp(),
    "where": torch.where(A > 0, A, B),
    "masked_fill": A.masked_fill(A < 0, 7),
    "logical_not": A.logical_not(),
    "floor_ceil_round": torch.cat([A.floor(), A.ceil(), A.round()]),
    "add_inplace": A.clone().add_(B),
    "mul_inplace": A.clone().mul_(B),
    "mm": A2 @ B.view(3, 2),
    # reductions
    "sum": A.sum(),
    "prod": B.prod(),
    "max": A.max(),
    "min": A.min(),
    "argmax": A.argmax(),
    "argmin": A.argmin(),
    "sum_dim": A2.sum(1),
    "sum_as_other_small": A2.sum(1, dtype=other_small),
    "max_dim_values": A2.max(1)[0],
    "max_dim_indices": A2.max(1)[1],
    "amin_dim0": A2.amin(0),
    "any": A.any(),
    "all": A.all(),
    # indexing and strided copies
    "index_select": A.index_select(0, torch.tensor([5, 0, 2, 2])),
    "gather": A2.gather(1, torch.tensor([[2, 0], [1, 1]])),
    "scatter_add": torch.zeros(2, 3, dtype=dt).scatter_add(1, torch.tensor([[0, 0, 2], [1, 1, 1]]), A2),
    "transpose_contiguous": A2.t().contiguous(),
}

out = {}
for name, t in cases.items():
    out[name] = {"dtype": str(t.dtype)[len("torch."):], "shape": list(t.shape),
                 "values": t.double().flatten().tolist()}
reprs = {
    "repr_1d": A,
    "repr_2d": A2,
    "repr_0dim": A[4],
    "repr_empty": torch.zeros(0, dtype=dt),
    "repr_empty_2d": torch.zeros(2, 0, dtype=dt),
    "repr_summarized": torch.arange(1200).to(dt),
    "repr_long_row": torch.arange(-20, 20).to(dt) * 3,
}
add_suffixes = torch._tensor_str._add_suffixes
device = None


def locus_suffixes(tensor_str, suffixes, indent, force_newline):
    suffixes = [s.replace("torch.", "") for s in suffixes]
    if device != "cpu":  # PyTorch puts the device first
        suffixes.insert(0, "device='%s'" % device)
    return add_suffixes(tensor_str, suffixes, indent, force_newline)


torch._tensor_str._add_suffixes = locus_suffixes
for device in sys.argv[5].split(","):
    for name, t in reprs.items():
        out[name + "@" + device] = {"repr": repr(t)}
print(json.dumps(out))
