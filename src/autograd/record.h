#pragma once
// How ops record themselves in the autograd graph (internal).
//
// An op computes its result as usual, then, only when should_record(inputs...) is true (grad mode
// on and an input requires grad: a thread-local bool and a few pointer loads), calls one of the
// on_<op> recorders below. Each recorder makes a Node whose closure holds what the backward
// formula needs; the formulas are in formulas.cpp and are written with locus ops, so they run on
// the device of the tensors. Closures never hold the result's own TensorImpl (they save
// detach()-ed aliases), so a result and its grad_fn never form a reference cycle.
#include <functional>
#include <initializer_list>
#include <vector>

#include "autograd/meta.h"
#include "core/backend.h"
#include "core/tensor_impl.h"
#include "locus/autograd.h"

namespace locus::autograd {

namespace detail {
extern thread_local constinit bool grad_enabled;
}

/// A view made in grad mode whose base is in the graph while the view itself is not (it was made
/// before its base joined the graph): it follows its base's history (gradient_edge puts it there).
inline bool follows_base_graph(const TensorImpl* i) {
  if (i->view_base == nullptr || i->view_no_grad) return false;
  const TensorImpl* b = i->view_base.get();
  return b->autograd != nullptr && b->autograd->requires_grad && b->storage == i->storage && b->dtype == i->dtype;
}
inline bool requires_grad_fast(const Tensor& t) {
  const TensorImpl* i = t.unsafeGetTensorImpl();
  if (i == nullptr) return false;
  if (i->autograd != nullptr) return i->autograd->requires_grad || follows_base_graph(i);
  return i->view_base != nullptr && follows_base_graph(i);
}
/// True when grad mode is on and any of `ts` requires grad. Cheap; call it before recording.
template <class... T>
inline bool should_record(const T&... ts) {
  return detail::grad_enabled && (requires_grad_fast(ts) || ...);
}

/// Backward of a one-output op: the output's gradient in, one gradient per input out
/// (undefined where an input needs none).
using BackwardFn = std::function<variable_list(const Tensor& grad)>;

/// Makes `result` the output of a new node `name` (e.g. "MulBackward0") with edges to `inputs`.
/// Does nothing when grad mode is off, no input requires grad, `result` is not floating point,
/// or `result` is one of the inputs (an op that returned its input unchanged).
void record(const char* name, Tensor& result, std::initializer_list<const Tensor*> inputs, BackwardFn fn);
void record(const char* name, Tensor& result, const std::vector<const Tensor*>& inputs, BackwardFn fn);

/// The op's result as its backward formula saves it: a detach()-ed alias (no reference cycle
/// between the result and its grad_fn), which the next record() on this thread registers with its
/// node. When that node's formula runs while a graph is built (create_graph), the alias is linked
/// back to the node as its output, so second derivatives through a saved result are right (exp,
/// tanh, sigmoid, sqrt, softmax, ...). Call it just before the record() that uses it.
Tensor saved_output(const Tensor& out);

/// The edge a gradient for `t` flows into: its grad_fn, or its AccumulateGrad node for a leaf.
Edge gradient_edge(const Tensor& t);


// ---- in-place ops in the graph (PyTorch's rebase_history) ----------------------------------
// An in-place op on a tensor in the graph (or with an operand that requires grad) computes its
// result out of place from a clone of self (so the formula saves the old values), writes it into
// self's storage and makes self the output of that result's node. Each in-place write bumps the
// storage's version; a node whose saved tensor was written afterwards throws in backward.

/// Throws, before anything is written, when `self` cannot be modified in place with autograd
/// recording: a leaf that requires grad, a view of one, a view of a non-contiguous tensor in the
/// graph. A view of a tensor in the graph that is not itself in it (made under NoGradGuard, or
/// before its base joined the graph) is put in it first, so the op sees its history.
void check_inplace_graph(const char* op, const Tensor& self);
/// Makes `self` (just overwritten with `r`'s values) the output of `r`'s grad_fn. When self is a
/// view (TensorImpl::view_base), its base becomes the output of a CopySlices node instead (the
/// gradient of the written part goes to `r`, the rest to the base's previous history) and self a
/// view of it again: `outputs[t] = h`, `y.narrow(0, 1, 2).mul_(w)`.
void rebase_history(const Tensor& self, const Tensor& r);
/// After an in-place write of values that need no gradient (fill_, zero_): a tensor in the graph
/// gets a node giving its previous history zero gradient, a view of one the CopySlices above.
void rebase_constant(const Tensor& self);
/// The base of `t` when t is a view of it autograd can follow (same storage, same dtype), else null.
inline TensorImpl* view_base_of(const Tensor& t) {
  const TensorImpl* i = t.unsafeGetTensorImpl();
  if (i == nullptr || !i->view_base) return nullptr;
  TensorImpl* b = i->view_base.get();
  return b->storage == i->storage && b->dtype == i->dtype ? b : nullptr;
}
/// True when grad mode is on and `t` is a view of a tensor in the graph: an in-place op on it is
/// recorded even when neither t nor the op's operands require grad (its base's graph must learn of it).
inline bool view_of_graph(const Tensor& t) {
  if (!detail::grad_enabled) return false;
  const TensorImpl* b = view_base_of(t);
  return b != nullptr && b->autograd != nullptr && b->autograd->requires_grad;
}
/// rebase_history for a view (formulas.cpp).
void rebase_view(const Tensor& self, const Tensor& r);
/// Makes `view` (a view of a tensor in the graph) a view of its base's current history.
void refresh_view(const Tensor& view);
/// Records `nv`, a view of `base` with nv's geometry, as such (formulas.cpp).
void on_view_of_base(Tensor& nv, const Tensor& base);
/// One more in-place write to `t`'s storage.
inline void bump_version(const Tensor& t) {
  if (TensorImpl* i = t.unsafeGetTensorImpl(); i != nullptr && i->storage)
    i->storage->version.fetch_add(1, std::memory_order_relaxed);
}
/// `self` for an in-place op that computes `self.op(...)` out of place then copies it back: a
/// clone while grad mode is on and self requires grad (the op's formula may save self, which the
/// copy overwrites), else self itself.
Tensor inplace_source(const char* op, const Tensor& self);

/// `g` summed down to `shape` (undoing broadcasting), in `like`'s dtype, on `like`'s device.
Tensor reduce_grad(const Tensor& g, const Tensor& like);

// ---- recorders used by src/ops (formulas.cpp) ------------------------------------------------
void on_binary(backend::BinaryOp op, Tensor& out, const Tensor& a, const Tensor& b);
void on_binary_scalar(backend::BinaryOp op, Tensor& out, const Tensor& a, double s, bool scalar_first);
void on_unary(backend::UnaryOp op, Tensor& out, const Tensor& a, const backend::UnaryParams& p);
void on_where(Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
void on_reduce(backend::ReduceOp op, Tensor& out, const Tensor& in, const std::vector<bool>& reduced, bool keepdim,
               bool no_dim_form = false);
void on_max_dim(Tensor& values, const Tensor& in, const Tensor& indices, int64_t dim, bool keepdim);
void on_softmax(Tensor& out, const Tensor& in, int64_t dim, bool log);
void on_mm(Tensor& out, const Tensor& a, const Tensor& b);
void on_bmm(Tensor& out, const Tensor& a, const Tensor& b);
void on_addmm(Tensor& out, const Tensor& self, const Tensor& m1, const Tensor& m2, double beta, double alpha);
void on_reshape(Tensor& out, const Tensor& in);
void on_transpose(Tensor& out, const Tensor& in, int64_t d0, int64_t d1);
void on_permute(Tensor& out, const Tensor& in, IntArrayRef dims);
void on_expand(Tensor& out, const Tensor& in);
/// narrow/select/slice: `replay` applies the same view to a tensor shaped like `in`.
void on_restrict(Tensor& out, const Tensor& in, std::function<Tensor(const Tensor&)> replay);
/// as_strided: the view is of `in`'s storage, so the backward maps through storage positions.
void on_as_strided(Tensor& out, const Tensor& in);
void on_to(Tensor& out, const Tensor& in);
void on_clone(Tensor& out, const Tensor& in);
/// self.copy_(src) recorded (after the copy): self becomes the output of a CopyBackwards node.
void on_copy_(const Tensor& self, const Tensor& src);
void on_index_select(Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx);
void on_gather(Tensor& out, const Tensor& in, int64_t dim, const Tensor& idx);
void on_scatter_add(Tensor& out, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor& src);
/// scatter: self's gradient is zero where written; src (null for a scalar value) gets the gradient at index.
void on_scatter(Tensor& out, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src);
void on_cat(Tensor& out, const std::vector<const Tensor*>& parts, int64_t dim);

// One-line hooks for view functions that return their result directly.
inline Tensor reshape_hook(Tensor out, const Tensor& in) {
  if (should_record(in)) on_reshape(out, in);
  return out;
}
inline Tensor transpose_hook(Tensor out, const Tensor& in, int64_t d0, int64_t d1) {
  if (should_record(in)) on_transpose(out, in, d0, d1);
  return out;
}
inline Tensor permute_hook(Tensor out, const Tensor& in, IntArrayRef dims) {
  if (should_record(in)) on_permute(out, in, dims);
  return out;
}
inline Tensor expand_hook(Tensor out, const Tensor& in) {
  if (should_record(in)) on_expand(out, in);
  return out;
}
template <class F>
inline Tensor restrict_hook(Tensor out, const Tensor& in, F replay) {
  if (should_record(in)) on_restrict(out, in, std::move(replay));
  return out;
}

}  // namespace locus::autograd
