// rnn batch (stop 47): nn::AnyModule and TransformerOptions' custom_encoder / custom_decoder (libtorch's), the
// encoder/decoder options' norm given as an AnyModule, on every device. The expected outputs are computed
// independently from the pieces: the custom module's forward fed to the model's own built decoder (or encoder).
#include "nn/cases.h"

using namespace locus;

namespace transformer_custom_test {

namespace {
struct TanhEncoderImpl : nn::Cloneable<TanhEncoderImpl> {
  TanhEncoderImpl() { reset(); }
  void reset() override { lin = register_module("lin", nn::Linear(4, 4)); }
  // +1 when a src_mask came, to see that it is passed on
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& key_padding_mask) {
    return lin(src).tanh() + (mask.defined() ? 1.0 : 0.0) + (key_padding_mask.defined() ? 10.0 : 0.0);
  }
  nn::Linear lin = nullptr;
};
LOCUS_MODULE(TanhEncoder);
struct MeanDecoderImpl : nn::Cloneable<MeanDecoderImpl> {
  MeanDecoderImpl() { reset(); }
  void reset() override {}
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask, const Tensor& memory_mask,
                 const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
    return tgt + memory.mean({0}) * (tgt_mask.defined() ? 2.0 : 1.0);
  }
};
LOCUS_MODULE(MeanDecoder);
}  // namespace

class TransformerCustom : public testing::TestWithParam<Device> {};

TEST_P(TransformerCustom, CustomEncoderAndDecoder) {
  const Device d = GetParam();
  nn::Transformer model(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).dropout(0.0)
                            .custom_encoder(nn::AnyModule(TanhEncoder())));
  model->to(d);
  EXPECT_TRUE(model->encoder.is_empty());
  ASSERT_FALSE(model->custom_encoder.is_empty());
  const auto keys = model->named_parameters().keys();
  EXPECT_EQ(keys[0], "encoder.lin.weight");
  EXPECT_EQ(keys[1], "encoder.lin.bias");
  EXPECT_EQ(keys[2], "decoder.layers.0.self_attn.in_proj_weight");
  nn_cases::fill(*model);
  const Tensor src = nn_cases::det({5, 2, 4}, 20, 1.0, d), tgt = nn_cases::det({3, 2, 4}, 21, 1.0, d);
  auto& enc = model->custom_encoder.get<TanhEncoderImpl>();
  EXPECT_EQ(enc.lin->weight.device(), d);
  const Tensor want = model->decoder(tgt, enc.lin(src).tanh());
  EXPECT_TRUE(allclose(model->forward(src, tgt).cpu(), want.cpu(), 1e-6, 1e-6));
  // src_mask and src_key_padding_mask reach the custom encoder
  const Tensor kpm = zeros({2, 5}, TensorOptions().dtype(kBool).device(d));
  const Tensor want_masked = model->decoder(tgt, enc.lin(src).tanh() + 11.0);
  EXPECT_TRUE(allclose(model->forward(src, tgt, zeros({5, 5}, TensorOptions().device(d)), {}, {}, kpm).cpu(),
                       want_masked.cpu(), 1e-6, 1e-6));
  // a clone holds its own copy of the custom encoder
  auto copy = std::dynamic_pointer_cast<nn::TransformerImpl>(model->clone());
  EXPECT_FALSE(copy->custom_encoder.ptr() == model->custom_encoder.ptr());
  EXPECT_TRUE(copy->custom_encoder.get<TanhEncoderImpl>().lin->weight.equal(enc.lin->weight));
  EXPECT_TRUE(allclose(copy->forward(src, tgt).cpu(), want.cpu(), 1e-6, 1e-6));

  nn::Transformer both(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(6).dropout(0.0)
                           .custom_encoder(nn::AnyModule(TanhEncoder()))
                           .custom_decoder(nn::AnyModule(MeanDecoder())));
  both->to(d);
  nn_cases::fill(*both);
  EXPECT_TRUE(both->decoder.is_empty());
  EXPECT_EQ(both->named_parameters().size(), 2u);
  const Tensor memory = both->custom_encoder.get<TanhEncoderImpl>().lin(src).tanh();
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(d);
  EXPECT_TRUE(allclose(both->forward(src, tgt, {}, mask).cpu(), (tgt + memory.mean({0}) * 2.0).cpu(), 1e-6, 1e-6));
}

