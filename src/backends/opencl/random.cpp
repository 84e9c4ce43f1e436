// Philox random fills (random.cl), identical to the CPU backend's stream (src/kernels/philox.h).
#include "backends/opencl/launch.h"
#include "backends/opencl/opencl_backend.h"
#include "locus/error.h"

namespace locus::opencl {

void OpenCLBackend::random(int index, StreamHandle s, backend::RandomKind kind, const TensorRef& out, uint64_t seed,
                           uint64_t offset, double a, double b) {
  int64_t n = out.numel();
  if (n == 0) return;
  uint64_t range = 1;
  if (kind == backend::RandomKind::Int) {
    if (!(b > a))
      throw BackendError("[opencl random] an integer range needs high > low, got [" + std::to_string(a) + ", " +
                         std::to_string(b) + ").");
    range = static_cast<uint64_t>(static_cast<int64_t>(b) - static_cast<int64_t>(a));
  }
  Launch(index, get_kernel(index, "random.cl", out.dtype, "random_fill"), s)
      .buf(out.buf)
      .arg(n)
      .arg(seed)
      .arg(offset / 4)
      .arg(static_cast<int32_t>(kind))
      .arg(make_scalar(a, kFloat))
      .arg(make_scalar(b, kFloat))
      .arg(range)
      .run1d((n + 3) / 4);
}

}  // namespace locus::opencl
