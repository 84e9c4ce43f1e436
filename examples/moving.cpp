// Moving tensors and models (tutorials 001-003). On a tensor, .to() returns the result and leaves
// the tensor alone: reassign it (`x = x.to(d)`). When nothing would change it returns the very same
// tensor: no allocation, no copy, so calling it unconditionally is free. On a module, .to() works
// in place (tutorial 003 has this backwards for tensors).
//   example_moving [device]     (default: best_device())
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
  // Somewhere else to move to: the first other device present (cpu when `device` is not cpu).
  locus::Device other = device;
  for (const locus::Device& d : locus::all_devices())
    if (d != device) {
      other = d;
      break;
    }
  std::cout << "device: " << device << ", other: " << other << "\n" << std::boolalpha;
  locus::manual_seed(0);
  locus::Tensor x = locus::randn({3, 3}, locus::device(device));

  // 1. A no-op .to() is the same tensor (tutorial 002's data_ptr() comparison, as identity).
  int64_t before = locus::memory_allocated(device);
  locus::Tensor same = x.to(device);
  std::cout << "x.to(" << device << ") is x: " << same.is_same(x) << ", bytes allocated by it: "
            << locus::memory_allocated(device) - before << "\n";
  check(same.is_same(x) && locus::memory_allocated(device) == before, "a no-op .to() is free");
  check(x.to(device, locus::kFloat32).is_same(x), "same device and dtype: same tensor");
  check(x.to(x).is_same(x), "to(other tensor) on the same device and dtype: same tensor");

  // 2. A real move makes a new tensor; x is unchanged. copy=true forces a copy even when not needed.
  check(!x.to(device, /*non_blocking=*/false, /*copy=*/true).is_same(x), "copy=true copies");
  locus::Tensor doubles = x.to(locus::kFloat64);
  std::cout << "x.to(kFloat64): " << doubles.dtype() << " on " << doubles.device() << "\n";
  if (other == device) {
    std::cout << "only one device present: nothing to move between\n";
  } else {
    locus::Tensor moved = x.to(other);
    std::cout << "x.to(" << other << "): a new tensor on " << moved.device() << "; x still on " << x.device()
              << "; equal values: " << moved.cpu().equal(x.cpu()) << "\n";
    check(!moved.is_same(x) && x.device() == device && moved.cpu().equal(x.cpu()), "a move copies");

    // 3. The reassignment mistake: .to() does not change the tensor it is called on.
    locus::Tensor y = locus::ones({2}, locus::device(other));
    y.to(device);                       // result thrown away: y is still where it was
    std::cout << "after `y.to(" << device << ");`   y is on " << y.device() << "\n";
    check(y.device() == other, "to() does not work in place on a tensor");
    y = y.to(device);                   // the fix: reassign
    std::cout << "after `y = y.to(" << device << ");` y is on " << y.device() << "\n";
    check(y.device() == device, "reassigned");
  }

  // 4. Modules move in place, recursively, and return themselves. Parameters keep their identity,
  //    so an optimizer built before the move keeps working.
  locus::nn::Sequential model(locus::nn::Linear(4, 8), locus::nn::ReLU(), locus::nn::Linear(8, 2));
  locus::Tensor w0 = model->parameters()[0];
  locus::optim::SGD opt(model->parameters(), locus::optim::SGDOptions(0.1));
  model->to(device);                  // no reassignment needed
  std::cout << "model->to(" << device << "): parameters on " << locus::nn::device_of(*model)
            << ", first parameter object kept: " << model->parameters()[0].is_same(w0) << ", its device "
            << w0.device() << "\n";
  check(locus::nn::device_of(*model) == device && w0.device() == device, "module moved in place");
  locus::Tensor loss = model->forward(locus::randn({5, 4}, locus::device(device))).pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
  std::cout << "an SGD step after the move ran on " << w0.device() << ", loss " << loss.item<float>() << "\n";

  // 5. Back to the host for printing or for code that reads memory: .cpu() is .to(kCPU).
  std::cout << "x.cpu() = " << x.cpu() << "\n";
  std::cout << "moving: all checks passed\n";
  return 0;
}

// A device that is not here (`example_moving cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_moving: " << e.what() << "\n";
    return 1;
  }
}
