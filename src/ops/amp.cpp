// GradScaler's fused unscale and inf/NaN check (ops/amp.h): grads grouped by dtype, each group
// handed to the backend's non_finite_check_and_unscale in one call.
#include "ops/amp.h"

#include <limits>
#include <map>

#include "locus/autograd.h"
#include "locus/error.h"
#include "ops/checks.h"

namespace locus::ops {

void amp_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, Tensor& found_inf, double inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  if (!found_inf.defined() || found_inf.scalar_type() != kFloat || found_inf.numel() != 1)
    throw Error(std::string(op) + "(): found_inf must be a float32 tensor of one element, got " +
                (found_inf.defined() ? std::string(dtype_name(found_inf.scalar_type())) + " " + shape_str(found_inf.sizes())
                                     : std::string("an undefined tensor")) +
                ". Create it with locus::zeros({1}, device).");
  Device d = found_inf.device();
  NoGradGuard no_grad;
  std::map<ScalarType, std::vector<Tensor>> groups;  // dense gradients by dtype
  std::vector<std::pair<Tensor, Tensor>> strided;   // (gradient, its dense copy)
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    std::string name = "grads[" + std::to_string(i) + "]";
    check_same_device(op, {{"found_inf", &found_inf}, {name.c_str(), &g}});
    if (!g.is_floating_point())
      throw Error(std::string(op) + "(): " + name + " is " + dtype_name(g.scalar_type()) +
                  "; gradients are floating point. Pass the parameters' .grad() tensors.");
    if (g.numel() == 0) continue;
    Tensor dense = g;
    if (!g.is_contiguous()) {  // rare (a gradient set by hand): through a dense copy, written back below
      dense = g.contiguous();
      strided.emplace_back(g, dense);
    }
    groups[g.scalar_type()].push_back(dense);
  }
  const float inv = static_cast<float>(inv_scale);
  for (auto& [dtype, ts] : groups) {
    std::vector<backend::Buffer> bufs;
    std::vector<int64_t> numels;
    for (const Tensor& t : ts) bufs.push_back(ref(t, op).buf), numels.push_back(t.numel());
    if (backend_for(d).non_finite_check_and_unscale(backend::device_index(d), current_stream(d), dtype, bufs.data(),
                                                    numels.data(), static_cast<int>(bufs.size()), inv,
                                                    ref(found_inf, op).buf))
      continue;
    // a backend without the fused kernel: the same arithmetic from tensor ops, tensor by tensor
    for (Tensor& t : ts) {
      Tensor bad = t.ne(t).logical_or(t.abs().eq(std::numeric_limits<double>::infinity())).any();
      found_inf.copy_(found_inf.maximum(bad.to(kFloat).reshape({1})));
      t.mul_(static_cast<double>(inv));
    }
  }
  for (auto& [g, dense] : strided) g.copy_(dense);
}

}  // namespace locus::ops
