// Which convolutions the GPU layer runs with its direct kernels (src/backends/gpu/conv.cpp) and
// which go through im2col and the vendor GEMM, counted with launch_counts() on every GPU device
// present (PoCL's two in CI). Their values are checked against the cpu in tests/ops/conv_test.cpp.
#include "backends/gpu/gpu_backend.h"
#include "locus/locus.h"
#include "testing.h"

namespace locus::gpu {
namespace {
namespace conv_test {
namespace F = locus::nn::functional;

struct Counted {
  uint64_t kernels = 0, gemms = 0;
};

// Launches made by conv2d (and, with `backward`, its backward) of x [n, c, hw, hw] with an
// [oc, c / groups, k, k] weight.
Counted count(Device d, int64_t n, int64_t c, int64_t oc, int64_t hw, int64_t k, int64_t stride, int64_t groups,
              bool backward, ScalarType dt = kFloat) {
  TensorOptions o = TensorOptions().device(d).dtype(dt);
  Tensor x = randn({n, c, hw, hw}, o).requires_grad_(), w = randn({oc, c / groups, k, k}, o).requires_grad_(),
         b = randn({oc}, o).requires_grad_();
  synchronize(d);
  const LaunchCounts before = launch_counts();
  Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).padding(k / 2).stride(stride).groups(groups));
  if (backward) y.backward(ones_like(y));
  synchronize(d);
  const LaunchCounts after = launch_counts();
  return {after.kernels - before.kernels, after.gemms - before.gemms};
}

std::vector<Device> gpu_devices() {
  std::vector<Device> out;
  for (Device d : all_devices())
    if (describe(d).is_gpu || describe(d).runs_on_host_cpu) out.push_back(d);
  return out;
}

TEST(GpuConv, DirectKernelsForTheDemoCnnGemmForStridesGroupsAnd1x1) {
  if (gpu_devices().empty()) GTEST_SKIP() << "no OpenCL or CUDA device";
  for (Device d : gpu_devices()) {
    SCOPED_TRACE(d.str());
    // the demo's convolutions: the forward with its bias is one launch, the backward no GEMM
    Counted f = count(d, 64, 1, 16, 28, 3, 1, 1, false);
    EXPECT_EQ(f.kernels, 1u);
    EXPECT_EQ(f.gemms, 0u);
    EXPECT_EQ(count(d, 64, 16, 32, 14, 3, 1, 1, true).gemms, 0u);
    EXPECT_EQ(count(d, 2, 16, 32, 14, 3, 1, 1, true, kDouble).gemms, 0u);
    // what the kernels do not take
    EXPECT_GT(count(d, 2, 4, 8, 9, 3, 2, 1, false).gemms, 0u);  // stride 2
    EXPECT_GT(count(d, 2, 4, 8, 9, 1, 1, 1, false).gemms, 0u);  // 1x1: a GEMM
    EXPECT_GT(count(d, 2, 4, 8, 9, 3, 1, 2, false).gemms, 0u);  // groups
    // many channels: the direct kernels on a driver running on the host CPU (measured faster than
    // CLBlast there), the vendor GEMM on a GPU
    const bool host = describe(d).runs_on_host_cpu;
    EXPECT_EQ(count(d, 2, 64, 64, 8, 3, 1, 1, false).gemms, host ? 0u : 1u);
  }
}

}  // namespace conv_test
}  // namespace
}  // namespace locus::gpu
