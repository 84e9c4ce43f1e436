// libtorch's torch:: ATen functions (include/locus/aten.h, src/nn/aten.cpp): ATen's argument order
// and defaults, the same results as nn::functional on every device, and their error messages.
#include <string>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace aten_test {

class Aten : public ::testing::TestWithParam<Device> {};

namespace {
// a and b hold the same values (within float rounding)
void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_TRUE(a.cpu().allclose(b.cpu(), 1e-5, 1e-6)) << a.cpu() << "\nvs\n" << b.cpu();
}
}  // namespace

TEST_P(Aten, LayersMatchFunctional) {
  TensorOptions o = device(GetParam());
  manual_seed(1);
  Tensor x = randn({2, 4, 6, 6}, o), w = randn({3, 4, 3, 3}, o), b = randn({3}, o);
  expect_same(conv2d(x, w), F::conv2d(x, w));
  expect_same(conv2d(x, w, b, /*stride=*/2, /*padding=*/1), F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1)));
  expect_same(conv2d(x, w, std::nullopt, {1, 2}, {0, 1}, /*dilation=*/{2, 1}),
              F::conv2d(x, w, F::Conv2dFuncOptions().stride({1, 2}).padding({0, 1}).dilation({2, 1})));
  Tensor wg = randn({4, 2, 3, 3}, o);
  expect_same(conv2d(x, wg, {}, 1, 1, 1, /*groups=*/2), F::conv2d(x, wg, F::Conv2dFuncOptions().padding(1).groups(2)));
  Tensor s = randn({2, 4, 9}, o), w1 = randn({6, 2, 3}, o), b1 = randn({6}, o);
  Tensor wt = randn({4, 3, 3, 3}, o);
  expect_same(conv_transpose2d(x, wt, b, 2, 1, 1), F::conv_transpose2d(x, wt, F::ConvTranspose2dFuncOptions().bias(b).stride(2).padding(1).output_padding(1)));
  expect_same(conv1d(s, w1, b1, 2, 1, 1, 2), F::conv1d(s, w1, F::Conv1dFuncOptions().bias(b1).stride(2).padding(1).groups(2)));
  expect_same(max_pool2d(x, 2), F::max_pool2d(x, F::MaxPool2dFuncOptions(2)));
  expect_same(max_pool2d(x, {3, 2}, {1, 2}, 1), F::max_pool2d(x, F::MaxPool2dFuncOptions({3, 2}).stride({1, 2}).padding(1)));
  expect_same(avg_pool2d(x, 2), F::avg_pool2d(x, F::AvgPool2dFuncOptions(2)));
  expect_same(avg_pool2d(x, 3, 1, 1, false, /*count_include_pad=*/false),
              F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(1).padding(1).count_include_pad(false)));
  expect_same(adaptive_avg_pool2d(x, {3, 2}), F::adaptive_avg_pool2d(x, {3, 2}));

  Tensor in = randn({5, 4}, o), lw = randn({3, 4}, o), lb = randn({3}, o);
  expect_same(linear(in, lw), F::linear(in, lw));
  expect_same(linear(in, lw, lb), F::linear(in, lw, lb));
  expect_same(gelu(in), F::gelu(in));
  expect_same(gelu(in, "tanh"), F::gelu(in, F::GELUFuncOptions().approximate("tanh")));
  expect_same(dropout(in, 0.5, /*train=*/false), in);
  Tensor dropped = dropout(in, 0.5, /*train=*/true);
  Tensor kept = dropped.ne(0).to(kFloat);
  expect_same(dropped * kept, (in * 2) * kept);  // survivors scaled by 1/(1-p)
  expect_same(layer_norm(in, {4}), F::layer_norm(in, F::LayerNormFuncOptions({4})));
  Tensor g = randn({4}, o), be = randn({4}, o);
  expect_same(layer_norm(in, {4}, g, be, 1e-3), F::layer_norm(in, F::LayerNormFuncOptions({4}).weight(g).bias(be).eps(1e-3)));
  Tensor rm = zeros({4}, o), rv = ones({4}, o);
  expect_same(batch_norm(in, g, be, rm, rv, /*training=*/false, 0.1, 1e-5, /*cudnn_enabled=*/true),
              F::batch_norm(in, rm, rv, F::BatchNormFuncOptions().weight(g).bias(be)));
  Tensor table = randn({6, 3}, o), idx = tensor({0, 2, 5, 2}, o.dtype(kLong));
  expect_same(embedding(table, idx), F::embedding(idx, table));
  expect_same(embedding(table, idx, /*padding_idx=*/2), F::embedding(idx, table, F::EmbeddingFuncOptions().padding_idx(2)));
}

