// Reductions and softmax: dims are wrapped and checked here; the backend reduces trailing dims.
#include <algorithm>
#include <cmath>

#include "core/tensor_impl.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "autograd/record.h"
#include "ops/autocast.h"
#include "ops/checks.h"

namespace locus {
namespace {

using backend::ReduceOp;

const char* reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::ArgMax: return "argmax";
    case ReduceOp::ArgMin: return "argmin";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Any: return "any";
    case ReduceOp::All: return "all";
  }
  return "reduce";
}

// Reduces `dims` of `a` (all dims when empty and `all` is set) into a tensor of dtype `out_dtype`.
// no_dim_form: the op was called without dims (x.sum()): its node is named as libtorch names that
// overload's (SumBackward0, not SumBackward1).
Tensor reduce_impl(ReduceOp op, const Tensor& a, IntArrayRef dims_in, bool all, bool keepdim, ScalarType in_dtype,
                   ScalarType out_dtype, bool no_dim_form = false) {
  const char* name = reduce_name(op);
  int64_t nd = a.dim();
  std::vector<bool> red(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  if (all || dims_in.empty()) {
    std::fill(red.begin(), red.end(), true);
  } else {
    for (int64_t d : dims_in) {
      int64_t w = detail::wrap_dim(d, nd, name);
      if (red[w]) throw Error("[" + std::string(name) + "] dim " + std::to_string(w) + " appears multiple times in the list of dims.");
      red[w] = true;
    }
  }
  bool needs_nonempty = op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  DimVector out_sizes, kept_sizes, perm;
  int64_t reduced_numel = 1;
  for (int64_t i = 0; i < nd; ++i) {
    if (red[i]) {
      reduced_numel *= a.size(i);
      if (keepdim) out_sizes.push_back(1);
    } else {
      out_sizes.push_back(a.size(i));
      kept_sizes.push_back(a.size(i));
      perm.push_back(i);
    }
  }
  for (int64_t i = 0; i < nd; ++i)
    if (red[i]) perm.push_back(i);
  if (needs_nonempty && reduced_numel == 0)
    throw Error("[" + std::string(name) + "] cannot reduce over a dimension of size 0 (the input has shape " +
                ops::shape_str(a.sizes()) + "); there is no identity for " + name + ". Specify a non-empty dim.");
  Device d = a.device();
  Tensor in = ops::cast(a, in_dtype);
  Tensor out = detail::make_empty(kept_sizes, out_dtype, d);
  if (out.numel() == 0) return keepdim ? out.view(out_sizes) : out;
  Tensor pin = nd == 0 ? in.reshape({1}) : in.permute(perm);
  backend::TensorRef o = ops::ref(out, name), x = ops::ref(pin, name);
  if (nd == 0) {  // a 0-dim input reduces over one dim of size 1
    o.ndim = 0;
  }
  if (op == ReduceOp::ArgMax || op == ReduceOp::ArgMin) {
    // exactly one trailing reduced dim: flatten the reduced dims (contiguous copy when needed)
    int64_t nred = x.ndim - o.ndim;
    if (nred != 1) {
      DimVector shp(kept_sizes);
      shp.push_back(reduced_numel);
      pin = pin.reshape(shp);
      x = ops::ref(pin, name);
    }
  }
  ops::backend_for(d).reduce(backend::device_index(d), ops::current_stream(d), op, o, x);
  Tensor result = keepdim ? out.view(out_sizes) : out;
  if (autograd::should_record(in)) autograd::on_reduce(op, result, in, red, keepdim, no_dim_form);
  return result;
}

ScalarType sum_dtype(const Tensor& a, std::optional<ScalarType> dt) {
  if (dt) return *dt;
  return is_floating_point(a.scalar_type()) ? a.scalar_type() : kLong;
}

namespace {
// Running sums of a contiguous host tensor [outer, n, inner] along n, accumulated in A (double for
// float, as PyTorch's CPU kernel does), each output rounded once.
// (The same loop makes running products with `product` set.)
template <class T, class A>
void cumsum_host(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool product = false) {
  std::vector<A> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), A(product ? 1 : 0));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = (o * n + i) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        A& a = acc[static_cast<size_t>(j)];
        a = product ? a * static_cast<A>(x[r + j]) : a + static_cast<A>(x[r + j]);
        y[r + j] = static_cast<T>(a);
      }
    }
  }
}

