// int8 (kChar) and int16 (kShort) on every device, against PyTorch 1.13: creation, casts both ways
// (out-of-range floats truncating through int32 and wrapping, integers wrapping), elementwise ops
// with PyTorch's type promotion (tensors, 0-dim tensors and scalars), reductions, indexing,
// printing and copies between devices. The expected dtypes, values and printed forms come from
// tests/ops/small_int_cases.py, run with /usr/bin/python3 during the test; each case here mirrors
// the case of the same name there.
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "locus/dlpack.h"
#include "testing.h"

using namespace locus;

namespace small_int_test {

namespace {

// Six values each: the small type's extremes, overflowing sums and products, a zero.
const std::vector<int64_t> kA8 = {-100, -3, 0, 5, 77, 120}, kA16 = {-30000, -3, 0, 5, 777, 32000};
const std::vector<int64_t> kB = {3, -7, 2, 5, -1, 9};
// Floats cast into the small types: in range, out of the type's range, out of int32's, non-finite.
const std::vector<double> kF = {300.7, -200.5, 1000, 128, -129, 127.9, -0.9, 70000.5, -40000, 3e9, -3e9,
                                NAN, INFINITY, -INFINITY};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}
template <class T>
std::string csv(const std::vector<T>& v) {
  std::vector<std::string> parts;
  for (T x : v) {
    std::ostringstream os;
    os.precision(17);
    os << x;
    parts.push_back(os.str());
  }
  return join(parts);
}

const std::vector<int64_t>& a_values(ScalarType dt) { return dt == kChar ? kA8 : kA16; }

// PyTorch's answers for `dt`, computed once per dtype.
const nlohmann::json& expected(ScalarType dt) {
  static std::map<ScalarType, nlohmann::json> cache;
  auto it = cache.find(dt);
  if (it != cache.end()) return it->second;
  std::vector<std::string> devs;
  for (const Device& d : test_devices()) devs.push_back(d.str());
  std::string cmd = "/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/ops/small_int_cases.py " +
                    dtype_name(dt) + " " + csv(a_values(dt)) + " " + csv(kB) + " " + csv(kF) + " " + join(devs) +
                    " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    if (pclose(p) != 0) out = "exit status non-zero: " + out;
  }
  nlohmann::json j = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  return cache[dt] = j;
}

std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

class SmallInt : public ::testing::TestWithParam<std::tuple<Device, ScalarType>> {
 protected:
  Device d() const { return std::get<0>(GetParam()); }
  ScalarType dt() const { return std::get<1>(GetParam()); }
  TensorOptions on(ScalarType t) const { return TensorOptions().device(d()).dtype(t); }
  Tensor ints(const std::vector<int64_t>& v, ScalarType t) const {
    return tensor(std::vector<int64_t>(v), TensorOptions().dtype(kLong)).to(on(t));
  }
  Tensor A() const { return ints(a_values(dt()), dt()); }
  Tensor B() const { return ints(kB, dt()); }
  Tensor F() const {  // float64 on cpu (not every device has float64), then moved as float32 or float64
    return from_blob(const_cast<double*>(kF.data()), {static_cast<int64_t>(kF.size())}, TensorOptions().dtype(kDouble))
        .clone();
  }
  Tensor Fd(ScalarType t) const { return F().to(t).to(d()); }
  Tensor idx(const std::vector<int64_t>& v, IntArrayRef shape) const { return ints(v, kLong).view(shape); }

  void SetUp() override {
    const nlohmann::json& j = expected(dt());
    // make test installs python3-torch (scripts/install-deps): without it nothing would be checked
    ASSERT_TRUE(j.is_object() && j.contains("add")) << "PyTorch (/usr/bin/python3 with torch) gave no expected values";
  }

  // `t` has PyTorch's dtype, shape and values for case `name`.
  void check(const std::string& name, const Tensor& t) {
    SCOPED_TRACE(name + " (" + dtype_name(dt()) + " on " + d().str() + ")");
    const nlohmann::json& e = expected(dt()).at(name);
    EXPECT_EQ(t.device(), d());
    EXPECT_EQ(std::string(dtype_name(t.scalar_type())), e.at("dtype").get<std::string>());
    std::vector<int64_t> shape = e.at("shape").get<std::vector<int64_t>>();
    EXPECT_EQ(t.sizes(), IntArrayRef(shape));
    std::vector<double> want = e.at("values").get<std::vector<double>>(), got = values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      double tol = is_floating_point(t.scalar_type()) ? 1e-6 * std::max(1.0, std::fabs(want[i])) : 0;
      EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
    }
  }
};

