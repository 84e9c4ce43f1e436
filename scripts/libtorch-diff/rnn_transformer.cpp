// Stop 53 probe: rnn transformer, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
// an RNN / embedding / transformer-ish program as users write them
struct Model : torch::nn::Module {
  torch::nn::Embedding emb{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::GRU gru{nullptr};
  torch::nn::Linear head{nullptr};
  Model() {
    emb = register_module("emb", torch::nn::Embedding(torch::nn::EmbeddingOptions(20, 8).padding_idx(0)));
    lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(8, 16).num_layers(2).batch_first(true).dropout(0.0)));
    gru = register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(16, 4).bidirectional(true)));
    head = register_module("head", torch::nn::Linear(8, 3));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto e = emb(x);
    auto [out, state] = lstm->forward(e);
    auto [h, c] = state;
    auto g = std::get<0>(gru->forward(out.transpose(0, 1)));
    return head(g[-1]);
  }
};

int main() {
  torch::manual_seed(0);
  auto m = std::make_shared<Model>();
  std::cout << *m << "\n";
  for (auto& p : m->named_parameters()) std::cout << p.key() << " " << p.value().sizes() << "\n";
  auto x = torch::tensor({{1, 2, 3, 0}, {4, 5, 0, 0}});
  auto y = m->forward(x);
  std::cout << y.sizes() << "\n";
  torch::nn::LSTMCell cell(4, 5);
  auto hc = cell(torch::ones({2, 4}));
  std::cout << std::get<0>(hc).sizes() << std::get<1>(hc).sizes() << "\n";
  torch::nn::RNN rnn(torch::nn::RNNOptions(3, 2).nonlinearity(torch::kReLU));
  std::cout << rnn << std::get<0>(rnn(torch::ones({5, 1, 3}))).sizes() << "\n";
  auto packed = torch::nn::utils::rnn::pack_padded_sequence(torch::ones({4, 2, 8}), torch::tensor({4, 2}), /*batch_first=*/false);
  std::cout << packed.data().sizes() << packed.batch_sizes() << "\n";
  auto lstm2 = torch::nn::LSTM(8, 3);
  auto po = lstm2->forward_with_packed_input(packed);
  auto unpacked = torch::nn::utils::rnn::pad_packed_sequence(std::get<0>(po));
  std::cout << std::get<0>(unpacked).sizes() << std::get<1>(unpacked) << "\n";
  torch::nn::TransformerEncoderLayer layer(torch::nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  torch::nn::TransformerEncoder enc(torch::nn::TransformerEncoderOptions(layer, 2));
  std::cout << enc(torch::ones({3, 2, 8})).sizes() << "\n";
  auto mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(3);
  std::cout << mask << "\n";
  torch::nn::MultiheadAttention mha(torch::nn::MultiheadAttentionOptions(8, 2));
  auto att = mha->forward(torch::ones({3, 2, 8}), torch::ones({3, 2, 8}), torch::ones({3, 2, 8}));
  std::cout << std::get<0>(att).sizes() << std::get<1>(att).sizes() << "\n";
  torch::nn::EmbeddingBag bag(torch::nn::EmbeddingBagOptions(10, 3).mode(torch::kSum));
  std::cout << bag(torch::tensor({1, 2, 4, 5}), torch::tensor({0, 2})).sizes() << "\n";
  auto pre = torch::nn::Embedding::from_pretrained(torch::arange(6.).view({3, 2}));
  std::cout << pre(torch::tensor({2})) << pre->weight.requires_grad() << "\n";
}
