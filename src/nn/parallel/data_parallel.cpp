// DataParallel and data_parallel: scatter, replicate, parallel_apply, gather.
//
// Replicas are Cloneable clones; what makes them differentiable is tie(): each replica parameter
// (a tensor the clone's layers hold, so it must stay the same TensorImpl) takes the storage of
// `original.to(device)` computed with grad mode on, and that copy's autograd history (its grad_fn
// edge leads to the original's AccumulateGrad). backward() therefore sends every replica's
// gradient back through ToBackward to the original's device, where AccumulateGrad sums them.
// This is PyTorch's replicate (Broadcast, whose backward is ReduceAddCoalesced) with the
// autograd engine doing the reduction. Ties are made on the calling thread before any replica
// runs, so the original's AccumulateGrad node exists before the replica threads look it up.
#include "locus/nn/parallel/data_parallel.h"

#include <exception>
#include <sstream>
#include <thread>

#include "autograd/meta.h"
#include "core/tensor_impl.h"
#include "locus/autograd.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/functions.h"
#include "locus/guard.h"

namespace locus::nn {
namespace parallel {
namespace {

Device resolved(Device d) { return !d.is_cpu() && !d.has_index() ? resolve_device(d) : d; }

std::string prefix(const char* op) { return std::string("[") + op + "] "; }

/// Rethrows `e` as the same locus error class with `what` prepended.
[[noreturn]] void rethrow_with(std::exception_ptr e, const std::string& what) {
  try {
    std::rethrow_exception(e);
  } catch (const DeviceMismatchError& x) {
    throw DeviceMismatchError(what + x.what());
  } catch (const OutOfMemoryError& x) {
    throw OutOfMemoryError(what + x.what());
  } catch (const NotAvailableError& x) {
    throw NotAvailableError(what + x.what());
  } catch (const CheckpointError& x) {
    throw CheckpointError(what + x.what());
  } catch (const DistributedError& x) {
    throw DistributedError(what + x.what());
  } catch (const BackendError& x) {
    throw BackendError(what + x.what());
  } catch (const std::exception& x) {
    throw Error(what + x.what());
  } catch (...) {
    throw Error(what + "an exception that is not a std::exception.");
  }
}

/// Makes the clone's parameter `replica` a differentiable copy of `original` on `d`.
void tie(const Tensor& original, const Tensor& replica, Device d) {
  Tensor src;
  {
    AutoGradMode keep(GradMode::is_enabled());
    // .to() of a tensor already on d returns it; a view gives the replica its own history node.
    src = original.device() == d ? original.view(original.sizes()) : original.to(d);
  }
  replica.set_data(src);
  const TensorImpl* s = src.unsafeGetTensorImpl();
  TensorImpl* r = replica.unsafeGetTensorImpl();
  if (s->autograd && s->autograd->grad_fn) {
    auto meta = std::make_shared<autograd::AutogradMeta>();
    meta->requires_grad = true;
    meta->grad_fn = s->autograd->grad_fn;
    meta->output_nr = s->autograd->output_nr;
    r->autograd = std::move(meta);
  } else {
    r->autograd = nullptr;  // grad mode off or a frozen parameter: a plain copy
  }
}

/// Re-ties `replica` (never the module itself) to `module` on `d`: parameters as above, buffers
/// copied, the training mode copied. False when their structure differs.
bool refresh(const Module& module, Module& replica, Device d) {
  auto mp = module.named_parameters(), rp = replica.named_parameters();
  auto mb = module.named_buffers(), rb = replica.named_buffers();
  if (mp.keys() != rp.keys() || mb.keys() != rb.keys()) return false;
  std::vector<Tensor> mpv = mp.values(), rpv = rp.values(), mbv = mb.values(), rbv = rb.values();
  for (size_t i = 0; i < mpv.size(); ++i)
    if (mpv[i].sizes() != rpv[i].sizes() || mpv[i].scalar_type() != rpv[i].scalar_type()) return false;
  for (size_t i = 0; i < mpv.size(); ++i) tie(mpv[i], rpv[i], d);
  NoGradGuard no_grad;
  for (size_t i = 0; i < mbv.size(); ++i) {
    Tensor b = mbv[i].to(d);
    if (b.is_same(mbv[i])) b = b.clone();  // a second replica on the module's device: its own copy
    rbv[i].set_data(b);
  }
  replica.train(module.is_training());
  return true;
}

}  // namespace

std::vector<Tensor> scatter(const Tensor& input, const std::vector<Device>& devices, int64_t dim) {
  if (devices.empty()) throw Error("[scatter] devices is empty: pass at least one device.");
  if (!input.defined()) throw Error("[scatter] the input is an undefined tensor.");
  int64_t nd = input.dim();
  if (nd == 0)
    throw Error("[scatter] the input is a 0-dim tensor, which has no batch dimension to split; pass a batch of at "
                "least one dimension.");
  if (dim < -nd || dim >= nd) {
    std::ostringstream os;
    os << "[scatter] dim " << dim << " is out of range for an input of " << nd << " dimensions " << input.sizes()
       << ": the batch is split along dim, which must be in [" << -nd << ", " << nd - 1 << "].";
    throw Error(os.str());
  }
  if (dim < 0) dim += nd;
  int64_t n = input.size(dim);
  if (n == 0) throw Error("[scatter] the batch (dim " + std::to_string(dim) + ") is empty; there is nothing to split.");
  int64_t k = static_cast<int64_t>(devices.size());
  int64_t chunk = (n + k - 1) / k;  // torch.chunk's sizes: ceil(n / k), the last one smaller
  std::vector<Tensor> out;
  for (int64_t start = 0, i = 0; start < n; start += chunk, ++i)
    out.push_back(input.narrow(dim, start, std::min(chunk, n - start)).to(resolved(devices[static_cast<size_t>(i)])));
  return out;
}

Tensor gather(const std::vector<Tensor>& outputs, Device device, int64_t dim) {
  if (outputs.empty()) throw Error("[gather] there are no outputs to gather.");
  device = resolved(device);
  std::vector<Tensor> moved;
  bool scalars = true;
  for (const Tensor& t : outputs) scalars = scalars && t.defined() && t.dim() == 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.defined()) throw Error("[gather] replica " + std::to_string(i) + " returned an undefined tensor.");
    moved.push_back(scalars ? t.to(device).unsqueeze(0) : t.to(device));
  }
  if (scalars) return cat(moved, 0);  // per-replica scalars (losses) as a vector, as PyTorch does
  return cat(moved, dim);
}

