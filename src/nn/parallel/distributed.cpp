// DistributedDataParallel's reducer (PyTorch's torch/csrc/distributed/c10d/reducer.cpp, reduced).
// Buckets hold parameters of one device and dtype, filled in reverse registration order up to
// bucket_cap_mb (the first one up to 1 MiB, as PyTorch's). Per backward pass: a post-accumulate-
// grad hook marks parameter i ready; buckets are launched strictly in bucket order (so every rank
// issues the same collective sequence) as soon as all their parameters are ready: the gradients
// are copied into the bucket's flat tensor and all_reduce(AVG) starts asynchronously. The
// engine's final callback launches what is left (unused parameters, with find_unused_parameters),
// waits for every bucket in order and copies the averages back into .grad.
#include "locus/nn/parallel/distributed.h"

#include <algorithm>
#include <sstream>

#include "locus/autograd.h"
#include "locus/factory.h"

namespace locus::nn::parallel::detail {

namespace dist = locus::distributed;

class Reducer {
 public:
  Reducer(Module& module, const DistributedDataParallelOptions& o) : options_(o), group_(o.process_group()) {
    if (!dist::is_initialized())
      throw dist::DistributedError(
          "[DistributedDataParallel] Default process group has not been initialized: call "
          "locus::distributed::init_process_group() first.");
    if (!(o.bucket_cap_mb() > 0))
      throw Error("[DistributedDataParallel] bucket_cap_mb must be positive, got " + std::to_string(o.bucket_cap_mb()) +
                  ".");
    for (const auto& item : module.named_parameters()) {
      if (!item.value().requires_grad()) continue;
      names_.push_back(item.key());
      params_.push_back(item.value());
    }
    for (const auto& item : module.named_buffers()) buffers_.push_back(item.value());
    if (params_.empty())
      throw Error(
          "[DistributedDataParallel] DistributedDataParallel is not needed when a module doesn't have any "
          "parameter that requires a gradient.");
    verify_shapes();
    sync_from_rank0();
    build_buckets();
    for (size_t i = 0; i < params_.size(); ++i)
      hooks_.push_back(
          autograd::register_post_accumulate_grad_hook(params_[i], [this, i](const Tensor&) { grad_ready(i); }));
    ready_.assign(params_.size(), false);
  }

  ~Reducer() {
    for (size_t i = 0; i < params_.size(); ++i) autograd::remove_post_accumulate_grad_hook(params_[i], hooks_[i]);
  }

  void prepare_forward() {
    if (callback_queued_) {  // the last backward pass failed before its final callback ran
      try {
        wait_launched();
      } catch (const Error&) {
        // that pass's error was already thrown from backward()
      }
      reset_pass();
    }
    sync_this_pass_ = require_sync_;
    if (options_.broadcast_buffers() && !buffers_.empty() && dist::get_world_size(group_) > 1) {
      NoGradGuard ng;
      std::vector<dist::Handle> works;
      for (Tensor& b : buffers_) works.push_back(dist::broadcast(b, root(), group_, true));
      for (auto& w : works) w->wait();
    }
  }

  // the group's first rank, as a global rank (rank 0 of the default group)
  int root() const { return group_ ? group_->global_rank(0) : 0; }

  bool require_sync_ = true;
  std::vector<std::vector<size_t>> bucket_params() const {
    std::vector<std::vector<size_t>> out;
    for (const Bucket& b : buckets_) out.push_back(b.params);
    return out;
  }

 private:
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;
    int64_t numel = 0;
    Tensor flat;
    size_t pending = 0;
    dist::Handle work;
  };

