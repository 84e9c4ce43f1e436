// Tensor::to in every spelling libtorch accepts, options() without requires_grad, data_ptr() on
// every device, and Device(int) (include/locus/tensor.h, src/core/tensor.cpp, src/core/device.cpp).
#include <unistd.h>

#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "testing.h"

using namespace locus;

namespace tensor_to_test {

// ---- compile time: every form resolves to one overload (an ambiguity fails the build) -------
template <typename... Args>
constexpr bool to_compiles = requires(const Tensor& t, Args... args) {
  { t.to(args...) } -> std::same_as<Tensor>;
};
static_assert(to_compiles<>);
static_assert(to_compiles<DeviceType>);
static_assert(to_compiles<DeviceType, bool, bool>);
static_assert(to_compiles<Device>);
static_assert(to_compiles<Device, bool, bool>);
static_assert(to_compiles<const char*>);
static_assert(to_compiles<const char*, bool, bool>);
static_assert(to_compiles<std::string>);
static_assert(to_compiles<std::string, bool, bool>);
static_assert(to_compiles<ScalarType>);
static_assert(to_compiles<ScalarType, bool, bool>);
static_assert(to_compiles<Device, ScalarType>);
static_assert(to_compiles<Device, ScalarType, bool, bool>);
static_assert(to_compiles<DeviceType, ScalarType, bool, bool>);
static_assert(to_compiles<const char*, ScalarType, bool, bool>);
static_assert(to_compiles<TensorOptions>);
static_assert(to_compiles<TensorOptions, bool, bool>);
static_assert(to_compiles<Tensor>);
static_assert(to_compiles<Tensor, bool, bool>);
static_assert(to_compiles<int>);
static_assert(to_compiles<int, bool, bool>);

// The everyday spellings, literally as users write them (never called).
[[maybe_unused]] void every_spelling(const Tensor& x, const Tensor& other) {
  (void)x.to(kCPU);
  (void)x.to(kCUDA);
  (void)x.to(kOpenCL);
  (void)x.to("cuda");
  (void)x.to("opencl:1");
  (void)x.to(std::string("cuda:0"));
  (void)x.to(Device(kCUDA, 1));
  (void)x.to({kCUDA, 1});
  (void)x.to(kHalf);
  (void)x.to(kCUDA, kHalf);
  (void)x.to("cuda", kFloat, /*non_blocking=*/true);
  (void)x.to(locus::device(kCPU).dtype(kDouble));
  (void)x.to(locus::dtype(kDouble));
  (void)x.to(other, /*non_blocking=*/true, /*copy=*/true);
  (void)x.to(0);
  (void)x.to(kCPU, /*non_blocking=*/false, /*copy=*/true);
}

// ---- behaviour on every device ----------------------------------------------------------------
class TensorTo : public ::testing::TestWithParam<Device> {};

TEST_P(TensorTo, EverySpellingOfTheOwnDeviceIsANoOp) {
  Device d = GetParam();
  Tensor x = randn({4, 5}, device(d));
  void* p = x.data_ptr();
  std::string s = d.str();
  std::vector<Tensor> same = {x.to(d),          x.to(s),         x.to(s.c_str()),   x.to(kFloat),
                              x.to(d, kFloat),  x.to(TensorOptions(d)), x.to(x), x.to(),
                              x.to(d, true),    x.to(s, true),   x.to(kFloat, true)};
  if (d.is_cpu() || d.index() == 0) same.push_back(x.to(d.type()));  // "opencl" means the current index, 0
  for (const Tensor& y : same) {
    EXPECT_TRUE(y.is_same(x));
    EXPECT_EQ(y.data_ptr(), p);
  }
}

TEST_P(TensorTo, CopyTrueAlwaysCopies) {
  Device d = GetParam();
  Tensor x = randn({4, 5}, device(d));
  std::vector<Tensor> copies = {x.to(d, false, true),       x.to(d.str(), false, true), x.to(kFloat, false, true),
                                x.to(d, kFloat, false, true), x.to(TensorOptions(), false, true),
                                x.to(x, false, true),        x.to(d.str().c_str(), true, true)};
  for (const Tensor& y : copies) {
    EXPECT_FALSE(y.is_same(x));
    EXPECT_FALSE(y.is_alias_of(x));
    EXPECT_NE(y.data_ptr(), x.data_ptr());
    EXPECT_EQ(y.device(), x.device());
    EXPECT_TRUE(y.equal(x));
  }
}

TEST_P(TensorTo, MovesAndConvertsByEverySpelling) {
  Device d = GetParam();
  Tensor host = arange(6, dtype(kFloat));
  Tensor on = host.to(d.str());
  EXPECT_EQ(on.device(), d.is_cpu() ? Device(kCPU) : d);
  EXPECT_EQ(values(on.to(kCPU)), values(host));
  Tensor half = on.to(d, kDouble);
  EXPECT_EQ(half.scalar_type(), kDouble);
  EXPECT_EQ(values(half), values(host));
  Tensor like = host.to(on);  // other's device and dtype
  EXPECT_EQ(like.device(), on.device());
}

TEST_P(TensorTo, DtypeShorthandsAreTo) {
  Device d = GetParam();
  Tensor x = arange(6, device(d).dtype(kFloat)).requires_grad_();
  struct Case { Tensor got; ScalarType want; };
  for (const Case& c : {Case{x.half(), kHalf}, Case{x.bfloat16(), kBFloat16}, Case{x.double_(), kDouble},
                        Case{x.half().float_(), kFloat}}) {
    EXPECT_EQ(c.got.scalar_type(), c.want);
    EXPECT_EQ(c.got.device(), d);
    EXPECT_EQ(values(c.got), values(x));  // 0..5 is exact in every floating type
  }
  EXPECT_TRUE(x.float_().is_same(x));  // already float32: the same tensor, as to(kFloat)
  // differentiable as to(): the gradient comes back in x's dtype
  x.bfloat16().double_().sum().backward();
  EXPECT_EQ(x.grad().scalar_type(), kFloat);
  EXPECT_EQ(values(x.grad()), values(ones({6})));
}

TEST_P(TensorTo, OptionsDropRequiresGrad) {
  Device d = GetParam();
  Tensor w = randn({3, 2}, device(d)).requires_grad_();
  ASSERT_TRUE(w.requires_grad());
  EXPECT_FALSE(w.options().requires_grad());
  Tensor z = zeros({2, 2}, w.options());
  EXPECT_FALSE(z.requires_grad());
  EXPECT_TRUE(z.is_leaf());
  EXPECT_EQ(z.device(), w.device());
  EXPECT_EQ(z.scalar_type(), w.scalar_type());
}

TEST_P(TensorTo, DataPtrIdentifiesStorageAndOffset) {
  Device d = GetParam();
  Tensor x = randn({8, 4}, device(d));
  Tensor y = randn({8, 4}, device(d));
  auto addr = [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); };
  EXPECT_NE(addr(x), 0u);
  EXPECT_NE(addr(x), addr(y));                 // two live tensors
  EXPECT_EQ(addr(x), addr(x.view({32})));      // a view at offset 0
  Tensor rows = x.narrow(0, 3, 2);             // a view 3 rows in
  ASSERT_EQ(rows.storage_offset(), 12);
  EXPECT_EQ(addr(rows) - addr(x), 12 * x.element_size());
  EXPECT_EQ(addr(x.select(1, 1)) - addr(x), x.element_size());
  EXPECT_EQ(x.data_ptr(), x.data_ptr());       // stable
  EXPECT_EQ(x.const_data_ptr(), x.data_ptr());
  if (!d.is_cpu()) {  // typed access still protects the host from device memory
    EXPECT_THROW_MSG(x.data_ptr<float>(), Error, "is not addressable from the host; copy it first with .cpu()");
  }
}

