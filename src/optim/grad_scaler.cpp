// amp::GradScaler (include/locus/amp/grad_scaler.h): PyTorch's torch.amp.GradScaler, step for step.
#include "locus/amp/grad_scaler.h"

#include <algorithm>
#include <cmath>

#include "locus/autograd.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "ops/amp.h"

namespace locus::amp {

GradScaler::GradScaler(GradScalerOptions o)
    : scale_(static_cast<float>(o.init_scale())),
      growth_factor_(o.growth_factor()),
      backoff_factor_(o.backoff_factor()),
      growth_interval_(o.growth_interval()),
      enabled_(o.enabled()) {
  if (!(growth_factor_ > 1.0))
    throw Error("GradScaler: growth_factor must be > 1.0, got " + std::to_string(growth_factor_) +
                ". Use GradScalerOptions().growth_factor(2.0).");
  if (!(backoff_factor_ < 1.0))
    throw Error("GradScaler: backoff_factor must be < 1.0, got " + std::to_string(backoff_factor_) +
                ". Use GradScalerOptions().backoff_factor(0.5).");
  if (growth_interval_ <= 0)
    throw Error("GradScaler: growth_interval must be positive, got " + std::to_string(growth_interval_) +
                ". Use GradScalerOptions().growth_interval(2000).");
}

Tensor GradScaler::scale(const Tensor& outputs) const {
  if (!enabled_) return outputs;
  return outputs * static_cast<double>(scale_);
}

std::vector<Tensor> GradScaler::scale(const std::vector<Tensor>& outputs) const {
  std::vector<Tensor> out;
  out.reserve(outputs.size());
  for (const Tensor& t : outputs) out.push_back(scale(t));
  return out;
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!enabled_) return;
  PerOptimizer& st = per_optimizer_[&optimizer];
  if (st.stage == Stage::Unscaled)
    throw Error("[GradScaler::unscale_] unscale_() has already been called on this optimizer since the last "
                "update(). Call it at most once per step, before step().");
  if (st.stage == Stage::Stepped)
    throw Error("[GradScaler::unscale_] unscale_() is being called after step(). Call update() first.");
  // PyTorch: inv_scale = scale.double().reciprocal().float()
  double inv_scale = static_cast<double>(static_cast<float>(1.0 / static_cast<double>(scale_)));
  std::vector<std::pair<Device, std::vector<Tensor>>> per_device;
  for (auto& group : optimizer.param_groups())
    for (Tensor& p : group.params()) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      if (g.scalar_type() == kHalf)
        throw Error("[GradScaler::unscale_] Attempting to unscale FP16 gradients. Keep the parameters (master "
                    "weights) in float32 and let AutocastGuard run the forward in float16.");
      auto it = std::find_if(per_device.begin(), per_device.end(), [&](const auto& e) { return e.first == g.device(); });
      if (it == per_device.end()) it = per_device.insert(per_device.end(), {g.device(), {}});
      it->second.push_back(g);
    }
  st.found_inf.clear();
  for (auto& [d, grads] : per_device) {
    Tensor found = zeros({1}, TensorOptions().device(d).dtype(kFloat));
    ops::amp_non_finite_check_and_unscale_(grads, found, inv_scale);
    st.found_inf.emplace_back(d, found);
  }
  st.stage = Stage::Unscaled;
}

Tensor GradScaler::step(optim::Optimizer& optimizer) {
  if (!enabled_) return optimizer.step();
  PerOptimizer& st = per_optimizer_[&optimizer];
  if (st.stage == Stage::Stepped)
    throw Error("[GradScaler::step] step() has already been called since the last update(). Call update() first.");
  if (st.stage == Stage::Ready) unscale_(optimizer);
  if (st.found_inf.empty())
    throw Error("[GradScaler::step] No inf checks were recorded for this optimizer: none of its parameters has a "
                "gradient. Call backward() on scale(loss) before step().");
  double found = 0;
  for (auto& [d, f] : st.found_inf) found += f.item<double>();
  Tensor ret;
  if (found == 0) ret = optimizer.step();
  else ++skipped_;
  st.stage = Stage::Stepped;
  return ret;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!enabled_) return;
  if (new_scale) {
    scale_ = static_cast<float>(*new_scale);
  } else {
    bool found = false, any = false;
    for (auto& [opt, st] : per_optimizer_)
      for (auto& [d, f] : st.found_inf) {
        any = true;
        found = found || f.item<double>() != 0;
      }
    if (!any)
      throw Error("[GradScaler::update] No inf checks were recorded prior to update(). Call step() (or unscale_()) "
                  "on an optimizer first.");
    // PyTorch's _amp_update_scale_, in float32
    if (found) {
      scale_ = scale_ * static_cast<float>(backoff_factor_);
      growth_tracker_ = 0;
    } else if (growth_tracker_ + 1 == growth_interval_) {
      float grown = scale_ * static_cast<float>(growth_factor_);
      if (std::isfinite(grown)) scale_ = grown;
      growth_tracker_ = 0;
    } else {
      ++growth_tracker_;
    }
  }
  per_optimizer_.clear();
}

OrderedDict<std::string, Tensor> GradScaler::state_dict() const {
  OrderedDict<std::string, Tensor> out;
  if (!enabled_) return out;
  auto f64 = [](double v) { return full({}, v, TensorOptions().dtype(kDouble)); };
  auto i64 = [](int64_t v) { return full({}, static_cast<double>(v), TensorOptions().dtype(kLong)); };
  out.insert("scale", f64(scale_));
  out.insert("growth_factor", f64(growth_factor_));
  out.insert("backoff_factor", f64(backoff_factor_));
  out.insert("growth_interval", i64(growth_interval_));
  out.insert("_growth_tracker", i64(growth_tracker_));
  return out;
}

void GradScaler::load_state_dict(const OrderedDict<std::string, Tensor>& sd) {
  if (!enabled_) return;
  if (sd.is_empty())
    throw Error("[GradScaler::load_state_dict] The source state dict is empty, possibly because it was saved from "
                "a disabled instance of GradScaler.");
  auto get = [&](const char* key) {
    const Tensor* t = sd.find(key);
    if (t == nullptr || !t->defined() || t->numel() != 1)
      throw Error(std::string("[GradScaler::load_state_dict] the state dict has no scalar \"") + key +
                  "\"; expected the keys of [GradScaler::state_dict] scale, growth_factor, backoff_factor, "
                  "growth_interval, _growth_tracker.");
    return t->item<double>();
  };
  scale_ = static_cast<float>(get("scale"));
  growth_factor_ = get("growth_factor");
  backoff_factor_ = get("backoff_factor");
  growth_interval_ = static_cast<int64_t>(get("growth_interval"));
  growth_tracker_ = static_cast<int64_t>(get("_growth_tracker"));
}

}  // namespace locus::amp
