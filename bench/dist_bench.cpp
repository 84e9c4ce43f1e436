// make bench-dist (docs/distributed.md): run under `mpirun -n N`.
//  1. all_reduce(SUM) bus bandwidth, float32, 1 KiB to 64 MiB: locus::distributed::all_reduce
//     against the same reduction made directly with MPI_Allreduce (and MPI_Iallreduce + MPI_Wait,
//     the call locus makes), on the same buffer, interleaved repetitions. "locus" is the
//     synchronous all_reduce (run on the caller's thread); "locus async" is
//     all_reduce(async_op=true)->wait(), handed to the communication thread. Ratios are
//     MPI_Allreduce's time / locus's. Bus bandwidth as nccl-tests defines it:
//     bytes * 2 (n - 1) / n / time.
//  2. A DistributedDataParallel step (MLP 784-1024-1024-1024-10, batch 64 per rank, SGD): step time with
//     DDP, the same step without communication (no_sync), and the all-reduce of every gradient
//     alone, interleaved; the share of the all-reduce hidden behind backward is
//     1 - (ddp - no_sync) / all_reduce, printed unclamped (see report below).
#define OMPI_SKIP_MPICXX 1  // the C API only (the C++ bindings are deprecated and warn)
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "locus/distributed.h"
#include "locus/locus.h"
#include "locus/nn/parallel/distributed.h"

namespace dist = locus::distributed;
using namespace locus;
using Clock = std::chrono::steady_clock;

