// scripts/libtorch-diff: Embedding and EmbeddingBag (every mode, offsets, include_last_offset, per_sample_weights,
// padding_idx, max_norm renormalising the looked-up rows in place, from_pretrained, the functional forms), the
// training-loop utilities (clip_grad_norm_ with norm types 2, 1 and inf and error_if_nonfinite, clip_grad_value_,
// parameters_to_vector, vector_to_parameters) and the deterministic nn::init functions.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#include <limits>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
namespace nn = torch::nn;
namespace F = torch::nn::functional;
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& np : m.named_parameters()) {
    auto& p = np.value();
    p.copy_((torch::arange(p.numel()).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 1.5);
    ++k;
  }
}
int main() {
  std::cout.precision(5);
  // Embedding
  {
    nn::Embedding emb(nn::EmbeddingOptions(6, 3).padding_idx(2));
    std::cout << emb << "\n";
    det_init(*emb);
    auto idx = torch::tensor({{0, 2, 5}, {2, 1, 0}});
    auto y = emb(idx);
    P(y);
    (y * torch::arange(3).to(torch::kFloat)).sum().backward();
    P(emb->weight.grad());
  }
  {
    nn::Embedding emb(nn::EmbeddingOptions(5, 4).max_norm(1.0));
    std::cout << emb << "\n";
    det_init(*emb);
    auto y = emb(torch::tensor({{1, 3}, {3, 4}}));
    P(y);
    P(emb->weight);  // rows 1, 3 and 4 renormalised in place
    y.sum().backward();
    P(emb->weight.grad());
    nn::Embedding emb1(nn::EmbeddingOptions(5, 4).max_norm(2.0).norm_type(1.0));
    det_init(*emb1);
    P(emb1(torch::tensor({0, 4, 4})));
    P(emb1->weight);
  }
  {
    auto table = torch::arange(12).reshape({4, 3}).to(torch::kFloat) * 0.5 - 2;
    auto emb = nn::Embedding::from_pretrained(table.clone(), nn::EmbeddingFromPretrainedOptions().padding_idx(0));
    std::cout << emb->weight.requires_grad() << "\n";
    P(emb(torch::tensor({3, 0, 1})));
    auto emb2 = nn::Embedding::from_pretrained(table.clone(), nn::EmbeddingFromPretrainedOptions().freeze(false)
                                                                   .max_norm(2.5));
    P(emb2(torch::tensor({3, 1})));
    P(emb2->weight);
    auto w = table.clone();
    P(F::embedding(torch::tensor({0, 2}), w, F::EmbeddingFuncOptions().max_norm(1.5)));
    P(w);
  }
  // EmbeddingBag
  {
    for (int mode = 0; mode < 3; ++mode) {
      auto opts = nn::EmbeddingBagOptions(6, 3);
      if (mode == 0) opts.mode(torch::kSum);
      if (mode == 1) opts.mode(torch::kMean);
      if (mode == 2) opts.mode(torch::kMax);
      nn::EmbeddingBag bag(opts);
      std::cout << bag << "\n";
      det_init(*bag);
      auto input = torch::tensor({1, 2, 4, 5, 4, 3, 2, 0});
      auto offsets = torch::tensor({0, 3, 3, 6});
      auto y = bag(input, offsets);
      P(y);
      (y * torch::arange(12).reshape({4, 3}).to(torch::kFloat)).sum().backward();
      P(bag->weight.grad());
      P(bag(torch::tensor({{1, 2}, {0, 5}, {3, 3}})));
    }
    nn::EmbeddingBag bag(nn::EmbeddingBagOptions(6, 3).mode(torch::kSum).include_last_offset(true));
    det_init(*bag);
    auto input = torch::tensor({1, 2, 4, 5, 4, 3, 2, 0});
    auto psw = torch::linspace(0.5, 2.0, 8).requires_grad_(true);
    auto y = bag(input, torch::tensor({0, 3, 5, 8}), psw);
    P(y);
    y.sum().backward();
    P(psw.grad());
    nn::EmbeddingBag padded(nn::EmbeddingBagOptions(6, 3).mode(torch::kMean).padding_idx(2));
    det_init(*padded);
    P(padded(input, torch::tensor({0, 3, 5})));
    nn::EmbeddingBag maxn(nn::EmbeddingBagOptions(6, 3).mode(torch::kSum).max_norm(1.0));
    det_init(*maxn);
    P(maxn(input, torch::tensor({0, 3, 5})));
    P(maxn->weight);
    auto w = torch::arange(18).reshape({6, 3}).to(torch::kFloat) * 0.25;
    P(F::embedding_bag(input, w, F::EmbeddingBagFuncOptions().offsets(torch::tensor({0, 4})).mode(torch::kMax)));
  }
  // gradient clipping and parameter vectors
  {
    nn::Sequential net(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 2));
    det_init(*net);
    auto x = (torch::arange(6).reshape({2, 3}).to(torch::kFloat) * 0.4).cos();
    for (double norm_type : {2.0, 1.0, std::numeric_limits<double>::infinity(), 3.0}) {
      net->zero_grad();
      net->forward(x).pow(2).sum().mul(3).backward();
      double total = nn::utils::clip_grad_norm_(net->parameters(), 0.5, norm_type);
      std::cout << "norm " << norm_type << " total " << total << "\n";
      P(net->parameters()[0].grad());
      P(net->parameters()[3].grad());
    }
    net->zero_grad();
    net->forward(x).sum().backward();
    std::cout << nn::utils::clip_grad_norm_(net->parameters()[0], 10.0) << "\n";
    std::cout << nn::utils::clip_grad_norm_({net->parameters()[1], net->parameters()[2]}, 0.1, 1.0) << "\n";
    P(net->parameters()[1].grad());
    nn::utils::clip_grad_value_(net->parameters(), 0.05);
    P(net->parameters()[0].grad());
    nn::utils::clip_grad_value_(net->parameters()[3], 0.01);
    P(net->parameters()[3].grad());
    net->parameters()[3].grad()[0].fill_(std::numeric_limits<float>::infinity());
    try {
      nn::utils::clip_grad_norm_(net->parameters(), 1.0, 2.0, true);
      std::cout << "no error\n";
    } catch (const std::exception&) {
      std::cout << "error_if_nonfinite threw\n";
    }
    auto vec = nn::utils::parameters_to_vector(net->parameters());
    std::cout << vec.sizes() << "\n";
    P(vec.slice(0, 10, 20));
    nn::utils::vector_to_parameters(torch::arange(vec.numel()).to(torch::kFloat) * 0.01, net->parameters());
    P(net->parameters()[2]);
    P(net->forward(x));
  }
  // nn::init (the deterministic ones)
  {
    auto t = torch::empty({3, 4});
    nn::init::constant_(t, 0.75); P(t);
    nn::init::ones_(t); P(t);
    nn::init::zeros_(t); P(t);
    nn::init::eye_(t); P(t);
    auto w = torch::empty({4, 2, 3});
    nn::init::dirac_(w); P(w);
    auto w2 = torch::empty({2, 2, 3, 3});
    nn::init::dirac_(w2); P(w2.sum({2, 3}));
    std::cout << nn::init::calculate_gain(torch::kReLU) << " " << nn::init::calculate_gain(torch::kTanh) << " "
              << nn::init::calculate_gain(torch::kLeakyReLU, 0.2) << " " << nn::init::calculate_gain(torch::kSigmoid)
              << " " << nn::init::calculate_gain(torch::kConv2D)
              << " " << nn::init::calculate_gain(torch::kLinear) << "\n";
    auto fans = nn::init::_calculate_fan_in_and_fan_out(torch::empty({5, 3, 2, 2}));
    std::cout << std::get<0>(fans) << " " << std::get<1>(fans) << "\n";
    auto big = torch::empty({64, 32});
    nn::init::kaiming_uniform_(big, 0, torch::kFanOut, torch::kReLU);
    std::cout << big.sizes() << " " << (big.abs().max().item<float>() <= std::sqrt(6.0 / 64) + 1e-6) << "\n";
    nn::init::xavier_uniform_(big, 2.0);
    std::cout << (big.abs().max().item<float>() <= 2.0 * std::sqrt(6.0 / 96) + 1e-6) << "\n";
    nn::init::orthogonal_(big);
    std::cout << torch::allclose(big.t().mm(big), torch::eye(32), 1e-4, 1e-4) << "\n";
    nn::init::sparse_(big, 0.25);
    std::cout << (big.eq(0).sum(0) >= 16).all().item<bool>() << "\n";
  }
}