  // The ranks must hold the same model: compare parameter count and each shape's size.
  void verify_shapes() {
    std::vector<int64_t> sig{static_cast<int64_t>(params_.size())};
    for (const Tensor& p : params_) sig.push_back(p.numel());
    int world = dist::get_world_size(group_);
    Tensor n = full({1}, static_cast<int64_t>(sig.size()), TensorOptions().dtype(kLong));
    Tensor mx = n.clone(), mn = n.clone();
    dist::all_reduce(mx, dist::ReduceOp::MAX, group_);
    dist::all_reduce(mn, dist::ReduceOp::MIN, group_);
    bool same = mx.item<int64_t>() == mn.item<int64_t>();
    if (same) {
      Tensor mine = from_blob(sig.data(), {static_cast<int64_t>(sig.size())}, TensorOptions().dtype(kLong)).clone();
      Tensor all = empty({world * static_cast<int64_t>(sig.size())}, TensorOptions().dtype(kLong));
      dist::all_gather_into_tensor(all, mine, group_);
      for (int r = 0; r < world; ++r)
        if (!all.narrow(0, r * static_cast<int64_t>(sig.size()), static_cast<int64_t>(sig.size())).equal(mine)) {
          same = false;
          break;
        }
    }
    if (!same)
      throw dist::DistributedError("[DistributedDataParallel] the ranks hold different models: this rank has " +
                                   std::to_string(params_.size()) + " parameters that require grad (" +
                                   std::to_string(total_numel()) +
                                   " elements) and another rank differs. DDP needs the same module on every rank.");
  }

  int64_t total_numel() const {
    int64_t n = 0;
    for (const Tensor& p : params_) n += p.numel();
    return n;
  }

  void sync_from_rank0() {
    if (dist::get_world_size(group_) == 1) return;
    NoGradGuard ng;
    std::vector<dist::Handle> works;
    for (Tensor& p : params_) works.push_back(dist::broadcast(p, root(), group_, true));
    for (Tensor& b : buffers_) works.push_back(dist::broadcast(b, root(), group_, true));
    for (auto& w : works) w->wait();
  }

  void build_buckets() {
    const int64_t cap = static_cast<int64_t>(options_.bucket_cap_mb() * 1024 * 1024);
    bucket_of_.assign(params_.size(), 0);
    std::vector<int> open;  // index into buckets_ of the open bucket per (device, dtype) seen
    std::vector<std::pair<Device, ScalarType>> keys;
    std::vector<bool> first;  // the open bucket of this kind is its first
    for (size_t k = params_.size(); k-- > 0;) {
      const Tensor& p = params_[k];
      std::pair<Device, ScalarType> key{p.device(), p.scalar_type()};
      size_t slot = 0;
      while (slot < keys.size() && keys[slot] != key) ++slot;
      if (slot == keys.size()) {
        keys.push_back(key);
        open.push_back(-1);
        first.push_back(true);
      }
      int b = open[slot];
      // the first bucket of a kind holds at most 1 MiB (PyTorch's first_bucket_bytes_cap), so the
      // first all-reduce starts early in backward, when the last layers' gradients are ready
      const int64_t limit = first[slot] ? std::min<int64_t>(cap, 1 << 20) : cap;
      if (b >= 0 && buckets_[b].numel > 0 &&
          (buckets_[b].numel + p.numel()) * static_cast<int64_t>(p.element_size()) > limit) {
        b = -1;
        first[slot] = false;
      }
      if (b < 0) {
        buckets_.emplace_back();
        b = static_cast<int>(buckets_.size()) - 1;
        open[slot] = b;
      }
      Bucket& bk = buckets_[b];
      bk.params.push_back(k);
      bk.offsets.push_back(bk.numel);
      bk.numel += p.numel();
      bucket_of_[k] = static_cast<size_t>(b);
    }
    for (Bucket& b : buckets_) {
      const Tensor& p = params_[b.params[0]];
      b.flat = empty({b.numel}, TensorOptions().dtype(p.scalar_type()).device(p.device()));
      b.pending = b.params.size();
    }
  }

  void grad_ready(size_t i) {
    if (!sync_this_pass_) return;
    if (!callback_queued_) {
      autograd::queue_callback([this] { finalize(); });
      callback_queued_ = true;
    }
    if (ready_[i]) return;
    ready_[i] = true;
    --buckets_[bucket_of_[i]].pending;
    launch_ready();
  }

