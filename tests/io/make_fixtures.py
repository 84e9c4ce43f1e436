#!/usr/bin/python3
"""Writes the interop fixtures of tests/io with Debian's python3-torch (and numpy).

    /usr/bin/python3 tests/io/make_fixtures.py OUT_DIR

Every value is computable without torch (arange-based), so the C++ test checks the files against
locus::arange as well as against each other. The files are also checked in (tests/io/fixtures),
so the test runs where torch is absent; the test re-runs this script when torch is present.
"""
import collections
import json
import os
import struct
import sys

import numpy as np
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def ar(n, dtype, scale=0.25, shift=-1.0):
    return (torch.arange(n, dtype=torch.float64) * scale + shift).to(dtype)


# A model state dict (Linear + BatchNorm1d: float params, float buffers, an int64 buffer).
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
with torch.no_grad():
    model[0].weight.copy_(ar(12, torch.float32).reshape(3, 4))
    model[0].bias.copy_(ar(3, torch.float32, 0.5, 0.0))
    model[1].weight.copy_(ar(3, torch.float32, 1.0, 1.0))
    model[1].bias.copy_(ar(3, torch.float32, -1.0, 0.0))
    model[1].running_mean.copy_(ar(3, torch.float32, 0.125, 0.0))
    model[1].running_var.copy_(ar(3, torch.float32, 1.0, 2.0))
    model[1].num_batches_tracked.fill_(7)
sd = model.state_dict()
torch.save(sd, os.path.join(out, "model.pt"))

# Every dtype, a strided (transposed) view and two views sharing one storage.
base = ar(24, torch.float32).reshape(4, 6)
tensors = collections.OrderedDict()
tensors["f32"] = ar(6, torch.float32).reshape(2, 3)
tensors["f64"] = ar(5, torch.float64, 0.1, 0.0)
tensors["f16"] = ar(4, torch.float16)
tensors["bf16"] = ar(4, torch.bfloat16)
tensors["i64"] = torch.arange(-3, 3, dtype=torch.int64) * (1 << 40)
tensors["i32"] = torch.arange(-2, 2, dtype=torch.int32)
tensors["u8"] = torch.arange(250, 256, dtype=torch.uint8)
tensors["bool"] = torch.tensor([True, False, True])
tensors["scalar"] = torch.tensor(2.5)
tensors["transposed"] = base.t()          # strides (1, 6)
tensors["row"] = base[1]                  # offset 6, shares base's storage
tensors["col"] = base[:, 2]               # offset 2, stride 6, shares it too
torch.save(tensors, os.path.join(out, "dtypes.pt"))


def save_safetensors(d, path, metadata=None):
    """A minimal safetensors writer (the published format), independent of locus."""
    names = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8", torch.bool: "BOOL"}
    header, blobs, at = {}, [], 0
    for k, v in d.items():
        v = v.contiguous()
        raw = v.view(torch.uint8).numpy().tobytes() if v.dim() > 0 else v.reshape(1).view(torch.uint8).numpy().tobytes()
        header[k] = {"dtype": names[v.dtype], "shape": list(v.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


save_safetensors(sd, os.path.join(out, "model.safetensors"), {"framework": "pt", "source": "make_fixtures.py"})
save_safetensors(tensors, os.path.join(out, "dtypes.safetensors"))

# A checkpoint whose tensors were saved on cuda:0 (this machine has no GPU: the location tag is
# what torch writes for a CUDA tensor).
orig = torch.serialization.location_tag
torch.serialization.location_tag = lambda storage: "cuda:0"
torch.save(sd, os.path.join(out, "model_cuda.pt"))
torch.serialization.location_tag = orig

# A training checkpoint: nested dicts and a scalar.
torch.save({"model": sd, "epoch": 3}, os.path.join(out, "checkpoint.pth"))

# A hostile checkpoint: unpickling it with pickle would run os.system (locus must refuse).
class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


torch.save({"x": Evil()}, os.path.join(out, "evil.pt"))

# NumPy: C order, Fortran order, big-endian.
a = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.25 - 1.0
np.save(os.path.join(out, "c.npy"), a)
np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(a))
np.save(os.path.join(out, "big.npy"), a.astype(">f4"))
np.save(os.path.join(out, "i64.npy"), np.arange(-3, 3, dtype=np.int64))

# Dtypes locus does not compute with (refused naming the tensor and a conversion), and int8/int16
# (read as kChar/kShort).
torch.save({"z": torch.complex(ar(3, torch.float32), ar(3, torch.float32, 1.0, 0.0))}, os.path.join(out, "complex64.pt"))
torch.save({"z": torch.zeros(2, dtype=torch.complex128)}, os.path.join(out, "complex128.pt"))
torch.save({"q": torch.arange(-3, 3, dtype=torch.int8), "s": torch.arange(-300, 300, 100, dtype=torch.int16)},
           os.path.join(out, "int8_int16.pt"))
for name, dt in [("u2", np.uint16), ("u4", np.uint32), ("u8", np.uint64), ("c8", np.complex64), ("c16", np.complex128),
                 ("i1", np.int8), ("i2", np.int16)]:
    np.save(os.path.join(out, "dtype_" + name + ".npy"), np.arange(4).astype(dt))
print("fixtures written to", out)
