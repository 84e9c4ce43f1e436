#include <sstream>

#include "testing.h"

using namespace locus;

TEST(DType, ConstantsAliasesAndSizes) {
  EXPECT_EQ(kFloat32, kFloat);
  EXPECT_EQ(kFloat64, kDouble);
  EXPECT_EQ(kFloat16, kHalf);
  EXPECT_EQ(kInt64, kLong);
  EXPECT_EQ(kInt32, kInt);
  EXPECT_EQ(kUInt8, kByte);
  EXPECT_EQ(element_size(kFloat), 4u);
  EXPECT_EQ(element_size(kDouble), 8u);
  EXPECT_EQ(element_size(kHalf), 2u);
  EXPECT_EQ(element_size(kBFloat16), 2u);
  EXPECT_EQ(element_size(kLong), 8u);
  EXPECT_EQ(element_size(kInt), 4u);
  EXPECT_EQ(element_size(kByte), 1u);
  EXPECT_EQ(element_size(kBool), 1u);
  EXPECT_STREQ(dtype_name(kBFloat16), "bfloat16");
  EXPECT_STREQ(dtype_name(kFloat16), "float16");
  EXPECT_STREQ(toString(kLong), "Long");
  std::ostringstream os;
  os << kFloat;
  EXPECT_EQ(os.str(), "Float");
}

TEST(DType, PromotionMatchesPyTorch) {
  struct Case {
    ScalarType a, b, r;
  } cases[] = {
      {kByte, kInt, kInt},         {kInt, kLong, kLong},       {kLong, kFloat, kFloat},
      {kHalf, kFloat, kFloat},     {kHalf, kBFloat16, kFloat}, {kBFloat16, kLong, kBFloat16},
      {kBool, kByte, kByte},       {kBool, kBool, kBool},      {kFloat, kDouble, kDouble},
      {kByte, kHalf, kHalf},       {kBool, kHalf, kHalf},      {kInt, kBFloat16, kBFloat16},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(promote_types(c.a, c.b), c.r) << dtype_name(c.a) << " + " << dtype_name(c.b);
    EXPECT_EQ(promote_types(c.b, c.a), c.r) << dtype_name(c.b) << " + " << dtype_name(c.a);
  }
}

TEST(DType, HalfAndBFloat16RoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 1e-7f}) {
    EXPECT_EQ(static_cast<float>(Half(static_cast<float>(Half(f)))), static_cast<float>(Half(f)));
  }
  EXPECT_EQ(static_cast<float>(Half(1.0f)), 1.0f);
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(-2.0f).x, 0xc000);
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);
  EXPECT_EQ(Half(1e6f).x, 0x7c00);  // overflow to inf
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(BFloat16(3.140625f).x, 0x4049);
  EXPECT_FLOAT_EQ(static_cast<float>(Half(0.1f)), 0.0999755859375f);
}

TEST(DType, DefaultDtypeMustBeFloating) {
  EXPECT_EQ(default_dtype(), kFloat);
  EXPECT_THROW_MSG(set_default_dtype(kLong), Error, "must be a floating type");
}
