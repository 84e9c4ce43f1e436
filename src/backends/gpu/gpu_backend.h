#pragma once
// The GPU layer: every compute family (elementwise, reduce, softmax, index, im2col, convolution,
// random and the tiled GEMM fallback) written once for every backend that runs the shared kernel sources
// (src/kernels/). A GPU backend derives from RuntimeBackend<Runtime> (GpuBackend plus the device
// queries its DeviceTable answers) and is a runtime adapter only: it implements backend::Backend's
// memory, device copies, streams and events, plus the runtime hooks below (compile a kernel,
// launch it, describe the device, copy to or from the host, copy between devices, release, its
// vendor BLAS); GpuBackend writes the Backend methods around those hooks once (empty copies, the
// never-throwing releases, gemm falling back to gemm_tiled). docs/adding-a-backend.md walks
// through it.
//
// Launch model: OpenCL's NDRange and CUDA's grid alike, a Grid is `groups` work-groups (blocks)
// of `local` work-items (threads) in up to three dims. Kernel arguments are packed once into
// Args (no allocation): a Buffer is two arguments, the base handle and an int64 byte offset,
// as every kernel takes them (GLOBAL uchar* b, i64 off).
#include <cstdint>
#include <string>

#include "core/backend.h"

namespace locus::gpu {

using backend::Buffer;
using backend::kMaxDims;
using backend::StreamHandle;
using backend::TensorRef;

struct Scalar {  // common.cl: Scalar
  uint64_t dbits = 0;
  int64_t l = 0;
  float f = 0;
  int32_t pad = 0;
};
/// `v` in each representation; for a bool dtype l is (v != 0).
Scalar make_scalar(double v, ScalarType dtype);

struct Geom {  // common.cl: Geom
  int64_t sizes[kMaxDims] = {};
  int64_t strides[4][kMaxDims] = {};
  int64_t numel = 0;
  int32_t ndim = 0;
  int32_t contiguous = 0;
  int64_t row = 0;  // > 0: a work-item per row of this many elements (GEOM_FOR_EACH)
};

/// The bytes a runtime's raw_alloc reserves for a request: at least 8, whole 8-byte words, as the
/// kernels' sub-word atomics (scatter_add on u8/f16) touch the enclosing word.
inline size_t alloc_bytes(size_t bytes) { return bytes == 0 ? 8 : (bytes + 7) & ~size_t{7}; }

/// A compiled kernel as a runtime hands it out; runtimes derive and add their own handle.
struct Kernel {
  std::string label;  // "binary_f32": names the kernel in error messages
};

/// Kernel arguments, packed by value with their alignment into fixed storage.
class Args {
 public:
  template <typename T>
  Args& arg(const T& v) {
    static_assert(sizeof(T) <= 512, "kernel argument too large");
    push(&v, sizeof(T), alignof(T));
    return *this;
  }
  /// Two arguments: the base handle (8 bytes) and the int64 byte offset.
  Args& buf(Buffer b);
  int count() const { return n_; }
  size_t size(int i) const { return sizes_[i]; }
  void** values() { return ptrs_; }  // one pointer per argument (cuLaunchKernel's kernelParams)

 private:
  void push(const void* v, size_t size, size_t align);
  alignas(16) unsigned char storage_[2048];
  void* ptrs_[32];
  uint32_t sizes_[32];
  size_t used_ = 0;
  int n_ = 0;
};

/// `groups[d]` work-groups of `local[d]` items in each of `dims` dims.
struct Grid {
  uint64_t groups[3] = {1, 1, 1};
  uint32_t local[3] = {1, 1, 1};
  int dims = 1;
};

/// What the shared code adapts to on one device (data, not type checks).
struct Caps {
  uint32_t local = 256;            // 1-D work-group size (at most 256; reductions round down to 2^k)
  bool fp64 = true;                // float64 kernels build and run
  bool int64_atomics = true;       // scatter_add on int64 / float64
  bool fixed_op_programs = false;  // large elementwise launches get an op-specialised program
  bool two_pass_reduce = false;    // few long reductions split over groups, through scratch_alloc
  bool row_items = false;          // strided elementwise launches take a row per work-item (CPU drivers)
  bool direct_conv = true;         // conv.cl's direct kernels may beat im2col + the vendor GEMM (gpu/conv.cpp)
  int64_t max_grid_yz = 0;         // limit on groups[1] and groups[2]; 0: none
};

class GpuBackend : public backend::Backend {
 public:
  using StreamHandle = backend::StreamHandle;
  using EventHandle = backend::EventHandle;
  using Buffer = backend::Buffer;
  using TensorRef = backend::TensorRef;

