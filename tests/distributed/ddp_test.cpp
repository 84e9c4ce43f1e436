// DistributedDataParallel on every rank of the mpirun job: K steps of DDP on per-rank shards equal
// K steps of one process on the concatenated batch, on cpu and on opencl:rank; no_sync
// accumulation; unused parameters; buffers; and the dead-rank test (its own ctest entry).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "locus/distributed.h"
#include "locus/locus.h"
#include "locus/nn/parallel/distributed.h"
#include "testing.h"

namespace dist = locus::distributed;
namespace F = locus::nn::functional;
using namespace locus;
using nn::parallel::DistributedDataParallel;
using nn::parallel::DistributedDataParallelOptions;

namespace {

int rank() { return dist::get_rank(); }
int world() { return dist::get_world_size(); }

std::vector<Device> rank_devices() {
  std::vector<Device> out{Device(kCPU)};
  int opencl = 0;
  for (const Device& d : all_devices())
    if (d.type() == DeviceType::OpenCL) ++opencl;
  if (opencl >= world()) out.push_back(Device(DeviceType::OpenCL, static_cast<DeviceIndex>(rank())));
  return out;
}

nn::Sequential make_model(uint64_t seed, Device d) {
  manual_seed(seed);
  nn::Sequential m(nn::Linear(5, 16), nn::Tanh(), nn::Linear(16, 8), nn::Tanh(), nn::Linear(8, 2));
  m->to(d);
  return m;
}

// The global batch of step k (the same on every rank): world * b rows.
std::pair<Tensor, Tensor> global_batch(int k, int64_t b, Device d) {
  manual_seed(1000 + k);
  Tensor x = randn({world() * b, 5});
  Tensor y = randn({world() * b, 2});
  return {x.to(d), y.to(d)};
}

Tensor flat_params(nn::Module& m) {
  std::vector<Tensor> ps;
  for (const Tensor& p : m.parameters()) ps.push_back(p.detach().to(Device(kCPU)).reshape({-1}));
  return cat(ps);
}

void expect_same_on_every_rank(const Tensor& flat) {
  std::vector<Tensor> all;
  for (int r = 0; r < world(); ++r) all.push_back(zeros_like(flat));
  dist::all_gather(all, flat);
  for (int r = 0; r < world(); ++r) EXPECT_TRUE(all[r].equal(flat)) << "rank " << r << " differs from rank " << rank();
}

}  // namespace

namespace {
// K DDP steps on the per-rank shards against K steps of rank 0's initial model on the whole batch.
void expect_ddp_matches_one_process(Device d, double cap) {
  const int64_t b = 4;
  const int steps = 3;
  nn::Sequential local = make_model(7 + rank(), d);  // ranks start different; DDP takes rank 0's
  auto ddp = std::make_shared<DistributedDataParallel<nn::Sequential>>(
      local, DistributedDataParallelOptions().bucket_cap_mb(cap));
  if (cap < 1)
    EXPECT_GT(ddp->buckets().size(), 1u);
  else
    EXPECT_EQ(ddp->buckets().size(), 1u);
  nn::Sequential ref = make_model(7, d);  // rank 0's initial model, trained on the whole batch
  EXPECT_TRUE(flat_params(*local).equal(flat_params(*ref))) << "construction did not broadcast rank 0's";
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  optim::SGD ref_opt(ref->parameters(), optim::SGDOptions(0.1));
  for (int k = 0; k < steps; ++k) {
    auto [x, y] = global_batch(k, b, d);
    opt.zero_grad();
    Tensor loss = F::mse_loss(ddp->forward(x.narrow(0, rank() * b, b)), y.narrow(0, rank() * b, b));
    loss.backward();
    opt.step();
    ref_opt.zero_grad();
    F::mse_loss(ref->forward(x), y).backward();
    ref_opt.step();
  }
  Tensor got = flat_params(*local), want = flat_params(*ref);
  EXPECT_TRUE(got.allclose(want, 1e-4, 1e-5))
      << d << " cap " << cap << ": max diff " << (got - want).abs().max().item<float>();
  expect_same_on_every_rank(got);
}
}  // namespace