TEST_P(SmallInt, CreationMatchesPyTorch) {
  check("zeros", zeros({4}, on(dt())));
  check("ones", ones({2, 3}, on(dt())));
  check("full", full({3}, -5, on(dt())));
  check("arange", arange(-5, 7, 3, on(dt())));
  check("arange_wraps", arange(1200, on(kLong)).to(dt()));
  // values of the C++ type make a tensor of that dtype, as in libtorch
  if (dt() == kChar) {
    std::vector<int8_t> v(kA8.begin(), kA8.end());
    check("tensor", tensor(v, TensorOptions().device(d())));
    int8_t blob[6] = {-100, -3, 0, 5, 77, 120};
    check("tensor", from_blob(blob, {6}, TensorOptions().dtype(kInt8)).to(d()));
    EXPECT_EQ(tensor({int8_t(1), int8_t(-2)}).dtype(), kInt8);
  } else {
    std::vector<int16_t> v(kA16.begin(), kA16.end());
    check("tensor", tensor(v, TensorOptions().device(d())));
    int16_t blob[6] = {-30000, -3, 0, 5, 777, 32000};
    check("tensor", from_blob(blob, {6}, TensorOptions().dtype(kInt16)).to(d()));
    EXPECT_EQ(tensor({int16_t(1), int16_t(-2)}).dtype(), kInt16);
  }
  check("tensor", tensor({1, 2, 3, 4, 5, 6}, on(dt())).copy_(A()));
  manual_seed(7);
  Tensor r = randint(-7, 9, {1000}, on(dt()));
  EXPECT_EQ(r.scalar_type(), dt());
  EXPECT_GE(r.min().item<int64_t>(), -7);
  EXPECT_LE(r.max().item<int64_t>(), 8);
  manual_seed(7);
  EXPECT_TRUE(r.cpu().equal(randint(-7, 9, {1000}, TensorOptions().dtype(dt()))));  // the same stream on every device
  EXPECT_EQ(empty({2, 2}, on(dt())).scalar_type(), dt());
  EXPECT_EQ(zeros_like(A()).scalar_type(), dt());
  EXPECT_EQ(A()[4].item<int64_t>(), a_values(dt())[4]);
  EXPECT_THROW_MSG(rand({2}, on(dt())), Error, std::string("expected a floating dtype, got ") + dtype_name(dt()));
  // scalars out of the dtype's range are refused, as PyTorch's checked conversion does (a tensor operand wraps)
  const double big = dt() == kChar ? 300 : 70000;
  const std::string range = dt() == kChar ? "(int8 holds -128 to 127)" : "(int16 holds -32768 to 32767)";
  EXPECT_THROW_MSG(full({2}, big, on(dt())), Error,
                   std::string("[fill_] value cannot be converted to type ") + dtype_name(dt()) + " without overflow: " +
                       (dt() == kChar ? "300 " : "70000 ") + range + ". Use a value in that range or a wider dtype.");
  EXPECT_THROW_MSG(A().masked_fill(A() > 0, -big), Error, "without overflow: -");
  EXPECT_THROW_MSG(A().clamp(std::nullopt, static_cast<int64_t>(big)), Error, "[clamp] value cannot be converted to type");
  EXPECT_THROW_MSG(tensor({1.0, big}, on(dt())), Error, "[tensor] value cannot be converted to type");
}

TEST_P(SmallInt, CastsBothWaysMatchPyTorch) {
  check("to_float32", A().to(kFloat));
  check("to_float16", A().to(kHalf));
  check("to_bfloat16", A().to(kBFloat16));
  check("to_bool", A().to(kBool));
  check("to_uint8", A().to(kByte));
  check("to_int32", A().to(kInt));
  check("to_int64", A().to(kLong));
  check("to_other_small", A().to(dt() == kChar ? kShort : kChar));
  check("from_float32", Fd(kFloat).to(dt()));
  check("from_float16", Fd(kHalf).to(dt()));
  check("from_bfloat16", Fd(kBFloat16).to(dt()));
  check("from_int64", ints({300, -129, 70000, -40000, (int64_t(1) << 40) + 5, -(int64_t(1) << 33) - 3}, kLong).to(dt()));
  check("from_int32", ints({300, -129, 70000, -40000}, kInt).to(dt()));
  check("from_uint8", ints({0, 200, 255}, kByte).to(dt()));
  check("from_bool", tensor({true, false}, TensorOptions().device(d())).to(dt()));
  if (dt() == kChar) check("from_other_small", ints({-30000, 300, -129, 5}, kShort).to(dt()));  // wraps
  else check("from_other_small", ints({-128, 127, 5}, kChar).to(dt()));
  if (d().is_cpu() || describe(d()).fp64) {
    check("to_float64", A().to(kDouble));
    check("from_float64", F().to(d()).to(dt()));
  }
}

