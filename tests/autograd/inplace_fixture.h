#pragma once
// The leaves and the gradient check shared by inplace_test.cpp and inplace_view_test.cpp (their
// expected values come from PyTorch with these leaves: inplace_cases.py, inplace_view_cases.py).
#include <vector>

#include "testing.h"
#include "locus/locus.h"

class InplaceFixture : public testing::TestWithParam<locus::Device> {
 protected:
  locus::TensorOptions o() const { return locus::TensorOptions().dtype(locus::kDouble).device(GetParam()); }
  void SetUp() override {
    x = locus::tensor({-1.0, 0.5, 2.0, 1.5}, o()).requires_grad_(true);
    w = locus::tensor({3.0, -2.0, 0.5, 1.25}, o()).requires_grad_(true);
    v = locus::tensor({0.25, 1.5, -0.75, 2.0}, o()).requires_grad_(true);
  }
  static void expect_grad(const locus::Tensor& t, const std::vector<double>& want, const char* what) {
    ASSERT_TRUE(t.grad().defined()) << what;
    EXPECT_EQ(t.grad().device(), t.device()) << what;
    std::vector<double> got = values(t.grad());
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << what << " [" << i << "]";
  }
  locus::Tensor x, w, v;
};
