// Stop 53 probe: functional api, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
namespace F = torch::nn::functional;
int main() {
  auto x = torch::arange(32, torch::kFloat).reshape({1, 2, 4, 4}) / 10;
  auto w = torch::ones({3, 2, 3, 3}) * 0.1;
  std::cout << F::conv2d(x, w, F::Conv2dFuncOptions().padding(1).stride(2)) << "\n";
  std::cout << F::pad(x, F::PadFuncOptions({1, 1, 0, 0}).mode(torch::kReflect)).sizes() << "\n";
  std::cout << F::pad(x, F::PadFuncOptions({1, 0}).value(9))[0][0][0] << "\n";
  std::cout << F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear).align_corners(false))[0][0][0] << "\n";
  std::cout << F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).mode(torch::kNearest))[0][1] << "\n";
  std::cout << F::normalize(torch::tensor({{3., 4.}, {0., 2.}}), F::NormalizeFuncOptions().p(2).dim(1)) << "\n";
  std::cout << F::one_hot(torch::tensor({0, 2, 1}), 3) << "\n";
  std::cout << F::embedding(torch::tensor({1, 0}), torch::arange(6.).view({3, 2})) << "\n";
  std::cout << F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false)).equal(x) << "\n";
  std::cout << F::layer_norm(x, F::LayerNormFuncOptions({4}))[0][0][0] << "\n";
  std::cout << F::batch_norm(x, torch::zeros({2}), torch::ones({2}), F::BatchNormFuncOptions().training(false))[0][1][0] << "\n";
  auto a = torch::tensor({{0.2, 0.8}, {0.6, 0.4}});
  auto t = torch::tensor({1, 0});
  std::cout << F::cross_entropy(a, t) << F::cross_entropy(a, t, F::CrossEntropyFuncOptions().label_smoothing(0.1)) << "\n";
  std::cout << F::mse_loss(a, torch::ones_like(a), F::MSELossFuncOptions(torch::kSum)) << "\n";
  std::cout << F::kl_div(a.log(), a.flip({1}), F::KLDivFuncOptions().reduction(torch::kBatchMean)) << "\n";
  std::cout << F::binary_cross_entropy(a, torch::ones_like(a)) << F::binary_cross_entropy_with_logits(a, torch::zeros_like(a)) << "\n";
  std::cout << F::nll_loss(a.log_softmax(1), t, F::NLLLossFuncOptions().reduction(torch::kNone)) << "\n";
  std::cout << F::smooth_l1_loss(a, torch::zeros_like(a)) << F::huber_loss(a, torch::zeros_like(a), F::HuberLossFuncOptions().delta(0.5)) << "\n";
  std::cout << F::softplus(a) << F::gelu(a) << F::silu(a) << F::elu(a - 0.5) << F::leaky_relu(a - 0.5, F::LeakyReLUFuncOptions().negative_slope(0.2)) << "\n";
  std::cout << F::softmax(a, F::SoftmaxFuncOptions(1)) << F::log_softmax(a, 0) << "\n";
  std::cout << F::max_pool2d(x, F::MaxPool2dFuncOptions(2))[0][0] << F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(1).padding(1))[0][0][0] << "\n";
  std::cout << F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({1, 2})) << F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(1)) << "\n";
  std::cout << F::unfold(x, F::UnfoldFuncOptions({2, 2}).stride(2)).sizes() << F::fold(F::unfold(x, F::UnfoldFuncOptions(2).stride(2)), F::FoldFuncOptions({4, 4}, {2, 2}).stride(2)).equal(x) << "\n";
  std::cout << F::pixel_shuffle(torch::arange(8.).view({1, 4, 1, 2}), 2) << "\n";
  std::cout << F::cosine_similarity(a, a.flip({0}), F::CosineSimilarityFuncOptions().dim(1)) << "\n";
  std::cout << F::pairwise_distance(a, a.flip({0})) << "\n";
  std::cout << F::triplet_margin_loss(a, a, a.flip({0})) << F::margin_ranking_loss(a[0], a[1], torch::ones({2})) << "\n";
  std::cout << F::hardtanh(a * 3 - 1) << F::relu6(a * 10) << F::mish(a) << F::logsigmoid(a) << "\n";
  std::cout << F::glu(a, 1) << F::softsign(a) << F::tanhshrink(a) << F::threshold(a, F::ThresholdFuncOptions(0.5, -1)) << "\n";
  std::cout << F::local_response_norm(x, F::LocalResponseNormFuncOptions(2))[0][1][0] << "\n";
  std::cout << F::group_norm(x, F::GroupNormFuncOptions(1))[0][0][0] << F::instance_norm(x)[0][1][1] << "\n";
  std::cout << F::linear(a, torch::eye(2), torch::ones(2)) << F::bilinear(a, a, torch::ones({1, 2, 2})) << "\n";
  std::cout << F::poisson_nll_loss(a, a) << F::soft_margin_loss(a, torch::ones_like(a)) << F::multilabel_soft_margin_loss(a, torch::ones_like(a)) << "\n";
  std::cout << F::hinge_embedding_loss(a, torch::ones_like(a)) << F::l1_loss(a, a * 2) << F::cosine_embedding_loss(a, a.flip({0}), torch::tensor({1, -1})) << "\n";
  std::cout << F::multi_margin_loss(a, t) << "\n";
  std::cout << F::ctc_loss(torch::full({3, 1, 3}, -1.0986), torch::tensor({{1}}), torch::tensor({3}), torch::tensor({1})) << "\n";
  std::cout << F::affine_grid(torch::eye(2, 3).unsqueeze(0), {1, 1, 2, 2}, false) << "\n";
  std::cout << F::grid_sample(x, F::affine_grid(torch::eye(2, 3).unsqueeze(0), {1, 2, 2, 2}, false), F::GridSampleFuncOptions().align_corners(false))[0][0] << "\n";
}
