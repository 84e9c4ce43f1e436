#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "testing.h"

using namespace locus;

namespace dtype_test {

TEST(DType, ConstantsAliasesAndSizes) {
  EXPECT_EQ(kFloat32, kFloat);
  EXPECT_EQ(kFloat64, kDouble);
  EXPECT_EQ(kFloat16, kHalf);
  EXPECT_EQ(kInt64, kLong);
  EXPECT_EQ(kInt32, kInt);
  EXPECT_EQ(kUInt8, kByte);
  EXPECT_EQ(kInt8, kChar);
  EXPECT_EQ(kInt16, kShort);
  EXPECT_EQ(element_size(kChar), 1u);
  EXPECT_EQ(element_size(kShort), 2u);
  EXPECT_STREQ(dtype_name(kChar), "int8");
  EXPECT_STREQ(dtype_name(kShort), "int16");
  EXPECT_STREQ(toString(kChar), "Char");
  EXPECT_STREQ(toString(kShort), "Short");
  EXPECT_TRUE(is_integral(kChar) && is_integral(kShort) && !is_floating_point(kChar) && !is_floating_point(kShort));
  EXPECT_EQ(CppTypeToScalarType<int8_t>::value, kChar);
  EXPECT_EQ(CppTypeToScalarType<int16_t>::value, kShort);
  EXPECT_EQ(static_cast<int>(ScalarType::Undefined), kNumScalarTypes);  // Undefined stays last
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

TEST(DType, DefaultDtypeAsLibtorchSpellsIt) {
  EXPECT_EQ(get_default_dtype(), kFloat);
  EXPECT_EQ(get_default_dtype_as_scalartype(), kFloat);
  EXPECT_STREQ(get_default_dtype().name(), "float");
  set_default_dtype(TypeMeta::Make<double>());  // libtorch: torch::set_default_dtype(caffe2::TypeMeta::Make<double>())
  EXPECT_EQ(get_default_dtype(), kDouble);
  EXPECT_EQ(zeros({1}).scalar_type(), kDouble);
  set_default_dtype(kFloat);
  EXPECT_EQ(TypeMeta::Make<int64_t>().toScalarType(), kLong);
  EXPECT_EQ(TypeMeta::Make<float>().itemsize(), 4u);
  EXPECT_EQ(hasCUDA(), cuda::is_available());
  EXPECT_FALSE(hasMPS());
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

// Every pair of locus dtypes against torch.promote_types, the table printed by PyTorch during the run.
TEST(DType, PromotionIsPyTorchsTableForEveryPair) {
  std::vector<ScalarType> all;
  std::string names;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    all.push_back(static_cast<ScalarType>(i));
    names += std::string(" ") + dtype_name(all.back());
  }
  std::string cmd = "/usr/bin/python3 -c 'import sys, torch\n"
                    "ts = [getattr(torch, n) for n in sys.argv[1:]]\n"
                    "for a in ts: print(\" \".join(str(torch.promote_types(a, b))[6:] for b in ts))'" + names + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  // make test installs python3-torch (scripts/install-deps): without it this check would be empty
  ASSERT_EQ(pclose(p), 0) << "PyTorch (/usr/bin/python3 with torch) did not print the table: " << out;
  std::istringstream in(out);
  int checked = 0;
  for (ScalarType a : all) {
    for (ScalarType b : all) {
      std::string want;
      ASSERT_TRUE(in >> want) << out;
      EXPECT_EQ(dtype_name(promote_types(a, b)), want) << dtype_name(a) << " with " << dtype_name(b);
      ++checked;
    }
  }
  EXPECT_EQ(checked, kNumScalarTypes * kNumScalarTypes);
  EXPECT_THROW_MSG(promote_types(kChar, ScalarType::Undefined), Error, "undefined dtype");
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

}  // namespace dtype_test
