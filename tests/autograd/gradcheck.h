#pragma once
// Finite-difference gradient checks in float64 on any device.
#include <functional>
#include <vector>

#include "testing.h"

/// Checks the autograd gradients of sum(f(inputs) * w) (w fixed, non-uniform) against central
/// differences. Inputs are given on cpu as float64 and moved to `device`; f runs there.
#define gradcheck(...)            \
  do {                              \
    SCOPED_TRACE("gradcheck here"); \
    gradcheck_impl(__VA_ARGS__);    \
  } while (0)

inline void gradcheck_impl(const std::function<locus::Tensor(const std::vector<locus::Tensor>&)>& f,
                      const std::vector<locus::Tensor>& inputs_cpu, locus::Device device, double eps = 1e-6,
                      double tol = 1e-5) {
  using namespace locus;
  std::vector<Tensor> inputs;
  for (const Tensor& t : inputs_cpu) inputs.push_back(t.to(device, kDouble, false, /*copy=*/true).requires_grad_(true));
  Tensor out = f(inputs);
  ASSERT_TRUE(out.requires_grad()) << "the output does not require grad";
  Tensor w = (arange(out.numel(), TensorOptions().dtype(kDouble)) * 0.37 + 0.5).sin().reshape(out.sizes()).to(device);
  auto scalar = [&](const std::vector<Tensor>& in) { return (f(in) * w).sum().item<double>(); };
  (out * w).sum().backward();
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::vector<double> analytic = inputs[k].grad().defined() ? values(inputs[k].grad())
                                                              : std::vector<double>(inputs[k].numel(), 0.0);
    ASSERT_EQ(static_cast<int64_t>(analytic.size()), inputs_cpu[k].numel());
    Tensor base = inputs_cpu[k].to(kDouble).contiguous();
    for (int64_t i = 0; i < base.numel(); ++i) {
      NoGradGuard no_grad;
      std::vector<Tensor> plus, minus;
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (j != k) {
          plus.push_back(inputs[j].detach());
          minus.push_back(inputs[j].detach());
          continue;
        }
        Tensor p = base.clone(), m = base.clone();
        p.data_ptr<double>()[i] += eps;
        m.data_ptr<double>()[i] -= eps;
        plus.push_back(p.to(device));
        minus.push_back(m.to(device));
      }
      double numeric = (scalar(plus) - scalar(minus)) / (2 * eps);
      if (std::abs(analytic[i] - numeric) > tol * std::max(1.0, std::abs(numeric))) {
        ADD_FAILURE() << "gradient of input " << k << " element " << i << " on " << device << ": autograd "
                      << analytic[i] << ", finite differences " << numeric;
        break;  // one report per input
      }
    }
  }
}

/// Checks the gradients of sum(f() * w) with respect to `leaves` (float64 tensors that f reads,
/// such as a module's parameters and its input, on any device) against central differences,
/// perturbing each leaf in place. f must be deterministic (reseed inside it for dropout).
#define gradcheck_leaves(...)        \
  do {                              \
    SCOPED_TRACE("gradcheck here"); \
    gradcheck_leaves_impl(__VA_ARGS__); \
  } while (0)

inline void gradcheck_leaves_impl(const std::function<locus::Tensor()>& f, const std::vector<locus::Tensor>& leaves,
                                  double eps = 1e-6, double tol = 1e-5) {
  using namespace locus;
  for (const Tensor& p : leaves) {
    ASSERT_TRUE(p.requires_grad() && p.is_leaf() && p.scalar_type() == kDouble && p.is_contiguous());
    const_cast<Tensor&>(p).mutable_grad() = Tensor();
  }
  Tensor out = f();
  ASSERT_TRUE(out.requires_grad()) << "the output does not require grad";
  Tensor w = (arange(out.numel(), TensorOptions().dtype(kDouble)) * 0.37 + 0.5).sin().reshape(out.sizes()).to(out.device());
  auto scalar = [&] { return (f() * w).sum().item<double>(); };
  (out * w).sum().backward();
  for (size_t k = 0; k < leaves.size(); ++k) {
    std::vector<double> analytic = leaves[k].grad().defined() ? values(leaves[k].grad())
                                                              : std::vector<double>(leaves[k].numel(), 0.0);
    std::vector<double> base = values(leaves[k]);
    NoGradGuard no_grad;
    Tensor flat = leaves[k].detach().view({-1});
    for (int64_t i = 0; i < flat.numel(); ++i) {
      Tensor e = flat.narrow(0, i, 1);
      e.fill_(base[i] + eps);
      double plus = scalar();
      e.fill_(base[i] - eps);
      double minus = scalar();
      e.fill_(base[i]);
      double numeric = (plus - minus) / (2 * eps);
      if (std::abs(analytic[i] - numeric) > tol * std::max(1.0, std::abs(numeric))) {
        ADD_FAILURE() << "gradient of leaf " << k << " element " << i << " on " << leaves[k].device() << ": autograd "
                      << analytic[i] << ", finite differences " << numeric;
        break;
      }
    }
  }
}

/// A small float64 cpu tensor with distinct, non-integer values.
inline locus::Tensor sample(std::vector<int64_t> sizes, double offset = 0.0) {
  using namespace locus;
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return ((arange(n, TensorOptions().dtype(kDouble)) * 0.731 + offset).sin() * 1.3).reshape(sizes);
}
