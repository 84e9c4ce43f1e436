#pragma once
// Data parallelism in one process: PyTorch's nn.DataParallel and libtorch's
// nn::parallel::data_parallel, over any list of devices (opencl:0 and opencl:1, or cpu with one).
//
//   auto model = Net();  model->to(Device("opencl:0"));
//   nn::DataParallel dp(model, {Device("opencl:0"), Device("opencl:1")});
//   Adam opt(dp->parameters(), ...);                       // the wrapped module's parameters
//   Tensor loss = cross_entropy(dp(x), y.to(Device("opencl:0")));  // gathered on opencl:0
//   loss.backward();                                       // gradients summed on the originals
//
// Each forward scatters the batch along `dim` (chunks of ceil(n / devices), so a small batch uses
// fewer devices), runs one replica per device on its own thread and concatenates the outputs on
// the output device. The replica on the module's own device is the module itself; the others are
// clones (nn::Cloneable) whose parameters are differentiable copies (`.to(device)` inside
// autograd) of the module's, so backward sums every replica's gradient into the module's .grad.
// Buffers are copied to the other replicas each forward: running statistics updated there are
// dropped, those of the module's own device kept (PyTorch's behaviour). An error in a replica is
// rethrown (same locus error class) prefixed "[DataParallel] replica i on <device>: ".
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "locus/device.h"
#include "locus/nn/module.h"
#include "locus/tensor.h"

namespace locus::nn {
namespace parallel {

/// Runs a replica's forward; made by the templates below from the module's type.
using ReplicaForward = std::function<Tensor(Module&, const Tensor&)>;

/// Splits `input` along `dim` into at most devices.size() chunks of ceil(n / devices) and copies
/// chunk i to devices[i] (differentiable).
std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices, int64_t dim = 0);

/// Concatenates `outputs` on `device` along `dim` (differentiable); 0-dim outputs (per-replica
/// losses) become a vector, as in PyTorch.
Tensor gather(const std::vector<Tensor>& outputs, Device device, int64_t dim = 0);

/// One copy of `module` per device whose parameters are differentiable copies of the module's
/// (gradients flow back to it). The module must be Cloneable. libtorch's parallel::replicate.
std::vector<std::shared_ptr<Module>> replicate(const Module& module, const std::vector<Device>& devices);

/// Runs forward(modules[i], inputs[i]) for every i on its own thread (with devices[i] current)
/// and returns the outputs in order; rethrows the first error, naming the replica and its device.
std::vector<Tensor> parallel_apply(const std::vector<std::shared_ptr<Module>>& modules,
                                   const std::vector<Tensor>& inputs, const std::vector<Device>& devices,
                                   const ReplicaForward& forward);

/// libtorch's typed spellings of the two above: replicas of the module's own type, and
/// modules[i]->forward(inputs[i]) on devices[i] (default: each input's device).
template <typename ModuleType>
std::vector<std::shared_ptr<ModuleType>> replicate(const std::shared_ptr<ModuleType>& module,
                                                   const std::vector<Device>& devices) {
  std::vector<std::shared_ptr<ModuleType>> out;
  for (auto& r : replicate(static_cast<const Module&>(*module), devices))
    out.push_back(std::dynamic_pointer_cast<ModuleType>(r));
  return out;
}
template <typename ModuleType>
std::vector<Tensor> parallel_apply(std::vector<ModuleType>& modules, const std::vector<Tensor>& inputs,
                                   const std::optional<std::vector<Device>>& devices = std::nullopt) {
  using Impl = std::decay_t<decltype(*modules.front())>;
  std::vector<std::shared_ptr<Module>> ms;
  for (auto& m : modules) ms.push_back(std::shared_ptr<Impl>(m));
  std::vector<Device> devs;
  if (devices) devs = *devices;
  else
    for (const Tensor& t : inputs) devs.push_back(t.device());
  return parallel_apply(ms, inputs, devs, [](Module& m, const Tensor& x) { return static_cast<Impl&>(m).forward(x); });
}

namespace detail {
/// The whole step: scatter, replicate (or refresh `cache`), parallel_apply, gather. `op` names
/// the caller in messages.
Tensor run(const char* op, Module& module, const Tensor& input, std::vector<Device> devices, Device output_device,
           int64_t dim, const ReplicaForward& forward, std::vector<std::shared_ptr<Module>>* cache);
/// Every device of the module's device type (cpu: cpu alone).
std::vector<Device> default_devices(const Module& module);
template <typename M>
std::shared_ptr<M> shared(const std::shared_ptr<M>& m) {
  return m;
}
template <typename M>
std::shared_ptr<M> shared(const ModuleHolder<M>& m) {
  return m.ptr();
}
template <typename M>
ReplicaForward forward_of() {
  return [](Module& m, const Tensor& x) { return static_cast<M&>(m).forward(x); };
}
}  // namespace detail

/// libtorch's data_parallel: evaluates module(input) split over `devices` (default: every device
/// of the module's type), output on `output_device` (default devices[0]). With one device the
/// module and input are moved there and run directly, as libtorch does.
template <typename ModuleType>
Tensor data_parallel(ModuleType module, Tensor input, std::optional<std::vector<Device>> devices = std::nullopt,
                     std::optional<Device> output_device = std::nullopt, int64_t dim = 0) {
  auto ptr = detail::shared(module);
  using Impl = typename decltype(ptr)::element_type;
  std::vector<Device> devs = devices ? *devices : detail::default_devices(*ptr);
  Device out = output_device ? *output_device : (devs.empty() ? input.device() : devs.front());
  if (devs.size() == 1) {
    ptr->to(devs.front());
    return ptr->forward(input.to(devs.front())).to(out);
  }
  return detail::run("data_parallel", *ptr, input, std::move(devs), out, dim, detail::forward_of<Impl>(), nullptr);
}

}  // namespace parallel

