// Max pooling (forward with the positions of the maxima, and its backward), plane by plane.
#include <limits>
#include <vector>

#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using P = backend::Backend::Im2Col;

// 2x2, stride-2 max pooling in two vectorisable passes: the horizontal pass takes the larger of
// each pair (in[2t], in[2t+1]) along the rows, over the whole plane at once when w is even (the
// pairs are then contiguous across rows), with the position it took (int32: narrow types would
// make the vectoriser's step wider than a row); the vertical pass takes the larger of two such
// rows. Ties go to the left, then to the top, and a NaN wins: exactly the first maximum in
// row-major order, as PyTorch's window scan. Both loops are branch-free: on real data every other
// branch would be mispredicted.
template <class T>
LOCUS_CPU_CLONES void pool_pairs(const T* __restrict in, compute_t<T>* __restrict h, int32_t* __restrict hp,
                                 int64_t n, int32_t base) {
  using C = compute_t<T>;
  for (int64_t t = 0; t < n; ++t) {
    const C a = static_cast<C>(in[2 * t]), b = static_cast<C>(in[2 * t + 1]);
    const int32_t take = (a == a) & !(b <= a);  // 0 or 1
    h[t] = take ? b : a;
    hp[t] = base + 2 * static_cast<int32_t>(t) + take;
  }
}

// The vertical pass over one output row: top pair maxima at h, bottom ones at h + ow.
template <class T>
LOCUS_CPU_CLONES void pool_rows(const compute_t<T>* __restrict h, const int32_t* __restrict hp, T* __restrict o,
                                int64_t* __restrict ix, int64_t ow) {
  using C = compute_t<T>;
  for (int64_t x = 0; x < ow; ++x) {
    const C a = h[x], b = h[ow + x];
    const bool take = (a == a) & !(b <= a);
    o[x] = static_cast<T>(take ? b : a);
    ix[x] = take ? hp[ow + x] : hp[x];
  }
}

// `planes` whole planes: the horizontal pass plane by plane (positions within the plane), then
// the vertical pass over all their output rows at once (rows of 7 or 14 are too short for a
// vector loop each). h and hp hold planes * 2 * oh * ow elements, plus 8 (the float kernel reads
// past the last row when rows are narrower than a vector). Needs p.h * p.w < 2^31.
// of: a float buffer of planes * oh * ow + 8 for 16-bit T (the float kernel's outputs, converted
// to T in one vector pass: a maximum is one of the inputs, so the conversion is exact), else null.
template <class T>
void pool2x2_planes(const T* in, T* o, int64_t* ix, int64_t planes, const P& p, compute_t<T>* h, int32_t* hp,
                    float* of) {
  const int64_t ow = p.ow, hl = 2 * p.oh * ow;  // pair maxima per plane
  for (int64_t q = 0; q < planes; ++q) {
    const T* plane = in + q * p.h * p.w;
    if (p.w == 2 * ow) {
      pool_pairs<T>(plane, h + q * hl, hp + q * hl, hl, 0);
    } else {
      for (int64_t y = 0; y < 2 * p.oh; ++y)
        pool_pairs<T>(plane + y * p.w, h + q * hl + y * ow, hp + q * hl + y * ow, ow, static_cast<int32_t>(y * p.w));
    }
  }
  const int64_t rows = planes * p.oh;
  static const bool avx2 = conv_avx2::available();
  if constexpr (std::is_same_v<T, float>) {
    if (avx2) return conv_avx2::max_pool_rows(h, hp, o, ix, ow, rows);
  } else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
    if (avx2) {
      conv_avx2::max_pool_rows(h, hp, of, ix, ow, rows);
      if constexpr (std::is_same_v<T, BFloat16>) return float_to_bf16(of, o, rows * ow);
      else return float_to_half(of, o, rows * ow);
    }
  }
  for (int64_t y = 0; y < rows; ++y) pool_rows<T>(h + 2 * y * ow, hp + 2 * y * ow, o + y * ow, ix + y * ow, ow);
}

