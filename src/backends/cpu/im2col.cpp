// im2col / col2im for conv2d as GEMM.
//   col[(c*kh + i)*kw + j][y*ow + x] = in[c][y*sh - ph + i*dh][x*sw - pw + j*dw]   (0 outside)
// im2col writes every col row independently (parallel over rows); col2im accumulates into `in`,
// parallel over channels, whose targets are disjoint.
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using P = backend::Backend::Im2Col;

template <class T>
void im2col_fwd(const T* in, T* col, const P& p) {
  const int64_t rows = p.c * p.kh * p.kw, cols = p.oh * p.ow;
  // rows of every image: row r of image b is col row b*rows + r, its plane is image b's
  parallel_for(0, p.n * rows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(cols, 1)), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      int64_t c = r / (p.kh * p.kw), i = (r / p.kw) % p.kh, j = r % p.kw;  // c counts planes of all images
      const T* plane = in + c * p.h * p.w;
      T* dst = col + r * cols;
      for (int64_t y = 0; y < p.oh; ++y) {
        int64_t ih = y * p.sh - p.ph + i * p.dh;
        T* d = dst + y * p.ow;
        if (ih < 0 || ih >= p.h) {
          for (int64_t x = 0; x < p.ow; ++x) d[x] = T(0);
          continue;
        }
        const T* src = plane + ih * p.w;
        int64_t iw0 = -p.pw + j * p.dw;
        if (p.sw == 1) {  // a contiguous segment with zero borders
          int64_t x0 = std::min<int64_t>(p.ow, std::max<int64_t>(0, -iw0));
          int64_t x1 = std::max<int64_t>(x0, std::min<int64_t>(p.ow, p.w - iw0));
          for (int64_t x = 0; x < x0; ++x) d[x] = T(0);
          if (x1 > x0) std::memcpy(d + x0, src + iw0 + x0, static_cast<size_t>(x1 - x0) * sizeof(T));
          for (int64_t x = x1; x < p.ow; ++x) d[x] = T(0);
        } else {
          for (int64_t x = 0; x < p.ow; ++x) {
            int64_t iw = x * p.sw + iw0;
            d[x] = (iw >= 0 && iw < p.w) ? src[iw] : T(0);
          }
        }
      }
    }
  });
}

template <class T>
LOCUS_CPU_CLONES void add_run(T* __restrict dst, const T* __restrict src, int64_t n) {
  using C = compute_t<T>;
  for (int64_t x = 0; x < n; ++x) dst[x] = static_cast<T>(static_cast<C>(dst[x]) + static_cast<C>(src[x]));
}

template <class T>
void col2im(T* in, const T* col, const P& p) {
  using C = compute_t<T>;
  const int64_t cols = p.oh * p.ow;
  parallel_for(0, p.n * p.c, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(p.kh * p.kw * cols, 1)), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      T* plane = in + c * p.h * p.w;
      for (int64_t i = 0; i < p.kh; ++i)
        for (int64_t j = 0; j < p.kw; ++j) {
          const T* src = col + ((c * p.kh + i) * p.kw + j) * cols;
          for (int64_t y = 0; y < p.oh; ++y) {
            int64_t ih = y * p.sh - p.ph + i * p.dh;
            if (ih < 0 || ih >= p.h) continue;
            T* row = plane + ih * p.w;
            const T* s = src + y * p.ow;
            int64_t iw0 = -p.pw + j * p.dw;
            if (p.sw == 1) {  // a contiguous run: the in-bounds x range, then a plain (vectorised) add
              int64_t x0 = std::min<int64_t>(p.ow, std::max<int64_t>(0, -iw0));
              int64_t x1 = std::max<int64_t>(x0, std::min<int64_t>(p.ow, p.w - iw0));
              add_run<T>(row + iw0 + x0, s + x0, x1 - x0);
              continue;
            }
            for (int64_t x = 0; x < p.ow; ++x) {
              int64_t iw = x * p.sw + iw0;
              if (iw >= 0 && iw < p.w) row[iw] = static_cast<T>(static_cast<C>(row[iw]) + static_cast<C>(s[x]));
            }
          }
        }
    }
  });
}

