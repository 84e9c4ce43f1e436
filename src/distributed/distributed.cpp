// The front end of locus::distributed: the default group, argument checks, and turning each
// collective into one Call on contiguous buffers (see process_group.h). Staging: a cpu tensor of
// the wire dtype is used in place; anything else is copied into a (pinned, for device tensors)
// host buffer with a non-blocking copy that the communication thread waits for (Storage's pending
// copy), and results are copied back by the first Work::wait().
#include <cstdlib>
#include <sstream>

#include "distributed/process_group.h"
#include "locus/autograd.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/guard.h"
#include "ops/checks.h"

namespace locus::distributed {

std::string to_string(Backend b) {
  switch (b) {
    case Backend::MPI: return "mpi";
    case Backend::NCCL: return "nccl";
    case Backend::Auto: return "auto";
  }
  return "?";
}

namespace detail {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::AllReduce: return "all_reduce";
    case Kind::Broadcast: return "broadcast";
    case Kind::AllGather: return "all_gather";
    case Kind::ReduceScatter: return "reduce_scatter";
    case Kind::Reduce: return "reduce";
    case Kind::Gather: return "gather";
    case Kind::Scatter: return "scatter";
    case Kind::Send: return "send";
    case Kind::Recv: return "recv";
    case Kind::Barrier: return "barrier";
  }
  return "?";
}
bool is_collective(Kind k) { return k != Kind::Send && k != Kind::Recv; }

std::string seconds(std::chrono::steady_clock::duration d) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << std::chrono::duration<double>(d).count() << " s";
  return os.str();
}

bool debug_enabled() {
  const char* e = std::getenv("LOCUS_DIST_DEBUG");
  return e != nullptr && std::string(e) != "0" && std::string(e) != "";
}

// ---- Work -----------------------------------------------------------------------------------
void WorkImpl::complete(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = error;
  }
  cv_.notify_all();
}

bool WorkImpl::is_completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

void WorkImpl::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  if (error_) std::rethrow_exception(error_);
  if (finished_) return;
  finished_ = true;
  auto steps = std::move(finish);
  lock.unlock();
  for (auto& f : steps) f();
}

// ---- the communication thread ---------------------------------------------------------------
GroupBase::GroupBase(int rank, int size, std::vector<int> global_ranks, std::chrono::milliseconds timeout)
    : rank_(rank), size_(size), global_ranks_(std::move(global_ranks)), timeout_(timeout) {}

GroupBase::~GroupBase() { stop(); }

void GroupBase::start() {
  thread_ = std::thread([this] { loop(); });
}

void GroupBase::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !busy_; });  // a synchronous call running on another caller's thread
}

std::shared_ptr<WorkImpl> GroupBase::enqueue(Call c, std::shared_ptr<WorkImpl> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_)
      throw DistributedError(std::string("[") + kind_name(c.kind) +
                             "] the process group was destroyed; create a new one with init_process_group().");
    queue_.emplace_back(std::move(c), work);
  }
  cv_.notify_all();
  return work;
}

namespace {
thread_local bool t_inline_call = false;
}

bool GroupBase::in_inline_call() { return t_inline_call; }

bool GroupBase::run_inline(Call& c, WorkImpl& work) {
  if (!inline_ok()) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_)
      throw DistributedError(std::string("[") + kind_name(c.kind) +
                             "] the process group was destroyed; create a new one with init_process_group().");
    if (busy_ || !queue_.empty()) return false;  // issue order: after what is queued
    busy_ = true;
  }
  t_inline_call = true;
  std::exception_ptr error = run(c);
  t_inline_call = false;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
    wake = !queue_.empty() || stopping_;
  }
  // the communication thread takes what was queued meanwhile (or stop() waits for this call);
  // woken only then (a wake-up each call cost a context switch on a 2-core machine)
  if (wake) cv_.notify_all();
  work.complete(error);
  return true;
}

