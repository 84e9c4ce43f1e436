"""PyTorch 1.13's values for tests/ops/bitwise_test.cpp (each block is pasted there under the same
name). Run with /usr/bin/python3 (the python with torch): prints C++ initialisers.

Integer results are printed exactly (as int64); the dtype of each result is printed as the
locus ScalarType name the test checks."""
import textwrap

import torch

DT = {"int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64}
# the inputs of the test (kInputs there): x and a shift/operand y per dtype
X = {
    "int8": [-128, -1, 5, 127, 0, -77],
    "uint8": [255, 1, 128, 7, 0, 200],
    "int16": [-32768, -1, 5, 32767, 300, -300],
    "int32": [-2147483648, -1, 5, 2147483647, 12345, -9],
    "int64": [-9, 1 << 62, 5, -1, 123456789, -(1 << 40)],
}
Y = {
    "int8": [0, 7, 8, 100, -1, 3],
    "uint8": [1, 7, 8, 200, 3, 0],
    "int16": [0, 15, 16, 40, -1, 2],
    "int32": [0, 31, 32, 40, -1, 3],
    "int64": [63, 1, 64, -1, 3, 65],
}
NAMES = {torch.int8: "kChar", torch.uint8: "kByte", torch.int16: "kShort", torch.int32: "kInt",
         torch.int64: "kLong", torch.bool: "kBool"}


def lit(v):
    return "INT64_MIN" if v == -(1 << 63) else str(v)


def show(name, t):
    vals = ", ".join(lit(int(v)) for v in t.flatten().tolist())
    text = f"{{\"{name}\", {{{NAMES[t.dtype]}, {{{vals}}}}}}},"
    print("\n".join(textwrap.wrap(text, width=116, subsequent_indent="     ", break_long_words=False)))


for n, dt in DT.items():
    x = torch.tensor(X[n], dtype=dt)
    y = torch.tensor(Y[n], dtype=dt)
    show(f"{n} and", x & y)
    show(f"{n} or", x | y)
    show(f"{n} xor", x ^ y)
    show(f"{n} lshift", x << y)
    show(f"{n} rshift", x >> y)
    show(f"{n} not", ~x)
    show(f"{n} and 6", x & 6)
    show(f"{n} or 6", x | 6)
    show(f"{n} xor -3", x ^ -3)
    show(f"{n} lshift 3", x << 3)
    show(f"{n} rshift 3", x >> 3)
    show(f"{n} rshift 40", x >> 40)
    show(f"{n} 3 lshift", torch.bitwise_left_shift(3, y))
    show(f"{n} -100 rshift", torch.bitwise_right_shift(-100, y))
    show(f"{n} 6 and", torch.bitwise_and(6, x))
    show(f"{n} remainder", x % torch.where(y == 0, torch.ones_like(y), y))
    show(f"{n} remainder 7", x % 7)

b1 = torch.tensor([True, True, False, False])
b2 = torch.tensor([True, False, True, False])
show("bool and", b1 & b2)
show("bool or", b1 | b2)
show("bool xor", b1 ^ b2)
show("bool not", ~b1)
show("bool and true", b1 & True)
show("bool xor 1", b1 ^ 1)
show("bool and int64", b1 & torch.tensor([3, 2, 7, 1]))
show("uint8 and int8",
     torch.tensor([255, 128, 7, 1], dtype=torch.uint8) & torch.tensor([-1, -128, 3, 5], dtype=torch.int8))
show("int32 or int64", torch.tensor([1, 2, 4, 8], dtype=torch.int32) | torch.tensor([16, 1, 1 << 40, 8]))
show("int8 shift int64", torch.tensor([1, -1, 64, 3], dtype=torch.int8) << torch.tensor([1, 7, 1, 62]))
show("broadcast and", torch.tensor([[12], [10]]) & torch.tensor([6, 3, 9]))
show("broadcast rshift", torch.tensor([[-64], [64]], dtype=torch.int16) >> torch.tensor([1, 2, 3], dtype=torch.int16))
show("0dim xor", torch.tensor([5, 6, 7], dtype=torch.int16) ^ torch.tensor(3))
show("int32 and 2^60+5", torch.tensor([7, -1], dtype=torch.int32) & ((1 << 60) + 5))
show("bool or 2^62+1", torch.tensor([True, False]) | ((1 << 62) + 1))
show("int64 xor 2^62+1", torch.tensor([-1, 12345]) ^ ((1 << 62) + 1))
show("2^62+1 lshift", torch.bitwise_left_shift((1 << 62) + 1, torch.tensor([0, 1])))
print("// remainder operator (floats)")
xf = torch.tensor([-7.5, -2.0, 3.25, 8.0])
yf = torch.tensor([2.0, -3.0, -1.5, 2.5])
print("{\"float remainder\", {" + ", ".join(repr(v) for v in (xf % yf).tolist()) + "}},")
print("{\"float remainder 2.5\", {" + ", ".join(repr(v) for v in (xf % 2.5).tolist()) + "}},")
print("{\"5 remainder float\", {" + ", ".join(repr(v) for v in (5 % yf).tolist()) + "}},")
print("{\"5 remainder int\", {" + ", ".join(repr(v) for v in (5 % torch.tensor([3, -3, 2, -4])).tolist()) + "}},")
