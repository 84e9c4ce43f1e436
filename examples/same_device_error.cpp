// The same-device rule (tutorials 000, 002, 003): every operand of an op must be on one device.
// PyTorch says "Expected all tensors to be on the same device"; locus says the same before doing
// any work, and adds which argument is where and the fix. A layer names its path in the model.
//   example_same_device_error [device]     (default: best_device())
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
  locus::Device device = locus::resolve_device(argc > 1 ? locus::Device(argv[1]) : locus::best_device());
  // The mistake needs a second device: cpu, or when `device` is cpu, the first other device present.
  locus::Device other(locus::kCPU);
  for (const locus::Device& d : locus::all_devices())
    if (device.is_cpu() && !d.is_cpu()) {
      other = d;
      break;
    }
  std::cout << "device: " << device << ", other: " << other << "\n";
  if (other == device) {
    std::cout << "only one device present: no mixing possible\nsame_device_error: all checks passed\n";
    return 0;
  }

  // 1. Two tensors on two devices.
  locus::Tensor x = locus::randn({3, 3}, locus::device(device));
  locus::Tensor y = locus::randn({3, 3}, locus::device(other));
  int64_t before = locus::memory_allocated(device);
  try {
    locus::Tensor z = x + y;
    check(false, "x + y across devices worked");
  } catch (const locus::DeviceMismatchError& e) {
    std::cout << "x + y: DeviceMismatchError: " << e.what() << "\n";
  }
  check(locus::memory_allocated(device) == before, "the failed op allocated nothing");
  locus::Tensor z = x + y.to(device);  // the fix: move one operand
  std::cout << "x + y.to(" << device << ") works, on " << z.device() << "\n";

  // 2. A model on the device called with an input left on the other one.
  locus::nn::Sequential model(locus::nn::Linear(128, 64), locus::nn::ReLU(), locus::nn::Linear(64, 10));
  model->to(device);
  locus::Tensor input = locus::randn({32, 128}, locus::device(other));
  try {
    model->forward(input);
    check(false, "model(input) across devices worked");
  } catch (const locus::DeviceMismatchError& e) {
    std::cout << "model(input): DeviceMismatchError: " << e.what() << "\n";
  }
  locus::Tensor out = model->forward(input.to(device));  // the fix
  std::cout << "model(input.to(" << device << ")) works: " << out.sizes() << " on " << out.device() << "\n";

  // 3. The loss too: targets must be where the outputs are.
  locus::Tensor target = locus::randint(0, 10, {32}, locus::TensorOptions().dtype(locus::kInt64).device(other));
  try {
    locus::nn::functional::cross_entropy(out, target);
    check(false, "cross_entropy across devices worked");
  } catch (const locus::DeviceMismatchError& e) {
    std::cout << "cross_entropy(out, target): DeviceMismatchError: " << e.what() << "\n";
  }
  locus::Tensor loss = locus::nn::functional::cross_entropy(out, target.to(out.device()));
  std::cout << "cross_entropy(out, target.to(out.device())) = " << loss.item<float>() << "\n";

  // A 0-dim cpu tensor is a scalar anywhere, as in PyTorch.
  locus::Tensor scaled = x * locus::tensor(2.0f);
  check(scaled.device() == device, "a 0-dim cpu tensor mixes with any device");
  std::cout << "x * tensor(2.0) (a 0-dim cpu tensor) works on " << scaled.device() << "\n";
  std::cout << "same_device_error: all checks passed\n";
  return 0;
}

// A device that is not here (`example_same_device_error cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_same_device_error: " << e.what() << "\n";
    return 1;
  }
}
