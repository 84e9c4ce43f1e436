#!/usr/bin/python3
"""Reads a safetensors file written by locus with a short independent reader (the published
format) into torch tensors, and an .npy file with numpy, and checks the values locus wrote
(tests/io/serialize_test.cpp, PythonReadsWhatLocusWrites). Prints "OK <n> tensors"."""
import json
import struct
import sys

import numpy as np
import torch

path, npy_path = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
dtypes = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
          "I64": torch.int64, "I32": torch.int32, "U8": torch.uint8, "BOOL": torch.bool}
meta = header.pop("__metadata__", {})
assert meta == {"who": "locus"}, meta
t = {}
for name, info in header.items():
    b, e = info["data_offsets"]
    buf = bytearray(data[b:e])
    t[name] = torch.frombuffer(buf, dtype=torch.uint8).view(dtypes[info["dtype"]]).reshape(info["shape"])


def ar(n, dtype, scale=0.25, shift=-1.0):
    return (torch.arange(n, dtype=torch.float64) * scale + shift).to(dtype)


assert torch.equal(t["w"], ar(12, torch.float32).reshape(3, 4).t()), t["w"]
assert torch.equal(t["h"], ar(4, torch.float16)), t["h"]
assert torch.equal(t["b"], ar(4, torch.bfloat16)), t["b"]
assert torch.equal(t["i"], torch.arange(-3, 3)), t["i"]
assert torch.equal(t["m"], torch.tensor([True, False])), t["m"]
a = np.load(npy_path)
assert a.dtype == np.float64 and a.shape == (2, 3) and (a == np.arange(6).reshape(2, 3) * 0.25 - 1).all(), a
print("OK", len(t), "tensors")
