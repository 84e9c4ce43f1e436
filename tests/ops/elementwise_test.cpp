// Elementwise ops on every device against hand-computed values.
#include <cmath>

#include "testing.h"

using namespace locus;

namespace elementwise_test {

using V = std::vector<double>;

class Elementwise : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
};

TEST_P(Elementwise, ArithmeticWithBroadcasting) {
  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  Tensor b = tensor({10.0, 20.0, 30.0}, o());
  EXPECT_EQ(values(a + b), (V{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(a - b), (V{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(values(a * b), (V{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ(values(b / tensor({2.0}, o())), (V{5, 10, 15}));
  EXPECT_EQ(values(a.add(b, 2)), (V{21, 42, 63, 24, 45, 66}));
  Tensor col = tensor({{1.0}, {2.0}}, o());
  EXPECT_EQ(values(col * b), (V{10, 20, 30, 20, 40, 60}));
  EXPECT_EQ((col * b).sizes(), IntArrayRef({2, 3}));
  // non-contiguous operands
  EXPECT_EQ(values(a.t() + a.t()), (V{2, 8, 4, 10, 6, 12}));
  EXPECT_THROW_MSG(a + tensor({1.0, 2.0}, o()), Error, "shapes [2, 3] and [2] cannot be broadcast together");
}

TEST_P(Elementwise, ScalarForms) {
  Tensor a = tensor({1.0, -2.0, 4.0}, o());
  EXPECT_EQ(values(a + 1), (V{2, -1, 5}));
  EXPECT_EQ(values(a - 1.5), (V{-0.5, -3.5, 2.5}));
  EXPECT_EQ(values(a * 2), (V{2, -4, 8}));
  EXPECT_EQ(values(a / 2), (V{0.5, -1, 2}));
  EXPECT_EQ(values(1 - a), (V{0, 3, -3}));
  EXPECT_EQ(values(8 / a), (V{8, -4, 2}));
  EXPECT_EQ(values(3 * a), (V{3, -6, 12}));
  Tensor c = a.clone();
  c += 1;
  c *= 2;
  c -= 1;
  c /= 2;
  EXPECT_EQ(values(c), (V{1.5, -1.5, 4.5}));
}

TEST_P(Elementwise, TypePromotion) {
  Tensor i = tensor({1, 2, 3}, o());
  Tensor f = tensor({0.5, 0.5, 0.5}, o());
  EXPECT_EQ((i + f).dtype(), kFloat);
  EXPECT_EQ((i + 1).dtype(), kLong);
  EXPECT_EQ((i + 1.5).dtype(), kFloat);
  EXPECT_EQ((i / 2).dtype(), kFloat);  // true division
  EXPECT_EQ(values(i / 2), (V{0.5, 1, 1.5}));
  EXPECT_EQ((i.to(kInt) + i).dtype(), kLong);
  EXPECT_EQ((f.to(kHalf) + 2.5).dtype(), kHalf);  // a wrapped number does not promote
  EXPECT_EQ((f.to(kHalf) + f).dtype(), kFloat);
  EXPECT_EQ((i.to(kInt) + full({}, 2, TensorOptions().dtype(kLong).device(GetParam()))).dtype(), kInt);  // 0-dim loses
  EXPECT_EQ((tensor({true}, o()) + 1).dtype(), kLong);
  EXPECT_EQ((i.to(kByte) + i.to(kBool)).dtype(), kByte);
  Tensor li = i.clone();
  EXPECT_THROW_MSG(li += 0.5, Error, "result type Float can't be cast to the desired output type Long");
}

TEST_P(Elementwise, UnaryMath) {
  Tensor a = tensor({-1.0, 0.0, 4.0}, o());
  EXPECT_EQ(values(-a), (V{1, 0, -4}));
  EXPECT_EQ(values(a.abs()), (V{1, 0, 4}));
  EXPECT_EQ(values(a.relu()), (V{0, 0, 4}));
  EXPECT_EQ(values(a.clamp(-0.5, 2.0)), (V{-0.5, 0, 2}));
  EXPECT_EQ(values(a.clamp_min(0.5)), (V{0.5, 0.5, 4}));
  EXPECT_EQ(values(a.clamp(std::nullopt, 1)), (V{-1, 0, 1}));
  EXPECT_EQ(values(tensor({4.0, 9.0}, o()).sqrt()), (V{2, 3}));
  EXPECT_EQ(values(tensor({2.0, 3.0}, o()).pow(2)), (V{4, 9}));
  EXPECT_EQ(values(tensor({2, 3}, o()).pow(tensor({3, 2}, o()))), (V{8, 9}));
  Tensor x = tensor({0.0, 1.0, -2.0}, o());
  V e = values(x.exp()), l = values(tensor({1.0, 2.718281828}, o()).log());
  EXPECT_NEAR(e[1], std::exp(1.0), 1e-5);
  EXPECT_NEAR(e[2], std::exp(-2.0), 1e-6);
  EXPECT_NEAR(l[1], 1.0, 1e-6);
  V s = values(x.sigmoid()), t = values(x.tanh());
  EXPECT_NEAR(s[0], 0.5, 1e-7);
  EXPECT_NEAR(s[2], 1.0 / (1.0 + std::exp(2.0)), 1e-6);
  EXPECT_NEAR(t[1], std::tanh(1.0), 1e-6);
  EXPECT_EQ(x.exp().dtype(), kFloat);
  EXPECT_EQ(tensor({1, 4}, o()).sqrt().dtype(), kFloat);  // integer inputs give floats
  EXPECT_THROW_MSG(tensor({true}, o()).neg(), Error, "on a bool tensor is not supported");
}

// libtorch's free functions for the unary ops (torch::sin(x), ...), log1p / expm1 / erf as
// methods, free functions and in place, against the C library in double; integers give floats.
TEST_P(Elementwise, UnaryFreeFunctionsLog1pExpm1Erf) {
  const V xs = {-2.5, -0.5, -1e-6, 0.0, 3e-7, 0.75, 2.0};
  Tensor x = tensor(xs, o());
  auto near_each = [&](const Tensor& got, double (*f)(double), double tol, const char* what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(got.device(), GetParam());
    EXPECT_EQ(got.dtype(), kFloat);
    V g = values(got);
    ASSERT_EQ(g.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = f(xs[i]);
      EXPECT_NEAR(g[i], want, tol * std::max(1.0, std::abs(want))) << "x = " << xs[i];
    }
  };
  near_each(locus::sin(x), [](double v) { return std::sin(v); }, 1e-6, "sin");
  near_each(locus::cos(x), [](double v) { return std::cos(v); }, 1e-6, "cos");
  near_each(locus::square(x), [](double v) { return v * v; }, 1e-6, "square");
  near_each(locus::sign(x), [](double v) { return double((v > 0) - (v < 0)); }, 0, "sign");
  near_each(locus::floor(x), [](double v) { return std::floor(v); }, 0, "floor");
  near_each(locus::ceil(x), [](double v) { return std::ceil(v); }, 0, "ceil");
  near_each(locus::round(x), [](double v) { return std::nearbyint(v); }, 0, "round (half to even)");
  near_each(locus::erf(x), [](double v) { return std::erf(v); }, 1e-6, "erf");
  near_each(locus::exp2(x), [](double v) { return std::exp2(v); }, 1e-6, "exp2");
  near_each(x.exp2(), [](double v) { return std::exp2(v); }, 1e-6, "exp2()");
  near_each(x.erf(), [](double v) { return std::erf(v); }, 1e-6, "erf()");
  // near 0 the point of log1p and expm1: log(1 + 3e-7) in float would lose most digits
  Tensor p = x.clamp_min(-0.5);
  near_each(locus::log1p(p), [](double v) { return std::log1p(std::max(v, -0.5)); }, 2e-6, "log1p");
  EXPECT_NEAR(values(locus::log1p(p))[4] / 3e-7, 1.0, 1e-6);
  near_each(locus::expm1(x), [](double v) { return std::expm1(v); }, 2e-6, "expm1");
  EXPECT_NEAR(values(x.expm1())[2] / -1e-6, 1.0, 1e-6);
  Tensor q = tensor({0.25, 4.0}, o());
  EXPECT_EQ(values(locus::rsqrt(q)), (V{2, 0.5}));
  EXPECT_EQ(values(locus::log2(q)), (V{-2, 2}));
  near_each(locus::log2(p.abs() + 0.1), [](double v) { return std::log2(std::abs(std::max(v, -0.5)) + 0.1); }, 1e-6,
            "log2");
  EXPECT_EQ(values(locus::reciprocal(q)), (V{4, 0.25}));
  // the in-place forms give the out-of-place results
  auto in_place = [](const Tensor& t, Tensor& (Tensor::*op_)() const, Tensor (Tensor::*op)() const) {
    Tensor y = t.clone();
    (y.*op_)();
    return y.equal((t.*op)());
  };
  EXPECT_TRUE(in_place(x, &Tensor::erf_, &Tensor::erf));
  EXPECT_TRUE(in_place(x, &Tensor::expm1_, &Tensor::expm1));
  EXPECT_TRUE(in_place(q, &Tensor::log1p_, &Tensor::log1p));
  EXPECT_TRUE(in_place(q, &Tensor::log2_, &Tensor::log2));
  EXPECT_TRUE(in_place(x, &Tensor::exp2_, &Tensor::exp2));
  EXPECT_EQ(values(tensor({1, 8}, o()).log2()), (V{0, 3}));  // integer inputs give floats
  EXPECT_EQ(tensor({1, 2}, o()).erf().dtype(), kFloat);  // integer inputs give floats
  EXPECT_THROW_MSG(tensor({1, 2}, o()).erf_(), Error, "result type Float can't be cast to the desired output type Long");
}

// atan2(y, x): the angle of the point (x, y), in every quadrant and on the axes; broadcasting,
// integers giving floats, and the device rule.
TEST_P(Elementwise, Atan2) {
  const V ys = {1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 2.0, -0.0};
  const V xs = {1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0, -1.0};
  Tensor y = tensor(ys, o()), x = tensor(xs, o());
  V got = values(locus::atan2(y, x));
  for (size_t i = 0; i < ys.size(); ++i) EXPECT_NEAR(got[i], std::atan2(ys[i], xs[i]), 1e-6) << ys[i] << ", " << xs[i];
  EXPECT_TRUE(std::signbit(got[7]));  // atan2(-0, -1) = -pi
  EXPECT_EQ(values(y.atan2(x)), got);
  Tensor col = tensor({{1.0}, {-1.0}}, o());  // [2, 1] with [8]: [2, 8]
  EXPECT_EQ(locus::atan2(col, x).sizes(), IntArrayRef({2, 8}));
  EXPECT_NEAR(values(locus::atan2(col, x))[8 + 1], std::atan2(-1.0, -1.0), 1e-6);
  EXPECT_EQ(locus::atan2(tensor({1, 2}, o()), tensor({3, 4}, o())).dtype(), kFloat);
  if (GetParam() != Device(kCPU))
    EXPECT_THROW_MSG(locus::atan2(y, tensor(xs)), DeviceMismatchError, "[atan2] Expected all tensors to be on the same device");
}

TEST_P(Elementwise, ComparisonsGiveBool) {
  Tensor a = tensor({1.0, 2.0, 3.0}, o());
  Tensor b = tensor({3.0, 2.0, 1.0}, o());
  EXPECT_EQ((a < b).dtype(), kBool);
  EXPECT_EQ(values(a < b), (V{1, 0, 0}));
  EXPECT_EQ(values(a <= b), (V{1, 1, 0}));
  EXPECT_EQ(values(a > b), (V{0, 0, 1}));
  EXPECT_EQ(values(a >= 2), (V{0, 1, 1}));
  EXPECT_EQ(values(a == b), (V{0, 1, 0}));
  EXPECT_EQ(values(a != 2), (V{1, 0, 1}));
  EXPECT_EQ(values(where(a > 1.5, a, b)), (V{3, 2, 3}));
  EXPECT_EQ(values(where(a > 1.5, a, 0.0)), (V{0, 2, 3}));
  EXPECT_EQ(values(a.masked_fill(a == 2, -1)), (V{1, -1, 3}));
  Tensor m = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  Tensor same = m;
  EXPECT_TRUE(&m.masked_fill_(tensor({1.0, 0.0, 1.0}, o()) > 0, 0) == &m);  // a broadcast mask, in place
  EXPECT_EQ(values(same), (V{0, 2, 0, 0, 5, 0}));
  Tensor leaf = tensor({1.0, 2.0}, o()).requires_grad_();
  EXPECT_THROW_MSG(leaf.masked_fill_(leaf > 1, 0), Error, "requires grad");
  EXPECT_EQ(values((a > 1).logical_and(b > 1)), (V{0, 1, 0}));
  EXPECT_EQ(values((a > 1).logical_not()), (V{1, 0, 0}));
}

TEST_P(Elementwise, EveryDtypeCast) {
  Tensor src = tensor({0.0, 1.0, 2.5, -3.0}, TensorOptions().device(GetParam()).dtype(kDouble));
  for (ScalarType a : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool}) {
    for (ScalarType b : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool}) {
      Tensor x = src.abs().to(a).to(b);
      EXPECT_EQ(x.dtype(), b);
      V v = values(x);
      V want;
      for (double s : {0.0, 1.0, 2.5, 3.0}) {
        double t = s;
        for (ScalarType step : {a, b}) {
          if (step == kBool) t = t != 0;
          else if (!is_floating_point(step)) t = std::trunc(t);
        }
        want.push_back(t);
      }
      EXPECT_EQ(v, want) << dtype_name(a) << " -> " << dtype_name(b);
    }
  }
}

TEST_P(Elementwise, OneElementAddAndEmpty) {
  Tensor a = ones({1}, o()), b = ones({1}, o());
  EXPECT_EQ(values(a + b), (V{2}));
  Tensor e = zeros({0, 3}, o());
  EXPECT_EQ((e + 1).sizes(), IntArrayRef({0, 3}));
}

TEST_P(Elementwise, ZeroDimCpuTensorIsAScalarAnywhere) {
  Tensor a = tensor({1.0, 2.0}, o());
  Tensor s = full({}, 10.0);  // cpu, 0-dim
  Tensor r = a * s;
  EXPECT_EQ(r.device(), GetParam());
  EXPECT_EQ(values(r), (V{10, 20}));
  EXPECT_EQ(values(s - a), (V{9, 8}));
}

// In-place ops and copy_ refuse, as PyTorch does, to write where the result would depend on the
// order of the kernel's visits: an expand()ed destination, or an input overlapping it partly.
// The very same elements (x.add_(x), a view of the same range) and disjoint slices are fine.
TEST_P(Elementwise, InPlaceOverlapsAreRefused) {
  const char* partly = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                       "single memory location. Please clone() the tensor before performing the operation.";
  const char* internal = "unsupported operation: more than one element of the written-to tensor refers to a single "
                         "memory location";
  Tensor x = arange(10, o().dtype(kFloat));
  Tensor before = x.clone();
  EXPECT_THROW_MSG(x.slice(0, 1).add_(x.slice(0, 0, 9)), Error, std::string("[add_] ") + partly);
  EXPECT_THROW_MSG(x.slice(0, 0, 9).mul_(x.slice(0, 1)), Error, std::string("[mul_] ") + partly);
  EXPECT_THROW_MSG(x.slice(0, 2).sub_(x.slice(0, 0, 8), 2), Error, std::string("[sub_] ") + partly);
  EXPECT_THROW_MSG(x.slice(0, 1).copy_(x.slice(0, 0, 9)), Error, std::string("[copy_] ") + partly);
  EXPECT_TRUE(x.equal(before));  // nothing written
  Tensor e = zeros({1}, o().dtype(kFloat)).expand({3});
  EXPECT_THROW_MSG(e.add_(ones({3}, o().dtype(kFloat))), Error, std::string("[add_] ") + internal);
  EXPECT_THROW_MSG(e.add_(1), Error, std::string("[add_] ") + internal);
  EXPECT_THROW_MSG(e.copy_(ones({3}, o().dtype(kFloat))), Error, std::string("[copy_] ") + internal);
  // allowed: the same tensor, the same range through another view, disjoint slices, clones
  x.add_(x);
  EXPECT_EQ(values(x), values(before * 2));
  x.view({2, 5}).view({10}).mul_(x);
  x.slice(0, 0, 5).add_(x.slice(0, 5));
  x.slice(0, 1).copy_(x.slice(0, 0, 9).clone());
  Tensor y = arange(10, o().dtype(kFloat)) * 2;
  y.mul_(y);
  y.slice(0, 0, 5).add_(y.slice(0, 5));
  y.slice(0, 1).copy_(y.slice(0, 0, 9).clone());
  EXPECT_EQ(values(x), values(y));
}

LOCUS_INSTANTIATE_DEVICES(Elementwise);

TEST(SameDeviceRule, MismatchMessageNamesOpArgumentDevicesAndFix) {
  if (device_count(kOpenCL) == 0) GTEST_SKIP() << "needs an OpenCL device";
  Tensor a = ones({2}, device(Device("opencl:0")));
  Tensor b = ones({2});
  auto before = memory_stats(Device("opencl:0"))["num_allocs"];
  try {
    a.add(b);
    ADD_FAILURE() << "no error";
  } catch (const DeviceMismatchError& e) {
    EXPECT_STREQ(e.what(),
                 "[add] Expected all tensors to be on the same device, but found at least two devices, opencl:0 and "
                 "cpu! Argument 'other' is on cpu; move it with .to(opencl:0).");
  }
  EXPECT_EQ(memory_stats(Device("opencl:0"))["num_allocs"], before);  // nothing allocated
  EXPECT_THROW_MSG(b.mm(ones({2, 2}, device(Device("opencl:0")))), DeviceMismatchError,
                   "[mm] Expected all tensors to be on the same device, but found at least two devices, cpu and opencl:0! "
                   "Argument 'mat2' is on opencl:0; move it with .to(cpu).");
  EXPECT_THROW_MSG(cat({a, b}), DeviceMismatchError, "Argument 'tensors[1]' is on cpu");
  // the list check runs first, so an empty 1-D part elsewhere is also named, and stack names itself
  EXPECT_THROW_MSG(cat({ones({0}), a, b}), DeviceMismatchError,
                   "[cat] Expected all tensors to be on the same device, but found at least two devices, cpu and "
                   "opencl:0! Argument 'tensors[1]' is on opencl:0; move it with .to(cpu).");
  EXPECT_THROW_MSG(stack({a, b}), DeviceMismatchError,
                   "[stack] Expected all tensors to be on the same device, but found at least two devices, opencl:0 and "
                   "cpu! Argument 'tensors[1]' is on cpu; move it with .to(opencl:0).");
  if (device_count(kOpenCL) > 1) {
    Tensor c = ones({2}, device(Device("opencl:1")));
    EXPECT_THROW_MSG(a * c, DeviceMismatchError, "opencl:0 and opencl:1! Argument 'other' is on opencl:1; move it with .to(opencl:0).");
    EXPECT_THROW_MSG(where(a > 0, a, c), DeviceMismatchError, "[where] Expected all tensors");
  }
}

}  // namespace elementwise_test
