// Every differentiable op's backward against central differences (float64), on every device.
#include "autograd/gradcheck.h"

using namespace locus;

namespace formulas_test {

using V = std::vector<Tensor>;

class Formulas : public testing::TestWithParam<Device> {};

TEST_P(Formulas, Binary) {
  Device d = GetParam();
  Tensor a = sample({2, 3}), b = sample({3}, 0.4), pos = sample({2, 3}).abs() + 0.5;
  gradcheck([](const V& x) { return x[0] + x[1]; }, {a, b}, d);
  gradcheck([](const V& x) { return x[0].add(x[1], 2.5); }, {a, b}, d);
  gradcheck([](const V& x) { return x[0] - x[1]; }, {a, b}, d);
  gradcheck([](const V& x) { return x[0].sub(x[1], 0.5); }, {a, b}, d);
  gradcheck([](const V& x) { return x[0] * x[1]; }, {a, b}, d);
  gradcheck([](const V& x) { return x[0] / x[1]; }, {a, pos}, d);
  gradcheck([](const V& x) { return x[0].pow(x[1]); }, {pos, a}, d);
  gradcheck([](const V& x) { return maximum(x[0], x[1]); }, {a, sample({2, 3}, 2.0)}, d);
  gradcheck([](const V& x) { return minimum(x[0], x[1]); }, {a, sample({2, 3}, 2.0)}, d);
  gradcheck([](const V& x) { return x[0].unsqueeze(1) * x[1]; }, {sample({2}), sample({1, 3}, 1.0)}, d);
}

TEST_P(Formulas, Scalar) {
  Device d = GetParam();
  Tensor a = sample({2, 3}), pos = sample({2, 3}).abs() + 0.5;
  gradcheck([](const V& x) { return x[0] + 2.0; }, {a}, d);
  gradcheck([](const V& x) { return x[0] - 2.0; }, {a}, d);
  gradcheck([](const V& x) { return 2.0 - x[0]; }, {a}, d);
  gradcheck([](const V& x) { return x[0] * 3.0; }, {a}, d);
  gradcheck([](const V& x) { return x[0] / 3.0; }, {a}, d);
  gradcheck([](const V& x) { return 3.0 / x[0]; }, {pos}, d);
  gradcheck([](const V& x) { return x[0].pow(3.0); }, {a}, d);
  gradcheck([](const V& x) { return x[0].pow(0.5); }, {pos}, d);
  gradcheck([](const V& x) { return -x[0]; }, {a}, d);
}

TEST_P(Formulas, Unary) {
  Device d = GetParam();
  Tensor a = sample({2, 3}, 0.3),  // no element at a kink (0)
 pos = sample({2, 3}).abs() + 0.5;
  gradcheck([](const V& x) { return x[0].abs(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].exp(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].log(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].sqrt(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].rsqrt(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].sin(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].cos(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].square(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].reciprocal(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].relu(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].sigmoid(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].tanh(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].log1p(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].expm1(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].erf(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].log2(); }, {pos}, d);
  gradcheck([](const V& x) { return x[0].exp2(); }, {a}, d);
  gradcheck([](const V& x) { return locus::atan2(x[0], x[1]); }, {a, sample({3}, 1.0)}, d);
  gradcheck([](const V& x) { return locus::atan2(x[0], x[1]); }, {sample({2, 1}, 1.0), sample({3}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].clamp(-0.5, 0.7); }, {a}, d);
  gradcheck([](const V& x) { return where(x[0] > 0, x[0] * 2, x[1]); }, {a, sample({3}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].masked_fill(x[0] < 0, 0.25); }, {a}, d);
}

TEST_P(Formulas, Reductions) {
  Device d = GetParam();
  Tensor a = sample({2, 3, 4});
  gradcheck([](const V& x) { return x[0].sum(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].sum({0, 2}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].sum({1}, true); }, {a}, d);
  gradcheck([](const V& x) { return x[0].mean(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].mean({-1}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].max(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].amin({1}); }, {a}, d);
  gradcheck([](const V& x) { return std::get<0>(x[0].max(1)); }, {a}, d);
  gradcheck([](const V& x) { return std::get<0>(x[0].min(2, true)); }, {a}, d);
  gradcheck([](const V& x) { return x[0].prod(); }, {sample({5})}, d);
  gradcheck([](const V& x) { return x[0].softmax(1); }, {a}, d);
  gradcheck([](const V& x) { return x[0].log_softmax(-1); }, {a}, d);
}

TEST_P(Formulas, Linalg) {
  Device d = GetParam();
  gradcheck([](const V& x) { return x[0].mm(x[1]); }, {sample({2, 3}), sample({3, 4}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].bmm(x[1]); }, {sample({2, 2, 3}), sample({2, 3, 2}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].matmul(x[1]); }, {sample({3}), sample({3}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].matmul(x[1]); }, {sample({2, 3}), sample({3}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].matmul(x[1]); }, {sample({2, 2, 3}), sample({3, 2}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].matmul(x[1]); }, {sample({3, 2}), sample({2, 2, 4}, 1.0)}, d);
  gradcheck([](const V& x) { return x[0].addmm(x[1], x[2], 0.5, 2.0); },
            {sample({4}), sample({2, 3}, 1.0), sample({3, 4}, 2.0)}, d);
  gradcheck([](const V& x) { return x[0].mm(x[1].t()); }, {sample({2, 3}), sample({4, 3}, 1.0)}, d);
}

TEST_P(Formulas, Views) {
  Device d = GetParam();
  Tensor a = sample({2, 3, 4});
  gradcheck([](const V& x) { return x[0].view({6, 4}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].reshape({4, -1}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].transpose(0, 2).reshape({-1}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].permute({2, 0, 1}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].unsqueeze(1).squeeze(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].flatten(1); }, {a}, d);
  gradcheck([](const V& x) { return x[0].narrow(2, 1, 2); }, {a}, d);
  gradcheck([](const V& x) { return x[0].select(1, -1); }, {a}, d);
  gradcheck([](const V& x) { return x[0].slice(2, 0, 4, 2); }, {a}, d);
  gradcheck([](const V& x) { return x[0].expand({2, 3, 3}); }, {sample({3, 1})}, d);
  gradcheck([](const V& x) { return x[0].t().contiguous(); }, {sample({2, 3})}, d);
  gradcheck([](const V& x) { return x[0].clone() * x[0]; }, {sample({2, 3})}, d);
  gradcheck([](const V& x) { return x[0][1]; }, {a}, d);
}

TEST_P(Formulas, Indexing) {
  Device d = GetParam();
  Tensor a = sample({3, 4});
  Tensor idx = tensor({2, 0, 2}).to(d);
  gradcheck([idx](const V& x) { return x[0].index_select(0, idx); }, {a}, d);
  gradcheck([idx](const V& x) { return x[0].index_select(1, idx); }, {a}, d);
  Tensor g = tensor({{0, 1}, {3, 3}, {2, 0}}).to(d);
  gradcheck([g](const V& x) { return x[0].gather(1, g); }, {a}, d);
  gradcheck([g](const V& x) { return x[0].scatter_add(1, g, x[1]); }, {a, sample({3, 2}, 1.0)}, d);
  gradcheck([](const V& x) { return cat({x[0], x[1]}, 1); }, {a, sample({3, 2}, 1.0)}, d);
  gradcheck([](const V& x) { return stack({x[0], x[1]}, 0); }, {a, sample({3, 4}, 1.0)}, d);
}

TEST_P(Formulas, DtypeConversions) {
  Device d = GetParam();
  gradcheck([](const V& x) { return x[0].to(kFloat).to(kDouble) * x[0]; }, {sample({4})}, d, 1e-3, 1e-3);
  Tensor f = sample({3}).to(d, kFloat).requires_grad_(true);
  Tensor y = (f.to(kDouble) * 2).sum();
  y.backward();
  EXPECT_EQ(f.grad().scalar_type(), kFloat);
  EXPECT_EQ(f.grad().device(), d);
  EXPECT_EQ(values(f.grad()), std::vector<double>({2, 2, 2}));
}

TEST_P(Formulas, MoreElementwise) {
  Device d = GetParam();
  Tensor a = sample({2, 3}, 0.3), pos = sample({2, 3}).abs() + 0.5, big = sample({2, 3}, 0.9) + 3.0;
  gradcheck([](const V& x) { return x[0].remainder(x[1]); }, {big, pos}, d);
  gradcheck([](const V& x) { return x[0].remainder(1.7); }, {big}, d);
  gradcheck([](const V& x) { return x[0].clamp(-0.4); }, {a}, d);
  gradcheck([](const V& x) { return x[0].clamp_max(0.2); }, {a}, d);
  gradcheck([](const V& x) { return clamp(x[0], std::nullopt, 0.5) * x[0]; }, {a}, d);
  gradcheck([](const V& x) { return x[0].pow(2.0).sqrt(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].div(x[1]).abs().pow(x[1]); }, {a, pos}, d);
  gradcheck([](const V& x) { return (x[0].sign() + x[0].floor() + x[0].ceil() + x[0].round()) * x[0]; }, {big}, d);
  gradcheck([](const V& x) { return where(x[0] > 0, x[0], 0.5) + where(x[0] < 0, -1.0, x[0] * x[0]); }, {a}, d);
  gradcheck([](const V& x) { return x[0].sigmoid().log() + x[0].neg().exp().tanh(); }, {a}, d);
  // a 0-dim cpu tensor is a scalar operand of an op on any device, and gets its gradient on cpu
  gradcheck([](const V& x) { return x[0] * x[1].cpu() + x[1].cpu().pow(x[0].abs()); }, {pos, tensor(1.3, kDouble)}, d);
  Tensor s = tensor(2.5, kDouble).requires_grad_();
  Tensor x = sample({3}).to(d).requires_grad_();
  (x * s - s / (x * x + 1)).sum().backward();
  ASSERT_TRUE(s.grad().defined());
  EXPECT_EQ(s.grad().device(), Device(kCPU));
  auto xv = values(x);
  double want = 0;
  for (double e : xv) want += e - 1.0 / (e * e + 1);
  EXPECT_NEAR(s.grad().item<double>(), want, 1e-12);
}

TEST_P(Formulas, MoreReductions) {
  Device d = GetParam();
  Tensor a = sample({2, 3, 4});
  gradcheck([](const V& x) { return x[0].sum(kDouble); }, {a}, d);
  gradcheck([](const V& x) { return x[0].sum({-1, 0}, true); }, {a}, d);
  gradcheck([](const V& x) { return x[0].mean({0, 1}, true); }, {a}, d);
  gradcheck([](const V& x) { return x[0].min(); }, {a}, d);
  gradcheck([](const V& x) { return x[0].amax({0, 2}, true); }, {a}, d);
  gradcheck([](const V& x) { return std::get<0>(x[0].max(-1, true)) + std::get<0>(x[0].min(-1, true)); }, {a}, d);
  gradcheck([](const V& x) { return std::get<0>(x[0].max(0)); }, {sample({5})}, d);
  gradcheck([](const V& x) { return x[0].softmax(0) + x[0].log_softmax(2); }, {a}, d);
  gradcheck([](const V& x) { return x[0].prod() + x[0].sum() * x[0].mean(); }, {sample({2, 2}, 0.5)}, d);
  // ties share the gradient evenly, as PyTorch's amax/amin and full max/min
  Tensor t = tensor({1., 3., 3., 2.}, TensorOptions().device(d)).requires_grad_();
  t.max().backward();
  EXPECT_EQ(values(t.grad()), std::vector<double>({0, 0.5, 0.5, 0}));
}

TEST_P(Formulas, MoreViewsAndIndexing) {
  Device d = GetParam();
  Tensor a = sample({2, 3, 4});
  gradcheck([](const V& x) { return x[0].unsqueeze(0).squeeze(0).squeeze(1); }, {sample({2, 1, 3})}, d);
  gradcheck([](const V& x) { return x[0].view_as(x[1]) * x[1]; }, {sample({6}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) { return x[0].expand_as(x[1]) * x[1]; }, {sample({1, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) { return x[0].transpose(1, 2).contiguous().view({2, -1}); }, {a}, d);
  gradcheck([](const V& x) { return x[0].slice(1, -2).slice(2, 1, std::nullopt, 2); }, {a}, d);
  gradcheck([](const V& x) { return x[0].as_strided({2, 2}, {1, 2}, 1); }, {sample({6})}, d);
  gradcheck([](const V& x) { return x[0].t().as_strided({3, 3}, {1, 1}); }, {sample({2, 3})}, d);  // overlapping reads
  gradcheck([](const V& x) { return cat({x[0], x[1], x[0]}, -1); }, {sample({2, 2}), sample({2, 3}, 1.)}, d);
  gradcheck([](const V& x) { return stack({x[0], x[1]}, -1); }, {sample({2, 3}), sample({2, 3}, 1.)}, d);
  Tensor idx = tensor({1, 1, 0}).to(d);
  gradcheck([idx](const V& x) { return x[0].index_select(-1, idx); }, {sample({2, 2})}, d);
  Tensor g = tensor({{0, 0, 1}, {1, 0, 1}}).to(d);
  gradcheck([g](const V& x) { return x[0].gather(0, g); }, {sample({2, 3})}, d);
  gradcheck([g](const V& x) { return x[0].scatter_add(0, g, x[1]); }, {sample({2, 3}), sample({2, 3}, 1.)}, d);
  gradcheck([g](const V& x) { return x[0].scatter_add(-1, g.narrow(1, 0, 2), x[1]); }, {sample({2, 3}), sample({2, 4}, 1.)}, d);
}

TEST_P(Formulas, AcrossDevicesAndDtypes) {
  // Every device pair: the forward moves explicitly, the backward brings the gradient back.
  Device d = GetParam();
  for (Device other : test_devices())
    gradcheck([other](const V& x) { return (x[0].to(other) * x[0].to(other).sin()).to(x[0].device()); },
              {sample({4})}, d);
  gradcheck([](const V& x) { return x[0].to(kFloat).to(kDouble); }, {sample({3})}, d, 1e-3, 1e-3);
  Tensor h = sample({3}).to(d, kHalf).requires_grad_();
  (h.to(kFloat) * 3).sum().backward();
  EXPECT_EQ(h.grad().scalar_type(), kHalf);
  EXPECT_EQ(values(h.grad()), std::vector<double>({3, 3, 3}));
}

LOCUS_INSTANTIATE_DEVICES(Formulas);

}  // namespace formulas_test
