#pragma once
// Float 3x3 convolution (stride 1, dilation 1) by Winograd's F(2x2, 3x3) with AVX-512F:
// src/backends/cpu/conv_winograd.cpp. 2.25 times fewer multiplications than the direct kernels of
// conv_avx512.h, for the few-channel shapes where it measured faster (the CNN's conv 16->32 on
// 14x14 and its input gradient, 32->16).
#include <cstdint>

#include "core/backend.h"

namespace locus::cpu::conv_winograd {

using P = backend::Backend::Im2Col;

/// Whether forward() serves p.n images of geometry p with oc output channels: the AVX-512 kernels
/// available, a 3x3 window, stride and dilation 1, padding at most 2, output rows at most 30
/// wide, 8 to 32 input and output channels, and at least as many images as pool threads.
bool applies(const P& p, int64_t oc);

/// y [p.n, oc, oh*ow] = the convolution of x [p.n, c, h, w] with w [oc, c, 3, 3], plus bias[o]
/// (none when null). Blocks of images run side by side on the pool threads.
void forward(const float* x, const float* w, const float* bias, float* y, int64_t oc, const P& p);

/// The weight gradient gw [oc, c, 3, 3] (written) of that convolution from the output gradient gy
/// [p.n, oc, oh*ow], and the bias gradient gb [oc] when not null: sums per block of images added
/// in block order (the same bits for any thread count).
void grad_weight(const float* x, const float* gy, float* gw, float* gb, int64_t oc, const P& p);

}  // namespace locus::cpu::conv_winograd