// Running sums (or products) along d on any device, from existing ops: ceil(log2 n) steps of
// y[k:] += y[:-k] (Hillis and Steele's scan), each a few whole-tensor ops rather than n small ones.
Tensor cumsum_scan(Tensor y, int64_t d, bool product = false) {
  const int64_t n = y.size(d);
  for (int64_t k = 1; k < n; k *= 2) {
    Tensor tail = product ? y.narrow(d, k, n - k) * y.narrow(d, 0, n - k) : y.narrow(d, k, n - k) + y.narrow(d, 0, n - k);
    y = cat({y.narrow(d, 0, k), tail}, d);
  }
  return y;
}

// cumsum and cumprod without autograd: the input in `o`, then the host loop or the scan.
Tensor cumulative(const Tensor& self, int64_t d, ScalarType o, bool product) {
  AutoGradMode off(false);
  Tensor x = self.to(o).contiguous();
  Tensor out;
  if (x.dim() == 0 || x.numel() == 0) {
    out = x;
  } else if (x.device().is_cpu() && (o == kFloat || o == kDouble || o == kLong)) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= x.size(i);
    for (int64_t i = d + 1; i < x.dim(); ++i) inner *= x.size(i);
    out = empty(x.sizes(), x.options());
    const int64_t n = x.size(d);
    if (o == kFloat) cumsum_host<float, double>(x.data_ptr<float>(), out.data_ptr<float>(), outer, n, inner, product);
    else if (o == kDouble) cumsum_host<double, double>(x.data_ptr<double>(), out.data_ptr<double>(), outer, n, inner, product);
    else cumsum_host<int64_t, int64_t>(x.data_ptr<int64_t>(), out.data_ptr<int64_t>(), outer, n, inner, product);
  } else {
    out = cumsum_scan(x, d, product);
  }
  return out.is_same(self) ? self.clone() : out;  // a new tensor, never the input
}

Tensor reverse_cumsum(const Tensor& g, int64_t d) { return g.flip({d}).cumsum(d).flip({d}); }
}  // namespace

ScalarType mean_dtype(const Tensor& a, std::optional<ScalarType> dt, const char* op) {
  ScalarType t = dt.value_or(a.scalar_type());
  if (!locus::is_floating_point(t))
    throw Error("[" + std::string(op) + "] could not infer output dtype. Input dtype must be either a floating point or "
                "complex dtype. Got: " + toString(t) + ". Convert with .to(locus::kFloat) or pass dtype.");
  return t;
}

}  // namespace

namespace {
namespace ac = ops::autocast;
// sum, prod, softmax, log_softmax on the float32 lists: float32 unless a dtype is given
ac::Cast float32_unless(ac::Op op, const Tensor& t, std::optional<ScalarType> dt) {
  return dt ? ac::Cast::None : ac::policy(op, t.device());
}
}  // namespace

