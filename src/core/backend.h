#pragma once
// The one interface a device type implements (cpu/, opencl/, cuda/ under src/backends/).
//
// Everything above this boundary is device-neutral: ops check devices, dtypes and shapes once,
// compute broadcast strides and output shapes, allocate outputs through the device's allocator,
// then call exactly one op-family entry point here. Nothing above the backends branches on a
// device type; capabilities are data (DeviceProps).
//
// Conventions for every compute entry point:
//  - All TensorRefs live on the backend's device `index` (checked above the boundary).
//  - Shapes are already broadcast: every operand of an elementwise op has out's ndim and sizes,
//    with stride 0 on broadcast dimensions. Strides are in elements; Buffer::offset is in bytes
//    and already includes the tensor's storage offset.
//  - Work is enqueued on `stream` and may return before it completes (CPU runs it inline).
//  - Entry points may throw locus::BackendError; they never abort.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "locus/device.h"
#include "locus/device_info.h"
#include "locus/dtype.h"

namespace locus::backend {

constexpr int kMaxDims = 8;  // kernels see at most this many dims; ops coalesce or copy first

/// A span of device memory: `base` is the backend's handle (a host pointer on CPU, a cl_mem on
/// OpenCL, a CUdeviceptr on CUDA) and `offset` a byte offset into it.
struct Buffer {
  void* base = nullptr;
  size_t offset = 0;
};

/// A strided view handed to a kernel.
struct TensorRef {
  Buffer buf;
  ScalarType dtype = kFloat;
  int ndim = 0;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
  TensorRef() : sizes{}, strides{} {}
  /// Leaves sizes and strides unset (kernels read only the first ndim): for the hot path that
  /// fills dim 0 alone, where zeroing 128 bytes cost more than the rest of building the ref.
  struct Unset {};
  explicit TensorRef(Unset) {}
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= sizes[i];
    return n;
  }
};

/// An opaque stream or event handle; nullptr means the device's default stream.
using StreamHandle = void*;
using EventHandle = void*;

/// What the driver reports about a device (the public fields: locus/device_info.h), plus what only
/// the layers above the boundary need.
struct DeviceProps : DeviceProperties {
  bool host_addressable = false;  // Buffer::base + offset is a host pointer (CPU)
  bool device_addressed = false;  // Buffer::base + offset is the device's own address (CUDA), shown by data_ptr()
};

enum class UnaryOp : int {
  Neg, Abs, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, Clamp, PowScalar, Sin, Cos, Rsqrt, Reciprocal,
  Gelu, GeluTanh, Sign, Square, Log1p, Expm1, Floor, Ceil, Round, LogicalNot,
  ReluBackward, /* out = grad where a>0 — via binary instead */
  Erf, Log2, Exp2,
  // ---- math batch (stop 45) ----
  Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Log10, Trunc, Erfc, Erfinv, Lgamma, Digamma,
  Trigamma,  // polygamma(1, x)
};
struct UnaryParams {
  double a = 0, b = 0;   // Clamp: min (a) and max (b); PowScalar: exponent (a)
  bool has_a = false, has_b = false;  // Clamp: which bounds are set
};

enum class BinaryOp : int {
  Add, Sub, Mul, Div, Pow, Maximum, Minimum, Remainder, FloorDivide,
  Eq, Ne, Lt, Le, Gt, Ge,           // out dtype is kBool
  LogicalAnd, LogicalOr,            // out dtype is kBool
  ThresholdBackward,                // out = 0 if b <= 0 else a  (relu backward: a=grad, b=output; NaN b passes a)
  Atan2,                            // atan2(a, b): float (integers promote to the default dtype)
  // ---- math batch (stop 45) ----
  Hypot, Copysign, Xlogy,           // float (integers promote to the default dtype)
  Fmod,                             // C fmod (the dividend's sign); integers stay integers, x % 0 = 0
  TruncDivide,                      // a / b rounded toward zero; integers stay integers, x / 0 = 0
  NextAfter,                        // float32 / float64 only
  // ---- ops batch (stop 46) ----
  BitAnd, BitOr, BitXor,            // bool and integer dtypes only
  LShift, RShift,                   // integers only; as PyTorch's cpu kernel (x86): int8/16 shifted as int32,
                                    // the count masked to 31 (63 for int64), >> arithmetic for signed
  // ---- stop 58 ----
  GeluBackward,                     // a * gelu'(b) (a: the gradient, b: gelu's input), erf form; float only
  GeluTanhBackward,                 // the same for gelu's tanh approximation
};
inline bool binary_is_comparison(BinaryOp op) {
  return op >= BinaryOp::Eq && op <= BinaryOp::LogicalOr;
}

