// The NCCL process group (cuda tensors). libnccl.so.2 is loaded at run time (dlopen), as libcuda
// is, so locus starts on machines without it; only nccl.h (from the CUDA toolkit) is needed to
// build. The communicator is bootstrapped over the MPI world group (rank 0's ncclUniqueId is
// broadcast), so NCCL jobs are launched with mpirun like MPI ones; rank r uses cuda:LOCAL_RANK.
//
// The machinery is the MPI group's (GroupBase: one Call at a time on the communication thread, in
// issue order, under the timeout): the caller records an event on its current stream when it
// issues a collective; the communication thread makes the group's own NCCL stream wait for it,
// enqueues the NCCL call, records a completion event and polls it (and ncclCommGetAsyncError)
// until it completes or the timeout passes; then the communicator is aborted and the Work fails
// with DistributedError. Work::wait() makes the caller's stream wait for the completion event.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "distributed/process_group.h"

#if defined(LOCUS_WITH_CUDA) && __has_include(<nccl.h>)
#define LOCUS_HAVE_NCCL_H 1
#include <nccl.h>

#include "backends/cuda/context.h"
#include "core/tensor_impl.h"
#include "locus/factory.h"
#include "locus/stream.h"
#endif

namespace locus::distributed::detail {

#ifndef LOCUS_HAVE_NCCL_H

std::string nccl_unavailable_reason() {
  return "locus was built without CUDA or without nccl.h (the CUDA toolkit's NCCL headers); use Backend::MPI";
}
std::shared_ptr<GroupBase> nccl_init(GroupBase&, std::chrono::milliseconds) {
  throw DistributedError("[init_process_group] the NCCL backend is not available: " + nccl_unavailable_reason());
}

#else

namespace {

// The NCCL functions locus calls, resolved from libnccl.so.2.
struct Nccl {
  ncclResult_t (*GetUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*CommAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;
  const char* (*GetErrorString)(ncclResult_t) = nullptr;
  ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*Reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                         cudaStream_t) = nullptr;
  ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  std::string reason;  // why it is unusable ("" when loaded)
};

const Nccl& nccl() {
  static const Nccl n = [] {
    Nccl x;
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      x.reason = std::string("libnccl.so.2 could not be loaded (") + (e ? e : "dlopen failed") +
                 "); install NCCL (the CUDA toolkit's or libnccl2) or use Backend::MPI";
      return x;
    }
    bool ok = true;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)> >(dlsym(lib, name));
      if (fn == nullptr && ok) {
        ok = false;
        x.reason = std::string("libnccl.so.2 lacks ") + name + " (NCCL 2.10 or newer is needed)";
      }
    };
    sym(x.GetUniqueId, "ncclGetUniqueId");
    sym(x.CommInitRank, "ncclCommInitRank");
    sym(x.CommDestroy, "ncclCommDestroy");
    sym(x.CommAbort, "ncclCommAbort");
    sym(x.CommGetAsyncError, "ncclCommGetAsyncError");
    sym(x.GetErrorString, "ncclGetErrorString");
    sym(x.AllReduce, "ncclAllReduce");
    sym(x.Broadcast, "ncclBroadcast");
    sym(x.Reduce, "ncclReduce");
    sym(x.AllGather, "ncclAllGather");
    sym(x.ReduceScatter, "ncclReduceScatter");
    sym(x.Send, "ncclSend");
    sym(x.Recv, "ncclRecv");
    sym(x.GroupStart, "ncclGroupStart");
    sym(x.GroupEnd, "ncclGroupEnd");
    return x;
  }();
  return n;
}

void check_nccl(ncclResult_t r, const char* call, const char* op) {
  if (r != ncclSuccess && r != ncclInProgress)
    throw DistributedError(std::string("[") + op + "] " + call + " failed: " + nccl().GetErrorString(r) +
                           " (ncclResult_t " + std::to_string(static_cast<int>(r)) + ").");
}