  // ---- the runtime hooks an adapter implements ------------------------------------------------
  /// Kernel `name` of shared source `file` built for `dtype` (plus build `options`, "-DX=1 ...")
  /// on device `index`; compiled (or loaded from the disk cache) on first use, then cached: the
  /// reference stays valid for the backend's life. Throws BackendError (build failure, a dtype
  /// the device lacks, options the runtime cannot honour).
  virtual Kernel& kernel(int index, const char* file, ScalarType dtype, const char* name,
                         const std::string& options) = 0;
  /// Enqueues `k` with `args` on stream `s` over `grid`; returns without waiting (unless the
  /// driver needs it). Safe to call from several threads. Throws BackendError on driver failure.
  virtual void launch(int index, StreamHandle s, Kernel& k, const Grid& grid, Args& args) = 0;
  /// Device `index`'s limits and features; cheap (called per launch). Throws for a bad index.
  virtual Caps caps(int index) = 0;
  /// "opencl:0 (pthread-cpu)": names device `index` in messages; never throws.
  virtual std::string device_label(int index) noexcept = 0;
  /// One host<->device copy of `bytes` > 0 (a write when `to_device`) on stream `s`, complete on
  /// return unless `async` (then from pinned memory). A `done` event, when given, takes the
  /// copy's completion: the copy's own event where the runtime hands one out (OpenCL: no marker,
  /// one flush), else event_record(index, done, s) after it.
  virtual void host_copy(int index, StreamHandle s, bool to_device, Buffer dev, void* host, size_t bytes,
                         bool async, EventHandle done) = 0;
  /// copy_peer between two different devices: the direct copy, ordered on both, or false.
  virtual bool peer_copy(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes, StreamHandle s) = 0;
  /// raw_free, host_free and stream_destroy of a handle that is not null; they may throw.
  virtual void release_buffer(int index, void* base) = 0;
  virtual void release_host(int index, void* ptr, void* ctx) = 0;
  virtual void release_stream(int index, StreamHandle s) = 0;
  /// The vendor BLAS: runs `g` (m, n and batch > 0) and returns true, or returns false for a
  /// dtype or layout it does not take (gemm then runs gemm_tiled).
  virtual bool blas_gemm(int index, StreamHandle s, const Gemm& g) = 0;
  /// Scratch memory for kernels about to be enqueued on stream `s`, where Caps::two_pass_reduce
  /// (split reductions, the direct convolution's weight gradient); nullptr when there is none
  /// (the caller then takes its one-pass path). scratch_free follows the enqueues at once, so it
  /// must not disturb them: the default is raw_alloc and raw_free, right where the runtime's free
  /// waits for the kernels using the buffer (OpenCL's clReleaseMemObject); CUDA uses the
  /// stream-ordered allocator instead.
  virtual void* scratch_alloc(int index, StreamHandle s, size_t bytes);
  virtual void scratch_free(int index, StreamHandle s, void* p) noexcept;

  // ---- around the hooks, once for every runtime ----------------------------------------------
  /// Empty copies are skipped (an empty recorded copy only records), the rest go to host_copy.
  void copy_from_host(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s, bool async) final;
  void copy_to_host(int index, void* dst, Buffer src, size_t bytes, StreamHandle s, bool async) final;
  void copy_from_host_recorded(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s,
                               EventHandle done) final;
  void copy_to_host_recorded(int index, void* dst, Buffer src, size_t bytes, StreamHandle s,
                             EventHandle done) final;
  /// copy_within when both are one device, else peer_copy.
  bool copy_peer(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes, StreamHandle s) final;
  /// Null handles are ignored and failures swallowed: these never throw.
  void raw_free(int index, void* base) noexcept final;
  void host_free(int index, void* ptr, void* ctx) noexcept final;
  void stream_destroy(int index, StreamHandle s) noexcept final;
  /// Nothing for an empty product; blas_gemm (counted in launch_counts) where it takes `g`, else
  /// gemm_tiled.
  void gemm(int index, StreamHandle s, const Gemm& g) final;

