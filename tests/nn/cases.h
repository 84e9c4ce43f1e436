#pragma once
// Helpers shared by the tests whose constants come from PyTorch 1.13 (transformer_cases.py,
// rnn_cases.py, and the numbers printed into the other nn tests): the same deterministic tensors and parameter fills on both sides, and a value check.
#include <string>
#include <vector>

#include "testing.h"

namespace nn_cases {

/// The scripts' det: sin(0.37 i + k) * scale over the flat index, rounded to float32.
inline locus::Tensor det(const std::vector<int64_t>& shape, double k, double scale, locus::Device d) {
  using namespace locus;
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ((arange(n, TensorOptions().dtype(kDouble)) * 0.37 + k).sin() * scale).to(kFloat).reshape(shape).to(d);
}

/// Parameter k (1, 2, ... in named_parameters order) = det(shape, k, 0.5), as the scripts' fill.
inline void fill(locus::nn::Module& m) {
  locus::NoGradGuard no_grad;
  double k = 1;
  for (const auto& item : m.named_parameters()) {
    locus::Tensor p = item.value();
    p.copy_(det(p.sizes().vec(), k++, 0.5, p.device()).to(p.scalar_type()));
  }
}

inline void expect_values(const locus::Tensor& t, const std::vector<int64_t>& shape, const std::vector<double>& want,
                          double tol = 2e-5) {
  ASSERT_TRUE(t.defined());
  ASSERT_EQ(t.sizes().vec(), shape);
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << "element " << i;
}

/// Every value of `got` within `tol` of `want` (the shape is not checked).
inline void expect_near(const locus::Tensor& got, const std::vector<double>& want, double tol = 1e-9) {
  const std::vector<double> v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol) << "element " << i;
}

}  // namespace nn_cases