enum class ReduceOp : int { Sum, Mean, Max, Min, ArgMax, ArgMin, Prod, Any, All };

enum class RandomKind : int {
  Uniform,   // a + (b - a) * U[0,1)
  Normal,    // a + b * N(0,1)         (Box-Muller)
  Int,       // integers in [a, b)
  Bernoulli, // 1 with probability a, else 0
};

enum class IndexOp : int {
  IndexSelect,  // out[..., i, ...] = in[..., index[i], ...] along dim
  Gather,       // out[i][j] = in[index[i][j]][j] (dim 0), index has out's shape
  ScatterAdd,   // out[index[i][j]][j] += src[i][j]   (out already holds the base values)
};

class Backend {
 public:
  virtual ~Backend() = default;

  // ---- devices ---------------------------------------------------------------------------
  virtual DeviceType type() const = 0;
  /// Number of usable devices; never throws (a missing driver is 0 and a reason).
  virtual int device_count() noexcept = 0;
  /// Why device_count() is 0 ("no driver: libcuda.so.1 not found", ...); empty when devices exist.
  virtual std::string unavailable_reason() noexcept = 0;
  virtual DeviceProps props(int index) = 0;
  /// Free device memory in bytes as the driver reports it (total_memory when unknown).
  virtual size_t free_memory(int index) = 0;

  // ---- raw memory (the caching allocator sits above this) ---------------------------------
  /// Allocates `bytes` on the device; returns nullptr when the device is out of memory
  /// (other failures throw BackendError).
  virtual void* raw_alloc(int index, size_t bytes) = 0;
  virtual void raw_free(int index, void* base) noexcept = 0;
  /// Page-locked host memory for fast and asynchronous copies; nullptr when unsupported.
  virtual void* host_alloc(int index, size_t bytes, void** ctx) = 0;
  virtual void host_free(int index, void* ptr, void* ctx) noexcept = 0;

  // ---- byte copies (contiguous) -------------------------------------------------------------
  /// host -> device. When `async` is false the call returns after the copy completed.
  virtual void copy_from_host(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s,
                              bool async) = 0;
  /// device -> host. When `async` is false the call returns after the copy completed.
  virtual void copy_to_host(int index, void* dst, Buffer src, size_t bytes, StreamHandle s,
                            bool async) = 0;
  /// An asynchronous copy_from_host / copy_to_host whose completion is recorded in `done` (an
  /// event of this device), as event_record(done, s) right after it would. A runtime that gets
  /// the copy's own completion event overrides them (OpenCL: no marker and one flush per copy).
  virtual void copy_from_host_recorded(int index, Buffer dst, const void* src, size_t bytes, StreamHandle s,
                                       EventHandle done) {
    copy_from_host(index, dst, src, bytes, s, true);
    event_record(index, done, s);
  }
  virtual void copy_to_host_recorded(int index, void* dst, Buffer src, size_t bytes, StreamHandle s,
                                     EventHandle done) {
    copy_to_host(index, dst, src, bytes, s, true);
    event_record(index, done, s);
  }
  /// Within one device.
  virtual void copy_within(int index, Buffer dst, Buffer src, size_t bytes, StreamHandle s) = 0;
  /// Between two devices of this backend; returns false when no direct route exists (the caller
  /// then stages through pinned host memory).
  virtual bool copy_peer(int dst_index, Buffer dst, int src_index, Buffer src, size_t bytes,
                         StreamHandle s) = 0;

