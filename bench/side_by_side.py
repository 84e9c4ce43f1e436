#!/usr/bin/env python3
"""bench/side_by_side.cpp in Python: the same rows, the same timing and the same output, for the
PyTorch 2.x column of make bench (bench/run runs it with the 2.x peer's python, BENCH_PEER_PYTHON).
Keep the rows in step with the C++ program: same names, shapes, grad mode and optimiser.

  RESULT <tab> pytorch2 <tab> <op> <tab> <median ns per call> <tab> <calls per sample> <tab> <samples>

  side_by_side.py [--threads N] [--sample-ms MS] [--samples K] [--filter SUBSTRING] [--list] [--serve] [--config]

--serve reads op names from stdin, one a line, and answers each with its RESULT line (or MISSING);
a first line "CONFIG torch <version> blas <BLAS> isa <CPU capability> threads <n>" says how it runs.
"""
import argparse
import re
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

LIBRARY = "pytorch2"


def measure(op, sample_s, samples):
    """Warm-up for at least 50 ms (and 3 calls), a batch of calls of about sample_s, then the median
    over `samples` batches of the time per call (bench/side_by_side.cpp's measure())."""
    warm = 0
    t0 = time.perf_counter()
    while warm < 3 or time.perf_counter() - t0 < 0.05:
        op()
        warm += 1
    per_call = (time.perf_counter() - t0) / warm
    batch = max(1, int(sample_s / max(per_call, 1e-9)))
    ns = []
    for _ in range(samples):
        t = time.perf_counter()
        for _ in range(batch):
            op()
        ns.append((time.perf_counter() - t) * 1e9 / batch)
    ns.sort()
    median = ns[samples // 2] if samples % 2 else 0.5 * (ns[samples // 2 - 1] + ns[samples // 2])
    return median, batch, samples


sink = 0


def keep(t):
    global sink
    sink += t.numel()


def config_line(threads):
    show = torch.__config__.show()
    m = re.search(r"\bBLAS_INFO=([^,\s]*)", show)
    blas = m.group(1) if m else "?"
    if torch.backends.mkldnn.is_available():
        blas += "+onednn"
    try:
        isa = torch.backends.cpu.get_cpu_capability()
    except AttributeError:  # 1.13: only in the config text
        isa = next((l.split(":", 1)[1].strip() for l in show.splitlines() if "CPU capability usage" in l), "?")
    return f"CONFIG torch {torch.__version__} blas {blas} isa {isa} threads {threads}"


def build_ops():
    f32 = dict(dtype=torch.float32, device="cpu")
    M1, M16 = 1 << 20, 1 << 24
    one_a, one_b = torch.ones(1, **f32), torch.ones(1, **f32)
    m1_a, m1_b = torch.randn(M1, **f32), torch.randn(M1, **f32)
    m16_a, m16_b = torch.randn(M16, **f32), torch.randn(M16, **f32)
    g1024_a, g1024_b = torch.randn(1024, 1024, **f32), torch.randn(1024, 1024, **f32)
    g2048_a, g2048_b = torch.randn(2048, 2048, **f32), torch.randn(2048, 2048, **f32)
    logits = torch.randn(256, 1000, **f32)
    x = torch.randn(64, 784, **f32)
    w1, b1 = torch.randn(784, 256, **f32) * 0.05, torch.zeros(256, **f32)
    w2, b2 = torch.randn(256, 10, **f32) * 0.05, torch.zeros(10, **f32)
    cpu = torch.device("cpu")

    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    adam = torch.optim.Adam(mlp.parameters(), lr=1e-3)
    labels = torch.randint(10, (64,), dtype=torch.long)
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1568, 10))
    cnn_adam = torch.optim.Adam(cnn.parameters(), lr=1e-3)
    images = torch.rand(64, 1, 28, 28, **f32)

    def train_step(model, opt, inputs):
        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            opt.step()
            keep(loss)
        return step

    def mlp_forward():
        h = torch.relu(torch.matmul(x, w1) + b1)
        keep(torch.matmul(h, w2) + b2)

    ops = [
        ("add_1elem", lambda: keep(one_a + one_b)),
        ("to_noop_cpu", lambda: keep(one_a.to(cpu))),
        ("add_1M", lambda: keep(m1_a + m1_b)),
        ("add_16M", lambda: keep(m16_a + m16_b)),
        ("sum_16M", lambda: keep(m16_a.sum())),
        ("relu_16M", lambda: keep(torch.relu(m16_a))),
        ("matmul_1024", lambda: keep(torch.matmul(g1024_a, g1024_b))),
        ("matmul_2048", lambda: keep(torch.matmul(g2048_a, g2048_b))),
        ("softmax_256x1000", lambda: keep(torch.softmax(logits, 1))),
        ("randn_1M", lambda: keep(torch.randn(M1, **f32))),
        ("mlp_b64_784_256_10", mlp_forward),
        ("train_step_mlp_adam", train_step(mlp, adam, x)),
        ("train_step_cnn_adam", train_step(cnn, cnn_adam, images)),
    ]

    # The larger shapes (issue 18 item 4), batch 64: forward alone (no grad), and forward + backward
    # (torch.autograd.grad with a fixed upstream gradient, for the input, weight and bias).
    def conv_case(cin, cout, hw, k, stride, pad):
        out = (hw + 2 * pad - k) // stride + 1
        return dict(x=torch.randn(64, cin, hw, hw, **f32), w=torch.randn(cout, cin, k, k, **f32) * 0.05,
                    b=torch.randn(cout, **f32) * 0.05, gy=torch.randn(64, cout, out, out, **f32),
                    stride=(stride, stride), padding=(pad, pad))
    convs = [("conv_3_64_32", conv_case(3, 64, 32, 3, 1, 1)),
             ("conv_64_128_16", conv_case(64, 128, 16, 3, 1, 1)),
             ("conv_128_256_8", conv_case(128, 256, 8, 3, 1, 1)),
             ("conv_256_256_8_1x1", conv_case(256, 256, 8, 1, 1, 0)),
             ("conv_64_128_32_s2", conv_case(64, 128, 32, 3, 2, 1))]

    def conv_f(c):
        def op():
            with torch.no_grad():
                keep(F.conv2d(c["x"], c["w"], c["b"], c["stride"], c["padding"]))
        return op

    def conv_fb(c):
        xs = [c[k].clone().requires_grad_(True) for k in ("x", "w", "b")]
        def op():
            y = F.conv2d(xs[0], xs[1], xs[2], c["stride"], c["padding"])
            for g in torch.autograd.grad((y,), xs, (c["gy"],)):
                keep(g)
        return op

    ops += [(name + "_f", conv_f(c)) for name, c in convs]
    ops += [(name + "_fb", conv_fb(c)) for name, c in convs]

    lin_x, lin_w = torch.randn(64, 4096, **f32), torch.randn(4096, 4096, **f32) * 0.01
    lin_b, lin_gy = torch.randn(4096, **f32) * 0.01, torch.randn(64, 4096, **f32)
    lin_rg = [t.clone().requires_grad_(True) for t in (lin_x, lin_w, lin_b)]

    def linear_f():
        with torch.no_grad():
            keep(F.linear(lin_x, lin_w, lin_b))

    def linear_fb():
        y = F.linear(*lin_rg)
        for g in torch.autograd.grad((y,), lin_rg, (lin_gy,)):
            keep(g)

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]
    wide = nn.Sequential(*block(3, 32), *block(32, 64), *block(64, 128), nn.Flatten(), nn.Linear(2048, 10))
    wide.train()
    wide_adam = torch.optim.Adam(wide.parameters(), lr=1e-3)
    images32 = torch.rand(64, 3, 32, 32, **f32)

    ops += [("linear_4096_b64_f", linear_f), ("linear_4096_b64_fb", linear_fb),
            ("train_step_wide_cnn_bn_adam", train_step(wide, wide_adam, images32))]
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sample-ms", type=float, default=20)
    ap.add_argument("--samples", type=int, default=11)
    ap.add_argument("--filter", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--config", action="store_true", help="print the CONFIG line and exit")
    a = ap.parse_args()
    if a.config:
        torch.set_num_threads(a.threads)
        print(config_line(torch.get_num_threads()))
        return
    samples = max(1, a.samples)

    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    ops = build_ops()
    if a.list:
        for name, _ in ops:
            print(name)
        return
    print(config_line(torch.get_num_threads()), flush=True)

    def run(name, fn):
        med, batch, n = measure(fn, a.sample_ms * 1e-3, samples)
        print(f"RESULT\t{LIBRARY}\t{name}\t{med:.1f}\t{batch}\t{n}", flush=True)

    if a.serve:
        table = dict(ops)
        for line in sys.stdin:
            name = line.strip()
            if not name:
                break
            if name in table:
                run(name, table[name])
            else:
                print(f"MISSING\t{LIBRARY}\t{name}", flush=True)
        return
    print(f"# side_by_side.py: {LIBRARY}, {a.threads} threads, median of {samples} samples of ~{a.sample_ms:g} ms each")
    for name, fn in ops:
        if a.filter and a.filter not in name:
            continue
        run(name, fn)


if __name__ == "__main__":
    main()