void GroupBase::loop() {
  for (;;) {
    std::pair<Call, std::shared_ptr<WorkImpl>> item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return (stopping_ && queue_.empty()) || (!queue_.empty() && !busy_); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    std::exception_ptr error = run(item.first);
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
    // completed after busy_ is cleared: the woken caller's next synchronous call finds the group
    // idle and runs inline (completing first let the caller run on while this thread, preempted by
    // the wake-up, still held busy_, so the caller's next calls all took the thread hop)
    item.second->complete(error);
  }
}

std::exception_ptr GroupBase::run(Call& c) {
  if (broken_)
    return std::make_exception_ptr(DistributedError(
        std::string("[") + kind_name(c.kind) + "] the process group is unusable after an earlier failure (" +
        broken_reason_ + "); exit this process and restart the job."));
  try {
    execute(c, std::chrono::steady_clock::now());
    return nullptr;
  } catch (const DistributedError& e) {
    // A timeout or an engine failure leaves MPI requests that can never finish: the group is done.
    // A LOCUS_DIST_DEBUG mismatch is found before the collective starts: the group stays usable.
    if (std::string(e.what()).find("LOCUS_DIST_DEBUG") == std::string::npos) {
      broken_reason_ = std::string(kind_name(c.kind)) + " failed";
      broken_ = true;
    }
    return std::current_exception();
  } catch (...) {
    return std::current_exception();
  }
}

std::string GroupBase::rank_list(const std::vector<int>& group_ranks) const {
  std::string s = group_ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < group_ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(global_ranks_[group_ranks[i]]);
  return s;
}

}  // namespace detail

// ---- the default group ------------------------------------------------------------------------
namespace {
using detail::Call;
using detail::GroupBase;
using detail::Kind;
using detail::WorkImpl;

std::mutex g_mu;
std::shared_ptr<GroupBase> g_world;    // MPI world (or the NCCL group's bootstrap)
std::shared_ptr<GroupBase> g_default;  // the default group: g_world or the NCCL group
bool g_mpi_clean = true;               // no group ever failed: MPI may be finalised at exit

// At exit: stop the groups' threads, then finalise MPI (unless a failure left requests in flight).
void at_exit() {
  std::shared_ptr<GroupBase> world, def;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    world = std::move(g_world);
    def = std::move(g_default);
  }
  if (def && def->broken()) g_mpi_clean = false;
  if (world && world->broken()) g_mpi_clean = false;
  def.reset();
  world.reset();
  detail::mpi_finalize(g_mpi_clean);
}

std::chrono::milliseconds resolve_timeout(const InitOptions& o) {
  if (o.timeout) {
    if (o.timeout->count() <= 0)
      throw DistributedError("[init_process_group] timeout must be positive, got " +
                             std::to_string(o.timeout->count()) + " ms.");
    return *o.timeout;
  }
  if (const char* e = std::getenv("LOCUS_DIST_TIMEOUT")) {
    char* end = nullptr;
    double s = std::strtod(e, &end);
    if (end == e || *end != '\0' || !(s > 0))
      throw DistributedError(std::string("[init_process_group] LOCUS_DIST_TIMEOUT must be a positive number of "
                                         "seconds, got '") +
                             e + "'.");
    return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  }
  return std::chrono::minutes(10);
}

GroupBase& resolve(const Group& g, const char* op) {
  if (g) {
    auto* b = dynamic_cast<GroupBase*>(g.get());
    if (b == nullptr) throw DistributedError(std::string("[") + op + "] the group was not made by locus::distributed.");
    return *b;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_default)
    throw DistributedError(std::string("[") + op +
                           "] Default process group has not been initialized: call "
                           "locus::distributed::init_process_group() first.");
  return *g_default;
}

bool uses_device_memory(const GroupBase& g) { return g.backend() == Backend::NCCL; }

void check_tensor(const char* op, const Tensor& t, const char* what) {
  if (!t.defined()) throw DistributedError(std::string("[") + op + "] " + what + " is undefined.");
  if (!t.is_contiguous())
    throw DistributedError(std::string("[") + op + "] " + what + " must be contiguous, got shape " +
                           ops::shape_str(t.sizes()) + " with strides " + ops::shape_str(t.strides()) +
                           "; pass tensor.contiguous() (and copy the result back).");
}

