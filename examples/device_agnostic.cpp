// Device-agnostic code, the pattern every device tutorial teaches: pick the best device once,
// create tensors there, compute, bring the result back. Runs unchanged on cpu, opencl and cuda.
#include <iostream>

#include <locus/locus.h>

int main() {
  locus::Device device = locus::best_device();
  std::cout << "best device: " << device << "\n" << locus::best_device_report() << "\n";

  locus::manual_seed(0);
  auto opts = locus::TensorOptions().device(device).dtype(locus::kFloat32);
  locus::Tensor x = locus::randn({4, 3}, opts);   // created directly on the device
  locus::Tensor w = locus::randn({3, 2}, opts);
  locus::Tensor b = locus::ones({2}, opts);
  locus::Tensor y = (x.matmul(w) + b).relu();     // every operand on one device

  // Moving to where a tensor already is returns the very same tensor.
  std::cout << "y.to(device) is y: " << std::boolalpha << y.to(device).is_same(y) << "\n";

  // A mismatch fails before any work, naming the op, both devices and the fix.
  if (!device.is_cpu()) {
    try {
      auto z = y + locus::ones({4, 2});
    } catch (const locus::DeviceMismatchError& e) {
      std::cout << "expected error: " << e.what() << "\n";
    }
  }

  locus::Tensor host = y.cpu();
  std::cout << "y = " << host << "\n";
  std::cout << "row sums = " << host.sum({1}) << "\n";
  std::cout << "memory allocated on " << device << ": " << locus::memory_allocated(device) << " bytes\n";
  return 0;
}
