// nn::Module::to in every spelling (include/locus/nn/module.h, src/nn/module.cpp): through a
// holder (module->to(...)), a shared_ptr<Module> and a Module&, as libtorch programs write it.
#include <concepts>
#include <memory>
#include <set>
#include <string>

#include "testing.h"

using namespace locus;

namespace module_to_test {

// ---- compile time: every form resolves to one overload ---------------------------------------
template <typename... Args>
constexpr bool module_to_compiles = requires(nn::Module& m, Args... args) {
  { m.to(args...) } -> std::same_as<nn::Module&>;
};
static_assert(module_to_compiles<DeviceType>);
static_assert(module_to_compiles<DeviceType, bool>);
static_assert(module_to_compiles<Device>);
static_assert(module_to_compiles<Device, bool>);
static_assert(module_to_compiles<const char*>);
static_assert(module_to_compiles<const char*, bool>);
static_assert(module_to_compiles<std::string>);
static_assert(module_to_compiles<std::string, bool>);
static_assert(module_to_compiles<ScalarType>);
static_assert(module_to_compiles<ScalarType, bool>);
static_assert(module_to_compiles<Device, ScalarType>);
static_assert(module_to_compiles<Device, ScalarType, bool>);
static_assert(module_to_compiles<DeviceType, ScalarType, bool>);
static_assert(module_to_compiles<TensorOptions>);
static_assert(module_to_compiles<TensorOptions, bool>);
static_assert(module_to_compiles<int>);
static_assert(module_to_compiles<int, bool>);

[[maybe_unused]] void every_spelling(nn::Linear& holder, const std::shared_ptr<nn::Module>& shared) {
  holder->to(kCPU);
  holder->to(kCUDA);
  holder->to("cuda");
  holder->to("opencl:1", /*non_blocking=*/true);
  holder->to(std::string("cuda:0"));
  holder->to(Device(kCUDA, 1));
  holder->to(kHalf);
  holder->to(kCUDA, kHalf);
  holder->to(0);
  holder->to(locus::device(kCPU).dtype(kDouble));
  shared->to(kCPU);
  shared->to("cuda");
  shared->to(0);
}

class ModuleTo : public ::testing::TestWithParam<Device> {};

TEST_P(ModuleTo, EverySpellingMovesInPlaceKeepingParameters) {
  Device d = GetParam();
  nn::Linear lin(4, 3);
  Tensor weight = lin->weight;
  lin->to(d.str());
  EXPECT_EQ(lin->weight.device(), d);
  EXPECT_TRUE(lin->weight.is_same(weight));  // the same parameter object, moved
  void* p = lin->weight.data_ptr();
  // the device it is already on, however spelled: nothing moves
  lin->to(d);
  lin->to(d.str().c_str());
  lin->to(TensorOptions(d));
  if (d.is_cpu() || d.index() == 0) lin->to(d.type());
  std::shared_ptr<nn::Module> shared = lin.ptr();
  shared->to(d, /*non_blocking=*/true);
  EXPECT_EQ(lin->weight.data_ptr(), p);
  // device and dtype through TensorOptions, then back
  lin->to(TensorOptions().device(d).dtype(kDouble));
  EXPECT_EQ(lin->weight.scalar_type(), kDouble);
  EXPECT_EQ(lin->bias.device(), d);
  lin->to(kCPU, kFloat);
  EXPECT_EQ(lin->weight.device(), Device(kCPU));
  EXPECT_EQ(lin->weight.scalar_type(), kFloat);
  EXPECT_TRUE(lin->weight.is_same(weight));
}

TEST_P(ModuleTo, DtypeShorthandsConvertFloatingPointInPlace) {
  Device d = GetParam();
  nn::Sequential net(nn::Linear(4, 3), nn::BatchNorm1d(3));
  net->to(d);
  Tensor weight = net->parameters()[0];
  auto dtypes = [&] {
    std::set<ScalarType> s;
    for (const auto& p : net->named_parameters()) s.insert(p.value().scalar_type());
    return s;
  };
  auto tracked = [&] { return net->named_buffers()["1.num_batches_tracked"].scalar_type(); };
  EXPECT_EQ(&net->half(), net.get());
  EXPECT_EQ(dtypes(), std::set<ScalarType>{kHalf});
  EXPECT_EQ(&net->bfloat16(), net.get());
  EXPECT_EQ(dtypes(), std::set<ScalarType>{kBFloat16});
  EXPECT_EQ(&net->double_(), net.get());
  EXPECT_EQ(dtypes(), std::set<ScalarType>{kDouble});
  EXPECT_EQ(&net->float_(), net.get());
  EXPECT_EQ(dtypes(), std::set<ScalarType>{kFloat});
  EXPECT_EQ(tracked(), kLong);  // integer buffers keep their dtype, as to(dtype)
  EXPECT_TRUE(net->parameters()[0].is_same(weight));
  EXPECT_EQ(weight.device(), d);
}

LOCUS_INSTANTIATE_DEVICES(ModuleTo);

TEST(ModuleTo, AnIntegerMeansTheCurrentAcceleratorType) {
  nn::Linear lin(2, 2);
  if (device_count(kCUDA) + device_count(kOpenCL) > 0) {
    lin->to(0);
    EXPECT_EQ(lin->weight.device(), Device(0));
  } else {
    EXPECT_THROW_MSG(lin->to(0), NotAvailableError, "an integer means an accelerator device");
  }
  EXPECT_THROW_MSG(lin->to(-1), Error, "Device(-1): a device index must be in 0..127");
  EXPECT_THROW_MSG(lin->to("xla"), NotAvailableError, "device type 'xla' has no backend in locus");
}

}  // namespace module_to_test
