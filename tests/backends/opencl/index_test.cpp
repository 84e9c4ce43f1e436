// index_select, gather, scatter_add (duplicates included) and im2col/col2im on opencl:0.
#include "opencl_test_util.h"

namespace locus::opencl::test {
namespace {
namespace index_test {

using backend::IndexOp;

TEST(OpenCLIndex, IndexSelectAlongEachDim) {
  LOCUS_REQUIRE_OPENCL(1);
  std::vector<double> in = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};  // [3, 4]
  for (ScalarType dt : {kFloat, kLong}) {
    auto I = upload_as(0, dt, in, 8);
    auto X = upload<int64_t>(0, {2, 0, 2, -1});
    DevMem O(0, 256);
    // dim 0: rows 2, 0, 2, -1 (wraps to 2)
    be().index(0, nullptr, IndexOp::IndexSelect, ref(O.at(), dt, {4, 4}), ref(I->at(8), dt, {3, 4}),
               ref(X->at(), kLong, {4}), 0);
    expect_close(dt, download_as(0, dt, O.at(), 16),
                 {20, 21, 22, 23, 0, 1, 2, 3, 20, 21, 22, 23, 20, 21, 22, 23}, "index_select dim 0");
    // dim 1 on a transposed view of the same data ([4, 3] with strides {1, 4}), index strided
    auto X2 = upload<int64_t>(0, {1, 9, 0});  // every other element: {1, 0}
    be().index(0, nullptr, IndexOp::IndexSelect, ref(O.at(), dt, {4, 2}), ref(I->at(8), dt, {4, 3}, {1, 4}),
               ref(X2->at(), kLong, {2}, {2}), 1);
    expect_close(dt, download_as(0, dt, O.at(), 8), {10, 0, 11, 1, 12, 2, 13, 3}, "index_select dim 1");
  }
}

TEST(OpenCLIndex, Gather) {
  LOCUS_REQUIRE_OPENCL(1);
  auto I = upload_as(0, kFloat, {1, 2, 3, 4, 5, 6});  // [2, 3]
  auto X = upload<int64_t>(0, {2, 0, 1, 1});          // [2, 2]
  DevMem O(0, 64);
  be().index(0, nullptr, IndexOp::Gather, ref(O.at(), kFloat, {2, 2}), ref(I->at(), kFloat, {2, 3}),
             ref(X->at(), kLong, {2, 2}), 1);
  expect_close(kFloat, download_as(0, kFloat, O.at(), 4), {3, 1, 5, 5}, "gather dim 1");
  auto X0 = upload<int64_t>(0, {1, 0, 1});  // [1, 3]
  be().index(0, nullptr, IndexOp::Gather, ref(O.at(), kFloat, {1, 3}), ref(I->at(), kFloat, {2, 3}),
             ref(X0->at(), kLong, {1, 3}), 0);
  expect_close(kFloat, download_as(0, kFloat, O.at(), 3), {4, 2, 6}, "gather dim 0");
}

TEST(OpenCLIndex, ScatterAddWithDuplicates) {
  LOCUS_REQUIRE_OPENCL(1);
  // 4000 sources into 3 bins: heavy contention on every bin
  const int n = 4000;
  std::vector<int64_t> idx(n);
  std::vector<double> src(n);
  std::vector<double> want = {1, 2, 3};
  for (int i = 0; i < n; ++i) {
    idx[static_cast<size_t>(i)] = (i * 7) % 3;
    src[static_cast<size_t>(i)] = (i % 5) * 0.5;
  }
  for (ScalarType dt : {kFloat, kDouble, kInt, kLong, kHalf, kByte}) {
    std::vector<double> s = src, w = want;
    for (double& x : s) x = dt == kFloat || dt == kDouble ? x : dt == kHalf ? (x > 1 ? 1 : 0) : std::floor(x);
    for (int i = 0; i < n; ++i) w[static_cast<size_t>(idx[static_cast<size_t>(i)])] += s[static_cast<size_t>(i)];
    if (dt == kByte)
      for (double& x : w) x = static_cast<double>(static_cast<int64_t>(x) % 256);
    // out is a [3] view at an odd element offset of a bigger buffer, neighbours must stay intact
    std::vector<double> base = {9, 1, 2, 3, 9};
    auto O = upload_as(0, dt, base);
    auto S = upload_as(0, dt, s);
    auto X = upload<int64_t>(0, idx);
    be().index(0, nullptr, IndexOp::ScatterAdd, ref(O->at(element_size(dt)), dt, {3}), ref(S->at(), dt, {n}),
               ref(X->at(), kLong, {n}), 0);
    std::vector<double> got = download_as(0, dt, O->at(), 5);
    expect_close(dt, got, {9, w[0], w[1], w[2], 9}, std::string("scatter_add ") + dtype_name(dt));
  }
}

// Against loops over every output element, for a strided (rows), dilated (columns) single image
// and for a batch strided across and dilated down: the kernels work a row at a time, each stride
// with its own path.
TEST(OpenCLIndex, Im2ColAndCol2Im) {
  LOCUS_REQUIRE_OPENCL(1);
  auto check = [](backend::Backend::Im2Col p) {
    p.oh = (p.h + 2 * p.ph - p.dh * (p.kh - 1) - 1) / p.sh + 1;
    p.ow = (p.w + 2 * p.pw - p.dw * (p.kw - 1) - 1) / p.sw + 1;
    std::vector<double> in(static_cast<size_t>(p.n * p.c * p.h * p.w));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i) + 1;
    int64_t rows = p.c * p.kh * p.kw, cols = p.oh * p.ow;
    std::vector<double> want(static_cast<size_t>(p.n * rows * cols), 0);
    std::vector<double> back(in.size(), 0);  // col2im of `want` added to zeros
    for (int64_t n = 0; n < p.n; ++n)
      for (int64_t c = 0; c < p.c; ++c)
        for (int64_t ki = 0; ki < p.kh; ++ki)
          for (int64_t kj = 0; kj < p.kw; ++kj)
            for (int64_t oy = 0; oy < p.oh; ++oy)
              for (int64_t ox = 0; ox < p.ow; ++ox) {
                int64_t y = oy * p.sh - p.ph + ki * p.dh, x = ox * p.sw - p.pw + kj * p.dw;
                size_t o = static_cast<size_t>((n * rows + (c * p.kh + ki) * p.kw + kj) * cols + oy * p.ow + ox);
                if (y >= 0 && y < p.h && x >= 0 && x < p.w) {
                  size_t src = static_cast<size_t>(((n * p.c + c) * p.h + y) * p.w + x);
                  want[o] = in[src];
                  back[src] += in[src];
                }
              }
    const std::string what = "n=" + std::to_string(p.n) + " stride " + std::to_string(p.sh) + "x" +
                             std::to_string(p.sw) + ": ";
    auto I = upload_as(0, kFloat, in, 12);
    DevMem O(0, want.size() * 4 + 64);
    be().im2col(0, nullptr, kFloat, I->at(12), O.at(4), p, false);
    expect_close(kFloat, download_as(0, kFloat, O.at(4), want.size()), want, what + "im2col");
    auto Z = upload_as(0, kFloat, std::vector<double>(in.size(), 0));
    be().im2col(0, nullptr, kFloat, Z->at(), O.at(4), p, true);
    expect_close(kFloat, download_as(0, kFloat, Z->at(), in.size()), back, what + "col2im");
  };
  backend::Backend::Im2Col a;
  a.n = 1, a.c = 2, a.h = 4, a.w = 5, a.kh = 3, a.kw = 2, a.sh = 2, a.sw = 1, a.ph = 1, a.pw = 0, a.dh = 1, a.dw = 2;
  check(a);
  backend::Backend::Im2Col b;
  b.n = 3, b.c = 2, b.h = 6, b.w = 7, b.kh = 2, b.kw = 3, b.sh = 1, b.sw = 2, b.ph = 0, b.pw = 1, b.dh = 2, b.dw = 1;
  check(b);
}

}  // namespace index_test
}  // namespace
}  // namespace locus::opencl::test