void check_like(const char* op, const Tensor& t, const Tensor& ref, const std::string& what) {
  check_tensor(op, t, what.c_str());
  if (t.scalar_type() != ref.scalar_type() || t.numel() != ref.numel() || t.device() != ref.device())
    throw DistributedError(std::string("[") + op + "] " + what + " is " + dtype_name(t.scalar_type()) +
                           ops::shape_str(t.sizes()) + " on " + t.device().str() + " but the tensor is " +
                           dtype_name(ref.scalar_type()) + ops::shape_str(ref.sizes()) + " on " + ref.device().str() +
                           "; every tensor of one collective must match in dtype, size and device.");
}

// src, dst and peers are global ranks, as in torch.distributed; the engines take group ranks.
int group_rank(const char* op, int global, const GroupBase& g, const char* what) {
  std::string members;
  for (int i = 0; i < g.size(); ++i) {
    if (g.global_rank(i) == global) return i;
    members += (i ? ", " : "") + std::to_string(g.global_rank(i));
  }
  throw DistributedError(std::string("[") + op + "] " + what + " " + std::to_string(global) +
                         " is not a rank of the group (its ranks: " + members + ").");
}

void check_list_size(const char* op, const std::vector<Tensor>& l, const GroupBase& g, const char* what) {
  if (static_cast<int>(l.size()) != g.size())
    throw DistributedError(std::string("[") + op + "] " + what + " holds " + std::to_string(l.size()) +
                           " tensors but the group has " + std::to_string(g.size()) + " ranks; pass one per rank.");
}

// gather's and scatter's list: group-size tensors like `tensor` on the root, nothing elsewhere
// (PyTorch's rule and message).
void check_root_list(const char* op, const std::vector<Tensor>& list, const char* what, const Tensor& tensor,
                     const GroupBase& g, int root, const char* others, const char* root_name, int root_global) {
  if (g.rank() == root) {
    check_list_size(op, list, g, what);
    for (size_t i = 0; i < list.size(); ++i)
      check_like(op, list[i], tensor, std::string(what) + "[" + std::to_string(i) + "]");
  } else if (!list.empty()) {
    throw DistributedError(std::string("[") + op + "] Argument " + what + " must NOT be specified on " + others +
                           " ranks (this is rank " + std::to_string(g.global_rank(g.rank())) + ", " + root_name +
                           " is " + std::to_string(root_global) + ").");
  }
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::PRODUCT: return "PRODUCT";
  }
  return "?";
}

// The dtype a reduction runs in: float32 for half and bfloat16 (MPI has no such types; one
// rounding at the end is also more accurate), the tensor's own otherwise.
ScalarType wire_dtype(const char* op, ScalarType t, bool reducing, ReduceOp rop) {
  if (reducing && rop == ReduceOp::AVG && !is_floating_point(t))
    throw DistributedError(std::string("[") + op + "] ReduceOp::AVG needs a floating-point tensor, got " +
                           dtype_name(t) + "; use ReduceOp::SUM and divide.");
  if (reducing && (t == kHalf || t == kBFloat16)) return kFloat;
  return t;
}

// A host buffer holding `t`'s values in `wire` dtype (t itself when it already is one), or for
// NCCL a device buffer.
Tensor stage_in(const Tensor& t, ScalarType wire, bool device_memory) {
  if (device_memory || t.is_cpu()) return t.scalar_type() == wire ? t : t.to(wire);
  Tensor src = t.scalar_type() == wire ? t : t.to(wire);
  Tensor host;
  try {
    host = empty(t.sizes(), TensorOptions().dtype(wire).pinned_memory(true));
  } catch (const NotAvailableError&) {
    host = empty(t.sizes(), TensorOptions().dtype(wire));
  }
  host.copy_(src, /*non_blocking=*/true);  // the communication thread's data_ptr() waits for it
  return host;
}

