// Choosing a device (tutorials 000-003): what is available, how many, which one is best and why.
// PyTorch's `torch.device("cuda" if torch.cuda.is_available() else "cpu")` becomes best_device(),
// which also ranks OpenCL devices and explains its choice.
//   example_choosing_device [device]     (default: best_device(); LOCUS_DEVICE overrides it)
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
  // 1. Availability and counts, per device type (torch.cuda.is_available(), device_count()).
  std::cout << std::boolalpha;
  std::cout << "cuda available: " << locus::cuda::is_available() << ", devices: " << locus::cuda::device_count()
            << "\n";
  std::cout << "opencl available: " << locus::opencl::is_available() << ", devices: " << locus::opencl::device_count()
            << "\n";
  check(locus::is_available(locus::kCPU) && locus::device_count(locus::kCPU) == 1, "cpu is always there");
  check(locus::device_count(locus::kOpenCL) == locus::opencl::device_count(), "two spellings agree");

  // 2. Every device present, with what its driver says about it.
  for (const locus::Device& d : locus::all_devices()) {
    locus::DeviceDescription info = locus::describe(d);
    std::cout << "  " << d << ": " << info.name << ", " << info.compute_units << " compute units, "
              << info.total_memory / (1024 * 1024) << " MiB" << (info.is_gpu ? ", GPU" : "") << "\n";
  }

  // 3. The best device, and why (the same ranking whatever the machine).
  locus::Device best = locus::best_device();
  std::cout << "[best_device] " << best << "\n" << locus::best_device_report();

  // 4. The device this program uses: the command line's, or the best one.
  locus::Device device = argc > 1 ? locus::Device(argv[1]) : best;
  locus::check_device_available(device);  // NotAvailableError, listing what exists, if not
  std::cout << "using device: " << device << " (type " << device.type() << ", index " << int(device.index())
            << ")\n";

  // 5. Device strings follow PyTorch's grammar; "opencl" without an index means the current one.
  locus::Device current("opencl");
  check(!current.has_index(), "\"opencl\" has no index until resolved");
  std::cout << "\"opencl\" resolves to " << locus::resolve_device(current) << "\n";
  for (const char* bad : {"gpu", "CUDA:0", "cuda:01"}) {
    try {
      locus::Device d(bad);
      check(false, "a bad device string parsed");
    } catch (const locus::Error& e) {
      std::cout << "Device(\"" << bad << "\") -> " << e.what() << "\n";
    }
  }
  // A device of a known type that does not exist fails at first use, naming what does exist.
  try {
    locus::zeros({1}, locus::TensorOptions().device(locus::Device(locus::kOpenCL, 9)));
    check(false, "opencl:9 worked");
  } catch (const locus::NotAvailableError& e) {
    std::cout << "opencl:9 -> " << e.what() << "\n";
  }
  std::cout << "choosing_device: all checks passed\n";
  return 0;
}

// A device that is not here (`example_choosing_device cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_choosing_device: " << e.what() << "\n";
    return 1;
  }
}
