#pragma once
// Float convolution with AVX-512F, output channels in the vector lanes: src/backends/cpu/conv_avx512_lanes.cpp.
// Unlike the shifted layout's kernels (conv_avx512.h, positions in the lanes), these compute each
// output position from the window taps that fall inside the image only: no multiply-add meets the
// zero padding (16 % of a 3x3 pad-1 convolution's at 8x8, 8 % at 16x16), as oneDNN's do. Stride 1
// (the forward also stride 2; grad_input: a stride-2 convolution's input gradient as four stride-1
// ones), any window, padding and dilation. One image at a time, on the caller's thread.
#include <cstdint>

#include "core/backend.h"

namespace locus::cpu::conv_lanes {

using P = backend::Backend::Im2Col;

/// Whether these kernels serve a float convolution of one image with geometry p (c input
/// channels) into oc output channels: AVX-512F (conv_avx512::available), stride 1, and the shapes
/// where they measured faster than the shifted layout's (32 channels or more on both sides, rows
/// of whole 8-position blocks, up to 32x32 outputs, padding to skip).
bool suits(const P& p, int64_t oc);
/// Whether forward serves it: as suits, or the same shapes at stride 2 (forward only; the
/// weight gradient needs stride 1).
bool forward_suits(const P& p, int64_t oc);

/// Floats of the packed weight for oc output channels (a multiple of 16 of them times the window).
int64_t packed_size(const P& p, int64_t oc);
/// w [oc, c, kh, kw] rearranged for forward (on the pool's threads). With `flip`, w is instead the
/// weight [c, oc, kh, kw] of the convolution whose input gradient this one is (p its transposed
/// geometry): each window is read reversed, with the channels swapped.
void pack(const float* w, int64_t oc, const P& p, float* packed, bool flip = false);

/// Floats of scratch forward needs.
int64_t scratch_size(const P& p, int64_t oc);
/// out [oc, oh*ow] = bias (0 when null) + the convolution of image [c, h, w] with the packed weight.
/// next (when not null): the image this thread convolves next, whose lines are prefetched into L2
/// while this one is computed (its copy would otherwise wait on memory first).
void forward(const float* packed, int64_t oc, const P& p, const float* image, const float* bias, float* scratch,
             float* out, const float* next = nullptr);

/// The input gradient of a stride-2 convolution (geometry p, oc output channels) as four stride-1
/// convolutions of the output gradient, one per parity of the input's row and column: each takes
/// only the window taps that meet its positions (a transposed convolution's or col2im's products
/// with the zeros between gy's positions are never formed). Whether they serve p: AVX-512F, stride
/// 2, dilation 1, 32 channels or more both ways, up to 64x64 inputs, and every class a convolution
/// with taps that reads gy itself (3x3 with padding 1, the common case).
bool grad_input_suits(const P& p, int64_t oc);
/// Floats of the classes' packed weights.
int64_t grad_input_packed_size(const P& p, int64_t oc);
/// w [oc, c, kh, kw] rearranged for grad_input (the weight of each class, packed).
void grad_input_pack(const float* w, int64_t oc, const P& p, float* packed);
/// Floats of scratch grad_input needs.
int64_t grad_input_scratch_size(const P& p, int64_t oc);
/// gx [c, h, w] = the input gradient of one image from its output gradient gy [oc, oh, ow]; next
/// (when not null): the output gradient this thread takes next, prefetched into L2 as forward's.
void grad_input(const float* packed, int64_t oc, const P& p, const float* gy, float* scratch, float* gx,
                const float* next = nullptr);

/// Floats of scratch grad_weight needs for `images` images.
int64_t grad_weight_scratch_size(const P& p, int64_t oc, int64_t images = 1);
/// gwt[r][o] += the weight gradient of `images` consecutive images [images, c, h, w] for column
/// row r = (c, i, j) and output channel o (transposed, [c*kh*kw, oc]), from their output gradient
/// gy [images, oc, oh*ow]; with `store`, gwt[r][o] = that gradient (gwt need not be initialised).
/// bias_sums (when not null) [o] += the sum of gy's rows o.
void grad_weight(const float* gy, int64_t oc, const P& p, const float* image, float* scratch, float* gwt,
                 float* bias_sums, bool store = false, int64_t images = 1);

}  // namespace locus::cpu::conv_lanes
