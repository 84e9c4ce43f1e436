// Collectives over the MPI process group, on every rank of `mpirun -n 2` / `-n 3`, on cpu and (at
// 2 ranks, with POCL_DEVICES="pthread pthread") rank r on opencl:r, for every dtype, against
// values each rank computes locally for all ranks.
#include "locus/distributed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>

#include "locus/locus.h"
#include "testing.h"

namespace dist = locus::distributed;
using namespace locus;

namespace {

int rank() { return dist::get_rank(); }
int world() { return dist::get_world_size(); }

// cpu, and opencl:rank when every rank has its own OpenCL device.
std::vector<Device> rank_devices() {
  std::vector<Device> out{Device(kCPU)};
  int opencl = 0;
  for (const Device& d : all_devices())
    if (d.type() == DeviceType::OpenCL) ++opencl;
  if (opencl >= world()) out.push_back(Device(DeviceType::OpenCL, static_cast<DeviceIndex>(rank())));
  return out;
}

const std::vector<ScalarType> kDtypes{kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kShort, kChar, kByte, kBool};

// Rank r's values (small, exact in every dtype; products stay below 256).
std::vector<double> values(int r, int64_t n, int salt, ScalarType dt) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = dt == kBool ? static_cast<double>((r + i + salt) % 2) : 1.0 + static_cast<double>((r * 7 + i + salt) % 3);
  return v;
}

Tensor make(const std::vector<double>& v, ScalarType dt, Device d, IntArrayRef shape = {}) {
  std::vector<double> copy = v;
  Tensor t = from_blob(copy.data(), {static_cast<int64_t>(copy.size())}, TensorOptions().dtype(kDouble)).clone();
  if (!shape.empty()) t = t.reshape(shape);
  return t.to(dt).to(d);
}

Tensor input(int r, int64_t n, int salt, ScalarType dt, Device d) { return make(values(r, n, salt, dt), dt, d); }

std::vector<double> reduce_all(dist::ReduceOp op, int64_t n, int salt, ScalarType dt) {
  std::vector<double> acc = values(0, n, salt, dt);
  for (int r = 1; r < world(); ++r) {
    std::vector<double> v = values(r, n, salt, dt);
    for (int64_t i = 0; i < n; ++i) {
      switch (op) {
        case dist::ReduceOp::SUM:
        case dist::ReduceOp::AVG: acc[i] += v[i]; break;
        case dist::ReduceOp::MAX: acc[i] = std::max(acc[i], v[i]); break;
        case dist::ReduceOp::MIN: acc[i] = std::min(acc[i], v[i]); break;
        case dist::ReduceOp::PRODUCT: acc[i] *= v[i]; break;
      }
    }
  }
  if (op == dist::ReduceOp::AVG)
    for (double& x : acc) x /= world();
  return acc;
}

void expect_values(const Tensor& got, const std::vector<double>& want, ScalarType dt, const std::string& what) {
  ASSERT_EQ(got.scalar_type(), dt) << what;
  Tensor g = got.to(Device(kCPU)).to(kDouble).reshape({-1});
  Tensor w = make(want, dt, Device(kCPU)).to(kDouble);
  double tol = (dt == kHalf || dt == kBFloat16) ? 1e-2 : 1e-6;
  EXPECT_TRUE(g.allclose(w, tol, tol)) << what << " on rank " << rank() << "\n got " << g << "\n want " << w;
}

std::string label(Device d, ScalarType dt) { return d.str() + " " + dtype_name(dt); }

}  // namespace

TEST(Collectives, AllReduceEveryOpDtypeDevice) {
  for (Device d : rank_devices())
    for (ScalarType dt : kDtypes)
      for (auto op : {dist::ReduceOp::SUM, dist::ReduceOp::MAX, dist::ReduceOp::MIN, dist::ReduceOp::PRODUCT,
                      dist::ReduceOp::AVG}) {
        if (op == dist::ReduceOp::AVG && !is_floating_point(dt)) continue;
        Tensor t = input(rank(), 7, 1, dt, d);
        dist::all_reduce(t, op);
        EXPECT_EQ(t.device(), d);
        expect_values(t, reduce_all(op, 7, 1, dt), dt,
                      "all_reduce " + label(d, dt) + " op " + std::to_string(static_cast<int>(op)));
      }
}