TEST_P(TransformerCustom, NormAsAnyModule) {
  const Device d = GetParam();
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).dropout(0.0));
  nn::TransformerEncoder enc(
      nn::TransformerEncoderOptions(layer, 1).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({4}).eps(1e-3)))));
  enc->to(d);
  ASSERT_FALSE(enc->norm.is_empty());
  EXPECT_EQ(enc->norm->options.eps(), 1e-3);
  const Tensor src = nn_cases::det({3, 2, 4}, 5, 1.0, d);
  const Tensor want = nn::functional::layer_norm(enc->layers->ptr<nn::TransformerEncoderLayerImpl>(0)->forward(src),
                                                 nn::functional::LayerNormFuncOptions({4}).eps(1e-3));
  EXPECT_TRUE(allclose(enc->forward(src).cpu(), want.cpu(), 1e-6, 1e-6));
  nn::TransformerDecoderLayer dlayer(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6));
  nn::TransformerDecoder dec(nn::TransformerDecoderOptions(dlayer, 1).norm(nn::AnyModule(nn::LayerNorm(
      nn::LayerNormOptions({4})))));
  EXPECT_FALSE(dec->norm.is_empty());
  EXPECT_THROW_MSG(nn::TransformerEncoderOptions(layer, 1).norm(nn::AnyModule(nn::Linear(4, 4))), Error,
                   "[TransformerEncoderOptions] norm: locus takes a LayerNorm here (libtorch any module); got "
                   "locus::nn::Linear.");
}

LOCUS_INSTANTIATE_DEVICES(TransformerCustom);

TEST(AnyModule, ForwardGetCloneAndMessages) {
  nn::Linear lin(2, 3);
  nn::AnyModule any(lin);
  EXPECT_FALSE(any.is_empty());
  EXPECT_TRUE(any.ptr() == lin.ptr());
  EXPECT_TRUE(&any.get<nn::LinearImpl>() == lin.get());
  EXPECT_TRUE(any.get<nn::Linear>().ptr() == lin.ptr());
  const Tensor x = ones({1, 2});
  EXPECT_TRUE(any.forward(x).equal(lin(x)));
  EXPECT_TRUE(std::any_cast<Tensor>(any.any_forward(x)).equal(lin(x)));
  nn::AnyModule copy = any.clone();
  EXPECT_FALSE(copy.ptr() == any.ptr());
  EXPECT_TRUE(copy.get<nn::LinearImpl>().weight.equal(lin->weight));
  EXPECT_TRUE(any.type_info() == typeid(nn::LinearImpl));
  // Tensor arguments left out at the end are undefined tensors
  nn::AnyModule enc(TanhEncoder{});
  const Tensor src = ones({3, 1, 4});
  auto& impl = enc.get<TanhEncoderImpl>();
  EXPECT_TRUE(enc.forward(src).equal(impl.lin(src).tanh()));
  EXPECT_TRUE(enc.forward(src, ones({3, 3})).equal(impl.lin(src).tanh() + 1.0));
  nn::AnyModule empty;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THROW_MSG(empty.forward(x), Error, "[AnyModule] forward(): the AnyModule is empty; give it a module first.");
  EXPECT_THROW_MSG(any.forward(x, x), Error, "[AnyModule] forward: the module's forward takes 1 arguments, got 2.");
  EXPECT_THROW_MSG(any.forward(1.5), Error,
                   "[AnyModule] forward: argument 0 does not have the type the module's forward takes there.");
  EXPECT_THROW_MSG(any.forward<double>(x), Error,
                   "[AnyModule] forward: the module's forward returns another type than the one asked for");
  EXPECT_THROW(any.get<nn::ReLUImpl>(), Error);
  nn::AnyModule mha(nn::MultiheadAttention(4, 2));
  using Pair = std::tuple<Tensor, Tensor>;
  EXPECT_THROW_MSG(mha.forward<Pair>(src, src, src, Tensor()), Error,
                   "[AnyModule] forward: the module's forward takes 7 arguments and only Tensor ones may be left out; "
                   "got 4.");
}

}  // namespace transformer_custom_test
