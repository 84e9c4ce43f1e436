// The fused Adam / AdamW update (optim.cl) for every GPU runtime: one launch per parameter,
// out of place (Backend::adam_step_into), instead of the dozen elementwise launches the composed
// update makes.
#include <cmath>

#include "backends/gpu/gpu_backend.h"

namespace locus::gpu {

namespace {
struct AdamArgs {  // optim.cl: AdamArgs
  Scalar beta1, beta2, weight_decay, eps, step, root_bc2, decay;
};
}  // namespace

bool GpuBackend::adam_step_into(int index, StreamHandle s, ScalarType dtype, const AdamBuffers& out,
                                const AdamBuffers& in, Buffer grad, int64_t n, const Adam& a) {
  if (dtype != kFloat && !(dtype == kDouble && caps(index).fp64)) return false;
  if (n == 0) return true;
  AdamArgs k{make_scalar(a.beta1, dtype),
             make_scalar(a.beta2, dtype),
             make_scalar(a.weight_decay, dtype),
             make_scalar(a.eps, dtype),
             make_scalar(a.lr / a.bias_correction1, dtype),
             make_scalar(std::sqrt(a.bias_correction2), dtype),
             make_scalar(1 - a.lr * a.weight_decay, dtype)};
  const bool amsgrad = in.max_sq.base != nullptr;
  const int32_t decay = a.weight_decay == 0 ? 0 : a.decoupled ? 2 : 1;
  // without AMSGrad the max_sq slots repeat the moment buffers: never read or written
  const Buffer nx = amsgrad ? out.max_sq : out.exp_avg_sq, x = amsgrad ? in.max_sq : in.exp_avg_sq;
  Launch(*this, index, s, kernel(index, "optim.cl", dtype, "adam_step", ""))
      .buf(out.param)
      .buf(out.exp_avg)
      .buf(out.exp_avg_sq)
      .buf(nx)
      .buf(in.param)
      .buf(grad)
      .buf(in.exp_avg)
      .buf(in.exp_avg_sq)
      .buf(x)
      .arg(n)
      .arg(k)
      .arg(int32_t{amsgrad})
      .arg(decay)
      .run1d(n);
  return true;
}

}  // namespace locus::gpu
