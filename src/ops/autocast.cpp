// Autocast: the thread-local state behind include/locus/autocast.h, PyTorch's per-device-type
// policy tables (aten/src/ATen/autocast_mode.cpp: the CPU lists for cpu, the CUDA lists for cuda
// and opencl, the GPU-like types), and the cast cache.
#include <array>
#include <unordered_map>

#include "core/backend.h"
#include "core/tensor_impl.h"
#include "locus/autocast.h"
#include "locus/device_info.h"
#include "locus/error.h"
#include "locus/guard.h"
#include "ops/autocast.h"

namespace locus {
namespace ops::autocast {
namespace detail {
thread_local uint32_t t_enabled_mask = 0;
thread_local int t_exclude = 0;
}  // namespace detail

namespace {
constexpr uint64_t bit(Op op) { return uint64_t{1} << static_cast<unsigned>(op); }
constexpr uint64_t kLower = bit(Op::Mm) | bit(Op::Bmm) | bit(Op::Addmm) | bit(Op::Matmul) | bit(Op::Linear) |
                            bit(Op::Conv2d) | bit(Op::ConvTranspose2d) | bit(Op::Rnn);
// PyTorch's CPU float32 list as far as locus has the ops (checked against 1.13 by tests/ops/autocast_test.cpp).
constexpr uint64_t kCpuFloat32 =
    bit(Op::Prod) | bit(Op::NllLoss) | bit(Op::CrossEntropy) | bit(Op::MseLoss) | bit(Op::BceWithLogits) |
    bit(Op::KlDiv);
// PyTorch's CUDA float32 list: float16's range needs float32 for exp, sums, norms and losses.
constexpr uint64_t kGpuFloat32 = kCpuFloat32 | bit(Op::Softmax) | bit(Op::LogSoftmax) | bit(Op::Exp) | bit(Op::Log) |
                                 bit(Op::Pow) | bit(Op::Sum) | bit(Op::Rsqrt) | bit(Op::Reciprocal) |
                                 bit(Op::LayerNorm) | bit(Op::GroupNorm) | bit(Op::Log1p) | bit(Op::Expm1) |
                                 bit(Op::Log2) |
                                 // ---- math batch (stop 45) ----
                                 bit(Op::Tan) | bit(Op::Asin) | bit(Op::Acos) | bit(Op::Sinh) | bit(Op::Cosh) |
                                 bit(Op::Log10) | bit(Op::Erfinv);
constexpr uint64_t kGpuPromote = bit(Op::ScatterAdd);

constexpr size_t kTypes = 32;
struct State {
  std::array<std::optional<ScalarType>, kTypes> dtype{};
  int nesting = 0;
  bool cache_enabled = true;
  // float32 leaf -> its lower-precision cast (the weak_ptr tells a dead key from a reused address)
  std::unordered_map<const TensorImpl*, std::pair<std::weak_ptr<TensorImpl>, Tensor>> cache;
};
thread_local State t_state;

size_t slot(DeviceType t) {
  auto i = static_cast<size_t>(t);
  if (i >= kTypes) throw Error("[autocast] device type " + std::to_string(i) + " is out of range.");
  return i;
}
}  // namespace

Cast detail::policy_slow(Op op, Device d) {
  if (t_exclude > 0 || (t_enabled_mask & (1u << static_cast<unsigned>(d.type()))) == 0) return Cast::None;
  uint64_t b = bit(op);
  if (kLower & b) return Cast::Lower;
  if (d.is_cpu()) return (kCpuFloat32 & b) ? Cast::Float32 : Cast::None;
  if (kGpuFloat32 & b) return Cast::Float32;
  return (kGpuPromote & b) ? Cast::Promote : Cast::None;
}

Tensor cast(const Tensor& t, Cast c) {
  if (!t.defined() || !t.is_floating_point() || t.scalar_type() == kDouble) return t;
  if (c == Cast::Float32) return t.to(kFloat);
  if (c != Cast::Lower) return t;
  ScalarType to = locus::autocast::get_autocast_dtype(t.device().type());
  if (t.scalar_type() == to) return t;
  State& s = t_state;
  bool cacheable = s.cache_enabled && t.scalar_type() == kFloat && t.requires_grad() && t.is_leaf();
  if (!cacheable) return t.to(to);
  const TensorImpl* key = t.unsafeGetTensorImpl();
  auto it = s.cache.find(key);
  if (it != s.cache.end() && !it->second.first.expired() && it->second.second.scalar_type() == to)
    return it->second.second;
  Tensor r = t.to(to);
  s.cache[key] = {std::weak_ptr<TensorImpl>(t.impl()), r};
  return r;
}

ScalarType widest(std::initializer_list<const Tensor*> ts) {
  std::optional<ScalarType> w;
  for (const Tensor* t : ts)
    if (t->defined() && t->is_floating_point()) w = w ? promote_types(*w, t->scalar_type()) : t->scalar_type();
  return w.value_or(kFloat);
}

Tensor cast_to(const Tensor& t, ScalarType dtype) {
  return t.defined() && t.is_floating_point() ? t.to(dtype) : t;
}

}  // namespace ops::autocast

namespace autocast {
using ops::autocast::t_state;
namespace d = ops::autocast::detail;

bool is_autocast_enabled(DeviceType type) {
  return (d::t_enabled_mask >> ops::autocast::slot(type)) & 1u;
}

void set_autocast_enabled(DeviceType type, bool enabled) {
  uint32_t b = 1u << ops::autocast::slot(type);
  d::t_enabled_mask = enabled ? (d::t_enabled_mask | b) : (d::t_enabled_mask & ~b);
}

ScalarType get_autocast_dtype(DeviceType type) {
  if (auto t = t_state.dtype[ops::autocast::slot(type)]) return *t;
  if (type == kCPU) return kBFloat16;
  if (const backend::Registration* r = backend::registration(type); r != nullptr && r->caps.autocast_float16)
    return kHalf;
  // other device types: float16 where the current device does half arithmetic (asked once per
  // device and thread: casts call this for every op)
  thread_local std::array<std::array<int8_t, 16>, ops::autocast::kTypes> known{};  // 0 unknown, 1 half, 2 bf16
  DeviceIndex index = current_device_index(type);
  int8_t* k = index >= 0 && index < 16 ? &known[ops::autocast::slot(type)][static_cast<size_t>(index)] : nullptr;
  if (k != nullptr && *k != 0) return *k == 1 ? kHalf : kBFloat16;
  ScalarType t = kBFloat16;
  try {
    if (device_count(type) > 0 && describe(Device(type, index)).fp16) t = kHalf;
  } catch (const Error&) {
  }
  if (k != nullptr) *k = t == kHalf ? 1 : 2;
  return t;
}

namespace {
void check_dtype(const char* where, DeviceType type, ScalarType dtype) {
  if (dtype != kHalf && dtype != kBFloat16)
    throw Error("[" + std::string(where) + "] autocast runs ops in float16 or bfloat16, got " + dtype_name(dtype) + " for " +
                device_type_name(type) + ". Pass locus::kHalf or locus::kBFloat16.");
}
}  // namespace

void set_autocast_dtype(DeviceType type, ScalarType dtype) {
  check_dtype("set_autocast_dtype", type, dtype);
  t_state.dtype[ops::autocast::slot(type)] = dtype;
}

void clear_cache() { t_state.cache.clear(); }
int increment_nesting() { return ++t_state.nesting; }
int decrement_nesting() { return --t_state.nesting; }
bool is_autocast_cache_enabled() { return t_state.cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { t_state.cache_enabled = enabled; }

AutocastGuard::AutocastGuard(DeviceType type, std::optional<ScalarType> dtype, bool enabled, bool cache_enabled)
    : type_(type),
      prev_enabled_(is_autocast_enabled(type)),
      prev_cache_(is_autocast_cache_enabled()),
      prev_dtype_(t_state.dtype[ops::autocast::slot(type)]) {
  if (dtype) check_dtype("AutocastGuard", type, *dtype);
  if (dtype) t_state.dtype[ops::autocast::slot(type)] = *dtype;
  set_autocast_enabled(type, enabled);
  set_autocast_cache_enabled(cache_enabled);
  increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (decrement_nesting() == 0) clear_cache();
  t_state.dtype[ops::autocast::slot(type_)] = prev_dtype_;
  set_autocast_enabled(type_, prev_enabled_);
  set_autocast_cache_enabled(prev_cache_);
}

}  // namespace autocast
}  // namespace locus
