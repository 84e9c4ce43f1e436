// im2col / col2im for conv2d as GEMM.
//   col[(c*kh + i)*kw + j][y*ow + x] = in[c][y*sh - ph + i*dh][x*sw - pw + j*dw]   (0 outside)
// im2col writes every col row independently (parallel over rows); col2im accumulates into `in`,
// parallel over channels, whose targets are disjoint.
#include <cstring>

#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

using P = backend::Backend::Im2Col;

template <class T>
void im2col_fwd(const T* in, T* col, const P& p) {
  const int64_t rows = p.c * p.kh * p.kw, cols = p.oh * p.ow;
  parallel_for(0, rows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(cols, 1)), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      int64_t c = r / (p.kh * p.kw), i = (r / p.kw) % p.kh, j = r % p.kw;
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
void col2im(T* in, const T* col, const P& p) {
  using C = compute_t<T>;
  const int64_t cols = p.oh * p.ow;
  parallel_for(0, p.c, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(p.kh * p.kw * cols, 1)), [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      T* plane = in + c * p.h * p.w;
      for (int64_t i = 0; i < p.kh; ++i)
        for (int64_t j = 0; j < p.kw; ++j) {
          const T* src = col + ((c * p.kh + i) * p.kw + j) * cols;
          for (int64_t y = 0; y < p.oh; ++y) {
            int64_t ih = y * p.sh - p.ph + i * p.dh;
            if (ih < 0 || ih >= p.h) continue;
            T* row = plane + ih * p.w;
            for (int64_t x = 0; x < p.ow; ++x) {
              int64_t iw = x * p.sw - p.pw + j * p.dw;
              if (iw >= 0 && iw < p.w) row[iw] = static_cast<T>(static_cast<C>(row[iw]) + static_cast<C>(src[y * p.ow + x]));
            }
          }
        }
    }
  });
}

}  // namespace

void im2col(ScalarType dtype, Buffer in, Buffer out, const P& p, bool reverse) {
  if (p.c * p.h * p.w == 0 || p.oh * p.ow == 0 || p.kh * p.kw == 0) return;
  visit_dtype(dtype, "im2col", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if (reverse) col2im<T>(data_as<T>(in), data_as<const T>(out), p);
    else im2col_fwd<T>(data_as<const T>(in), data_as<T>(out), p);
  });
}

}  // namespace locus::cpu
