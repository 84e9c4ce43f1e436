// The fused unscale + inf/NaN check behind GradScaler (src/ops/amp.cpp, the cpu backend's amp.cpp,
// the GPU layer's amp.cpp and src/kernels/amp.cl) on every device.
#include <limits>

#include "ops/amp.h"
#include "testing.h"

using namespace locus;

namespace amp_test {

class AmpUnscale : public testing::TestWithParam<Device> {
 protected:
  Device d() const { return GetParam(); }
  // 20 float32 tensors (two launches of 16 on a GPU), two bfloat16, two float16 of varied sizes
  // (one empty), and a non-contiguous one
  std::vector<Tensor> grads() const {
    manual_seed(4);
    std::vector<Tensor> g;
    for (int i = 0; i < 20; ++i) g.push_back(randn({1 + 37 * i}, device(d())).mul(64));
    g.push_back(randn({300}, device(d())).mul(64).to(kBFloat16));
    g.push_back(randn({5, 7}, device(d())).mul(64).to(kHalf));
    g.push_back(zeros({0}, device(d()).dtype(kHalf)));
    g.push_back(randn({9}, device(d())).mul(64).to(kBFloat16));
    g.push_back(randn({6, 4}, device(d())).mul(64).t());  // strided
    return g;
  }
};

TEST_P(AmpUnscale, UnscalesEveryGradientAndFindsNothing) {
  std::vector<Tensor> g = grads();
  std::vector<std::vector<double>> before;
  for (const Tensor& t : g) before.push_back(values(t));
  Tensor found = zeros({1}, device(d()));
  ops::amp_non_finite_check_and_unscale_(g, found, 1.0 / 64);
  EXPECT_EQ(found.item<double>(), 0.0);
  for (size_t i = 0; i < g.size(); ++i) {
    std::vector<double> after = values(g[i]);
    ASSERT_EQ(after.size(), before[i].size());
    for (size_t k = 0; k < after.size(); ++k) EXPECT_EQ(after[k], before[i][k] / 64) << i << "," << k;  // exact: 2^-6
  }
  EXPECT_FALSE(g.back().is_contiguous());  // written back in place
}

TEST_P(AmpUnscale, FindsInfAndNaNInAnyTensorOfAnyDtype) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t which : {size_t{0}, size_t{17}, size_t{19}, size_t{20}, size_t{21}, size_t{24}}) {
    for (double bad : {inf, -inf, nan}) {
      std::vector<Tensor> g = grads();
      Tensor last = g[which];  // its last element, through views (g[24] is strided)
      while (last.dim() > 0) last = last.select(0, last.size(0) - 1);
      last.fill_(bad);
      Tensor found = zeros({1}, device(d()));
      ops::amp_non_finite_check_and_unscale_(g, found, 0.5);
      EXPECT_EQ(found.item<double>(), 1.0) << "tensor " << which << " holding " << bad;
    }
  }
  // found_inf is only ever set: a clean pass leaves a 1 from before
  Tensor found = ones({1}, device(d()));
  std::vector<Tensor> g = grads();
  ops::amp_non_finite_check_and_unscale_(g, found, 0.5);
  EXPECT_EQ(found.item<double>(), 1.0);
}

TEST_P(AmpUnscale, RefusesBadArguments) {
  std::vector<Tensor> g = {ones({3}, device(d()))};
  Tensor found = zeros({2}, device(d()));
  EXPECT_THROW_MSG(ops::amp_non_finite_check_and_unscale_(g, found, 1.0), Error,
                   "_amp_foreach_non_finite_check_and_unscale_(): found_inf must be a float32 tensor of one element, "
                   "got float32 [2]. Create it with locus::zeros({1}, device).");
  Tensor f1 = zeros({1}, device(d()));
  std::vector<Tensor> ints = {ones({3}, device(d()).dtype(kLong))};
  EXPECT_THROW_MSG(ops::amp_non_finite_check_and_unscale_(ints, f1, 1.0), Error,
                   "_amp_foreach_non_finite_check_and_unscale_(): grads[0] is int64; gradients are floating point.");
  if (!d().is_cpu()) {
    std::vector<Tensor> host = {ones({3})};
    EXPECT_THROW(ops::amp_non_finite_check_and_unscale_(host, f1, 1.0), DeviceMismatchError);
  }
}

LOCUS_INSTANTIATE_DEVICES(AmpUnscale);

}  // namespace amp_test