TEST(Collectives, BroadcastReduceEveryDtypeDevice) {
  for (Device d : rank_devices())
    for (ScalarType dt : kDtypes) {
      const int src = world() - 1;
      Tensor t = make(values(rank(), 6, 2, dt), dt, d, {2, 3});
      dist::broadcast(t, src);
      expect_values(t, values(src, 6, 2, dt), dt, "broadcast " + label(d, dt));
      EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));

      const int dst = 1 % world();
      Tensor r = input(rank(), 5, 3, dt, d);
      dist::reduce(r, dst, dist::ReduceOp::SUM);
      expect_values(r, rank() == dst ? reduce_all(dist::ReduceOp::SUM, 5, 3, dt) : values(rank(), 5, 3, dt), dt,
                    "reduce " + label(d, dt));
    }
}

TEST(Collectives, GatherFamiliesEveryDtypeDevice) {
  for (Device d : rank_devices())
    for (ScalarType dt : kDtypes) {
      const int64_t n = 4;
      Tensor mine = input(rank(), n, 4, dt, d);
      std::vector<Tensor> list;
      for (int r = 0; r < world(); ++r) list.push_back(full({n}, 0, TensorOptions().dtype(dt).device(d)));
      dist::all_gather(list, mine);
      for (int r = 0; r < world(); ++r) expect_values(list[r], values(r, n, 4, dt), dt, "all_gather " + label(d, dt));

      Tensor out = zeros({world(), n}, TensorOptions().dtype(dt).device(d));
      dist::all_gather_into_tensor(out, mine);
      for (int r = 0; r < world(); ++r)
        expect_values(out[r], values(r, n, 4, dt), dt, "all_gather_into_tensor " + label(d, dt));

      // gather to rank 0
      std::vector<Tensor> glist;
      if (rank() == 0)
        for (int r = 0; r < world(); ++r) glist.push_back(zeros({n}, TensorOptions().dtype(dt).device(d)));
      dist::gather(mine, glist, 0);
      for (int r = 0; r < static_cast<int>(glist.size()); ++r)
        expect_values(glist[r], values(r, n, 4, dt), dt, "gather " + label(d, dt));

      // scatter from the last rank: piece r is values(r + 10)
      const int src = world() - 1;
      std::vector<Tensor> slist;
      if (rank() == src)
        for (int r = 0; r < world(); ++r) slist.push_back(input(r + 10, n, 5, dt, d));
      Tensor piece = zeros({n}, TensorOptions().dtype(dt).device(d));
      dist::scatter(piece, slist, src);
      expect_values(piece, values(rank() + 10, n, 5, dt), dt, "scatter " + label(d, dt));

      // reduce_scatter: input_list[i] on rank r is values(r, salt 6 + i); rank i gets their sum
      std::vector<Tensor> ilist;
      for (int i = 0; i < world(); ++i) ilist.push_back(input(rank(), n, 6 + i, dt, d));
      Tensor rs = zeros({n}, TensorOptions().dtype(dt).device(d));
      dist::reduce_scatter(rs, ilist, dist::ReduceOp::SUM);
      expect_values(rs, reduce_all(dist::ReduceOp::SUM, n, 6 + rank(), dt), dt, "reduce_scatter " + label(d, dt));
    }
}

TEST(Collectives, SendRecvRingEveryDtypeDevice) {
  for (Device d : rank_devices())
    for (ScalarType dt : kDtypes) {
      const int next = (rank() + 1) % world(), prev = (rank() + world() - 1) % world();
      Tensor out = input(rank(), 9, 7, dt, d);
      Tensor in = zeros({9}, TensorOptions().dtype(dt).device(d));
      auto s = dist::isend(out, next, nullptr, 3);
      auto r = dist::irecv(in, prev, nullptr, 3);
      s->wait();
      r->wait();
      expect_values(in, values(prev, 9, 7, dt), dt, "send/recv " + label(d, dt));
    }
  dist::barrier();
}

TEST(Collectives, AsyncWorkCompletesInIssueOrder) {
  for (Device d : rank_devices()) {
    std::vector<Tensor> ts;
    std::vector<dist::Handle> works;
    for (int k = 0; k < 8; ++k) {
      ts.push_back(input(rank(), 1000 + k, k, kFloat, d));
      works.push_back(dist::all_reduce(ts.back(), dist::ReduceOp::SUM, nullptr, /*async_op=*/true));
    }
    works.back()->wait();
    for (auto& w : works) EXPECT_TRUE(w->is_completed()) << "an earlier collective finished after a later one";
    for (int k = 0; k < 8; ++k) {
      works[k]->wait();
      expect_values(ts[k], reduce_all(dist::ReduceOp::SUM, 1000 + k, k, kFloat), kFloat, "async " + d.str());
    }
  }
}

