"""Reference values for the proj_size tests in tests/nn/rnn_test.cpp from PyTorch 1.13 (run with
/usr/bin/python3).

As tests/nn/transformer_cases.py: every parameter and input is det(shape, k) = sin(0.37 i + k) * scale
over the flattened index i, made in float64 and rounded to float32; parameter k is its position in
named_parameters() (1, 2, ...). The modules run in float64; prints the C++ constants the test holds.
"""
import torch
import torch.nn as nn

from transformer_cases import det, emit, fill, names  # noqa: E402 (prints the transformer cases first)

print("// ---- rnn_cases.py")
lstm = fill(nn.LSTM(3, 4, num_layers=2, proj_size=2, bidirectional=True))
names("ProjLstm", lstm)
y, (h, c) = lstm(det((5, 2, 3), 101, 1.0), (det((4, 2, 2), 102), det((4, 2, 4), 103)))
emit("ProjOut", y), emit("ProjH", h), emit("ProjC", c)
lstm = fill(nn.LSTM(3, 5, proj_size=3, batch_first=True, bias=False))
y, (h, c) = lstm(det((2, 4, 3), 104, 1.0))
emit("ProjBatchFirstOut", y), emit("ProjBatchFirstH", h), emit("ProjBatchFirstC", c)
y, (h, c) = lstm(det((4, 3), 105, 1.0))
emit("ProjUnbatchedOut", y), emit("ProjUnbatchedH", h)

# packed sequences: lengths 3, 5, 2 (unsorted), the padding between steps is never read
seqs = [det((3, 2), 111, 1.0), det((5, 2), 112, 1.0), det((2, 2), 113, 1.0)]
padded = nn.utils.rnn.pad_sequence(seqs)
packed = nn.utils.rnn.pack_padded_sequence(padded, torch.tensor([3, 5, 2]), enforce_sorted=False)
emit("PackedData", packed.data)
lstm = fill(nn.LSTM(2, 3, num_layers=2, bidirectional=True))
y, (h, c) = lstm(packed, (det((4, 3, 3), 114), det((4, 3, 3), 115)))
emit("PackedLstmData", y.data), emit("PackedLstmH", h), emit("PackedLstmC", c)
emit("PackedLstmPadded", nn.utils.rnn.pad_packed_sequence(y, padding_value=-1.0, total_length=6)[0])
gru = fill(nn.GRU(2, 3, batch_first=True))
y, h = gru(nn.utils.rnn.pack_padded_sequence(padded.transpose(0, 1), torch.tensor([3, 5, 2]), batch_first=True,
                                             enforce_sorted=False))
emit("PackedGruData", y.data), emit("PackedGruH", h)
rnn = fill(nn.RNN(2, 3, bidirectional=True))
y, h = rnn(nn.utils.rnn.pack_sequence([seqs[1], seqs[0], seqs[2]]))
emit("PackedRnnData", y.data), emit("PackedRnnH", h)
