// The CPU backend: one device, host memory, synchronous work. Streams and events exist so code
// above the boundary is the same for every device: a stream is a dummy handle (work runs inline,
// in order), an event completes when recorded and keeps the steady_clock time of recording.
// The kernels live one op family per file (unary.cpp, binary.cpp, ...) behind kernels.h.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <thread>

#include "backends/cpu/convert.h"
#include "backends/cpu/kernels.h"
#include "core/backend.h"
#include "locus/error.h"

namespace locus::cpu {
namespace {

using namespace backend;

struct CpuStream {
  int unused = 0;
};
struct CpuEvent {
  std::chrono::steady_clock::time_point t{};
  bool recorded = false;
};

// The value of `key` in /proc/cpuinfo ("model name", "vendor_id"), or "".
std::string cpuinfo(const char* key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  size_t n = std::strlen(key);
  while (std::getline(f, line)) {
    if (line.compare(0, n, key) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t b = line.find_first_not_of(" \t", colon + 1);
    return b == std::string::npos ? std::string() : line.substr(b);
  }
  return {};
}

// MemAvailable from /proc/meminfo in bytes, or 0.
size_t mem_available() {
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  size_t kb = 0;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

size_t total_ram() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}

const char* kernel_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  return "x86-64";
#else
  return "generic";
#endif
}

// convert.h's path ("f16c+avx512_bf16"), or why there is none: props() never throws.
std::string convert_path_or_error() {
  try {
    return convert_path(convert_level());
  } catch (const Error& e) {
    return std::string("none (") + e.what() + ")";
  }
}

void check_index(int index) {
  if (index != 0) throw BackendError("[cpu] device index " + std::to_string(index) + " does not exist: cpu has one device (0).");
}

constexpr size_t kParallelCopyBytes = size_t{4} << 20;

// memcpy, split over the pool above a few MiB.
void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (bytes < kParallelCopyBytes || num_threads() == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  constexpr int64_t kPiece = int64_t{1} << 20;
  int64_t pieces = static_cast<int64_t>((bytes + kPiece - 1) / kPiece);
  parallel_for(0, pieces, 2, [&](int64_t b, int64_t e) {
    size_t lo = static_cast<size_t>(b * kPiece), hi = std::min(bytes, static_cast<size_t>(e * kPiece));
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  });
}

// The kernels' scratch memory (convolution and Winograd buffers per thread, the GEMM's transposes)
// is std::vector, outside the allocator: running out there is std::bad_alloc, reported here as the
// OutOfMemoryError the allocator would give, naming the op (LOCUS_FAULT=scratch:N injects it).
template <class F>
decltype(auto) scratch_checked(const char* op, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(std::string("[") + op +
                           "] out of memory on cpu: the kernel's scratch space (buffers kept per thread, outside "
                           "the allocator) could not be allocated. Free memory (a smaller batch, or "
                           "locus::set_num_threads(1): one buffer instead of one per thread) and retry.");
  }
}

class CpuBackend final : public Backend {
 public:
  DeviceType type() const override { return kCPU; }
  int device_count() noexcept override { return 1; }
  std::string unavailable_reason() noexcept override { return {}; }

  DeviceProps props(int index) override {
    check_index(index);
    DeviceProps p;
    p.name = cpuinfo("model name");
    if (p.name.empty()) p.name = "cpu";
    p.vendor = cpuinfo("vendor_id");
    p.total_memory = total_ram();
    p.compute_units = static_cast<int>(std::thread::hardware_concurrency());
    if (p.compute_units <= 0) p.compute_units = num_threads();
    p.fp16 = true;
    p.fp64 = true;
    p.is_gpu = false;
    p.host_addressable = true;
    p.extra = std::string("kernels: ") + kernel_isa() + ", 16-bit conversion: " + convert_path_or_error() +
              ", threads: " + std::to_string(num_threads());
    return p;
  }
  size_t free_memory(int index) override {
    check_index(index);
    size_t m = mem_available();
    if (m == 0) {
      long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
      m = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : total_ram();
    }
    return m;
  }

