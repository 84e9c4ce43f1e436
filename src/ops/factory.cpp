// Factories: allocate on the target device and fill there (fill kernels, Philox), never staging
// through the host except for tensor({...}) and from_blob data, which start on the host.
#include <cmath>
#include <cstring>

#include "core/tensor_impl.h"
#include "locus/accelerators.h"
#include "locus/error.h"
#include "locus/factory.h"
#include "locus/guard.h"
#include "locus/generator.h"
#include "ops/checks.h"
#include "ops/internal.h"

namespace locus {

namespace {

Device target(const TensorOptions& o) {
  Device d = o.device();
  if (!d.is_cpu() && !d.has_index()) d = resolve_device(d);
  return d;
}

Tensor make(IntArrayRef sizes, const TensorOptions& o, ScalarType dt) {
  Tensor t = detail::make_empty(sizes, dt, target(o), o.pinned_memory());
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

// Factories that fill their tensor in place do it before requires_grad is set: a leaf that
// requires grad may not be written in place (fill_ would refuse).
Tensor filled(IntArrayRef sizes, const TensorOptions& o, ScalarType dt, const Scalar& value) {
  Tensor t = detail::make_empty(sizes, dt, target(o), o.pinned_memory());
  t.fill_(value);
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}


void fill_random(Tensor& t, backend::RandomKind kind, double a, double b) {
  int64_t n = t.numel();
  if (n == 0) return;
  ops::PhiloxState st = ops::philox_reserve(static_cast<uint64_t>(n));
  Device d = t.device();
  backend::TensorRef r = ops::ref(t, "random");
  ops::backend_for(d).random(backend::device_index(d), ops::current_stream(d), kind, r, st.seed, st.offset, a, b);
}

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& o) { return make(sizes, o, o.dtype()); }

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  if (sizes.size() != strides.size())
    throw Error("[empty_strided] sizes and strides must have the same length (" + std::to_string(sizes.size()) +
                " vs " + std::to_string(strides.size()) + ").");
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) { extent = 0; break; }
    extent += (sizes[i] - 1) * strides[i];
  }
  Tensor base = make({extent}, o, o.dtype());
  return base.as_strided(sizes, strides, 0);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& o) { return filled(sizes, o, o.dtype(), 0); }

Tensor ones(IntArrayRef sizes, const TensorOptions& o) { return filled(sizes, o, o.dtype(), 1); }

Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& o) {
  ScalarType dt = o.has_dtype() ? o.dtype() : value.type();
  return filled(sizes, o, dt, value);
}

Tensor arange(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& o) { return arange(start, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  bool any_float = start.isFloatingPoint() || end.isFloatingPoint() || step.isFloatingPoint();
  ScalarType dt = o.has_dtype() ? o.dtype() : (any_float ? default_dtype() : kLong);
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  if (st == 0) throw Error("[arange] step must be nonzero.");
  if (!std::isfinite(s) || !std::isfinite(e))
    throw Error("[arange] unsupported range: " + std::to_string(s) + " -> " + std::to_string(e) + ".");
  if ((st > 0 && e < s) || (st < 0 && e > s))
    throw Error("[arange] upper bound and larger bound inconsistent with step sign (start " + std::to_string(s) +
                ", end " + std::to_string(e) + ", step " + std::to_string(st) + ").");
  int64_t n = static_cast<int64_t>(std::ceil((e - s) / st));
  Tensor t = make({n}, o, dt);
  if (n > 0) {
    Device d = t.device();
    ops::backend_for(d).fill_linear(backend::device_index(d), ops::current_stream(d), ops::ref(t, "arange"), s, st);
  }
  return t;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& o) {
  if (steps < 0) throw Error("[linspace] number of steps must be non-negative, got " + std::to_string(steps) + ".");
  Tensor t = make({steps}, o, o.dtype());
  if (steps > 0) {
    double s = start.toDouble(), e = end.toDouble();
    double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
    Device d = t.device();
    ops::backend_for(d).fill_linear(backend::device_index(d), ops::current_stream(d), ops::ref(t, "linspace"), s, step);
  }
  return t;
}

Tensor eye(int64_t n, const TensorOptions& o) { return eye(n, n, o); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& o) {
  if (n < 0 || m < 0) throw Error("[eye] n and m must be non-negative, got " + std::to_string(n) + " and " + std::to_string(m) + ".");
  Tensor t = zeros({n, m}, TensorOptions(o).requires_grad(false));
  int64_t k = std::min(n, m);
  if (k > 0) t.as_strided({k}, {m + 1}, 0).fill_(1);
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor rand(IntArrayRef sizes, const TensorOptions& o) {
  if (o.has_dtype() && !is_floating_point(o.dtype()))
    throw Error(std::string("[rand] expected a floating dtype, got ") + dtype_name(o.dtype()) + "; use randint() for integers.");
  Tensor t = make(sizes, o, o.dtype());
  fill_random(t, backend::RandomKind::Uniform, 0.0, 1.0);
  return t;
}

Tensor randn(IntArrayRef sizes, const TensorOptions& o) {
  if (o.has_dtype() && !is_floating_point(o.dtype()))
    throw Error(std::string("[randn] expected a floating dtype, got ") + dtype_name(o.dtype()) + ".");
  Tensor t = make(sizes, o, o.dtype());
  fill_random(t, backend::RandomKind::Normal, 0.0, 1.0);
  return t;
}

Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& o) { return randint(0, high, sizes, o); }
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& o) {
  if (low >= high)
    throw Error("[randint] expected low < high, but got low = " + std::to_string(low) + " and high = " + std::to_string(high) + ".");
  if (high - low > (int64_t(1) << 32))
    throw Error("[randint] the range high - low must be at most 2^32, got " + std::to_string(high - low) + ".");
  Tensor t = make(sizes, o, o.has_dtype() ? o.dtype() : kLong);
  fill_random(t, backend::RandomKind::Int, static_cast<double>(low), static_cast<double>(high));
  return t;
}

