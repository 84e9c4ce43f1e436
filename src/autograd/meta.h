#pragma once
// Per-tensor autograd state (the graph itself lives in src/autograd).
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "locus/tensor.h"

namespace locus::autograd {

struct Node;

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;                    // accumulated gradient of a leaf
  std::shared_ptr<Node> grad_fn;  // the node that produced a non-leaf
  uint32_t output_nr = 0;         // which output of grad_fn this tensor is
  bool retains_grad = false;
  bool is_view = false;           // grad_fn made this tensor as a view of its input's storage
  // The storage version when grad_fn was set: a view (TensorImpl::view_base) whose storage was
  // written since then gets a grad_fn through its base's current history when next used
  // (gradient_edge), as PyTorch regenerates a view's grad_fn.
  uint32_t view_version = 0;
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad node, while the graph holds it
  // register_post_accumulate_grad_hook: (handle, hook), run after each accumulation into grad
  std::vector<std::pair<uint64_t, std::function<void(const Tensor&)>>> post_acc_hooks;
  // register_hook on a leaf: (handle, hook), run on each incoming gradient before accumulation
  // (a non-leaf's hooks live on its grad_fn, Node::tensor_hooks)
  std::vector<std::pair<uint64_t, std::function<Tensor(const Tensor&)>>> grad_hooks;
  uint64_t retain_grad_handle = 0;  // the retain_grad hook on grad_fn, when retains_grad
};

}  // namespace locus::autograd