  // ---- memory -------------------------------------------------------------------------------
  void* raw_alloc(int, size_t bytes) override {
    size_t n = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
    if (n < bytes) return nullptr;  // overflow
    return std::aligned_alloc(64, n);
  }
  void raw_free(int, void* base) noexcept override { std::free(base); }
  void* host_alloc(int, size_t, void** ctx) override {
    if (ctx) *ctx = nullptr;
    return nullptr;  // no page-locked memory on cpu: host memory is already "device" memory
  }
  void host_free(int, void*, void*) noexcept override {}

  // ---- copies -------------------------------------------------------------------------------
  void copy_from_host(int, Buffer dst, const void* src, size_t bytes, StreamHandle, bool) override {
    if (bytes) copy_bytes(data_ptr(dst), src, bytes);
  }
  void copy_to_host(int, void* dst, Buffer src, size_t bytes, StreamHandle, bool) override {
    if (bytes) copy_bytes(dst, data_ptr(src), bytes);
  }
  void copy_within(int, Buffer dst, Buffer src, size_t bytes, StreamHandle) override {
    if (bytes) copy_bytes(data_ptr(dst), data_ptr(src), bytes);
  }
  bool copy_peer(int, Buffer dst, int, Buffer src, size_t bytes, StreamHandle) override {
    if (bytes) copy_bytes(data_ptr(dst), data_ptr(src), bytes);
    return true;
  }

  // ---- streams and events: work is synchronous ------------------------------------------------
  StreamHandle stream_create(int) override { return new CpuStream; }
  void stream_destroy(int, StreamHandle s) noexcept override { delete static_cast<CpuStream*>(s); }
  void stream_synchronize(int, StreamHandle) override {}
  EventHandle event_create(int, bool) override { return new CpuEvent; }
  void event_destroy(int, EventHandle e) noexcept override { delete static_cast<CpuEvent*>(e); }
  void event_record(int, EventHandle e, StreamHandle) override {
    auto* ev = static_cast<CpuEvent*>(e);
    ev->t = std::chrono::steady_clock::now();
    ev->recorded = true;
  }
  void stream_wait_event(int, StreamHandle, EventHandle) override {}
  bool event_query(int, EventHandle) override { return true; }
  void event_synchronize(int, EventHandle) override {}
  float event_elapsed_ms(int, EventHandle start, EventHandle end) override {
    auto* a = static_cast<CpuEvent*>(start);
    auto* b = static_cast<CpuEvent*>(end);
    if (!a || !b || !a->recorded || !b->recorded)
      throw BackendError("[cpu event_elapsed_ms] both events must be recorded before timing them; call record() on each first.");
    return std::chrono::duration<float, std::milli>(b->t - a->t).count();
  }

