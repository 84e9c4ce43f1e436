// scripts/libtorch-diff: MultiheadAttention (bool and float attn_mask, key_padding_mask, need_weights,
// average_attn_weights, kdim/vdim, add_bias_kv, add_zero_attn) and the Transformer modules (encoder and
// decoder layers, stacks with a final norm, gelu, the full Transformer, generate_square_subsequent_mask):
// parameter names, outputs and gradients.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
#include <limits>
#define P(expr) std::cout << "--- " #expr "\n" << (expr) << "\n";
namespace nn = torch::nn;
void det_init(nn::Module& m) {
  torch::NoGradGuard g;
  int k = 0;
  for (auto& np : m.named_parameters()) {
    auto& p = np.value();
    p.copy_((torch::arange(p.numel()).to(torch::kFloat).reshape(p.sizes()) * 0.37 + k).sin() * 0.4);
    ++k;
  }
}
void names(nn::Module& m) {
  for (auto& np : m.named_parameters()) std::cout << np.key() << " " << np.value().sizes() << "\n";
}
torch::Tensor seq(int64_t L, int64_t N, int64_t E, double f) {
  return (torch::arange(L * N * E).reshape({L, N, E}).to(torch::kFloat) * f).sin();
}
// a custom encoder and decoder for TransformerOptions::custom_encoder / custom_decoder
struct ScaleEncoderImpl : nn::Cloneable<ScaleEncoderImpl> {
  ScaleEncoderImpl() { reset(); }
  void reset() override { lin = register_module("lin", nn::Linear(4, 4)); }
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& mask, const torch::Tensor& kpm) {
    return torch::tanh(lin(src)) + (mask.defined() ? 1.0 : 0.0);
  }
  nn::Linear lin = nullptr;
};
TORCH_MODULE(ScaleEncoder);
struct MeanDecoderImpl : nn::Cloneable<MeanDecoderImpl> {
  MeanDecoderImpl() { reset(); }
  void reset() override {}
  torch::Tensor forward(const torch::Tensor& tgt, const torch::Tensor& memory, const torch::Tensor& tgt_mask,
                        const torch::Tensor& memory_mask, const torch::Tensor& tgt_kpm, const torch::Tensor& mem_kpm) {
    return tgt + memory.mean(0);
  }
};
TORCH_MODULE(MeanDecoder);
int main() {
  std::cout.precision(4);
  {
    nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
    names(*mha);
    det_init(*mha);
    auto q = seq(3, 2, 4, 0.3).requires_grad_(true);
    auto k = seq(5, 2, 4, 0.2);
    auto v = seq(5, 2, 4, 0.45);
    auto out = mha->forward(q, k, v);
    P(std::get<0>(out)); P(std::get<1>(out));
    std::get<0>(out).sum().backward();
    P(q.grad()); P(mha->in_proj_weight.grad()); P(mha->out_proj->weight.grad());
    auto bool_mask = torch::tensor({{false, true, false, false, true}, {false, false, false, true, true},
                                    {true, false, false, false, false}});
    auto kpm = torch::tensor({{false, false, false, false, true}, {false, true, false, false, false}});
    // libtorch 1.13's C++ multi_head_attention_forward adds a bool attn_mask as 0/1 instead of masking
    // (PyTorch masks with -inf, and so does locus): the program gives the mask as -inf floats
    auto inf_mask = torch::zeros({3, 5}).masked_fill(bool_mask, -std::numeric_limits<float>::infinity());
    auto o2 = mha->forward(q, k, v, kpm, true, inf_mask);
    P(std::get<0>(o2)); P(std::get<1>(o2));
    auto float_mask = torch::arange(15).reshape({3, 5}).to(torch::kFloat) * -0.1;
    auto o3 = mha->forward(q, k, v, {}, true, float_mask, false);
    P(std::get<0>(o3)); P(std::get<1>(o3));
    auto o4 = mha->forward(q, k, v, {}, false, float_mask);
    P(std::get<0>(o4)); std::cout << std::get<1>(o4).defined() << "\n";
    auto o5 = mha->forward(q, q, q, kpm.slice(1, 0, 3));
    P(std::get<0>(o5)); P(std::get<1>(o5));
  }
  {
    nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(3).add_bias_kv(true)
                                   .add_zero_attn(true));
    names(*mha);
    det_init(*mha);
    auto q = seq(3, 2, 4, 0.3);
    auto k = seq(5, 2, 3, 0.2).requires_grad_(true);
    auto v = seq(5, 2, 3, 0.45);
    auto kpm = torch::tensor({{false, false, false, false, true}, {false, true, false, false, false}});
    auto out = mha->forward(q, k, v, kpm, true, {}, false);
    P(std::get<0>(out)); P(std::get<1>(out));
    std::get<0>(out).pow(2).sum().backward();
    P(k.grad()); P(mha->bias_k.grad()); P(mha->k_proj_weight.grad());
  }
  {
    nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 1).bias(false));
    names(*mha);
    det_init(*mha);
    auto q = seq(2, 1, 4, 0.3);
    P(std::get<0>(mha->forward(q, q, q)));
  }
  P(nn::Transformer::Impl::generate_square_subsequent_mask(4));
  {
    nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0));
    names(*layer);
    det_init(*layer);
    auto src = seq(3, 2, 4, 0.3).requires_grad_(true);
    auto y = layer->forward(src);
    P(y);
    y.pow(2).sum().backward();
    P(src.grad()); P(layer->linear1->weight.grad());
    auto kpm = torch::tensor({{false, false, true}, {false, false, false}});
    P(layer->forward(src, nn::Transformer::Impl::generate_square_subsequent_mask(3), kpm));
  }
  {
    nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6)
                                          .activation(torch::kGELU));
    det_init(*layer);
    layer->eval();
    P(layer->forward(seq(3, 2, 4, 0.3)));
    nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4})))));
    names(*enc);
    det_init(*enc);
    enc->eval();
    P(enc->forward(seq(3, 2, 4, 0.3)));
  }
  {
    nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0));
    names(*layer);
    det_init(*layer);
    auto tgt = seq(3, 2, 4, 0.3).requires_grad_(true);
    auto mem = seq(5, 2, 4, 0.17).requires_grad_(true);
    auto y = layer->forward(tgt, mem, nn::Transformer::Impl::generate_square_subsequent_mask(3));
    P(y);
    y.sum().backward();
    P(tgt.grad()); P(mem.grad());
    auto mkpm = torch::tensor({{false, false, false, true, true}, {false, false, false, false, false}});
    P(layer->forward(tgt, mem, {}, {}, {}, mkpm));
    nn::TransformerDecoder dec(nn::TransformerDecoderOptions(layer, 2));
    names(*dec);
    det_init(*dec);
    P(dec->forward(tgt, mem));
  }
  {
    nn::Transformer tr(nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(6).dropout(0.0).activation(torch::kGELU));
    names(*tr);
    det_init(*tr);
    auto src = seq(5, 2, 4, 0.3);
    auto tgt = seq(3, 2, 4, 0.21).requires_grad_(true);
    auto y = tr->forward(src, tgt, {}, tr->generate_square_subsequent_mask(3));
    P(y);
    y.sum().backward();
    P(tgt.grad());
  }
  {
    nn::Transformer tr(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).dropout(0.0)
                           .custom_encoder(nn::AnyModule(ScaleEncoder())));
    names(*tr);
    det_init(*tr);
    auto src = seq(5, 2, 4, 0.3);
    auto tgt = seq(3, 2, 4, 0.21);
    P(tr->forward(src, tgt));
    nn::Transformer tr2(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).dropout(0.0)
                            .custom_encoder(nn::AnyModule(ScaleEncoder())).custom_decoder(nn::AnyModule(MeanDecoder())));
    names(*tr2);
    det_init(*tr2);
    P(tr2->forward(src, tgt, torch::zeros({5, 5})));
  }
}