Tensor Tensor::sum(std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::Sum, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).sum(dt); });
  ScalarType o = sum_dtype(*this, dt);
  return reduce_impl(ReduceOp::Sum, *this, {}, true, false, locus::is_floating_point(o) ? o : scalar_type(), o, true);
}
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::Sum, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).sum(dims, keepdim, dt); });
  ScalarType o = sum_dtype(*this, dt);
  return reduce_impl(ReduceOp::Sum, *this, dims, dims.empty(), keepdim, locus::is_floating_point(o) ? o : scalar_type(), o);
}
Tensor Tensor::mean(std::optional<ScalarType> dt) const {
  ScalarType o = mean_dtype(*this, dt, "mean");
  return reduce_impl(ReduceOp::Mean, *this, {}, true, false, o, o, true);
}
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dt) const {
  ScalarType o = mean_dtype(*this, dt, "mean");
  return reduce_impl(ReduceOp::Mean, *this, dims, dims.empty(), keepdim, o, o);
}
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dt) const {
  const int64_t d = detail::wrap_dim(dim, this->dim(), "cumsum");
  Tensor out = cumulative(*this, d, sum_dtype(*this, dt), false);
  if (autograd::should_record(*this)) {
    const ScalarType in = scalar_type();
    // the gradient of running sums: running sums of the gradient from the other end
    autograd::record("CumsumBackward0", out, {this}, [d, in](const Tensor& g) -> autograd::variable_list {
      return {reverse_cumsum(g, d).to(in)};
    });
  }
  return out;
}

Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dt) const {
  const int64_t d = detail::wrap_dim(dim, this->dim(), "cumprod");
  Tensor out = cumulative(*this, d, sum_dtype(*this, dt), true);
  if (autograd::should_record(*this)) {
    const ScalarType in = scalar_type();
    // d out_j / d x_i = prod_{k <= j, k != i} x_k for j >= i. Before a slice's first zero z that is
    // out_j / x_i; at z it is prod_{k < z} x_k times prod_{z < k <= j} x_k; after z it is 0 (as
    // PyTorch's cumprod_backward, exact with zeros, and made of ops so it differentiates again).
    const Tensor x = to(out.scalar_type());
    // the output saved detached (no cycle through this node); made again when differentiating twice
    const Tensor saved = out.detach();
    autograd::record("CumprodBackward0", out, {this}, [d, x, saved, in](const Tensor& g) -> autograd::variable_list {
      if (x.dim() == 0 || x.numel() == 0) return {g.to(in)};
      const Tensor out = GradMode::is_enabled() ? x.cumprod(d) : saved;
      const Tensor zeros_so_far = (x == 0).cumsum(d);
      const Tensor before = zeros_so_far == 0, first_zero = (x == 0).logical_and(zeros_so_far == 1);
      const Tensor x_before = locus::where(before, x, 1.0);  // 1 from the first zero on
      Tensor grad = locus::where(before, reverse_cumsum(g * out, d) / x_before, 0.0);
      if (first_zero.any().item<bool>()) {
        const Tensor prefix = x_before.cumprod(d);  // at z: prod_{k < z} x_k
        const Tensor after = locus::where(before.logical_or(first_zero), 1.0, x).cumprod(d);  // prod_{z < k <= j} x_k
        grad = grad + locus::where(first_zero, reverse_cumsum(g * after, d) * prefix, 0.0);
      }
      return {grad.to(in)};
    });
  }
  return out;
}

namespace {
Tensor prod_grad(const Tensor& g, const Tensor& x, int64_t d);  // ops batch (stop 46), below
}  // namespace

