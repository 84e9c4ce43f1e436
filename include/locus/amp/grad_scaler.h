#pragma once
// Loss scaling for float16 training: PyTorch's torch.amp.GradScaler.
//
//   locus::amp::GradScaler scaler;                      // init_scale 65536, growth 2, backoff 0.5, interval 2000
//   for (auto& batch : loader) {
//     opt.zero_grad();
//     Tensor loss;
//     {
//       locus::autocast::AutocastGuard ac(device, locus::kHalf);
//       loss = F::cross_entropy(model(batch.data), batch.target);
//     }
//     scaler.scale(loss).backward();  // gradients of loss * scale: small ones survive float16
//     scaler.step(opt);               // unscales in one fused pass per device; skips the step on inf/NaN
//     scaler.update();                // backs the scale off after a skipped step, grows it after 2000 good ones
//   }
//
// The gradients must be float32 (float32 master weights, autocast casting for the forward);
// unscaling float16 gradients throws, as in PyTorch. The scale is kept on the host as a float32
// value (PyTorch keeps a device tensor): step() reads the per-device inf flags anyway, and the
// arithmetic is the same float32 arithmetic.
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "locus/nn/module.h"  // LOCUS_ARG
#include "locus/nn/ordered_dict.h"
#include "locus/optim/optimizer.h"
#include "locus/tensor.h"

namespace locus::amp {

struct GradScalerOptions {
  LOCUS_ARG(double, init_scale) = 65536.0;
  LOCUS_ARG(double, growth_factor) = 2.0;    // must be > 1
  LOCUS_ARG(double, backoff_factor) = 0.5;   // must be < 1
  LOCUS_ARG(int64_t, growth_interval) = 2000;
  LOCUS_ARG(bool, enabled) = true;           // false: every method is a pass-through
};

class GradScaler {
 public:
  /// Throws locus::Error when growth_factor <= 1, backoff_factor >= 1 or growth_interval <= 0.
  explicit GradScaler(GradScalerOptions options = {});

  /// outputs * scale (outputs unchanged when disabled), in outputs' dtype.
  Tensor scale(const Tensor& outputs) const;
  std::vector<Tensor> scale(const std::vector<Tensor>& outputs) const;
  /// Divides the optimizer's gradients by the scale in place and records, per device, whether
  /// any is inf or NaN: one fused pass per device and dtype (ops: _amp_foreach_non_finite_check_and_unscale_).
  /// At most once per optimizer between update()s, and not after step(); throws otherwise.
  void unscale_(optim::Optimizer& optimizer);
  /// unscale_() unless already done, then optimizer.step() unless a gradient was inf or NaN.
  /// Returns step()'s result, or an undefined tensor when the step was skipped.
  Tensor step(optim::Optimizer& optimizer);
  /// After a step: the scale times backoff_factor when any optimizer saw inf/NaN since the last
  /// update (and the growth count restarts), times growth_factor after growth_interval
  /// consecutive good updates. With new_scale, sets the scale to it instead.
  void update(std::optional<double> new_scale = std::nullopt);

  /// The current scale (1.0 when disabled).
  double get_scale() const { return enabled_ ? scale_ : 1.0; }
  double get_growth_factor() const { return growth_factor_; }
  void set_growth_factor(double v) { growth_factor_ = v; }
  double get_backoff_factor() const { return backoff_factor_; }
  void set_backoff_factor(double v) { backoff_factor_ = v; }
  int64_t get_growth_interval() const { return growth_interval_; }
  void set_growth_interval(int64_t v) { growth_interval_ = v; }
  bool is_enabled() const { return enabled_; }
  /// Steps skipped for inf/NaN gradients since construction (not in PyTorch; locus-train prints it).
  int64_t skipped_steps() const { return skipped_; }

  /// PyTorch's keys: "scale", "growth_factor", "backoff_factor" (0-dim float64), "growth_interval",
  /// "_growth_tracker" (0-dim int64), all on cpu; empty when disabled.
  OrderedDict<std::string, Tensor> state_dict() const;
  /// Throws locus::Error on an empty dict (saved from a disabled scaler) or a missing key.
  void load_state_dict(const OrderedDict<std::string, Tensor>& state_dict);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    std::vector<std::pair<Device, Tensor>> found_inf;  // float32 [1] per device
  };
  float scale_;
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_;
  bool enabled_;
  int64_t growth_tracker_ = 0;
  int64_t skipped_ = 0;
  std::map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace locus::amp
