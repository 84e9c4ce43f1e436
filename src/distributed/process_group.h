#pragma once
// Internals shared by the process groups (MPI in mpi.cpp, NCCL in nccl.cpp) and the front end
// (distributed.cpp). The front end checks arguments and turns every collective into one Call on
// contiguous buffers of one wire dtype (lists are packed into one buffer, half and bfloat16
// reductions run in float32, device tensors are staged through pinned host memory for MPI);
// finish steps (unpack, copy back) run on the thread that waits. A group runs its Calls one at a
// time, in issue order, each under the group's timeout: on its own communication thread, or (a
// synchronous call while nothing is queued, run_inline) on the caller's thread, which would only
// wait for the communication thread anyway: no thread hand-off, no wake-up latency.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "locus/distributed.h"
#include "locus/stream.h"

namespace locus::distributed::detail {

enum class Kind { AllReduce, Broadcast, AllGather, ReduceScatter, Reduce, Gather, Scatter, Send, Recv, Barrier };
const char* kind_name(Kind k);
bool is_collective(Kind k);  // false for send/recv

struct Call {
  Kind kind = Kind::Barrier;
  ReduceOp op = ReduceOp::SUM;
  int root = 0;  // group rank: broadcast/reduce/gather/scatter root, send/recv peer
  int tag = 0;
  // Contiguous buffers of `dtype`: `in` holds count elements (count * size for the rooted or
  // reduce_scatter input), `out` count * size (all_gather, gather) or count; in-place ops use `in`.
  // Host tensors for MPI (the comm thread reads data_ptr(), which waits for a staging copy);
  // device tensors for NCCL.
  Tensor in, out;
  int64_t count = 0;
  ScalarType dtype = kFloat;
  std::string signature;  // "all_reduce(float32[4, 4], SUM)", compared under LOCUS_DIST_DEBUG
  // Device engines (NCCL): `ready` is recorded on the caller's stream at issue; the engine
  // records `done` on its own stream after the call, and Work::wait() makes the caller's stream
  // wait for it.
  std::shared_ptr<Event> ready, done;
};

class WorkImpl : public Work {
 public:
  void wait() override;
  bool is_completed() const override;
  void complete(std::exception_ptr error);
  /// Runs on the first wait() after a successful completion (copy back, unpack).
  std::vector<std::function<void()>> finish;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false, finished_ = false;
  std::exception_ptr error_;
};

/// A group with a communication thread running Calls in order.
class GroupBase : public ProcessGroup {
 public:
  GroupBase(int rank, int size, std::vector<int> global_ranks, std::chrono::milliseconds timeout);
  ~GroupBase() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int global_rank(int r) const override { return global_ranks_.at(r); }
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// Queues `c`; the Work completes when the engine is done with it.
  std::shared_ptr<WorkImpl> enqueue(Call c, std::shared_ptr<WorkImpl> work);
  /// Runs `c` on this thread when the group allows it (inline_ok) and no Call is queued or
  /// running; false (nothing done) otherwise: enqueue it then.
  bool run_inline(Call& c, WorkImpl& work);
  /// True while this thread runs a Call for run_inline (the engine then polls without yielding:
  /// the caller waits for the result anyway, as a blocking MPI call would).
  static bool in_inline_call();
  /// Waits for queued Calls (unless broken) and stops the thread.
  void stop();
  bool broken() const { return broken_; }

 protected:
  /// Runs `c` to completion or throws DistributedError when the timeout passes. Called by one
  /// thread at a time: the communication thread, or a caller through run_inline.
  virtual void execute(Call& c, std::chrono::steady_clock::time_point start) = 0;
  /// Whether execute() may run on a caller's thread (the MPI group: its communicators are used by
  /// one thread at a time, which the queue's lock orders).
  virtual bool inline_ok() const { return false; }
  /// "ranks 1, 2" for group ranks.
  std::string rank_list(const std::vector<int>& group_ranks) const;

  int rank_, size_;
  std::vector<int> global_ranks_;
  std::chrono::milliseconds timeout_;

 private:
  void loop();
  std::exception_ptr run(Call& c);  // execute() under the group's failure rules
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Call, std::shared_ptr<WorkImpl>>> queue_;
  bool stopping_ = false;
  bool busy_ = false;  // a Call is running (on the communication thread or inline)
  std::atomic<bool> broken_{false};
  std::string broken_reason_;
  std::thread thread_;  // started by start() in the derived constructor
 protected:
  void start();
};

/// "12.3 s"
std::string seconds(std::chrono::steady_clock::duration d);
/// LOCUS_DIST_DEBUG=1
bool debug_enabled();

// Engines. Each throws DistributedError naming what is missing.
std::shared_ptr<GroupBase> mpi_init(const InitOptions& o, std::chrono::milliseconds timeout);
std::shared_ptr<GroupBase> mpi_new_group(GroupBase& world, const std::vector<int>& ranks,
                                         std::chrono::milliseconds timeout);
void mpi_finalize(bool clean);
bool mpi_built();
std::shared_ptr<GroupBase> nccl_init(GroupBase& mpi_world, std::chrono::milliseconds timeout);
/// Why NCCL cannot be used here ("" when it can).
std::string nccl_unavailable_reason();

}  // namespace locus::distributed::detail