template <class T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const P& p) {
  using C = compute_t<T>;
  const int64_t hw = p.h * p.w, l = p.oh * p.ow;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(l * p.kh * p.kw, 1)),
               [&](int64_t b, int64_t e) {
    if (p.kh == 2 && p.kw == 2 && p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 && p.dh == 1 && p.dw == 1 &&
        hw < (int64_t{1} << 31)) {
      // the common 2x2 pool: every window inside the plane, no bounds to check; planes in groups
      // whose pair maxima (h, with their positions) stay in the first-level cache
      const int64_t group = std::max<int64_t>(1, 4096 / (2 * l));
      std::vector<C> h(static_cast<size_t>(group * 2 * l + 8));
      std::vector<int32_t> hp(h.size());
      std::vector<float> of(is_half_v<T> ? static_cast<size_t>(group * l + 8) : 0);
      for (int64_t q = b; q < e; q += group)
        pool2x2_planes<T>(in + q * hw, out + q * l, indices + q * l, std::min(group, e - q), p, h.data(), hp.data(),
                          of.data());
      return;
    }
    for (int64_t q = b; q < e; ++q) {
      const T* plane = in + q * hw;
      T* o = out + q * l;
      int64_t* ix = indices + q * l;
      for (int64_t y = 0; y < p.oh; ++y) {
        // the window rows inside the plane
        int64_t y0 = y * p.sh - p.ph, i0 = 0, i1 = p.kh;
        while (i0 < i1 && y0 + i0 * p.dh < 0) ++i0;
        while (i1 > i0 && y0 + (i1 - 1) * p.dh >= p.h) --i1;
        for (int64_t x = 0; x < p.ow; ++x) {
          int64_t x0 = x * p.sw - p.pw, j0 = 0, j1 = p.kw;
          while (j0 < j1 && x0 + j0 * p.dw < 0) ++j0;
          while (j1 > j0 && x0 + (j1 - 1) * p.dw >= p.w) --j1;
          int64_t best_at = -1;
          C best = C(0);
          for (int64_t i = i0; i < i1; ++i) {
            int64_t at_row = (y0 + i * p.dh) * p.w + x0;
            for (int64_t j = j0; j < j1; ++j) {
              int64_t at = at_row + j * p.dw;
              C v = static_cast<C>(plane[at]);
              if (best_at < 0 || (best == best && (v > best || v != v))) best = v, best_at = at;
            }
          }
          // a window entirely in the padding (possible only with padding >= kernel): -inf, as PyTorch
          o[y * p.ow + x] = best_at < 0 ? static_cast<T>(-std::numeric_limits<float>::infinity()) : static_cast<T>(best);
          ix[y * p.ow + x] = best_at < 0 ? 0 : best_at;
        }
      }
    }
  });
}

template <class T>
void max_pool_bwd(const T* gy, const int64_t* ix, T* gx, int64_t planes, int64_t in_hw, int64_t out_hw) {
  using C = compute_t<T>;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(in_hw, 1)), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      T* plane = gx + q * in_hw;
      const T* g = gy + q * out_hw;
      const int64_t* at = ix + q * out_hw;
      std::fill(plane, plane + in_hw, T(0));
      for (int64_t t = 0; t < out_hw; ++t)
        plane[at[t]] = static_cast<T>(static_cast<C>(plane[at[t]]) + static_cast<C>(g[t]));
    }
  });
}

}  // namespace

void max_pool2d_backward(ScalarType dtype, Buffer grad_out, Buffer indices, Buffer grad_in, int64_t planes,
                         int64_t in_hw, int64_t out_hw) {
  if (planes * in_hw == 0) return;
  visit_dtype(dtype, "max_pool2d_backward", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, bool>) unsupported("max_pool2d_backward", dtype);
    else
      max_pool_bwd<T>(data_as<const T>(grad_out), data_as<const int64_t>(indices), data_as<T>(grad_in), planes,
                      in_hw, out_hw);
  });
}

void max_pool2d(ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes, const P& p) {
  if (planes * p.oh * p.ow == 0) return;
  visit_dtype(dtype, "max_pool2d", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, bool>) unsupported("max_pool2d", dtype);
    else max_pool<T>(data_as<const T>(in), data_as<T>(out), data_as<int64_t>(indices), planes, p);
  });
}

}  // namespace locus::cpu
