#!/usr/bin/python3
"""Loads a .pt file written by locus::save with torch.load(weights_only=True) and checks it
against the safetensors file locus wrote from the same state dict, read by read_in_torch.py's
independent reader (tests/io/serialize_test.cpp, PyTorchInterop.TorchLoadsWhatLocusWrites).

    read_pt_in_torch.py FILE.pt FILE.safetensors MAP_LOCATION|- SHARED_GROUPS [...]
    read_pt_in_torch.py ... FILE.pt module - -

Arguments come in fours, one check each. SHARED_GROUPS: "a,b,c;d,e": names whose tensors must
share one storage after torch.load (and no two groups may share). "module": the file is the
state dict of Sequential(Linear(4, 3), BatchNorm1d(3)) and loads into that PyTorch module.
Prints "OK <n> tensors" per check."""
import json
import struct
import sys

import torch



def check(pt_path, st_path, map_location, groups):
    kwargs = {"weights_only": True}
    if map_location != "-":
        kwargs["map_location"] = map_location
    sd = torch.load(pt_path, **kwargs)
    assert type(sd).__name__ == "OrderedDict", type(sd)

    raw = open(st_path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    dtypes = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
              "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
              "BOOL": torch.bool}
    header.pop("__metadata__", None)
    assert set(header) == {k for k, v in sd.items() if isinstance(v, torch.Tensor)}, (sorted(header), sorted(sd))
    for name, info in header.items():
        b, e = info["data_offsets"]
        want = torch.frombuffer(bytearray(data[b:e]) or bytearray(1), dtype=torch.uint8)[: e - b]
        want = want.view(dtypes[info["dtype"]]).reshape(info["shape"])
        got = sd[name]
        assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, want.dtype, got.shape, want.shape)
        assert got.device.type == "cpu", (name, got.device)
        # Bytes, not values: NaN == NaN and -0.0 != 0.0 here.
        got_bytes = got.contiguous().reshape(-1).view(torch.uint8) if got.numel() else torch.empty(0, dtype=torch.uint8)
        want_bytes = want.contiguous().reshape(-1).view(torch.uint8) if want.numel() else torch.empty(0, dtype=torch.uint8)
        assert torch.equal(got_bytes, want_bytes), (name, got, want)

    ptrs = {}
    for i, group in enumerate(g for g in groups.split(";") if g):
        names = group.split(",")
        p = {sd[k].storage().data_ptr() for k in names}
        assert len(p) == 1, ("not shared after torch.load", names)
        ptrs[i] = p.pop()
    assert len(set(ptrs.values())) == len(ptrs), "two groups share a storage"
    print("OK", len(header), "tensors")


def check_module(pt_path):
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    m.load_state_dict(torch.load(pt_path, weights_only=True))
    print("OK module loaded, num_batches_tracked", m[1].num_batches_tracked.item())


args = sys.argv[1:]
assert len(args) % 4 == 0, args
for i in range(0, len(args), 4):
    if args[i + 1] == "module":
        check_module(args[i])
    else:
        check(*args[i:i + 4])
