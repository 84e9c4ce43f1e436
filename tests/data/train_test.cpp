// End to end: the tutorial loop (dataset -> Normalize -> Stack -> loader -> prefetcher -> model ->
// cross-entropy -> Adam) on a 2,000-image subset of Fashion-MNIST reaches 70% test accuracy, on
// cpu and on opencl:0 (and the first CUDA device when there is one).
#include <filesystem>

#include "locus/data.h"
#include "testing.h"

using namespace locus;
using namespace locus::data;

namespace train_test {

namespace {

/// The first `n` examples of an MNIST split.
struct Subset : datasets::Dataset<Subset> {
  Subset(const datasets::MNIST& m, int64_t n) : images(m.images().narrow(0, 0, n)), targets(m.targets().narrow(0, 0, n)) {}
  Example<> get(size_t i) override { return {images[static_cast<int64_t>(i)], targets[static_cast<int64_t>(i)]}; }
  std::optional<size_t> size() const override { return static_cast<size_t>(images.size(0)); }
  Tensor images, targets;
};

std::vector<Device> training_devices() {
  std::vector<Device> out = {Device(kCPU)};
  if (is_available(kOpenCL)) out.push_back(Device(kOpenCL, 0));
  if (is_available(kCUDA)) out.push_back(Device(kCUDA, 0));
  return out;
}

}  // namespace

// outside the anonymous namespace: the TEST_P classes derive from it (-Wsubobject-linkage)
class TrainTest : public ::testing::TestWithParam<Device> {};

TEST_P(TrainTest, SubsetOfFashionMnistReachesSeventyPercent) {
  // make test installs the dataset (scripts/install-deps): its absence is a broken set-up, not a skip
  ASSERT_TRUE(std::filesystem::exists(datasets::kFashionMNISTRoot)) << "dataset-fashion-mnist is not installed at " << datasets::kFashionMNISTRoot << "; scripts/install-deps installs it (make test runs it)";
  Device dev = GetParam();
  manual_seed(0);
  datasets::MNIST train(datasets::MNIST::Mode::kTrain), test(datasets::MNIST::Mode::kTest);
  auto normalize = transforms::Normalize<>(0.2860, 0.3530);
  auto train_loader = make_data_loader(Subset(train, 2000).map(normalize).map(transforms::Stack<>()),
                                       DataLoaderOptions().batch_size(64).workers(1).seed(1));
  auto test_loader = make_data_loader<samplers::SequentialSampler>(
      Subset(test, 1000).map(normalize).map(transforms::Stack<>()), DataLoaderOptions().batch_size(500));
  nn::Sequential model(nn::Flatten(), nn::Linear(784, 128), nn::ReLU(), nn::Linear(128, 10));
  model->to(dev);
  optim::Adam opt(model->parameters(), optim::AdamOptions(2e-3));
  int64_t steps = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (auto& batch : DevicePrefetcher(*train_loader, dev)) {
      opt.zero_grad();
      Tensor loss = nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      opt.step();
      ++steps;
    }
  }
  EXPECT_EQ(steps, 3 * 32);
  NoGradGuard no_grad;
  model->eval();
  int64_t correct = 0, seen = 0;
  for (auto& batch : DevicePrefetcher(*test_loader, dev)) {
    correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
    seen += batch.target.size(0);
  }
  ASSERT_EQ(seen, 1000);
  double accuracy = 100.0 * static_cast<double>(correct) / static_cast<double>(seen);
  RecordProperty("accuracy", std::to_string(accuracy));
  EXPECT_GE(accuracy, 70.0) << "on " << dev.str();
}

INSTANTIATE_TEST_SUITE_P(Devices, TrainTest, ::testing::ValuesIn(training_devices()), device_test_name);

}  // namespace train_test
