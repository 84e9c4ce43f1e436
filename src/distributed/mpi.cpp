// The MPI process group (OpenMPI). Design:
// - MPI is initialised once per process with MPI_THREAD_MULTIPLE when the library offers it; else
//   with MPI_THREAD_SERIALIZED and every MPI call below takes one process-wide mutex. It is
//   finalised at exit (after a failure it is not: MPI cannot be finalised with requests that will
//   never complete, so the process just exits).
// - Each group owns three communicators: `data_` for the collectives, `ctrl_` for arrival notices
//   and LOCUS_DIST_DEBUG fingerprints (both used by the one thread running a Call: the
//   communication thread, or a synchronous caller while the queue is empty, in turn under the
//   group's lock), and `split_` for new_group's MPI_Comm_split (caller's thread), so no
//   communicator is ever used by two threads at once.
// - Every collective is a non-blocking MPI call (MPI_Iallreduce, ...) polled with MPI_Test until it
//   completes or the timeout passes. On entry to collective number s a rank sends s to every peer
//   on `ctrl_` (small eager messages); the poll loop receives the peers' numbers, so on a timeout
//   the ranks whose last number is below s are the ones that did not arrive.
#define OMPI_SKIP_MPICXX 1  // the C API only (the C++ bindings are deprecated and warn)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <sstream>

#include "distributed/process_group.h"
#include "ops/checks.h"

namespace locus::distributed::detail {
namespace {

bool g_serialize = false;  // the MPI library lacks MPI_THREAD_MULTIPLE
std::mutex g_mpi_mu;

std::unique_lock<std::mutex> mpi_lock() {
  return g_serialize ? std::unique_lock<std::mutex>(g_mpi_mu) : std::unique_lock<std::mutex>();
}

std::string mpi_error(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, buf, &len);
  return std::string(buf, static_cast<size_t>(len));
}

void check_mpi(int rc, const char* call, const char* op) {
  if (rc != MPI_SUCCESS)
    throw DistributedError(std::string("[") + op + "] " + call + " failed: " + mpi_error(rc) +
                           ". A peer process may have died; the process group is unusable now.");
}

// The MPI type a reduction runs on. Integer types by signedness and size, so new dtypes map too.
MPI_Datatype reduce_type(ScalarType t, const char* op) {
  if (t == kFloat) return MPI_FLOAT;
  if (t == kDouble) return MPI_DOUBLE;
  if (t == kBool) return MPI_C_BOOL;
  if (t == kByte) return MPI_UINT8_T;
  if (is_integral(t, false) || !is_floating_point(t)) {
    switch (element_size(t)) {
      case 1: return MPI_INT8_T;
      case 2: return MPI_INT16_T;
      case 4: return MPI_INT32_T;
      case 8: return MPI_INT64_T;
    }
  }
  throw DistributedError(std::string("[") + op + "] reductions on " + dtype_name(t) + " are not supported by MPI.");
}

MPI_Op reduce_op(ReduceOp op, ScalarType t) {
  bool b = t == kBool;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return b ? MPI_LOR : MPI_SUM;
    case ReduceOp::MAX: return b ? MPI_LOR : MPI_MAX;
    case ReduceOp::MIN: return b ? MPI_LAND : MPI_MIN;
    case ReduceOp::PRODUCT: return b ? MPI_LAND : MPI_PROD;
  }
  return MPI_SUM;
}

int to_int(int64_t n, const char* op) {
  if (n > INT_MAX)
    throw DistributedError(std::string("[") + op + "] " + std::to_string(n) +
                           " elements exceed MPI's int count limit; split the tensor into smaller parts.");
  return static_cast<int>(n);
}

constexpr int kArriveTag = 1;
constexpr int kFingerprint = 256;

