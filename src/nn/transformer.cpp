// MultiheadAttention and the Transformer layers (include/locus/nn/modules/transformer.h), following
// PyTorch 1.13's F.multi_head_attention_forward step by step: in-projection, bias_k/bias_v and the
// zero key appended to the sources, heads folded into the batch ([N * H, L, head_dim]), scores
// q k^T / sqrt(head_dim) plus the masks, softmax, dropout, weighted values, out-projection.
// Masks are turned into one additive float mask (bool true -> -inf) before they are merged, so a
// bool and a float mask combine as in PyTorch 2.x (1.13 gives the same where it accepts them).
#include "locus/nn/modules/transformer.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "locus/error.h"
#include "locus/factory.h"
#include "locus/functions.h"
#include "locus/nn/functional.h"
#include "locus/nn/init.h"
#include "ops/checks.h"

namespace locus::nn {
namespace detail {
// A layer's parameter placement (src/nn/modules.cpp).
TensorOptions placement(const std::optional<Device>& device, const std::optional<ScalarType>& dtype);
}  // namespace detail

namespace {
using ops::shape_str;

// "[MultiheadAttention]", or "[MultiheadAttention at TransformerEncoder/layers/0/self_attn]" inside a model.
std::string who(const Module& m, const char* kind) {
  const std::string path = m.path();
  std::string out = "[";
  out += kind;
  if (path != kind) out += " at " + path;
  return out + "] ";
}

void check_dropout(const char* kind, double p) {
  if (!(p >= 0 && p <= 1))
    throw Error("[" + std::string(kind) + "] dropout must be a probability in [0, 1]: got " +
                (std::ostringstream() << p).str() + ". Pass a value in [0, 1].");
}

// The options both layers check: sizes, dropout, a callable activation.
template <typename Options>
void check_layer(const char* kind, const Options& o) {
  if (o.d_model() <= 0 || o.nhead() <= 0 || o.dim_feedforward() <= 0)
    throw Error("[" + std::string(kind) + "] d_model, nhead and dim_feedforward must be positive: got " +
                std::to_string(o.d_model()) + ", " + std::to_string(o.nhead()) + " and " +
                std::to_string(o.dim_feedforward()) + ".");
  check_dropout(kind, o.dropout());
  if (const auto* f = std::get_if<std::function<Tensor(const Tensor&)>>(&o.activation()); f && !*f)
    throw Error("[" + std::string(kind) + "] activation is an empty function. Pass kReLU, kGELU or a callable.");
}

template <typename Options>
MultiheadAttention attention(const Options& o) {
  return MultiheadAttention(
      MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout()).device(o.device()).dtype(o.dtype()));
}
template <typename Options>
Linear linear(const Options& o, int64_t in, int64_t out) {
  return Linear(LinearOptions(in, out).device(o.device()).dtype(o.dtype()));
}
template <typename Options>
LayerNorm layer_norm(const Options& o) {
  return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).device(o.device()).dtype(o.dtype()));
}

Tensor activate(const TransformerActivation& a, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(a)) return functional::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(a)) return functional::gelu(x);
  return std::get<std::function<Tensor(const Tensor&)>>(a)(x);
}

// The encoder's and decoder's checks of their layer and count.
void check_stack(const char* kind, bool empty, const char* layer, int64_t num_layers) {
  if (empty)
    throw Error("[" + std::string(kind) + "] " + layer + " is empty (nullptr). Pass a " + kind + "Layer.");
  if (num_layers < 1)
    throw Error("[" + std::string(kind) + "] num_layers must be positive: got " + std::to_string(num_layers) + ".");
}

// num_layers clones of `layer` into a fresh ModuleList "layers", and a clone of the norm as "norm".
template <typename Stack, typename Layer>
void register_stack(Stack& stack, const Layer& layer, int64_t num_layers, const LayerNorm& norm) {
  stack.layers = stack.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i)
    stack.layers->push_back(std::dynamic_pointer_cast<typename Layer::Impl>(layer->clone()));
  if (!norm.is_empty())
    stack.norm = stack.register_module("norm", std::dynamic_pointer_cast<LayerNormImpl>(norm->clone()));
}

