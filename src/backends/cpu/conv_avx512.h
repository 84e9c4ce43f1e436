#pragma once
// Float convolution with AVX-512F on the "shifted" layout, with no junk positions:
// src/backends/cpu/conv_avx512.cpp.
// One image's input is copied as kw * sh planes per channel: plane (c, j, phase) is hq x ow, row u
// holding in[c][phase + u*sh - ph][x*sw - pw + j*dw] (0 outside), hq = oh + (kh-1)*dh / sh. Column
// row r = (c, i, j) is then the contiguous run pad[offs[r] .. offs[r] + l), l = oh*ow, in plane
// (c, j, i*dh % sh) from row i*dh / sh: the output positions exactly, so outputs need no
// compaction and no position meets a value it should not (no 0 * inf from junk). With stride 1
// that is kw copies of the zero-padded image, each shifted by a column. `pad` must be readable
// kStep floats past the end of every run.
#include <cstdint>

namespace locus::cpu::conv_avx512 {

constexpr int64_t kStep = 16;  // floats per vector: runs are read in whole vectors

/// Whether this CPU runs the kernels: AVX-512F, and LOCUS_CPU_ISA unset or avx512 (avx2 and
/// generic turn them off; then conv_avx2 or the GEMMs serve).
bool available();

/// w [oc, k] rearranged for forward (oc * k floats).
void pack_forward(const float* w, int64_t oc, int64_t k, float* packed);

/// out[o][t] = bias[o] (0 when null) + sum_r w[o][r] * pad[offs[r] + t] for t < l; rows of `out`
/// are l long.
void forward(const float* packed, int64_t oc, int64_t k, const float* pad, const int64_t* offs, const float* bias,
             float* out, int64_t l);

/// gwt[r][o] += sum_{t < l} pad[offs[r] + t] * gyt[t][o]: the weight gradient transposed ([k, oc]),
/// from the output gradient transposed (gyt [l, oc]). With images > 1, summed over that many
/// images: image m's output gradient at gyt + m * l * oc, its shifted copy at pad + m * pad_stride.
void grad_weight(const float* gyt, int64_t oc, int64_t k, const float* pad, const int64_t* offs, int64_t l,
                 float* gwt, int64_t images = 1, int64_t pad_stride = 0);

/// One plane of the shifted copy at stride 1, every element written (no memset first):
/// plane[u * n + x] = src[(u - u0) * ss + x + shift] for u0 <= u < u1 and x0 <= x < x1, 0 for the
/// other u < rows, x < n; reads nothing outside those elements of src.
void shift_plane(const float* src, int64_t ss, int64_t shift, float* plane, int64_t rows, int64_t n, int64_t u0,
                 int64_t u1, int64_t x0, int64_t x1);

/// dst[r * ds + x] = src[r * ss + 2 * x] for r < rows, x < n (the columns a stride of 2 reads),
/// reading no further than src[r * ss + 2 * n - 2].
void gather_even(const float* src, int64_t ss, float* dst, int64_t ds, int64_t rows, int64_t n);

/// dst[2 * x] += src[x] for x < n (a stride-2 convolution's col2im along a row); touches no other
/// element of dst.
void add_stride2(float* dst, const float* src, int64_t n);

/// dst[t][o] = src[o][t] for o < rows, t < cols.
void transpose(const float* src, int64_t rows, int64_t cols, float* dst);
/// The same, and row_sums[r] += sum of src's row r (the bias gradient, read on the way).
void transpose(const float* src, int64_t rows, int64_t cols, float* dst, float* row_sums);

}  // namespace locus::cpu::conv_avx512
