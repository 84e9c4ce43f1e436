// scripts/libtorch-diff: Modules with deterministic weights: Sequential printing and names, six optimizers over three steps, conv/batch norm/pool forward and backward, LSTM, Embedding, norms, StepLR, autograd::grad.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
namespace nn = torch::nn;
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& p : m.parameters()) { auto n = p.numel(); p.copy_((torch::arange(n).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 0.5); ++k; }
}
int main() {
  nn::Sequential seq(nn::Linear(4, 5), nn::ReLU(), nn::Dropout(0.5), nn::Linear(5, 3), nn::LogSoftmax(1));
  std::cout << seq << "\n";
  for (auto& np : seq->named_parameters()) std::cout << np.key() << " " << np.value().sizes() << "\n";
  det_init(*seq);
  seq->eval();
  auto x = (torch::arange(8).reshape({2, 4}).to(torch::kFloat) - 3) / 4;
  auto y = torch::tensor({0, 2});
  P(seq->forward(x));
  seq->train();
  for (auto* name : {"sgd", "sgdm", "adam", "adamw", "rmsprop", "adagrad"}) {
    det_init(*seq);
    seq->eval();
    std::unique_ptr<torch::optim::Optimizer> opt;
    std::string n = name;
    if (n == "sgd") opt.reset(new torch::optim::SGD(seq->parameters(), 0.1));
    if (n == "sgdm") opt.reset(new torch::optim::SGD(seq->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01)));
    if (n == "adam") opt.reset(new torch::optim::Adam(seq->parameters(), torch::optim::AdamOptions(0.01).amsgrad(true)));
    if (n == "adamw") opt.reset(new torch::optim::AdamW(seq->parameters(), torch::optim::AdamWOptions(0.01)));
    if (n == "rmsprop") opt.reset(new torch::optim::RMSprop(seq->parameters(), torch::optim::RMSpropOptions(0.01).momentum(0.5).centered(true)));
    if (n == "adagrad") opt.reset(new torch::optim::Adagrad(seq->parameters(), torch::optim::AdagradOptions(0.1).lr_decay(0.01)));
    for (int s = 0; s < 3; ++s) {
      opt->zero_grad();
      auto loss = torch::nll_loss(seq->forward(x), y);
      loss.backward();
      opt->step();
      std::cout << name << " step " << s << " loss " << loss.item<float>() << "\n";
    }
    P(seq->parameters()[0]);
  }
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).stride(1).padding(1).bias(true));
  nn::BatchNorm2d bn(3);
  nn::MaxPool2d pool(nn::MaxPool2dOptions(2));
  std::cout << conv << "\n" << bn << "\n" << pool << "\n";
  det_init(*conv);
  auto img = (torch::arange(2 * 2 * 4 * 4).reshape({2, 2, 4, 4}).to(torch::kFloat) * 0.1).cos().requires_grad_(true);
  auto out = pool(bn(conv(img)));
  P(out);
  out.pow(2).sum().backward();
  P(img.grad().sum(1));
  P(conv->weight.grad());
  P(bn->running_mean); P(bn->running_var);
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(1));
  det_init(*lstm);
  auto seqin = (torch::arange(2 * 1 * 3).reshape({2, 1, 3}).to(torch::kFloat) * 0.3).sin();
  auto lo = lstm->forward(seqin);
  P(std::get<0>(lo)); P(std::get<0>(std::get<1>(lo)));
  nn::Embedding emb(5, 3); det_init(*emb); P(emb(torch::tensor({{1, 4}, {0, 0}})));
  nn::LayerNorm ln(nn::LayerNormOptions({4})); P(ln(x));
  nn::GroupNorm gn(nn::GroupNormOptions(2, 4)); P(gn(x.view({1, 4, 2})));
  auto sd = seq->named_buffers(); std::cout << sd.size() << "\n";
  torch::optim::SGD sgd(seq->parameters(), 1.0);
  torch::optim::StepLR sched(sgd, 2, 0.5);
  for (int e = 0; e < 5; ++e) { sched.step(); std::cout << sgd.param_groups()[0].options().get_lr() << " "; }
  std::cout << "\n";
  P(torch::nn::functional::kl_div(x.log_softmax(1), x.softmax(1), torch::nn::functional::KLDivFuncOptions().reduction(torch::kBatchMean)));
  P(torch::nn::functional::huber_loss(x, torch::zeros_like(x)));
  P(torch::nn::functional::cosine_similarity(x, x.flip({1})));
  P(torch::nn::functional::embedding(torch::tensor({1}), torch::eye(3)));
  P(torch::nn::functional::conv1d(x.unsqueeze(0), torch::ones({1, 2, 2})));
  auto w = torch::ones({2, 2}, torch::requires_grad());
  auto z = (w * w * 3).sum();
  auto g = torch::autograd::grad({z}, {w}, {}, true, true);
  P(g[0]);
  auto gg = torch::autograd::grad({g[0].sum()}, {w});
  P(gg[0]);
}
