"""Reference values for tests/nn/transformer_test.cpp from PyTorch 1.13 (run with /usr/bin/python3).

Every parameter and input is det(shape, k): sin(0.37 i + k) * scale over the flattened index i,
made in float64 and rounded to float32, as the test makes them; parameter k is its position in
named_parameters() (1, 2, ...). The modules run in eval() in float64; prints the C++ constants the
test holds (paste them over the ones there when a case changes).
"""
import torch
import torch.nn as nn

torch.set_printoptions(precision=10)


def det(shape, k, scale=0.5):
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n, dtype=torch.float64) * 0.37 + k).sin() * scale).float().double().reshape(shape)


def fill(module):
    with torch.no_grad():
        for k, (_, p) in enumerate(module.named_parameters(), start=1):
            p.copy_(det(p.shape, k))
    return module.double().eval()


def wrapped(head, items):
    """head {items, ...}; at most 120 characters a line."""
    lines, line = [], head + " = {"
    for i, item in enumerate(items):
        item += "," if i + 1 < len(items) else "};"
        if len(line) + 1 + len(item) > 118:
            lines.append(line)
            line = "    " + item
        else:
            line += ("" if line.endswith("{") else " ") + item
    print("\n".join(lines + [line]))


def emit(name, t):
    wrapped("const Vec k" + name, ["%.9g" % v for v in t.detach().reshape(-1).tolist()])


def names(name, module):
    wrapped("const std::vector<std::string> k%sNames" % name, ['"%s"' % n for n, _ in module.named_parameters()])


causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
kpm = torch.tensor([[False, False, True], [False, True, True]])
x = det((3, 2, 4), 101, 1.0)

mha = fill(nn.MultiheadAttention(4, 2))
names("Mha", mha)
out, w = mha(x, x, x)
emit("SelfOut", out), emit("SelfWeights", w)
emit("SelfHeadWeights", mha(x, x, x, average_attn_weights=False)[1])
xu = det((3, 4), 102, 1.0)
out, w = mha(xu, xu, xu)
emit("UnbatchedOut", out), emit("UnbatchedWeights", w)
out, w = mha(x, x, x, attn_mask=causal, key_padding_mask=torch.tensor([[False, False, True], [False, False, False]]))
emit("BoolMaskOut", out), emit("BoolMaskWeights", w)
fkpm = torch.tensor([[0.0, -1.0, 0.5], [0.0, 0.0, -2.0]], dtype=torch.float64)
out, w = mha(x, x, x, key_padding_mask=fkpm)
emit("FloatKpmOut", out), emit("FloatKpmWeights", w)
kv = det((5, 2, 4), 106, 1.0)
out, w = mha(x, kv, kv, attn_mask=det((4, 3, 5), 107, 2.0),
             key_padding_mask=torch.tensor([[False] * 4 + [True], [False] * 3 + [True] * 2]))
emit("FloatMaskOut", out), emit("FloatMaskWeights", w)

mha = fill(nn.MultiheadAttention(4, 2, kdim=3, vdim=5))
names("KvDims", mha)
out, w = mha(x, det((5, 2, 3), 104, 1.0), det((5, 2, 5), 105, 1.0))
emit("KvDimsOut", out), emit("KvDimsWeights", w)

mha = fill(nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True))
names("BiasKv", mha)
out, w = mha(x, x, x, attn_mask=causal, key_padding_mask=kpm, average_attn_weights=False)
emit("BiasKvOut", out), emit("BiasKvWeights", w)

mha = fill(nn.MultiheadAttention(4, 2, bias=False))
names("NoBias", mha)
emit("NoBiasOut", mha(x, x, x, need_weights=False)[0])

layer = fill(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6))
names("Layer", layer)
emit("PostNormOut", layer(x, src_mask=causal, src_key_padding_mask=kpm))
emit("PostNormUnbatchedOut", layer(xu))
layer = fill(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, activation="gelu", norm_first=True,
                                        layer_norm_eps=1e-3))
emit("PreNormGeluOut", layer(x, src_mask=causal, src_key_padding_mask=kpm))

enc = fill(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, dim_feedforward=6), 2, norm=nn.LayerNorm(4)))
names("Encoder", enc)
emit("EncoderOut", enc(x, mask=causal, src_key_padding_mask=kpm))

mem = det((5, 2, 4), 106, 1.0)
mem_pad = torch.tensor([[False] * 4 + [True], [False] * 3 + [True] * 2])
dec = fill(nn.TransformerDecoderLayer(4, 2, dim_feedforward=6))
names("DecoderLayer", dec)
emit("DecoderLayerOut", dec(x, mem, tgt_mask=causal, tgt_key_padding_mask=kpm, memory_key_padding_mask=mem_pad))
dec = fill(nn.TransformerDecoderLayer(4, 2, dim_feedforward=6, activation="gelu", norm_first=True))
emit("DecoderPreNormOut", dec(x, mem, memory_mask=det((3, 5), 108, 2.0)))
decoder = fill(nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, dim_feedforward=6), 2, norm=nn.LayerNorm(4)))
emit("DecoderOut", decoder(x, mem, tgt_mask=causal, memory_key_padding_mask=mem_pad))

tgt = det((5, 2, 4), 109, 1.0)
tgt_pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
model = fill(nn.Transformer(4, 2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=6))
names("Transformer", model)
emit("TransformerOut", model(x, tgt, src_mask=causal, tgt_mask=nn.Transformer.generate_square_subsequent_mask(5),
                             src_key_padding_mask=kpm, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=kpm))
model = fill(nn.Transformer(4, 2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=6, activation="gelu",
                            norm_first=True, layer_norm_eps=1e-3))
emit("TransformerPreNormOut", model(x, tgt, memory_mask=det((5, 3), 110, 2.0)))
emit("TransformerUnbatchedOut", model(xu, tgt[:, 1]))
