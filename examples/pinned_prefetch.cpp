// Pinned-memory loading (tutorial 004's DataLoader(pin_memory=True)): the loader's workers put
// each batch in page-locked host memory, and DevicePrefetcher copies the next batches to the
// device with non_blocking copies on a side stream while the current one is being used.
//   example_pinned_prefetch [device]     (default: best_device())
#include <cstdlib>
#include <iostream>
#include <vector>

#include <locus/locus.h>

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "CHECK FAILED: " << what << "\n";
    std::exit(1);
  }
}

// 1024 examples of 32 features; the target is the sign of the first feature.
class Features : public locus::data::datasets::BatchDataset<Features, locus::data::Example<>> {
 public:
  Features() : x_(locus::randn({1024, 32})), y_(x_.select(1, 0).gt(0).to(locus::kInt64)) {}
  locus::data::Example<> get_batch(std::vector<size_t> request) override {
    locus::Tensor idx = locus::tensor(std::vector<int64_t>(request.begin(), request.end()));
    return {x_.index_select(0, idx), y_.index_select(0, idx)};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(x_.size(0)); }

 private:
  locus::Tensor x_, y_;
};

static int run(int argc, char** argv) {
  locus::Device device = locus::resolve_device(argc > 1 ? locus::Device(argv[1]) : locus::best_device());
  bool pin = !device.is_cpu();  // pinning only helps copies to an accelerator
  std::cout << "device: " << device << ", pin_memory: " << std::boolalpha << pin << "\n";
  locus::manual_seed(0);

  // 1. A loader with two worker threads and pinned batches.
  auto loader = locus::data::make_data_loader(
      Features(), locus::data::DataLoaderOptions().batch_size(128).workers(2).pin_memory(pin).seed(3));
  for (auto& batch : *loader) {
    std::cout << "a loader batch: " << batch.data.sizes() << " on " << batch.data.device()
              << ", pinned: " << batch.data.is_pinned() << "\n";
    check(batch.data.is_pinned() == pin, "pin_memory(true) pins every batch");
    break;
  }

  // 2. One tensor by hand: pin it, then copy without blocking the host.
  locus::Tensor host = locus::randn({256, 32});
  if (pin) {
    locus::Tensor pinned = host.pin_memory();
    locus::Tensor on_device = pinned.to(device, /*non_blocking=*/true);  // returns at once
    std::cout << "[pin_memory] pinned " << pinned.is_pinned() << "; .to(" << device
              << ", non_blocking=true) gives a tensor on " << on_device.device() << "\n";
    check(on_device.cpu().equal(host), "the asynchronous copy arrives whole");  // ops wait for it
  }

  // 3. Training with a DevicePrefetcher: batches arrive already on the device.
  locus::nn::Sequential model(locus::nn::Linear(32, 32), locus::nn::ReLU(), locus::nn::Linear(32, 2));
  model->to(device);
  locus::optim::SGD optimizer(model->parameters(), locus::optim::SGDOptions(0.2));
  float first = -1, last = 0;
  int batches = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (auto& batch : locus::data::DevicePrefetcher(*loader, device, /*depth=*/2)) {
      check(batch.data.device() == device && batch.target.device() == device, "prefetched to the device");
      optimizer.zero_grad();
      locus::Tensor loss = locus::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      last = loss.item<float>();
      if (first < 0) first = last;
      ++batches;
    }
  }
  std::cout << "trained " << batches << " prefetched batches on " << device << ": loss " << first << " -> "
            << last << "\n";
  check(batches == 24 && last < first, "every batch arrived and the loss went down");
  std::cout << "pinned_prefetch: all checks passed\n";
  return 0;
}

// A device that is not here (`example_pinned_prefetch cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_pinned_prefetch: " << e.what() << "\n";
    return 1;
  }
}