// A synchronous collective runs on the caller's thread only when nothing is queued: issued after
// async ones still in flight, it waits its turn (issue order), and the ones after it run too.
TEST(Collectives, SyncCallAfterAsyncOnesKeepsIssueOrder) {
  for (Device d : rank_devices()) {
    std::vector<Tensor> ts;
    std::vector<dist::Handle> works;
    for (int k = 0; k < 4; ++k) {
      ts.push_back(input(rank(), 4096 + k, k, kFloat, d));
      works.push_back(dist::all_reduce(ts.back(), dist::ReduceOp::SUM, nullptr, /*async_op=*/true));
    }
    Tensor mid = input(rank(), 17, 9, kFloat, d);
    dist::all_reduce(mid, dist::ReduceOp::MAX);
    for (auto& w : works) EXPECT_TRUE(w->is_completed()) << "a synchronous call overtook an async one on " << d.str();
    expect_values(mid, reduce_all(dist::ReduceOp::MAX, 17, 9, kFloat), kFloat, "sync after async " + d.str());
    Tensor after = input(rank(), 33, 5, kFloat, d);
    auto w = dist::all_reduce(after, dist::ReduceOp::SUM, nullptr, /*async_op=*/true);
    dist::all_reduce(mid, dist::ReduceOp::SUM);  // sync while `after` may still be queued
    w->wait();
    expect_values(after, reduce_all(dist::ReduceOp::SUM, 33, 5, kFloat), kFloat, "async after sync " + d.str());
    for (int k = 0; k < 4; ++k) {
      works[k]->wait();
      expect_values(ts[k], reduce_all(dist::ReduceOp::SUM, 4096 + k, k, kFloat), kFloat, "async " + d.str());
    }
  }
}

TEST(Collectives, SyncCallsReturnCompletedWork) {
  Tensor t = ones({3});
  auto w = dist::all_reduce(t);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->is_completed());
  w->wait();  // again: a no-op
  EXPECT_TRUE(t.equal(full({3}, static_cast<double>(world()))));
  dist::barrier();
}

TEST(Collectives, NewGroupOfFirstAndLastRank) {
  std::vector<int> members{world() - 1, 0};
  dist::Group g = dist::new_group(members);
  bool member = rank() == 0 || rank() == world() - 1;
  ASSERT_EQ(g != nullptr, member);
  if (member) {
    EXPECT_EQ(dist::get_world_size(g), 2);
    EXPECT_EQ(dist::get_rank(g), rank() == 0 ? 1 : 0);  // group rank i is ranks[i]
    EXPECT_EQ(g->global_rank(0), world() - 1);
    Tensor t = full({2}, rank() + 1.0);
    dist::all_reduce(t, dist::ReduceOp::SUM, g);
    EXPECT_TRUE(t.equal(full({2}, 1.0 + world())));
    // src is a global rank, as in torch.distributed: global rank 0 is group rank 1 here
    Tensor b = full({3}, rank() == 0 ? 7.0 : -1.0);
    dist::broadcast(b, 0, g);
    EXPECT_TRUE(b.equal(full({3}, 7.0)));
    if (world() > 2)
      EXPECT_THROW_MSG(
          dist::broadcast(b, 1, g), DistributedError,
          "[broadcast] src 1 is not a rank of the group (its ranks: " + std::to_string(world() - 1) + ", 0).");
    dist::destroy_process_group(g);
  }
  dist::barrier();
}

