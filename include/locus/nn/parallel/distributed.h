#pragma once
// nn::parallel::DistributedDataParallel: one process per device, gradients averaged over a process
// group while backward runs (PyTorch's torch.nn.parallel.DistributedDataParallel).
//
// At construction rank 0's parameters and buffers are broadcast to every rank (and the ranks'
// parameter shapes compared). Parameters are grouped into buckets of about bucket_cap_mb (the
// first at most 1 MiB, so communication starts early, as PyTorch's), in reverse registration order
// (roughly the order backward produces their gradients); during backward a post-accumulate-grad
// hook marks each gradient ready, and when a bucket's last one is, the bucket is flattened and its
// all_reduce(AVG) launched asynchronously, so communication overlaps the rest of backward. At the
// end of backward (an engine final callback) every bucket is waited for and the averages written
// back into .grad: when backward() returns, the optimizer may step.
//
//   auto ddp = std::make_shared<nn::parallel::DistributedDataParallel<nn::Sequential>>(model);
//   auto loss = nn::functional::cross_entropy(ddp->forward(x), y);
//   loss.backward();   // gradients averaged over the ranks
//   { auto guard = ddp->no_sync(); ... }   // accumulate locally, no communication
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "locus/distributed.h"
#include "locus/nn/module.h"

namespace locus::nn::parallel {

struct DistributedDataParallelOptions {
  /// Bucket size in MiB (PyTorch's default 25).
  LOCUS_ARG(double, bucket_cap_mb) = 25;
  /// Broadcast rank 0's buffers (e.g. BatchNorm statistics) before each forward.
  LOCUS_ARG(bool, broadcast_buffers) = true;
  /// Allow parameters that receive no gradient in a backward pass (they count as zero; one that
  /// no rank used keeps an undefined .grad). Without it such a pass throws PyTorch's error.
  LOCUS_ARG(bool, find_unused_parameters) = false;
  /// The group to average over (nullptr: the default group).
  LOCUS_ARG(distributed::Group, process_group) = nullptr;
};

namespace detail {
class Reducer;
std::shared_ptr<Reducer> make_reducer(Module& module, const DistributedDataParallelOptions& options);
void prepare_forward(Reducer& r);
void set_require_sync(Reducer& r, bool on);
bool require_sync(const Reducer& r);
/// Buckets as lists of parameter indices (registration order), in launch order.
std::vector<std::vector<size_t>> bucket_indices(const Reducer& r);
template <class C>
std::shared_ptr<Module> module_ptr(const ModuleHolder<C>& h) {
  return h.ptr();
}
template <class M>
std::shared_ptr<Module> module_ptr(const std::shared_ptr<M>& p) {
  return p;
}
}  // namespace detail

/// Turns off gradient averaging for the backward passes of forwards run inside its scope
/// (PyTorch's `with ddp.no_sync()`); the next synchronised backward averages the accumulated grads.
class NoSyncGuard {
 public:
  explicit NoSyncGuard(std::shared_ptr<detail::Reducer> r) : r_(std::move(r)), prev_(detail::require_sync(*r_)) {
    detail::set_require_sync(*r_, false);
  }
  ~NoSyncGuard() { detail::set_require_sync(*r_, prev_); }
  NoSyncGuard(const NoSyncGuard&) = delete;
  NoSyncGuard& operator=(const NoSyncGuard&) = delete;

 private:
  std::shared_ptr<detail::Reducer> r_;
  bool prev_;
};

/// `ModuleType`: a module holder (nn::Sequential, nn::Linear, ...) or a shared_ptr to a module
/// with a forward(). The wrapped module is registered as "module" (state_dict keys
/// "module.<name>", as PyTorch's).
template <class ModuleType>
class DistributedDataParallel : public Module {
 public:
  explicit DistributedDataParallel(ModuleType module_, DistributedDataParallelOptions options = {})
      : Module("locus::nn::parallel::DistributedDataParallel"), module(std::move(module_)) {
    register_module("module", detail::module_ptr(module));
    reducer_ = detail::make_reducer(*detail::module_ptr(module), options);
  }

  /// Broadcasts buffers (broadcast_buffers) and runs the wrapped module's forward.
  template <class... Args>
  auto forward(Args&&... args) {
    detail::prepare_forward(*reducer_);
    return module->forward(std::forward<Args>(args)...);
  }
  template <class... Args>
  auto operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(reducer_); }
  /// The buckets, as parameter indices (for tests and tuning).
  std::vector<std::vector<size_t>> buckets() const { return detail::bucket_indices(*reducer_); }

  ModuleType module;

 private:
  std::shared_ptr<detail::Reducer> reducer_;
};

}  // namespace locus::nn::parallel