TEST_P(Aten, AvgPoolDivisorOverrideDividesWindowSums) {
  TensorOptions o = device(GetParam());
  manual_seed(2);
  Tensor x = randn({1, 2, 5, 5}, o);
  // window sums by another route: a conv with a kernel of ones, per channel
  Tensor sums = F::conv2d(x.reshape({2, 1, 5, 5}), ones({1, 1, 2, 2}, o), F::Conv2dFuncOptions().stride(2)).reshape({1, 2, 2, 2});
  expect_same(avg_pool2d(x, 2, {}, 0, false, true, /*divisor_override=*/3), sums / 3);
}

TEST_P(Aten, LossesMatchFunctional) {
  TensorOptions o = device(GetParam());
  manual_seed(3);
  Tensor logits = randn({6, 4}, o), target = tensor({0, 3, 1, 1, 2, 3}, o.dtype(kLong)), cw = rand({4}, o) + 0.5;
  Tensor logp = logits.log_softmax(1);
  expect_same(nll_loss(logp, target), F::nll_loss(logp, target));
  expect_same(nll_loss(logp, target, cw, Reduction::Sum, /*ignore_index=*/1),
              F::nll_loss(logp, target, F::NLLLossFuncOptions().weight(cw).reduction(kSum).ignore_index(1)));
  expect_same(nll_loss(logp, target, {}, Reduction::None), F::nll_loss(logp, target, F::NLLLossFuncOptions().reduction(kNone)));
  expect_same(cross_entropy_loss(logits, target), F::cross_entropy(logits, target));
  expect_same(cross_entropy_loss(logits, target, cw, Reduction::Mean, -100, /*label_smoothing=*/0.1),
              F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().weight(cw).label_smoothing(0.1)));
  Tensor a = randn({3, 5}, o), t = randn({3, 5}, o);
  expect_same(mse_loss(a, t), F::mse_loss(a, t));
  expect_same(mse_loss(a, t, Reduction::None), F::mse_loss(a, t, kNone));
  Tensor prob_t = rand({3, 5}, o), pw = rand({5}, o) + 0.5, ew = rand({3, 5}, o);
  expect_same(binary_cross_entropy_with_logits(a, prob_t), F::binary_cross_entropy_with_logits(a, prob_t));
  expect_same(binary_cross_entropy_with_logits(a, prob_t, ew, pw, Reduction::Sum),
              F::binary_cross_entropy_with_logits(
                  a, prob_t, F::BinaryCrossEntropyWithLogitsFuncOptions().weight(ew).pos_weight(pw).reduction(kSum)));
  // binary_cross_entropy on probabilities equals the logits form on the logits
  for (int64_t r : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    expect_same(binary_cross_entropy(a.sigmoid(), prob_t, ew, r), binary_cross_entropy_with_logits(a, prob_t, ew, {}, r));
  }
}

TEST_P(Aten, BinaryCrossEntropyClampsTheLogAtMinus100) {
  TensorOptions o = device(GetParam());
  // PyTorch's documented clamp: a probability of exactly 0 for a positive target costs 100
  Tensor p = tensor({0.0, 1.0, 1.0}, o), t = tensor({1.0, 1.0, 0.0}, o);
  EXPECT_EQ(values(binary_cross_entropy(p, t, {}, Reduction::None)), std::vector<double>({100.0, 0.0, 100.0}));
}

