#pragma once
// The CUDA implementation of locus::backend::Backend. One class; its methods live in one file
// per job: backend.cpp (devices), memory.cpp, copy.cpp, stream.cpp, elementwise.cpp (unary,
// binary, where, copy/cast, fill), reduce.cpp (reduce, softmax), random.cpp, index.cpp (index,
// im2col), gemm.cpp (cuBLAS). The driver comes from driver.h (dlopen), devices and contexts
// from context.h, kernels from the shared sources via program.h (NVRTC), launches via launch.h.
//
// Handles: Buffer::base is a CUdeviceptr; a StreamHandle is a CUstream (nullptr: the legacy
// default stream of the device's context, as PyTorch's default stream; streams made by
// stream_create are non-blocking, so they never synchronise with it implicitly, as OpenCL's
// queues); an EventHandle points to a cuda::Event.
#include <cuda.h>

#include "core/backend.h"

namespace locus::cuda {

struct Event {
  CUevent ev = nullptr;
  bool timing = false;
  bool recorded = false;  // waiting on an event never recorded is a no-op, as on OpenCL
  int device = 0;
};

class CudaBackend final : public backend::Backend {
 public:
  using StreamHandle = backend::StreamHandle;
  using EventHandle = backend::EventHandle;
  using Buffer = backend::Buffer;
  using TensorRef = backend::TensorRef;

  DeviceType type() const override { return kCUDA; }
  int device_count() noexcept override;
  std::string unavailable_reason() noexcept override;
  backend::DeviceProps props(int index) override;
  size_t free_memory(int index) override;

  void* raw_alloc(int index, size_t bytes) override;
  void raw_free(int index, void* base) noexcept override;
  void* host_alloc(int index, size_t bytes, void** ctx) override;
  void host_free(int index, void* ptr, void* ctx) noexcept override;

  void copy_from_host(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s,
                      bool async) override;
  void copy_to_host(int index, void* dst, Buffer src, size_t bytes, StreamHandle s,
                    bool async) override;
  void copy_within(int index, Buffer dst, Buffer src, size_t bytes, StreamHandle s) override;
  bool copy_peer(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes,
                 StreamHandle s) override;

  StreamHandle stream_create(int index) override;
  void stream_destroy(int index, StreamHandle s) noexcept override;
  void stream_synchronize(int index, StreamHandle s) override;
  EventHandle event_create(int index, bool timing) override;
  void event_destroy(int index, EventHandle e) noexcept override;
  void event_record(int index, EventHandle e, StreamHandle s) override;
  void stream_wait_event(int index, StreamHandle s, EventHandle e) override;
  bool event_query(int index, EventHandle e) override;
  void event_synchronize(int index, EventHandle e) override;
  float event_elapsed_ms(int index, EventHandle start, EventHandle end) override;

  void unary(int index, StreamHandle s, backend::UnaryOp op, const TensorRef& out,
             const TensorRef& in, const backend::UnaryParams& p) override;
  void binary(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out,
              const TensorRef& a, const TensorRef& b) override;
  void binary_scalar(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out,
                     const TensorRef& a, double scalar, bool scalar_first) override;
  void where(int index, StreamHandle s, const TensorRef& out, const TensorRef& cond,
             const TensorRef& a, const TensorRef& b) override;
  void copy(int index, StreamHandle s, const TensorRef& out, const TensorRef& in) override;
  void fill(int index, StreamHandle s, const TensorRef& out, double value) override;
  void fill_linear(int index, StreamHandle s, const TensorRef& out, double start,
                   double step) override;
  void reduce(int index, StreamHandle s, backend::ReduceOp op, const TensorRef& out,
              const TensorRef& in) override;
  void softmax(int index, StreamHandle s, const TensorRef& out, const TensorRef& in,
               int64_t outer, int64_t dim, int64_t inner, bool log) override;
  void gemm(int index, StreamHandle s, const Gemm& g) override;
  void random(int index, StreamHandle s, backend::RandomKind kind, const TensorRef& out,
              uint64_t seed, uint64_t offset, double a, double b) override;
  void index(int index, StreamHandle s, backend::IndexOp op, const TensorRef& out,
             const TensorRef& in, const TensorRef& idx, int dim) override;
  void im2col(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out,
              const Im2Col& p, bool reverse) override;
};

}  // namespace locus::cuda

namespace locus::backend {
std::unique_ptr<Backend> make_cuda_backend();
}  // namespace locus::backend