Tensor host_empty(int64_t n, ScalarType wire, Device like, bool device_memory) {
  if (device_memory) return empty({n}, TensorOptions().dtype(wire).device(like));
  if (!like.is_cpu()) {
    try {
      return empty({n}, TensorOptions().dtype(wire).pinned_memory(true));
    } catch (const NotAvailableError&) {
    }
  }
  return empty({n}, TensorOptions().dtype(wire));
}

// Copies a result buffer back into `t` (nothing when it is t's own memory).
std::function<void()> copy_back(const Tensor& t, const Tensor& buf) {
  return [t = Tensor(t), buf]() mutable {
    if (buf.is_same(t)) return;
    NoGradGuard no_grad;  // collectives write parameters in place; they are not differentiable
    Tensor src = buf.view(t.sizes());
    if (src.scalar_type() != t.scalar_type()) src = src.to(t.scalar_type());
    t.copy_(src, /*non_blocking=*/true);
  };
}

std::string signature(const char* op, const Tensor& t, const std::string& extra) {
  std::string s = std::string(op) + "(" + dtype_name(t.scalar_type()) + ops::shape_str(t.sizes());
  if (!extra.empty()) s += ", " + extra;
  return s + ")";
}

Handle submit(GroupBase& g, Call c, std::vector<std::function<void()>> finish, bool async_op) {
  const Tensor& any = c.in.defined() ? c.in : c.out;
  if (uses_device_memory(g) && any.defined()) {
    if (!any.is_cuda())
      throw DistributedError(std::string("[") + detail::kind_name(c.kind) + "] the " + to_string(g.backend()) +
                             " process group takes cuda tensors, got a tensor on " + any.device().str() +
                             "; move it with .to(locus::kCUDA) or use a Backend::MPI process group.");
    Device d = any.device();
    c.ready = std::make_shared<Event>();
    c.ready->record(d);
    c.done = std::make_shared<Event>();
    finish.insert(finish.begin(), [done = c.done, d] { done->block(Stream::current(d)); });
  }
  auto work = std::make_shared<WorkImpl>();
  work->finish = std::move(finish);
  if (async_op || !g.run_inline(c, *work)) g.enqueue(std::move(c), work);
  if (!async_op) work->wait();
  return work;
}

Tensor pack(const std::vector<Tensor>& list) {
  std::vector<Tensor> flat;
  flat.reserve(list.size());
  for (const Tensor& t : list) flat.push_back(t.reshape({-1}));
  return cat(flat, 0);
}

std::function<void()> unpack(const std::vector<Tensor>& list, const Tensor& buf, int64_t n) {
  return [list, buf, n]() mutable {
    for (size_t i = 0; i < list.size(); ++i) copy_back(list[i], buf.narrow(0, static_cast<int64_t>(i) * n, n))();
  };
}

}  // namespace

bool is_mpi_available() { return detail::mpi_built(); }
bool is_nccl_available() { return detail::mpi_built() && detail::nccl_unavailable_reason().empty(); }
std::string unavailable_reason(Backend backend) {
  std::string mpi = detail::mpi_built() ? "" : "locus was built without MPI (LOCUS_WITH_MPI=OFF)";
  if (backend == Backend::MPI || backend == Backend::Auto || !mpi.empty()) return mpi;
  return detail::nccl_unavailable_reason();
}

void init_process_group(Backend backend, const InitOptions& options) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_default)
    throw DistributedError(
        "[init_process_group] trying to initialize the default process group twice; call "
        "destroy_process_group() first.");
  auto timeout = resolve_timeout(options);
  if (backend == Backend::Auto)
    backend = detail::nccl_unavailable_reason().empty() && default_device().is_cuda() ? Backend::NCCL : Backend::MPI;
  if (backend == Backend::NCCL) {
    std::string why = detail::nccl_unavailable_reason();
    if (!why.empty()) throw DistributedError("[init_process_group] the NCCL backend is not available: " + why);
  }
  auto world = detail::mpi_init(options, timeout);
  if (backend == Backend::NCCL) {
    g_default = detail::nccl_init(*world, timeout);
  } else {
    g_default = world;
  }
  g_world = world;
  static bool registered = false;
  if (!registered) std::atexit(at_exit);
  registered = true;
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_default != nullptr;
}

