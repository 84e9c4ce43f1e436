// Bitwise ops (and, or, xor, not, left and right shifts) and the operators &, |, ^, ~, <<, >>, %
// and their compound forms on every device, against PyTorch 1.13 (tests/ops/bitwise_cases.py prints
// the tables below): every integer dtype and bool, tensor and scalar operands on either side,
// PyTorch's type promotion, broadcasting, shift counts at and past the bit width (PyTorch's cpu
// results) and the error messages for floats and bool shifts.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "testing.h"

using namespace locus;

namespace bitwise_test {

namespace {

using Expected = std::pair<ScalarType, std::vector<int64_t>>;

// Output of tests/ops/bitwise_cases.py (PyTorch 1.13).
const std::map<std::string, Expected> kTorch = {
{"int8 and", {kChar, {0, 7, 0, 100, 0, 3}}},
{"int8 or", {kChar, {-128, -1, 13, 127, -1, -77}}},
{"int8 xor", {kChar, {-128, -8, 13, 27, -1, -80}}},
{"int8 lshift", {kChar, {-128, -128, 0, -16, 0, -104}}},
{"int8 rshift", {kChar, {-128, -1, 0, 7, 0, -10}}},
{"int8 not", {kChar, {127, 0, -6, -128, -1, 76}}},
{"int8 and 6", {kChar, {0, 6, 4, 6, 0, 2}}},
{"int8 or 6", {kChar, {-122, -1, 7, 127, 6, -73}}},
{"int8 xor -3", {kChar, {125, 2, -8, -126, -3, 78}}},
{"int8 lshift 3", {kChar, {0, -8, 40, -8, 0, -104}}},
{"int8 rshift 3", {kChar, {-16, -1, 0, 15, 0, -10}}},
{"int8 rshift 40", {kChar, {-1, -1, 0, 0, 0, -1}}},
{"int8 3 lshift", {kChar, {3, -128, 0, 48, 0, 24}}},
{"int8 -100 rshift", {kChar, {-100, -1, -1, -7, -1, -13}}},
{"int8 6 and", {kChar, {0, 6, 4, 6, 0, 2}}},
{"int8 remainder", {kChar, {0, 6, 5, 27, 0, 1}}},
{"int8 remainder 7", {kChar, {5, 6, 5, 1, 0, 0}}},
{"uint8 and", {kByte, {1, 1, 0, 0, 0, 0}}},
{"uint8 or", {kByte, {255, 7, 136, 207, 3, 200}}},
{"uint8 xor", {kByte, {254, 6, 136, 207, 3, 200}}},
{"uint8 lshift", {kByte, {254, 128, 0, 0, 0, 200}}},
{"uint8 rshift", {kByte, {127, 0, 0, 0, 0, 200}}},
{"uint8 not", {kByte, {0, 254, 127, 248, 255, 55}}},
{"uint8 and 6", {kByte, {6, 0, 0, 6, 0, 0}}},
{"uint8 or 6", {kByte, {255, 7, 134, 7, 6, 206}}},
{"uint8 xor -3", {kByte, {2, 252, 125, 250, 253, 53}}},
{"uint8 lshift 3", {kByte, {248, 8, 0, 56, 0, 64}}},
{"uint8 rshift 3", {kByte, {31, 0, 16, 0, 0, 25}}},
{"uint8 rshift 40", {kByte, {0, 0, 0, 0, 0, 0}}},
{"uint8 3 lshift", {kByte, {6, 128, 0, 0, 24, 3}}},
{"uint8 -100 rshift", {kByte, {78, 1, 0, 0, 19, 156}}},
{"uint8 6 and", {kByte, {6, 0, 0, 6, 0, 0}}},
{"uint8 remainder", {kByte, {0, 1, 0, 7, 0, 0}}},
{"uint8 remainder 7", {kByte, {3, 1, 2, 0, 0, 4}}},
{"int16 and", {kShort, {0, 15, 0, 40, 300, 0}}},
{"int16 or", {kShort, {-32768, -1, 21, 32767, -1, -298}}},
{"int16 xor", {kShort, {-32768, -16, 21, 32727, -301, -298}}},
{"int16 lshift", {kShort, {-32768, -32768, 0, -256, 0, -1200}}},
{"int16 rshift", {kShort, {-32768, -1, 0, 127, 0, -75}}},
{"int16 not", {kShort, {32767, 0, -6, -32768, -301, 299}}},
{"int16 and 6", {kShort, {0, 6, 4, 6, 4, 4}}},
{"int16 or 6", {kShort, {-32762, -1, 7, 32767, 302, -298}}},
{"int16 xor -3", {kShort, {32765, 2, -8, -32766, -303, 297}}},
{"int16 lshift 3", {kShort, {0, -8, 40, -8, 2400, -2400}}},
{"int16 rshift 3", {kShort, {-4096, -1, 0, 4095, 37, -38}}},
{"int16 rshift 40", {kShort, {-128, -1, 0, 127, 1, -2}}},
{"int16 3 lshift", {kShort, {3, -32768, 0, 768, 0, 12}}},
{"int16 -100 rshift", {kShort, {-100, -1, -1, -1, -1, -25}}},
{"int16 6 and", {kShort, {0, 6, 4, 6, 4, 4}}},
{"int16 remainder", {kShort, {0, 14, 5, 7, 0, 0}}},
{"int16 remainder 7", {kShort, {6, 6, 5, 0, 6, 1}}},
{"int32 and", {kInt, {0, 31, 0, 40, 12345, 3}}},
{"int32 or", {kInt, {-2147483648, -1, 37, 2147483647, -1, -9}}},
{"int32 xor", {kInt, {-2147483648, -32, 37, 2147483607, -12346, -12}}},
{"int32 lshift", {kInt, {-2147483648, -2147483648, 5, -256, -2147483648, -72}}},
{"int32 rshift", {kInt, {-2147483648, -1, 5, 8388607, 0, -2}}},
{"int32 not", {kInt, {2147483647, 0, -6, -2147483648, -12346, 8}}},
{"int32 and 6", {kInt, {0, 6, 4, 6, 0, 6}}},
{"int32 or 6", {kInt, {-2147483642, -1, 7, 2147483647, 12351, -9}}},
{"int32 xor -3", {kInt, {2147483645, 2, -8, -2147483646, -12348, 10}}},
{"int32 lshift 3", {kInt, {0, -8, 40, -8, 98760, -72}}},
{"int32 rshift 3", {kInt, {-268435456, -1, 0, 268435455, 1543, -2}}},
{"int32 rshift 40", {kInt, {-8388608, -1, 0, 8388607, 48, -1}}},
{"int32 3 lshift", {kInt, {3, -2147483648, 3, 768, -2147483648, 24}}},
{"int32 -100 rshift", {kInt, {-100, -1, -100, -1, -1, -13}}},
{"int32 6 and", {kInt, {0, 6, 4, 6, 0, 6}}},
{"int32 remainder", {kInt, {0, 30, 5, 7, 0, 0}}},
{"int32 remainder 7", {kInt, {5, 6, 5, 1, 4, 5}}},
{"int64 and", {kLong, {55, 0, 0, -1, 1, 0}}},
{"int64 or", {kLong, {-1, 4611686018427387905, 69, -1, 123456791, -1099511627711}}},
{"int64 xor", {kLong, {-56, 4611686018427387905, 69, 0, 123456790, -1099511627711}}},
{"int64 lshift", {kLong, {INT64_MIN, INT64_MIN, 5, INT64_MIN, 987654312, -2199023255552}}},
{"int64 rshift", {kLong, {-1, 2305843009213693952, 5, -1, 15432098, -549755813888}}},
{"int64 not", {kLong, {8, -4611686018427387905, -6, 0, -123456790, 1099511627775}}},
{"int64 and 6", {kLong, {6, 0, 4, 6, 4, 0}}},
{"int64 or 6", {kLong, {-9, 4611686018427387910, 7, -1, 123456791, -1099511627770}}},
{"int64 xor -3", {kLong, {10, -4611686018427387907, -8, 2, -123456792, 1099511627773}}},
{"int64 lshift 3", {kLong, {-72, 0, 40, -8, 987654312, -8796093022208}}},
{"int64 rshift 3", {kLong, {-2, 576460752303423488, 0, -1, 15432098, -137438953472}}},
{"int64 rshift 40", {kLong, {-1, 4194304, 0, -1, 0, -1}}},
{"int64 3 lshift", {kLong, {INT64_MIN, 6, 3, INT64_MIN, 24, 6}}},
{"int64 -100 rshift", {kLong, {-1, -50, -100, -1, -13, -50}}},
{"int64 6 and", {kLong, {6, 0, 4, 6, 4, 0}}},
{"int64 remainder", {kLong, {54, 0, 5, 0, 0, 49}}},
{"int64 remainder 7", {kLong, {5, 4, 5, 6, 1, 5}}},
{"bool and", {kBool, {1, 0, 0, 0}}},
{"bool or", {kBool, {1, 1, 1, 0}}},
{"bool xor", {kBool, {0, 1, 1, 0}}},
{"bool not", {kBool, {0, 0, 1, 1}}},
{"bool and true", {kBool, {1, 1, 0, 0}}},
{"bool xor 1", {kLong, {0, 0, 1, 1}}},
{"bool and int64", {kLong, {1, 0, 0, 0}}},
{"uint8 and int8", {kShort, {255, 128, 3, 1}}},
{"int32 or int64", {kLong, {17, 3, 1099511627780, 8}}},
{"int8 shift int64", {kLong, {2, -128, 128, -4611686018427387904}}},
{"broadcast and", {kLong, {4, 0, 8, 2, 2, 8}}},
{"broadcast rshift", {kShort, {-32, -16, -8, 32, 16, 8}}},
{"0dim xor", {kShort, {6, 5, 4}}},
{"int32 and 2^60+5", {kInt, {5, 5}}},
{"bool or 2^62+1", {kLong, {4611686018427387905, 4611686018427387905}}},
{"int64 xor 2^62+1", {kLong, {-4611686018427387906, 4611686018427400248}}},
{"2^62+1 lshift", {kLong, {4611686018427387905, -9223372036854775806}}},
};
const std::map<std::string, std::vector<double>> kTorchFloat = {
{"float remainder", {0.5, -2.0, -1.25, 0.5}},
{"float remainder 2.5", {-0.0, 0.5, 0.75, 0.5}},
{"5 remainder float", {1.0, -1.0, -1.0, 0.0}},
{"5 remainder int", {2, -1, 1, -3}},
};

// The inputs of bitwise_cases.py: x and y per dtype.
struct Input {
  const char* name;
  ScalarType dtype;
  std::vector<int64_t> x, y;
};
const std::vector<Input> kInputs = {
    {"int8", kChar, {-128, -1, 5, 127, 0, -77}, {0, 7, 8, 100, -1, 3}},
    {"uint8", kByte, {255, 1, 128, 7, 0, 200}, {1, 7, 8, 200, 3, 0}},
    {"int16", kShort, {-32768, -1, 5, 32767, 300, -300}, {0, 15, 16, 40, -1, 2}},
    {"int32", kInt, {-2147483648LL, -1, 5, 2147483647, 12345, -9}, {0, 31, 32, 40, -1, 3}},
    {"int64", kLong, {-9, int64_t{1} << 62, 5, -1, 123456789, -(int64_t{1} << 40)}, {63, 1, 64, -1, 3, 65}},
};

std::vector<int64_t> longs(const Tensor& t) {
  Tensor c = t.cpu().to(kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

class Bitwise : public ::testing::TestWithParam<Device> {
 protected:
  Device d() const { return GetParam(); }
  Tensor ints(const std::vector<int64_t>& v, ScalarType dt) const {
    return tensor(v, kLong).to(dt).to(d());
  }
  Tensor bools(const std::vector<int64_t>& v) const { return ints(v, kBool); }
  void expect(const std::string& name, const Tensor& r) const {
    SCOPED_TRACE(name);
    auto it = kTorch.find(name);
    ASSERT_NE(it, kTorch.end());
    EXPECT_EQ(r.device(), d());
    EXPECT_EQ(r.scalar_type(), it->second.first);
    EXPECT_EQ(longs(r), it->second.second);
  }
};

TEST_P(Bitwise, TensorTensorEveryDtype) {
  for (const Input& in : kInputs) {
    std::string n = in.name;
    Tensor x = ints(in.x, in.dtype), y = ints(in.y, in.dtype);
    expect(n + " and", x & y);
    expect(n + " and", x.bitwise_and(y));
    expect(n + " and", locus::bitwise_and(x, y));
    expect(n + " or", x | y);
    expect(n + " or", locus::bitwise_or(x, y));
    expect(n + " xor", x ^ y);
    expect(n + " xor", x.bitwise_xor(y));
    expect(n + " lshift", x << y);
    expect(n + " lshift", locus::bitwise_left_shift(x, y));
    expect(n + " rshift", x >> y);
    expect(n + " rshift", x.bitwise_right_shift(y));
    expect(n + " not", ~x);
    expect(n + " not", locus::bitwise_not(x));
    expect(n + " remainder", x % locus::where(y == 0, locus::ones_like(y), y));
    // a strided operand takes the general loop
    Tensor xs = locus::stack({x, x}, 1).select(1, 0);
    EXPECT_FALSE(xs.is_contiguous());
    expect(n + " xor", xs ^ y);
    expect(n + " rshift", xs >> y);
  }
}

TEST_P(Bitwise, ScalarOperandsKeepTheTensorDtype) {
  for (const Input& in : kInputs) {
    std::string n = in.name;
    Tensor x = ints(in.x, in.dtype), y = ints(in.y, in.dtype);
    expect(n + " and 6", x & 6);
    expect(n + " and 6", x.bitwise_and(6));
    expect(n + " or 6", x | 6);
    expect(n + " xor -3", x ^ -3);
    expect(n + " lshift 3", x << 3);
    expect(n + " lshift 3", x.bitwise_left_shift(3));
    expect(n + " rshift 3", x >> 3);
    expect(n + " rshift 40", x >> 40);
    expect(n + " 3 lshift", locus::bitwise_left_shift(3, y));
    expect(n + " -100 rshift", locus::bitwise_right_shift(-100, y));
    expect(n + " 6 and", locus::bitwise_and(6, x));
    expect(n + " 6 and", 6 & x);
    expect(n + " remainder 7", x % 7);
  }
}

TEST_P(Bitwise, InPlaceAndCompoundOperators) {
  for (const Input& in : kInputs) {
    std::string n = in.name;
    Tensor x = ints(in.x, in.dtype), y = ints(in.y, in.dtype);
    Tensor a = x.clone();
    Tensor& ra = (a &= y);
    EXPECT_TRUE(ra.is_same(a));
    expect(n + " and", a);
    a = x.clone();
    a |= y;
    expect(n + " or", a);
    a = x.clone();
    a ^= y;
    expect(n + " xor", a);
    a = x.clone();
    a <<= y;
    expect(n + " lshift", a);
    a = x.clone();
    a >>= y;
    expect(n + " rshift", a);
    a = x.clone();
    a &= 6;
    expect(n + " and 6", a);
    a = x.clone();
    a.bitwise_or_(6);
    expect(n + " or 6", a);
    a = x.clone();
    a.bitwise_xor_(-3);
    expect(n + " xor -3", a);
    a = x.clone();
    a.bitwise_left_shift_(3);
    expect(n + " lshift 3", a);
    a = x.clone();
    a.bitwise_right_shift_(3);
    expect(n + " rshift 3", a);
    a = x.clone();
    Tensor& rn = a.bitwise_not_();
    EXPECT_TRUE(rn.is_same(a));
    expect(n + " not", a);
    a = x.clone();
    a.bitwise_and_(y).bitwise_or_(y);  // chaining returns self
    EXPECT_EQ(longs(a), longs((x & y) | y));
  }
}

TEST_P(Bitwise, BoolMasksAndPromotion) {
  Tensor b1 = bools({1, 1, 0, 0}), b2 = bools({1, 0, 1, 0});
  expect("bool and", b1 & b2);
  expect("bool or", b1 | b2);
  expect("bool xor", b1 ^ b2);
  expect("bool not", ~b1);
  expect("bool not", b1.bitwise_not());
  expect("bool and true", b1 & true);
  expect("bool xor 1", b1 ^ 1);
  expect("bool and int64", b1 & ints({3, 2, 7, 1}, kLong));
  expect("uint8 and int8", ints({255, 128, 7, 1}, kByte) & ints({-1, -128, 3, 5}, kChar));
  expect("int32 or int64", ints({1, 2, 4, 8}, kInt) | ints({16, 1, int64_t{1} << 40, 8}, kLong));
  expect("int8 shift int64", ints({1, -1, 64, 3}, kChar) << ints({1, 7, 1, 62}, kLong));
  expect("broadcast and", ints({12, 10}, kLong).reshape({2, 1}) & ints({6, 3, 9}, kLong));
  expect("broadcast rshift", ints({-64, 64}, kShort).reshape({2, 1}) >> ints({1, 2, 3}, kShort));
  expect("0dim xor", ints({5, 6, 7}, kShort) ^ locus::tensor(int64_t{3}));  // a 0-dim cpu operand
  Tensor m = b1.clone();
  m &= b2;
  expect("bool and", m);
  m = b1.clone();
  m.bitwise_not_();
  expect("bool not", m);
  // the common mask use: comparisons combined
  Tensor v = locus::tensor({-1.0, 0.5, 2.0, 0.25, 3.0}).to(d());
  Tensor mask = (v > 0) & (v < 1);
  EXPECT_EQ(mask.scalar_type(), kBool);
  EXPECT_EQ(longs(mask), (std::vector<int64_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(longs((v < 0) | (v > 2)), (std::vector<int64_t>{1, 0, 0, 0, 1}));
  EXPECT_EQ(longs(~(v > 0)), (std::vector<int64_t>{1, 0, 0, 0, 0}));
  // large masks go through the specialised (fixed-op) programs on OpenCL
  Tensor big = locus::arange(100000, TensorOptions().device(d()));
  Tensor bm = (big > 10) & (big < 100000 - 10);
  EXPECT_EQ(bm.sum().item<int64_t>(), 100000 - 21);  // 0..10 and 99990..99999 out
  EXPECT_EQ((big & 1).sum().item<int64_t>(), 50000);
  EXPECT_EQ((big << 1).max().item<int64_t>(), 2 * 99999);
}

// Integer scalars beyond 2^53 (which a double can't hold) stay exact; expected values from
// PyTorch 1.13 (bitwise_cases.py's last lines).
TEST_P(Bitwise, WideIntegerScalars) {
  const int64_t big = (int64_t{1} << 62) + 1;
  expect("int32 and 2^60+5", ints({7, -1}, kInt) & ((int64_t{1} << 60) + 5));
  expect("bool or 2^62+1", bools({1, 0}) | big);
  expect("int64 xor 2^62+1", ints({-1, 12345}, kLong) ^ big);
  expect("2^62+1 lshift", locus::bitwise_left_shift(big, ints({0, 1}, kLong)));
  Tensor x = ints({-1, 12345}, kLong);
  x ^= big;
  expect("int64 xor 2^62+1", x);
  EXPECT_EQ(longs(ints({-1, 3}, kLong) & std::numeric_limits<int64_t>::max()),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 3}));
}

TEST_P(Bitwise, RemainderOperator) {
  Tensor xf = locus::tensor({-7.5, -2.0, 3.25, 8.0}).to(d()), yf = locus::tensor({2.0, -3.0, -1.5, 2.5}).to(d());
  EXPECT_EQ(values(xf % yf), kTorchFloat.at("float remainder"));
  EXPECT_EQ(values(xf % 2.5), kTorchFloat.at("float remainder 2.5"));
  Tensor r = 5 % yf;
  EXPECT_EQ(r.scalar_type(), kFloat);
  EXPECT_EQ(values(r), kTorchFloat.at("5 remainder float"));
  Tensor ri = 5 % ints({3, -3, 2, -4}, kLong);
  EXPECT_EQ(ri.scalar_type(), kLong);
  EXPECT_EQ(values(ri), kTorchFloat.at("5 remainder int"));
  // libtorch's Scalar % Tensor fills a tensor like the divisor first: 2.5 truncates to 2 in int64
  // (values from libtorch 1.13's operator%, which Python's 2.5 % t does not use)
  Tensor rt = 2.5 % ints({3, -3, 2, -4}, kLong);
  EXPECT_EQ(rt.scalar_type(), kLong);
  EXPECT_EQ(longs(rt), (std::vector<int64_t>{2, -1, 0, -2}));
}

TEST_P(Bitwise, Errors) {
  Tensor f = locus::ones({2}, TensorOptions().device(d()));
  Tensor i = locus::ones({2}, TensorOptions().device(d()).dtype(kLong));
  Tensor b = locus::ones({2}, TensorOptions().device(d()).dtype(kBool));
  EXPECT_THROW_MSG(f & f, Error, "[bitwise_and] not implemented for 'Float'");
  EXPECT_THROW_MSG(f | i, Error, "[bitwise_or] not implemented for 'Float'");
  EXPECT_THROW_MSG(i ^ 1.5, Error, "[bitwise_xor] not implemented for 'Float'");
  EXPECT_THROW_MSG(f.to(kHalf) & 1, Error, "[bitwise_and] not implemented for 'Half'");
  EXPECT_THROW_MSG(~f, Error, "[bitwise_not] not implemented for 'Float'");
  EXPECT_THROW_MSG(f.bitwise_not_(), Error, "[bitwise_not_] not implemented for 'Float'");
  EXPECT_THROW_MSG(f << i, Error, "[bitwise_left_shift] not implemented for 'Float'");
  EXPECT_THROW_MSG(b << b, Error, "[bitwise_left_shift] not implemented for 'Bool': shifts take integer tensors");
  EXPECT_THROW_MSG(b >> b, Error, "[bitwise_right_shift] not implemented for 'Bool'");
  EXPECT_THROW_MSG(b.bitwise_right_shift_(b), Error, "[bitwise_right_shift_] not implemented for 'Bool'");
  EXPECT_THROW_MSG(i &= f, Error, "[bitwise_and_] not implemented for 'Float'");
  // the result can't be cast back into a bool tensor
  EXPECT_THROW_MSG(b &= i, Error, "[bitwise_and_] result type Long can't be cast to the desired output type Bool");
  EXPECT_THROW_MSG(i & locus::ones({3}, TensorOptions().device(d()).dtype(kLong)), Error, "[bitwise_and]");
  if (!d().is_cpu()) {
    Tensor c = locus::ones({2}, kLong);
    EXPECT_THROW(i & c, DeviceMismatchError);
    EXPECT_THROW(i.bitwise_xor_(c), DeviceMismatchError);
  }
}

}  // namespace

LOCUS_INSTANTIATE_DEVICES(Bitwise);

}  // namespace bitwise_test
