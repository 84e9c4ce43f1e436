#pragma once
// Float convolution with AVX2 + FMA on the padded ("wide") and the shifted layouts of conv.cpp,
// and 2x2 max pooling: src/backends/cpu/conv_avx2.cpp.
// Column row r of an image is pad[offs[r] .. offs[r] + lw). forward() takes any lw and reads each
// run up to lw rounded up to a multiple of kStep, which must lie inside `pad`; grad_input() needs lw
// a multiple of kStep; grad_weight() takes any lw and reads nothing past the runs and rows. Rows of
// `out`, `gy` are lw long.
#include <cstdint>

namespace locus::cpu::conv_avx2 {

constexpr int64_t kStep = 16;  // positions per micro-kernel
constexpr int64_t kRows = 6;   // output channels (forward) or column rows (input gradient) per block

/// Rows in block b of n rows split into blocks of at most kRows, as evenly as possible (32 rows:
/// 6, 6, 5, 5, 5, 5 rather than five 6s and a 2, which would run at a third of the speed).
int64_t block_rows(int64_t n, int64_t b);

/// Whether this CPU runs the kernels (AVX2 and FMA, and LOCUS_CPU_ISA not capped below avx2); the
/// callers use GEMMs otherwise.
bool available();

/// w [oc, k] rearranged for forward (oc * k floats).
void pack_forward(const float* w, int64_t oc, int64_t k, float* packed);
/// w [oc, k] rearranged for grad_input (oc * k floats).
void pack_grad_input(const float* w, int64_t oc, int64_t k, float* packed);

/// out[o][t] = bias[o] + sum_r w[o][r] * pad[offs[r] + t] for t < lw (no bias term when bias is null).
void forward(const float* packed, int64_t oc, int64_t k, const float* pad, const int64_t* offs, const float* bias,
             float* out, int64_t lw);
/// gpad[offs[r] + t] += sum_o w[o][r] * gy[o][t] for t < lw.
void grad_input(const float* packed, int64_t oc, int64_t k, const float* gy, int64_t lw, const int64_t* offs,
                float* gpad);
/// gw[o][r] += sum_t gy[o][t] * pad[offs[r] + t] for t < lw.
void grad_weight(const float* gy, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t lw,
                 float* gw);

/// Whether grad_weight_lanes serves a weight gradient of oc output channels and k column rows: oc
/// a multiple of 16, and k at least 64, where its transpose of the output gradient pays (measured
/// on Zen 3 against grad_weight with the transpose counted: 1.1-1.4x faster for 16 -> 16, 32, 64
/// channels at 14x14 to 28x28, 2.6x at 7x7; 2x slower for 1 or 3 input channels).
bool lanes_suit(int64_t oc, int64_t k);

/// dst[t][o] = src[o][t] for o < rows (a multiple of 8), t < cols; sums[o] += sum_t src[o][t] when
/// sums is not null (the bias gradient, read on the way).
void transpose(const float* src, int64_t rows, int64_t cols, float* dst, float* sums);

/// gwt[r][o] += sum_t pad[offs[r] + t] * gyt[t][o] for r < k, o < oc (lanes_suit): the weight
/// gradient transposed ([k, oc]) from the output gradient transposed (gyt [l, oc], by transpose()),
/// channels in the lanes, so no sum across lanes and no masked last vector.
void grad_weight_lanes(const float* gyt, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t l,
                       float* gwt);

/// The vertical pass of 2x2 max pooling for `rows` output rows of ow (im2col.cpp's pool_rows, for
/// float): for row r, of the top pair maxima h[2r*ow + x] and the bottom ones h[(2r+1)*ow + x], with
/// positions in hp at the same places, out[r*ow + x] gets the bottom one when the top one is not NaN
/// and the bottom one is not <= it, ix[r*ow + x] its position. With ow < 8, h and hp must have 8
/// readable elements past the last row's.
void max_pool_rows(const float* h, const int32_t* hp, float* out, int64_t* ix, int64_t ow, int64_t rows);

/// 2x2 stride-2 max pooling of `planes` planes of h x w (in), outputs oh x ow each (oh = h / 2,
/// ow = w / 2, ow >= 8) with their positions in the plane, in one pass: eight outputs a step from
/// two vectors of each of the two input rows (the row's last eight again, overlapping). Narrower
/// rows take the two passes: masked loads and stores (vmaskmov) made it slower there on Zen 3. The
/// same choices as pool_pairs + max_pool_rows: ties to the left, then to the top; a NaN wins.
void max_pool2x2(const float* in, float* out, int64_t* ix, int64_t planes, int64_t h, int64_t w, int64_t oh,
                 int64_t ow);

/// One plane of the shifted copy at column stride sw (1 or 2), every element written (no memset
/// first), as conv_avx512::shift_plane and gather_even: plane[u * n + x] = src[(u - u0) * ss + x * sw
/// + shift] for u0 <= u < u1 and x0 <= x < x1, 0 for the other u < rows, x < n; reads nothing
/// outside those elements of src (masked loads). Needs n >= 8: a row is whole vectors, the last one
/// overlapping.
void shift_plane(const float* src, int64_t ss, int64_t shift, float* plane, int64_t rows, int64_t n, int64_t u0,
                 int64_t u1, int64_t x0, int64_t x1, int64_t sw = 1);

/// dst[r * ds + t] = src[r * ss + t] (+ *add when add is not null) for r < rows, t < n: the rows
/// of a plane, often 7 to 56 wide, in whole vectors (the last one overlapping), not a memmove call
/// per row. Needs n >= 8, and src and dst apart.
void copy_rows(const float* src, int64_t ss, float* dst, int64_t ds, int64_t rows, int64_t n, const float* add);

}  // namespace locus::cpu::conv_avx2