Group world() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_default;
}

void destroy_process_group(const Group& group) {
  std::shared_ptr<GroupBase> world, def;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (group && group != g_default) {
      if (auto* b = dynamic_cast<GroupBase*>(group.get())) b->stop();
      return;
    }
    if (!g_default) throw DistributedError("[destroy_process_group] Default process group has not been initialized.");
    world = std::move(g_world);
    def = std::move(g_default);
  }
  if (def->broken() || world->broken()) g_mpi_clean = false;
  def->stop();
  world->stop();
  // MPI itself stays initialised (it cannot be initialised twice): finalised at exit.
}

int get_rank(const Group& group) {
  if (!group) return resolve(group, "get_rank").rank();
  return group->rank();
}

int get_world_size(const Group& group) {
  if (!group) return resolve(group, "get_world_size").size();
  return group->size();
}

Group new_group(const std::vector<int>& ranks, std::optional<std::chrono::milliseconds> timeout) {
  if (timeout && timeout->count() <= 0)
    throw DistributedError("[new_group] timeout must be positive, got " + std::to_string(timeout->count()) + " ms.");
  GroupBase& def = resolve(nullptr, "new_group");
  std::vector<bool> seen(static_cast<size_t>(def.size()), false);
  for (int r : ranks) {
    if (r < 0 || r >= def.size())
      throw DistributedError("[new_group] rank " + std::to_string(r) + " is not in the world (size " +
                             std::to_string(def.size()) + ").");
    if (seen[static_cast<size_t>(r)])
      throw DistributedError("[new_group] rank " + std::to_string(r) + " is listed twice.");
    seen[static_cast<size_t>(r)] = true;
  }
  std::shared_ptr<GroupBase> w;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    w = g_world;
  }
  return detail::mpi_new_group(*w, ranks, timeout.value_or(w->timeout()));
}

// ---- collectives --------------------------------------------------------------------------------
Handle all_reduce(const Tensor& tensor, ReduceOp op, const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "all_reduce");
  check_tensor("all_reduce", tensor, "tensor");
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::AllReduce;
  c.op = op;
  c.dtype = wire_dtype("all_reduce", tensor.scalar_type(), true, op);
  c.in = stage_in(tensor, c.dtype, dev);
  c.count = tensor.numel();
  c.signature = signature("all_reduce", tensor, op_name(op));
  return submit(g, std::move(c), {copy_back(tensor, c.in)}, async_op);
}

Handle broadcast(const Tensor& tensor, int src, const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "broadcast");
  check_tensor("broadcast", tensor, "tensor");
  const int src_global = src;
  src = group_rank("broadcast", src, g, "src");
  Call c;
  c.kind = Kind::Broadcast;
  c.root = src;
  c.dtype = tensor.scalar_type();
  c.in = g.rank() == src
             ? stage_in(tensor, c.dtype, uses_device_memory(g))
             : (tensor.is_cpu() || uses_device_memory(g) ? tensor
                                                         : host_empty(tensor.numel(), c.dtype, tensor.device(), false));
  c.count = tensor.numel();
  c.signature = signature("broadcast", tensor, "src=" + std::to_string(src_global));
  std::vector<std::function<void()>> fin;
  if (g.rank() != src) fin.push_back(copy_back(tensor, c.in));
  return submit(g, std::move(c), std::move(fin), async_op);
}

