// Tensor semantics every device shares: identity of no-op moves, views, item/data_ptr, printing.
#include <sstream>

#include "testing.h"

using namespace locus;

namespace tensor_test {

class TensorOnDevice : public ::testing::TestWithParam<Device> {};

TEST_P(TensorOnDevice, NoOpToReturnsTheSameTensorWithoutAllocating) {
  Device d = GetParam();
  Tensor x = randn({16, 16}, device(d));
  int64_t before = memory_allocated(d);
  auto stats_before = memory_stats(d);
  Tensor y = x.to(d);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_TRUE(x.to(x.scalar_type()).is_same(x));
  EXPECT_TRUE(x.to(d, kFloat).is_same(x));
  EXPECT_TRUE(x.to(TensorOptions().device(d).dtype(kFloat)).is_same(x));
  EXPECT_TRUE(x.to(x).is_same(x));
  EXPECT_TRUE(x.contiguous().is_same(x));
  if (d.is_cpu()) {
    EXPECT_TRUE(x.cpu().is_same(x));
    EXPECT_EQ(y.data_ptr(), x.data_ptr());
  }
  // "opencl" without an index resolves to the current index: still a no-op
  if (!d.is_cpu() && d.index() == 0) EXPECT_TRUE(x.to(Device(d.type())).is_same(x));
  EXPECT_EQ(memory_allocated(d), before);
  EXPECT_EQ(memory_stats(d)["num_allocs"], stats_before["num_allocs"]);
}

TEST_P(TensorOnDevice, CopyingToLeavesTheSourceUnchanged) {
  Device d = GetParam();
  Tensor x = tensor({{1.5, -2.0}, {3.0, 4.25}}, device(d));
  Tensor y = x.to(d, kFloat, /*non_blocking=*/false, /*copy=*/true);
  EXPECT_FALSE(y.is_same(x));
  EXPECT_FALSE(y.is_alias_of(x));
  y.fill_(7);
  EXPECT_EQ(values(x), (std::vector<double>{1.5, -2.0, 3.0, 4.25}));
  Tensor h = x.to(kHalf);
  EXPECT_EQ(h.scalar_type(), kHalf);
  EXPECT_EQ(h.device(), d);
  EXPECT_EQ(values(h), (std::vector<double>{1.5, -2.0, 3.0, 4.25}));
  EXPECT_EQ(x.scalar_type(), kFloat);
  Tensor back = x.cpu();
  EXPECT_TRUE(back.is_cpu());
  EXPECT_EQ(values(back), values(x));
}

TEST_P(TensorOnDevice, TensorsCarryAnIndexExceptOnCpu) {
  Device d = GetParam();
  Tensor x = zeros({2}, device(Device(d.type())));
  if (d.is_cpu()) EXPECT_FALSE(x.device().has_index());
  else EXPECT_EQ(x.device(), Device(d.type(), 0));
}

TEST_P(TensorOnDevice, ViewsShareStorage) {
  Device d = GetParam();
  Tensor x = arange(12, TensorOptions().device(d).dtype(kFloat)).view({3, 4});
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(x.strides(), IntArrayRef({4, 1}));
  Tensor t = x.t();
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(t.is_alias_of(x));
  EXPECT_EQ(values(t), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  EXPECT_EQ(values(x.transpose(0, 1).contiguous()), values(t));
  EXPECT_EQ(values(x.narrow(1, 1, 2)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(values(x.select(0, 1)), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(values(x.select(1, -1)), (std::vector<double>{3, 7, 11}));
  EXPECT_EQ(values(x.slice(1, 0, 4, 2)), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(x.unsqueeze(0).sizes(), IntArrayRef({1, 3, 4}));
  EXPECT_EQ(x.unsqueeze(-1).sizes(), IntArrayRef({3, 4, 1}));
  EXPECT_EQ(x.unsqueeze(0).squeeze().sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(x.unsqueeze(1).squeeze(1).sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(x.flatten().sizes(), IntArrayRef({12}));
  EXPECT_EQ(x.permute({1, 0}).sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(x.reshape({2, -1}).sizes(), IntArrayRef({2, 6}));
  EXPECT_EQ(values(t.reshape({-1})), values(t));  // reshape of a non-contiguous view copies
  Tensor e = tensor({1.0, 2.0}, device(d)).view({2, 1}).expand({2, 3});
  EXPECT_EQ(e.strides(), IntArrayRef({1, 0}));
  EXPECT_EQ(values(e), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  // writing through a view changes the base
  x.select(0, 0).fill_(-1);
  EXPECT_EQ(values(x.select(0, 0)), (std::vector<double>{-1, -1, -1, -1}));
}

TEST_P(TensorOnDevice, ShapeErrorsAreClear) {
  Device d = GetParam();
  Tensor x = zeros({3, 4}, device(d));
  EXPECT_THROW_MSG(x.view({5, -1}), Error, "[view] shape [5, -1] is invalid for input of size 12");
  EXPECT_THROW_MSG(x.t().view({12}), Error, "Use .reshape(...) instead");
  EXPECT_THROW_MSG(x.transpose(0, 2), Error, "dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW_MSG(x.narrow(0, 2, 2), Error, "exceeds dimension size (3)");
  EXPECT_THROW_MSG(x.expand({3, 5}), Error, "must match the existing size (4)");
  EXPECT_THROW_MSG(x.permute({0, 0}), Error, "repeated dim");
}

TEST_P(TensorOnDevice, ItemAndDataPtr) {
  Device d = GetParam();
  Tensor x = full({1}, 2.5, device(d));
  EXPECT_EQ(x.item<float>(), 2.5f);
  EXPECT_EQ(x.item<double>(), 2.5);
  EXPECT_EQ(x.item().toDouble(), 2.5);
  EXPECT_THROW_MSG(zeros({2}, device(d)).item<float>(), Error, "a Tensor with 2 elements cannot be converted to a Scalar");
  if (d.is_cpu()) {
    EXPECT_EQ(x.data_ptr<float>()[0], 2.5f);
    EXPECT_THROW_MSG(x.data_ptr<double>(), Error, "[data_ptr<float64>] the tensor's dtype is float32");
  } else {
    EXPECT_THROW_MSG(x.data_ptr<float>(), Error, "is not addressable from the host; copy it first with .cpu()");
  }
}

TEST_P(TensorOnDevice, PrintsLikePyTorch) {
  Device d = GetParam();
  std::string suffix = d.is_cpu() ? "" : ", device='" + d.str() + "'";
  auto str = [](const Tensor& t) { std::ostringstream os; os << t; return os.str(); };
  EXPECT_EQ(str(tensor({{1.0, 2.0}}, device(d))), "tensor([[1., 2.]]" + suffix + ")");
  EXPECT_EQ(str(tensor({{1.0, 2.0}}, TensorOptions().device(d).dtype(kHalf))),
            "tensor([[1., 2.]]" + suffix + ", dtype=float16)");
  EXPECT_EQ(str(tensor({1, 2, 3}, device(d))), "tensor([1, 2, 3]" + suffix + ")");
  EXPECT_EQ(str(tensor({0.5, -1.25}, device(d))), "tensor([ 0.5000, -1.2500]" + suffix + ")");
  EXPECT_EQ(str(full({}, 3.0, device(d))), "tensor(3." + suffix + ")");
  EXPECT_EQ(str(tensor({true, false}, device(d))), "tensor([ True, False]" + suffix + ")");
  EXPECT_EQ(str(tensor({{1, 2}, {3, 4}}, device(d))), "tensor([[1, 2],\n        [3, 4]]" + suffix + ")");
  // PyTorch puts the device before the size (torch/_tensor_str.py: _str_intern)
  EXPECT_EQ(str(zeros({0, 3}, device(d))), "tensor([]" + suffix + ", size=(0, 3))");
  // expected strings are PyTorch 1.13's repr of the same tensors
  EXPECT_EQ(str(arange(2000, device(d))), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999]" + suffix + ")");
  EXPECT_EQ(str(zeros({1100, 3}, device(d))),
            "tensor([[0., 0., 0.],\n        [0., 0., 0.],\n        [0., 0., 0.],\n        ...,\n"
            "        [0., 0., 0.],\n        [0., 0., 0.],\n        [0., 0., 0.]]" + suffix + ")");
  // rows wrap at 80 columns: as many elements per line as fit after the indent, " ..." counting
  // as one (PyTorch 1.13's repr of the same tensors, printed by /usr/bin/python3)
  EXPECT_EQ(str(arange(40, device(d))),
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
            "        36, 37, 38, 39]" + suffix + ")");
  EXPECT_EQ(str(arange(30, TensorOptions().device(d).dtype(kFloat)).view({2, 15}) * 1.5),
            "tensor([[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
            "         12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000],\n"
            "        [22.5000, 24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000,\n"
            "         34.5000, 36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]]" +
                (d.is_cpu() ? "" : ",\n       device='" + d.str() + "'") + ")");  // past 80 columns: a line of its own
  EXPECT_EQ(str(arange(3000., TensorOptions().device(d).dtype(kFloat)).view({3, 1000}) / 7),
            "tensor([[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 1.4243e+02, 1.4257e+02,\n"
            "         1.4271e+02],\n"
            "        [1.4286e+02, 1.4300e+02, 1.4314e+02,  ..., 2.8529e+02, 2.8543e+02,\n"
            "         2.8557e+02],\n"
            "        [2.8571e+02, 2.8586e+02, 2.8600e+02,  ..., 4.2814e+02, 4.2829e+02,\n"
            "         4.2843e+02]]" + suffix + ")");
  EXPECT_EQ(str(ones({25}, TensorOptions().device(d).requires_grad(true))),
            "tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.,\n"
            "        1., 1., 1., 1., 1., 1., 1.]" + suffix + ", requires_grad=True)");
}

TEST_P(TensorOnDevice, AccessorAndPrint) {
  Device d = GetParam();
  Tensor t = arange(6, TensorOptions().dtype(kFloat).device(d)).reshape({2, 3});
  if (d.is_cpu()) {
    auto a = t.accessor<float, 2>();
    EXPECT_EQ(a.size(0), 2);
    EXPECT_EQ(a.stride(0), 3);
    EXPECT_EQ(a[1][2], 5.0f);
    a[0][1] = 10.0f;  // writes through
    EXPECT_EQ(t[0][1].item<float>(), 10.0f);
    Tensor tt = t.t();  // any strides
    EXPECT_EQ((tt.accessor<float, 2>()[1][0]), 10.0f);
    EXPECT_THROW_MSG((t.accessor<float, 3>()), Error, "[accessor] expected a tensor of 3 dims, got 2 dims [2, 3]; use accessor<T, 2>().");
    EXPECT_THROW_MSG((t.accessor<double, 2>()), Error, "[data_ptr<float64>]");
    // libtorch's packed accessors: their own copy of sizes and strides
    auto p32 = t.packed_accessor32<float, 2>();
    auto p64 = tt.packed_accessor64<float, 2, RestrictPtrTraits>();
    EXPECT_EQ(p32.size(1), 3);
    EXPECT_EQ(p32.stride(0), 3);
    EXPECT_EQ(p32[0][1], 10.0f);
    EXPECT_EQ(p64[1][0], 10.0f);
    EXPECT_EQ(p64.stride(0), 1);
    p32[1][2] = 7.0f;
    EXPECT_EQ(t[1][2].item<float>(), 7.0f);
    EXPECT_THROW_MSG((t.packed_accessor64<float, 1>()), Error, "[accessor] expected a tensor of 1 dims, got 2 dims");
    Tensor wide = ones({1}).expand({int64_t(1) << 32});  // 2^32 elements over one float
    EXPECT_THROW_MSG((wide.packed_accessor32<float, 1>()), Error,
                     "[packed_accessor32] numel needs to be smaller than int32_t max");
    EXPECT_EQ((wide.packed_accessor64<float, 1>().size(0)), int64_t(1) << 32);
  } else {
    EXPECT_THROW_MSG((t.packed_accessor32<float, 2>()), Error, "is not addressable from the host");
    EXPECT_THROW_MSG((t.accessor<float, 2>()), Error, "is not addressable from the host; copy it first with .cpu()");
  }
  testing::internal::CaptureStderr();
  t.print();
  Tensor().print();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "[" + t.toString() + " [2, 3]]\n[UndefinedTensor]\n");
}

LOCUS_INSTANTIATE_DEVICES(TensorOnDevice);

TEST(Tensor, LiteralDtypesFollowLibtorch) {
  EXPECT_EQ(tensor({1, 2, 3}).dtype(), kInt64);
  EXPECT_EQ(tensor({1.5}).dtype(), kFloat32);
  EXPECT_EQ(tensor({true}).dtype(), kBool);
  EXPECT_EQ(tensor({1, 2}, kFloat64).dtype(), kFloat64);
  EXPECT_TRUE(tensor({1.5}).dtype() == kFloat);  // dtype() compares equal to a ScalarType
  EXPECT_EQ(tensor({{1, 2}, {3, 4}}).sizes(), IntArrayRef({2, 2}));
  EXPECT_THROW_MSG(tensor({{1, 2}, {3}}), Error, "ragged");
}

TEST(Tensor, UndefinedTensorIsAClearError) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_THROW_MSG(t.sizes(), Error, "the tensor is undefined");
}

TEST(Tensor, FromBlobWrapsWithoutCopyAndRunsTheDeleter) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  bool deleted = false;
  {
    Tensor t = from_blob(data, {2, 3}, [&](void*) { deleted = true; }, dtype(kFloat));
    EXPECT_EQ(t.data_ptr<float>(), data);
    t.mul_(2);
    EXPECT_EQ(data[5], 10.0f);
  }
  EXPECT_TRUE(deleted);
  EXPECT_THROW_MSG(from_blob(data, {2}, device(Device("opencl:0"))), Error, "only host memory can be wrapped");
}

TEST(Tensor, UsingAMissingDeviceListsThePresentOnes) {
  int n = device_count(kOpenCL);
  Device missing(kOpenCL, static_cast<DeviceIndex>(n + 3));
  EXPECT_THROW_MSG(zeros({2}, device(missing)), NotAvailableError,
                   missing.str() + " is not available: this machine has " + std::to_string(n) + " opencl device");
  EXPECT_THROW_MSG(zeros({2}, device(missing)), NotAvailableError, "available: cpu");
  EXPECT_THROW_MSG(zeros({2}, device(Device("mps"))), NotAvailableError, "has no backend in locus");
}

}  // namespace tensor_test