TEST_P(SmallInt, ElementwiseOpsMatchPyTorch) {
  Tensor a = A(), b = B();
  check("add", a + b);
  check("sub", a - b);
  check("mul", a * b);
  check("div", a / b);
  check("remainder", a.remainder(b));
  check("maximum", maximum(a, b));
  check("minimum", minimum(a, b));
  check("pow2", a.pow(2));
  check("pow_tensor", b.pow(ints({2, 3, 5, 1, 7, 2}, dt())));
  check("eq", a == b);
  check("ne", a != b);
  check("lt", a < b);
  check("le", a <= b);
  check("gt", a > b);
  check("ge", a >= b);
  check("add_scalar", a + 200);  // PyTorch casts the scalar to the tensor's dtype first: int8 wraps it
  check("gt_scalar", a > 200);
  check("mul_scalar", a * 3);
  check("add_float_scalar", a + 2.5);
  check("add_uint8", a + ints({1, 2, 3, 4, 200, 255}, kByte));
  check("add_int64", a + a.to(kLong));
  check("add_float32", a + Fd(kFloat).slice(0, 0, 6));
  check("add_0dim_int64", a + tensor(1000));  // a cpu 0-dim tensor is a scalar on any device
  check("add_broadcast", a.view({2, 3}) + b.slice(0, 0, 3));
  check("neg", -a);
  check("abs", a.abs());
  check("sign", a.sign());
  check("relu", a.relu());
  check("square", a.square());
  check("clamp", a.clamp(-5, 50));
  check("exp_of_small", b.remainder(4).exp());
  check("where", where(a > 0, a, b));
  check("masked_fill", a.masked_fill(a < 0, 7));
  check("logical_not", a.logical_not());
  check("floor_ceil_round", cat({a.floor(), a.ceil(), a.round()}));
  Tensor c = a.clone();
  c.add_(b);
  check("add_inplace", c);
  c = a.clone();
  c.mul_(b);
  check("mul_inplace", c);
  check("mm", a.view({2, 3}).mm(b.view({3, 2})));
  EXPECT_THROW_MSG(a.clone().add_(2.5), Error, std::string("result type Float can't be cast to the desired output type ") +
                                                     toString(dt()));
}

TEST_P(SmallInt, ReductionsMatchPyTorch) {
  Tensor a = A(), a2 = A().view({2, 3});
  check("sum", a.sum());  // integer sums and products are int64, as in PyTorch
  check("prod", B().prod());
  check("max", a.max());  // max/min/amin keep the dtype
  check("min", a.min());
  check("argmax", a.argmax());
  check("argmin", a.argmin());
  check("sum_dim", a2.sum({1}));
  check("sum_as_other_small", a2.sum({1}, false, dt() == kChar ? kShort : kChar));  // int16 sums of int8, and wrapping
  auto [mx, mi] = a2.max(1);
  check("max_dim_values", mx);
  check("max_dim_indices", mi);
  check("amin_dim0", a2.amin({0}));
  check("any", a.any());
  check("all", a.all());
  EXPECT_THROW_MSG(a.mean(), Error, std::string("could not infer output dtype") + ". Input dtype must be either a "
                   "floating point or complex dtype. Got: " + toString(dt()));
}

TEST_P(SmallInt, IndexingMatchesPyTorch) {
  Tensor a = A(), a2 = A().view({2, 3});
  check("index_select", a.index_select(0, idx({5, 0, 2, 2}, {4})));
  check("gather", a2.gather(1, idx({2, 0, 1, 1}, {2, 2})));
  // sums that overflow wrap; on OpenCL and CUDA these are atomic updates of a 32-bit word
  check("scatter_add", zeros({2, 3}, on(dt())).scatter_add(1, idx({0, 0, 2, 1, 1, 1}, {2, 3}), a2));
  check("transpose_contiguous", a2.t().contiguous());
}

