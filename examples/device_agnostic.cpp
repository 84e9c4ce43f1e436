// A device-agnostic training loop (tutorials 000, 002, 003): choose the device once, put the
// model there once, move every batch there, and nothing else in the loop names a device. The same
// source trains on cpu, opencl and cuda, with the same initial weights everywhere (manual_seed).
//   example_device_agnostic [device]     (default: best_device())
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

// Two classes of 2-d points split by the line x0 + x1 = 0, held on the host as a dataset is.
class Points : public locus::data::datasets::BatchDataset<Points, locus::data::Example<>> {
 public:
  explicit Points(int64_t n) : x_(locus::randn({n, 2})), y_(x_.sum({1}).gt(0).to(locus::kInt64)) {}
  locus::data::Example<> get_batch(std::vector<size_t> request) override {
    locus::Tensor idx = locus::tensor(std::vector<int64_t>(request.begin(), request.end()));
    return {x_.index_select(0, idx), y_.index_select(0, idx)};
  }
  std::optional<size_t> size() const override { return static_cast<size_t>(x_.size(0)); }

 private:
  locus::Tensor x_, y_;
};

static int run(int argc, char** argv) {
  // 1. Choose the device up front (the tutorials' `"cuda" if is_available() else "cpu"`).
  locus::Device device = argc > 1 ? locus::Device(argv[1]) : locus::best_device();
  std::cout << "training on " << device << "\n";

  locus::manual_seed(0);
  auto loader = locus::data::make_data_loader(Points(512),
                                              locus::data::DataLoaderOptions().batch_size(64).seed(1));

  // 2. Put the model there once (in place), then build the optimizer over its parameters.
  locus::nn::Sequential model(locus::nn::Linear(2, 16), locus::nn::ReLU(), locus::nn::Linear(16, 2));
  model->to(device);
  locus::optim::Adam optimizer(model->parameters(), locus::optim::AdamOptions(0.05));

  float first_loss = 0, last_loss = 0;
  for (int epoch = 0; epoch < 4; ++epoch) {
    double total = 0;
    int batches = 0;
    for (auto& batch : *loader) {
      // 3. Move each batch; reassign, since a tensor's .to() returns the moved tensor.
      locus::Tensor x = batch.data.to(device);
      locus::Tensor y = batch.target.to(device);

      optimizer.zero_grad();
      locus::Tensor loss = locus::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      optimizer.step();
      total += loss.item<float>();  // item() waits for the device and reads one number
      ++batches;
    }
    last_loss = static_cast<float>(total / batches);
    if (epoch == 0) first_loss = last_loss;
    std::cout << "epoch " << epoch << ": mean loss " << last_loss << "\n";
  }

  // 4. Evaluate without gradients; bring only the small result back to the host.
  locus::NoGradGuard no_grad;
  model->eval();
  Points test(256);
  locus::data::Example<> all = test.get_batch([] {
    std::vector<size_t> i(256);
    for (size_t k = 0; k < i.size(); ++k) i[k] = k;
    return i;
  }());
  locus::Tensor predicted = model->forward(all.data.to(device)).argmax(1);
  double accuracy = predicted.eq(all.target.to(device)).to(locus::kFloat32).mean().item<float>();
  std::cout << "test accuracy on " << device << ": " << accuracy << "\n";
  std::cout << "peak memory on " << device << ": " << locus::max_memory_allocated(device) << " bytes\n";
  check(last_loss < first_loss, "the loss went down");
  check(accuracy > 0.9, "the model learned the split");
  std::cout << "device_agnostic: all checks passed\n";
  return 0;
}

// A device that is not here (`example_device_agnostic cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_device_agnostic: " << e.what() << "\n";
    return 1;
  }
}