class MpiGroup : public GroupBase {
 public:
  MpiGroup(MPI_Comm comm, std::vector<int> global_ranks, std::chrono::milliseconds timeout)
      : GroupBase(0, 0, std::move(global_ranks), timeout), data_(comm) {
    auto lock = mpi_lock();
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    MPI_Comm_set_errhandler(data_, MPI_ERRORS_RETURN);
    MPI_Comm_dup(data_, &ctrl_);
    MPI_Comm_dup(data_, &split_);
    MPI_Comm_set_errhandler(ctrl_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(split_, MPI_ERRORS_RETURN);
    last_seq_.assign(static_cast<size_t>(size_), 0);
    arrived_.assign(static_cast<size_t>(size_), 0);
    arrive_req_.assign(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    for (int p = 0; p < size_; ++p)
      if (p != rank_) MPI_Irecv(&arrived_[p], 1, MPI_INT64_T, p, kArriveTag, ctrl_, &arrive_req_[p]);
    debug_ = debug_enabled();
    start();
  }
  ~MpiGroup() override {
    stop();
    if (broken()) return;  // requests in flight forever: leave the communicators alone
    auto lock = mpi_lock();
    for (auto& r : arrive_req_)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    for (auto& a : announces_)
      for (auto& r : a.reqs)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    MPI_Comm_free(&ctrl_);
    MPI_Comm_free(&split_);
    if (data_ != MPI_COMM_WORLD) MPI_Comm_free(&data_);
  }
  Backend backend() const override { return Backend::MPI; }
  MPI_Comm split_comm() const { return split_; }

 protected:
  bool inline_ok() const override { return true; }
  void execute(Call& c, std::chrono::steady_clock::time_point start) override {
    const char* op = kind_name(c.kind);
    const bool coll = is_collective(c.kind);
    if (coll) announce(++seq_);
    if (coll && debug_) debug_check(c, start);
    // data_ptr() waits for a staging copy still in flight into the host buffer
    void* in = c.in.defined() ? c.in.data_ptr() : nullptr;
    void* out = c.out.defined() ? c.out.data_ptr() : nullptr;
    const int n = to_int(c.count, op);
    const bool reducing = c.kind == Kind::AllReduce || c.kind == Kind::Reduce || c.kind == Kind::ReduceScatter;
    MPI_Datatype type = MPI_BYTE;
    int count = to_int(c.count * static_cast<int64_t>(element_size(c.dtype)), op);
    if (reducing) {
      type = reduce_type(c.dtype, op);
      count = n;
    }
    MPI_Op mop = reduce_op(c.op, c.dtype);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    {
      auto lock = mpi_lock();
      switch (c.kind) {
        case Kind::AllReduce: rc = MPI_Iallreduce(MPI_IN_PLACE, in, count, type, mop, data_, &req); break;
        case Kind::Broadcast: rc = MPI_Ibcast(in, count, type, c.root, data_, &req); break;
        case Kind::AllGather: rc = MPI_Iallgather(in, count, type, out, count, type, data_, &req); break;
        case Kind::ReduceScatter: rc = MPI_Ireduce_scatter_block(in, out, count, type, mop, data_, &req); break;
        case Kind::Reduce:
          rc = rank_ == c.root ? MPI_Ireduce(MPI_IN_PLACE, in, count, type, mop, c.root, data_, &req)
                               : MPI_Ireduce(in, nullptr, count, type, mop, c.root, data_, &req);
          break;
        case Kind::Gather: rc = MPI_Igather(in, count, type, out, count, type, c.root, data_, &req); break;
        case Kind::Scatter: rc = MPI_Iscatter(in, count, type, out, count, type, c.root, data_, &req); break;
        case Kind::Send: rc = MPI_Isend(in, count, type, c.root, c.tag, data_, &req); break;
        case Kind::Recv: rc = MPI_Irecv(in, count, type, c.root, c.tag, data_, &req); break;
        case Kind::Barrier: rc = MPI_Ibarrier(data_, &req); break;
      }
    }
    check_mpi(rc, op, op);
    poll(req, c, start);
    if (reducing && c.op == ReduceOp::AVG && (c.kind != Kind::Reduce || rank_ == c.root))
      divide(c.kind == Kind::ReduceScatter ? out : in, c.count, c.dtype);
  }

 private:
  struct Announce {
    int64_t value;
    std::vector<MPI_Request> reqs;
  };

  // AVG = SUM / size, on the host buffer (a plain loop: no locus op runs on this thread)
  void divide(void* p, int64_t n, ScalarType t) const {
    if (t == kFloat) {
      float* x = static_cast<float*>(p);
      for (int64_t i = 0; i < n; ++i) x[i] /= static_cast<float>(size_);
    } else if (t == kDouble) {
      double* x = static_cast<double*>(p);
      for (int64_t i = 0; i < n; ++i) x[i] /= size_;
    }
  }

  void announce(int64_t s) {
    poll_arrivals();  // notices delivered since the last call (keeps MPI's unexpected queue short)
    auto lock = mpi_lock();
    // drop notices already delivered
    while (!announces_.empty()) {
      int done = 0;
      auto& reqs = announces_.front().reqs;
      MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
      if (!done) break;
      announces_.pop_front();
    }
    announces_.push_back({s, {}});
    Announce& a = announces_.back();
    a.reqs.assign(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    for (int p = 0; p < size_; ++p)
      if (p != rank_) MPI_Isend(&a.value, 1, MPI_INT64_T, p, kArriveTag, ctrl_, &a.reqs[p]);
  }

  void poll_arrivals() {
    auto lock = mpi_lock();
    for (int p = 0; p < size_; ++p) {
      for (;;) {
        int flag = 0;
        if (arrive_req_[p] == MPI_REQUEST_NULL) break;
        if (MPI_Test(&arrive_req_[p], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) break;
        last_seq_[p] = arrived_[p];
        MPI_Irecv(&arrived_[p], 1, MPI_INT64_T, p, kArriveTag, ctrl_, &arrive_req_[p]);
      }
    }
  }

  // MPI_Test until done; the first 20 ms in a spin (progress for pipelined algorithms: libnbc
  // advances only inside MPI calls), then with short sleeps so a waiting thread does not take a
  // core from compute. The communication thread's spin yields (compute may want its core); a
  // synchronous call run on the caller's thread does not (the caller waits anyway, as in a blocking
  // MPI call, and a yield on a loaded machine can lose a whole time slice), and it goes on in a
  // yielding spin up to 1 s before sleeping (libnbc's ring makes no progress while we sleep).
  void poll(MPI_Request& req, const Call& c, std::chrono::steady_clock::time_point start) {
    const char* op = kind_name(c.kind);
    const bool inline_call = in_inline_call();
    bool tight = inline_call;
    for (uint64_t i = 1;; ++i) {
      int flag = 0;
      int rc;
      {
        auto lock = mpi_lock();
        rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      }
      check_mpi(rc, "MPI_Test", op);
      if (flag) return;
      // in a tight spin, MPI_Test back to back (as MPI_Wait does); the clock every 64th test
      if (tight && (i & 63) != 0) continue;
      auto elapsed = std::chrono::steady_clock::now() - start;
      // arrival notices only once the call is slow (they name the missing ranks on a timeout):
      // testing their requests while a fast call ran slowed it several-fold (make bench-dist)
      if ((i & 63) == 0 && elapsed >= std::chrono::milliseconds(20)) poll_arrivals();
      if (elapsed > timeout_) {
        poll_arrivals();
        throw timeout_error(c, elapsed);
      }
      if (elapsed < std::chrono::milliseconds(20)) {
        if (!tight) std::this_thread::yield();
      } else if (inline_call && elapsed < std::chrono::seconds(1)) {
        tight = false;  // a long synchronous call (tens of MiB): keep progressing, but yield
        std::this_thread::yield();
      } else {
        tight = false;
        std::this_thread::sleep_for(std::chrono::microseconds(elapsed < std::chrono::seconds(1) ? 20 : 500));
      }
    }
  }

  DistributedError timeout_error(const Call& c, std::chrono::steady_clock::duration elapsed) {
    const char* op = kind_name(c.kind);
    std::ostringstream os;
    os << "[" << op << "] timed out after " << seconds(elapsed) << " (timeout " << seconds(timeout_) << "): ";
    if (!is_collective(c.kind)) {
      os << rank_list({c.root}) << " did not " << (c.kind == Kind::Send ? "receive" : "send") << " " << c.signature
         << " with tag " << c.tag << ".";
    } else {
      std::vector<int> missing;
      for (int p = 0; p < size_; ++p)
        if (p != rank_ && last_seq_[p] < seq_) missing.push_back(p);
      if (missing.empty()) {
        os << "every rank reached collective #" << seq_ << " (" << c.signature
           << ") but it did not complete (ranks calling different collectives? run with LOCUS_DIST_DEBUG=1).";
      } else {
        os << rank_list(missing) << " did not arrive at collective #" << seq_ << " (" << c.signature << "; ";
        for (size_t i = 0; i < missing.size(); ++i)
          os << (i ? ", " : "") << "rank " << global_ranks_[missing[i]] << " is at #" << last_seq_[missing[i]];
        os << ").";
      }
    }
    os << " A rank that exited, crashed or stopped calling collectives causes this (see its output); the process "
          "group is unusable now: exit and restart the job.";
    return DistributedError(os.str());
  }

  // LOCUS_DIST_DEBUG: every rank shares what it is about to call; the first rank that differs
  // from rank 0 is named, on every rank.
  void debug_check(const Call& c, std::chrono::steady_clock::time_point start) {
    std::vector<char> mine(kFingerprint, 0), all(static_cast<size_t>(kFingerprint) * size_, 0);
    std::string s = c.signature.empty() ? std::string(kind_name(c.kind)) : c.signature;
    std::memcpy(mine.data(), s.data(), std::min<size_t>(s.size(), kFingerprint - 1));
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    {
      auto lock = mpi_lock();
      rc = MPI_Iallgather(mine.data(), kFingerprint, MPI_CHAR, all.data(), kFingerprint, MPI_CHAR, ctrl_, &req);
    }
    check_mpi(rc, "MPI_Iallgather", kind_name(c.kind));
    poll(req, c, start);
    std::string first(all.data());
    for (int p = 1; p < size_; ++p) {
      std::string other(all.data() + static_cast<size_t>(p) * kFingerprint);
      if (other != first)
        throw DistributedError("[" + std::string(kind_name(c.kind)) + "] LOCUS_DIST_DEBUG: collective #" +
                               std::to_string(seq_) + " differs between ranks: rank " +
                               std::to_string(global_ranks_[0]) + " called " + first + " but rank " +
                               std::to_string(global_ranks_[p]) + " called " + other +
                               ". Every rank must call the same collectives in the same order with the same shapes "
                               "and dtypes.");
    }
  }

  MPI_Comm data_ = MPI_COMM_NULL, ctrl_ = MPI_COMM_NULL, split_ = MPI_COMM_NULL;
  bool debug_ = false;
  int64_t seq_ = 0;
  std::vector<int64_t> last_seq_, arrived_;
  std::vector<MPI_Request> arrive_req_;
  std::deque<Announce> announces_;
};

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0)
    throw DistributedError(std::string("[init_process_group] ") + name + " must be a non-negative integer, got '" + v +
                           "'.");
  return static_cast<int>(x);
}

void check_agrees(const char* what, int expected, int actual, const char* source) {
  if (expected >= 0 && expected != actual)
    throw DistributedError(std::string("[init_process_group] ") + source + " gives " + what + " " +
                           std::to_string(expected) + " but MPI sees " + std::to_string(actual) +
                           ". Launch with `mpirun -n N program` (locus's process groups start on MPI).");
}

}  // namespace

bool mpi_built() { return true; }

std::shared_ptr<GroupBase> mpi_init(const InitOptions& o, std::chrono::milliseconds timeout) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
#ifdef OMPI_MAJOR_VERSION
    // locus's collectives are non-blocking calls polled under a timeout, and OpenMPI's default
    // MPI_Iallreduce schedule (libnbc's binomial/recursive choice) reached half the bandwidth of the
    // blocking MPI_Allreduce at 1 MiB and above; its ring schedule matches it (docs/distributed.md,
    // make bench-dist). The user's own setting, in the environment or mpirun's --mca, wins.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", /*overwrite=*/0);
#endif
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS)
      throw DistributedError("[init_process_group] MPI_Init_thread failed: " + mpi_error(rc) + ".");
    if (provided < MPI_THREAD_SERIALIZED)
      throw DistributedError(
          "[init_process_group] the MPI library offers thread level " + std::to_string(provided) +
          "; locus needs MPI_THREAD_SERIALIZED or better (its collectives run on their own thread).");
    g_serialize = provided < MPI_THREAD_MULTIPLE;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_agrees("rank", env_int("RANK"), rank, "RANK");
  check_agrees("world size", env_int("WORLD_SIZE"), size, "WORLD_SIZE");
  check_agrees("rank", o.rank, rank, "InitOptions::rank");
  check_agrees("world size", o.world_size, size, "InitOptions::world_size");
  std::vector<int> ranks(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) ranks[i] = i;
  MPI_Comm comm;
  {
    auto lock = mpi_lock();
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  }
  return std::make_shared<MpiGroup>(comm, ranks, timeout);
}

std::shared_ptr<GroupBase> mpi_new_group(GroupBase& world, const std::vector<int>& ranks,
                                         std::chrono::milliseconds timeout) {
  auto* w = dynamic_cast<MpiGroup*>(&world);
  if (w == nullptr) throw DistributedError("[new_group] the world group is not an MPI group.");
  int color = MPI_UNDEFINED, key = 0;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] == w->rank()) color = 0, key = static_cast<int>(i);
  MPI_Comm comm = MPI_COMM_NULL;
  int rc;
  {
    auto lock = mpi_lock();
    rc = MPI_Comm_split(w->split_comm(), color, key, &comm);
  }
  check_mpi(rc, "MPI_Comm_split", "new_group");
  if (comm == MPI_COMM_NULL) return nullptr;
  std::vector<int> global;
  for (int r : ranks) global.push_back(w->global_rank(r));
  return std::make_shared<MpiGroup>(comm, global, timeout);
}

void mpi_finalize(bool clean) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized && clean) MPI_Finalize();
}

}  // namespace locus::distributed::detail
