#pragma once
// Float 3x3 convolution (stride 1, dilation 1) by Winograd's F(2x2, 3x3) with AVX-512F or AVX2 +
// FMA: src/backends/cpu/conv_winograd.cpp. 2.25 times fewer multiplications than the direct kernels
// of conv_avx512.h, conv_avx512_lanes.h and conv_avx2.h. With AVX-512 the forward and the input
// gradient take it from 8 channels both ways (measured faster than the direct kernels on every
// shape tried, 16->32 at 14x14 to 512->512 at 2x2: conv 128->256 at 8x8 forward 0.59x of libtorch
// 1.13, was 0.90x); the weight gradient with up to 32 channels, or more on outputs of at most 8x8
// (where it measured 1.5-2.5x faster; level with the direct kernels at 12x12 and 16x16). With AVX2
// the same where 1/c + 1/oc <= 1/16 (Zen 3, batch 64: 128->256 at 8x8 forward 18.6 -> 12.7 ms,
// backward 52 -> 36 ms; 32->32 at 14x14 forward 2.45 -> 2.08 ms; level at 16->32 on 14x14).
#include <cstdint>

#include "core/backend.h"

namespace locus::cpu::conv_winograd {

using P = backend::Backend::Im2Col;

/// Whether forward() serves p.n images of geometry p with oc output channels: the AVX-512 or the
/// AVX2 kernels available (conv_avx512::available(), conv_avx2::available()), a 3x3 window, stride
/// and dilation 1, padding at most 2, output rows at most 30 wide, 8 input and output channels or
/// more (with AVX2, c * oc >= 16 (c + oc)), one image's transformed tiles within 8 MiB, and at least
/// as many images as pool threads.
bool applies(const P& p, int64_t oc);
/// Whether grad_weight serves it: as applies, with at most 32 channels both ways or outputs of at
/// most 8x8 (16 tiles).
bool grad_weight_applies(const P& p, int64_t oc);

/// y [p.n, oc, oh*ow] = the convolution of x [p.n, c, h, w] with w [oc, c, 3, 3], plus bias[o]
/// (none when null). Blocks of images run side by side on the pool threads. With `flip`, w is
/// instead the weight [c, oc, 3, 3] of the convolution whose input gradient this one is (p its
/// transposed geometry): each window read reversed, the channels swapped.
void forward(const float* x, const float* w, const float* bias, float* y, int64_t oc, const P& p, bool flip = false);

/// The weight gradient gw [oc, c, 3, 3] (written) of that convolution from the output gradient gy
/// [p.n, oc, oh*ow], and the bias gradient gb [oc] when not null: sums per block of images added
/// in block order (the same bits for any thread count).
void grad_weight(const float* x, const float* gy, float* gw, float* gb, int64_t oc, const P& p);

}  // namespace locus::cpu::conv_winograd