ncclDataType_t nccl_type(ScalarType t, const char* op) {
  switch (t) {
    case ScalarType::Float: return ncclFloat32;
    case ScalarType::Double: return ncclFloat64;
    case ScalarType::Half: return ncclFloat16;
    case ScalarType::BFloat16: return ncclBfloat16;
    case ScalarType::Int: return ncclInt32;
    case ScalarType::Long: return ncclInt64;
    case ScalarType::Byte:
    case ScalarType::Bool: return ncclUint8;
    default: break;
  }
  if (element_size(t) == 1) return ncclInt8;
  throw DistributedError(std::string("[") + op + "] NCCL has no type for " + dtype_name(t) + ".");
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  const bool b = t == kBool;  // 0/1 bytes: or is max, and is min
  switch (op) {
    case ReduceOp::SUM: return b ? ncclMax : ncclSum;
    case ReduceOp::AVG: return ncclAvg;
    case ReduceOp::MAX: return ncclMax;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::PRODUCT: return b ? ncclMin : ncclProd;
  }
  return ncclSum;
}

void* device_ptr(const Tensor& t) {
  const TensorImpl& i = *t.impl();
  return reinterpret_cast<char*>(cuda::dptr(i.storage->alloc.buf)) +
         i.offset * static_cast<int64_t>(element_size(i.dtype));
}

class NcclGroup : public GroupBase {
 public:
  NcclGroup(GroupBase& world, std::chrono::milliseconds timeout)
      : GroupBase(world.rank(), world.size(), ranks_of(world), timeout) {
    const char* lr = std::getenv("LOCAL_RANK") ? std::getenv("LOCAL_RANK") : std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const int count = cuda::Runtime::get().count();
    device_ = Device(kCUDA, static_cast<DeviceIndex>((lr ? std::atoi(lr) : 0) % std::max(count, 1)));
    // rank 0's unique id, broadcast over the MPI world group
    Tensor id = zeros({static_cast<int64_t>(sizeof(ncclUniqueId))}, TensorOptions().dtype(kByte));
    ncclUniqueId uid;
    if (rank_ == 0) {
      check_nccl(nccl().GetUniqueId(&uid), "ncclGetUniqueId", "init_process_group");
      std::memcpy(id.data_ptr(), &uid, sizeof uid);
    }
    auto work = std::make_shared<WorkImpl>();
    Call c;
    c.kind = Kind::Broadcast;
    c.root = 0;
    c.in = id;
    c.count = id.numel();
    c.dtype = kByte;
    c.signature = "broadcast(ncclUniqueId)";
    world.enqueue(std::move(c), work)->wait();
    std::memcpy(&uid, id.data_ptr(), sizeof uid);
    cuda::Runtime::get().bind(device_.index());
    check_nccl(nccl().CommInitRank(&comm_, size_, uid, rank_), "ncclCommInitRank", "init_process_group");
    stream_ = std::make_unique<Stream>(Stream::create(device_));
    barrier_ = zeros({1}, TensorOptions().dtype(kByte).device(device_));
    start();
  }
  ~NcclGroup() override {
    stop();
    if (comm_ != nullptr) (broken() ? nccl().CommAbort(comm_) : nccl().CommDestroy(comm_));
  }
  Backend backend() const override { return Backend::NCCL; }
  Device device() const { return device_; }

