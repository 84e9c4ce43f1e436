#pragma once
// Reverse-mode automatic differentiation, spelled as libtorch's.
//
// Every differentiable op, when grad mode is on and an input requires grad, records a Node in
// the graph: the output's grad_fn. backward() walks the graph from the outputs, in reverse order
// of creation, and accumulates gradients into the .grad of leaves (tensors made by the user with
// requires_grad). Gradients live on the device of the tensor they belong to; a gradient that
// would arrive on another device raises DeviceMismatchError instead of being moved silently.
//
// Saved tensors are released after a backward pass unless retain_graph is true; walking the same
// graph again then fails with PyTorch's message.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locus/tensor.h"

namespace locus {

/// Whether ops record the autograd graph on this thread (on by default).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled);
  ~AutoGradMode();
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

/// Disables graph recording for a scope (torch::NoGradGuard; Python's `with torch.no_grad()`).
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// libtorch's c10::InferenceMode: grad mode off for the scope (InferenceMode(false): on), and
/// InferenceMode::is_enabled() true inside. locus has no separate inference tensors: tensors made
/// inside are ordinary ones without history (libtorch refuses some later uses of its inference
/// tensors that locus allows).
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true) : grad_(!enabled), previous_(current()) { current() = enabled; }
  ~InferenceMode() { current() = previous_; }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled() { return current(); }

 private:
  static bool& current() {
    thread_local bool enabled = false;
    return enabled;
  }
  AutoGradMode grad_;
  bool previous_;
};

namespace autograd {

// libtorch spells these torch::autograd::GradMode and torch::autograd::AutoGradMode as well
using ::locus::AutoGradMode;
using ::locus::GradMode;

using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;

/// Anomaly detection (libtorch's torch::autograd::AnomalyMode; process-wide): while enabled,
/// backward checks the gradients each node returns and throws, naming the node, at the first that
/// holds a NaN ("Function 'DivBackward0' returned nan values in its 0th output."), instead of
/// letting the NaN reach the parameters. Each check reads the gradient back (slow; for debugging).
struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};
/// Anomaly detection on for a scope, restored on exit (libtorch's DetectAnomalyGuard).
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_enabled_, previous_check_nan_;
};

/// Where a gradient goes: input `input_nr` of `function` (empty when the input needs no gradient).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

/// A function in the backward graph. apply() takes one gradient per output of the forward op
/// and returns one gradient (possibly undefined) per next edge, i.e. per forward input.
struct Node {
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// "AddBackward0", "MmBackward0", "AccumulateGrad", ... as PyTorch names them.
  virtual std::string name() const = 0;
  virtual variable_list apply(variable_list&& grads) = 0;
  /// Frees saved tensors (called after a backward pass without retain_graph).
  virtual void release_variables() {}

  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_.at(i); }
  size_t num_inputs() const { return next_edges_.size(); }
  /// Creation order; later nodes run first in backward.
  uint64_t sequence_nr() const { return sequence_nr_; }

  /// Hooks on the gradients of this node's outputs (Tensor::register_hook and retain_grad on a
  /// non-leaf tensor): run by the engine on grads[output_nr] before apply(), in order; a defined
  /// result replaces the gradient.
  struct TensorHook {
    uint32_t output_nr;
    uint64_t handle;
    std::function<Tensor(const Tensor&)> fn;
  };
  std::vector<TensorHook>& tensor_hooks() { return tensor_hooks_; }

 protected:
  std::vector<TensorHook> tensor_hooks_;
  std::vector<Edge> next_edges_;
  uint64_t sequence_nr_;
};

/// Computes the gradients of `outputs` with respect to `inputs` (not accumulated into .grad).
/// grad_outputs defaults to ones for one-element outputs. With create_graph the result is
/// itself differentiable. allow_unused: an input the outputs do not depend on gives an undefined
/// tensor instead of an error.
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

/// Accumulates the gradients of `tensors` into the .grad of the leaves they depend on.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

/// PyTorch's Tensor.register_post_accumulate_grad_hook: `hook(leaf)` runs each time a backward
/// pass has accumulated a gradient into the leaf's .grad (on the thread running backward). Returns
/// a handle for remove_post_accumulate_grad_hook. Throws for a tensor that is not a leaf
/// requiring grad.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;
uint64_t register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook);
void remove_post_accumulate_grad_hook(const Tensor& leaf, uint64_t handle);

/// PyTorch's Variable._execution_engine.queue_callback: runs `fn` once the current backward pass
/// has run every node (before backward() returns), on the same thread, in the order queued.
/// Only valid while a backward pass runs (from a hook); throws otherwise.
void queue_callback(std::function<void()> fn);

}  // namespace autograd
}  // namespace locus
