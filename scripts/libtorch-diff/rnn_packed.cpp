// scripts/libtorch-diff: torch::nn::utils::rnn: pad_sequence, pack_sequence, pack_padded_sequence (sorted and
// enforce_sorted=false), pad_packed_sequence (batch_first, padding_value, total_length), PackedSequence's
// accessors, and packed sequences fed to LSTM, GRU and RNN (outputs, final states, gradients).
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
namespace nn = torch::nn;
namespace rnn_utils = torch::nn::utils::rnn;
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& np : m.named_parameters()) {
    auto& p = np.value();
    p.copy_((torch::arange(p.numel()).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 0.4);
    ++k;
  }
}
void show(const rnn_utils::PackedSequence& p) {
  P(p.data()); P(p.batch_sizes());
  std::cout << "sorted " << p.sorted_indices().defined() << " unsorted " << p.unsorted_indices().defined() << "\n";
  if (p.sorted_indices().defined()) { P(p.sorted_indices()); P(p.unsorted_indices()); }
}
int main() {
  std::cout.precision(4);
  auto a = (torch::arange(8).reshape({4, 2}).to(torch::kFloat) * 0.3).sin().requires_grad_(true);
  auto b = (torch::arange(4).reshape({2, 2}).to(torch::kFloat) * 0.5).cos().requires_grad_(true);
  auto c = (torch::arange(6).reshape({3, 2}).to(torch::kFloat) * 0.7).sin().requires_grad_(true);
  P(rnn_utils::pad_sequence({a, b, c}));
  P(rnn_utils::pad_sequence({a, b, c}, true, -1.0));
  auto sorted = rnn_utils::pack_sequence({a, c, b});
  show(sorted);
  auto unsorted = rnn_utils::pack_sequence({a, b, c}, false);
  show(unsorted);
  auto padded = rnn_utils::pad_sequence({a, b, c});
  auto lengths = torch::tensor({4, 2, 3});
  auto pp = rnn_utils::pack_padded_sequence(padded, lengths, false, false);
  show(pp);
  auto bf = rnn_utils::pack_padded_sequence(padded.transpose(0, 1), lengths, true, false);
  P(bf.data());
  auto back = rnn_utils::pad_packed_sequence(pp);
  P(std::get<0>(back)); P(std::get<1>(back));
  auto back2 = rnn_utils::pad_packed_sequence(pp, true, 9.0, 6);
  P(std::get<0>(back2)); P(std::get<1>(back2));
  std::get<0>(back2).pow(2).sum().backward();
  P(a.grad()); P(b.grad()); P(c.grad());
  // sorted input given as padded
  auto sp = rnn_utils::pack_padded_sequence(rnn_utils::pad_sequence({a, c, b}), torch::tensor({4, 3, 2}));
  show(sp);
  // PackedSequence's conversions
  auto cpu = sp.cpu();
  std::cout << cpu.is_cuda() << "\n";
  auto d = sp.to(torch::kDouble);
  std::cout << d.data().dtype() << "\n";
  // LSTM on a packed batch, unsorted, with and without initial state
  {
    nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
    det_init(*lstm);
    auto x = rnn_utils::pack_sequence({a.detach(), b.detach(), c.detach()}, false);
    auto out = lstm->forward_with_packed_input(x);
    auto& po = std::get<0>(out);
    show(po);
    P(std::get<0>(std::get<1>(out))); P(std::get<1>(std::get<1>(out)));
    auto unpacked = rnn_utils::pad_packed_sequence(po, true);
    P(std::get<0>(unpacked)); P(std::get<1>(unpacked));
    auto h0 = torch::full({4, 3, 3}, 0.1);
    auto c0 = torch::full({4, 3, 3}, -0.1);
    auto out2 = lstm->forward_with_packed_input(x, std::make_tuple(h0, c0));
    P(std::get<0>(out2).data()); P(std::get<0>(std::get<1>(out2)));
    std::get<0>(out2).data().sum().backward();
    for (auto& np : lstm->named_parameters()) { std::cout << np.key() << "\n" << np.value().grad() << "\n"; }
  }
  {
    nn::LSTM lstm(nn::LSTMOptions(2, 3).proj_size(2));
    det_init(*lstm);
    auto x = rnn_utils::pack_sequence({a.detach(), c.detach(), b.detach()});
    auto out = lstm->forward_with_packed_input(x);
    P(std::get<0>(out).data()); P(std::get<0>(std::get<1>(out))); P(std::get<1>(std::get<1>(out)));
  }
  // GRU and RNN on packed batches
  {
    nn::GRU gru(nn::GRUOptions(2, 3).num_layers(2));
    det_init(*gru);
    auto x = rnn_utils::pack_padded_sequence(padded, lengths, false, false);
    auto out = gru->forward_with_packed_input(x, torch::full({2, 3, 3}, 0.2));
    P(std::get<0>(out).data()); P(std::get<1>(out));
    auto g = std::get<0>(rnn_utils::pad_packed_sequence(std::get<0>(out)));
    P(g);
  }
  {
    nn::RNN rnn(nn::RNNOptions(2, 2).nonlinearity(torch::kReLU).bidirectional(true));
    det_init(*rnn);
    auto x = rnn_utils::pack_sequence({a.detach(), c.detach(), b.detach()});
    auto out = rnn->forward_with_packed_input(x);
    P(std::get<0>(out).data()); P(std::get<1>(out));
  }
}
