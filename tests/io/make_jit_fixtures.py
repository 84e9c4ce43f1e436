#!/usr/bin/python3
"""Writes the TorchScript fixtures of tests/io/libtorch_archive_test.cpp with Debian's python3-torch:
a scripted and a traced module (torch.jit.save), arange-based values as make_libtorch_fixtures.cpp.

    /usr/bin/python3 tests/io/make_jit_fixtures.py tests/io/fixtures
"""
import sys

import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.fc1(x))


def ar(n, scale=0.25, shift=-1.0):
    return (torch.arange(n, dtype=torch.float64) * scale + shift).to(torch.float32)


net = Net()
with torch.no_grad():
    net.fc1.weight.copy_(ar(12).reshape(3, 4))
    net.fc1.bias.copy_(ar(3, 0.5, 0.25))
    net.bn.weight.copy_(ar(3, 1.0, 1.0))
    net.bn.bias.copy_(ar(3, -0.5, 0.0))
    net.bn.running_mean.copy_(ar(3, 0.125, 0.5))
    net.bn.running_var.copy_(ar(3, 2.0, 1.0))
    net.bn.num_batches_tracked.fill_(7)
out = sys.argv[1]
torch.jit.script(net).save(out + "/jit_script.pt")
torch.jit.trace(net.eval(), torch.ones(2, 4)).save(out + "/jit_trace.pt")