std::vector<std::shared_ptr<Module>> replicate(const Module& module, const std::vector<Device>& devices) {
  std::vector<std::shared_ptr<Module>> out;
  for (Device d : devices) {
    d = resolved(d);
    std::shared_ptr<Module> r = module.clone(d);
    refresh(module, *r, d);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Tensor> parallel_apply(const std::vector<std::shared_ptr<Module>>& modules,
                                   const std::vector<Tensor>& inputs, const std::vector<Device>& devices,
                                   const ReplicaForward& forward) {
  if (modules.size() != inputs.size() || modules.size() != devices.size())
    throw Error("[parallel_apply] got " + std::to_string(modules.size()) + " modules, " +
                std::to_string(inputs.size()) + " inputs and " + std::to_string(devices.size()) +
                " devices; pass one input and one device per module.");
  size_t n = modules.size();
  std::vector<Tensor> out(n);
  std::vector<std::exception_ptr> errors(n);
  bool grad = GradMode::is_enabled();
  auto work = [&](size_t i) {
    try {
      AutoGradMode mode(grad);  // thread-local state the caller had
      DeviceGuard guard(devices[i]);
      out[i] = forward(*modules[i], inputs[i]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work, i);
  if (n > 0) work(0);  // the caller runs replica 0
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < n; ++i)
    if (errors[i]) rethrow_with(errors[i], "replica " + std::to_string(i) + " on " + devices[i].str() + ": ");
  return out;
}

namespace detail {

std::vector<Device> default_devices(const Module& module) {
  Device d = device_of(module);
  if (d.is_cpu()) return {d};
  std::vector<Device> out;
  for (int i = 0; i < device_count(d.type()); ++i) out.emplace_back(d.type(), static_cast<DeviceIndex>(i));
  return out;
}

Tensor run(const char* op, Module& module, const Tensor& input, std::vector<Device> devices, Device output_device,
           int64_t dim, const ReplicaForward& forward, std::vector<std::shared_ptr<Module>>* cache) {
  if (devices.empty())
    throw Error(prefix(op) + "devices is empty: pass at least one device, e.g. {opencl:0, opencl:1}.");
  for (Device& d : devices) {
    d = resolved(d);
    try {
      check_device_available(d);
    } catch (const NotAvailableError& e) {
      throw NotAvailableError(prefix(op) + e.what());
    }
  }
  output_device = resolved(output_device);
  try {
    check_device_available(output_device);
  } catch (const NotAvailableError& e) {
    throw NotAvailableError(prefix(op) + "output_device: " + e.what());
  }
  std::vector<Tensor> chunks;
  try {
    chunks = scatter(input, devices, dim);
  } catch (const Error& e) {
    std::string m = e.what();
    throw Error(prefix(op) + m.substr(m.find("] ") + 2));
  }
  devices.erase(devices.begin() + static_cast<std::ptrdiff_t>(chunks.size()), devices.end());
  // The module runs as the replica of its own device (the first one of that device).
  std::optional<Device> home;
  try {
    home = device_of(module);
  } catch (const DeviceMismatchError&) {
  }
  std::vector<std::shared_ptr<Module>> replicas(devices.size());
  bool home_used = false;
  if (cache && cache->size() < devices.size()) cache->resize(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!home_used && home && devices[i] == *home) {
      replicas[i] = module.shared_from_this();
      home_used = true;
      continue;
    }
    std::shared_ptr<Module>* slot = cache ? &(*cache)[i] : nullptr;
    if (slot && *slot && device_of(**slot) == devices[i] && refresh(module, **slot, devices[i])) {
      replicas[i] = *slot;
      continue;
    }
    replicas[i] = replicate(module, {devices[i]}).front();
    if (slot) *slot = replicas[i];
  }
  std::vector<Tensor> outs;
  try {
    outs = parallel_apply(replicas, chunks, devices, forward);
  } catch (...) {
    rethrow_with(std::current_exception(), prefix(op));
  }
  return gather(outs, output_device, dim);
}

}  // namespace detail
}  // namespace parallel

// ---- DataParallel ---------------------------------------------------------------------------
void DataParallelImpl::init(std::vector<Device> devices, std::optional<Device> output_device) {
  devices_ = devices.empty() ? parallel::detail::default_devices(*module) : std::move(devices);
  if (devices_.empty()) throw Error("[DataParallel] devices is empty: pass at least one device.");
  output_device_ = output_device ? *output_device : devices_.front();
}

Tensor DataParallelImpl::forward(const Tensor& input) {
  Device first = devices_.front();
  if (!first.is_cpu() && !first.has_index()) first = resolve_device(first);
  Device home = device_of(*module);
  if (home != first) {
    std::ostringstream os;
    os << "[DataParallel] the module must have its parameters and buffers on devices[0] (" << first
       << "), but they are on " << home << "; move it with .to(" << first << ") first.";
    throw DeviceMismatchError(os.str());
  }
  return parallel::detail::run("DataParallel", *module, input, devices_, output_device_, dim_, forward_, &replicas_);
}

}  // namespace locus::nn