  // ---- compute ------------------------------------------------------------------------------
  void unary(int, StreamHandle, UnaryOp op, const TensorRef& out, const TensorRef& in, const UnaryParams& p) override {
    cpu::unary(op, out, in, p);
  }
  void binary(int, StreamHandle, BinaryOp op, const TensorRef& out, const TensorRef& a, const TensorRef& b) override {
    cpu::binary(op, out, a, b);
  }
  void binary_scalar(int, StreamHandle, BinaryOp op, const TensorRef& out, const TensorRef& a, double scalar,
                     bool scalar_first) override {
    cpu::binary_scalar(op, out, a, scalar, scalar_first);
  }
  void where(int, StreamHandle, const TensorRef& out, const TensorRef& cond, const TensorRef& a,
             const TensorRef& b) override {
    cpu::where(out, cond, a, b);
  }
  void copy(int, StreamHandle, const TensorRef& out, const TensorRef& in) override { cpu::copy(out, in); }
  void fill(int, StreamHandle, const TensorRef& out, double value) override { cpu::fill(out, value); }
  void fill_linear(int, StreamHandle, const TensorRef& out, double start, double step) override {
    cpu::fill_linear(out, start, step);
  }
  void reduce(int, StreamHandle, ReduceOp op, const TensorRef& out, const TensorRef& in) override {
    cpu::reduce(op, out, in);
  }
  void softmax(int, StreamHandle, const TensorRef& out, const TensorRef& in, int64_t outer, int64_t dim,
               int64_t inner, bool log) override {
    cpu::softmax(out, in, outer, dim, inner, log);
  }
  void gemm(int, StreamHandle, const Gemm& g) override {
    scratch_checked("matmul", [&] { cpu::gemm(g); });
  }
  void random(int, StreamHandle, RandomKind kind, const TensorRef& out, uint64_t seed, uint64_t offset, double a,
              double b) override {
    cpu::random(kind, out, seed, offset, a, b);
  }
  void index(int, StreamHandle, IndexOp op, const TensorRef& out, const TensorRef& in, const TensorRef& idx,
             int dim) override {
    cpu::index(op, out, in, idx, dim);
  }
  void im2col(int, StreamHandle, ScalarType dtype, Buffer in, Buffer out, const Im2Col& p, bool reverse) override {
    scratch_checked("im2col", [&] { cpu::im2col(dtype, in, out, p, reverse); });
  }
  bool log_softmax_nll(int, StreamHandle, ScalarType dtype, Buffer logits, Buffer target, Buffer logp, Buffer loss,
                       Buffer count, Buffer bad, int64_t n, int64_t c, int64_t ignore_index, bool mean) override {
    return cpu::log_softmax_nll(dtype, logits, target, logp, loss, count, bad, n, c, ignore_index, mean);
  }
  bool log_softmax_nll_backward(int, StreamHandle, ScalarType dtype, Buffer logp, Buffer target, Buffer grad_loss,
                                Buffer count, Buffer grad_in, int64_t n, int64_t c, int64_t ignore_index,
                                bool mean) override {
    return cpu::log_softmax_nll_backward(dtype, logp, target, grad_loss, count, grad_in, n, c, ignore_index, mean);
  }
  bool max_pool2d(int, StreamHandle, ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes,
                  const Im2Col& p) override {
    scratch_checked("max_pool2d", [&] { cpu::max_pool2d(dtype, in, out, indices, planes, p); });
    return true;
  }
  bool max_pool2d_backward(int, StreamHandle, ScalarType dtype, Buffer grad_out, Buffer indices, Buffer grad_in,
                           int64_t planes, const Im2Col& p) override {
    cpu::max_pool2d_backward(dtype, grad_out, indices, grad_in, planes, p);
    return true;
  }
  bool conv2d(int, StreamHandle, ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out, int64_t oc,
              const Im2Col& p) override {
    return scratch_checked("conv2d", [&] { return cpu::conv2d(dtype, in, weight, bias, out, oc, p); });
  }
  bool conv2d_backward(int, StreamHandle, ScalarType dtype, Buffer in, Buffer weight, Buffer grad_out, Buffer grad_in,
                       Buffer grad_weight, Buffer grad_bias, int64_t oc, const Im2Col& p) override {
    return scratch_checked("conv2d backward", [&] {
      return cpu::conv2d_backward(dtype, in, weight, grad_out, grad_in, grad_weight, grad_bias, oc, p);
    });
  }
  bool adam_step(int, StreamHandle, ScalarType dtype, Buffer param, Buffer grad, Buffer exp_avg, Buffer exp_avg_sq,
                 Buffer max_sq, int64_t n, const Adam& a) override {
    if (dtype != kFloat && dtype != kDouble) return false;
    cpu::adam_step(dtype, param, grad, exp_avg, exp_avg_sq, max_sq, n, a);
    return true;
  }
  bool non_finite_check_and_unscale(int, StreamHandle, ScalarType dtype, const Buffer* tensors, const int64_t* numels,
                                    int count, float inv_scale, Buffer found_inf) override {
    cpu::non_finite_check_and_unscale(dtype, tensors, numels, count, inv_scale, found_inf);
    return true;
  }
  bool adam_step_in_place(ScalarType dtype) const override { return dtype == kFloat || dtype == kDouble; }
};

}  // namespace
}  // namespace locus::cpu

namespace locus::backend {
std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }
}  // namespace locus::backend
