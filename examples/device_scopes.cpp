// Two scopes the tutorials mix up (tutorial 004):
//  - DeviceGuard (Python's `with torch.cuda.device(1):`) changes the *current index* of one device
//    type: what "opencl" or "cuda" without an index means. Factories still make cpu tensors.
//  - DefaultDeviceGuard (Python's `with torch.device("cuda:1"):`) changes where factories put
//    tensors that name no device. Both are per thread, nest, and restore on exit.
// (Tutorial 004's "automatic device inference" through memory_format does not exist, in PyTorch or
// here: a tensor goes where its factory's device, or the default device, says.)
//   example_device_scopes [device]     (default: best_device(); cpu uses the last OpenCL device)
#include <cstdlib>
#include <iostream>
#include <thread>

#include <locus/locus.h>

static void check(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "CHECK FAILED: " << what << "\n";
    std::exit(1);
  }
}

static int run(int argc, char** argv) {
  locus::Device device = locus::resolve_device(argc > 1 ? locus::Device(argv[1]) : locus::best_device());
  locus::Device cpu(locus::kCPU);
  int n_opencl = locus::device_count(locus::kOpenCL);
  if (device.is_cpu() && n_opencl > 0) device = locus::Device(locus::kOpenCL, n_opencl - 1);
  std::cout << "device: " << device << "\n";

  // 1. DeviceGuard: the current index changes, the default device does not (tutorial 004's claim
  //    that randn lands on the guarded device is wrong, in PyTorch as here).
  if (!device.is_cpu()) {
    locus::Device bare(device.type());  // "opencl": the current device of that type
    std::cout << "before: \"" << bare << "\" resolves to " << locus::resolve_device(bare) << "\n";
    {
      locus::DeviceGuard guard(device);
      locus::Tensor x = locus::randn({2, 2});
      locus::Tensor y = locus::randn({2, 2}, locus::device(bare));
      std::cout << "in DeviceGuard(" << device << "): \"" << bare << "\" resolves to " << locus::resolve_device(bare)
                << "; randn({2, 2}) is on " << x.device() << "; randn with device \"" << bare << "\" is on "
                << y.device() << "\n";
      check(x.device() == cpu && y.device() == device, "DeviceGuard moves the current index only");
    }
    std::cout << "after:  \"" << bare << "\" resolves to " << locus::resolve_device(bare) << "\n";
    check(locus::resolve_device(bare).index() == 0, "restored");
  }

  // 2. DefaultDeviceGuard: factories without a device go there; an explicit device still wins.
  {
    locus::DefaultDeviceGuard scope(device);
    locus::Tensor x = locus::randn({2, 2});
    locus::Tensor explicit_cpu = locus::zeros({2}, locus::device(cpu));
    locus::nn::Linear layer(3, 1);
    std::cout << "in DefaultDeviceGuard(" << device << "): randn is on " << x.device() << ", Linear's weight on "
              << layer->weight.device() << ", zeros with device cpu on " << explicit_cpu.device() << "\n";
    check(x.device() == device && layer->weight.device() == device && explicit_cpu.is_cpu(), "default device");

    // Per thread: another thread still has cpu as its default device.
    locus::Device other_thread = device;
    std::thread([&] { other_thread = locus::randn({1}).device(); }).join();
    std::cout << "  meanwhile, randn on another thread is on " << other_thread << "\n";
    check(other_thread == cpu, "per thread");

    // Nested: the inner scope wins until it ends.
    {
      locus::DefaultDeviceGuard inner(cpu);
      std::cout << "  nested DefaultDeviceGuard(cpu): randn is on " << locus::randn({1}).device() << "\n";
      check(locus::randn({1}).is_cpu(), "nested scope");
    }
    check(locus::randn({1}).device() == device, "outer scope back");
  }
  std::cout << "after: randn is on " << locus::randn({1}).device() << "\n";
  check(locus::default_device() == cpu, "restored");

  // 3. The process-wide form, as torch.set_default_device (per thread here, too).
  locus::set_default_device(device);
  std::cout << "set_default_device(" << device << "): ones({1}) is on " << locus::ones({1}).device() << "\n";
  locus::set_default_device(cpu);
  std::cout << "device_scopes: all checks passed\n";
  return 0;
}

// A device that is not here (`example_device_scopes cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_device_scopes: " << e.what() << "\n";
    return 1;
  }
}