  // ---- the compute families, once for every runtime -------------------------------------------
  void unary(int index, StreamHandle s, backend::UnaryOp op, const TensorRef& out, const TensorRef& in,
             const backend::UnaryParams& p) final;
  void binary(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out, const TensorRef& a,
              const TensorRef& b) final;
  void binary_scalar(int index, StreamHandle s, backend::BinaryOp op, const TensorRef& out, const TensorRef& a,
                     double scalar, bool scalar_first) final;
  void where(int index, StreamHandle s, const TensorRef& out, const TensorRef& cond, const TensorRef& a,
             const TensorRef& b) final;
  void copy(int index, StreamHandle s, const TensorRef& out, const TensorRef& in) final;
  void fill(int index, StreamHandle s, const TensorRef& out, double value) final;
  void fill_linear(int index, StreamHandle s, const TensorRef& out, double start, double step) final;
  void reduce(int index, StreamHandle s, backend::ReduceOp op, const TensorRef& out, const TensorRef& in) final;
  void softmax(int index, StreamHandle s, const TensorRef& out, const TensorRef& in, int64_t outer, int64_t dim,
               int64_t inner, bool log) final;
  void random(int index, StreamHandle s, backend::RandomKind kind, const TensorRef& out, uint64_t seed,
              uint64_t offset, double a, double b) final;
  void index(int index, StreamHandle s, backend::IndexOp op, const TensorRef& out, const TensorRef& in,
             const TensorRef& idx, int dim) final;
  void im2col(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out, const Im2Col& p,
              bool reverse) final;
  /// pool.cl, for windows without padding that do not overlap (the 2x2 pooling of CNNs); false
  /// otherwise, and ops pool through im2col.
  bool max_pool2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out, Buffer indices, int64_t planes,
                  const Im2Col& p) final;
  bool max_pool2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer grad_out, Buffer indices,
                           Buffer grad_in, int64_t planes, const Im2Col& p) final;
  /// conv.cl's direct convolution (conv.cpp) where it measured faster than im2col + GEMM (float32
  /// and float64, stride 1, few channels); false otherwise, and ops convolves through im2col.
  bool conv2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out,
              int64_t oc, const Im2Col& p) final;
  bool conv2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer grad_out,
                       Buffer grad_in, Buffer grad_weight, Buffer grad_bias, int64_t oc, const Im2Col& p) final;
  /// reduce.cl: cross_entropy's core in one launch each way, float32 and float64 (reduce.cpp).
  bool log_softmax_nll(int index, StreamHandle s, ScalarType dtype, Buffer logits, Buffer target, Buffer logp,
                       Buffer loss, Buffer count, Buffer bad, int64_t n, int64_t c, int64_t ignore_index,
                       bool mean) final;
  bool log_softmax_nll_backward(int index, StreamHandle s, ScalarType dtype, Buffer logp, Buffer target,
                                Buffer grad_loss, Buffer count, Buffer grad_in, int64_t n, int64_t c,
                                int64_t ignore_index, bool mean) final;
  /// optim.cl: one launch per parameter, float32 and float64 (optim.cpp).
  bool adam_step_into(int index, StreamHandle s, ScalarType dtype, const AdamBuffers& out, const AdamBuffers& in,
                      Buffer grad, int64_t n, const Adam& a) final;
  /// amp.cl: one launch per 16 tensors (amp.cpp).
  bool non_finite_check_and_unscale(int index, StreamHandle s, ScalarType dtype, const Buffer* tensors,
                                    const int64_t* numels, int count, float inv_scale, Buffer found_inf) final;
  /// "[opencl]": the prefix of this backend's messages.
  std::string prefix() const;
  /// event_elapsed_ms's preconditions: throws BackendError unless both events time and were recorded.
  static void check_elapsed(bool both_timing, bool both_recorded);
  /// "float32, m=64 n=32 k=16, batch 1": names a GEMM in messages.
  static std::string gemm_label(const Gemm& g);
  /// Whether a vendor BLAS takes `g`'s layout: offsets in whole elements, leading dimensions at
  /// least the row length, batch strides >= 0 (c's > 0), sizes and leading dimensions <= max_dim.
  static bool blas_layout(const Gemm& g, int64_t max_dim);

 protected:
  /// gemm.cl's tiled kernel: the fallback of every runtime's gemm (dtypes and shapes its BLAS
  /// does not take). Expects m, n and batch > 0.
  void gemm_tiled(int index, StreamHandle s, const Gemm& g);

 private:
  /// conv.cpp: whether conv.cl takes the convolution (forward and backward alike), and one launch
  /// of its conv2d_tiled: p's geometry, oc outputs, `flip` for the input gradient.
  struct ConvGeometry {
    Im2Col p;
    int64_t oc;
    int32_t flip;
  };
  bool conv2d_takes(int index, ScalarType dtype, int64_t oc, const Im2Col& p);
  void conv2d_tiled(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out,
                    const ConvGeometry& g);
};