  // ---- streams and events -----------------------------------------------------------------
  virtual StreamHandle stream_create(int index) = 0;
  virtual void stream_destroy(int index, StreamHandle s) noexcept = 0;
  virtual void stream_synchronize(int index, StreamHandle s) = 0;
  virtual EventHandle event_create(int index, bool timing) = 0;
  virtual void event_destroy(int index, EventHandle e) noexcept = 0;
  virtual void event_record(int index, EventHandle e, StreamHandle s) = 0;
  /// Makes future work on `s` wait for `e` without blocking the host.
  virtual void stream_wait_event(int index, StreamHandle s, EventHandle e) = 0;
  /// True when all work captured by `e` has completed.
  virtual bool event_query(int index, EventHandle e) = 0;
  virtual void event_synchronize(int index, EventHandle e) = 0;
  /// Milliseconds between two recorded, completed events.
  virtual float event_elapsed_ms(int index, EventHandle start, EventHandle end) = 0;

  // ---- compute: op families -----------------------------------------------------------------
  /// out = op(in); out and in have the same dtype (the compute dtype).
  virtual void unary(int index, StreamHandle s, UnaryOp op, const TensorRef& out,
                     const TensorRef& in, const UnaryParams& p) = 0;
  /// out = a op b; a and b share a dtype; out has it too, or kBool for comparisons.
  virtual void binary(int index, StreamHandle s, BinaryOp op, const TensorRef& out,
                      const TensorRef& a, const TensorRef& b) = 0;
  /// out = a op scalar (or scalar op a when scalar_first).
  virtual void binary_scalar(int index, StreamHandle s, BinaryOp op, const TensorRef& out,
                             const TensorRef& a, double scalar, bool scalar_first) = 0;
  /// out = cond ? a : b; cond is kBool, a/b/out share a dtype.
  virtual void where(int index, StreamHandle s, const TensorRef& out, const TensorRef& cond,
                     const TensorRef& a, const TensorRef& b) = 0;
  /// Strided copy with dtype conversion (same device): out = in.to(out.dtype).
  virtual void copy(int index, StreamHandle s, const TensorRef& out, const TensorRef& in) = 0;
  /// out[i] = value (out may be strided).
  virtual void fill(int index, StreamHandle s, const TensorRef& out, double value) = 0;
  /// Contiguous out: out[i] = start + i * step (arange, linspace).
  virtual void fill_linear(int index, StreamHandle s, const TensorRef& out, double start,
                           double step) = 0;
  /// Reduces the trailing in.ndim - out.ndim dims of `in`; the leading dims match out's sizes.
  /// ArgMax/ArgMin reduce exactly one trailing dim and write kLong.
  virtual void reduce(int index, StreamHandle s, ReduceOp op, const TensorRef& out,
                      const TensorRef& in) = 0;
  /// Contiguous in/out viewed as [outer, dim, inner]; softmax (or log_softmax) along dim.
  virtual void softmax(int index, StreamHandle s, const TensorRef& out, const TensorRef& in,
                       int64_t outer, int64_t dim, int64_t inner, bool log) = 0;
  /// C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], row-major, for b in [0, batch).
  /// lda/ldb/ldc are row strides in elements; stride_* the batch strides in elements.
  struct Gemm {
    ScalarType dtype = kFloat;
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    double alpha = 1, beta = 0;
    Buffer a, b, c;
    int64_t lda = 0, ldb = 0, ldc = 0;
    int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  };
  virtual void gemm(int index, StreamHandle s, const Gemm& g) = 0;
  /// Contiguous out filled from the Philox 4x32-10 stream (seed, offset): element i uses counter
  /// offset/4 + i/4 lane i%4 (normal uses pairs); identical on every backend.
  virtual void random(int index, StreamHandle s, RandomKind kind, const TensorRef& out,
                      uint64_t seed, uint64_t offset, double a, double b) = 0;
  /// Index family; `index` tensors are kLong. `dim` is in [0, out.ndim). Out-of-range indices are
  /// checked above the boundary.
  virtual void index(int index, StreamHandle s, IndexOp op, const TensorRef& out,
                     const TensorRef& in, const TensorRef& idx, int dim) = 0;
  /// im2col for conv2d: in is contiguous [n, C, H, W] at in.buf; out contiguous
  /// [n, C*kh*kw, oh*ow]. (col2im when `reverse`: accumulates out into in.)
  struct Im2Col {
    int64_t c = 0, h = 0, w = 0, kh = 0, kw = 0, oh = 0, ow = 0;
    int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
    int64_t n = 1;  // images, back to back in both buffers
  };
  virtual void im2col(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out,
                      const Im2Col& p, bool reverse) = 0;
  /// Optional fast path. Max pooling of `planes` contiguous [h, w] planes with Im2Col's geometry
  /// (c unused; padding never wins): out [planes, oh*ow] gets the maxima and `indices` (kLong)
  /// their positions y*w + x in the plane (the first maximum; a NaN wins). Returns false when the
  /// backend has no such kernel: the caller then pools through im2col.
  virtual bool max_pool2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer out, Buffer indices,
                          int64_t planes, const Im2Col& p) {
    return false;
  }
  /// Optional fast path: max_pool2d's backward, `p` the forward's geometry. grad_in [planes, h*w]
  /// is set to zero, then grad_in[q][indices[q][t]] += grad_out[q][t] for each of the oh*ow
  /// positions t of plane q (indices from max_pool2d with `p`, so in range). Returns false when the
  /// backend has no such kernel: the caller then scatter-adds.
  virtual bool max_pool2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer grad_out, Buffer indices,
                                   Buffer grad_in, int64_t planes, const Im2Col& p) {
    return false;
  }
  /// Optional fast path: 2-D convolution with groups 1. in is contiguous [p.n, p.c, p.h, p.w],
  /// weight [oc, p.c*p.kh*p.kw], bias [oc] (bias.base null: none), out [p.n, oc, p.oh*p.ow], with
  /// Im2Col's geometry. Returns false when the backend has no such kernel (or not for this dtype):
  /// the caller then convolves through im2col and a GEMM.
  virtual bool conv2d(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer bias, Buffer out,
                      int64_t oc, const Im2Col& p) {
    return false;
  }
  /// Its backward from grad_out [p.n, oc, p.oh*p.ow]: writes (does not accumulate) grad_in (shaped
  /// as in), grad_weight and grad_bias, each only when its base is not null.
  virtual bool conv2d_backward(int index, StreamHandle s, ScalarType dtype, Buffer in, Buffer weight, Buffer grad_out,
                               Buffer grad_in, Buffer grad_weight, Buffer grad_bias, int64_t oc, const Im2Col& p) {
    return false;
  }
  /// Optional fast path of cross_entropy without class weights or label smoothing: logits [n, c]
  /// and logp contiguous of the floating `dtype`, target [n] contiguous kLong. Writes logp =
  /// log_softmax(logits) row by row, count (1 element of dtype) = the rows whose target is not
  /// ignore_index and loss (1 element) = the sum over those rows of -logp[row][target], divided by
  /// count when `mean` (0 / 0: NaN, as PyTorch), skipping targets outside [0, c); bad (1 kLong) =
  /// the first row whose target is outside [0, c) and not ignore_index, or -1 (the caller reports
  /// it). Returns false when the backend has no such kernel (or none for this dtype or size): the
  /// caller then composes it.
  virtual bool log_softmax_nll(int index, StreamHandle s, ScalarType dtype, Buffer logits, Buffer target,
                               Buffer logp, Buffer loss, Buffer count, Buffer bad, int64_t n, int64_t c,
                               int64_t ignore_index, bool mean) {
    return false;
  }
  /// Its gradient: grad_in [n, c] = (exp(logp) - onehot(target)) * grad_loss (1 element), divided
  /// by count when `mean`, on rows whose target is not ignore_index; 0 on the others. Returns
  /// false when the backend has no such kernel.
  virtual bool log_softmax_nll_backward(int index, StreamHandle s, ScalarType dtype, Buffer logp, Buffer target,
                                        Buffer grad_loss, Buffer count, Buffer grad_in, int64_t n, int64_t c,
                                        int64_t ignore_index, bool mean) {
    return false;
  }
  /// Optional fast path: one Adam/AdamW update of `n` contiguous elements, in one pass, with
  /// torch.optim.Adam's arithmetic (max_sq.base is null without amsgrad). Returns false when the
  /// backend has no such kernel: the optimizer then composes the update from tensor ops.
  struct Adam {
    double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
    double bias_correction1 = 1, bias_correction2 = 1;
    bool decoupled = false;  // AdamW: decay the parameter, not the gradient
  };
  virtual bool adam_step(int index, StreamHandle s, ScalarType dtype, Buffer param, Buffer grad, Buffer exp_avg,
                         Buffer exp_avg_sq, Buffer max_sq, int64_t n, const Adam& a) {
    return false;
  }
  /// Optional: adam_step's arithmetic out of place, for devices whose kernels run asynchronously
  /// (a launch may still be refused): reads `in` and `grad`, writes the new parameter and moments
  /// to `out` (max_sq only with AMSGrad: base null otherwise), and leaves `in` as it was; the
  /// optimizer swaps the outputs in once every parameter's update was enqueued (optim/adam.cpp).
  /// All buffers hold n contiguous elements of dtype. Returns false when the backend has no such
  /// kernel for dtype: the optimizer then composes the update from tensor ops.
  struct AdamBuffers {
    Buffer param, exp_avg, exp_avg_sq, max_sq;
  };
  virtual bool adam_step_into(int index, StreamHandle s, ScalarType dtype, const AdamBuffers& out,
                              const AdamBuffers& in, Buffer grad, int64_t n, const Adam& a) {
    return false;
  }
  /// Optional fused pass of amp::GradScaler (PyTorch's _amp_foreach_non_finite_check_and_unscale_):
  /// multiplies in place every element of the `count` contiguous tensors (tensors[i]: numels[i]
  /// elements of the floating type `dtype`) by inv_scale, and sets the float32 at found_inf to 1
  /// when any of them holds inf or NaN (never clears it). One pass over all of them, not a
  /// launch per tensor. Returns false when the backend has no such kernel.
  virtual bool non_finite_check_and_unscale(int index, StreamHandle s, ScalarType dtype, const Buffer* tensors,
                                            const int64_t* numels, int count, float inv_scale, Buffer found_inf) {
    return false;
  }
  /// True when adam_step for `dtype` runs synchronously here and cannot fail once called (no
  /// allocation, no launch a driver can refuse): the optimizer then updates in place. Otherwise
  /// it computes the whole step into new buffers first (optim/adam.cpp: no half-applied step).
  virtual bool adam_step_in_place(ScalarType dtype) const { return false; }
};

