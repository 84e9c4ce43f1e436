#!/usr/bin/env python3
# Prints PyTorch 1.13's values for tests/nn/losses_more_test.cpp (loss batch, stop 46): ctc_loss,
# triplet_margin_with_distance_loss, CrossMapLRN2d and AdaptiveLogSoftmaxWithLoss. Inputs are
# test_main's sample(): sin(arange(n) * 0.731 + offset) * 1.3.
# Run with Debian's PyTorch: /usr/bin/python3 tests/nn/losses_more_cases.py
import math
import textwrap
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def s(shape, offset=0.0):
    n = math.prod(shape)
    return ((torch.arange(n, dtype=torch.float64) * 0.731 + offset).sin() * 1.3).reshape(shape)


def arr(name, t):
    v = t.reshape(-1).tolist() if isinstance(t, torch.Tensor) else list(t)
    text = "const std::vector<double> %s = {%s};" % (name, ", ".join("%.17g" % x for x in v))
    text = text.replace("inf", "INFINITY").replace("nan", "NAN")
    print("\n".join(textwrap.wrap(text, 116, subsequent_indent="    ")))


T = torch.tensor
L = torch.long

# ---- ctc_loss: T=6, N=3, C=5 ----
lp = (s([6, 3, 5]) * 2).log_softmax(2)
padded = T([[1, 2, 2], [3, 1, 0], [4, 0, 0]], dtype=L)
concat = T([1, 2, 2, 3, 1, 4], dtype=L)
il, tl = T([6, 5, 4]), T([3, 2, 1])
for r in ["none", "mean", "sum"]:
    x = lp.clone().requires_grad_()
    loss = F.ctc_loss(x, padded, il, tl, reduction=r)
    assert torch.allclose(loss, F.ctc_loss(lp, concat, il, tl, reduction=r))
    (loss * T([0.5, -1.0, 2.0]) if r == "none" else loss).sum().backward()
    arr("kCtc_" + r, loss)
    arr("kCtcGrad_" + r, x.grad)
# impossible alignments (item 0: [1, 1] needs 3 steps, has 2), an empty target, an empty input
imp_t, imp_il, imp_tl = T([[1, 1], [2, 0], [0, 0]], dtype=L), T([2, 3, 0]), T([2, 0, 0])
for zi in [False, True]:
    x = lp.clone().requires_grad_()
    loss = F.ctc_loss(x, imp_t, imp_il, imp_tl, reduction="none", zero_infinity=zi)
    loss.sum().backward() if zi else None
    # item 2 (no input, empty target): PyTorch 1.13 leaves its entry uninitialised (a different
    # denormal each run); the likelihood of the empty alignment is 1, so the loss is -log(1) = 0
    # (later PyTorch versions give 0).
    arr("kCtcImpossible_zi%d" % zi, [loss[0].item(), loss[1].item(), 0.0])
    if zi:
        arr("kCtcImpossibleGrad_zi1", x.grad)
x = lp.clone().requires_grad_()
F.ctc_loss(x, imp_t, imp_il, imp_tl, reduction="sum").backward()
arr("kCtcImpossibleGrad_zi0", x.grad)
# blank = 4, unbatched
x = lp[:, 1].clone().requires_grad_()
loss = F.ctc_loss(x, T([0, 3, 3, 2], dtype=L), T(6), T(4), blank=4, reduction="none")
loss.backward()
arr("kCtcUnbatchedBlank4", [loss.item()])
arr("kCtcUnbatchedBlank4Grad", x.grad)
print("const double kCtcFloat32 = %.17g;" % F.ctc_loss(lp.float(), padded, il, tl).item())

# ---- triplet_margin_with_distance_loss ----
a, p, n = s([4, 3]), s([4, 3], 1), s([4, 3], 2) * 0.5
cos_dist = lambda x, y: 1.0 - F.cosine_similarity(x, y)
for r in ["none", "mean", "sum"]:
    arr("kTripletDefault_" + r, F.triplet_margin_with_distance_loss(a, p, n, margin=2.0, reduction=r))
    arr("kTripletCosineSwap_" + r, F.triplet_margin_with_distance_loss(a, p, n, distance_function=cos_dist,
                                                                      margin=0.5, swap=True, reduction=r))

# ---- CrossMapLRN2d ----
lrn_in = s([2, 5, 2, 3])
for size, alpha, beta, k in [(3, 0.1, 0.75, 1), (2, 0.5, 0.6, 2), (4, 1e-4, 0.75, 1)]:
    x = lrn_in.clone().requires_grad_()
    out = nn.CrossMapLRN2d(size, alpha, beta, k)(x)
    (out * s([2, 5, 2, 3], 5)).sum().backward()
    arr("kLrn%d" % size, out)
    arr("kLrnGrad%d" % size, x.grad)

# ---- AdaptiveLogSoftmaxWithLoss: in 8, classes 10, cutoffs [4, 7], div_value 2 ----
for head_bias in [False, True]:
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=head_bias)
    with torch.no_grad():
        for i, (name, prm) in enumerate(m.named_parameters()):
            prm.copy_(s(list(prm.shape), i + 0.5) * 0.6)
    if not head_bias:
        text = "// parameters: " + ", ".join("%s %s" % (k, list(v.shape)) for k, v in m.named_parameters())
        print("\n".join(textwrap.wrap(text, 116, subsequent_indent="//     ")))
    x = s([5, 8], 3).requires_grad_()
    tgt = T([0, 5, 9, 3, 7], dtype=L)
    res = m(x, tgt)
    (-res.output * T([1.0, 0.5, -0.25, 2.0, 1.5])).sum().backward()
    tag = "Bias" if head_bias else ""
    arr("kAsm%sOutput" % tag, res.output)
    print("const double kAsm%sLoss = %.17g;" % (tag, res.loss.item()))
    arr("kAsm%sInputGrad" % tag, x.grad)
    arr("kAsm%sHeadGrad" % tag, m.head.weight.grad)
    arr("kAsm%sTail1Grad" % tag, m.tail[1][0].weight.grad)
    with torch.no_grad():
        arr("kAsm%sLogProb" % tag, m.log_prob(s([5, 8], 3)))
        arr("kAsm%sPredict" % tag, m.predict(s([5, 8], 3) * 2))
        arr("kAsm%sUnbatched" % tag, [m(s([8], 4), T(8)).output.item()])
