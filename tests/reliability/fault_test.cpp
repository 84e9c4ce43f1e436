// Injected faults (core/fault.h, docs/reliability.md): one training step of a small CNN
// (conv2d + relu + max-pool + linear, cross-entropy; Adam, and SGD with Nesterov momentum), on
// every device, failed at each of its allocations, kernel launches and copies in turn. Every
// failure must reach the caller as the named locus error, leave the parameters and the optimizer's
// state (Adam's exp_avg, exp_avg_sq and step; SGD's momentum buffers) bit for bit as they were,
// bring the allocated bytes back to where they were once the step's tensors are gone, and the next
// step (the fault cleared) must give exactly the never-faulted step's result.
#include <cstring>
#include <string>
#include <vector>

#include "core/fault.h"
#include "locus/nn/functional.h"
#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace fault_test {

namespace {

// The bytes of a tensor, on the host: equality is bit for bit.
std::string bits(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.numel() * static_cast<int64_t>(c.element_size()));
}

// Parameters and optimizer state, as bytes (state_dict: "state.i.step", "state.i.exp_avg", ...).
struct Snapshot {
  std::vector<std::string> values;
  bool operator==(const Snapshot& o) const { return values == o.values; }
};

class Cnn {
 public:
  Cnn(Device d, bool sgd) : d_(d) {
    manual_seed(19);
    auto o = TensorOptions().device(d);
    params_ = {(randn({4, 1, 3, 3}, o) * 0.3).requires_grad_(), (randn({4}, o) * 0.1).requires_grad_(),
               (randn({10, 64}, o) * 0.1).requires_grad_(), (randn({10}, o) * 0.1).requires_grad_()};
    x_ = randn({8, 1, 8, 8}, o);
    y_ = randint(0, 10, {8}, TensorOptions().dtype(kLong).device(d));
    if (sgd)
      opt_ = std::make_unique<optim::SGD>(params_, optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
    else
      opt_ = std::make_unique<optim::Adam>(params_, optim::AdamOptions(0.01).weight_decay(0.01));
  }

  // One training step, as a user writes it: the loss is read back on the host for the log (before
  // the optimizer step: a failure after the step's commit is a failure of the next thing, not of
  // the step).
  float step() {
    opt_->zero_grad(true);
    Tensor h = F::max_pool2d(F::relu(F::conv2d(x_, params_[0], F::Conv2dFuncOptions().bias(params_[1]).padding(1))),
                             F::MaxPool2dFuncOptions(2));
    Tensor loss = F::cross_entropy(F::linear(h.flatten(1), params_[2], params_[3]), y_);
    loss.backward();
    const float logged = loss.item<float>();
    opt_->step();
    return logged;
  }

  Snapshot snapshot() const {
    Snapshot s;
    for (const Tensor& p : params_) s.values.push_back(bits(p));
    for (const auto& item : opt_->state_dict()) s.values.push_back(item.key() + ":" + bits(item.value()));
    return s;
  }
  // Back to a saved state: parameter values in place, the optimizer state from a copy.
  void restore(const std::vector<Tensor>& params, const OrderedDict<std::string, Tensor>& state) {
    NoGradGuard g;
    for (size_t i = 0; i < params_.size(); ++i) params_[i].copy_(params[i]);
    opt_->load_state_dict(state);
    opt_->zero_grad(true);
  }
  std::vector<Tensor> param_copies() const {
    std::vector<Tensor> out;
    for (const Tensor& p : params_) out.push_back(p.detach().cpu().clone());
    return out;
  }
  OrderedDict<std::string, Tensor> state_copy() const {
    OrderedDict<std::string, Tensor> out("State");
    for (const auto& item : opt_->state_dict()) out.insert(item.key(), item.value().cpu().clone());
    return out;
  }
  void drop_grads() { opt_->zero_grad(true); }

 private:
  Device d_;
  std::vector<Tensor> params_;
  Tensor x_, y_;
  std::unique_ptr<optim::Optimizer> opt_;
};

// OutOfMemoryErrors so far on every device (a step on a device also allocates on the host:
// the loss read back for the log).
int64_t total_ooms() {
  int64_t n = 0;
  for (Device dev : all_devices()) n += memory_stats(dev)["num_ooms"];
  return n;
}

const char* site_name(fault::Site s) {
  return s == fault::kAlloc ? "alloc" : s == fault::kLaunch ? "launch" : s == fault::kCopy ? "copy" : "scratch";
}

// The sweep over one step of `net` on `d`.
void sweep(Device d, bool sgd) {
  Cnn net(d, sgd);
  net.step();  // a first step: Adam's state exists, kernels are compiled
  const std::vector<Tensor> params0 = net.param_copies();
  const auto state0 = net.state_copy();
  net.drop_grads();
  const Snapshot before = net.snapshot();
  const int64_t allocated0 = memory_allocated(d);

  // The reference step, never faulted, counting what it does.
  int64_t count[fault::kSites];
  float ref_loss = 0;
  {
    fault::Injector counting;
    ref_loss = net.step();
    for (int s = 0; s < fault::kSites; ++s) count[s] = counting.calls(static_cast<fault::Site>(s));
  }
  const Snapshot after = net.snapshot();
  ASSERT_FALSE(after == before);
  EXPECT_GT(count[fault::kAlloc], 0);
  if (!d.is_cpu()) {  // the cpu backend has no launches or copies a driver can refuse
    EXPECT_GT(count[fault::kLaunch], 0);
    EXPECT_GT(count[fault::kCopy], 0);
  }
  if (d.is_cpu()) EXPECT_GT(count[fault::kScratch], 0);  // the convolutions' buffers
  std::printf("[ faults   ] %s, %s: one step = %lld allocations, %lld launches, %lld copies, %lld scratch requests\n",
              sgd ? "SGD" : "Adam", d.str().c_str(), static_cast<long long>(count[0]), static_cast<long long>(count[1]),
              static_cast<long long>(count[2]), static_cast<long long>(count[3]));

  int64_t survived = 0;
  for (int si = 0; si < fault::kSites; ++si) {
    const auto site = static_cast<fault::Site>(si);
    for (int64_t n = 1; n <= count[si]; ++n) {
      SCOPED_TRACE(std::string(site_name(site)) + ":" + std::to_string(n));
      net.restore(params0, state0);
      ASSERT_TRUE(net.snapshot() == before);
      ASSERT_EQ(memory_allocated(d), allocated0);
      const int64_t host0 = memory_allocated(Device(kCPU));
      const int64_t ooms = total_ooms();
      std::string what;
      {
        fault::Injector fault(site, n);
        try {
          net.step();
          ADD_FAILURE() << "the step succeeded";
        } catch (const OutOfMemoryError& e) {
          what = e.what();
          EXPECT_TRUE(site == fault::kAlloc || site == fault::kScratch) << what;
          if (site == fault::kScratch)  // the op that asked, and what to do
            EXPECT_NE(what.find("] out of memory on cpu: the kernel's scratch space"), std::string::npos) << what;
        } catch (const BackendError& e) {
          what = e.what();
          EXPECT_NE(site, fault::kAlloc) << what;
          // the driver's own failure: "<call> failed on opencl:0 (...): CL_OUT_OF_RESOURCES"
          EXPECT_NE(what.find("failed on " + d.str()), std::string::npos) << what;
          EXPECT_TRUE(what.find("OUT_OF_RESOURCES") != std::string::npos ||
                      what.find("OUT_OF_MEMORY") != std::string::npos ||
                      what.find("EXECUTION_FAILED") != std::string::npos)
              << what;
        }
        EXPECT_TRUE(fault.fired());
        // nothing of that kind ran after the failure; scratch is asked for by every thread of a
        // parallel op, and the other threads' chunks still run
        if (site == fault::kScratch) EXPECT_GE(fault.calls(site), n);
        else EXPECT_EQ(fault.calls(site), n);
      }
      EXPECT_EQ(total_ooms(), ooms + (site == fault::kAlloc ? 1 : 0));
      // no half-applied update, and nothing of the step left allocated
      EXPECT_TRUE(net.snapshot() == before) << what;
      net.drop_grads();
      EXPECT_EQ(memory_allocated(d), allocated0) << what;
      EXPECT_EQ(memory_allocated(Device(kCPU)), host0) << what;
      // the fault cleared: the step gives the never-faulted result, bit for bit
      EXPECT_EQ(net.step(), ref_loss);
      EXPECT_TRUE(net.snapshot() == after) << what;
      if (!::testing::Test::HasFailure()) ++survived;
      else return;  // one broken index is enough to read
    }
  }
  std::printf("[ faults   ] %s, %s: %lld faults injected and survived\n", sgd ? "SGD" : "Adam", d.str().c_str(),
              static_cast<long long>(survived));
}

}  // namespace

class Faults : public ::testing::TestWithParam<Device> {};

TEST_P(Faults, EveryFailurePointOfAnAdamTrainingStepLeavesTheModelAsItWas) { sweep(GetParam(), false); }

// SGD with Nesterov momentum and weight decay: its momentum buffers are state as Adam's moments.
TEST_P(Faults, EveryFailurePointOfAnSgdTrainingStepLeavesTheModelAsItWas) { sweep(GetParam(), true); }

LOCUS_INSTANTIATE_DEVICES(Faults);

}  // namespace fault_test