/// What a backend is, as data: everything above the backends that must tell device types apart
/// asks this (per type) or DeviceProps (per device), never the type itself (docs/architecture.md). Given by
/// the backend's registration line (CMake's locus_add_backend, cmake/locus_backend.cmake).
struct Capabilities {
  DeviceType type = kCPU;
  std::string display_name;          // "CUDA", "OpenCL", "CPU": messages and the environment report
  bool accelerator = false;          // not the host CPU backend: candidate of best_device(), Device(int)
  bool pinned_host_memory = false;   // host_alloc() gives page-locked memory that pin_memory() may use
  int rank = 0;                      // accelerators are tried by descending rank (best_device(), Device(int),
                                     // pin_memory()); an accelerator on the host CPU ranks below cpu
  bool autocast_float16 = false;     // autocast's default dtype is float16 (PyTorch's for cuda); otherwise
                                     // float16 where the current device has fp16, else bfloat16
};
/// One registration: `backend` is null for a backend this build left out (it is still known, so
/// asking for its devices says "locus was built without CUDA").
struct Registration {
  Capabilities caps;
  Backend* backend = nullptr;
};

/// Every backend locus knows, in registration order (cpu first): the only list of device types.
const std::vector<Registration>& registrations() noexcept;
/// The accelerators among registrations(), by descending rank (registration order among equals).
std::vector<const Registration*> accelerators_by_rank();
/// The registration of type `t`, or nullptr when locus has no backend for it (mps, xla, ...).
const Registration* registration(DeviceType t) noexcept;
/// The backend registered for `t`, or nullptr when locus was built without it.
Backend* get(DeviceType t) noexcept;
/// The backend serving `d`; throws NotAvailableError when locus was built without its type.
Backend& backend_for(Device d);
/// The current stream of `d` on this thread (nullptr: the default stream; core/stream.cpp).
StreamHandle current_stream(Device d);
/// The backend's index of device `d`: the cpu device has index -1 (PyTorch's), backends count from 0.
inline int device_index(Device d) noexcept { return d.index() < 0 ? 0 : d.index(); }
/// The one registration line per backend (generated from locus_add_backend, or a test's own):
/// `b` null declares a backend that is not built. Registering a type again replaces it.
void register_backend(std::unique_ptr<Backend> b, Capabilities caps);

}  // namespace locus::backend