Tensor randperm(int64_t n, const TensorOptions& o) {
  if (n < 0) throw Error("[randperm] n must be non-negative, got " + std::to_string(n) + ".");
  // Sort random keys: the permutation follows the generator, identical on every device.
  Tensor keys = rand({n}, TensorOptions().dtype(kDouble).device(Device(kCPU)));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  const double* k = keys.data_ptr<double>();
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return k[a] < k[b]; });
  Tensor out = from_blob(perm.data(), {n}, TensorOptions().dtype(kLong)).clone();
  return out.to(TensorOptions().device(target(o)).dtype(o.has_dtype() ? o.dtype() : kLong));
}

// ---- the same draws from a Generator -----------------------------------------------------------
Tensor rand(IntArrayRef sizes, std::optional<Generator> g, const TensorOptions& o) {
  detail::GeneratorScope scope(g, target(o), "rand");
  return rand(sizes, o);
}
Tensor randn(IntArrayRef sizes, std::optional<Generator> g, const TensorOptions& o) {
  detail::GeneratorScope scope(g, target(o), "randn");
  return randn(sizes, o);
}
Tensor randint(int64_t high, IntArrayRef sizes, std::optional<Generator> g, const TensorOptions& o) {
  return randint(0, high, sizes, std::move(g), o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, std::optional<Generator> g, const TensorOptions& o) {
  detail::GeneratorScope scope(g, target(o), "randint");
  return randint(low, high, sizes, o);
}
Tensor randperm(int64_t n, std::optional<Generator> g, const TensorOptions& o) {
  detail::GeneratorScope scope(g, target(o), "randperm");
  return randperm(n, o);
}

namespace {
TensorOptions like(const Tensor& t, const TensorOptions& o) {
  TensorOptions r = o;
  if (!o.has_device()) r = r.device(t.device());
  if (!o.has_dtype()) r = r.dtype(t.scalar_type());
  return r;
}
}  // namespace
Tensor empty_like(const Tensor& t, const TensorOptions& o) { return empty(t.sizes(), like(t, o)); }
Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& o) const { return empty(size, like(*this, o)); }
Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& o) const { return zeros(size, like(*this, o)); }
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& o) const { return ones(size, like(*this, o)); }
Tensor Tensor::new_full(IntArrayRef size, const Scalar& v, const TensorOptions& o) const {
  return full(size, v, like(*this, o));
}
Tensor zeros_like(const Tensor& t, const TensorOptions& o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t, const TensorOptions& o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& o) { return full(t.sizes(), v, like(t, o)); }
Tensor rand_like(const Tensor& t, const TensorOptions& o) { return rand(t.sizes(), like(t, o)); }
Tensor randn_like(const Tensor& t, const TensorOptions& o) { return randn(t.sizes(), like(t, o)); }
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& o) {
  return randint(low, high, t.sizes(), like(t, o));
}

// ---- tensor({...}) ----------------------------------------------------------------------------
TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> l) : kind_(Kind::List) {
  list_.assign(l.begin(), l.end());
}

