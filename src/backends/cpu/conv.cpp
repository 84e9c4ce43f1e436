// im2col / col2im for conv2d as GEMM, and the convolution itself (forward and backward) image by
// image, each image's columns built in a per-thread buffer that stays in cache.
//   col[(c*kh + i)*kw + j][y*ow + x] = in[c][y*sh - ph + i*dh][x*sw - pw + j*dw]   (0 outside)
// im2col writes every col row independently (parallel over rows); col2im accumulates into `in`,
// parallel over channels, whose targets are disjoint.
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/block_claims.h"
#include "backends/cpu/conv_avx2.h"
#include "backends/cpu/conv_avx512.h"
#include "backends/cpu/conv_avx512_lanes.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/line_vector.h"

namespace locus::cpu {
namespace {

using P = backend::Backend::Im2Col;

// The outputs k in [0, n) whose input coordinate origin + k * stride lies inside [0, size), as a
// range [lo, hi) with 0 <= lo <= hi <= n (stride >= 1): a row's or a column's in-image part.
struct Span {
  int64_t lo, hi;
};
Span inside(int64_t origin, int64_t stride, int64_t size, int64_t n) {
  const int64_t lo = std::clamp<int64_t>(origin >= 0 ? 0 : (-origin + stride - 1) / stride, 0, n);
  const int64_t hi = std::clamp<int64_t>(size - origin <= 0 ? 0 : (size - origin + stride - 1) / stride, lo, n);
  return {lo, hi};
}

template <class T>
void im2col_fwd(const T* in, T* col, const P& p) {
  const int64_t rows = p.c * p.kh * p.kw, cols = p.oh * p.ow;
  // rows of every image: row r of image b is col row b*rows + r, its plane is image b's
  // float on AVX2 with rows of 8 or more at column stride 1 or 2: a col row is conv_avx2::shift_plane's
  static const bool avx2 = conv_avx2::available();
  const bool vector_rows = std::is_same_v<T, float> && avx2 && p.ow >= 8 && p.sw <= 2;
  parallel_for(0, p.n * rows, std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(cols, 1)), [&](int64_t rb, int64_t re) {
    for (int64_t r = rb; r < re; ++r) {
      int64_t c = r / (p.kh * p.kw), i = (r / p.kw) % p.kh, j = r % p.kw;  // c counts planes of all images
      const T* plane = in + c * p.h * p.w;
      T* dst = col + r * cols;
      if constexpr (std::is_same_v<T, float>) {
        if (vector_rows) {  // output rows y in [y0, y1) read image row y*sh + top, columns x*sw + iw0
          const int64_t top = i * p.dh - p.ph, iw0 = j * p.dw - p.pw;
          const Span ys = inside(top, p.sh, p.h, p.oh), xs = inside(iw0, p.sw, p.w, p.ow);
          const float* src = ys.hi > ys.lo ? plane + (ys.lo * p.sh + top) * p.w : plane;
          conv_avx2::shift_plane(src, p.sh * p.w, iw0, dst, p.oh, p.ow, ys.lo, ys.hi, xs.lo, xs.hi, p.sw);
          continue;
        }
      }
      for (int64_t y = 0; y < p.oh; ++y) {
        int64_t ih = y * p.sh - p.ph + i * p.dh;
        T* d = dst + y * p.ow;
        if (ih < 0 || ih >= p.h) {
          for (int64_t x = 0; x < p.ow; ++x) d[x] = T(0);
          continue;
        }
        const T* src = plane + ih * p.w;
        const int64_t iw0 = -p.pw + j * p.dw;
        // the in-bounds x range [x0, x1) first, then loops without a test; plain loops, not
        // memcpy: rows are short (a convolution's are often 7 to 56 wide)
        const auto [x0, x1] = inside(iw0, p.sw, p.w, p.ow);
        for (int64_t x = 0; x < x0; ++x) d[x] = T(0);
        if (p.sw == 1)
          for (int64_t x = x0; x < x1; ++x) d[x] = src[iw0 + x];
        else
          for (int64_t x = x0; x < x1; ++x) d[x] = src[x * p.sw + iw0];
        for (int64_t x = x1; x < p.ow; ++x) d[x] = T(0);
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
            const int64_t iw0 = -p.pw + j * p.dw;
            const auto [x0, x1] = inside(iw0, p.sw, p.w, p.ow);  // the in-bounds x range
            if (p.sw == 1) {  // a contiguous run: a plain (vectorised) add
              add_run<T>(row + iw0 + x0, s + x0, x1 - x0);
              continue;
            }
            if constexpr (std::is_same_v<T, float>) {
              static const bool avx512 = conv_avx512::available();
              if (p.sw == 2 && avx512) {  // every other element of the row
                conv_avx512::add_stride2(row + iw0 + 2 * x0, s + x0, x1 - x0);
                continue;
              }
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

// ---- convolution (groups 1), image by image ---------------------------------------------------
// Each image's columns (see Layout) are made in a per-thread buffer (reused across calls, so it is
// neither re-faulted nor re-allocated), multiplied with the weight, and done: the columns of a
// batch are never all in memory at once, and each image's products read them from cache. Images
// run side by side on the pool threads with single-threaded BLAS calls (blas_side_by_side); when
// that is not possible they run one after the other with the BLAS's threads and a parallel im2col.
template <class T>
void gemm_t(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T beta, const T* a, int64_t lda, const T* b,
            int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) gemm_f32(ta, tb, m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
  else gemm_f64(ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

// How one image's columns are laid out. Three ways:
//  - pointwise (1x1 window, stride 1, no padding): the image is its own columns;
//  - stride 1 (any padding, dilation): "wide" rows. The image is copied once into a zero-padded
//    copy (hp x wp planes, then a few zeros for the last runs); column row (c, i, j) is then one
//    contiguous run of that copy, oh * wp long, starting at c*hp*wp + i*dh*wp + j*dw: one memcpy
//    per row instead of one per output row. The GEMM then computes outputs on the padded width too (wp - ow junk
//    positions per row, dropped when copied out; in the backward their gradient is zero, so they
//    add nothing: exactly nothing only while the values they meet are finite, as 0 * inf is NaN,
//    so the backward checks and takes the next layout when they are not);
//    With float on an AVX2 CPU ("implicit"), the kernels of conv_avx2.cpp read those runs from the
//    padded copy directly: no columns at all (lw is then rounded up to their step);
//  - otherwise, im2col rows of width oh * ow.
// Float on an AVX-512 CPU (any stride), and on an AVX2 one with stride 1 (shifted_kernels), takes
// none of these but the "shifted" layout of conv_avx512.h (Shifted, below): kw*sh shifted copies of
// each channel, whose runs are exactly the oh*ow output positions, read in place by the kernels;
// there a 3x3 stride-1 convolution with 8 channels or more both ways goes to Winograd's F(2x2, 3x3)
// instead (conv_winograd.h: its forward and its input gradient; its weight gradient with at most
// 32 channels both ways or on outputs of at most 8x8).
struct Layout {
  P one;                   // the geometry for one image
  int64_t k = 0, l = 0;    // column rows, output positions
  int64_t lw = 0;          // the width of a column row and of an output row in the GEMM
  bool direct = false, wide = false, implicit = false;
  int64_t hp = 0, wp = 0;  // padded plane (wide only)
  int64_t padded = 0;      // elements of the padded copy, slack included (wide only)
  std::vector<int64_t> offs;  // where each column row starts in the padded copy (wide only)
  Layout(const P& p, bool allow_wide, bool allow_implicit) : one(p) {
    one.n = 1;
    k = p.c * p.kh * p.kw;
    l = p.oh * p.ow;
    direct = p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && p.ph == 0 && p.pw == 0;
    wide = allow_wide && !direct && p.sh == 1 && p.sw == 1;
    lw = l;
    if (wide) {
      implicit = allow_implicit;
      hp = p.h + 2 * p.ph;
      wp = p.w + 2 * p.pw;
      const int64_t step = implicit ? conv_avx2::kStep : 1;
      lw = (p.oh * wp + step - 1) / step * step;
      // the last row's junk positions (and the rounding) read past the last plane
      padded = p.c * hp * wp + (p.kw - 1) * p.dw + (lw - p.oh * wp);
      offs.resize(static_cast<size_t>(k));
      for (int64_t r = 0; r < k; ++r) {
        const int64_t c = r / (p.kh * p.kw), i = (r / p.kw) % p.kh, j = r % p.kw;
        offs[static_cast<size_t>(r)] = c * hp * wp + i * p.dh * wp + j * p.dw;
      }
    }
  }
  int64_t row_at(int64_t r) const { return offs[static_cast<size_t>(r)]; }
  // Scratch elements per thread: the padded copy, the columns, one image's wide output.
  size_t scratch_size(int64_t oc) const {
    return static_cast<size_t>(padded + (direct || implicit ? 0 : k * lw) + (wide ? oc * lw : 0));
  }
};

// One scratch buffer per thread and dtype, kept between calls (so it is neither re-allocated nor
// re-faulted per image or per step) up to kKeepScratch bytes; a larger one (a big convolution's)
// is given back when its call ends, so no thread holds it for good. The buffer is a function's
// thread_local, not a thread_local variable template: GCC 12 never registers the destructor of the
// latter, so every pool thread that ended (set_num_threads) leaked its buffer (LeakSanitizer found
// it in CpuConv2d.GradientsDoNotDependOnTheThreadCount).
template <class T>
LineVector<T>& thread_scratch() {
  thread_local LineVector<T> buf;
  return buf;
}
constexpr size_t kKeepScratch = size_t{16} << 20;

template <class T>
T* scratch(size_t n) {
  scratch_fault_point();
  LineVector<T>& buf = thread_scratch<T>();
  if (buf.size() < n) {
    buf.clear();
    buf.shrink_to_fit();
    buf.resize(n);
  }
  return buf.data();
}

template <class T>
void trim_scratch() {
  LineVector<T>& buf = thread_scratch<T>();
  if (buf.size() * sizeof(T) > kKeepScratch) LineVector<T>().swap(buf);
}

// A backward's per-block sums of the weight and bias gradients: up to kKeepScratch bytes in a
// second buffer of the calling thread, kept between calls as the scratch is (a fresh `new[]` each
// call was faulted in page by page), larger ones allocated for the call.
template <class T>
LineVector<T>& thread_sums() {
  thread_local LineVector<T> buf;
  return buf;
}
template <class T>
struct BlockSums {
  explicit BlockSums(size_t n) {
    if (n * sizeof(T) > kKeepScratch) {  // (not zeroed here: each block zeroes its own, in parallel)
      owned.reset(new T[n]);
      data = owned.get();
      return;
    }
    LineVector<T>& buf = thread_sums<T>();
    if (buf.size() < n) buf.resize(n);
    data = buf.data();
  }
  BlockSums(const BlockSums&) = delete;
  BlockSums& operator=(const BlockSums&) = delete;
  T* get() const { return data; }
  T& operator[](size_t i) const { return data[i]; }
  std::unique_ptr<T[]> owned;
  T* data;
};

// dst[r * ds + t] = src[r * ss + t] (+ *add) for r < rows, t < n: a plane's rows, which are short
// (7 to 56 wide, often): whole vectors for float with AVX2, else a plain loop; a memmove call per
// row cost as much as a convolution's arithmetic for the CNN's 14-wide rows.
template <class T>
void copy_rows(const T* src, int64_t ss, T* dst, int64_t ds, int64_t rows, int64_t n, const T* add = nullptr) {
  if constexpr (std::is_same_v<T, float>) {
    static const bool avx2 = conv_avx2::available();
    if (avx2 && n >= 8) return conv_avx2::copy_rows(src, ss, dst, ds, rows, n, add);
  }
  const T a = add != nullptr ? *add : T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* s = src + r * ss;
    T* d = dst + r * ds;
    if (add != nullptr)
      for (int64_t t = 0; t < n; ++t) d[t] = s[t] + a;
    else
      for (int64_t t = 0; t < n; ++t) d[t] = s[t];
  }
}

// The zero-padded copy of one image (wide layout).
template <class T>
void pad_image(const Layout& g, const T* image, T* pad) {
  const P& p = g.one;
  std::fill(pad, pad + g.padded, T(0));
  for (int64_t c = 0; c < p.c; ++c)
    copy_rows<T>(image + c * p.h * p.w, p.w, pad + (c * g.hp + p.ph) * g.wp + p.pw, g.wp, p.h, p.w);
}

// One image's columns (k rows of g.lw), in `col` unless the image is its own.
template <class T>
const T* columns(const Layout& g, const T* image, T* pad, T* col) {
  if (g.direct) return image;
  if (!g.wide) {
    im2col_fwd<T>(image, col, g.one);
    return col;
  }
  pad_image<T>(g, image, pad);
  for (int64_t r = 0; r < g.k; ++r) std::copy_n(pad + g.row_at(r), g.lw, col + r * g.lw);
  return col;
}

// Whether the float kernels of conv_avx2.cpp serve T on this CPU for n images. They run one image
// per thread, so with fewer images than threads (one large image, say) the GEMM path, whose BLAS
// uses every thread on each image, is taken instead.
template <class T>
bool implicit_ok(int64_t n) {
  if constexpr (std::is_same_v<T, float>) return conv_avx2::available() && n >= num_threads();
  else return false;
}

// Images go in fixed blocks (image_blocks(n) of them, a function of n alone): block b is images
// [b * n / blocks, (b + 1) * n / blocks), run in order on one thread.
int64_t image_blocks(int64_t n) { return std::min<int64_t>(n, 16); }

// The blocks of a backward whose per-block sums are `size` elements each: image_blocks(n), fewer
// (at least 4) where their sums would pass kKeepScratch: each block's are zeroed, written and
// summed every call, and 16 blocks of 256 -> 256 3x3's 2.4 MiB were 38 MiB of that a call.
template <class T>
int64_t sum_blocks(int64_t n, int64_t size) {
  const auto fit = static_cast<int64_t>(kKeepScratch / (sizeof(T) * static_cast<size_t>(std::max<int64_t>(1, size))));
  return std::min(image_blocks(n), std::max<int64_t>(4, fit));
}

// Runs image(i, b) for every image i, b its block. The blocks are handed to the pool threads as
// they come free (BlockClaims: each thread's own share of them first), not split in halves up
// front: a thread held up for a while (a shared machine takes a core away now and then) no longer
// keeps the others waiting at the end. Sums kept per block and added in block order are the same
// whatever the threads did. Each thread's scratch (of T) is trimmed when it is done.
template <class T, class F>
void for_images(int64_t n, F&& image, int64_t blocks = 0) {  // (0: image_blocks(n))
  if (blocks <= 0) blocks = image_blocks(n);
  auto block = [&](int64_t b) {
    for (int64_t i = b * n / blocks, e = (b + 1) * n / blocks; i < e; ++i) image(i, b);
  };
  const int64_t threads = std::min<int64_t>(blocks, num_threads());
  BlockClaims claims(blocks, threads);
  auto worker = [&](int64_t t) {
    for (int64_t b; (b = claims.next(t)) >= 0;) block(b);
    trim_scratch<T>();
  };
  if (threads >= 2 && blas_side_by_side(threads, worker)) return;
  for (int64_t b = 0; b < blocks; ++b) block(b);
  trim_scratch<T>();
}

// The outputs of a wide layout without the junk positions (plus bias[o] when given).
template <class T>
void compact(const Layout& g, const T* wide, int64_t channels, const T* bias, T* out) {
  const P& p = g.one;
  for (int64_t o = 0; o < channels; ++o)
    copy_rows<T>(wide + o * g.lw, g.wp, out + o * p.oh * p.ow, p.ow, p.oh, p.ow, bias != nullptr ? bias + o : nullptr);
}

// The input gradient of a stride-1 convolution is itself one: the output gradient convolved with
// the weight flipped in both window dims and with in/out channels swapped, padded by
// dilation * (kernel - 1) - padding (when that is not negative). The geometry of that convolution
// for one image, or oh == 0 when it does not apply.
P transposed_geometry(const P& p, int64_t oc) {
  P t;
  t.c = oc; t.h = p.oh; t.w = p.ow; t.kh = p.kh; t.kw = p.kw; t.dh = p.dh; t.dw = p.dw;
  t.ph = p.dh * (p.kh - 1) - p.ph;
  t.pw = p.dw * (p.kw - 1) - p.pw;
  t.n = 1;
  if (p.sh != 1 || p.sw != 1 || t.ph < 0 || t.pw < 0) return t;
  t.oh = p.h;
  t.ow = p.w;
  return t;
}

// ---- float on the shifted layout of conv_avx512.h (no junk positions) --------------------------
// Which kernels serve it for n images with geometry p (one image per thread, so at least as many
// images as threads): the AVX-512 ones for any stride; the AVX2 ones of conv_avx2.h only for
// stride 1 (a row's last part vector computed whole into a buffer, read within the copy's slack)
// and not for a 1x1 window without padding (GEMM); for the backward, only from 16 input channels
// (conv 3->64 on 32x32 forward+backward measured 6-10 % slower than on the wide layout: its AVX2
// kernels read a window row's three column rows from three planes instead of one) or when the
// input gradient is not wanted (a first layer: the weight gradient then reads the output gradient
// in place, where the wide layout copies it to its padded width; the CNN's conv 1->16 on 28x28).
enum class ShiftedKernels { kNone, kAvx2, kAvx512 };
ShiftedKernels shifted_kernels(int64_t n, const P& p, bool backward, bool input_grad = true) {
  if (n < num_threads()) return ShiftedKernels::kNone;
  if (conv_avx512::available()) return ShiftedKernels::kAvx512;
  const bool direct = p.kh == 1 && p.kw == 1 && p.ph == 0 && p.pw == 0;
  if (conv_avx2::available() && p.sh == 1 && p.sw == 1 && !direct && (!backward || p.c >= 16 || !input_grad))
    return ShiftedKernels::kAvx2;
  return ShiftedKernels::kNone;
}

struct Shifted {
  P one;                 // the geometry for one image
  int64_t k = 0, l = 0;  // column rows, output positions
  int64_t hq = 0;        // rows of a plane
  int64_t padded = 0;    // floats of the shifted copy, the slack of the last vector included
  // The image is its own shifted copy (a 1x1 window, stride 1, no padding, and whole vectors of
  // positions, so no run is read past its end): shifted_copy() then copies nothing.
  bool as_is = false;
  std::vector<int64_t> offs;
  explicit Shifted(const P& p) : one(p) {
    one.n = 1;
    k = p.c * p.kh * p.kw;
    l = p.oh * p.ow;
    as_is = p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && p.ph == 0 && p.pw == 0 &&
            l % conv_avx512::kStep == 0;
    hq = p.oh + (p.kh - 1) * p.dh / p.sh;
    // the last run ends at the copy's end; whole vectors read past it
    const int64_t step = conv_avx512::kStep;
    padded = p.c * p.kw * p.sh * hq * p.ow + (l + step - 1) / step * step - l;
    offs.resize(static_cast<size_t>(k));
    for (int64_t r = 0; r < k; ++r) {
      const int64_t c = r / (p.kh * p.kw), i = (r / p.kw) % p.kh, j = r % p.kw;
      const int64_t phase = i * p.dh % p.sh, row = i * p.dh / p.sh;
      offs[static_cast<size_t>(r)] = (((c * p.kw + j) * p.sh + phase) * hq + row) * p.ow;
    }
  }
};

// One image's shifted copy: plane (c, j, phase) row u holds
// image[c][phase + u*sh - ph][x*sw - pw + j*dw] for x < ow, 0 outside the image.
void shift_image(const Shifted& s, const float* image, float* pad) {
  const P& p = s.one;
  static const bool avx512 = conv_avx512::available(), avx2 = conv_avx2::available();
  // every plane written whole, zeros included: no fill first (AVX2: rows of 8 or more)
  if ((avx512 || (avx2 && p.ow >= 8)) && p.sw == 1) {
    const int64_t planes = p.c * p.kw * p.sh, end = planes * s.hq * p.ow;
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t j = 0; j < p.kw; ++j) {
        const int64_t shift = j * p.dw - p.pw;  // plane x reads image column x + shift
        const auto [x0, x1] = inside(shift, 1, p.w, p.ow);
        for (int64_t phase = 0; phase < p.sh; ++phase) {
          // plane row u reads image row phase + u*sh - ph
          const auto [u0, u1] = inside(phase - p.ph, p.sh, p.h, s.hq);
          float* plane = pad + ((c * p.kw + j) * p.sh + phase) * s.hq * p.ow;
          const float* src = image + (c * p.h + phase + u0 * p.sh - p.ph) * p.w;
          if (avx512) conv_avx512::shift_plane(src, p.sh * p.w, shift, plane, s.hq, p.ow, u0, u1, x0, x1);
          else conv_avx2::shift_plane(src, p.sh * p.w, shift, plane, s.hq, p.ow, u0, u1, x0, x1);
        }
      }
    std::fill(pad + end, pad + s.padded, 0.f);
    return;
  }
  std::fill(pad, pad + s.padded, 0.f);
  for (int64_t c = 0; c < p.c; ++c)
    for (int64_t j = 0; j < p.kw; ++j) {
      const int64_t shift = j * p.dw - p.pw;  // plane x reads image column x*sw + shift
      const auto [x0, x1] = inside(shift, p.sw, p.w, p.ow);
      if (x1 <= x0) continue;
      for (int64_t phase = 0; phase < p.sh; ++phase) {
        // plane rows u whose image row phase + u*sh - ph is inside the image
        const auto [u0, u1] = inside(phase - p.ph, p.sh, p.h, s.hq);
        if (u1 <= u0) continue;
        float* plane = pad + ((c * p.kw + j) * p.sh + phase) * s.hq * p.ow;
        const float* src = image + (c * p.h + phase + u0 * p.sh - p.ph) * p.w;
        if (p.sw == 1) {
          copy_rows<float>(src + x0 + shift, p.sh * p.w, plane + u0 * p.ow + x0, p.ow, u1 - u0, x1 - x0);
          continue;
        }
        if (p.sw == 2) {
          conv_avx512::gather_even(src + x0 * 2 + shift, p.sh * p.w, plane + u0 * p.ow + x0, p.ow, u1 - u0, x1 - x0);
          continue;
        }
        for (int64_t u = u0; u < u1; ++u, src += p.sh * p.w)
          for (int64_t x = x0; x < x1; ++x) plane[u * p.ow + x] = src[x * p.sw + shift];
      }
    }
}

// The shifted copy of an image: the image itself where it is its own (Shifted::as_is), else made
// in `pad`.
const float* shifted_copy(const Shifted& s, const float* image, float* pad) {
  if (s.as_is) return image;
  shift_image(s, image, pad);
  return pad;
}

void conv_fwd_shifted(const float* x, const float* w, const float* bias, float* y, int64_t oc, const P& p);

template <class T>
void conv_fwd(const T* x, const T* w, const T* bias, T* y, int64_t oc, const P& p) {
  if constexpr (std::is_same_v<T, float>)
    if (shifted_kernels(p.n, p, false) != ShiftedKernels::kNone) return conv_fwd_shifted(x, w, bias, y, oc, p);
  const Layout g(p, true, implicit_ok<T>(p.n));
  const int64_t image_size = p.c * p.h * p.w;
  LineVector<float> packed;
  if constexpr (std::is_same_v<T, float>)
    if (g.implicit) packed.resize(static_cast<size_t>(oc * g.k)), conv_avx2::pack_forward(w, oc, g.k, packed.data());
  for_images<T>(p.n, [&](int64_t i, int64_t) {
    T* buf = scratch<T>(g.scratch_size(oc));
    T* pad = buf;
    T* col = pad + g.padded;
    T* wide_out = g.implicit ? col : col + g.k * g.lw;
    T* yi = y + i * oc * g.l;
    if constexpr (std::is_same_v<T, float>) {
      if (g.implicit) {
        pad_image<T>(g, x + i * image_size, pad);
        conv_avx2::forward(packed.data(), oc, g.k, pad, g.offs.data(), nullptr, wide_out, g.lw);
      }
    }
    if (!g.implicit) {
      const T* cols = columns<T>(g, x + i * image_size, pad, col);
      gemm_t<T>(false, false, oc, g.lw, g.k, T(0), w, g.k, cols, g.lw, g.wide ? wide_out : yi, g.lw);
    }
    if (g.wide) {
      compact<T>(g, wide_out, oc, bias, yi);
    } else if (bias != nullptr) {
      for (int64_t o = 0; o < oc; ++o)
        for (int64_t t = 0; t < g.l; ++t) yi[o * g.l + t] += bias[o];
    }
  });
}

// Sum of a row in 8 interleaved partial sums (vectorisable without reassociating a single chain).
template <class T>
LOCUS_CPU_CLONES T row_sum(const T* __restrict row, int64_t n) {
  T acc[8] = {};
  int64_t t = 0;
  for (; t + 8 <= n; t += 8)
    for (int u = 0; u < 8; ++u) acc[u] += row[t + u];
  T s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; t < n; ++t) s += row[t];
  return s;
}

// Whether all of v[0, n) are finite (v * 0 is 0 for those, NaN for inf and NaN), vectorisable.
template <class T>
LOCUS_CPU_CLONES bool all_finite(const T* __restrict v, int64_t n) {
  T acc[8] = {};
  int64_t t = 0;
  for (; t + 8 <= n; t += 8)
    for (int u = 0; u < 8; ++u) acc[u] += v[t + u] * T(0);
  for (; t < n; ++t) acc[0] += v[t] * T(0);
  T s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return s == T(0);
}

// all_finite over the pool's threads (a batch's input is a few megabytes).
template <class T>
bool all_finite_parallel(const T* v, int64_t n) {
  std::atomic<bool> ok{true};
  parallel_for(0, n, kGrainCheap, [&](int64_t b, int64_t e) {
    if (ok.load(std::memory_order_relaxed) && !all_finite(v + b, e - b)) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load();
}

// The forward on the shifted layout (shifted_kernels): outputs written in place, the bias with them.
void conv_fwd_shifted(const float* x, const float* w, const float* bias, float* y, int64_t oc, const P& p) {
  if (conv_winograd::applies(p, oc)) return conv_winograd::forward(x, w, bias, y, oc, p);
  const bool avx512 = shifted_kernels(p.n, p, false) == ShiftedKernels::kAvx512;
  if (avx512 && conv_lanes::forward_suits(p, oc)) {  // output channels in the lanes: no taps on the padding
    LineVector<float> packed(static_cast<size_t>(conv_lanes::packed_size(p, oc)));
    conv_lanes::pack(w, oc, p, packed.data());
    const int64_t image_size = p.c * p.h * p.w;
    const int64_t blocks = image_blocks(p.n);
    return for_images<float>(p.n, [&](int64_t i, int64_t b) {
      float* buf = scratch<float>(static_cast<size_t>(conv_lanes::scratch_size(p, oc)));
      const bool more = i + 1 < (b + 1) * p.n / blocks;  // this thread's next image, in the same block
      conv_lanes::forward(packed.data(), oc, p, x + i * image_size, bias, buf, y + i * oc * p.oh * p.ow,
                          more ? x + (i + 1) * image_size : nullptr);
    });
  }
  const Shifted s(p);
  const int64_t image_size = p.c * p.h * p.w;
  LineVector<float> packed(static_cast<size_t>(oc * s.k));
  if (avx512) conv_avx512::pack_forward(w, oc, s.k, packed.data());
  else conv_avx2::pack_forward(w, oc, s.k, packed.data());
  for_images<float>(p.n, [&](int64_t i, int64_t) {
    const float* pad = shifted_copy(s, x + i * image_size, s.as_is ? nullptr : scratch<float>(static_cast<size_t>(s.padded)));
    float* yi = y + i * oc * s.l;
    if (avx512) return conv_avx512::forward(packed.data(), oc, s.k, pad, s.offs.data(), bias, yi, s.l);
    conv_avx2::forward(packed.data(), oc, s.k, pad, s.offs.data(), bias, yi, s.l);
  });
}

// w [oc, c, kh, kw] -> [c, oc, kh, kw] with each window reversed: the weight of the input
// gradient's convolution (the forward kernels then pack it).
LineVector<float> flipped_weight(const float* w, int64_t oc, const P& p) {
  const int64_t win = p.kh * p.kw;
  LineVector<float> f(static_cast<size_t>(oc * p.c * win));
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ch = 0; ch < p.c; ++ch)
      for (int64_t t = 0; t < win; ++t)
        f[static_cast<size_t>((ch * oc + o) * win + t)] = w[(o * p.c + ch) * win + win - 1 - t];
  return f;
}

// The gradients on the shifted layout (shifted_kernels, and for gx the input gradient must be a
// convolution: transposed_geometry applies). No position is junk, so non-finite values need no
// check. gw is summed per block of images (transposed, [k, oc], as the AVX-512 kernel makes it),
// then the blocks' sums are added in block order into gw [oc, k].
void conv_bwd_shifted(const float* x, const float* w, const float* gy, float* gx, float* gw, float* gb, int64_t oc,
                      const P& p, const P& pt) {
  const bool avx512 = shifted_kernels(p.n, p, true) == ShiftedKernels::kAvx512;
  if (gw != nullptr && conv_winograd::grad_weight_applies(p, oc)) {  // the weight's and bias's gradients by Winograd's method
    conv_winograd::grad_weight(x, gy, gw, gb, oc, p);
    gw = gb = nullptr;
    if (gx == nullptr) return;
  }
  const Shifted s(p);
  P ptn = pt;  // the input gradient's convolution for every image, by Winograd's method when it applies
  ptn.n = p.n;
  const bool winograd = gx != nullptr && conv_winograd::applies(ptn, p.c);
  std::optional<Shifted> st;  // else that convolution's layout, image by image
  if (gx != nullptr && !winograd) st.emplace(pt);
  const int64_t k = s.k, l = s.l, image_size = p.c * p.h * p.w;
  LineVector<float> packed;
  if (winograd) conv_winograd::forward(gy, w, nullptr, gx, p.c, ptn, true);
  // else the input gradient with the output channels in the lanes (conv_avx512_lanes.h) where it suits
  const bool lanes = avx512 && st && conv_lanes::suits(pt, p.c);
  if (lanes) {  // flipped as it is packed
    packed.resize(static_cast<size_t>(conv_lanes::packed_size(pt, p.c)));
    conv_lanes::pack(w, p.c, pt, packed.data(), true);
  } else if (st) {  // w [oc, c, kh, kw] -> flipped [c, oc, kh, kw], packed for the forward kernel
    const LineVector<float> flipped = flipped_weight(w, oc, p);
    const int64_t win = p.kh * p.kw;
    packed.resize(static_cast<size_t>(oc * k));
    if (avx512) conv_avx512::pack_forward(flipped.data(), p.c, oc * win, packed.data());
    else conv_avx2::pack_forward(flipped.data(), p.c, oc * win, packed.data());
  }
  const size_t gx_scratch = !st ? 0 : static_cast<size_t>(lanes ? conv_lanes::scratch_size(pt, p.c) : st->as_is ? 0 : st->padded);
  const int64_t size = oc * k + oc, blocks = sum_blocks<float>(p.n, size);
  // block c's sums at sums[c * size], zeroed by the block's first image (on the pool's threads)
  const bool summed = gw != nullptr || gb != nullptr;
  const BlockSums<float> sums(static_cast<size_t>(summed ? blocks * size : 0));
  const bool gw_lanes = avx512 && conv_lanes::suits(p, oc);  // the weight gradient without the padding's taps
  // with AVX2, channels in the lanes (from the output gradient transposed) where that pays
  const bool avx2_lanes = !avx512 && gw != nullptr && conv_avx2::lanes_suit(oc, k);
  // The AVX-512 kernels take a block's images in groups, each group's at its first image: enough
  // that each weight-gradient element sums a few hundred positions in registers before it is
  // read and written back (8x8: 4 images a group; 128->256 3x3 at 8x8 forward + backward measured
  // about 10 % faster than image by image), at most 8.
  const int64_t group = avx512 ? std::clamp<int64_t>(256 / std::max<int64_t>(1, l), 1, 8) : 1;
  const size_t gw_scratch =
      gw == nullptr ? 0
      : gw_lanes    ? static_cast<size_t>(conv_lanes::grad_weight_scratch_size(p, oc, group))
                    : static_cast<size_t>(group * (l * oc + (avx512 && s.as_is ? 0 : s.padded)));
  for_images<float>(p.n, [&](int64_t i, int64_t c) {
    float* buf = scratch<float>(gw_scratch + gx_scratch);
    const float* gyi = gy + i * oc * l;
    float* gwc = sums.get() + c * size;
    const int64_t block_begin = c * p.n / blocks, block_end = (c + 1) * p.n / blocks;
    const bool first = i == block_begin;  // the block's first image: its sums start here
    if (summed && first) {  // (conv_lanes::grad_weight stores its part)
      const bool stores = gw != nullptr && gw_lanes;
      std::fill_n(gwc + (stores ? oc * k : 0), stores ? oc : size, 0.f);
    }
    if (gw != nullptr) {
      float* gyt = buf;
      if (gw_lanes) {
        // at a group's first image, for the group; stored by the block's first group; the bias
        // gradient read on the way
        if ((i - block_begin) % group == 0)
          conv_lanes::grad_weight(gyi, oc, p, x + i * image_size, buf, gwc, gb != nullptr ? gwc + oc * k : nullptr,
                                  first, std::min(group, block_end - i));
      } else if (avx512) {  // at a group's first image, for the group; the bias gradient read on the way
        if ((i - block_begin) % group == 0) {
          const int64_t ni = std::min(group, block_end - i);
          float* pads = gyt + group * l * oc;
          for (int64_t m = 0; m < ni; ++m) {
            conv_avx512::transpose(gyi + m * oc * l, oc, l, gyt + m * l * oc, gb != nullptr ? gwc + oc * k : nullptr);
            if (!s.as_is) shift_image(s, x + (i + m) * image_size, pads + m * s.padded);
          }
          conv_avx512::grad_weight(gyt, oc, k, s.as_is ? x + i * image_size : pads, s.offs.data(), l, gwc, ni,
                                   s.as_is ? image_size : s.padded);
        }
      } else {
        float* pad = gyt + l * oc;
        shift_image(s, x + i * image_size, pad);
        if (avx2_lanes) {  // the bias gradient read on the way
          conv_avx2::transpose(gyi, oc, l, gyt, gb != nullptr ? gwc + oc * k : nullptr);
          conv_avx2::grad_weight_lanes(gyt, oc, k, pad, s.offs.data(), l, gwc);  // [k, oc]
        } else {
          conv_avx2::grad_weight(gyi, oc, k, pad, s.offs.data(), l, gwc);  // [oc, k]
        }
      }
    }
    if (gb != nullptr && !(gw != nullptr && (avx512 || avx2_lanes))) {
      float* gbc = gwc + oc * k;
      for (int64_t o = 0; o < oc; ++o) gbc[o] += row_sum<float>(gyi + o * l, l);
    }
    if (st) {
      float* tpad = buf + gw_scratch;
      if (lanes) return conv_lanes::forward(packed.data(), p.c, pt, gyi, nullptr, tpad, gx + i * image_size);
      const float* src = shifted_copy(*st, gyi, tpad);
      if (avx512) conv_avx512::forward(packed.data(), p.c, st->k, src, st->offs.data(), nullptr, gx + i * image_size, st->l);
      else conv_avx2::forward(packed.data(), p.c, st->k, src, st->offs.data(), nullptr, gx + i * image_size, st->l);
    }
  }, blocks);
  // the blocks' sums into block 0's, each element in block order (on the pool's threads), then gw
  // transposed
  if (!summed) return;
  float* total = sums.get();
  parallel_for(0, size, kGrainCheap, [&](int64_t b, int64_t e) {  // each element in block order
    for (int64_t c = 1; c < blocks; ++c) {
      const float* __restrict sc = sums.get() + c * size;
      for (int64_t t = b; t < e; ++t) total[t] += sc[t];
    }
  });
  if (gw != nullptr) {
    if (avx512) {
      conv_avx512::transpose(total, k, oc, gw);
    } else if (avx2_lanes) {  // [k, oc] -> [oc, k]
      for (int64_t o = 0; o < oc; ++o)
        for (int64_t r = 0; r < k; ++r) gw[o * k + r] = total[r * oc + o];
    } else {
      std::copy_n(total, oc * k, gw);
    }
  }
  if (gb != nullptr) std::copy_n(total + oc * k, oc, gb);
}

// The input gradient of a stride-2 convolution by conv_lanes::grad_input (grad_input_suits), image
// by image.
void grad_input_lanes(const float* w, const float* gy, float* gx, int64_t oc, const P& p) {
  LineVector<float> packed(static_cast<size_t>(conv_lanes::grad_input_packed_size(p, oc)));
  conv_lanes::grad_input_pack(w, oc, p, packed.data());
  const int64_t blocks = image_blocks(p.n), image_size = p.c * p.h * p.w, out_size = oc * p.oh * p.ow;
  for_images<float>(p.n, [&](int64_t i, int64_t b) {
    float* buf = scratch<float>(static_cast<size_t>(conv_lanes::grad_input_scratch_size(p, oc)));
    const bool more = i + 1 < (b + 1) * p.n / blocks;  // this thread's next image, in the same block
    conv_lanes::grad_input(packed.data(), oc, p, gy + i * out_size, buf, gx + i * image_size,
                           more ? gy + (i + 1) * out_size : nullptr);
  });
}

// The gradients of conv_fwd: gx (the input's), gw (the weight's) and gb (the bias's), each
// computed only when not null. The weight's and bias's are summed over the images per block, then
// the blocks' sums are added in block order (deterministic, for any thread count).
template <class T>
void conv_bwd(const T* x, const T* w, const T* gy, T* gx, T* gw, T* gb, int64_t oc, const P& p) {
  if constexpr (std::is_same_v<T, float>) {
    // stride 2: the input gradient as four stride-1 convolutions (measured: docs/benchmarks.md, stop 58)
    if (gx != nullptr && conv_lanes::grad_input_suits(p, oc)) {
      grad_input_lanes(w, gy, gx, oc, p);
      if (gw == nullptr && gb == nullptr) return;
      gx = nullptr;
    }
    const P pt = transposed_geometry(p, oc);
    if (shifted_kernels(p.n, p, true, gx != nullptr) != ShiftedKernels::kNone && (gx == nullptr || pt.oh > 0))
      return conv_bwd_shifted(x, w, gy, gx, gw, gb, oc, p, pt);
  }
  // the wide layout's junk positions meet the input (for gw) and the weight (for gx)
  const bool finite = (gw == nullptr || all_finite_parallel(x, p.n * p.c * p.h * p.w)) &&
                      (gx == nullptr || all_finite_parallel(w, oc * p.c * p.kh * p.kw));
  const Layout g(p, finite, implicit_ok<T>(p.n));
  const int64_t k = g.k, lw = g.lw, image_size = p.c * p.h * p.w;
  // the input gradient: as a forward convolution of the output gradient where that applies
  // (implicit float kernels, stride 1), else by the GEMM kernels below
  const P pt = transposed_geometry(p, oc);
  const bool transposed = g.implicit && gx != nullptr && pt.oh > 0;
  std::optional<Layout> gt;  // that convolution's layout, when it applies
  if (transposed) gt.emplace(pt, true, true);
  LineVector<float> packed;
  if constexpr (std::is_same_v<T, float>) {
    if (transposed) {  // w [oc, c, kh, kw] -> flipped [c, oc, kh, kw], packed for the forward kernel
      const LineVector<float> flipped = flipped_weight(w, oc, p);
      const int64_t win = p.kh * p.kw;
      packed.resize(static_cast<size_t>(oc * k));
      conv_avx2::pack_forward(flipped.data(), p.c, oc * win, packed.data());
    } else if (g.implicit && gx != nullptr) {
      packed.resize(static_cast<size_t>(oc * k));
      conv_avx2::pack_grad_input(w, oc, k, packed.data());
    }
  }
  const int64_t size = oc * k + oc, blocks = sum_blocks<T>(p.n, size);
  // block c's sums: gw at sums[c * size], gb right after it, zeroed by the block's first image (on
  // the pool's threads: a zeroed vector was 4.7 MiB for 64 -> 128 3x3, zeroed on the calling
  // thread alone)
  const bool summed = gw != nullptr || gb != nullptr;
  const BlockSums<T> sums(static_cast<size_t>(summed ? blocks * size : 0));
  for_images<T>(p.n, [&](int64_t i, int64_t c) {
    if (summed && i == c * p.n / blocks) std::fill_n(sums.get() + c * size, size, T(0));
    T* buf = scratch<T>(g.scratch_size(oc) + (transposed ? gt->scratch_size(p.c) : 0));
    T* pad = buf;
    T* col = pad + g.padded;
    T* wide_gy = g.implicit ? col : col + k * lw;
    const T* gyi = gy + i * oc * g.l;
    if (g.wide) {  // the output gradient on the padded width, zero at the junk positions
      std::fill(wide_gy, wide_gy + oc * lw, T(0));
      for (int64_t o = 0; o < oc; ++o)
        copy_rows<T>(gyi + o * p.oh * p.ow, p.ow, wide_gy + o * lw, g.wp, p.oh, p.ow);
    }
    const T* gyw = g.wide ? wide_gy : gyi;
    T* gwc = summed ? sums.get() + c * size : nullptr;
    if (gw != nullptr) {
      if constexpr (std::is_same_v<T, float>) {
        if (g.implicit) {
          pad_image<T>(g, x + i * image_size, pad);
          conv_avx2::grad_weight(gyw, oc, k, pad, g.offs.data(), lw, gwc);
        }
      }
      if (!g.implicit) {
        const T* cols = columns<T>(g, x + i * image_size, pad, col);
        gemm_t<T>(false, true, oc, k, lw, T(1), gyw, lw, cols, lw, gwc, k);  // += gy_i @ col_i^T
      }
    }
    if (gb != nullptr) {
      T* gbc = gwc + oc * k;
      for (int64_t o = 0; o < oc; ++o) gbc[o] += row_sum<T>(gyi + o * g.l, g.l);
    }
    if (gx != nullptr) {
      T* gxi = gx + i * image_size;
      if constexpr (std::is_same_v<T, float>) {
        if (transposed) {
          T* tpad = buf + g.scratch_size(oc);
          T* twide = tpad + gt->padded;
          pad_image<T>(*gt, gyi, tpad);
          conv_avx2::forward(packed.data(), p.c, gt->k, tpad, gt->offs.data(), nullptr, twide, gt->lw);
          compact<T>(*gt, twide, p.c, nullptr, gxi);
          return;
        }
      }
      if (g.direct) {
        gemm_t<T>(true, false, k, lw, oc, T(0), w, k, gyw, lw, gxi, lw);
        return;
      }
      // w^T @ gy_i, into the columns (done with)
      if (!g.implicit) gemm_t<T>(true, false, k, lw, oc, T(0), w, k, gyw, lw, col, lw);
      if (!g.wide) {
        std::fill(gxi, gxi + image_size, T(0));
        col2im<T>(gxi, col, g.one);
        return;
      }
      std::fill(pad, pad + g.padded, T(0));  // the padded copy's gradient, then its interior
      if constexpr (std::is_same_v<T, float>)
        if (g.implicit) conv_avx2::grad_input(packed.data(), oc, k, gyw, lw, g.offs.data(), pad);
      if (!g.implicit)
        for (int64_t r = 0; r < k; ++r) add_run<T>(pad + g.row_at(r), col + r * lw, lw);
      for (int64_t ch = 0; ch < p.c; ++ch)
        copy_rows<T>(pad + (ch * g.hp + p.ph) * g.wp + p.pw, g.wp, gxi + ch * p.h * p.w, p.w, p.h, p.w);
    }
  }, blocks);
  // the blocks' sums, each element in block order (the same for any thread count), on the pool's
  // threads
  if (!summed) return;
  parallel_for(0, size, kGrainCheap, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      T v = sums[static_cast<size_t>(t)];
      for (int64_t c = 1; c < blocks; ++c) v += sums[static_cast<size_t>(c * size + t)];
      if (t < oc * k) {
        if (gw != nullptr) gw[t] = v;
      } else if (gb != nullptr) {
        gb[t - oc * k] = v;
      }
    }
  });
}

}  // namespace

void im2col(ScalarType dtype, Buffer in, Buffer out, const P& p, bool reverse) {
  if (p.n * p.c * p.h * p.w == 0 || p.oh * p.ow == 0 || p.kh * p.kw == 0) return;
  visit_dtype(dtype, "im2col", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if (reverse) col2im<T>(data_as<T>(in), data_as<const T>(out), p);
    else im2col_fwd<T>(data_as<const T>(in), data_as<T>(out), p);
  });
}

bool conv2d(ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out, int64_t oc, const P& p) {
  if (dtype != kFloat && dtype != kDouble) return false;
  if (p.n * oc * p.oh * p.ow == 0) return true;
  visit_dtype(dtype, "conv2d", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      conv_fwd<T>(data_as<const T>(in), data_as<const T>(weight), bias.base ? data_as<const T>(bias) : nullptr,
                  data_as<T>(out), oc, p);
  });
  return true;
}

bool conv2d_backward(ScalarType dtype, Buffer in, Buffer weight, Buffer grad_out, Buffer grad_in, Buffer grad_weight,
                     Buffer grad_bias, int64_t oc, const P& p) {
  if (dtype != kFloat && dtype != kDouble) return false;
  visit_dtype(dtype, "conv2d_backward", [&](auto tag) {
    using T = LOCUS_TYPE_OF(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* gx = grad_in.base ? data_as<T>(grad_in) : nullptr;
      T* gw = grad_weight.base ? data_as<T>(grad_weight) : nullptr;
      T* gb = grad_bias.base ? data_as<T>(grad_bias) : nullptr;
      const int64_t k = p.c * p.kh * p.kw;
      if (p.n * oc * p.oh * p.ow == 0) {  // nothing flows back: zero gradients
        if (gx) std::fill(gx, gx + p.n * p.c * p.h * p.w, T(0));
        if (gw) std::fill(gw, gw + oc * k, T(0));
        if (gb) std::fill(gb, gb + oc, T(0));
        return;
      }
      conv_bwd<T>(data_as<const T>(in), data_as<const T>(weight), data_as<const T>(grad_out), gx, gw, gb, oc, p);
    }
  });
  return true;
}

}  // namespace locus::cpu