  void launch_ready() {
    while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) launch(buckets_[next_bucket_++]);
  }

  void launch(Bucket& b) {
    NoGradGuard ng;
    for (size_t j = 0; j < b.params.size(); ++j) {
      const Tensor& p = params_[b.params[j]];
      Tensor slot = b.flat.narrow(0, b.offsets[j], p.numel());
      const Tensor& g = p.grad();
      if (g.defined())
        slot.copy_(g.reshape({-1}));
      else
        slot.zero_();
    }
    b.work = dist::all_reduce(b.flat, dist::ReduceOp::AVG, group_, true);
  }

  void reset_pass() {
    std::fill(ready_.begin(), ready_.end(), false);
    for (Bucket& b : buckets_) {
      b.pending = b.params.size();
      b.work.reset();
    }
    next_bucket_ = 0;
    callback_queued_ = false;
  }

  void wait_launched() {
    for (size_t k = 0; k < next_bucket_; ++k)
      if (buckets_[k].work) buckets_[k].work->wait();
  }

  void finalize() {
    std::vector<size_t> unused;
    for (size_t i = 0; i < params_.size(); ++i)
      if (!ready_[i]) unused.push_back(i);
    try {
      if (!unused.empty() && !options_.find_unused_parameters()) {
        wait_launched();
        std::ostringstream os;
        os << "[DistributedDataParallel] Expected to have finished reduction in the prior iteration before starting a "
              "new one. This error indicates that your module has parameters that were not used in producing loss. "
              "You can enable unused parameter detection by passing find_unused_parameters(true) to "
              "DistributedDataParallelOptions, and by making sure all forward function outputs participate in "
              "calculating loss. Parameter indices which did not receive grad for rank "
           << dist::get_rank(group_) << ":";
        for (size_t i : unused) os << " " << i;
        os << " (";
        for (size_t k = 0; k < unused.size(); ++k) os << (k ? ", " : "") << names_[unused[k]];
        os << ").";
        throw Error(os.str());
      }
      // globally used parameters (find_unused_parameters): a bitmap summed over the ranks
      Tensor used;
      if (options_.find_unused_parameters()) {
        used = empty({static_cast<int64_t>(params_.size())}, TensorOptions().dtype(kInt));
        int32_t* u = used.data_ptr<int32_t>();
        for (size_t i = 0; i < params_.size(); ++i) u[i] = ready_[i] ? 1 : 0;
        for (size_t i : unused) {
          ready_[i] = true;
          --buckets_[bucket_of_[i]].pending;
        }
      }
      launch_ready();
      if (used.defined()) dist::all_reduce(used, dist::ReduceOp::MAX, group_);
      NoGradGuard ng;
      for (Bucket& b : buckets_) {
        b.work->wait();
        for (size_t j = 0; j < b.params.size(); ++j) {
          size_t i = b.params[j];
          Tensor& p = params_[i];
          Tensor avg = b.flat.narrow(0, b.offsets[j], p.numel()).view(p.sizes());
          if (used.defined() && used.data_ptr<int32_t>()[i] == 0) continue;  // no rank used it
          if (p.grad().defined())
            p.mutable_grad().copy_(avg);
          else
            p.set_grad(avg.clone());
        }
      }
    } catch (...) {
      reset_pass();
      throw;
    }
    reset_pass();
  }

  DistributedDataParallelOptions options_;
  dist::Group group_;
  std::vector<std::string> names_;
  std::vector<Tensor> params_, buffers_;
  std::vector<uint64_t> hooks_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;
  std::vector<bool> ready_;
  size_t next_bucket_ = 0;
  bool callback_queued_ = false;
  bool sync_this_pass_ = true;
};

std::shared_ptr<Reducer> make_reducer(Module& module, const DistributedDataParallelOptions& options) {
  return std::make_shared<Reducer>(module, options);
}
void prepare_forward(Reducer& r) { r.prepare_forward(); }
void set_require_sync(Reducer& r, bool on) { r.require_sync_ = on; }
bool require_sync(const Reducer& r) { return r.require_sync_; }
std::vector<std::vector<size_t>> bucket_indices(const Reducer& r) { return r.bucket_params(); }

}  // namespace locus::nn::parallel::detail