std::vector<int64_t> TensorDataContainer::sizes() const {
  if (kind_ != Kind::List) return {};
  std::vector<int64_t> s{static_cast<int64_t>(list_.size())};
  if (list_.empty()) return s;
  std::vector<int64_t> inner = list_[0].sizes();
  for (size_t i = 1; i < list_.size(); ++i)
    if (list_[i].sizes() != inner)
      throw Error("[tensor] expected all sub-lists to have the same shape, but element 0 and element " +
                  std::to_string(i) + " differ (ragged nested lists are not a tensor).");
  s.insert(s.end(), inner.begin(), inner.end());
  return s;
}

ScalarType TensorDataContainer::scalar_type() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return int_dtype_;
    case Kind::Float: return default_dtype();
    case Kind::List: {
      ScalarType t = kBool;
      bool any = false;
      for (const auto& e : list_) {
        ScalarType et = e.scalar_type();
        if (e.kind_ == Kind::List && e.list_.empty()) continue;
        t = any ? (is_floating_point(t) || is_floating_point(et) ? default_dtype() : promote_types(t, et)) : et;
        any = true;
      }
      return any ? t : default_dtype();
    }
  }
  return default_dtype();
}

void TensorDataContainer::flatten(std::vector<double>& d, std::vector<int64_t>& i) const {
  if (kind_ == Kind::List) {
    for (const auto& e : list_) e.flatten(d, i);
    return;
  }
  d.push_back(scalar_);
  i.push_back(kind_ == Kind::Int ? (has_ival_ ? ival_ : static_cast<int64_t>(scalar_)) : static_cast<int64_t>(scalar_));
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& o) {
  std::vector<int64_t> sz = data.sizes();
  ScalarType inferred = data.scalar_type();
  ScalarType dt = o.has_dtype() ? o.dtype() : inferred;
  std::vector<double> dv;
  std::vector<int64_t> iv;
  data.flatten(dv, iv);
  for (size_t i = 0; i < iv.size(); ++i) ops::check_scalar_fits("tensor", is_floating_point(inferred) ? dv[i] : static_cast<double>(iv[i]), dt);
  Tensor host;
  if (is_floating_point(inferred)) {
    host = detail::make_empty(sz, kDouble, Device(kCPU));
    if (!dv.empty()) std::memcpy(host.data_ptr(), dv.data(), dv.size() * sizeof(double));
  } else {
    host = detail::make_empty(sz, kLong, Device(kCPU));
    if (!iv.empty()) std::memcpy(host.data_ptr(), iv.data(), iv.size() * sizeof(int64_t));
  }
  Tensor out = host.to(TensorOptions().device(target(o)).dtype(dt));
  if (out.is_same(host)) out = out.clone();
  if (o.requires_grad()) out.requires_grad_(true);
  return out;
}

// ---- from_blob ----------------------------------------------------------------------------------
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  Device d = target(o);
  if (!d.is_cpu())
    throw Error("[from_blob] only host memory can be wrapped (device " + d.str() +
                " requested); wrap it on cpu and move it with .to(" + d.str() + ").");
  if (sizes.size() != strides.size())
    throw Error("[from_blob] sizes and strides must have the same length.");
  auto storage = std::make_shared<Storage>();
  storage->device = d;
  storage->alloc.buf.base = data;
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) { extent = 0; break; }
    extent += (sizes[i] - 1) * strides[i];
  }
  storage->nbytes = static_cast<size_t>(extent) * element_size(o.dtype());
  storage->alloc.size = storage->nbytes;
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = DimVector(sizes);
  impl->strides = DimVector(strides);
  impl->dtype = o.dtype();
  impl->device = d;
  impl->refresh();
  Tensor t(std::move(impl));
  if (o.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& o) {
  return from_blob(data, sizes, detail::contiguous_strides(sizes), o);
}

Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter, const TensorOptions& o) {
  Tensor t = from_blob(data, sizes, o);
  t.unsafeGetTensorImpl()->storage->deleter = std::move(deleter);
  return t;
}

Tensor& Tensor::uniform_(double from, double to, std::optional<Generator> g) const {
  if (to < from) throw Error("[uniform_] expects from <= to, got from=" + std::to_string(from) + " > to=" + std::to_string(to) + ".");
  detail::GeneratorScope scope(g, device(), "uniform_");
  return copy_(rand(sizes(), options()) * (to - from) + from);
}
Tensor& Tensor::normal_(double mean, double std, std::optional<Generator> g) const {
  if (std < 0) throw Error("[normal_] expects std >= 0.0, got std=" + std::to_string(std) + ".");
  detail::GeneratorScope scope(g, device(), "normal_");
  return copy_(randn(sizes(), options()) * std + mean);
}

}  // namespace locus