Handle all_gather_into_tensor(const Tensor& output, const Tensor& input, const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "all_gather_into_tensor");
  check_tensor("all_gather_into_tensor", input, "input");
  check_tensor("all_gather_into_tensor", output, "output");
  if (output.numel() != input.numel() * g.size() || output.scalar_type() != input.scalar_type() ||
      output.device() != input.device())
    throw DistributedError("[all_gather_into_tensor] output is " + std::string(dtype_name(output.scalar_type())) +
                           ops::shape_str(output.sizes()) + " on " + output.device().str() + "; with input " +
                           dtype_name(input.scalar_type()) + ops::shape_str(input.sizes()) + " on " +
                           input.device().str() + " and " + std::to_string(g.size()) + " ranks it must hold " +
                           std::to_string(input.numel() * g.size()) + " elements of the input's dtype on its device.");
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::AllGather;
  c.dtype = input.scalar_type();
  c.in = stage_in(input, c.dtype, dev);
  c.out = (output.is_cpu() || dev) ? output.view({-1}) : host_empty(output.numel(), c.dtype, output.device(), false);
  c.count = input.numel();
  c.signature = signature("all_gather", input, "");
  return submit(g, std::move(c), {copy_back(output, c.out)}, async_op);
}

Handle all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor, const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "all_gather");
  check_tensor("all_gather", tensor, "tensor");
  check_list_size("all_gather", tensor_list, g, "tensor_list");
  for (size_t i = 0; i < tensor_list.size(); ++i)
    check_like("all_gather", tensor_list[i], tensor, "tensor_list[" + std::to_string(i) + "]");
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::AllGather;
  c.dtype = tensor.scalar_type();
  c.in = stage_in(tensor, c.dtype, dev);
  c.out = host_empty(tensor.numel() * g.size(), c.dtype, tensor.device(), dev);
  c.count = tensor.numel();
  c.signature = signature("all_gather", tensor, "");
  return submit(g, std::move(c), {unpack(tensor_list, c.out, tensor.numel())}, async_op);
}

Handle reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op, const Group& group,
                      bool async_op) {
  GroupBase& g = resolve(group, "reduce_scatter");
  check_tensor("reduce_scatter", output, "output");
  check_list_size("reduce_scatter", input_list, g, "input_list");
  for (size_t i = 0; i < input_list.size(); ++i)
    check_like("reduce_scatter", input_list[i], output, "input_list[" + std::to_string(i) + "]");
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::ReduceScatter;
  c.op = op;
  c.dtype = wire_dtype("reduce_scatter", output.scalar_type(), true, op);
  c.in = stage_in(pack(input_list), c.dtype, dev);
  c.out = (output.is_cpu() && output.scalar_type() == c.dtype) || (dev && output.scalar_type() == c.dtype)
              ? output.view({-1})
              : host_empty(output.numel(), c.dtype, output.device(), dev);
  c.count = output.numel();
  c.signature = signature("reduce_scatter", output, op_name(op));
  return submit(g, std::move(c), {copy_back(output, c.out)}, async_op);
}

Handle reduce(const Tensor& tensor, int dst, ReduceOp op, const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "reduce");
  check_tensor("reduce", tensor, "tensor");
  const int dst_global = dst;
  dst = group_rank("reduce", dst, g, "dst");
  Call c;
  c.kind = Kind::Reduce;
  c.op = op;
  c.root = dst;
  c.dtype = wire_dtype("reduce", tensor.scalar_type(), true, op);
  // A non-destination rank's tensor stays as it is: MPI reads it, writes nothing; NCCL reads it.
  c.in = stage_in(tensor, c.dtype, uses_device_memory(g));
  c.count = tensor.numel();
  c.signature = signature("reduce", tensor, std::string(op_name(op)) + ", dst=" + std::to_string(dst_global));
  std::vector<std::function<void()>> fin;
  if (g.rank() == dst) fin.push_back(copy_back(tensor, c.in));
  return submit(g, std::move(c), std::move(fin), async_op);
}

