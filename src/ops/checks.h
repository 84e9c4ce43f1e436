#pragma once
// What the device-neutral op code shares: device and overlap checks, broadcasting, the kernels'
// views of tensors (TensorRef) and their coalescing. The backend lookup lives in core/backend.h.
#include <initializer_list>
#include <utility>

#include "core/backend.h"
#include "core/checks.h"
#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/stream.h"

namespace locus::ops {

using backend::backend_for;
using backend::current_stream;
using backend::device_index;
using locus::Arg;
using locus::check_same_device;
using locus::is_cpu_scalar;
using locus::shape_str;

/// PyTorch's memory-overlap checks for an op that writes `out` in place (or copies into it): two
/// of out's elements in one memory location (a dim of size > 1 with stride 0, as expand() makes)
/// is an error, and so is an input that overlaps out only partly (same storage, intersecting
/// ranges, not the very same elements): the result would depend on the order the kernel visits
/// them. As in PyTorch, only dense (here: contiguous) views are judged; others pass.
void check_no_internal_overlap(const char* op, const Tensor& out);
/// same_ok false: the very same elements are refused too (ops that read an input out of order
/// while writing, as scatter_add_).
void check_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in, bool same_ok = true);
/// Where `t`'s first element lives (waits for a pending copy into it first): what a caller that
/// describes the layout itself (a GEMM) needs, without building a whole TensorRef.
backend::Buffer buffer(const Tensor& t);
/// The kernel's view of `t` (waits for a pending copy into it first). At most kMaxDims dims.
backend::TensorRef ref(const Tensor& t, const char* op);
/// `t`'s view broadcast to `sizes` (stride 0 on broadcast dims), at most kMaxDims dims.
backend::TensorRef ref_broadcast(const Tensor& t, IntArrayRef sizes, const char* op);
/// Merges dimensions that are contiguous in every operand (same sizes in all).
void coalesce(backend::TensorRef* refs[], int n);
/// A contiguous tensor as one dense run of numel elements (1-D): the cheapest ref to build.
backend::TensorRef ref_flat(const Tensor& t);

/// Shape of broadcasting a and b, or an error naming the op and both shapes.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

/// `t` converted to `dtype` on its own device (the same tensor when it already has it).
Tensor cast(const Tensor& t, ScalarType dtype);

/// PyTorch's checked conversion of a scalar operand into an integer dtype narrower than int64:
/// a value outside the dtype's range is an error naming `op`, the value and the range (a tensor
/// operand wraps instead; only scalars are checked, as in PyTorch).
void check_scalar_fits(const char* op, double value, ScalarType dtype);

}  // namespace locus::ops