/// PyTorch's nn.DataParallel. The wrapped module is registered as "module" (state dict keys
/// "module.<name>", as PyTorch's) and must live on devices[0]. Replicas are made at the first
/// forward and refreshed (parameters re-tied, buffers re-copied) at every later one.
class DataParallelImpl : public Module {
 public:
  template <typename ModuleType>
  explicit DataParallelImpl(ModuleType module, std::vector<Device> devices = {},
                            std::optional<Device> output_device = std::nullopt, int64_t dim = 0)
      : Module("locus::nn::DataParallel"), dim_(dim) {
    auto ptr = parallel::detail::shared(module);
    using Impl = typename decltype(ptr)::element_type;
    forward_ = parallel::detail::forward_of<Impl>();
    this->module = register_module("module", std::shared_ptr<Module>(ptr));
    init(std::move(devices), output_device);
  }
  Tensor forward(const Tensor& input);

  std::shared_ptr<Module> module;
  const std::vector<Device>& devices() const noexcept { return devices_; }
  Device output_device() const noexcept { return output_device_; }
  int64_t dim() const noexcept { return dim_; }

 private:
  void init(std::vector<Device> devices, std::optional<Device> output_device);
  parallel::ReplicaForward forward_;
  std::vector<Device> devices_;
  Device output_device_ = Device(kCPU);
  int64_t dim_;
  std::vector<std::shared_ptr<Module>> replicas_;
};
/// The holder: `nn::DataParallel dp(model, {Device("opencl:0"), Device("opencl:1")});` (a braced
/// device list works here, unlike through LOCUS_MODULE's forwarding constructor).
class DataParallel : public ModuleHolder<DataParallelImpl> {
 public:
  using Impl = DataParallelImpl;
  DataParallel(std::nullptr_t) : ModuleHolder(nullptr) {}
  DataParallel(std::shared_ptr<DataParallelImpl> impl) : ModuleHolder(std::move(impl)) {}
  template <typename ModuleType>
  explicit DataParallel(ModuleType module, std::vector<Device> devices = {},
                        std::optional<Device> output_device = std::nullopt, int64_t dim = 0)
      : ModuleHolder(std::make_shared<DataParallelImpl>(std::move(module), std::move(devices), output_device, dim)) {}
};

}  // namespace locus::nn
