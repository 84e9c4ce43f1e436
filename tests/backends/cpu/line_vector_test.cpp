// CPU backend: LineVector (src/backends/cpu/line_vector.h), the kernels' scratch buffers: data on
// a 64-byte boundary at every size and after every growth, for each element type the kernels use,
// and otherwise a std::vector (values kept across growth, swap, copy).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "backends/cpu/line_vector.h"
#include "locus/half.h"

namespace line_vector_test {
namespace {

using locus::cpu::LineVector;

template <class T>
bool on_a_line(const LineVector<T>& v) {
  return reinterpret_cast<std::uintptr_t>(v.data()) % 64 == 0;
}

TEST(CpuLineVector, DataStartsOnACacheLineAtEverySize) {
  // small blocks (malloc's heap, 16-byte aligned) and large ones (a mapping plus a header)
  for (size_t n : {1, 3, 17, 100, 4099, 70000, 1 << 20, (1 << 22) + 5}) {
    LineVector<float> f(n);
    LineVector<double> d(n);
    LineVector<locus::BFloat16> b(n);
    LineVector<locus::Half> h(n);
    EXPECT_TRUE(on_a_line(f)) << n;
    EXPECT_TRUE(on_a_line(d)) << n;
    EXPECT_TRUE(on_a_line(b)) << n;
    EXPECT_TRUE(on_a_line(h)) << n;
  }
}

TEST(CpuLineVector, GrowingKeepsValuesAndAlignment) {
  LineVector<float> v;
  for (int i = 0; i < 100000; ++i) {
    v.push_back(static_cast<float>(i));
    ASSERT_TRUE(on_a_line(v)) << "after " << i + 1 << " elements";
  }
  for (int i = 0; i < 100000; i += 997) EXPECT_EQ(v[static_cast<size_t>(i)], static_cast<float>(i));
  v.resize(3 << 20, -1.f);  // the scratch buffers' pattern: resize to the size a call needs
  EXPECT_TRUE(on_a_line(v));
  EXPECT_EQ(v[99999], 99999.f);
  EXPECT_EQ(v.back(), -1.f);
}

TEST(CpuLineVector, SwapAndCopyAreThoseOfAVector) {
  LineVector<float> a(1000, 2.f), b;
  const float* at = a.data();
  b.swap(a);  // the buffers given back by swapping with an empty vector
  EXPECT_EQ(b.data(), at);
  EXPECT_TRUE(a.empty());
  LineVector<float> c = b;
  EXPECT_TRUE(on_a_line(c));
  EXPECT_NE(c.data(), b.data());
  EXPECT_EQ(c, b);
  LineVector<float>().swap(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0u);
}

}  // namespace
}  // namespace line_vector_test
