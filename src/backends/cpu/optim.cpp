// Fused optimizer updates: one pass over a parameter and its state instead of a dozen tensor ops
// (the Adam update was half of a small MLP's training step).
#include <cmath>

#include "backends/cpu/kernels.h"

namespace locus::cpu {
namespace {

// torch.optim.Adam / AdamW (single-tensor path), element by element, in T's precision. The
// variants are separate instantiations so that each inner loop is branch-free and vectorises.
template <class T, bool kAmsgrad, int kDecay /* 0 none, 1 on the gradient, 2 decoupled (AdamW) */>
LOCUS_CPU_CLONES void adam_range(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                                 T* __restrict mx, int64_t lo, int64_t hi, const backend::Backend::Adam& a) {
  const T b1 = static_cast<T>(a.beta1), b2 = static_cast<T>(a.beta2), wd = static_cast<T>(a.weight_decay);
  const T eps = static_cast<T>(a.eps), c1 = T(1) - b1, c2 = T(1) - b2;
  const T step = static_cast<T>(a.lr / a.bias_correction1), root_bc2 = static_cast<T>(std::sqrt(a.bias_correction2));
  const T decay = static_cast<T>(1 - a.lr * a.weight_decay);
  for (int64_t i = lo; i < hi; ++i) {
    T pi = p[i], gi = g[i];
    if constexpr (kDecay == 2) pi = pi * decay;
    if constexpr (kDecay == 1) gi = gi + pi * wd;
    T mi = m[i] * b1 + gi * c1;
    T vi = v[i] * b2 + gi * gi * c2;
    m[i] = mi;
    v[i] = vi;
    T s = vi;
    if constexpr (kAmsgrad) {
      s = mx[i] > vi ? mx[i] : vi;
      mx[i] = s;
    }
    T denom = std::sqrt(s) / root_bc2 + eps;
    p[i] = pi - step * (mi / denom);
  }
}

template <class T, bool kAmsgrad>
void adam_typed(T* p, const T* g, T* m, T* v, T* mx, int64_t n, const backend::Backend::Adam& a) {
  int decay = a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1;
  parallel_for(0, n, kGrainMath, [&](int64_t lo, int64_t hi) {
    if (decay == 0) adam_range<T, kAmsgrad, 0>(p, g, m, v, mx, lo, hi, a);
    else if (decay == 1) adam_range<T, kAmsgrad, 1>(p, g, m, v, mx, lo, hi, a);
    else adam_range<T, kAmsgrad, 2>(p, g, m, v, mx, lo, hi, a);
  });
}

}  // namespace

void adam_step(ScalarType dtype, Buffer param, Buffer grad, Buffer exp_avg, Buffer exp_avg_sq, Buffer max_sq,
               int64_t n, const backend::Backend::Adam& a) {
  auto run = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* p = data_as<T>(param);
    const T* g = data_as<const T>(grad);
    T* m = data_as<T>(exp_avg);
    T* v = data_as<T>(exp_avg_sq);
    if (max_sq.base != nullptr) adam_typed<T, true>(p, g, m, v, data_as<T>(max_sq), n, a);
    else adam_typed<T, false>(p, g, m, v, nullptr, n, a);
  };
  if (dtype == kFloat) run(static_cast<float*>(nullptr));
  else if (dtype == kDouble) run(static_cast<double*>(nullptr));
  else unsupported("adam_step", dtype);
}

}  // namespace locus::cpu