 protected:
  void execute(Call& c, std::chrono::steady_clock::time_point start) override {
    const char* op = kind_name(c.kind);
    cuda::Runtime::get().bind(device_.index());
    if (c.ready) c.ready->block(*stream_);  // inputs written by the caller's stream
    cudaStream_t s = static_cast<cudaStream_t>(stream_->handle());
    void* in = c.in.defined() ? device_ptr(c.in) : nullptr;
    void* out = c.out.defined() ? device_ptr(c.out) : nullptr;
    const size_t n = static_cast<size_t>(c.count);
    const ncclDataType_t type = nccl_type(c.dtype, op);
    const ncclRedOp_t rop = nccl_op(c.op, c.dtype);
    const size_t es = element_size(c.dtype);
    const Nccl& f = nccl();
    ncclResult_t r = ncclSuccess;
    switch (c.kind) {
      case Kind::AllReduce: r = f.AllReduce(in, in, n, type, rop, comm_, s); break;
      case Kind::Broadcast: r = f.Broadcast(in, in, n, type, c.root, comm_, s); break;
      case Kind::AllGather: r = f.AllGather(in, out, n, type, comm_, s); break;
      case Kind::ReduceScatter: r = f.ReduceScatter(in, out, n, type, rop, comm_, s); break;
      case Kind::Reduce: r = f.Reduce(in, rank_ == c.root ? in : nullptr, n, type, rop, c.root, comm_, s); break;
      case Kind::Gather:  // grouped point to point, as PyTorch's ProcessGroupNCCL
        f.GroupStart();
        if (rank_ == c.root)
          for (int p = 0; p < size_; ++p) f.Recv(static_cast<char*>(out) + p * n * es, n, type, p, comm_, s);
        r = f.Send(in, n, type, c.root, comm_, s);
        f.GroupEnd();
        break;
      case Kind::Scatter:
        f.GroupStart();
        if (rank_ == c.root)
          for (int p = 0; p < size_; ++p) f.Send(static_cast<char*>(in) + p * n * es, n, type, p, comm_, s);
        r = f.Recv(out, n, type, c.root, comm_, s);
        f.GroupEnd();
        break;
      case Kind::Send: r = f.Send(in, n, type, c.root, comm_, s); break;
      case Kind::Recv: r = f.Recv(in, n, type, c.root, comm_, s); break;
      case Kind::Barrier: {  // an all_reduce of one byte, as PyTorch's NCCL barrier
        void* b = device_ptr(barrier_);
        r = f.AllReduce(b, b, 1, ncclUint8, ncclSum, comm_, s);
        break;
      }
    }
    check_nccl(r, op, op);
    auto done = c.done ? c.done : std::make_shared<Event>();
    done->record(*stream_);
    for (;;) {
      if (done->query()) break;
      ncclResult_t async = ncclSuccess;
      f.CommGetAsyncError(comm_, &async);
      check_nccl(async, "ncclCommGetAsyncError", op);
      auto elapsed = std::chrono::steady_clock::now() - start;
      if (elapsed > timeout_)
        throw DistributedError(std::string("[") + op + "] timed out after " + seconds(elapsed) + " (timeout " +
                               seconds(timeout_) + "): " + c.signature +
                               " did not complete on the NCCL communicator (a rank that exited, crashed or stopped "
                               "calling collectives causes this); the communicator is aborted and the process group "
                               "is unusable now: exit and restart the job.");
      std::this_thread::sleep_for(std::chrono::microseconds(elapsed < std::chrono::milliseconds(20) ? 0 : 50));
    }
  }

 private:
  static std::vector<int> ranks_of(GroupBase& w) {
    std::vector<int> r;
    for (int i = 0; i < w.size(); ++i) r.push_back(w.global_rank(i));
    return r;
  }
  Device device_{kCUDA, 0};
  ncclComm_t comm_ = nullptr;
  std::unique_ptr<Stream> stream_;
  Tensor barrier_;
};

}  // namespace

std::string nccl_unavailable_reason() {
  if (!nccl().reason.empty()) return nccl().reason;
  if (cuda::Runtime::get().count() == 0)
    return "there are no CUDA devices (" + cuda::Runtime::get().reason() + "); use Backend::MPI";
  return "";
}

std::shared_ptr<GroupBase> nccl_init(GroupBase& world, std::chrono::milliseconds timeout) {
  return std::make_shared<NcclGroup>(world, timeout);
}

#endif

}  // namespace locus::distributed::detail
