#!/usr/bin/python3
"""The locus-train recipe in PyTorch (Debian's python3-torch 1.13, or PyTorch 2.x from PyPI in
build/peer-venv), for make bench-train.

Fashion-MNIST from the same IDX files, inputs scaled to [0, 1], Adam, cross-entropy, shuffled
batches, then the test accuracy. Prints one line per epoch and a final line
  RESULT <model> cpu <epoch seconds (median over epochs)> <test accuracy %>
after a first line saying what ran:
  CONFIG torch <version> blas <BLAS_INFO> isa <CPU capability> threads <n>
and, last, the process's memory in KiB (the resident set after the imports, i.e. the interpreter,
numpy and torch with no data yet; the resident set once the data is read and the model built; the
largest resident set, getrusage's ru_maxrss):
  MEMORY startup_rss_kib <n> before_training_rss_kib <n> max_rss_kib <n>
Run it as PyTorch runs best here: OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1 (bench/run-train).
"""
import argparse, gzip, os, re, resource, struct, sys, time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(root, split):
    def find(name):
        p = os.path.join(root, name)
        return p if os.path.exists(p) else p + ".gz"
    x = read_idx(find(f"{split}-images-idx3-ubyte"))
    y = read_idx(find(f"{split}-labels-idx1-ubyte"))
    return torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1), torch.from_numpy(y.astype(np.int64))


def model_for(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(1568, 10))


def config_line(threads):
    show = torch.__config__.show()
    def field(key):
        m = re.search(r"\b" + key + r"=([^,\s]*)", show)
        return m.group(1) if m else "?"
    try:
        isa = torch.backends.cpu.get_cpu_capability()  # 2.x
    except AttributeError:  # 1.13: only in the config text
        isa = next((l.split(":", 1)[1].strip() for l in show.splitlines() if "CPU capability usage" in l), "?")
    blas = field("BLAS_INFO")
    if blas == "mkl":
        blas = "mkl" + ("+onednn" if torch.backends.mkldnn.is_available() else "")
    elif torch.backends.mkldnn.is_available():
        blas += "+onednn"
    return f"CONFIG torch {torch.__version__} blas {blas} isa {isa} threads {threads}"


def resident_kib():
    """The resident set now, in KiB (VmRSS in /proc/self/status); -1 where there is none."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def main():
    startup_kib = resident_kib()  # the interpreter, numpy and torch imported; no data yet
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="cnn", choices=["mlp", "cnn"])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(config_line(torch.get_num_threads()), flush=True)
    torch.manual_seed(a.seed)
    xtr, ytr = load(a.data, "train")
    xte, yte = load(a.data, "t10k")
    model = model_for(a.model)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    before_training_kib = resident_kib()
    times = []
    acc = 0.0
    for epoch in range(1, a.epochs + 1):
        t0 = time.perf_counter()
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), a.batch_size):
            idx = perm[i:i + a.batch_size]
            x, y = xtr[idx], ytr[idx]
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        train_s = time.perf_counter() - t0
        model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(xte), 1000):
                correct += (model(xte[i:i + 1000]).argmax(1) == yte[i:i + 1000]).sum().item()
        acc = 100.0 * correct / len(xte)
        times.append(train_s)
        print(f"pytorch {a.model} epoch {epoch}: train {train_s:.2f}s, test accuracy {acc:.2f}%", flush=True)
    times.sort()
    print(f"RESULT {a.model} cpu {times[len(times) // 2]:.3f} {acc:.2f}")
    # ru_maxrss is in KiB on Linux (as locus-train's max RSS)
    max_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"MEMORY startup_rss_kib {startup_kib} before_training_rss_kib {before_training_kib} max_rss_kib {max_kib}")


if __name__ == "__main__":
    sys.exit(main())