// A bool (true: masked) or floating mask as an additive mask in `dtype`.
Tensor additive(const Tensor& mask, ScalarType dtype, const std::string& who, const char* name) {
  if (mask.scalar_type() == kBool)
    return zeros(mask.sizes(), mask.options().dtype(dtype)).masked_fill(mask, -std::numeric_limits<double>::infinity());
  if (!mask.is_floating_point())
    throw Error(who + name + " must be bool (true: may not attend) or floating (added to the scores): got " +
                dtype_name(mask.scalar_type()) + ". Convert it with .to(kBool).");
  return mask.to(dtype);
}
}  // namespace

// ---- MultiheadAttention ---------------------------------------------------------------------
MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  const auto& o = options;
  if (o.embed_dim() <= 0 || o.num_heads() <= 0 || o.kdim() <= 0 || o.vdim() <= 0)
    throw Error("[MultiheadAttention] embed_dim, num_heads, kdim and vdim must be positive: got " +
                std::to_string(o.embed_dim()) + ", " + std::to_string(o.num_heads()) + ", " + std::to_string(o.kdim()) +
                " and " + std::to_string(o.vdim()) + ".");
  if (o.embed_dim() % o.num_heads() != 0)
    throw Error("[MultiheadAttention] embed_dim must be divisible by num_heads: embed_dim " +
                std::to_string(o.embed_dim()) + ", num_heads " + std::to_string(o.num_heads()) +
                ". Choose a num_heads that divides embed_dim.");
  check_dropout("MultiheadAttention", o.dropout());
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim();
  const TensorOptions o = detail::placement(options.device(), options.dtype());
  _qkv_same_embed_dim = options.kdim() == e && options.vdim() == e;
  head_dim = e / options.num_heads();
  if (!_qkv_same_embed_dim) {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}, o));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, options.kdim()}, o));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, options.vdim()}, o));
    in_proj_weight = register_parameter("in_proj_weight", Tensor(), false);
  } else {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}, o));
    q_proj_weight = register_parameter("q_proj_weight", Tensor(), false);
    k_proj_weight = register_parameter("k_proj_weight", Tensor(), false);
    v_proj_weight = register_parameter("v_proj_weight", Tensor(), false);
  }
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? empty({3 * e}, o) : Tensor(), options.bias());
  out_proj = register_module(
      "out_proj", Linear(LinearOptions(e, e).bias(options.bias()).device(options.device()).dtype(options.dtype())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, e}, o));
    bias_v = register_parameter("bias_v", empty({1, 1, e}, o));
  } else {
    bias_k = register_parameter("bias_k", Tensor(), false);
    bias_v = register_parameter("bias_v", Tensor(), false);
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  for (Tensor* w : {&in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight})
    if (w->defined()) init::xavier_uniform_(*w);
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::string MultiheadAttentionImpl::brief() const {
  return "MultiheadAttention " + std::to_string(options.embed_dim()) + "x" + std::to_string(options.num_heads());
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask, bool average_attn_weights) {
  const std::string w = who(*this, "MultiheadAttention");
  const int64_t e = options.embed_dim(), heads = options.num_heads();
  // ---- checks: shapes, devices, mask dtypes
  if (query.dim() != 2 && query.dim() != 3)
    throw Error(w + "query must be 3-D (L, N, E) or unbatched 2-D (L, E): got shape " + shape_str(query.sizes()) + ".");
  if (key.dim() != query.dim() || value.dim() != query.dim())
    throw Error(w + "key and value must have as many dims as query (" + std::to_string(query.dim()) +
                "): got key " + shape_str(key.sizes()) + " and value " + shape_str(value.sizes()) + ".");
  const bool batched = query.dim() == 3;
  auto last_dim = [&](const Tensor& t, const char* name, const char* option, int64_t want) {
    if (t.size(-1) != want)
      throw Error(w + name + "'s last dim must be " + option + " (" + std::to_string(want) + "): got shape " +
                  shape_str(t.sizes()) + ".");
  };
  last_dim(query, "query", "embed_dim", e);
  last_dim(key, "key", "kdim", options.kdim());
  last_dim(value, "value", "vdim", options.vdim());
  if (key.size(0) != value.size(0) || (batched && key.size(1) != value.size(1)))
    throw Error(w + "key and value must have the same source length" + (batched ? " and batch size" : "") +
                ": got key " + shape_str(key.sizes()) + " and value " + shape_str(value.sizes()) + ".");
  if (batched && key.size(1) != query.size(1))
    throw Error(w + "query and key must have the same batch size: got query " + shape_str(query.sizes()) +
                " and key " + shape_str(key.sizes()) + ".");
  const Tensor& weight0 = _qkv_same_embed_dim ? in_proj_weight : q_proj_weight;
  const char* weight0_name = _qkv_same_embed_dim ? "in_proj_weight" : "q_proj_weight";
  for (const Tensor* t : {&query, &key, &value, &key_padding_mask, &attn_mask})
    check_input_device(*t, weight0_name, weight0);
  const int64_t len = query.size(0), n = batched ? query.size(1) : 1, src = key.size(0);
  const ScalarType dtype = query.scalar_type();
  Tensor mask, kpm;  // additive: [1 or N * H, L, S] and [N, S]
  if (attn_mask.defined()) {
    mask = additive(attn_mask, dtype, w, "attn_mask");
    const std::vector<int64_t> two = {len, src}, three = {n * heads, len, src};
    if (mask.sizes() == IntArrayRef(two)) mask = mask.unsqueeze(0);
    else if (mask.sizes() != IntArrayRef(three))
      throw Error(w + "attn_mask has shape " + shape_str(mask.sizes()) + ", but should be " + shape_str(two) +
                  " (L, S) or " + shape_str(three) + " (N * num_heads, L, S). Pass a mask of one of these shapes.");
  }
  if (key_padding_mask.defined()) {
    kpm = additive(key_padding_mask, dtype, w, "key_padding_mask");
    const std::vector<int64_t> want = batched ? std::vector<int64_t>{n, src} : std::vector<int64_t>{src};
    if (kpm.sizes() != IntArrayRef(want))
      throw Error(w + "key_padding_mask has shape " + shape_str(kpm.sizes()) + ", but should be " + shape_str(want) +
                  (batched ? " (N, S)." : " (S)."));
    kpm = kpm.reshape({n, src});
  }
  // One more source position (bias_k/bias_v, the zero key) that every query may attend to.
  auto widen_masks = [&] {
    const auto pad = functional::PadFuncOptions({0, 1});
    if (mask.defined()) mask = functional::pad(mask, pad);
    if (kpm.defined()) kpm = functional::pad(kpm, pad);
  };
  // ---- in-projection: q [L, N, E], k and v [S, N, E]
  const Tensor qi = batched ? query : query.unsqueeze(1), ki = batched ? key : key.unsqueeze(1),
               vi = batched ? value : value.unsqueeze(1);
  auto bias_part = [&](int64_t i) { return in_proj_bias.defined() ? in_proj_bias.narrow(0, i * e, e) : Tensor(); };
  Tensor q, k, v;
  if (_qkv_same_embed_dim && query.is_same(key) && key.is_same(value)) {  // self-attention: one GEMM
    const std::vector<Tensor> qkv = functional::linear(qi, in_proj_weight, in_proj_bias).chunk(3, -1);
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else {
    auto proj = [&](int64_t i, const Tensor& x, const Tensor& separate) {
      return functional::linear(x, _qkv_same_embed_dim ? in_proj_weight.narrow(0, i * e, e) : separate, bias_part(i));
    };
    q = proj(0, qi, q_proj_weight), k = proj(1, ki, k_proj_weight), v = proj(2, vi, v_proj_weight);
  }
  if (bias_k.defined()) {
    k = cat({k, bias_k.repeat({1, n, 1})});
    v = cat({v, bias_v.repeat({1, n, 1})});
    widen_masks();
  }
  // ---- heads into the batch: [N * H, L or S, head_dim]
  auto split_heads = [&](const Tensor& t) {
    return t.contiguous().view({t.size(0), n * heads, head_dim}).transpose(0, 1);
  };
  q = split_heads(q), k = split_heads(k), v = split_heads(v);
  if (options.add_zero_attn()) {
    const Tensor zero = zeros({n * heads, 1, head_dim}, k.options());
    k = cat({k, zero}, 1);
    v = cat({v, zero}, 1);
    widen_masks();
  }
  const int64_t s = k.size(1);
  if (kpm.defined()) {
    kpm = kpm.view({n, 1, 1, s}).expand({n, heads, 1, s}).reshape({n * heads, 1, s});
    mask = mask.defined() ? mask + kpm : kpm;
  }
  // ---- attention
  Tensor scores = (q / std::sqrt(static_cast<double>(head_dim))).bmm(k.transpose(-2, -1));
  if (mask.defined()) scores = scores + mask;
  Tensor weights = scores.softmax(-1);
  if (is_training() && options.dropout() > 0)
    weights = functional::dropout(weights, functional::DropoutFuncOptions().p(options.dropout()));
  Tensor out = weights.bmm(v).transpose(0, 1).contiguous().view({len * n, e});
  out = out_proj(out).view({len, n, e});
  if (!batched) out = out.squeeze(1);
  if (!need_weights) return {out, Tensor()};
  weights = weights.view({n, heads, len, s});
  if (average_attn_weights) weights = weights.sum(1) / static_cast<double>(heads);
  if (!batched) weights = weights.squeeze(0);
  return {out, weights};
}

// ---- TransformerEncoderLayer ----------------------------------------------------------------
TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  check_layer("TransformerEncoderLayer", options);
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  self_attn = register_module("self_attn", attention(options));
  linear1 = register_module("linear1", linear(options, options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", linear(options, options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", layer_norm(options));
  norm2 = register_module("norm2", layer_norm(options));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->reset_parameters();
  for (Linear* l : {&linear1, &linear2}) (*l)->reset_parameters();
  for (LayerNorm* n : {&norm1, &norm2}) (*n)->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, src_key_padding_mask, false, src_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout2(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  if (options.norm_first()) {
    const Tensor x = src + sa_block(norm1(src));
    return x + ff_block(norm2(x));
  }
  const Tensor x = norm1(src + sa_block(src));
  return norm2(x + ff_block(x));
}

// ---- TransformerEncoder ---------------------------------------------------------------------
TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_) : options(std::move(options_)) {
  check_stack("TransformerEncoder", options.encoder_layer().is_empty(), "encoder_layer", options.num_layers());
  reset();
}

void TransformerEncoderImpl::reset() {
  register_stack(*this, options.encoder_layer(), options.num_layers(), options.norm());
}

void TransformerEncoderImpl::reset_parameters() {
  for (const auto& layer : *layers) static_cast<TransformerEncoderLayerImpl&>(*layer).reset_parameters();
  if (!norm.is_empty()) norm->reset_parameters();
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (const auto& layer : *layers)
    x = static_cast<TransformerEncoderLayerImpl&>(*layer).forward(x, src_mask, src_key_padding_mask);
  return norm.is_empty() ? x : norm(x);
}

// ---- TransformerDecoderLayer ----------------------------------------------------------------
TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  check_layer("TransformerDecoderLayer", options);
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  self_attn = register_module("self_attn", attention(options));
  multihead_attn = register_module("multihead_attn", attention(options));
  linear1 = register_module("linear1", linear(options, options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", linear(options, options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", layer_norm(options));
  norm2 = register_module("norm2", layer_norm(options));
  norm3 = register_module("norm3", layer_norm(options));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  for (MultiheadAttention* a : {&self_attn, &multihead_attn}) (*a)->reset_parameters();
  for (Linear* l : {&linear1, &linear2}) (*l)->reset_parameters();
  for (LayerNorm* n : {&norm1, &norm2, &norm3}) (*n)->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
  };
  auto mha_block = [&](const Tensor& x) {
    return dropout2(std::get<0>(multihead_attn(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout3(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  if (options.norm_first()) {
    Tensor x = tgt + sa_block(norm1(tgt));
    x = x + mha_block(norm2(x));
    return x + ff_block(norm3(x));
  }
  Tensor x = norm1(tgt + sa_block(tgt));
  x = norm2(x + mha_block(x));
  return norm3(x + ff_block(x));
}

// ---- TransformerDecoder ---------------------------------------------------------------------
TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_) : options(std::move(options_)) {
  check_stack("TransformerDecoder", options.decoder_layer().is_empty(), "decoder_layer", options.num_layers());
  reset();
}

void TransformerDecoderImpl::reset() {
  register_stack(*this, options.decoder_layer(), options.num_layers(), options.norm());
}

void TransformerDecoderImpl::reset_parameters() {
  for (const auto& layer : *layers) static_cast<TransformerDecoderLayerImpl&>(*layer).reset_parameters();
  if (!norm.is_empty()) norm->reset_parameters();
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (const auto& layer : *layers)
    x = static_cast<TransformerDecoderLayerImpl&>(*layer).forward(x, memory, tgt_mask, memory_mask,
                                                                   tgt_key_padding_mask, memory_key_padding_mask);
  return norm.is_empty() ? x : norm(x);
}

// ---- the norm given as libtorch's AnyModule -------------------------------------------------------
namespace {
LayerNorm norm_of(const AnyModule& norm, const char* options) {
  if (norm.is_empty()) return nullptr;
  auto p = std::dynamic_pointer_cast<LayerNormImpl>(norm.ptr());
  if (!p)
    throw Error(std::string("[") + options + "] norm: locus takes a LayerNorm here (libtorch any module); got " +
                norm.ptr()->type_name() + ".");
  return LayerNorm(p);
}
}  // namespace
TransformerEncoderOptions& TransformerEncoderOptions::norm(const AnyModule& norm) {
  norm_ = norm_of(norm, "TransformerEncoderOptions");
  return *this;
}
TransformerDecoderOptions& TransformerDecoderOptions::norm(const AnyModule& norm) {
  norm_ = norm_of(norm, "TransformerDecoderOptions");
  return *this;
}

// ---- Transformer ----------------------------------------------------------------------------
TransformerImpl::TransformerImpl(const TransformerOptions& options_) : options(options_) {
  check_layer("Transformer", options);
  if (options.num_encoder_layers() < 1 || options.num_decoder_layers() < 1)
    throw Error("[Transformer] num_encoder_layers and num_decoder_layers must be positive: got " +
                std::to_string(options.num_encoder_layers()) + " and " + std::to_string(options.num_decoder_layers()) +
                ".");
  reset();
}

void TransformerImpl::reset() {
  const auto& o = options;
  auto layer = [&](auto layer_options) {
    return layer_options.dim_feedforward(o.dim_feedforward())
        .dropout(o.dropout())
        .activation(o.activation())
        .layer_norm_eps(o.layer_norm_eps())
        .norm_first(o.norm_first())
        .device(o.device())
        .dtype(o.dtype());
  };
  const TransformerEncoderLayerOptions encoder_layer = layer(TransformerEncoderLayerOptions(o.d_model(), o.nhead()));
  const TransformerDecoderLayerOptions decoder_layer = layer(TransformerDecoderLayerOptions(o.d_model(), o.nhead()));
  const LayerNorm norm = layer_norm(o);  // cloned by each stack
  encoder = nullptr;
  decoder = nullptr;
  custom_encoder = AnyModule();
  custom_decoder = AnyModule();
  if (o.custom_encoder().is_empty()) {
    encoder = register_module(
        "encoder", TransformerEncoder(TransformerEncoderOptions(encoder_layer, o.num_encoder_layers()).norm(norm)));
  } else {
    custom_encoder = o.custom_encoder().clone();
    register_module("encoder", custom_encoder.ptr());
  }
  if (o.custom_decoder().is_empty()) {
    decoder = register_module(
        "decoder", TransformerDecoder(TransformerDecoderOptions(decoder_layer, o.num_decoder_layers()).norm(norm)));
  } else {
    custom_decoder = o.custom_decoder().clone();
    register_module("decoder", custom_decoder.ptr());
  }
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                                const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const std::string w = who(*this, "Transformer");
  const std::string got = ": got src " + shape_str(src.sizes()) + " and tgt " + shape_str(tgt.sizes());
  if ((src.dim() != 3 && src.dim() != 2) || tgt.dim() != src.dim())
    throw Error(w + "src and tgt must both be 3-D, (S, N, E) and (T, N, E), or both unbatched 2-D" + got + ".");
  if (src.dim() == 3 && src.size(1) != tgt.size(1))
    throw Error(w + "src and tgt must have the same batch size (dim 1)" + got +
                ". Pass them as (S, N, E) and (T, N, E).");
  if (src.size(-1) != options.d_model() || tgt.size(-1) != options.d_model())
    throw Error(w + "src and tgt must have d_model (" + std::to_string(options.d_model()) + ") features" + got + ".");
  const Tensor memory = custom_encoder.is_empty()
                            ? encoder(src, src_mask, src_key_padding_mask)
                            : custom_encoder.forward<Tensor>(src, src_mask, src_key_padding_mask);
  if (!custom_decoder.is_empty())
    return custom_decoder.forward<Tensor>(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                          memory_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  if (sz < 0)
    throw Error("[Transformer] generate_square_subsequent_mask's sz must be non-negative: got " + std::to_string(sz) +
                ".");
  return full({sz, sz}, -std::numeric_limits<double>::infinity(), TensorOptions().dtype(kFloat)).triu(1);
}

}  // namespace locus::nn