namespace {

double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// Seconds one call of `fn` takes, the ranks starting together (a barrier before each call) and the
// slowest rank counting.
template <class F>
double time_once(F& fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  fn();
  double dt = now() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return dt;
}

double pick(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  static const bool use_min = std::getenv("BENCH_DIST_MIN") != nullptr;
  return use_min ? t.front() : t[t.size() / 2];
}

// The median (or with BENCH_DIST_MIN=1 the minimum) seconds per call of each of `fns`, measured
// interleaved: repetition i runs every function once, in an order rotated by i, so that a change
// of load on the shared machine falls on all of them alike.
template <class... F>
std::vector<double> time_interleaved(int reps, F&... fns) {
  constexpr size_t k = sizeof...(F);
  std::vector<std::function<void()>> f{std::function<void()>(fns)...};
  std::vector<std::vector<double>> t(k);
  for (int i = 0; i < reps; ++i)
    for (size_t j = 0; j < k; ++j) {
      size_t which = (j + static_cast<size_t>(i)) % k;
      t[which].push_back(time_once(f[which]));
    }
  std::vector<double> out;
  for (auto& v : t) out.push_back(pick(v));
  return out;
}

int env_or(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

}  // namespace

int main() {
  dist::init_process_group(dist::Backend::MPI);  // initialises MPI (MPI_THREAD_MULTIPLE)
  const int rank = dist::get_rank(), n = dist::get_world_size();
  if (rank == 0) {
    std::printf("all_reduce float32 SUM at %d ranks: bus bandwidth in GB/s (%s)\n", n,
                std::getenv("BENCH_DIST_MIN") ? "best of the runs" : "median");
    std::printf("%10s %14s %16s %12s %8s %14s %8s\n", "size", "MPI_Allreduce", "MPI_Iallreduce", "locus", "ratio",
                "locus async", "ratio");
  }
  // BENCH_DIST_FROM / BENCH_DIST_TO (bytes) narrow the sizes, BENCH_DIST_REPS scales the
  // repetitions, BENCH_DIST_DDP=0 skips the DDP step (for profiling one size).
  const int64_t from = env_or("BENCH_DIST_FROM", 1024), to = env_or("BENCH_DIST_TO", 64 << 20);
  const int scale = std::max(1, env_or("BENCH_DIST_REPS", 1));
  for (int64_t bytes = from; bytes <= to; bytes *= 4) {
    const int64_t count = bytes / 4;
    Tensor t = ones({count});
    float* p = t.data_ptr<float>();
    int reps = scale * (bytes <= (1 << 20) ? 100 : bytes <= (16 << 20) ? 20 : 10);
    auto direct = [&] { MPI_Allreduce(MPI_IN_PLACE, p, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); };
    auto nonblocking = [&] {
      MPI_Request r;
      MPI_Iallreduce(MPI_IN_PLACE, p, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    };
    auto viaLocus = [&] { dist::all_reduce(t); };
    auto viaThread = [&] { dist::all_reduce(t, dist::ReduceOp::SUM, nullptr, /*async_op=*/true)->wait(); };
    for (int i = 0; i < 3; ++i) direct(), nonblocking(), viaLocus(), viaThread();  // warm up
    auto times = time_interleaved(reps, direct, nonblocking, viaLocus, viaThread);
    double td = times[0], tn = times[1], tl = times[2], ta = times[3];
    auto bw = [&](double s) { return static_cast<double>(bytes) * 2.0 * (n - 1) / n / s / 1e9; };
    if (rank == 0) {
      char size[32];
      if (bytes >= (1 << 20))
        std::snprintf(size, sizeof size, "%lld MiB", static_cast<long long>(bytes >> 20));
      else
        std::snprintf(size, sizeof size, "%lld KiB", static_cast<long long>(bytes >> 10));
      std::printf("%10s %14.3f %16.3f %12.3f %7.2fx %14.3f %7.2fx\n", size, bw(td), bw(tn), bw(tl), td / tl, bw(ta),
                  td / ta);
    }
  }

  // ---- a DDP step ----
  manual_seed(0);
  nn::Sequential model(nn::Linear(784, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 1024),
                       nn::ReLU(), nn::Linear(1024, 10));
  auto ddp = std::make_shared<nn::parallel::DistributedDataParallel<nn::Sequential>>(model);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.01));
  Tensor x = randn({64, 784}), y = randint(0, 10, {64});
  auto step = [&] {
    opt.zero_grad();
    nn::functional::cross_entropy(ddp->forward(x), y).backward();
    opt.step();
  };
  auto local_step = [&] {
    auto guard = ddp->no_sync();
    step();
  };
  std::vector<Tensor> grads;
  int64_t numel = 0;
  for (const Tensor& p : model->parameters()) numel += p.numel();
  Tensor flat = zeros({numel});
  auto reduce_only = [&] { dist::all_reduce(flat, dist::ReduceOp::AVG); };
  if (env_or("BENCH_DIST_DDP", 1) == 0) return 0;
  for (int i = 0; i < 3; ++i) step(), local_step(), reduce_only();
  const int reps = 20 * scale;
  auto times = time_interleaved(reps, step, local_step, reduce_only);
  double t_ddp = times[0], t_local = times[1], t_ar = times[2];
  // Exposed communication = DDP step - the same step under no_sync (same forward, backward,
  // optimizer; no all-reduce). Hidden share = 1 - exposed / (all-reduce of every gradient alone),
  // printed unclamped: below 0% DDP added more than the all-reduce alone costs (bucket copies,
  // two processes' threads on shared cores), above 100% the DDP step measured faster (noise).
  auto report = [&](const char* what, double t_step, double t_nosync) {
    double exposed = t_step - t_nosync;
    std::printf("  %s: step with DDP %.2f ms, without communication %.2f ms -> exposed %.2f ms of %.2f ms all-reduce:"
                " hidden %.0f%%\n",
                what, t_step * 1e3, t_nosync * 1e3, exposed * 1e3, t_ar * 1e3, (1.0 - exposed / t_ar) * 100);
  };
  if (rank == 0) {
    std::printf(
        "\nDDP step at %d ranks (MLP 784-1024-1024-1024-10, %.1f MiB of gradients, batch 64 per rank), medians of %d "
        "interleaved repetitions:\n",
        n, numel * 4.0 / (1 << 20), reps);
    std::printf("  all-reduce of every gradient alone (one %.1f MiB call): %.2f ms\n", numel * 4.0 / (1 << 20),
                t_ar * 1e3);
    char what[64];
    std::snprintf(what, sizeof what, "default buckets (%zu)", ddp->buckets().size());
    report(what, t_ddp, t_local);
  }
  // smaller buckets: more overlap, more calls
  auto ddp_small = std::make_shared<nn::parallel::DistributedDataParallel<nn::Sequential>>(
      model, nn::parallel::DistributedDataParallelOptions().bucket_cap_mb(1));
  auto step_small = [&] {
    opt.zero_grad();
    nn::functional::cross_entropy(ddp_small->forward(x), y).backward();
    opt.step();
  };
  ddp.reset();
  for (int i = 0; i < 3; ++i) step_small();
  auto local_small = [&] {
    auto guard = ddp_small->no_sync();
    step_small();
  };
  auto small = time_interleaved(reps, step_small, local_small);
  if (rank == 0) {
    char what[64];
    std::snprintf(what, sizeof what, "bucket_cap_mb 1 (%zu buckets)", ddp_small->buckets().size());
    report(what, small[0], small[1]);
  }
  return 0;
}
