// A test backend over host memory, registered with one line (the last statement of this file's
// first namespace): what a new backend must provide, and proof that it needs nothing else. It joins
// every device-parameterised op test in this binary (tests/testing.h takes all_devices(), which
// the registry drives) as "privateuseone:0" and "privateuseone:1" (PyTorch's type for
// out-of-tree backends).
//
// It implements the required part of backend::Backend (src/core/backend.h): devices, raw
// memory, byte copies, streams and events, and the compute families, which it forwards to the cpu
// backend's kernels (its memory is host memory). It leaves out every optional fast path (pinned
// memory, conv2d, max_pool2d, adam_step), so the ops' composed fallbacks run on it.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/backend.h"
#include "testing.h"

namespace fake_backend_test {

namespace {

using namespace locus;
using namespace locus::backend;

class FakeBackend final : public Backend {
 public:
  static constexpr int kDevices = 2;

  // ---- devices ---------------------------------------------------------------------------
  DeviceType type() const override { return kPrivateUse1; }
  int device_count() noexcept override { return kDevices; }
  std::string unavailable_reason() noexcept override { return {}; }
  DeviceProps props(int index) override {
    check(index);
    DeviceProps p;
    p.name = "fake device " + std::to_string(index) + " (host memory)";
    p.vendor = "locus tests";
    p.total_memory = size_t{1} << 30;
    p.compute_units = 1;
    p.fp16 = p.fp64 = true;
    p.runs_on_host_cpu = true;  // so best_device() ranks it below cpu, as PoCL
    return p;
  }
  size_t free_memory(int index) override { return props(index).total_memory; }

  // ---- raw memory ---------------------------------------------------------------------------
  void* raw_alloc(int index, size_t bytes) override {
    check(index);
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  }
  void raw_free(int, void* base) noexcept override { std::free(base); }
  void* host_alloc(int, size_t, void** ctx) override {  // no page-locked memory
    if (ctx) *ctx = nullptr;
    return nullptr;
  }
  void host_free(int, void*, void*) noexcept override {}

  // ---- byte copies ----------------------------------------------------------------------------
  void copy_from_host(int, Buffer dst, const void* src, size_t bytes, StreamHandle, bool) override {
    if (bytes) std::memmove(at(dst), src, bytes);
  }
  void copy_to_host(int, void* dst, Buffer src, size_t bytes, StreamHandle, bool) override {
    if (bytes) std::memmove(dst, at(src), bytes);
  }
  void copy_within(int, Buffer dst, Buffer src, size_t bytes, StreamHandle) override {
    if (bytes) std::memmove(at(dst), at(src), bytes);
  }
  bool copy_peer(int, Buffer dst, int, Buffer src, size_t bytes, StreamHandle) override {
    if (bytes) std::memmove(at(dst), at(src), bytes);
    return true;
  }

  // ---- streams and events: work runs synchronously ---------------------------------------------
  StreamHandle stream_create(int) override { return new int(0); }
  void stream_destroy(int, StreamHandle s) noexcept override { delete static_cast<int*>(s); }
  void stream_synchronize(int, StreamHandle) override {}
  EventHandle event_create(int, bool) override { return new Clock::time_point(); }
  void event_destroy(int, EventHandle e) noexcept override { delete static_cast<Clock::time_point*>(e); }
  void event_record(int, EventHandle e, StreamHandle) override { *static_cast<Clock::time_point*>(e) = Clock::now(); }
  void stream_wait_event(int, StreamHandle, EventHandle) override {}
  bool event_query(int, EventHandle) override { return true; }
  void event_synchronize(int, EventHandle) override {}
  float event_elapsed_ms(int, EventHandle start, EventHandle end) override {
    return std::chrono::duration<float, std::milli>(*static_cast<Clock::time_point*>(end) -
                                                    *static_cast<Clock::time_point*>(start)).count();
  }