TEST(Collectives, ArgumentErrors) {
  Tensor t = zeros({4, 4});
  EXPECT_THROW_MSG(dist::all_reduce(t.t()), DistributedError, "[all_reduce] tensor must be contiguous");
  EXPECT_THROW_MSG(dist::all_reduce(zeros({2}, kInt), dist::ReduceOp::AVG), DistributedError,
                   "[all_reduce] ReduceOp::AVG needs a floating-point tensor, got int32");
  EXPECT_THROW_MSG(dist::broadcast(t, world()), DistributedError,
                   "[broadcast] src " + std::to_string(world()) + " is not a rank of the group (its ranks: 0, 1");
  EXPECT_THROW_MSG(dist::all_gather({t}, t), DistributedError,
                   "[all_gather] tensor_list holds 1 tensors but the group has " + std::to_string(world()));
  std::vector<Tensor> wrong(static_cast<size_t>(world()), zeros({4, 4}, kDouble));
  EXPECT_THROW_MSG(dist::all_gather(wrong, t), DistributedError,
                   "[all_gather] tensor_list[0] is float64[4, 4] on cpu but the tensor is float32[4, 4] on cpu");
  EXPECT_THROW_MSG(dist::all_gather_into_tensor(zeros({3}), t), DistributedError,
                   "[all_gather_into_tensor] output is float32[3] on cpu");
  EXPECT_THROW_MSG(dist::send(t, rank()), DistributedError, "[send] dst is this process's own rank");
  EXPECT_THROW_MSG(dist::send(t, (rank() + 1) % world(), nullptr, -1), DistributedError, "[send] tag must be >= 0");
  if (rank() != 0)
    EXPECT_THROW_MSG(dist::gather(t, {t}, 0), DistributedError,
                     "[gather] Argument gather_list must NOT be specified on non-destination ranks");
  if (rank() != 0)
    EXPECT_THROW_MSG(dist::scatter(t, {t}, 0), DistributedError,
                     "[scatter] Argument scatter_list must NOT be specified on non-source ranks (this is rank " +
                         std::to_string(rank()) + ", src is 0).");
  if (rank() == 0)
    EXPECT_THROW_MSG(dist::scatter(t, {t}, 0), DistributedError,
                     "[scatter] scatter_list holds 1 tensors but the group has " + std::to_string(world()) + " ranks");
  EXPECT_THROW_MSG(dist::init_process_group(dist::Backend::MPI), DistributedError,
                   "[init_process_group] trying to initialize the default process group twice");
  EXPECT_THROW_MSG(dist::new_group({0, 0}), DistributedError, "[new_group] rank 0 is listed twice");
  dist::barrier();
}

TEST(Collectives, DestroyAndInitAgain) {
  const int w = world();
  dist::destroy_process_group();
  EXPECT_FALSE(dist::is_initialized());
  EXPECT_THROW_MSG(dist::all_reduce(zeros({1})), DistributedError,
                   "[all_reduce] Default process group has not been initialized");
  dist::InitOptions bad;
  bad.world_size = w + 1;
  EXPECT_THROW_MSG(dist::init_process_group(dist::Backend::MPI, bad), DistributedError,
                   "[init_process_group] InitOptions::world_size gives world size " + std::to_string(w + 1) +
                       " but MPI sees " + std::to_string(w));
  setenv("LOCUS_DIST_TIMEOUT", "soon", 1);
  EXPECT_THROW_MSG(dist::init_process_group(dist::Backend::MPI), DistributedError,
                   "LOCUS_DIST_TIMEOUT must be a positive number of seconds, got 'soon'");
  unsetenv("LOCUS_DIST_TIMEOUT");
  EXPECT_THROW_MSG(dist::init_process_group(dist::Backend::NCCL), DistributedError,
                   "[init_process_group] the NCCL backend is not available");
  dist::InitOptions o;
  o.timeout = std::chrono::seconds(30);
  dist::init_process_group(dist::Backend::MPI, o);
  ASSERT_TRUE(dist::is_initialized());
  Tensor t = ones({2});
  dist::all_reduce(t);
  EXPECT_TRUE(t.equal(full({2}, static_cast<double>(w))));
}

// Run by its own ctest entry with LOCUS_DIST_DEBUG=1 (excluded from the plain runs).
TEST(DebugMismatch, NamesTheRankThatDiffers) {
  ASSERT_STREQ(std::getenv("LOCUS_DIST_DEBUG"), "1");
  const int odd = world() - 1;
  Tensor t = ones({rank() == odd ? 3 : 4});
  std::string want = "[all_reduce] LOCUS_DIST_DEBUG: collective #";
  EXPECT_THROW_MSG(dist::all_reduce(t), DistributedError, want);
  EXPECT_THROW_MSG(dist::all_reduce(t), DistributedError,
                   "rank 0 called all_reduce(float32[4], SUM) but rank " + std::to_string(odd) +
                       " called all_reduce(float32[3], SUM)");
  // a different collective on one rank
  Tensor u = ones({4});
  if (rank() == odd)
    EXPECT_THROW_MSG(dist::broadcast(u, 0), DistributedError, "called broadcast(float32[4], src=0)");
  else
    EXPECT_THROW_MSG(dist::all_reduce(u), DistributedError, "called broadcast(float32[4], src=0)");
  // the group stays usable after a mismatch
  dist::all_reduce(u);
  EXPECT_TRUE(u.equal(full({4}, static_cast<double>(world()))));
}