Tensor Tensor::prod(std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::Prod, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).prod(dt); });
  ScalarType o = sum_dtype(*this, dt);
  ScalarType in_dt = locus::is_floating_point(o) ? o : scalar_type();
  if (!autograd::should_record(*this)) return reduce_impl(ReduceOp::Prod, *this, {}, true, false, in_dt, o);
  // ops batch (stop 46): PyTorch's prod_backward, exact with zeros: result / x without zeros, the
  // product of the others at a single zero, zeros with more than one
  Tensor out = reduce_impl(ReduceOp::Prod, detach(), {}, true, false, in_dt, o);
  const Tensor x = *this, saved = out.detach();
  const ScalarType in = scalar_type();
  auto backward = [x, saved, in](const Tensor& g) -> autograd::variable_list {
    if (x.dim() == 0) return {g.to(in)};
    const Tensor xc = x.to(g.scalar_type());
    const int64_t zeros = (xc == 0).sum().item<int64_t>();
    if (zeros > 1) return {zeros_like(x)};
    if (zeros == 1) return {prod_grad(g.reshape({1}), xc.reshape({-1}), 0).reshape(x.sizes()).to(in)};
    const Tensor result = GradMode::is_enabled() ? xc.prod() : saved.to(g.scalar_type());
    return {(g * (result / xc)).to(in)};
  };
  autograd::record("ProdBackward0", out, {this}, backward);
  return out;
}
Tensor Tensor::max() const { return reduce_impl(ReduceOp::Max, *this, {}, true, false, scalar_type(), scalar_type()); }
Tensor Tensor::min() const { return reduce_impl(ReduceOp::Min, *this, {}, true, false, scalar_type(), scalar_type()); }
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return reduce_impl(ReduceOp::Max, *this, dims, dims.empty(), keepdim, scalar_type(), scalar_type());
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return reduce_impl(ReduceOp::Min, *this, dims, dims.empty(), keepdim, scalar_type(), scalar_type());
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  int64_t d = dim;
  Tensor v = reduce_impl(ReduceOp::Max, *this, IntArrayRef(d), false, keepdim, scalar_type(), scalar_type());
  Tensor i = reduce_impl(ReduceOp::ArgMax, *this, IntArrayRef(d), false, keepdim, scalar_type(), kLong);
  if (autograd::should_record(*this)) autograd::on_max_dim(v, *this, i, dim, keepdim);
  return {v, i};
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  int64_t d = dim;
  Tensor v = reduce_impl(ReduceOp::Min, *this, IntArrayRef(d), false, keepdim, scalar_type(), scalar_type());
  Tensor i = reduce_impl(ReduceOp::ArgMin, *this, IntArrayRef(d), false, keepdim, scalar_type(), kLong);
  if (autograd::should_record(*this)) autograd::on_max_dim(v, *this, i, dim, keepdim);
  return {v, i};
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) return reduce_impl(ReduceOp::ArgMax, reshape({-1}), {}, true, false, scalar_type(), kLong);
  int64_t d = *dim;
  return reduce_impl(ReduceOp::ArgMax, *this, IntArrayRef(d), false, keepdim, scalar_type(), kLong);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) return reduce_impl(ReduceOp::ArgMin, reshape({-1}), {}, true, false, scalar_type(), kLong);
  int64_t d = *dim;
  return reduce_impl(ReduceOp::ArgMin, *this, IntArrayRef(d), false, keepdim, scalar_type(), kLong);
}
Tensor Tensor::any() const { return reduce_impl(ReduceOp::Any, *this, {}, true, false, kBool, kBool); }
Tensor Tensor::all() const { return reduce_impl(ReduceOp::All, *this, {}, true, false, kBool, kBool); }

namespace {
// sum((x - mean)^2) / max(N - correction, 0) over `dims` (all when empty), composed of
// differentiable ops.
Tensor var_impl(const char* op, const Tensor& a, IntArrayRef dims, double correction, bool keepdim) {
  if (!locus::is_floating_point(a.scalar_type()))
    throw Error("[" + std::string(op) + "] expected a floating point input, got " + dtype_name(a.scalar_type()) +
                "; convert with .to(locus::kFloat).");
  int64_t n = 1;
  if (dims.empty()) n = a.numel();
  for (int64_t d : dims) n *= a.dim() == 0 ? 1 : a.size(d);
  Tensor centered = a - a.mean(dims, /*keepdim=*/true);
  return (centered * centered).sum(dims, keepdim) / std::max(static_cast<double>(n) - correction, 0.0);
}
double correction_of(const std::optional<Scalar>& c) { return c ? c->toDouble() : 1.0; }
}  // namespace

Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return var_impl("var", *this, dim, unbiased ? 1 : 0, keepdim);
}
Tensor Tensor::var(IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) const {
  return var_impl("var", *this, dim, correction_of(correction), keepdim);
}
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return var_impl("std", *this, dim, unbiased ? 1 : 0, keepdim).sqrt();
}
Tensor Tensor::std(IntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) const {
  return var_impl("std", *this, dim, correction_of(correction), keepdim).sqrt();
}

