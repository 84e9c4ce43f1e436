#pragma once
// MultiheadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
// TransformerDecoder and Transformer, as libtorch's torch::nn ones with PyTorch 1.13's numerics: the same options,
// parameter and submodule names (state_dict keys as PyTorch's), initialisation and return values.
// Composed from differentiable ops (linear, bmm, softmax, dropout, layer_norm), so they run and
// train on every device.
// Sequences are (L, N, E) as in libtorch (no batch_first), or unbatched (L, E).
#include <functional>
#include <optional>
#include <tuple>
#include <variant>

#include "locus/nn/cloneable.h"
#include "locus/nn/module.h"
#include "locus/enum.h"  // kReLU, kGELU: the activation choices
#include "locus/nn/modules/activation.h"
#include "locus/nn/modules/any.h"  // rnn batch (stop 47): AnyModule
#include "locus/nn/modules/container.h"
#include "locus/nn/modules/linear.h"
#include "locus/nn/modules/normalization.h"


namespace locus::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  LOCUS_ARG(int64_t, embed_dim);
  LOCUS_ARG(int64_t, num_heads);
  /// Dropout on the attention weights, while training.
  LOCUS_ARG(double, dropout) = 0.0;
  /// in_proj_bias and out_proj's bias.
  LOCUS_ARG(bool, bias) = true;
  /// Learned bias_k and bias_v [1, 1, E] appended to the keys and values as one more source position.
  LOCUS_ARG(bool, add_bias_kv) = false;
  /// A zero key and value appended as one more source position (after bias_k/bias_v).
  LOCUS_ARG(bool, add_zero_attn) = false;
  /// Feature sizes of key and value; other than embed_dim: separate q/k/v_proj_weight.
  LOCUS_ARG(int64_t, kdim);
  LOCUS_ARG(int64_t, vdim);
  LOCUS_PLACEMENT_ARGS;
};

/// Multi-head scaled dot-product attention. Parameters as PyTorch names them: in_proj_weight
/// [3E, E] (when kdim == vdim == E, xavier-uniform) or q_proj_weight [E, E], k_proj_weight [E, kdim],
/// v_proj_weight [E, vdim]; in_proj_bias [3E] (zeros); bias_k, bias_v [1, 1, E] (add_bias_kv,
/// xavier-normal); out_proj a Linear(E, E) with a zero bias.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset() override;
  void reset_parameters();
  std::string brief() const override;
  /// query (L, N, E), key (S, N, kdim), value (S, N, vdim), or all unbatched ((L, E), ...).
  /// Masks are bool (true: may not attend) or floating (added to the scores):
  /// key_padding_mask (N, S) (unbatched (S)); attn_mask (L, S) or (N * num_heads, L, S).
  /// Returns the output (L, N, E) and, when need_weights, the attention weights (N, L, S) averaged
  /// over the heads, or (N, num_heads, L, S) per head (unbatched: without N); else an undefined
  /// tensor in their place.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  MultiheadAttentionOptions options;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v, q_proj_weight, k_proj_weight, v_proj_weight;
  Linear out_proj = nullptr;
  int64_t head_dim = 0;
  /// kdim == vdim == embed_dim: one packed in_proj_weight.
  bool _qkv_same_embed_dim = true;
};
LOCUS_MODULE(MultiheadAttention);

/// kReLU, kGELU, or any function (libtorch's TransformerActivation).
using TransformerActivation = std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

/// The options the encoder and decoder layers share (libtorch's, and PyTorch 1.13's layer_norm_eps
/// and norm_first, which normalises before each block instead of after it).
#define LOCUS_TRANSFORMER_LAYER_OPTIONS(Name)                                  \
  Name(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {} \
  LOCUS_ARG(int64_t, d_model);                                               \
  LOCUS_ARG(int64_t, nhead);                                                 \
  LOCUS_ARG(int64_t, dim_feedforward) = 2048;                                \
  LOCUS_ARG(double, dropout) = 0.1;                                          \
  LOCUS_ARG(TransformerActivation, activation) = kReLU;                      \
  LOCUS_ARG(double, layer_norm_eps) = 1e-5;                                  \
  LOCUS_ARG(bool, norm_first) = false;                                       \
  LOCUS_PLACEMENT_ARGS

struct TransformerEncoderLayerOptions {
  LOCUS_TRANSFORMER_LAYER_OPTIONS(TransformerEncoderLayerOptions);
};
struct TransformerDecoderLayerOptions {
  LOCUS_TRANSFORMER_LAYER_OPTIONS(TransformerDecoderLayerOptions);
};
#undef LOCUS_TRANSFORMER_LAYER_OPTIONS

/// Self-attention and a feed-forward block, each with a residual connection and a LayerNorm
/// (after it, or before it with norm_first). Submodules: self_attn, linear1, dropout, linear2,
/// norm1, norm2, dropout1, dropout2.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  void reset() override;
  void reset_parameters();
  /// src (L, N, E) or (L, E); src_mask and src_key_padding_mask as MultiheadAttention's attn_mask
  /// and key_padding_mask.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr, linear2 = nullptr;
  Dropout dropout = nullptr, dropout1 = nullptr, dropout2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
};
LOCUS_MODULE(TransformerEncoderLayer);