// NCCL: cuda tensors on rank r's cuda:r. Skips (saying why) without libnccl or one GPU per rank;
// scripts/gpu-check runs it on machines with 2 GPUs.
TEST(Nccl, CollectivesOnCudaMatchLocalValues) {
  if (!dist::is_nccl_available())
    GTEST_SKIP() << "NCCL unavailable here: " << dist::unavailable_reason(dist::Backend::NCCL);
  int gpus = 0;
  for (const Device& d : all_devices())
    if (d.is_cuda()) ++gpus;
  if (gpus < world())
    GTEST_SKIP() << "NCCL needs one CUDA device per rank: " << world() << " ranks, " << gpus << " GPUs";
  dist::destroy_process_group();
  dist::init_process_group(dist::Backend::NCCL);
  ASSERT_EQ(dist::world()->backend(), dist::Backend::NCCL);
  Device d(DeviceType::CUDA, static_cast<DeviceIndex>(rank()));
  for (ScalarType dt : kDtypes) {
    Tensor t = input(rank(), 7, 1, dt, d);
    dist::all_reduce(t, dist::ReduceOp::SUM);
    expect_values(t, reduce_all(dist::ReduceOp::SUM, 7, 1, dt), dt, "nccl all_reduce " + label(d, dt));
    Tensor b = input(rank(), 5, 2, dt, d);
    dist::broadcast(b, world() - 1);
    expect_values(b, values(world() - 1, 5, 2, dt), dt, "nccl broadcast " + label(d, dt));
    Tensor out = zeros({world() * 4}, TensorOptions().dtype(dt).device(d));
    dist::all_gather_into_tensor(out, input(rank(), 4, 3, dt, d));
    for (int r = 0; r < world(); ++r)
      expect_values(out.narrow(0, r * 4, 4), values(r, 4, 3, dt), dt, "nccl all_gather " + label(d, dt));
  }
  EXPECT_THROW_MSG(dist::all_reduce(zeros({2})), DistributedError,
                   "[all_reduce] the nccl process group takes cuda tensors, got a tensor on cpu");
  dist::barrier();
  dist::destroy_process_group();
  dist::init_process_group(dist::Backend::MPI);
}

// A rank that is alive but stops calling: the others time out (the group's own 1 s timeout)
// naming it, and the group refuses further work; the world group is unaffected.
TEST(Collectives, RankThatStopsCallingTimesOut) {
  std::vector<int> all;
  for (int r = 0; r < world(); ++r) all.push_back(r);
  dist::Group g = dist::new_group(all, std::chrono::milliseconds(1000));
  const int idle = 1;
  if (rank() != idle) {
    Tensor t = ones({5});
    auto t0 = std::chrono::steady_clock::now();
    try {
      dist::all_reduce(t, dist::ReduceOp::SUM, g);
      ADD_FAILURE() << "expected DistributedError";
    } catch (const DistributedError& e) {
      std::string m = e.what();
      EXPECT_EQ(m.rfind("[all_reduce] timed out after ", 0), 0u) << m;  // then the seconds waited
      EXPECT_NE(m.find(" s (timeout 1.0 s): rank 1 did not arrive at collective #1 (all_reduce(float32[5], SUM); "
                       "rank 1 is at #0). A rank that exited, crashed or stopped calling collectives causes this"),
                std::string::npos)
          << m;
    }
    EXPECT_THROW_MSG(dist::all_reduce(t, dist::ReduceOp::SUM, g), DistributedError,
                     "[all_reduce] the process group is unusable after an earlier failure");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
    try {
      dist::barrier(g);
    } catch (const DistributedError&) {
    }
  }
  Tensor w = ones({2});
  dist::all_reduce(w);  // the world group still works
  EXPECT_TRUE(w.equal(full({2}, static_cast<double>(world()))));
  EXPECT_THROW_MSG(dist::new_group(all, std::chrono::milliseconds(0)), DistributedError,
                   "[new_group] timeout must be positive, got 0 ms.");
}