TEST_P(Aten, GradientsFlowAsInFunctional) {
  TensorOptions o = device(GetParam());
  manual_seed(4);
  Tensor x = randn({4, 3}, o).requires_grad_(), y = x.detach().clone().requires_grad_();
  Tensor target = tensor({2, 0, 1, 1}, o.dtype(kLong));
  cross_entropy_loss(x, target).backward();
  F::cross_entropy(y, target).backward();
  expect_same(x.grad(), y.grad());
}

LOCUS_INSTANTIATE_DEVICES(Aten);

TEST(AtenMessages, BadArgumentsNameTheFunction) {
  Tensor x = randn({1, 1, 4, 4}), w = randn({1, 1, 2, 2}), p = rand({3}), t = rand({3});
  EXPECT_THROW_MSG(conv2d(x, w, {}, {1, 1, 1}), Error, "[conv2d] stride must have 1 or 2 values, got 3 ([1, 1, 1])");
  EXPECT_THROW_MSG(conv2d(x, w, {}, 1, IntArrayRef()), Error, "[conv2d] padding must have 1 or 2 values, got 0");
  EXPECT_THROW_MSG(conv1d(randn({1, 1, 4}), randn({1, 1, 2}), {}, {1, 1}), Error,
                   "[conv1d] stride must have 1 value, got 2 ([1, 1])");
  EXPECT_THROW_MSG(max_pool2d(x, {2, 2, 2}), Error, "[max_pool2d] kernel_size must have 1 or 2 values, got 3");
  EXPECT_THROW_MSG(avg_pool2d(x, 2, {}, 0, false, true, 0), Error,
                   "[avg_pool2d] divisor_override must not be zero; leave it unset to divide by the window size.");
  EXPECT_THROW_MSG(adaptive_avg_pool2d(x, {1, 2, 3}), Error, "[adaptive_avg_pool2d] output_size must have 1 or 2 values");
  EXPECT_THROW_MSG(nll_loss(randn({2, 3}), tensor({0, 1}, dtype(kLong)), {}, 3), Error,
                   "[nll_loss] reduction must be locus::Reduction::None, Mean or Sum (0, 1 or 2), got 3.");
  EXPECT_THROW_MSG(mse_loss(p, t, -1), Error, "[mse_loss] reduction must be");
  EXPECT_THROW_MSG(cross_entropy_loss(randn({2, 3}), tensor({0, 1}, dtype(kLong)), {}, 7), Error,
                   "[cross_entropy_loss] reduction must be");
  EXPECT_THROW_MSG(binary_cross_entropy(p, t, {}, 4), Error, "[binary_cross_entropy] reduction must be");
  EXPECT_THROW_MSG(binary_cross_entropy_with_logits(p, t, {}, {}, 4), Error,
                   "[binary_cross_entropy_with_logits] reduction must be");
  EXPECT_THROW_MSG(binary_cross_entropy(p, rand({2, 3})), Error,
                   "[binary_cross_entropy] target size [2, 3] differs from input size [3]; give both the same shape.");
  EXPECT_THROW_MSG(embedding(randn({4, 2}), tensor({1}, dtype(kLong)), -1, false, /*sparse=*/true), Error,
                   "[embedding] sparse=true (sparse gradients) is not supported: locus's gradients are dense tensors; "
                   "pass sparse(false) (an optimizer then updates the whole table).");
  // scale_grad_by_freq reaches F::embedding (its values: EmbeddingInit.EmbeddingScaleGradByFreq)
  Tensor table = randn({4, 2}).requires_grad_();
  embedding(table, tensor({1, 1}, dtype(kLong)), -1, /*scale_grad_by_freq=*/true).sum().backward();
  EXPECT_TRUE(table.grad()[1].equal(ones({2})));
}

}  // namespace aten_test
