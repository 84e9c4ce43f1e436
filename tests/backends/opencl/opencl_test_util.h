#pragma once
// Helpers for the OpenCL backend tests: a backend made with make_opencl_backend(), device
// buffers filled from and read back into host vectors, and TensorRefs over them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "backends/opencl/opencl_backend.h"
#include "core/backend.h"

namespace locus::opencl::test {

using backend::Buffer;
using backend::TensorRef;

inline backend::Backend& be() {
  static std::unique_ptr<backend::Backend> b = backend::make_opencl_backend();
  return *b;
}

/// Skips the test when fewer than `n` OpenCL devices exist.
#define LOCUS_REQUIRE_OPENCL(n)                                                       \
  do {                                                                                \
    if (::locus::opencl::test::be().device_count() < (n))                             \
      GTEST_SKIP() << "needs " << (n) << " OpenCL devices: "                          \
                   << ::locus::opencl::test::be().unavailable_reason();               \
  } while (0)

/// A raw device allocation, freed on scope exit.
struct DevMem {
  int dev = 0;
  void* base = nullptr;
  size_t bytes = 0;
  DevMem(int d, size_t n) : dev(d), bytes(n) {
    base = be().raw_alloc(d, n);
    EXPECT_NE(base, nullptr);
  }
  ~DevMem() { be().raw_free(dev, base); }
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
  Buffer at(size_t off = 0) const { return Buffer{base, off}; }
};

template <typename T>
std::unique_ptr<DevMem> upload(int dev, const std::vector<T>& v, size_t byte_offset = 0) {
  auto m = std::make_unique<DevMem>(dev, byte_offset + v.size() * sizeof(T) + 8);
  if (!v.empty()) be().copy_from_host(dev, m->at(byte_offset), v.data(), v.size() * sizeof(T), nullptr, false);
  return m;
}

template <typename T>
std::vector<T> download(int dev, Buffer b, size_t n) {
  std::vector<T> v(n);
  be().stream_synchronize(dev, nullptr);
  if (n) be().copy_to_host(dev, v.data(), b, n * sizeof(T), nullptr, false);
  return v;
}

/// A TensorRef with the given sizes and strides (contiguous when strides is empty).
inline TensorRef ref(Buffer b, ScalarType dt, std::vector<int64_t> sizes, std::vector<int64_t> strides = {}) {
  TensorRef r;
  r.buf = b;
  r.dtype = dt;
  r.ndim = static_cast<int>(sizes.size());
  if (strides.empty()) {
    strides.resize(sizes.size());
    int64_t s = 1;
    for (int i = r.ndim - 1; i >= 0; --i) {
      strides[static_cast<size_t>(i)] = s;
      s *= sizes[static_cast<size_t>(i)];
    }
  }
  for (int i = 0; i < r.ndim; ++i) {
    r.sizes[i] = sizes[static_cast<size_t>(i)];
    r.strides[i] = strides[static_cast<size_t>(i)];
  }
  return r;
}

}  // namespace locus::opencl::test

namespace locus::opencl::test {

/// Host values of any dtype travel as doubles: encoded into the dtype's bytes and back.
inline std::vector<uint8_t> encode(ScalarType dt, const std::vector<double>& v) {
  size_t es = element_size(dt);
  std::vector<uint8_t> out(v.size() * es);
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t* p = out.data() + i * es;
    double x = v[i];
    switch (dt) {
      case kFloat: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
      case kDouble: std::memcpy(p, &x, 8); break;
      case kHalf: { uint16_t h = Half(static_cast<float>(x)).x; std::memcpy(p, &h, 2); break; }
      case kBFloat16: { uint16_t h = BFloat16(static_cast<float>(x)).x; std::memcpy(p, &h, 2); break; }
      case kInt: { int32_t t = static_cast<int32_t>(x); std::memcpy(p, &t, 4); break; }
      case kLong: { int64_t t = static_cast<int64_t>(x); std::memcpy(p, &t, 8); break; }
      case kByte: *p = static_cast<uint8_t>(static_cast<int64_t>(x)); break;
      case kChar: { int8_t t = static_cast<int8_t>(static_cast<int64_t>(x)); std::memcpy(p, &t, 1); break; }
      case kShort: { int16_t t = static_cast<int16_t>(static_cast<int64_t>(x)); std::memcpy(p, &t, 2); break; }
      case kBool: *p = x != 0; break;
      default: break;
    }
  }
  return out;
}

inline std::vector<double> decode(ScalarType dt, const std::vector<uint8_t>& b) {
  size_t es = element_size(dt), n = b.size() / es;
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = b.data() + i * es;
    switch (dt) {
      case kFloat: { float f; std::memcpy(&f, p, 4); out[i] = f; break; }
      case kDouble: std::memcpy(&out[i], p, 8); break;
      case kHalf: { uint16_t h; std::memcpy(&h, p, 2); out[i] = Half::to_float(h); break; }
      case kBFloat16: { uint16_t h; std::memcpy(&h, p, 2); out[i] = BFloat16::to_float(h); break; }
      case kInt: { int32_t t; std::memcpy(&t, p, 4); out[i] = t; break; }
      case kLong: { int64_t t; std::memcpy(&t, p, 8); out[i] = static_cast<double>(t); break; }
      case kByte: out[i] = *p; break;
      case kChar: { int8_t t; std::memcpy(&t, p, 1); out[i] = t; break; }
      case kShort: { int16_t t; std::memcpy(&t, p, 2); out[i] = t; break; }
      case kBool: out[i] = *p != 0; break;
      default: break;
    }
  }
  return out;
}

/// Rounds a double as storing it in `dt` would.
inline double round_to(ScalarType dt, double x) { return decode(dt, encode(dt, {x}))[0]; }

/// Device memory holding `v` in dtype `dt`, starting at `byte_offset`.
inline std::unique_ptr<DevMem> upload_as(int dev, ScalarType dt, const std::vector<double>& v, size_t byte_offset = 0) {
  return upload<uint8_t>(dev, encode(dt, v), byte_offset);
}
inline std::vector<double> download_as(int dev, ScalarType dt, Buffer b, size_t n) {
  return decode(dt, download<uint8_t>(dev, b, n * element_size(dt)));
}

/// Tolerance for comparing results computed in dtype `dt` with a double reference.
inline double tol(ScalarType dt, double ref) {
  double rel = dt == kHalf ? 2e-3 : dt == kBFloat16 ? 1e-2 : dt == kFloat ? 2e-6 : dt == kDouble ? 1e-12 : 0;
  return rel * std::max(1.0, std::abs(ref));
}

inline void expect_close(ScalarType dt, const std::vector<double>& got, const std::vector<double>& want,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]: got " << got[i] << ", want NaN";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " [" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], tol(dt, want[i])) << what << " [" << i << "] (" << dtype_name(dt) << ")";
    }
  }
}

}  // namespace locus::opencl::test