Tensor Tensor::norm(const Scalar& p) const { return norm(p, {}, false); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dim, bool keepdim) const {
  if (!locus::is_floating_point(scalar_type()))
    throw Error(std::string("[norm] expected a floating point input, got ") + dtype_name(scalar_type()) + "; convert with .to(locus::kFloat).");
  double q = p.toDouble();
  if (q == 1) return abs().sum(dim, keepdim);
  if (q <= 0 || std::isinf(q))
    throw Error("[norm] p must be a positive finite number here, got " + std::to_string(q) + "; use amax(abs()) for p = inf.");
  // s^(1/p) has an infinite derivative at s = 0; PyTorch's norm gives a zero slice the gradient 0
  // (a subgradient), so the root is taken of a stand-in 1 there and the result masked, keeping the
  // zero slice out of the root's backward (an infinite derivative times a zero gradient is NaN).
  Tensor s = q == 2 ? (*this * *this).sum(dim, keepdim) : abs().pow(q).sum(dim, keepdim);
  Tensor zero = s == 0;
  Tensor safe = locus::where(zero, ones_like(s), s);
  return locus::where(zero, zeros_like(s), q == 2 ? safe.sqrt() : safe.pow(1.0 / q));
}
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  auto finite_max = [&](bool keep) {  // 0 where the max is infinite (a row of -inf stays -inf)
    Tensor m = amax(dim, keep).detach();
    return locus::where(m.abs() == INFINITY, zeros_like(m), m);
  };
  return (*this - finite_max(true)).exp().sum(dim, keepdim).log() + finite_max(keepdim);
}

namespace {
Tensor softmax_impl(const Tensor& a, int64_t dim, std::optional<ScalarType> dt, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  ScalarType t = dt.value_or(a.scalar_type());
  if (!locus::is_floating_point(t))
    throw Error("[" + std::string(name) + "] expected a floating point input, got " + dtype_name(t) +
                "; convert with .to(locus::kFloat) or pass dtype.");
  int64_t nd = a.dim();
  int64_t d = detail::wrap_dim(dim, nd, name);
  Tensor in = ops::cast(a, t).contiguous();
  Tensor out = detail::make_empty(a.sizes(), t, a.device());
  if (out.numel() == 0) return out;
  int64_t outer = 1, inner = 1, n = nd == 0 ? 1 : a.size(d);
  for (int64_t i = 0; i < d; ++i) outer *= a.size(i);
  for (int64_t i = d + 1; i < nd; ++i) inner *= a.size(i);
  Device dev = a.device();
  backend::TensorRef o = ops::ref(out.reshape({-1}), name), x = ops::ref(in.reshape({-1}), name);
  ops::backend_for(dev).softmax(backend::device_index(dev), ops::current_stream(dev), o, x, outer, n, inner, log);
  if (autograd::should_record(in)) autograd::on_softmax(out, in, d, log);
  return out;
}
}  // namespace

Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::Softmax, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).softmax(dim, dt); });
  return softmax_impl(*this, dim, dt, false);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::LogSoftmax, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).log_softmax(dim, dt); });
  return softmax_impl(*this, dim, dt, true);
}

