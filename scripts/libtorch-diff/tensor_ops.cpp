// scripts/libtorch-diff: Tensor math, reductions, shapes, indexing, functional layers and losses on fixed inputs.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
int main() {
  auto a = torch::arange(12).reshape({3, 4}).to(torch::kFloat) / 3 - 1;
  auto b = torch::arange(4).to(torch::kFloat) + 0.5;
  auto i = torch::arange(12).reshape({3, 4});
  P(a); P(a + b); P(a * b); P(a / b); P(a - 2); P(2 - a); P(a.pow(2)); P(a.abs()); P(a.exp()); P(a.sigmoid());
  P(a.sum()); P(a.sum(0)); P(a.sum(1, true)); P(a.mean(1)); P(a.std()); P(a.var(0)); P(a.max()); P(std::get<1>(a.max(1)));
  P(a.argmax()); P(a.argmin(0)); P(a.cumsum(1)); P(a.norm()); P(a.t()); P(a.transpose(0, 1).contiguous());
  P(a.matmul(a.t())); P(torch::mm(a, a.t())); P(a.softmax(1)); P(a.log_softmax(0)); P(torch::relu(a)); P(torch::tanh(a));
  P(a.clamp(-0.5, 0.5)); P(a.round()); P(a.floor()); P(a.ceil()); P(a.sign()); P(a.sqrt()); P(a.reciprocal());
  P(i / 2); P(i.div(5, "floor")); P(i.to(torch::kDouble) / 7); P(i > 5); P(i.eq(3)); P((i > 5).sum());
  P(i.remainder(-5)); P(torch::fmod(i, -5)); P(i * 1.5); P(i.sum()); P(i.to(torch::kFloat).mean());
  P(a.view({2, 6})); P(a.reshape({-1})); P(a.unsqueeze(0).sizes()); P(a.flatten()); P(a.narrow(1, 1, 2)); P(a.slice(0, 0, 3, 2));
  P(a.index_select(1, torch::tensor({0, 2}))); P(a.gather(1, torch::tensor({{0, 1}, {1, 2}, {3, 3}}))); P(a.masked_fill(a > 0, 9));
  P(torch::where(a > 0, a, torch::zeros_like(a))); P(torch::cat({a, a}, 0)); P(torch::stack({b, b}, 1)); P(a.chunk(2, 1)[1]);
  P(std::get<0>(a.sort(1, true))); P(std::get<1>(a.topk(2, 1))); P(a.flip({0})); P(a.roll(1, 1)); P(a.repeat({2, 1}));
  P(a.expand({2, 3, 4}).sum(0)); P(torch::linspace(0, 1, 5)); P(torch::logspace(0, 2, 3)); P(torch::eye(3)); P(torch::full({2, 2}, 7));
  P(torch::tril(a)); P(torch::triu(a, 1)); P(a.diag()); P(torch::outer(b, b)); P(torch::dot(b, b)); P(torch::einsum("ij,j->i", {a, b}));
  P(torch::nn::functional::normalize(a, torch::nn::functional::NormalizeFuncOptions().dim(1)));
  P(torch::nn::functional::pad(a, torch::nn::functional::PadFuncOptions({1, 1}))); P(torch::nn::functional::one_hot(torch::tensor({0, 2}), 3));
  P(torch::nn::functional::cross_entropy(a, torch::tensor({0, 1, 3}))); P(torch::nn::functional::mse_loss(a, torch::zeros_like(a)));
  P(torch::nn::functional::smooth_l1_loss(a, torch::zeros_like(a))); P(torch::nn::functional::nll_loss(a.log_softmax(1), torch::tensor({0, 1, 3})));
  P(torch::nn::functional::binary_cross_entropy_with_logits(a, torch::ones_like(a))); P(torch::nn::functional::gelu(a));
  P(torch::nn::functional::leaky_relu(a, torch::nn::functional::LeakyReLUFuncOptions().negative_slope(0.2)));
  P(torch::nn::functional::avg_pool1d(a.unsqueeze(0), torch::nn::functional::AvgPool1dFuncOptions(2)));
  P(torch::nn::functional::max_pool2d(a.view({1, 1, 3, 4}), torch::nn::functional::MaxPool2dFuncOptions(2)));
  P(torch::nn::functional::interpolate(a.view({1, 1, 3, 4}), torch::nn::functional::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest)));
  P(a.any()); P(a.all()); P(a.isnan().any()); P(a.nonzero()); P(a.numel()); P(a.dim()); P(a.dtype()); P(a.device());
  P(torch::tensor({1, 2, 3}).dtype()); P(torch::tensor({1.5}).dtype()); P(torch::tensor({true}).dtype());
  P(a.to(torch::kHalf)); P(a.to(torch::kInt)); P(i.to(torch::kFloat).log1p()); P(torch::lerp(a, b, 0.3));
  P(torch::bmm(a.unsqueeze(0), a.t().unsqueeze(0)));
  P(a.unfold(1, 2, 1)); P(torch::meshgrid({b, b})[0]); P(a.cumprod(0)); P(a.logsumexp(1)); P(a.median()); 
  P(a.prod(1)); P(i % 5); P(i.bitwise_and(6)); P((i > 3) & (i < 8)); P(~(i > 3)); P(i ^ 5); P(i | 8);
  P(a.allclose(a)); P(a.equal(a.clone())); 
}