TEST(DistributedDataParallel, StepsEqualOneProcessOnTheWholeBatch) {
  for (Device d : rank_devices())
    for (double cap : {25.0, 0.0004}) expect_ddp_matches_one_process(d, cap);  // one bucket; several
}

// The same over NCCL, rank r on cuda:r (scripts/gpu-check runs it on 2 GPUs); skips, saying why,
// without libnccl or one GPU per rank.
TEST(Nccl, DdpStepsEqualOneProcess) {
  if (!dist::is_nccl_available())
    GTEST_SKIP() << "NCCL unavailable here: " << dist::unavailable_reason(dist::Backend::NCCL);
  int gpus = 0;
  for (const Device& d : all_devices())
    if (d.is_cuda()) ++gpus;
  if (gpus < world())
    GTEST_SKIP() << "NCCL needs one CUDA device per rank: " << world() << " ranks, " << gpus << " GPUs";
  dist::destroy_process_group();
  dist::init_process_group(dist::Backend::NCCL);
  for (double cap : {25.0, 0.0004})
    expect_ddp_matches_one_process(Device(DeviceType::CUDA, static_cast<DeviceIndex>(rank())), cap);
  dist::destroy_process_group();
  dist::init_process_group(dist::Backend::MPI);
}

TEST(DistributedDataParallel, NoSyncAccumulationEqualsTheLargerBatch) {
  const int64_t b = 3;
  for (Device d : rank_devices()) {
    nn::Sequential local = make_model(11, d);
    auto ddp = std::make_shared<DistributedDataParallel<nn::Sequential>>(local);
    nn::Sequential ref = make_model(11, d);
    auto [x0, y0] = global_batch(0, b, d);
    auto [x1, y1] = global_batch(1, b, d);
    {
      auto guard = ddp->no_sync();
      F::mse_loss(ddp->forward(x0.narrow(0, rank() * b, b)), y0.narrow(0, rank() * b, b)).backward();
    }
    // after the no_sync pass the gradients are local: they differ between ranks
    Tensor local_grad = local->parameters()[0].grad().to(Device(kCPU)).clone();
    F::mse_loss(ddp->forward(x1.narrow(0, rank() * b, b)), y1.narrow(0, rank() * b, b)).backward();
    (F::mse_loss(ref->forward(x0), y0) + F::mse_loss(ref->forward(x1), y1)).backward();
    auto gp = local->parameters(), rp = ref->parameters();
    for (size_t i = 0; i < gp.size(); ++i)
      EXPECT_TRUE(gp[i].grad().to(Device(kCPU)).allclose(rp[i].grad().to(Device(kCPU)), 1e-4, 1e-5))
          << d << " parameter " << i;
    if (world() > 1) {
      Tensor g = gp[0].grad().to(Device(kCPU));
      EXPECT_FALSE(g.equal(local_grad)) << "the synchronised pass did not average";
    }
  }
}

namespace {
struct TwoHeadsImpl : nn::Module {
  TwoHeadsImpl() {
    a = register_module("a", nn::Linear(3, 2));
    b = register_module("b", nn::Linear(3, 2));
  }
  Tensor forward(const Tensor& x) { return a->forward(x); }  // b is never used
  nn::Linear a{nullptr}, b{nullptr};
};
LOCUS_MODULE(TwoHeads);
}  // namespace