// 2x2, stride-2 max pooling in two vectorisable passes: the horizontal pass takes the larger of
// each pair (in[2t], in[2t+1]) along the rows, over the whole plane at once when w is even (the
// pairs are then contiguous across rows), remembering which one it took; the vertical pass takes
// the larger of two such rows. Ties go to the left, then to the top, and a NaN wins: exactly the
// first maximum in row-major order, as PyTorch's window scan.
template <class T>
LOCUS_CPU_CLONES void pool_pairs(const T* __restrict in, compute_t<T>* __restrict h, int8_t* __restrict hk,
                                 int64_t n) {
  using C = compute_t<T>;
  for (int64_t t = 0; t < n; ++t) {
    C a = static_cast<C>(in[2 * t]), b = static_cast<C>(in[2 * t + 1]);
    bool take = (a == a) & !(b <= a);
    h[t] = take ? b : a;
    hk[t] = take ? 1 : 0;
  }
}

template <class T>
void pool2x2_plane(const T* plane, T* o, int64_t* ix, const P& p, compute_t<T>* h, int8_t* hk) {
  using C = compute_t<T>;
  const int64_t rows = 2 * p.oh, ow = p.ow;
  if (p.w == 2 * ow) {
    pool_pairs<T>(plane, h, hk, rows * ow);
  } else {
    for (int64_t y = 0; y < rows; ++y) pool_pairs<T>(plane + y * p.w, h + y * ow, hk + y * ow, ow);
  }
  for (int64_t y = 0; y < p.oh; ++y) {
    const C* top = h + 2 * y * ow;
    const C* bottom = top + ow;
    for (int64_t x = 0; x < ow; ++x) {
      C a = top[x], b = bottom[x];
      bool take = (a == a) & !(b <= a);
      int64_t row = 2 * y + (take ? 1 : 0);
      o[y * ow + x] = static_cast<T>(take ? b : a);
      ix[y * ow + x] = row * p.w + 2 * x + hk[row * ow + x];
    }
  }
}

template <class T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const P& p) {
  using C = compute_t<T>;
  const int64_t hw = p.h * p.w, l = p.oh * p.ow;
  parallel_for(0, planes, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(l * p.kh * p.kw, 1)),
               [&](int64_t b, int64_t e) {
    std::vector<C> scratch;  // the horizontal pass of a 2x2 pool (one plane)
    std::vector<int8_t> picks;
    for (int64_t q = b; q < e; ++q) {
      const T* plane = in + q * hw;
      T* o = out + q * l;
      int64_t* ix = indices + q * l;
      if (p.kh == 2 && p.kw == 2 && p.sh == 2 && p.sw == 2 && p.ph == 0 && p.pw == 0 && p.dh == 1 && p.dw == 1) {
        // the common 2x2 pool: every window inside the plane, no bounds to check
        if (scratch.empty()) scratch.resize(static_cast<size_t>(2 * l)), picks.resize(static_cast<size_t>(2 * l));
        pool2x2_plane<T>(plane, o, ix, p, scratch.data(), picks.data());
        continue;
      }
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

}  // namespace

void max_pool2d(ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes, const P& p) {
  if (planes * p.oh * p.ow == 0) return;
  visit_dtype(dtype, "max_pool2d", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, bool>) unsupported("max_pool2d", dtype);
    else max_pool<T>(data_as<const T>(in), data_as<T>(out), data_as<int64_t>(indices), planes, p);
  });
}

void im2col(ScalarType dtype, Buffer in, Buffer out, const P& p, bool reverse) {
  if (p.n * p.c * p.h * p.w == 0 || p.oh * p.ow == 0 || p.kh * p.kw == 0) return;
  visit_dtype(dtype, "im2col", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if (reverse) col2im<T>(data_as<T>(in), data_as<const T>(out), p);
    else im2col_fwd<T>(data_as<const T>(in), data_as<T>(out), p);
  });
}

}  // namespace locus::cpu
