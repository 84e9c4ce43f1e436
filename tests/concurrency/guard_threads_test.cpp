// DeviceGuard, DefaultDeviceGuard and StreamGuard are per thread: 16 threads nest them, on this
// device and on the others present, and each sees only its own scopes; every scope restores what
// was there before it, and the process-wide state is untouched afterwards.
#include <stdexcept>

#include "concurrency/stress.h"
#include "testing.h"

using namespace locus;

namespace guard_threads_test {

namespace {

class GuardThreads : public testing::TestWithParam<Device> {};

TEST_P(GuardThreads, NestedScopesOnSixteenThreads) {
  const Device d = GetParam();
  const std::vector<Device> devices = all_devices();
  const Device default_before = default_device();
  const DeviceIndex index_before = d.is_cpu() ? 0 : current_device_index(d.type());
  const stress::Snapshot before = stress::settled(d);
  std::vector<Stream> streams;
  for (int t = 0; t < 16; ++t) streams.push_back(Stream::create(d));
  int64_t rounds = stress::run_threads(16, [&](int t, int64_t r) {
    const Device other = devices[static_cast<size_t>(t + r) % devices.size()];
    const Device outer = default_device();
    stress::require(outer == default_before, "a thread starts with the process's default device");
    {
      DefaultDeviceGuard dg(d);
      stress::require(default_device() == d, "DefaultDeviceGuard(d) makes d the default");
      stress::require(zeros({3}).device() == d, "factories follow the default device");
      {
        DefaultDeviceGuard inner(other);
        stress::require(default_device() == other, "a nested DefaultDeviceGuard wins");
        stress::require(ones({2}).device() == other, "factories follow the nested default");
      }
      stress::require(default_device() == d, "the nested scope restores the outer default");
    }
    stress::require(default_device() == outer, "the scope restores the thread's default");
    if (d.is_cpu()) return;
    const DeviceIndex idx = current_device_index(d.type());
    {
      DeviceGuard g(d);
      stress::require(current_device_index(d.type()) == d.index(), "DeviceGuard sets the current index");
      stress::require(Stream::current(d).is_default(), "no StreamGuard: the default stream");
      {
        StreamGuard sg(streams[t]);
        stress::require(Stream::current(d) == streams[t], "StreamGuard sets this thread's current stream");
        Tensor x = ones({64}, TensorOptions().device(d)) * static_cast<double>(t);
        stress::require(x.sum().item<double>() == 64.0 * t, "work on the thread's stream");
      }
      stress::require(Stream::current(d).is_default(), "StreamGuard restores the default stream");
    }
    stress::require(current_device_index(d.type()) == idx, "DeviceGuard restores the current index");
  });
  EXPECT_GE(rounds, 16);
  EXPECT_EQ(default_device(), default_before);
  if (!d.is_cpu()) EXPECT_EQ(current_device_index(d.type()), index_before);
  streams.clear();
  stress::expect_same(before, stress::settled(d));
}

LOCUS_INSTANTIATE_DEVICES(GuardThreads);

}  // namespace

}  // namespace guard_threads_test
