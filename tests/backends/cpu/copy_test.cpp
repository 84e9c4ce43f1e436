// CPU backend: copy with conversion between every dtype pair, fill and fill_linear.
#include <cmath>

#include "cpu_testing.h"

namespace cpu_test {
namespace {
namespace copy_test {

const ScalarType kAll[] = {kByte, kChar, kShort, kInt, kLong, kHalf, kFloat, kDouble, kBool, kBFloat16};

std::vector<double> convert(ScalarType from, ScalarType to, const std::vector<double>& v) {
  int64_t n = static_cast<int64_t>(v.size());
  HostTensor x = make(from, {n}, v), y = make(to, {n});
  be().copy(0, nullptr, y, x);
  return y.values();
}

TEST(CpuCopy, EveryDtypePairOnValuesAllRepresent) {
  // 0, 1, 2, 5 and 100 are exact in every dtype (bool: nonzero -> 1)
  std::vector<double> v = {0, 1, 2, 5, 100};
  for (ScalarType from : kAll) {
    for (ScalarType to : kAll) {
      std::vector<double> src = from == kBool ? std::vector<double>{0, 1, 1, 0, 1} : v;
      std::vector<double> want = src;
      if (to == kBool)
        for (double& w : want) w = w != 0;
      EXPECT_EQ(convert(from, to, src), want) << dtype_name(from) << " -> " << dtype_name(to);
    }
  }
}

TEST(CpuCopy, FloatToIntTruncatesTowardZero) {
  std::vector<double> v = {-2.7, -0.5, 0.5, 2.7, -100.9};
  for (ScalarType from : {kFloat, kDouble, kHalf, kBFloat16}) {
    std::vector<double> got = convert(from, kLong, v);
    std::vector<double> src = make(from, {5}, v).values();  // the values as stored in `from`
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], std::trunc(src[i])) << dtype_name(from) << " " << i;
    EXPECT_EQ(convert(from, kInt, v), got);
  }
  // negative floats to uint8 wrap through int64, as PyTorch on x86
  EXPECT_EQ(convert(kFloat, kByte, {-1, 255, 3.9}), (std::vector<double>{255, 255, 3}));
  // int8/int16 truncate through int32 and wrap; NaN and values beyond int32 give int32's minimum,
  // whose low bits are 0 (PyTorch 1.13 on x86: torch.tensor([...]).to(torch.int8), tests/ops/small_int_test.cpp)
  EXPECT_EQ(convert(kFloat, kChar, {300.7, -129, 127.9, 3e9, NAN}), (std::vector<double>{44, 127, 127, 0, 0}));
  EXPECT_EQ(convert(kDouble, kShort, {70000.5, -40000, -0.9, -3e9}), (std::vector<double>{4464, 25536, 0, 0}));
}

TEST(CpuCopy, BoolConversion) {
  EXPECT_EQ(convert(kFloat, kBool, {0, -0.0, 0.1, -3, NAN, INFINITY}), (std::vector<double>{0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(convert(kHalf, kBool, {0, 0.001}), (std::vector<double>{0, 1}));
  EXPECT_EQ(convert(kLong, kBool, {0, 256, -1}), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(convert(kBool, kFloat, {1, 0}), (std::vector<double>{1, 0}));
  // the bytes written for bool are exactly 0 and 1
  HostTensor x = make(kInt, {3}, {0, 7, -7}), y = make(kBool, {3});
  be().copy(0, nullptr, y, x);
  const uint8_t* p = static_cast<const uint8_t*>(y.ref.buf.base);
  EXPECT_EQ(p[0] + 10 * p[1] + 100 * p[2], 110);
}

TEST(CpuCopy, HalfRoundTrips) {
  // float -> half -> float is exact for half-representable values and rounds to nearest even
  std::vector<double> exact = {0.5, -2.0, 65504, 6.103515625e-05, 5.960464477539063e-08, 1025};
  HostTensor f = make(kFloat, {6}, exact), h = make(kHalf, {6}), back = make(kFloat, {6});
  be().copy(0, nullptr, h, f);
  be().copy(0, nullptr, back, h);
  EXPECT_EQ(back.values(), exact);
  // rounding: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0)
  expect_near(convert(kFloat, kHalf, {1 + std::ldexp(1.0, -11), 1e6, -1e6, 1 + 3 * std::ldexp(1.0, -11)}),
              {1, INFINITY, -INFINITY, 1 + std::ldexp(1.0, -9)}, 0);
  expect_near(convert(kDouble, kHalf, {NAN}), {NAN});
  // bfloat16 keeps float's range with 8 bits of mantissa
  expect_near(convert(kFloat, kBFloat16, {1e30, 1.00390625, 3.0}), {1.0000000150474662e+30, 1.0, 3.0}, 1e-2);
  EXPECT_EQ(convert(kBFloat16, kHalf, {0.5, -3}), (std::vector<double>{0.5, -3}));
  EXPECT_EQ(convert(kHalf, kBFloat16, {0.5, -3}), (std::vector<double>{0.5, -3}));
}

TEST(CpuCopy, StridedBroadcastAndOffsets) {
  HostTensor a = make(kFloat, {2, 3}, {1, 2, 3, 4, 5, 6}), t = make(kFloat, {3, 2});
  be().copy(0, nullptr, t, transposed(a));  // contiguous() of a transpose
  EXPECT_EQ(t.values(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  HostTensor d = make(kDouble, {3, 2});
  be().copy(0, nullptr, d, transposed(a));  // with conversion
  EXPECT_EQ(d.values(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  HostTensor row = make(kLong, {3}, {7, 8, 9}), e = make(kLong, {2, 3});
  be().copy(0, nullptr, e, broadcast(row, {2, 3}));  // expand().contiguous()
  EXPECT_EQ(e.values(), (std::vector<double>{7, 8, 9, 7, 8, 9}));
  // into a strided view with a byte offset: column 1 of a [3, 2] int32 tensor
  HostTensor dst = make(kInt, {3, 2}, {0}), src = make(kFloat, {3}, {-1.5, 2.5, 3.5});
  TensorRef col = make_ref(dst.ref.buf.base, kInt, {3}, {2});
  col.buf.offset = 4;
  be().copy(0, nullptr, col, src);
  EXPECT_EQ(dst.values(), (std::vector<double>{0, -1, 0, 2, 0, 3}));
}

TEST(CpuCopy, LargeParallel) {
  const int64_t n = (1 << 21) + 5;
  HostTensor a = make(kFloat, {n}), b = make(kHalf, {n}), c = make(kFloat, {n});
  float* pa = static_cast<float*>(a.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) pa[i] = static_cast<float>(i % 2048);
  be().copy(0, nullptr, b, a);
  be().copy(0, nullptr, c, b);
  const float* pc = static_cast<const float*>(c.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(pc[i], pa[i]) << i;
  HostTensor d = make(kFloat, {n});
  be().copy(0, nullptr, d, a);
  EXPECT_EQ(std::memcmp(d.ref.buf.base, a.ref.buf.base, static_cast<size_t>(n) * 4), 0);
}

TEST(CpuFill, EveryDtypeAndStrided) {
  for (ScalarType t : kAll) {
    HostTensor x = make(t, {5});
    be().fill(0, nullptr, x, 3);
    EXPECT_EQ(x.values(), (std::vector<double>(5, t == kBool ? 1 : 3))) << dtype_name(t);
  }
  expect_near(make(kFloat, {1}).values(), {0});
  HostTensor f = make(kFloat, {2}), h = make(kHalf, {1}), i = make(kLong, {1});
  be().fill(0, nullptr, f, NAN);
  expect_near(f.values(), {NAN, NAN});
  be().fill(0, nullptr, h, 0.1);
  EXPECT_EQ(h.values()[0], static_cast<float>(Half(0.1f)));
  be().fill(0, nullptr, i, -2.9);  // truncates
  EXPECT_EQ(i.values()[0], -2);
  // the diagonal of a 3x3 matrix (eye)
  HostTensor m = make(kFloat, {3, 3}, {0});
  be().fill(0, nullptr, make_ref(m.ref.buf.base, kFloat, {3}, {4}), 1);
  EXPECT_EQ(m.values(), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  const int64_t n = 1 << 20;
  HostTensor big = make(kDouble, {n});
  be().fill(0, nullptr, big, 2.5);
  const double* p = static_cast<const double*>(big.ref.buf.base);
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(p[k], 2.5);
}

TEST(CpuFill, Linear) {
  HostTensor f = make(kFloat, {5});
  be().fill_linear(0, nullptr, f, 1, 0.5);
  EXPECT_EQ(f.values(), (std::vector<double>{1, 1.5, 2, 2.5, 3}));
  HostTensor l = make(kLong, {4});
  be().fill_linear(0, nullptr, l, 10, -3);
  EXPECT_EQ(l.values(), (std::vector<double>{10, 7, 4, 1}));
  // int64 arithmetic beyond 2^53
  HostTensor big = make(kLong, {2});
  be().fill_linear(0, nullptr, big, 9007199254740992.0, 1);
  EXPECT_EQ(static_cast<const int64_t*>(big.ref.buf.base)[1], int64_t{9007199254740992} + 1);
  HostTensor h = make(kHalf, {3});
  be().fill_linear(0, nullptr, h, 0, 0.25);
  EXPECT_EQ(h.values(), (std::vector<double>{0, 0.25, 0.5}));
  const int64_t n = 100000;
  HostTensor d = make(kDouble, {n});
  be().fill_linear(0, nullptr, d, -1, 1e-3);
  const double* p = static_cast<const double*>(d.ref.buf.base);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(p[i], -1 + static_cast<double>(i) * 1e-3);
}

}  // namespace copy_test
}  // namespace
}  // namespace cpu_test
