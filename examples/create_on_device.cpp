// Creating tensors and modules directly on a device (tutorials 001 and 002). Tutorial 001 says a
// model must be built on the CPU and moved; not so: give the layer a device, or open a
// default-device scope, and its parameters are drawn on the device.
//   example_create_on_device [device]     (default: best_device())
#include <cstdlib>
#include <iostream>

#include <locus/locus.h>

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "CHECK FAILED: " << what << "\n";
    std::exit(1);
  }
}

static int run(int argc, char** argv) {
  locus::Device device = argc > 1 ? locus::Device(argv[1]) : locus::best_device();
  std::cout << "device: " << device << "\n";
  locus::Device cpu(locus::kCPU);
  int64_t host_before = locus::memory_allocated(cpu);

  // 1. Factories take the device (torch.randn(1000, 1000, device=device)): no host copy made.
  auto opts = locus::TensorOptions().device(device);
  locus::Tensor x = locus::randn({256, 256}, opts);
  locus::Tensor w = locus::zeros({256, 128}, locus::device(device));  // the short form
  locus::Tensor idx = locus::arange(100, opts.dtype(locus::kInt64));
  std::cout << "randn: " << x.device() << ", zeros: " << w.device() << ", arange: " << idx.device() << " "
            << idx.dtype() << "\n";
  check(x.device() == locus::resolve_device(device) && w.device() == x.device(), "factories made on the device");
  if (!device.is_cpu()) {
    check(locus::memory_allocated(cpu) == host_before, "no host memory used for device tensors");
    std::cout << "host bytes used by making them: " << locus::memory_allocated(cpu) - host_before << "\n";
  }
  std::cout << "bytes on " << device << ": " << locus::memory_allocated(device) << "\n";

  // 2. Results and *_like factories stay where their inputs are.
  locus::Tensor y = locus::zeros_like(x);
  locus::Tensor z = x + 1;
  std::cout << "zeros_like(x): " << y.device() << ", x + 1: " << z.device() << "\n";
  check(y.device() == x.device() && z.device() == x.device(), "results stay on the input's device");

  // 3. A layer made on the device: its options take device (and dtype).
  locus::nn::Linear fc(locus::nn::LinearOptions(10, 5).device(device));
  std::cout << "Linear(10, 5) with .device(" << device << "): weight on " << fc->weight.device() << "\n";
  check(locus::nn::device_of(*fc) == x.device(), "the layer lives on the device");

  // 4. A whole model made inside a default-device scope (Python's `with torch.device(d):`).
  {
    locus::DefaultDeviceGuard scope(device);
    locus::nn::Sequential model(locus::nn::Linear(10, 32), locus::nn::ReLU(), locus::nn::Linear(32, 2));
    locus::Tensor input = locus::randn({4, 10});  // factories without a device use the scope's
    locus::Tensor out = model->forward(input);
    std::cout << "model built in DefaultDeviceGuard(" << device << "): parameters on "
              << locus::nn::device_of(*model) << ", output " << out.sizes() << " on " << out.device() << "\n";
    check(locus::nn::device_of(*model) == x.device() && out.device() == x.device(), "model made in the scope");
  }
  check(locus::default_device() == cpu, "the scope ended");
  std::cout << "after the scope, randn({2}) is on " << locus::randn({2}).device() << "\n";
  std::cout << "create_on_device: all checks passed\n";
  return 0;
}

// A device that is not here (`example_create_on_device cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_create_on_device: " << e.what() << "\n";
    return 1;
  }
}
