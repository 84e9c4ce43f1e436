// scripts/libtorch-diff: LSTM, GRU and RNN with every option (layers, bidirectional, batch_first, proj_size,
// relu, no bias), with and without initial states: parameter names, output and state values, gradients of
// the input, the states and the weights; LSTMCell, GRUCell, RNNCell; state_dict names.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
namespace nn = torch::nn;
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& np : m.named_parameters()) {
    auto& p = np.value();
    auto n = p.numel();
    p.copy_((torch::arange(n).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 0.4);
    ++k;
  }
}
void names(nn::Module& m) {
  for (auto& np : m.named_parameters()) std::cout << np.key() << " " << np.value().sizes() << "\n";
  for (auto& np : m.named_buffers()) std::cout << "buffer " << np.key() << "\n";
}
torch::Tensor seq_input(int64_t L, int64_t N, int64_t F) {
  return (torch::arange(L * N * F).reshape({L, N, F}).to(torch::kFloat) * 0.23).cos().requires_grad_(true);
}
void grads(nn::Module& m, const torch::Tensor& x) {
  P(x.grad());
  for (auto& np : m.named_parameters()) {
    std::cout << "grad " << np.key() << "\n";
    if (np.value().grad().defined()) std::cout << np.value().grad() << "\n"; else std::cout << "undefined\n";
  }
}
int main() {
  std::cout.precision(4);
  // LSTM: two layers, bidirectional, proj_size, no initial state
  {
    nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2));
    std::cout << lstm << "\n";
    names(*lstm);
    det_init(*lstm);
    auto x = seq_input(3, 2, 3);
    auto out = lstm->forward(x);
    auto y = std::get<0>(out);
    auto h = std::get<0>(std::get<1>(out));
    auto c = std::get<1>(std::get<1>(out));
    std::cout << y.sizes() << " " << h.sizes() << " " << c.sizes() << "\n";
    P(y); P(h); P(c);
    (y.sum() + h.pow(2).sum() + c.sum() * 0.5).backward();
    grads(*lstm, x);
  }
  // LSTM: batch_first, initial state, no bias
  {
    nn::LSTM lstm(nn::LSTMOptions(2, 3).batch_first(true).bias(false));
    names(*lstm);
    det_init(*lstm);
    auto x = seq_input(2, 4, 2);  // [N=2, L=4, 2]
    auto h0 = (torch::arange(6).reshape({1, 2, 3}).to(torch::kFloat) * 0.1).requires_grad_(true);
    auto c0 = (torch::arange(6).reshape({1, 2, 3}).to(torch::kFloat) * -0.2).requires_grad_(true);
    auto out = lstm->forward(x, std::make_tuple(h0, c0));
    auto y = std::get<0>(out);
    P(y); P(std::get<0>(std::get<1>(out))); P(std::get<1>(std::get<1>(out)));
    (y * y).sum().backward();
    grads(*lstm, x);
    P(h0.grad()); P(c0.grad());
  }
  // GRU: two layers, bidirectional, initial state, batch_first
  {
    nn::GRU gru(nn::GRUOptions(3, 2).num_layers(2).bidirectional(true).batch_first(true).dropout(0.0));
    std::cout << gru << "\n";
    names(*gru);
    det_init(*gru);
    auto x = seq_input(2, 3, 3);
    auto h0 = (torch::arange(16).reshape({4, 2, 2}).to(torch::kFloat) * 0.05).requires_grad_(true);
    auto out = gru->forward(x, h0);
    P(std::get<0>(out)); P(std::get<1>(out));
    (std::get<0>(out).sum() + std::get<1>(out).sum()).backward();
    grads(*gru, x);
    P(h0.grad());
  }
  // GRU without bias, no state
  {
    nn::GRU gru(nn::GRUOptions(2, 2).bias(false));
    det_init(*gru);
    auto x = seq_input(3, 1, 2);
    auto out = gru->forward(x);
    P(std::get<0>(out)); P(std::get<1>(out));
  }
  // RNN: relu, two layers, bidirectional
  {
    nn::RNN rnn(nn::RNNOptions(2, 3).num_layers(2).nonlinearity(torch::kReLU).bidirectional(true));
    std::cout << rnn << "\n";
    names(*rnn);
    det_init(*rnn);
    auto x = seq_input(3, 2, 2);
    auto out = rnn->forward(x);
    P(std::get<0>(out)); P(std::get<1>(out));
    std::get<0>(out).pow(2).sum().backward();
    grads(*rnn, x);
  }
  // RNN: tanh, batch_first, initial state, no bias
  {
    nn::RNN rnn(nn::RNNOptions(2, 3).batch_first(true).bias(false).nonlinearity(torch::kTanh));
    det_init(*rnn);
    auto x = seq_input(2, 3, 2);
    auto h0 = torch::full({1, 2, 3}, 0.25);
    auto out = rnn->forward(x, h0);
    P(std::get<0>(out)); P(std::get<1>(out));
  }
  // all_weights and state_dict names
  {
    nn::GRU gru(nn::GRUOptions(2, 2).num_layers(2));
    std::cout << gru->all_weights().size() << "\n";
    for (auto& w : gru->all_weights()) std::cout << w.sizes() << " ";
    std::cout << "\n";
    for (auto& k : gru->named_parameters().keys()) std::cout << k << " ";
    std::cout << "\n";
  }
  // cells
  {
    nn::LSTMCell cell(nn::LSTMCellOptions(3, 2));
    std::cout << cell << "\n";
    names(*cell);
    det_init(*cell);
    auto x = (torch::arange(6).reshape({2, 3}).to(torch::kFloat) * 0.4).sin().requires_grad_(true);
    auto hc = cell->forward(x);
    P(std::get<0>(hc)); P(std::get<1>(hc));
    auto hc2 = cell->forward(x, hc);
    P(std::get<0>(hc2)); P(std::get<1>(hc2));
    (std::get<0>(hc2).sum() + std::get<1>(hc2).sum()).backward();
    grads(*cell, x);
  }
  {
    nn::GRUCell cell(nn::GRUCellOptions(3, 2).bias(false));
    std::cout << cell << "\n";
    names(*cell);
    det_init(*cell);
    auto x = (torch::arange(6).reshape({2, 3}).to(torch::kFloat) * 0.4).sin().requires_grad_(true);
    auto h = cell->forward(x);
    auto h2 = cell->forward(x, h);
    P(h); P(h2);
    h2.sum().backward();
    grads(*cell, x);
  }
  {
    nn::RNNCell cell(nn::RNNCellOptions(3, 2).nonlinearity(torch::kReLU));
    std::cout << cell << "\n";
    names(*cell);
    det_init(*cell);
    auto x = (torch::arange(6).reshape({2, 3}).to(torch::kFloat) * 0.4).sin().requires_grad_(true);
    auto h = cell->forward(x, torch::ones({2, 2}) * 0.3);
    P(h);
    h.sum().backward();
    grads(*cell, x);
  }
  // a short training loop: LSTM + Linear, SGD
  {
    nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2));
    nn::Linear head(3, 1);
    det_init(*lstm); det_init(*head);
    std::vector<torch::Tensor> params = lstm->parameters();
    for (auto& p : head->parameters()) params.push_back(p);
    torch::optim::SGD opt(params, 0.1);
    auto x = (torch::arange(12).reshape({3, 2, 2}).to(torch::kFloat) * 0.3).sin();
    auto target = torch::tensor({0.5f, -0.5f}).reshape({2, 1});
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      auto out = std::get<0>(lstm->forward(x));
      auto loss = torch::mse_loss(head->forward(out[-1]), target);
      loss.backward();
      opt.step();
      std::cout << "step " << s << " loss " << loss.item<float>() << "\n";
    }
  }
}
