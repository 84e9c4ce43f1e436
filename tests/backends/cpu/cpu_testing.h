#pragma once
// Helpers for the CPU backend tests: host tensors handed to the backend as TensorRefs, with values
// written and read as doubles in logical (row-major) order through any strides.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "core/backend.h"
#include "locus/dtype.h"
#include "locus/error.h"
#include "locus/half.h"
#include "locus/parallel.h"

namespace locus::backend {
std::unique_ptr<Backend> make_cpu_backend();
}  // namespace locus::backend

namespace cpu_test {

using namespace locus;
using backend::TensorRef;

inline backend::Backend& be() {
  static std::unique_ptr<backend::Backend> b = backend::make_cpu_backend();
  return *b;
}

inline double load(ScalarType t, const void* p) {
  switch (t) {
    case kByte: return *static_cast<const uint8_t*>(p);
    case kChar: return *static_cast<const int8_t*>(p);
    case kShort: return *static_cast<const int16_t*>(p);
    case kInt: return *static_cast<const int32_t*>(p);
    case kLong: return static_cast<double>(*static_cast<const int64_t*>(p));
    case kHalf: return static_cast<float>(*static_cast<const Half*>(p));
    case kFloat: return *static_cast<const float*>(p);
    case kDouble: return *static_cast<const double*>(p);
    case kBool: return *static_cast<const uint8_t*>(p);
    case kBFloat16: return static_cast<float>(*static_cast<const BFloat16*>(p));
    default: return NAN;
  }
}
// Stores v with a plain C++ conversion (the tests choose values each dtype represents).
inline void store(ScalarType t, void* p, double v) {
  switch (t) {
    case kByte: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case kChar: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case kShort: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case kInt: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case kLong: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case kHalf: *static_cast<Half*>(p) = Half(static_cast<float>(v)); break;
    case kFloat: *static_cast<float*>(p) = static_cast<float>(v); break;
    case kDouble: *static_cast<double*>(p) = v; break;
    case kBool: *static_cast<uint8_t*>(p) = v != 0; break;
    case kBFloat16: *static_cast<BFloat16*>(p) = BFloat16(static_cast<float>(v)); break;
    default: break;
  }
}

inline int64_t numel(const TensorRef& r) { return r.numel(); }

/// Offset in elements of logical element i (row-major) of r.
inline int64_t offset_of(const TensorRef& r, int64_t i) {
  int64_t off = 0;
  for (int d = r.ndim - 1; d >= 0; --d) {
    off += (i % r.sizes[d]) * r.strides[d];
    i /= r.sizes[d];
  }
  return off;
}

inline void* elem(const TensorRef& r, int64_t i) {
  return static_cast<char*>(r.buf.base) + r.buf.offset + offset_of(r, i) * static_cast<int64_t>(element_size(r.dtype));
}

inline std::vector<double> vals(const TensorRef& r) {
  std::vector<double> v(static_cast<size_t>(r.numel()));
  for (int64_t i = 0; i < r.numel(); ++i) v[static_cast<size_t>(i)] = load(r.dtype, elem(r, i));
  return v;
}

inline void set_vals(const TensorRef& r, const std::vector<double>& v) {
  for (int64_t i = 0; i < r.numel(); ++i) store(r.dtype, elem(r, i), v[static_cast<size_t>(i % static_cast<int64_t>(v.size()))]);
}

/// A host tensor owning its storage; `ref` is its contiguous view.
struct HostTensor {
  std::shared_ptr<std::vector<uint64_t>> storage;  // 8-byte aligned
  TensorRef ref;
  operator const TensorRef&() const { return ref; }
  std::vector<double> values() const { return vals(ref); }
};

inline TensorRef make_ref(void* base, ScalarType dt, std::vector<int64_t> sizes, std::vector<int64_t> strides = {}) {
  TensorRef r;
  r.buf.base = base;
  r.dtype = dt;
  r.ndim = static_cast<int>(sizes.size());
  int64_t s = 1;
  for (int d = r.ndim - 1; d >= 0; --d) {
    r.sizes[d] = sizes[static_cast<size_t>(d)];
    r.strides[d] = strides.empty() ? s : strides[static_cast<size_t>(d)];
    s *= sizes[static_cast<size_t>(d)];
  }
  return r;
}

/// A contiguous tensor of `sizes`, filled with `v` (repeated) when given, else zero bytes.
inline HostTensor make(ScalarType dt, std::vector<int64_t> sizes, std::vector<double> v = {}) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  HostTensor t;
  t.storage = std::make_shared<std::vector<uint64_t>>(static_cast<size_t>(n + 1), 0);
  t.ref = make_ref(t.storage->data(), dt, sizes);
  if (!v.empty()) set_vals(t.ref, v);
  return t;
}

/// The 2-D transpose view of r.
inline TensorRef transposed(TensorRef r) {
  std::swap(r.sizes[0], r.sizes[1]);
  std::swap(r.strides[0], r.strides[1]);
  return r;
}

/// r broadcast to `sizes` (same ndim, or fewer leading dims): stride 0 where r has size 1.
inline TensorRef broadcast(const TensorRef& r, std::vector<int64_t> sizes) {
  TensorRef o = r;
  o.ndim = static_cast<int>(sizes.size());
  int lead = o.ndim - r.ndim;
  for (int d = 0; d < o.ndim; ++d) {
    int sd = d - lead;
    o.sizes[d] = sizes[static_cast<size_t>(d)];
    o.strides[d] = (sd < 0 || r.sizes[sd] == 1) ? 0 : r.strides[sd];
  }
  return o;
}

/// Element-wise comparison with NaN == NaN and a relative/absolute tolerance.
inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": got " << got[i] << ", want NaN";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "at " << i;
    }
  }
}

}  // namespace cpu_test