/// The adapter's base: GpuBackend with the device queries every runtime answers alike from its
/// singleton `Runtime` (a DeviceTable with a static get(), enumerated on first use).
template <typename Runtime>
class RuntimeBackend : public GpuBackend {
 public:
  int device_count() noexcept final { return Runtime::get().count(); }
  std::string unavailable_reason() noexcept final { return Runtime::get().reason(); }
  std::string device_label(int index) noexcept final { return Runtime::get().label(index); }
  backend::DeviceProps props(int index) override { return Runtime::get().device(index).props; }
};

/// What an adapter's class declares (after its `type()`): backend::Backend's memory, copies,
/// streams and events (core/backend.h has their contracts), gemm, and the hooks above.
#define LOCUS_GPU_RUNTIME_METHODS                                                                              \
  size_t free_memory(int index) override;                                                                      \
  void* raw_alloc(int index, size_t bytes) override;                                                           \
  void release_buffer(int index, void* base) override;                                                          \
  void* host_alloc(int index, size_t bytes, void** ctx) override;                                              \
  void release_host(int index, void* ptr, void* ctx) override;                                                 \
  void host_copy(int index, StreamHandle s, bool to_device, Buffer dev, void* host, size_t bytes, bool async,  \
                 EventHandle done) override;                                                                   \
  void copy_within(int index, Buffer dst, Buffer src, size_t bytes, StreamHandle s) override;                  \
  bool peer_copy(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes, StreamHandle s) override; \
  StreamHandle stream_create(int index) override;                                                              \
  void release_stream(int index, StreamHandle s) override;                                                     \
  void stream_synchronize(int index, StreamHandle s) override;                                                 \
  EventHandle event_create(int index, bool timing) override;                                                   \
  void event_destroy(int index, EventHandle e) noexcept override;                                              \
  void event_record(int index, EventHandle e, StreamHandle s) override;                                        \
  void stream_wait_event(int index, StreamHandle s, EventHandle e) override;                                   \
  bool event_query(int index, EventHandle e) override;                                                         \
  void event_synchronize(int index, EventHandle e) override;                                                   \
  float event_elapsed_ms(int index, EventHandle start, EventHandle end) override;                              \
  bool blas_gemm(int index, StreamHandle s, const Gemm& g) override;                                           \
  gpu::Kernel& kernel(int index, const char* file, ScalarType dtype, const char* name,                         \
                      const std::string& options) override;                                                   \
  void launch(int index, StreamHandle s, gpu::Kernel& k, const gpu::Grid& grid, gpu::Args& args) override;    \
  gpu::Caps caps(int index) override;

/// Launches since the process started, every GPU backend and device together: kernels through
/// Launch (the shared kernel source) and GEMM calls to a vendor BLAS (CLBlast, cuBLAS; one or
/// more kernels each). opencl_bench reports them per training step.
struct LaunchCounts {
  uint64_t kernels = 0;
  uint64_t gemms = 0;
};
LaunchCounts launch_counts() noexcept;

/// One launch being built: `Launch(b, index, s, kernel).buf(x).arg(y).run1d(n)`.
class Launch {
 public:
  Launch(GpuBackend& b, int index, StreamHandle s, Kernel& k) : b_(b), index_(index), s_(s), k_(k) {}
  template <typename T>
  Launch& arg(const T& v) {
    args_.arg(v);
    return *this;
  }
  Launch& buf(Buffer b) {
    args_.buf(b);
    return *this;
  }
  /// A 1-D launch over `n` items, one per element up to 2^30, grid-stride beyond (skipped when n == 0).
  void run1d(int64_t n);
  /// `groups` work-groups of `local` items each, 1-D (skipped when groups == 0).
  void run_groups(int64_t groups, uint32_t local);
  void run(const Grid& g);

 private:
  GpuBackend& b_;
  int index_;
  StreamHandle s_;
  Kernel& k_;
  Args args_;
};

}  // namespace locus::gpu