Tensor sum(const Tensor& a, std::optional<ScalarType> dt) { return a.sum(dt); }
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dt) { return a.cumsum(dim, dt); }
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dt) { return a.cumprod(dim, dt); }
Tensor sum(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dt) { return a.sum(dims, keepdim, dt); }
Tensor mean(const Tensor& a, std::optional<ScalarType> dt) { return a.mean(dt); }
Tensor mean(const Tensor& a, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dt) { return a.mean(dims, keepdim, dt); }
Tensor max(const Tensor& a) { return a.max(); }
std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim) { return a.max(dim, keepdim); }
Tensor min(const Tensor& a) { return a.min(); }
std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim) { return a.min(dim, keepdim); }
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) { return a.argmax(dim, keepdim); }
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim) { return a.argmin(dim, keepdim); }
Tensor var(const Tensor& a) { return a.var(); }
Tensor var(const Tensor& a, IntArrayRef dim, bool unbiased, bool keepdim) { return a.var(dim, unbiased, keepdim); }
Tensor var(const Tensor& a, IntArrayRef dim, const std::optional<Scalar>& c, bool keepdim) { return a.var(dim, c, keepdim); }
Tensor std(const Tensor& a) { return a.std(); }
Tensor std(const Tensor& a, IntArrayRef dim, bool unbiased, bool keepdim) { return a.std(dim, unbiased, keepdim); }
Tensor std(const Tensor& a, IntArrayRef dim, const std::optional<Scalar>& c, bool keepdim) { return a.std(dim, c, keepdim); }
Tensor max(const Tensor& a, const Tensor& b) { return a.maximum(b); }
Tensor min(const Tensor& a, const Tensor& b) { return a.minimum(b); }
Tensor all(const Tensor& a) { return a.all(); }
Tensor any(const Tensor& a) { return a.any(); }
Tensor norm(const Tensor& a, const Scalar& p) { return a.norm(p); }
Tensor logsumexp(const Tensor& a, IntArrayRef dim, bool keepdim) { return a.logsumexp(dim, keepdim); }
Tensor softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dt) { return a.softmax(dim, dt); }
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dt) { return a.log_softmax(dim, dt); }

