#pragma once
// Process groups and collectives, spelled as torch.distributed (docs/distributed.md).
//
// One process per device, launched by `mpirun -n N program`. init_process_group() joins the job
// (rank and world size from OpenMPI's OMPI_COMM_WORLD_* or torchrun's RANK/WORLD_SIZE, checked
// against what the engine sees). Collectives take tensors of any device and dtype: cpu tensors
// are handed to MPI in place, device tensors go through pinned host staging (NCCL, for cuda,
// reads device memory directly). Every collective runs on its process group's communication
// thread, in issue order, so the caller's compute continues; with async_op the call returns a
// Work at once, otherwise it returns after the result is in place. With async_op, the result is
// in the tensors once Work::wait() has returned (as with PyTorch's CUDA collectives).
//
// Failures are errors, never hangs: each collective has a timeout (InitOptions::timeout, default
// 10 minutes, or LOCUS_DIST_TIMEOUT seconds); when it passes, every rank still waiting throws
// DistributedError naming the collective, the ranks that did not arrive and the elapsed time,
// and the group becomes unusable. LOCUS_DIST_DEBUG=1 checks before each collective that every
// rank calls the same one with the same shapes and dtypes (TORCH_DISTRIBUTED_DEBUG=DETAIL).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locus/error.h"
#include "locus/tensor.h"

namespace locus::distributed {

using locus::DistributedError;  // what every failure here throws (locus/error.h)

/// The engine under a process group: MPI (cpu and opencl tensors), NCCL (cuda tensors), or Auto
/// (NCCL when the current default device is cuda and NCCL loads, else MPI).
enum class Backend { MPI, NCCL, Auto };
std::string to_string(Backend b);

/// Reductions, as torch.distributed.ReduceOp. AVG needs a floating-point tensor; on bool tensors
/// SUM and MAX are logical or, MIN and PRODUCT logical and.
enum class ReduceOp { SUM, AVG, MAX, MIN, PRODUCT };

struct InitOptions {
  /// Per-collective timeout; unset: LOCUS_DIST_TIMEOUT (seconds) or 10 minutes.
  std::optional<std::chrono::milliseconds> timeout;
  /// Expected rank and world size; -1: taken from the launcher's environment. A value that
  /// disagrees with what the engine sees is an error (a launch mistake, not a request).
  int rank = -1;
  int world_size = -1;
};

/// A group of ranks with its own communicator and communication thread.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  /// This process's rank in the group and the group's size.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Backend backend() const = 0;
  /// The global rank of group rank `r`.
  virtual int global_rank(int r) const = 0;
};
/// nullptr names the default (world) group.
using Group = std::shared_ptr<ProcessGroup>;

/// A collective in flight.
class Work {
 public:
  virtual ~Work() = default;
  /// Blocks until the collective is done and its result is in the output tensors; throws the
  /// collective's DistributedError (each call) if it failed.
  virtual void wait() = 0;
  /// True once the engine has finished (successfully or not); wait() still places the result.
  virtual bool is_completed() const = 0;
};

/// torch.distributed.is_mpi_available / is_nccl_available: whether the backend is built and, for
/// NCCL, libnccl loads and a CUDA device exists; unavailable_reason says why not ("" when it is).
bool is_mpi_available();
bool is_nccl_available();
std::string unavailable_reason(Backend backend);

/// Joins the job. Throws DistributedError when already initialised, when the backend is not
/// built or not loadable, or when the environment disagrees with the engine.
void init_process_group(Backend backend = Backend::Auto, const InitOptions& options = {});
bool is_initialized();
/// Finishes pending work, stops the group's thread and leaves the job (MPI is finalised when the
/// world group goes; not after a failure, which leaves MPI unusable: exit the process then).
void destroy_process_group(const Group& group = nullptr);
/// Rank and size in `group` (default: world); -1 when this process is not in it.
int get_rank(const Group& group = nullptr);
int get_world_size(const Group& group = nullptr);
/// The world group (after init_process_group).
Group world();
/// A group of the given global ranks (group rank i is ranks[i]). Every rank of the world must call
/// it; those not in `ranks` get nullptr back, as PyTorch's GroupMember.NON_GROUP_MEMBER. Its
/// collectives time out after `timeout` (default: the world's).
Group new_group(const std::vector<int>& ranks, std::optional<std::chrono::milliseconds> timeout = std::nullopt);

// ---- collectives: each returns a Work; when !async_op it has already completed. ------------------
// Tensors must be contiguous; lists hold group-size tensors of the input's shape and dtype, in
// group-rank order. src, dst and peers are global ranks (as in torch.distributed), members of `group`.
using Handle = std::shared_ptr<Work>;

/// Reduces `tensor` over the group, in place on every rank.
Handle all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::SUM, const Group& group = nullptr,
                  bool async_op = false);
/// Copies rank `src`'s tensor into every rank's tensor.
Handle broadcast(const Tensor& tensor, int src, const Group& group = nullptr, bool async_op = false);
/// tensor_list[i] receives rank i's tensor.
Handle all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor, const Group& group = nullptr,
                  bool async_op = false);
/// output (size x input's numel elements, e.g. shape [size * n, ...]) receives every rank's input.
Handle all_gather_into_tensor(const Tensor& output, const Tensor& input, const Group& group = nullptr,
                              bool async_op = false);
/// output on rank i receives the reduction of every rank's input_list[i].
Handle reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op = ReduceOp::SUM,
                      const Group& group = nullptr, bool async_op = false);
/// Reduces into rank `dst`'s tensor; the others' tensors are unchanged.
Handle reduce(const Tensor& tensor, int dst, ReduceOp op = ReduceOp::SUM, const Group& group = nullptr,
              bool async_op = false);
/// gather_list[i] on rank `dst` receives rank i's tensor; other ranks pass an empty list.
Handle gather(const Tensor& tensor, const std::vector<Tensor>& gather_list = {}, int dst = 0,
              const Group& group = nullptr, bool async_op = false);
/// Each rank's tensor receives scatter_list[rank] of rank `src`; other ranks pass an empty list.
Handle scatter(const Tensor& tensor, const std::vector<Tensor>& scatter_list = {}, int src = 0,
               const Group& group = nullptr, bool async_op = false);
/// Point to point (torch.distributed.send/recv blocking, isend/irecv returning a Work).
void send(const Tensor& tensor, int dst, const Group& group = nullptr, int tag = 0);
void recv(const Tensor& tensor, int src, const Group& group = nullptr, int tag = 0);
Handle isend(const Tensor& tensor, int dst, const Group& group = nullptr, int tag = 0);
Handle irecv(const Tensor& tensor, int src, const Group& group = nullptr, int tag = 0);
/// Returns when every rank of the group has called it.
Handle barrier(const Group& group = nullptr, bool async_op = false);

}  // namespace locus::distributed
