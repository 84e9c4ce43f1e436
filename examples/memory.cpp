// Memory queries and the out-of-memory error (tutorials 002 and 003). Every device's memory is
// pooled and counted, with PyTorch's names; a limit per device makes running out happen on
// purpose, here, on any machine. The tutorials' remedy for OOM: a smaller batch.
//   example_memory [device]     (default: best_device())
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

constexpr int64_t kMiB = 1024 * 1024;

// One forward pass of a small MLP on a batch of `batch` examples of 64 features.
static void step(locus::nn::Sequential& model, int64_t batch, locus::Device device) {
  locus::Tensor x = locus::randn({batch, 64}, locus::device(device));
  locus::Tensor y = model->forward(x);
  locus::synchronize(device);
}

static int run(int argc, char** argv) {
  locus::Device device = locus::resolve_device(argc > 1 ? locus::Device(argv[1]) : locus::best_device());
  auto [free_bytes, total_bytes] = locus::mem_get_info(device);
  std::cout << "device: " << device << ", driver reports " << total_bytes / kMiB << " MiB total, "
            << free_bytes / kMiB << " MiB free\n";

  // 1. Allocated (live tensors) vs reserved (held by the caching allocator), and their peaks.
  locus::reset_peak_memory_stats(device);
  int64_t base = locus::memory_allocated(device);
  {
    locus::Tensor a = locus::empty({kMiB / 4}, locus::device(device));  // 1 MiB of float32
    std::cout << "with a 1 MiB tensor: allocated +" << (locus::memory_allocated(device) - base) / 1024
              << " KiB, reserved " << locus::memory_reserved(device) / 1024 << " KiB\n";
    check(locus::memory_allocated(device) - base >= kMiB, "a 1 MiB tensor is counted");
  }
  std::cout << "after it is freed: allocated +" << (locus::memory_allocated(device) - base) / 1024
            << " KiB, reserved " << locus::memory_reserved(device) / 1024 << " KiB (kept for reuse), peak "
            << locus::max_memory_allocated(device) / 1024 << " KiB\n";
  check(locus::memory_allocated(device) == base, "freed memory is no longer allocated");
  locus::empty_cache(device);  // give cached blocks back to the device
  std::cout << "after empty_cache: reserved " << locus::memory_reserved(device) / 1024 << " KiB\n";

  // 2. A limit for this device, then a batch too large for it.
  locus::nn::Sequential model(locus::nn::Linear(64, 64), locus::nn::ReLU(), locus::nn::Linear(64, 10));
  model->to(device);
  locus::NoGradGuard no_grad;
  locus::set_memory_limit(locus::memory_reserved(device) + 12 * kMiB, device);
  int64_t batch = 32768;  // 8 MiB of input and 8 MiB of activations: over the limit
  for (;;) {
    try {
      step(model, batch, device);
      std::cout << "batch " << batch << ": fits\n";
      break;
    } catch (const locus::OutOfMemoryError& e) {
      std::cout << "batch " << batch << ": OutOfMemoryError: " << e.what() << "\n";
      batch /= 2;  // the usual fix
      check(batch >= 1024, "a small batch fits");
    }
  }
  auto stats = locus::memory_stats(device);
  std::cout << "num_ooms " << stats["num_ooms"] << ", num_alloc_retries " << stats["num_alloc_retries"]
            << ", limit_bytes " << stats["limit_bytes"] << ", peak allocated "
            << stats["allocated_bytes.peak"] / kMiB << " MiB\n";
  check(stats["num_ooms"] >= 1 && batch < 32768, "the first batch ran out of memory and a smaller one fit");
  check(stats["allocated_bytes.peak"] <= stats["limit_bytes"], "the limit held");
  locus::set_memory_limit(0, device);  // no limit again

  // 3. The whole table, as torch.cuda.memory_summary().
  std::cout << locus::memory_summary(device);
  std::cout << "memory: all checks passed\n";
  return 0;
}

// A device that is not here (`example_memory cuda:0` on a machine without one), a malformed name:
// locus says what and how to fix it in a locus::Error; print it rather than abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const locus::Error& e) {
    std::cerr << "example_memory: " << e.what() << "\n";
    return 1;
  }
}