// ---- ops batch (stop 46) ----------------------------------------------------------------------
namespace {
// d prod / d x_i = prod_{k != i} x_k along dim d: the exclusive running products from both ends
// multiplied (exact with zeros, as PyTorch's prod_safe_zeros_backward; made of differentiable ops).
// g has x's dims (the reduced dim kept, of size 1).
Tensor prod_grad(const Tensor& g, const Tensor& x, int64_t d) {
  int64_t n = x.size(d);
  if (n == 0) return zeros_like(x);
  Tensor one = ones_like(x.narrow(d, 0, 1));
  Tensor left = cat({one, x.narrow(d, 0, n - 1)}, d).cumprod(d);
  Tensor right = cat({one, x.flip({d}).narrow(d, 0, n - 1)}, d).cumprod(d).flip({d});
  return g * left * right;
}
}  // namespace

Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dt) const {
  if (auto c = float32_unless(ac::Op::Prod, *this, dt); c != ac::Cast::None)
    return ac::rerun(c, [&](auto C) { return C(*this).prod(dim, keepdim, dt); });
  const int64_t d = detail::wrap_dim(dim, this->dim(), "prod");
  ScalarType o = sum_dtype(*this, dt);
  ScalarType in_dt = locus::is_floating_point(o) ? o : scalar_type();
  const IntArrayRef dims(d);
  Tensor out = reduce_impl(ReduceOp::Prod, detach(), dims, false, keepdim, in_dt, o);
  if (autograd::should_record(*this)) {
    const Tensor x = *this;
    const ScalarType in = scalar_type();
    const bool zero_dim = this->dim() == 0;
    auto backward = [x, d, keepdim, in, zero_dim](const Tensor& g) -> autograd::variable_list {
      if (zero_dim) return {g.to(in)};
      Tensor gk = keepdim ? g : g.unsqueeze(d);
      return {prod_grad(gk, x.to(g.scalar_type()), d).to(in)};
    };
    autograd::record("ProdBackward1", out, {this}, backward);
  }
  return out;
}
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  const int64_t d = detail::wrap_dim(dim, this->dim(), "all");
  const IntArrayRef dims(d);
  Tensor r = reduce_impl(ReduceOp::All, *this, dims, false, keepdim, kBool, kBool);
  return scalar_type() == kByte ? r.to(kByte) : r;  // uint8 stays uint8, as PyTorch
}
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  const int64_t d = detail::wrap_dim(dim, this->dim(), "any");
  const IntArrayRef dims(d);
  Tensor r = reduce_impl(ReduceOp::Any, *this, dims, false, keepdim, kBool, kBool);
  return scalar_type() == kByte ? r.to(kByte) : r;
}
namespace {
Tensor nan_to_zero(const Tensor& x) { return x.is_floating_point() ? locus::where(x.isnan(), 0.0, x) : x; }
void check_nanmean(const Tensor& x) {
  if (!x.is_floating_point())
    throw Error(std::string("[nanmean] expected input to have floating point dtype but got ") +
                toString(x.scalar_type()) + "; convert it first, e.g. x.to(torch::kFloat).");
}
// The gradient is g times the not-NaN mask, as PyTorch's (an inf or NaN g gives NaN at the NaNs).
Tensor nansum_impl(const Tensor& x, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dt) {
  if (!x.is_floating_point()) return x.sum(dim, keepdim, dt);
  Tensor out = nan_to_zero(x.detach()).sum(dim, keepdim, dt);
  if (autograd::should_record(x)) {
    const int64_t nd = x.dim();
    std::vector<bool> red(static_cast<size_t>(nd), dim.empty());
    for (int64_t d : dim) red[static_cast<size_t>(detail::wrap_dim(d, nd, "nansum"))] = true;
    const Tensor keep = x.isnan().logical_not();
    const ScalarType in = x.scalar_type();
    DimVector in_sizes(x.sizes());
    auto backward = [keep, in, red, keepdim, in_sizes](const Tensor& g) -> autograd::variable_list {
      Tensor gk = g;
      if (!keepdim)
        for (size_t i = 0; i < red.size(); ++i)
          if (red[i]) gk = gk.unsqueeze(static_cast<int64_t>(i));
      return {(gk.expand(in_sizes) * keep).to(in)};
    };
    autograd::record("NansumBackward0", out, {&x}, backward);
  }
  return out;
}
}  // namespace
Tensor Tensor::nansum(std::optional<ScalarType> dt) const { return nansum_impl(*this, {}, false, dt); }
Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dt) const {
  return nansum_impl(*this, dim, keepdim, dt);
}
Tensor Tensor::nanmean(std::optional<ScalarType> dt) const {
  check_nanmean(*this);
  return nansum(dt) / isnan().logical_not().sum();
}
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dt) const {
  check_nanmean(*this);
  return nansum(dim, keepdim, dt) / isnan().logical_not().sum(dim, keepdim);
}
Tensor prod(const Tensor& a, std::optional<ScalarType> dt) { return a.prod(dt); }
Tensor prod(const Tensor& a, int64_t dim, bool keepdim, std::optional<ScalarType> dt) {
  return a.prod(dim, keepdim, dt);
}
Tensor all(const Tensor& a, int64_t dim, bool keepdim) { return a.all(dim, keepdim); }
Tensor any(const Tensor& a, int64_t dim, bool keepdim) { return a.any(dim, keepdim); }
Tensor nansum(const Tensor& a, std::optional<ScalarType> dt) { return a.nansum(dt); }
Tensor nansum(const Tensor& a, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dt) {
  return a.nansum(dim, keepdim, dt);
}
Tensor nanmean(const Tensor& a, std::optional<ScalarType> dt) { return a.nanmean(dt); }
Tensor nanmean(const Tensor& a, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dt) {
  return a.nanmean(dim, keepdim, dt);
}
// ---- end ops batch (stop 46) ----

}  // namespace locus