LOCUS_INSTANTIATE_DEVICES(TensorTo);

// ---- Device(int): torch.device(0) ----------------------------------------------------------
TEST(DeviceFromInteger, MeansTheCurrentAcceleratorType) {
  if (device_count(kCUDA) > 0) {
    EXPECT_EQ(Device(0), Device("cuda:0"));
  } else if (device_count(kOpenCL) > 0) {
    EXPECT_EQ(Device(0), Device("opencl:0"));
    EXPECT_EQ(Device(1), Device("opencl:1"));
    Tensor x = ones({2});
    EXPECT_EQ(x.to(0).device(), Device("opencl:0"));
    EXPECT_EQ(x.to(0, false, true).device(), Device("opencl:0"));
  } else {
    EXPECT_THROW_MSG(Device(0), NotAvailableError, "an integer means an accelerator device (cuda, else opencl)");
  }
}

// Without any accelerator: this binary runs again with OpenCL filtered out and no CUDA driver,
// only the child test selected (DISABLED_ so that it runs only there).
TEST(DeviceFromInteger, DISABLED_NoAcceleratorChild) {
  ASSERT_NE(std::getenv("LOCUS_TEST_NO_ACCELERATOR_CHILD"), nullptr) << "runs as a child of WithoutAnAccelerator";
  ASSERT_EQ(device_count(kCUDA) + device_count(kOpenCL), 0);
  EXPECT_THROW_MSG(Device(0), NotAvailableError,
                   "Device(0): an integer means an accelerator device (cuda, else opencl), and this machine has "
                   "none; name the device instead, e.g. Device(\"cpu\").");
  EXPECT_THROW_MSG(ones({1}).to(1), NotAvailableError, "Device(1): an integer means an accelerator device");
  nn::Linear lin(2, 2);
  EXPECT_THROW_MSG(lin->to(0), NotAvailableError, "Device(0): an integer means an accelerator device");
}

TEST(DeviceFromInteger, WithoutAnAcceleratorSaysSo) {
  bool ran = false;
  EXPECT_EQ(run_test_in_child("LOCUS_OPENCL_DEVICES=no-such-device LOCUS_CUDA_DRIVER=/nonexistent/libcuda.so.1 "
                              "LOCUS_TEST_NO_ACCELERATOR_CHILD=1",
                              "DeviceFromInteger.DISABLED_NoAcceleratorChild", &ran),
            0);
  EXPECT_TRUE(ran);
}

TEST(DeviceFromInteger, RejectsBadIndicesAndNullStrings) {
  EXPECT_THROW_MSG(Device(-1), Error, "Device(-1): a device index must be in 0..127");
  EXPECT_THROW_MSG(Device(128), Error, "Device(128): a device index must be in 0..127");
  const char* null = nullptr;
  EXPECT_THROW_MSG(Device{null}, Error, "Device(nullptr): the device string is a null pointer");
  EXPECT_THROW_MSG(ones({1}).to(null), Error, "Device(nullptr): the device string is a null pointer");
}

}  // namespace tensor_to_test