struct TransformerEncoderOptions {
  /// Clones of `encoder_layer` (libtorch's), or layers built from `encoder_layer_options`.
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  LOCUS_ARG(TransformerEncoderLayer, encoder_layer);
  LOCUS_ARG(int64_t, num_layers);
  /// Applied after the last layer when given (cloned, registered as "norm"); libtorch takes any
  /// module here (AnyModule), locus a LayerNorm.
  LOCUS_ARG(LayerNorm, norm) = nullptr;
  /// libtorch's spelling, .norm(AnyModule(LayerNorm(...))): the AnyModule must hold a LayerNorm (or be empty).
 public:
  TransformerEncoderOptions& norm(const AnyModule& norm);
};

/// num_layers deep copies of a TransformerEncoderLayer, registered as "layers" (a ModuleList:
/// "layers.0.self_attn.in_proj_weight", ...), then the optional norm.
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  void reset() override;
  void reset_parameters();
  /// src (L, N, E) or (L, E); src_mask and src_key_padding_mask go to every layer.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  LayerNorm norm = nullptr;
};
LOCUS_MODULE(TransformerEncoder);

/// Self-attention, attention over the encoder's output (memory) and a feed-forward block, each
/// with a residual connection and a LayerNorm (after it, or before it with norm_first).
/// Submodules: self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2, norm3,
/// dropout1, dropout2, dropout3.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  void reset() override;
  void reset_parameters();
  /// tgt (T, N, E), memory (S, N, E) (or both unbatched); tgt_mask (T, T) or (N * nhead, T, T),
  /// memory_mask (T, S) or (N * nhead, T, S); key padding masks (N, T) and (N, S).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr, multihead_attn = nullptr;
  Linear linear1 = nullptr, linear2 = nullptr;
  Dropout dropout = nullptr, dropout1 = nullptr, dropout2 = nullptr, dropout3 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr, norm3 = nullptr;
};
LOCUS_MODULE(TransformerDecoderLayer);

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  LOCUS_ARG(TransformerDecoderLayer, decoder_layer);
  LOCUS_ARG(int64_t, num_layers);
  /// As TransformerEncoderOptions::norm.
  LOCUS_ARG(LayerNorm, norm) = nullptr;
  /// As TransformerEncoderOptions::norm(AnyModule).
 public:
  TransformerDecoderOptions& norm(const AnyModule& norm);
};

/// num_layers deep copies of a TransformerDecoderLayer as "layers", then the optional norm.
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  void reset() override;
  void reset_parameters();
  /// As TransformerDecoderLayer's forward, through every layer.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  LayerNorm norm = nullptr;
};
LOCUS_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
                     int64_t num_decoder_layers = 6)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  LOCUS_ARG(int64_t, d_model);
  LOCUS_ARG(int64_t, nhead);
  LOCUS_ARG(int64_t, num_encoder_layers);
  LOCUS_ARG(int64_t, num_decoder_layers);
  /// Used instead of the built encoder / decoder when given (cloned, registered as "encoder" / "decoder"):
  /// any module whose forward takes (src, src_mask, src_key_padding_mask), respectively (tgt, memory, tgt_mask,
  /// memory_mask, tgt_key_padding_mask, memory_key_padding_mask), and returns a Tensor (libtorch's).
  LOCUS_ARG(AnyModule, custom_encoder);
  LOCUS_ARG(AnyModule, custom_decoder);
  /// The rest as the layer options'.
  LOCUS_ARG(int64_t, dim_feedforward) = 2048;
  LOCUS_ARG(double, dropout) = 0.1;
  LOCUS_ARG(TransformerActivation, activation) = kReLU;
  LOCUS_ARG(double, layer_norm_eps) = 1e-5;
  LOCUS_ARG(bool, norm_first) = false;
  LOCUS_PLACEMENT_ARGS;
};

/// The encoder-decoder model: "encoder", a TransformerEncoder of num_encoder_layers layers with a
/// final LayerNorm ("encoder.norm"), and "decoder", a TransformerDecoder likewise ("decoder.norm").
/// Every parameter with more than one dim is xavier-uniform, as PyTorch's _reset_parameters.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(const TransformerOptions& options);
  void reset() override;
  void reset_parameters();
  /// src (S, N, E) and tgt (T, N, E), or both unbatched; returns (T, N, E). src_mask (S, S) and
  /// src_key_padding_mask (N, S) go to the encoder; tgt_mask (T, T), memory_mask (T, S),
  /// tgt_key_padding_mask (N, T) and memory_key_padding_mask (N, S) to the decoder.
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  /// A float32 (sz, sz) mask on cpu: 0 on and below the diagonal, -inf above (no attending ahead).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  /// The built encoder and decoder; empty when options.custom_encoder / custom_decoder was given, whose clone
  /// is then in custom_encoder / custom_decoder (libtorch holds either as an AnyModule named encoder / decoder).
  TransformerEncoder encoder = nullptr;
  TransformerDecoder decoder = nullptr;
  AnyModule custom_encoder, custom_decoder;
};
LOCUS_MODULE(Transformer);

}  // namespace locus::nn
