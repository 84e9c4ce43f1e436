// scripts/libtorch-diff: Every layer kind with deterministic weights (conv 1-3-D, transposed, grouped, GRU/LSTM/RNN, attention, transformer layer, embeddings, norms, upsampling) and every loss and functional.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
namespace nn = torch::nn;
namespace F = torch::nn::functional;
template <class T> void show(const T& x) { std::cout << x << "\n"; }
template <class... T> void show(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (show(x), ...); }, t); }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& p : m.parameters()) { auto n = p.numel(); p.copy_((torch::arange(n).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 0.3); ++k; }
}
torch::Tensor X(std::vector<int64_t> s, double f = 0.1) { int64_t n = 1; for (auto v : s) n *= v; return (torch::arange(n).to(torch::kFloat) * f).cos().reshape(s); }
int main() {
  { nn::Conv1d c(nn::Conv1dOptions(2, 3, 3).stride(2).padding(1).dilation(1)); det_init(*c); P(c(X({1, 2, 7}))); }
  { nn::Conv3d c(nn::Conv3dOptions(1, 2, 2)); det_init(*c); P(c(X({1, 1, 3, 3, 3}))); }
  { nn::ConvTranspose2d c(nn::ConvTranspose2dOptions(2, 2, 3).stride(2).padding(1).output_padding(1)); det_init(*c); P(c(X({1, 2, 3, 3}))); }
  { nn::Conv2d c(nn::Conv2dOptions(4, 4, 3).groups(2).padding(1).bias(false)); det_init(*c); P(c(X({1, 4, 3, 3})).sum({2, 3})); }
  { nn::GRU g(nn::GRUOptions(3, 4).num_layers(2).batch_first(true)); det_init(*g); P(g(X({2, 3, 3}))); }
  { nn::LSTM l(nn::LSTMOptions(3, 2).bidirectional(true)); det_init(*l); P(l(X({3, 1, 3}))); }
  { nn::RNN r(nn::RNNOptions(3, 2).nonlinearity(torch::kReLU)); det_init(*r); P(r(X({2, 1, 3}))); }
  { nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2)); det_init(*mha); auto q = X({3, 1, 4}); P(mha(q, q, q)); }
  { nn::TransformerEncoderLayer tl(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0)); det_init(*tl); P(tl(X({3, 1, 4}))); }
  { nn::Embedding e(nn::EmbeddingOptions(5, 3)); det_init(*e); P(e(torch::tensor({1, 2}))); }
  { nn::EmbeddingBag e(nn::EmbeddingBagOptions(5, 3).mode(torch::kMean)); det_init(*e); P(e(torch::tensor({1, 2, 4, 0}), torch::tensor({0, 2}))); }
  { nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(2).affine(true)); det_init(*in); P(in(X({1, 2, 2, 2}))); }
  { nn::LayerNorm ln(nn::LayerNormOptions({2, 2}).elementwise_affine(true)); det_init(*ln); P(ln(X({2, 2, 2}))); }
  { nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(torch::kLinear).align_corners(true)); P(up(X({1, 1, 3}))); }
  { nn::PixelShuffle ps(2); P(ps(X({1, 4, 1, 2}))); }
  { nn::Unfold uf(nn::UnfoldOptions({2, 2})); P(uf(X({1, 1, 3, 3}))); }
  { nn::PReLU pr; P(pr(X({4}) - 0.5)); }
  P(F::cross_entropy(X({3, 4}), torch::tensor({0, 3, 1}), F::CrossEntropyFuncOptions().label_smoothing(0.1).weight(torch::tensor({1.f, 2.f, 1.f, 0.5f}))));
  P(F::cross_entropy(X({3, 4}), torch::tensor({0, -100, 1}), F::CrossEntropyFuncOptions().ignore_index(-100)));
  P(F::cross_entropy(X({2, 3}), X({2, 3}).softmax(1)));
  P(F::nll_loss(X({3, 4}).log_softmax(1), torch::tensor({0, 3, 1}), F::NLLLossFuncOptions().reduction(torch::kNone)));
  P(F::binary_cross_entropy(X({4}).sigmoid(), torch::tensor({0.f, 1.f, 1.f, 0.f}), F::BinaryCrossEntropyFuncOptions().weight(torch::tensor({1.f, 2.f, 3.f, 4.f}))));
  P(F::binary_cross_entropy_with_logits(X({4}), torch::tensor({0.f, 1.f, 1.f, 0.f}), F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(torch::tensor({2.f}))));
  P(F::margin_ranking_loss(X({3}), X({3}, 0.2), torch::tensor({1.f, -1.f, 1.f})));
  P(F::triplet_margin_loss(X({2, 3}), X({2, 3}, 0.2), X({2, 3}, 0.3)));
  P(F::multi_margin_loss(X({2, 3}), torch::tensor({0, 2})));
  P(F::poisson_nll_loss(X({3}), X({3}, 0.2).abs()));
  P(F::kl_div(X({3}).log_softmax(0), X({3}, 0.3).softmax(0), F::KLDivFuncOptions().reduction(torch::kSum).log_target(false)));
  P(F::interpolate(X({1, 1, 2, 3}), F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 5}).mode(torch::kBicubic).align_corners(false)));
  P(F::interpolate(X({1, 1, 2, 3}), F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 1.5}).mode(torch::kBilinear).align_corners(false)));
  P(F::interpolate(X({1, 1, 4}), F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(torch::kArea)));
  P(F::pad(X({1, 1, 3}), F::PadFuncOptions({2, 1}).mode(torch::kReplicate)));
  P(F::pad(X({1, 1, 2, 2}), F::PadFuncOptions({1, 1, 1, 1}).mode(torch::kCircular)));
  P(F::adaptive_avg_pool2d(X({1, 1, 5, 5}), F::AdaptiveAvgPool2dFuncOptions({2, 3})));
  P(F::adaptive_max_pool1d(X({1, 1, 7}), F::AdaptiveMaxPool1dFuncOptions(3)));
  P(F::avg_pool2d(X({1, 1, 4, 4}), F::AvgPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false)));
  P(F::max_pool1d(X({1, 1, 7}), F::MaxPool1dFuncOptions(3).stride(2).ceil_mode(true)));
  P(F::local_response_norm(X({1, 3, 2}), F::LocalResponseNormFuncOptions(2)));
  P(F::glu(X({2, 4}), 1)); P(F::softplus(X({3}), F::SoftplusFuncOptions().beta(2).threshold(1))); P(F::elu(X({3}) - 1, F::ELUFuncOptions().alpha(0.5)));
  P(F::hardtanh(X({4}) * 3)); P(F::selu(X({3}) - 0.5)); P(F::mish(X({3}))); P(F::silu(X({3}))); P(F::softsign(X({3}))); P(F::logsigmoid(X({3})));

  P(F::fold(X({1, 4, 4}), F::FoldFuncOptions({3, 3}, {2, 2})));
  P(F::affine_grid(torch::tensor({{{1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}}}), {1, 1, 2, 2}, false));
  P(F::pixel_unshuffle(X({1, 1, 2, 4}), 2));
  P(F::normalize(X({2, 3}), F::NormalizeFuncOptions().p(1).dim(0)));
  P(F::batch_norm(X({2, 3}), torch::zeros(3), torch::ones(3), F::BatchNormFuncOptions().training(false)));
  P(F::group_norm(X({1, 4, 2}), F::GroupNormFuncOptions(2)));
  P(F::dropout(X({3}), F::DropoutFuncOptions().p(0.5).training(false)));
  P(F::embedding_bag(torch::tensor({0, 1}), X({3, 2}), F::EmbeddingBagFuncOptions().offsets(torch::tensor({0})).mode(torch::kMax)));
  P(F::hinge_embedding_loss(X({3}), torch::tensor({1.f, -1.f, 1.f})));
  P(F::cosine_embedding_loss(X({2, 3}), X({2, 3}, 0.5), torch::tensor({1.f, -1.f})));
  P(F::smooth_l1_loss(X({3}), torch::zeros(3), F::SmoothL1LossFuncOptions().beta(0.5)));
  P(F::huber_loss(X({3}) * 3, torch::zeros(3), F::HuberLossFuncOptions().delta(0.5)));
  P(F::soft_margin_loss(X({3}), torch::tensor({1.f, -1.f, 1.f})));
  P(F::multilabel_soft_margin_loss(X({2, 3}), torch::tensor({{1.f, 0.f, 1.f}, {0.f, 1.f, 0.f}})));
  P(F::multilabel_margin_loss(X({1, 4}), torch::tensor({{3, 0, -1, 1}})));

}