TEST_P(SmallInt, PrintsAsPyTorch) {
  const nlohmann::json& e = expected(dt());
  auto want = [&](const std::string& name) { return e.at(name + "@" + d().str()).at("repr").get<std::string>(); };
  Tensor a = A();
  EXPECT_EQ(str(a), want("repr_1d"));
  EXPECT_EQ(str(a.view({2, 3})), want("repr_2d"));
  EXPECT_EQ(str(a[4]), want("repr_0dim"));
  EXPECT_EQ(str(zeros({0}, on(dt()))), want("repr_empty"));
  EXPECT_EQ(str(zeros({2, 0}, on(dt()))), want("repr_empty_2d"));
  EXPECT_EQ(str(arange(1200, on(kLong)).to(dt())), want("repr_summarized"));
  EXPECT_EQ(str(arange(-20, 20, on(kLong)).to(dt()) * 3), want("repr_long_row"));
}

TEST_P(SmallInt, CopiesBetweenDevicesKeepTheBits) {
  Tensor a = A();
  std::vector<double> want = values(a);
  for (const Device& other : test_devices()) {
    Tensor b = a.to(other);
    EXPECT_EQ(b.device(), other);
    EXPECT_EQ(b.scalar_type(), dt());
    EXPECT_EQ(values(b), want) << d() << " -> " << other;
    Tensor back = zeros({6}, on(dt()));
    back.copy_(b);
    EXPECT_EQ(values(back), want) << other << " -> " << d();
    // a strided view crosses devices too
    Tensor v = a.view({2, 3}).t().to(other);
    EXPECT_EQ(values(v), (std::vector<double>{want[0], want[3], want[1], want[4], want[2], want[5]}));
  }
}

std::string name(const ::testing::TestParamInfo<std::tuple<Device, ScalarType>>& info) {
  std::string s = std::get<0>(info.param).str() + "_" + dtype_name(std::get<1>(info.param));
  for (char& c : s)
    if (c == ':') c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(AllDevices, SmallInt,
                         ::testing::Combine(::testing::ValuesIn(test_devices()), ::testing::Values(kChar, kShort)),
                         name);

}  // namespace

// The dtype of a + b for every pair of locus dtypes, with b a tensor, a 0-dim tensor or a Python
// scalar (2, 2.5, True), against torch.result_type: PyTorch's promotion with its category rules
// for 0-dim tensors and scalars. Device-neutral, so checked on cpu.
TEST(SmallIntPromotion, ResultTypesAreTorchsForTensorsZeroDimTensorsAndScalars) {
  std::vector<std::string> names;
  for (int i = 0; i < kNumScalarTypes; ++i) names.push_back(dtype_name(static_cast<ScalarType>(i)));
  std::string cmd = "/usr/bin/python3 " + std::string(LOCUS_SOURCE_DIR) + "/tests/ops/small_int_cases.py result_types " +
                    join(names) + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[65536];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
  }
  nlohmann::json want = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(want.is_object()) << "PyTorch (/usr/bin/python3 with torch) gave no table: " << out;
  int checked = 0;
  auto expect = [&](const std::string& key, const Tensor& r) {
    ASSERT_TRUE(want.contains(key)) << key;
    EXPECT_EQ(dtype_name(r.scalar_type()), want[key].get<std::string>()) << key;
    ++checked;
  };
  for (int i = 0; i < kNumScalarTypes; ++i) {
    ScalarType x = static_cast<ScalarType>(i);
    Tensor a = ones({1}, TensorOptions().dtype(x));
    for (int j = 0; j < kNumScalarTypes; ++j) {
      ScalarType y = static_cast<ScalarType>(j);
      expect(names[i] + "," + names[j], a + ones({1}, TensorOptions().dtype(y)));
      expect(names[i] + ",0dim " + names[j], a + ones({}, TensorOptions().dtype(y)));
    }
    expect(names[i] + ",2", a + 2);
    expect(names[i] + ",2.5", a + 2.5);
    expect(names[i] + ",True", a + true);
  }
  EXPECT_EQ(checked, kNumScalarTypes * (2 * kNumScalarTypes + 3));
}

// DLPack names them as PyTorch's torch.utils.dlpack does: kDLInt with 8 and 16 bits.
TEST(SmallIntDLPack, RoundTripsWithIntCodes) {
  for (ScalarType dt : {kChar, kShort}) {
    Tensor x = tensor({-100, 5, 120, -7}, TensorOptions().dtype(dt)).view({2, 2}).t();
    DLManagedTensor* m = to_dlpack(x);
    EXPECT_EQ(m->dl_tensor.dtype.code, kDLInt);
    EXPECT_EQ(m->dl_tensor.dtype.bits, dt == kChar ? 8 : 16);
    EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
    Tensor y = from_dlpack(m);
    EXPECT_EQ(y.scalar_type(), dt);
    EXPECT_EQ(y.data_ptr(), x.data_ptr());
    EXPECT_EQ(values(y), values(x));
  }
}

}  // namespace small_int_test