Handle gather(const Tensor& tensor, const std::vector<Tensor>& gather_list, int dst, const Group& group,
              bool async_op) {
  GroupBase& g = resolve(group, "gather");
  check_tensor("gather", tensor, "tensor");
  const int dst_global = dst;
  dst = group_rank("gather", dst, g, "dst");
  check_root_list("gather", gather_list, "gather_list", tensor, g, dst, "non-destination", "dst", dst_global);
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::Gather;
  c.root = dst;
  c.dtype = tensor.scalar_type();
  c.in = stage_in(tensor, c.dtype, dev);
  if (g.rank() == dst) c.out = host_empty(tensor.numel() * g.size(), c.dtype, tensor.device(), dev);
  c.count = tensor.numel();
  c.signature = signature("gather", tensor, "dst=" + std::to_string(dst_global));
  std::vector<std::function<void()>> fin;
  if (g.rank() == dst) fin.push_back(unpack(gather_list, c.out, tensor.numel()));
  return submit(g, std::move(c), std::move(fin), async_op);
}

Handle scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list, int src, const Group& group,
               bool async_op) {
  GroupBase& g = resolve(group, "scatter");
  check_tensor("scatter", tensor, "tensor");
  const int src_global = src;
  src = group_rank("scatter", src, g, "src");
  check_root_list("scatter", scatter_list, "scatter_list", tensor, g, src, "non-source", "src", src_global);
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = Kind::Scatter;
  c.root = src;
  c.dtype = tensor.scalar_type();
  if (g.rank() == src) c.in = stage_in(pack(scatter_list), c.dtype, dev);
  c.out = (tensor.is_cpu() || dev) ? tensor.view({-1}) : host_empty(tensor.numel(), c.dtype, tensor.device(), false);
  c.count = tensor.numel();
  c.signature = signature("scatter", tensor, "src=" + std::to_string(src_global));
  return submit(g, std::move(c), {copy_back(tensor, c.out)}, async_op);
}

namespace {
Handle p2p(Kind kind, const Tensor& tensor, int peer, const Group& group, int tag) {
  const char* name = detail::kind_name(kind);
  GroupBase& g = resolve(group, name);
  check_tensor(name, tensor, "tensor");
  const int peer_global = peer;
  peer = group_rank(name, peer, g, kind == Kind::Send ? "dst" : "src");
  if (peer == g.rank())
    throw DistributedError(std::string("[") + name + "] " + (kind == Kind::Send ? "dst" : "src") +
                           " is this process's own rank " + std::to_string(peer_global) + "; pick another rank.");
  if (tag < 0) throw DistributedError(std::string("[") + name + "] tag must be >= 0, got " + std::to_string(tag) + ".");
  bool dev = uses_device_memory(g);
  Call c;
  c.kind = kind;
  c.root = peer;
  c.tag = tag;
  c.dtype = tensor.scalar_type();
  c.count = tensor.numel();
  std::vector<std::function<void()>> fin;
  if (kind == Kind::Send) {
    c.in = stage_in(tensor, c.dtype, dev);
  } else {
    c.in = (tensor.is_cpu() || dev) ? tensor.view({-1}) : host_empty(tensor.numel(), c.dtype, tensor.device(), false);
    fin.push_back(copy_back(tensor, c.in));
  }
  return submit(g, std::move(c), std::move(fin), true);
}
}  // namespace

Handle isend(const Tensor& tensor, int dst, const Group& group, int tag) {
  return p2p(Kind::Send, tensor, dst, group, tag);
}
Handle irecv(const Tensor& tensor, int src, const Group& group, int tag) {
  return p2p(Kind::Recv, tensor, src, group, tag);
}
void send(const Tensor& tensor, int dst, const Group& group, int tag) { isend(tensor, dst, group, tag)->wait(); }
void recv(const Tensor& tensor, int src, const Group& group, int tag) { irecv(tensor, src, group, tag)->wait(); }

Handle barrier(const Group& group, bool async_op) {
  GroupBase& g = resolve(group, "barrier");
  Call c;
  c.kind = Kind::Barrier;
  c.signature = "barrier()";
  return submit(g, std::move(c), {}, async_op);
}

}  // namespace locus::distributed
