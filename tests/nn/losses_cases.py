#!/usr/bin/env python3
# Prints PyTorch 1.13's values for tests/nn/losses_test.cpp's kReference table: each case's
# unreduced loss, mean and sum. Inputs are test_main's sample(): sin(arange(n) * 0.731 + offset) * 1.3.
# Run with Debian's PyTorch: /usr/bin/python3 tests/nn/losses_cases.py
import math
import textwrap
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def s(shape, offset=0.0):
    n = math.prod(shape)
    return ((torch.arange(n, dtype=torch.float64) * 0.731 + offset).sin() * 1.3).reshape(shape)


T = torch.tensor
L = torch.long
cases = {
    "margin_ranking": lambda r: F.margin_ranking_loss(s([6]), s([6], 1), T([1., -1, 1, 1, -1, -1]), margin=0.3,
                                                      reduction=r),
    "hinge_embedding": lambda r: F.hinge_embedding_loss(s([2, 3]) * 2, T([[1., -1, 1], [-1, -1, 1]]), margin=1.5,
                                                        reduction=r),
    "cosine_embedding": lambda r: F.cosine_embedding_loss(s([3, 4]), s([3, 4], 2), T([1., -1, -1]), margin=0.1,
                                                          reduction=r),
    "cosine_embedding_1d": lambda r: F.cosine_embedding_loss(s([4]), s([4], 2), T(1.), reduction=r),
    "soft_margin": lambda r: F.soft_margin_loss(s([2, 3]) * 3, T([[1., -1, 1], [-1, 1, 1]]), reduction=r),
    "multilabel_soft_margin": lambda r: F.multilabel_soft_margin_loss(
        s([2, 4]) * 2, T([[1., 0, 1, 0], [0, 0, 1, 1]]), weight=s([4], 3).abs() + 0.2, reduction=r),
    "triplet": lambda r: F.triplet_margin_loss(s([3, 5]), s([3, 5], 1), s([3, 5], 2), margin=3.0,
                                               reduction=r),
    "triplet_p1_swap": lambda r: F.triplet_margin_loss(s([3, 5]), s([3, 5], 1), s([3, 5], 2) * 0.5, margin=2.0,
                                                       p=1, swap=True, reduction=r),
    "poisson_log_full": lambda r: F.poisson_nll_loss(s([2, 3]), T([[0., 1, 2], [3, 0.5, 4]]), full=True,
                                                     reduction=r),
    "poisson_rate": lambda r: F.poisson_nll_loss(s([2, 3]).abs() + 0.1, T([[0., 1, 2], [3, 0.5, 4]]),
                                                 log_input=False, reduction=r),
    "gaussian_full": lambda r: F.gaussian_nll_loss(s([2, 3]), s([2, 3], 1), s([2, 3], 2).abs() + 0.05, full=True,
                                                   reduction=r),
    "gaussian_var_short": lambda r: F.gaussian_nll_loss(s([2, 3]), s([2, 3], 1), T([0.5, 2.0]), reduction=r),
    "gaussian_var_last1": lambda r: F.gaussian_nll_loss(s([2, 3]), s([2, 3], 1), T([[0.], [3.0]]), reduction=r),
    "multi_margin": lambda r: F.multi_margin_loss(s([3, 4]), T([1, 0, 3], dtype=L), reduction=r),
    "multi_margin_p2_weight": lambda r: F.multi_margin_loss(s([3, 4]), T([1, 0, 3], dtype=L), p=2, margin=0.7,
                                                            weight=s([4], 3).abs() + 0.2, reduction=r),
    "multilabel_margin": lambda r: F.multilabel_margin_loss(
        s([3, 4]), T([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]], dtype=L), reduction=r),
    "multilabel_margin_1d": lambda r: F.multilabel_margin_loss(s([4]), T([2, 2, 0, -1], dtype=L), reduction=r),
}


def row(name, values, mean, total):
    text = '{"%s", {%s}, %.17g, %.17g},' % (name, ", ".join("%.17g" % v for v in values), mean, total)
    print("\n".join(textwrap.wrap(text, 116, initial_indent="    ", subsequent_indent="     ")))


for name, f in cases.items():
    row(name, f("none").reshape(-1).tolist(), f("mean").item(), f("sum").item())
print("    // distances (no reduction): the values, their mean and sum")
dist = {
    "cosine_similarity": lambda: F.cosine_similarity(s([3, 4]), s([3, 4], 2), dim=1),
    "cosine_similarity_dim0_broadcast": lambda: F.cosine_similarity(s([3, 4]), s([4], 2), dim=0),
    "pairwise_distance": lambda: F.pairwise_distance(s([3, 4]), s([3, 4], 2)),
    "pairwise_distance_p1.5_keepdim": lambda: F.pairwise_distance(s([3, 4]), s([4], 2), p=1.5, keepdim=True),
    "pairwise_distance_inf": lambda: F.pairwise_distance(s([3, 4]), s([3, 4], 2), p=math.inf),
}
for name, f in dist.items():
    v = f()
    row(name, v.reshape(-1).tolist(), v.mean().item(), v.sum().item())
