#!/usr/bin/python3
"""Writes the legacy (pre-1.6) PyTorch checkpoints of tests/io/fixtures with Debian's python3-torch 1.13.

    /usr/bin/python3 tests/io/make_legacy_fixtures.py OUT_DIR

torch.save(..., _use_new_zipfile_serialization=False) writes consecutive pickles: the magic number,
the protocol version 1001, sys_info, the object (storages as persistent ids ('storage', type, key,
location, numel, view_metadata)), the sorted list of storage keys, then per key an int64 element
count and the raw bytes. Every legacy_X.pt gets a legacy_X.ref.pt: what torch.load returns for it,
re-saved in the zip format, so the C++ test compares locus's reading of the legacy file with
torch.load's value (through the zip reader, which is checked against torch separately).
legacy_storage_view.pt is written by hand (below): PyTorch before 1.0 pickled storage views with a
view_metadata (view key, offset, size), which torch.load still reads but 1.13 no longer writes.
"""
import collections
import io
import os
import pickle
import struct
import sys

import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def ar(n, dtype, scale=0.25, shift=-1.0):
    return (torch.arange(n, dtype=torch.float64) * scale + shift).to(dtype)


def save(obj, name):
    path = os.path.join(out, name)
    torch.save(obj, path, _use_new_zipfile_serialization=False)
    back = torch.load(path)
    torch.save(back, os.path.join(out, name[:name.rindex(".")] + ".ref.pt"))
    return back


# Every dtype locus reads.
d = collections.OrderedDict()
d["f32"] = ar(6, torch.float32).reshape(2, 3)
d["f64"] = ar(5, torch.float64, 0.1, 0.0)
d["f16"] = ar(4, torch.float16)
d["bf16"] = ar(4, torch.bfloat16)
d["i64"] = torch.arange(-3, 3, dtype=torch.int64) * (1 << 40)
d["i32"] = torch.arange(-2, 2, dtype=torch.int32)
d["i16"] = torch.arange(-300, 300, 100, dtype=torch.int16)
d["i8"] = torch.arange(-3, 3, dtype=torch.int8)
d["u8"] = torch.arange(250, 256, dtype=torch.uint8)
d["bool"] = torch.tensor([True, False, True])
save(d, "legacy_dtypes.pt")

# A small model's state dict (Linear + BatchNorm1d: float parameters and buffers, an int64 buffer;
# the OrderedDict carries _metadata, pickled with BUILD).
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
with torch.no_grad():
    model[0].weight.copy_(ar(12, torch.float32).reshape(3, 4))
    model[0].bias.copy_(ar(3, torch.float32, 0.5, 0.0))
    model[1].weight.copy_(ar(3, torch.float32, 1.0, 1.0))
    model[1].bias.copy_(ar(3, torch.float32, -1.0, 0.0))
    model[1].running_mean.copy_(ar(3, torch.float32, 0.125, 0.0))
    model[1].running_var.copy_(ar(3, torch.float32, 1.0, 2.0))
    model[1].num_batches_tracked.fill_(7)
save(model.state_dict(), "legacy_model.pt")

# Views sharing one storage, a 0-d tensor, an empty tensor, a Parameter.
base = ar(24, torch.float32).reshape(4, 6)
v = collections.OrderedDict()
v["base"] = base
v["tail"] = base[1:]
v["t"] = base.t()
v["slice2"] = base[1:][1:, 2:5]
v["col"] = base[:, 2]
v["scalar"] = torch.tensor(2.5)
v["empty"] = torch.empty(0, 4)
v["param"] = torch.nn.Parameter(ar(3, torch.float32, 2.0, 1.0))
save(v, "legacy_views.pt")

# A training checkpoint: model, Adam state (int keys, tuples, floats, None), epoch.
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = ar(8, torch.float32, 0.5, -1.0).reshape(2, 4)
model(x).square().sum().backward()
opt.step()
save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "name": "run1"}, "legacy_checkpoint.pth")

# Pickle protocol 4 (FRAME, MEMOIZE, SHORT_BINUNICODE) instead of torch.save's default 2.
path = os.path.join(out, "legacy_protocol4.pt")
torch.save(v, path, _use_new_zipfile_serialization=False, pickle_protocol=4)
torch.save(torch.load(path), os.path.join(out, "legacy_protocol4.ref.pt"))

# A bare tensor.
save(ar(5, torch.float64, 1.5, 0.5), "legacy_tensor.pt")

# A dtype locus refuses (naming the tensor), as the zip format does.
torch.save({"z": torch.complex(ar(3, torch.float32), ar(3, torch.float32, 1.0, 0.0))}, os.path.join(out, "legacy_complex.pt"),
           _use_new_zipfile_serialization=False)

# Saved on cuda:0 (no GPU here: the location tag is what torch writes for a CUDA tensor); the
# reference is loaded with map_location='cpu'.
orig = torch.serialization.location_tag
torch.serialization.location_tag = lambda storage: "cuda:0"
torch.save(model.state_dict(), os.path.join(out, "legacy_cuda.pt"), _use_new_zipfile_serialization=False)
torch.serialization.location_tag = orig
torch.save(torch.load(os.path.join(out, "legacy_cuda.pt"), map_location="cpu"), os.path.join(out, "legacy_cuda.ref.pt"))


# Storage views, as PyTorch 0.4 wrote them: two tensors on views of one root storage.
class StorageRef:
    def __init__(self, root_key, numel, view):
        self.root_key, self.numel, self.view = root_key, numel, view


class LegacyPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ("storage", torch.FloatStorage, obj.root_key, "cpu", obj.numel, obj.view)
        return None


def rebuild(storage, offset, size, stride):
    return (torch._utils._rebuild_tensor_v2, (storage, offset, size, stride, False, collections.OrderedDict()))


class T:  # a tensor to pickle: reduced to _rebuild_tensor_v2 over a StorageRef
    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return rebuild(*self.args)


root = ar(10, torch.float32)
f = io.BytesIO()
for header in (0x1950a86a20f9469cfc6c, 1001, dict(protocol_version=1001, little_endian=True,
                                                    type_sizes=dict(short=2, int=4, long=4))):
    pickle.dump(header, f, protocol=2)
objs = collections.OrderedDict()
objs["a"] = T(StorageRef("140001", 10, ("140002", 2, 6)), 1, (2, 2), (2, 1))  # root[3], [4], [5], [6]
objs["b"] = T(StorageRef("140001", 10, ("140003", 5, 5)), 0, (5,), (1,))      # root[5:10]
objs["whole"] = T(StorageRef("140001", 10, None), 0, (10,), (1,))
LegacyPickler(f, protocol=2).dump(objs)
pickle.dump(["140001"], f, protocol=2)
f.write(struct.pack("<q", 10) + root.numpy().tobytes())
with open(os.path.join(out, "legacy_storage_view.pt"), "wb") as g:
    g.write(f.getvalue())
back = torch.load(os.path.join(out, "legacy_storage_view.pt"))
assert back["a"].tolist() == [[root[3].item(), root[4].item()], [root[5].item(), root[6].item()]], back["a"]
assert back["b"].tolist() == root[5:].tolist()
torch.save(back, os.path.join(out, "legacy_storage_view.ref.pt"))

for name in sorted(os.listdir(out)):
    if name.startswith("legacy_") and ".ref." not in name:
        print(name, os.path.getsize(os.path.join(out, name)), "bytes")
