"""Writes the PyTorch 2.x checkpoints of tests/io/fixtures (torch2_*.pt), with a PyTorch 2.x:

    PYTHON_WITH_TORCH_2 tests/io/make_torch2_fixtures.py OUT_DIR

(the fixtures were written with the PyTorch 2 of the build's peer venv). PyTorch 2.x's zip files
carry records 1.13's lack (.data/serialization_id, .format_version, .storage_alignment, byteorder)
and 64-byte aligned storages; a dtype without a typed storage class (uint16/32/64, float8) is
pickled with torch._utils._rebuild_tensor_v3 over a torch.storage.UntypedStorage. Values are
arange-based, so the C++ test checks them without torch; each file's values are printed too.
"""
import collections
import os
import sys

import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
print("torch", torch.__version__)


def ar(n, dtype, scale=0.25, shift=-1.0):
    return (torch.arange(n, dtype=torch.float64) * scale + shift).to(dtype)


model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
with torch.no_grad():
    model[0].weight.copy_(ar(12, torch.float32).reshape(3, 4))
    model[0].bias.copy_(ar(3, torch.float32, 0.5, 0.0))
    model[1].weight.copy_(ar(3, torch.float32, 1.0, 1.0))
    model[1].bias.copy_(ar(3, torch.float32, -1.0, 0.0))
    model[1].running_mean.copy_(ar(3, torch.float32, 0.125, 0.0))
    model[1].running_var.copy_(ar(3, torch.float32, 1.0, 2.0))
    model[1].num_batches_tracked.fill_(7)
torch.save(model.state_dict(), os.path.join(out, "torch2_model.pt"))

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
d["scalar"] = torch.tensor(2.5)
d["empty"] = torch.empty(0, 4)
base = ar(24, torch.float32).reshape(4, 6)
d["t"] = base.t()
d["col"] = base[:, 2]
torch.save(d, os.path.join(out, "torch2_dtypes.pt"), _use_new_zipfile_serialization=True)
# The legacy format, as PyTorch 2.x still writes it on request.
torch.save(d, os.path.join(out, "torch2_legacy.pt"), _use_new_zipfile_serialization=False)

opt = torch.optim.Adam(model.parameters(), lr=0.01)
model(ar(8, torch.float32, 0.5, -1.0).reshape(2, 4)).square().sum().backward()
opt.step()
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, os.path.join(out, "torch2_checkpoint.pth"))
print("exp_avg of 0.weight", opt.state_dict()["state"][0]["exp_avg"].flatten().tolist())
print("0.weight after the step", model[0].weight.flatten().tolist()[:4])
print("num_batches_tracked", model[1].num_batches_tracked.item())
print("step", opt.state_dict()["state"][0]["step"].item())

# Dtypes locus does not compute with: refused naming the tensor.
for name, dt in [("uint16", torch.uint16), ("uint32", torch.uint32), ("uint64", torch.uint64),
                 ("float8_e4m3fn", torch.float8_e4m3fn), ("float8_e5m2", torch.float8_e5m2)]:
    torch.save({"w": torch.arange(4).to(dt)}, os.path.join(out, "torch2_" + name + ".pt"))

# torch.load of every file (weights_only, the 2.x default) gives back what was saved.
for name in sorted(os.listdir(out)):
    if name.startswith("torch2_"):
        back = torch.load(os.path.join(out, name))
        print(name, os.path.getsize(os.path.join(out, name)), "bytes", sorted(back.keys())[:4])