  // ---- compute: the cpu backend's kernels on this host memory -----------------------------------
  void unary(int, StreamHandle, UnaryOp op, const TensorRef& out, const TensorRef& in, const UnaryParams& p) override {
    cpu().unary(0, nullptr, op, out, in, p);
  }
  void binary(int, StreamHandle, BinaryOp op, const TensorRef& out, const TensorRef& a, const TensorRef& b) override {
    cpu().binary(0, nullptr, op, out, a, b);
  }
  void binary_scalar(int, StreamHandle, BinaryOp op, const TensorRef& out, const TensorRef& a, double scalar,
                     bool scalar_first) override {
    cpu().binary_scalar(0, nullptr, op, out, a, scalar, scalar_first);
  }
  void where(int, StreamHandle, const TensorRef& out, const TensorRef& cond, const TensorRef& a,
             const TensorRef& b) override {
    cpu().where(0, nullptr, out, cond, a, b);
  }
  void copy(int, StreamHandle, const TensorRef& out, const TensorRef& in) override { cpu().copy(0, nullptr, out, in); }
  void fill(int, StreamHandle, const TensorRef& out, double value) override { cpu().fill(0, nullptr, out, value); }
  void fill_linear(int, StreamHandle, const TensorRef& out, double start, double step) override {
    cpu().fill_linear(0, nullptr, out, start, step);
  }
  void reduce(int, StreamHandle, ReduceOp op, const TensorRef& out, const TensorRef& in) override {
    cpu().reduce(0, nullptr, op, out, in);
  }
  void softmax(int, StreamHandle, const TensorRef& out, const TensorRef& in, int64_t outer, int64_t dim, int64_t inner,
               bool log) override {
    cpu().softmax(0, nullptr, out, in, outer, dim, inner, log);
  }
  void gemm(int, StreamHandle, const Gemm& g) override { cpu().gemm(0, nullptr, g); }
  void random(int, StreamHandle, RandomKind kind, const TensorRef& out, uint64_t seed, uint64_t offset, double a,
              double b) override {
    cpu().random(0, nullptr, kind, out, seed, offset, a, b);
  }
  void index(int, StreamHandle, IndexOp op, const TensorRef& out, const TensorRef& in, const TensorRef& idx,
             int dim) override {
    cpu().index(0, nullptr, op, out, in, idx, dim);
  }
  void im2col(int, StreamHandle, ScalarType dtype, Buffer in, Buffer out, const Im2Col& p, bool reverse) override {
    cpu().im2col(0, nullptr, dtype, in, out, p, reverse);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static Backend& cpu() { return backend_for(Device(kCPU)); }
  static void* at(Buffer b) { return static_cast<char*>(b.base) + b.offset; }
  static void check(int index) {
    if (index < 0 || index >= kDevices)
      throw BackendError("[fake] device index " + std::to_string(index) + " is out of range: there are " +
                         std::to_string(kDevices) + " fake devices.");
  }
};

// The one registration line (a built-in backend's is generated by locus_add_backend in CMake).
const bool kRegistered = (register_backend(std::make_unique<FakeBackend>(),
                                           {kPrivateUse1, "Fake", /*accelerator=*/true, /*pinned_host_memory=*/false,
                                            /*rank=*/0}),
                          true);

}  // namespace

// The fake devices are devices like any other: listed, described, ranked below cpu, reported.
TEST(FakeBackend, JoinsTheDeviceListAfterTheBuiltInBackends) {
  ASSERT_TRUE(kRegistered);
  std::vector<Device> all = all_devices();
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[0], Device(kCPU));
  EXPECT_EQ(all[all.size() - 2], Device("privateuseone:0"));
  EXPECT_EQ(all.back(), Device("privateuseone:1"));
  EXPECT_EQ(device_count(kPrivateUse1), 2);
  EXPECT_EQ(describe(Device("privateuseone:1")).name, "fake device 1 (host memory)");
  EXPECT_NE(best_device().type(), kPrivateUse1);  // it runs on the host CPU
  EXPECT_NE(best_device_report().find("skipped privateuseone:0: an Fake driver on the host CPU"), std::string::npos)
      << best_device_report();
  EXPECT_NE(collect_env().find("Fake: 2 devices"), std::string::npos);
  EXPECT_EQ(ones({2}, TensorOptions().device("privateuseone:0")).toString(), "FakeFloatType");
}

TEST(FakeBackend, CopiesToAndFromEveryOtherDevice) {
  Tensor x = arange(6, TensorOptions().dtype(kFloat)).reshape({2, 3});
  for (const Device& d : all_devices()) {
    Tensor y = x.to("privateuseone:1").to(d).to("privateuseone:0") * 2;
    EXPECT_EQ(values(y), values(x * 2)) << d;
  }
}

TEST(FakeBackend, RegisteringABackendUnderAnotherTypeIsRefused) {
  EXPECT_THROW_MSG(register_backend(std::make_unique<FakeBackend>(), {kMPS, "Fake", true, false, 0}), Error,
                   "[register_backend] the backend serves privateuseone but is registered as mps; give it its own type.");
}

}  // namespace fake_backend_test
