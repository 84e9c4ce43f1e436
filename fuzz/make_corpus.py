#!/usr/bin/python3
"""Writes the fuzzing corpus of real files, with Debian's python3-torch (1.13) and numpy.

    /usr/bin/python3 fuzz/make_corpus.py [OUT_DIR=fuzz/corpus]

fuzz/run.sh starts every target from these, the checked-in tests/io/fixtures and fuzz/seeds.
Files stay under 16 KiB (the fuzzers' -max_len). The pickle corpus is the data.pkl of each .pt.
safetensors files are written by hand (the format is a JSON header and raw bytes; the Python
package is not in Debian 12).
"""
import collections
import io
import json
import os
import struct
import sys
import zipfile

import numpy as np
import torch

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
for d in ("pytorch", "pickle", "npy", "safetensors"):
    os.makedirs(os.path.join(out, d), exist_ok=True)
torch.manual_seed(0)


def save_pt(name, obj, legacy=False):
    path = os.path.join(out, "pytorch", name + ".pt")
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy)
    if not legacy:
        with zipfile.ZipFile(path) as z:
            pkl = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
            with open(os.path.join(out, "pickle", name + ".pkl"), "wb") as f:
                f.write(z.read(pkl))


dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64]
for dt in dtypes:
    t = (torch.arange(6, dtype=torch.float64) - 2).to(dt).reshape(2, 3)
    save_pt("tensor_" + str(dt).split(".")[1], t)
save_pt("scalar", torch.tensor(3.5))
save_pt("empty", torch.empty(0, 4))
base = torch.arange(24.0).reshape(4, 6)
save_pt("views", {"t": base.t(), "row": base[1], "col": base[:, 2], "narrow": base[1:3, 2:5], "base": base})
save_pt("expanded", torch.ones(3).expand(4, 3).contiguous())
save_pt("nested", {"a": [torch.ones(2), (torch.zeros(1), {"b": torch.arange(3)})], "n": 7, "s": "text",
                   "f": 0.5, "none": None, "flag": True})
lin = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(),
                          torch.nn.Linear(8, 3))
save_pt("conv_state_dict", lin.state_dict())
opt = torch.optim.Adam(lin.parameters())
lin(torch.randn(2, 1, 4, 4)).sum().backward()
opt.step()
save_pt("checkpoint", {"model": lin.state_dict(), "optimizer": opt.state_dict(), "epoch": 3})
save_pt("ordered", collections.OrderedDict([("w", torch.randn(2, 2)), ("b", torch.randn(2))]))
save_pt("legacy_tensor", torch.arange(5.0), legacy=True)
save_pt("legacy_dict", {"w": torch.randn(2, 3), "i": torch.arange(4)}, legacy=True)
save_pt("legacy_views", {"base": base, "t": base.t(), "tail": base[1:], "s2": base[1:][1:, 2:5], "e": torch.empty(0, 2),
                         "s": torch.tensor(1.5), "h": torch.arange(3, dtype=torch.float16)}, legacy=True)
save_pt("legacy_checkpoint", {"model": lin.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, legacy=True)

for name, a in {"f4": np.arange(6, dtype="<f4").reshape(2, 3), "f8_be": np.arange(4, dtype=">f8"),
                "i8": np.arange(-3, 3, dtype=np.int64), "u1": np.arange(5, dtype=np.uint8),
                "b1": np.array([True, False]), "f2": np.arange(3, dtype=np.float16),
                "c8": np.arange(2, dtype=np.complex64), "scalar": np.array(1.5),
                "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)), "empty": np.zeros((0, 3))}.items():
    np.save(os.path.join(out, "npy", name + ".npy"), a)


def safetensors(name, tensors, meta=None):
    header, blobs, off = {}, [], 0
    for k, (dt, shape, raw) in tensors.items():
        header[k] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    if meta:
        header["__metadata__"] = meta
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(out, "safetensors", name + ".safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


safetensors("mixed", {"w": ("F32", [2, 2], np.arange(4, dtype="<f4").tobytes()),
                      "i": ("I64", [3], np.arange(3, dtype="<i8").tobytes()),
                      "h": ("F16", [2], np.arange(2, dtype="<f2").tobytes()),
                      "b": ("BOOL", [2], b"\x01\x00")}, {"format": "pt"})
safetensors("scalar_and_empty", {"s": ("F64", [], struct.pack("<d", 2.5)), "e": ("F32", [0, 3], b"")})
print("corpus written to", out)
