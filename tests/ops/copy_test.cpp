// Moving between devices: every route, non-contiguous sources and destinations, non_blocking.
#include "testing.h"

using namespace locus;

namespace copy_test {

using V = std::vector<double>;

class CopyBetween : public ::testing::TestWithParam<std::tuple<Device, Device>> {};

TEST_P(CopyBetween, ValuesSurviveEveryRoute) {
  auto [from, to] = GetParam();
  Tensor src = arange(24, TensorOptions().device(from).dtype(kFloat)).view({2, 3, 4});
  Tensor moved = src.to(to);
  EXPECT_EQ(moved.device(), to);
  EXPECT_EQ(values(moved), values(src));
  // non-contiguous source, dtype change on the way
  Tensor nc = src.transpose(0, 2);
  Tensor m2 = nc.to(to, kDouble);
  EXPECT_EQ(m2.dtype(), kDouble);
  EXPECT_EQ(values(m2), values(nc));
  // into a non-contiguous destination
  Tensor dst = zeros({4, 3, 2}, device(to)).transpose(0, 2);
  dst.copy_(src);
  EXPECT_EQ(values(dst), values(src));
  // broadcast source
  Tensor row = tensor({1.0, 2.0, 3.0, 4.0}, device(from));
  Tensor b = zeros({2, 4}, device(to));
  b.copy_(row);
  EXPECT_EQ(values(b), (V{1, 2, 3, 4, 1, 2, 3, 4}));
  // every dtype crosses
  for (ScalarType t : {kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool, kDouble}) {
    Tensor s = src.to(t);
    EXPECT_EQ(values(s.to(to)), values(s)) << dtype_name(t);
  }
}

std::vector<std::tuple<Device, Device>> device_pairs() {
  std::vector<std::tuple<Device, Device>> out;
  for (Device a : test_devices())
    for (Device b : test_devices()) out.emplace_back(a, b);
  return out;
}
INSTANTIATE_TEST_SUITE_P(AllPairs, CopyBetween, ::testing::ValuesIn(device_pairs()),
                         [](const auto& info) {
                           std::string s = std::get<0>(info.param).str() + "_to_" + std::get<1>(info.param).str();
                           for (char& c : s)
                             if (c == ':') c = '_';
                           return s;
                         });

class Pinned : public ::testing::Test {
 protected:
  void SetUp() override {
    if (all_devices().size() < 2) GTEST_SKIP() << "needs an accelerator (OpenCL or CUDA)";
    dev = all_devices()[1];
  }
  Device dev = Device(kCPU);
};

TEST_F(Pinned, PinMemoryAndNonBlockingRoundTrip) {
  Tensor h = arange(1 << 16, dtype(kFloat));
  EXPECT_FALSE(h.is_pinned());
  Tensor p = h.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_TRUE(p.equal(h));
  Tensor d = p.to(dev, /*non_blocking=*/true);
  Tensor back = d.to(Device(kCPU), /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());  // the async copy to the host lands in pinned memory
  // reading waits for the pending copy: never early, never wrong
  EXPECT_TRUE(back.equal(h));
  EXPECT_THROW_MSG(d.pin_memory(), Error, "only cpu tensors can be pinned");
}

// Memory pinned by one driver is pageable to another: pin_memory(device) pins for that device's
// driver (PyTorch's pin_memory(device)), is_pinned(device) says which, and a non_blocking copy from
// a device to the host lands in memory pinned by the source's driver.
TEST_F(Pinned, PinMemoryForADeviceUsesThatDevicesDriver) {
  Tensor h = arange(1 << 12, dtype(kFloat));
  Tensor p = h.pin_memory(dev);
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.is_pinned(dev));
  EXPECT_TRUE(p.is_pinned(Device(dev.type())));  // the type decides, not the index
  EXPECT_TRUE(p.equal(h));
  EXPECT_TRUE(p.pin_memory(dev).is_same(p));
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_FALSE(h.is_pinned(dev));
  Tensor back = p.to(dev).to(Device(kCPU), /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned(dev));
  EXPECT_TRUE(back.equal(h));
  // a type whose driver did not pin it
  for (Device other : all_devices())
    if (!other.is_cpu() && other.type() != dev.type()) EXPECT_FALSE(p.is_pinned(other));
  EXPECT_THROW_MSG(h.pin_memory(Device(kCPU)), Error,
                   "[pin_memory] cannot pin memory for cpu; name the accelerator the copies go to "
                   "(for example opencl:0), or none.");
  EXPECT_THROW(h.pin_memory(Device("mps")), NotAvailableError);
}

// Many non_blocking copies read one pinned tensor without waiting for each other (they stay
// queued); a host write, a device-to-host copy into it, or another stream still waits for them.
TEST_F(Pinned, AsyncReadsOfOnePinnedTensorAreOrderedAgainstWrites) {
  const int64_t n = 1 << 18;
  Tensor p = arange(n, dtype(kFloat)).pin_memory();
  std::vector<Tensor> copies;
  for (int i = 0; i < 8; ++i) copies.push_back(p.to(dev, /*non_blocking=*/true));
  p.mul_(2);  // a host write: must wait for the eight reads
  Tensor twice = p.to(dev, /*non_blocking=*/true);
  for (const Tensor& c : copies) EXPECT_TRUE(c.to(kCPU).equal(arange(n, dtype(kFloat))));
  EXPECT_TRUE(twice.to(kCPU).equal(arange(n, dtype(kFloat)) * 2));
  // a device-to-host copy into p waits for p's pending read; a read after it sees the new values
  Tensor src = full({n}, 7.0, TensorOptions().device(dev).dtype(kFloat));
  Tensor again = p.to(dev, /*non_blocking=*/true);
  p.copy_(src, /*non_blocking=*/true);
  Tensor seven = p.to(dev, /*non_blocking=*/true);
  EXPECT_TRUE(again.to(kCPU).equal(arange(n, dtype(kFloat)) * 2));
  EXPECT_TRUE(seven.to(kCPU).equal(full({n}, 7.0, dtype(kFloat))));
  // a read on another stream than the pending one
  Tensor on_side;
  {
    Stream side = Stream::create(dev);
    StreamGuard g(side);
    on_side = p.to(dev, /*non_blocking=*/true);
    side.synchronize();
  }
  EXPECT_TRUE(on_side.to(kCPU).equal(full({n}, 7.0, dtype(kFloat))));
}

}  // namespace copy_test