TEST(DistributedDataParallel, UnusedParameters) {
  manual_seed(3);
  TwoHeads m;
  {
    auto ddp = std::make_shared<DistributedDataParallel<TwoHeads>>(m);
    Tensor loss = ddp->forward(ones({2, 3})).sum();
    EXPECT_THROW_MSG(loss.backward(), Error,
                     "[DistributedDataParallel] Expected to have finished reduction in the prior iteration before "
                     "starting a new one. This error indicates that your module has parameters that were not used in "
                     "producing loss. You can enable unused parameter detection by passing "
                     "find_unused_parameters(true)");
    EXPECT_THROW_MSG(ddp->forward(ones({2, 3})).sum().backward(), Error,
                     "Parameter indices which did not receive grad for rank " + std::to_string(rank()) +
                         ": 2 3 (b.weight, b.bias).");
  }
  m->zero_grad();
  auto ddp = std::make_shared<DistributedDataParallel<TwoHeads>>(
      m, DistributedDataParallelOptions().find_unused_parameters(true));
  ddp->forward(full({2, 3}, static_cast<double>(rank() + 1))).sum().backward();
  EXPECT_FALSE(m->b->weight.grad().defined()) << "a parameter no rank used keeps no gradient";
  ASSERT_TRUE(m->a->weight.grad().defined());
  // d(sum(W x + c))/dW = sum over rows of x: 2 * (rank + 1) per element, averaged over the ranks
  double avg = 0;
  for (int r = 0; r < world(); ++r) avg += 2.0 * (r + 1) / world();
  EXPECT_TRUE(m->a->weight.grad().allclose(full({2, 3}, avg)));
}

TEST(DistributedDataParallel, BroadcastsBuffersAndChecksModels) {
  nn::Sequential m(nn::Linear(2, 2));
  m->register_buffer("running", full({3}, static_cast<double>(rank())));
  auto ddp = std::make_shared<DistributedDataParallel<nn::Sequential>>(m);
  m->named_buffers()["running"].fill_(rank() + 5.0);
  ddp->forward(ones({1, 2}));
  EXPECT_TRUE(m->named_buffers()["running"].equal(full({3}, 5.0))) << "rank 0's buffers before each forward";
  EXPECT_EQ(ddp->named_parameters().size(), 2u);
  EXPECT_TRUE(ddp->named_parameters().contains("module.0.weight"));

  nn::Sequential uneven(nn::Linear(2, rank() == 0 ? 2 : 3));
  EXPECT_THROW_MSG(std::make_shared<DistributedDataParallel<nn::Sequential>>(uneven), DistributedError,
                   "[DistributedDataParallel] the ranks hold different models");
  EXPECT_THROW_MSG(
      std::make_shared<DistributedDataParallel<nn::Sequential>>(m, DistributedDataParallelOptions().bucket_cap_mb(0)),
      Error, "[DistributedDataParallel] bucket_cap_mb must be positive, got 0");
}

// Run by its own ctest entry (LOCUS_DIST_TIMEOUT=10, OpenMPI told not to kill the job): the last
// rank exits in the middle of training; every other rank must get DistributedError from backward
// naming it, well within the 60 s the ctest entry allows.
TEST(DeadRank, OthersFailWithDistributedError) {
  ASSERT_GE(world(), 2);
  nn::Sequential m = make_model(5, Device(kCPU));
  auto ddp = std::make_shared<DistributedDataParallel<nn::Sequential>>(m);
  optim::SGD opt(ddp->parameters(), optim::SGDOptions(0.1));
  const int dying = world() - 1;
  auto t0 = std::chrono::steady_clock::now();
  try {
    for (int k = 0; k < 5; ++k) {
      if (k == 2 && rank() == dying) {
        std::printf("rank %d exits now\n", rank());
        std::fflush(stdout);
        _exit(0);
      }
      auto [x, y] = global_batch(k, 2, Device(kCPU));
      opt.zero_grad();
      F::mse_loss(ddp->forward(x.narrow(0, rank() * 2, 2)), y.narrow(0, rank() * 2, 2)).backward();
      opt.step();
    }
    ADD_FAILURE() << "training went on without rank " << dying;
  } catch (const DistributedError& e) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string msg = e.what();
    EXPECT_NE(msg.find("[all_reduce] timed out after"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank " + std::to_string(dying) + " did not arrive at collective #"), std::string::npos) << msg;
    EXPECT_LT(s, 60.0);
    if (!::testing::Test::HasFailure()) std::printf("DEADRANK_OK rank %d after %.1f s: %s\n", rank(), s, msg.c_str());
    std::fflush(stdout);
  }
  // the group is unusable now, and says so
  EXPECT_THROW_MSG(dist::barrier(), DistributedError,
                   "[barrier] the process group is unusable after an earlier failure");
}
