// Every error of nn::functional, the layers, containers and init, by its message.
#include <limits>

#include "testing.h"

using namespace locus;
namespace F = locus::nn::functional;

namespace messages_test {

TEST(NnMessages, Functional) {
  EXPECT_THROW_MSG(F::linear(ones({2, 3}), ones({5, 4})), Error,
                   "[linear] mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5); the input's last dim must equal "
                   "in_features.");
  EXPECT_THROW_MSG(F::gelu(ones({2}), F::GELUFuncOptions().approximate("fast")), Error,
                   "[gelu] approximate must be \"none\" or \"tanh\", got \"fast\".");
  EXPECT_THROW_MSG(F::dropout(ones({2}), F::DropoutFuncOptions().p(-0.5)), Error,
                   "[dropout] dropout probability has to be between 0 and 1, but got -0.500000.");
  Tensor t = tensor({0, 1});
  EXPECT_THROW_MSG(F::nll_loss(ones({3}), t), Error, "[nll_loss] expected input of shape [N, C] (or [N, C, d...]), got [3].");
  EXPECT_THROW_MSG(F::nll_loss(ones({3, 2}), t), Error,
                   "[nll_loss] Expected input batch_size (3) to match target batch_size (2).");
  EXPECT_THROW_MSG(F::cross_entropy(ones({3}), t), Error,
                   "[cross_entropy] expected input of shape [N, C] (or [N, C, d...]), got [3].");
  EXPECT_THROW_MSG(F::cross_entropy(ones({2, 3}), t, F::CrossEntropyFuncOptions().label_smoothing(1.5)), Error,
                   "[cross_entropy] label_smoothing must be between 0.0 and 1.0. Got: 1.500000.");
  EXPECT_THROW_MSG(F::binary_cross_entropy_with_logits(ones({2, 3}), ones({3})), Error,
                   "[binary_cross_entropy_with_logits] Target size ([3]) must be the same as input size ([2, 3]).");
  EXPECT_THROW_MSG(F::embedding(t, ones({4})), Error, "[embedding] expected a 2-D weight [num_embeddings, embedding_dim], got [4].");
  EXPECT_THROW_MSG(F::embedding(ones({2}), ones({4, 2})), Error,
                   "[embedding] expected int64 (or int32) indices, got float32; convert with .to(locus::kLong).");
}

TEST(NnMessages, ConvolutionAndPooling) {
  EXPECT_THROW_MSG(F::im2col(ones({1, 4, 4}), 2, 1, 0, 1), Error, "[im2col] expected a 4-D input [N, C, H, W], got [1, 4, 4].");
  EXPECT_THROW_MSG(F::im2col(ones({1, 1, 4, 4}), 2, 1, 0, 0), Error,
                   "[im2col] kernel size, stride and dilation must be positive and padding non-negative.");
  EXPECT_THROW_MSG(F::conv2d(ones({1, 1, 4, 4}), ones({1, 1, 2, 2}), F::Conv2dFuncOptions().stride(0)), Error,
                   "[im2col] kernel size, stride and dilation must be positive and padding non-negative.");
  EXPECT_THROW_MSG(F::im2col(ones({1, 1, 3, 3}), 5, 1, 0, 1), Error,
                   "[im2col] the kernel (5x5, dilation 1x1) does not fit the padded input [1, 1, 3, 3]; the output "
                   "would be -1x-1.");
  EXPECT_THROW_MSG(F::conv2d(ones({1, 1, 4, 4}), ones({2, 1, 3})), Error,
                   "[conv2d] expected a 4-D weight [out_channels, in_channels/groups, kh, kw], got [2, 1, 3].");
  EXPECT_THROW_MSG(F::conv2d(ones({4, 4}), ones({2, 1, 3, 3})), Error,
                   "[conv2d] expected a 3-D (unbatched) or 4-D (batched) input, got [4, 4].");
  EXPECT_THROW_MSG(F::conv2d(ones({1, 2, 4, 4}), ones({3, 1, 3, 3}), F::Conv2dFuncOptions().groups(2)), Error,
                   "[conv2d] groups (2) must be positive and divide out_channels (3).");
  EXPECT_THROW_MSG(F::max_pool2d(ones({4, 4}), F::MaxPool2dFuncOptions(2)), Error,
                   "[max_pool2d] expected a 3-D (unbatched) or 4-D (batched) input, got [4, 4].");
  EXPECT_THROW_MSG(F::max_pool2d(ones({1, 1, 6, 6}), F::MaxPool2dFuncOptions(3).padding(2)), Error,
                   "[max_pool2d] padding (2, 2) must be at most half of kernel_size (3, 3) in each dim, as in "
                   "PyTorch; use padding <= kernel_size / 2.");
  EXPECT_THROW_MSG(F::max_pool2d(ones({1, 1, 6, 6}), F::MaxPool2dFuncOptions({4, 2}).padding({2, 2})), Error,
                   "[max_pool2d] padding (2, 2) must be at most half of kernel_size (4, 2) in each dim");
  EXPECT_THROW_MSG(F::avg_pool2d(ones({1, 1, 6, 6}), F::AvgPool2dFuncOptions(2).padding(2)), Error,
                   "[avg_pool2d] padding (2, 2) must be at most half of kernel_size (2, 2) in each dim");
  EXPECT_EQ(F::max_pool2d(ones({1, 1, 6, 6}), F::MaxPool2dFuncOptions({4, 2}).padding({2, 1})).sizes(),
            IntArrayRef({1, 1, 2, 4}));  // exactly half is allowed (stride = kernel_size)
  EXPECT_THROW_MSG(F::avg_pool2d(ones({4}), F::AvgPool2dFuncOptions(2)), Error,
                   "[avg_pool2d] expected a 3-D (unbatched) or 4-D (batched) input, got [4].");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(ones({4, 4}), 2), Error,
                   "[adaptive_avg_pool2d] expected a 3-D (unbatched) or 4-D (batched) input, got [4, 4].");
  EXPECT_THROW_MSG(F::adaptive_avg_pool2d(ones({1, 4, 4}), {0, 2}), Error, "[adaptive_avg_pool2d] output_size must be positive, got 0, 2.");
  EXPECT_THROW_MSG(F::Conv2dFuncOptions().stride({1, 2, 3}), Error, "ExpandingArray: expected 2 values, got 3.");
  EXPECT_THROW_MSG(nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)), Error,
                   "Conv2d: in_channels (3) and out_channels (4) must be divisible by groups (2).");
}

TEST(NnMessages, Normalization) {
  EXPECT_THROW_MSG(F::batch_norm(ones({3}), Tensor(), Tensor(), F::BatchNormFuncOptions().training(true)), Error,
                   "[batch_norm] expected at least a 2-D input [N, C, ...], got [3].");
  EXPECT_THROW_MSG(F::batch_norm(ones({2, 3}), Tensor(), Tensor()), Error,
                   "[batch_norm] running_mean and running_var must be defined in evaluation mode.");
}

TEST(NnMessages, InitAndRegistration) {
  EXPECT_THROW_MSG(nn::init::uniform_(Tensor()), Error, "[uniform_] the tensor is undefined.");
  EXPECT_THROW_MSG(nn::init::kaiming_uniform_(Tensor()), Error, "[calculate_fan_in_and_fan_out] the tensor is undefined.");
  EXPECT_THROW_MSG(nn::init::calculate_fan_in_and_fan_out(ones({3})), Error,
                   "[calculate_fan_in_and_fan_out] Fan in and fan out can not be computed for tensor with fewer than 2 "
                   "dimensions (got 1).");
  nn::Module m;
  EXPECT_THROW_MSG(m.register_parameter("", ones({1})), Error, "[register_parameter] parameter name must not be empty.");
  EXPECT_THROW_MSG(m.register_parameter("a.b", ones({1})), Error,
                   "[register_parameter] parameter name must not contain a dot (got 'a.b').");
  EXPECT_THROW_MSG(m.register_buffer("", ones({1})), Error, "[register_buffer] buffer name must not be empty.");
  EXPECT_THROW_MSG(m.register_buffer("x.y", ones({1})), Error,
                   "[register_buffer] buffer name must not contain a dot (got 'x.y').");
  EXPECT_THROW_MSG(m.register_module("", nn::Linear(1, 1)), Error, "[register_module] submodule name must not be empty.");
  EXPECT_THROW_MSG(m.register_module("a.b", nn::Linear(1, 1)), Error,
                   "[register_module] submodule name must not contain a dot (got 'a.b').");
  EXPECT_THROW_MSG(m.register_module("fc", std::shared_ptr<nn::LinearImpl>()), Error,
                   "[register_module] submodule 'fc' is empty (nullptr).");
  m.register_buffer("b", ones({1}));
  EXPECT_THROW_MSG(m.register_buffer("b", ones({1})), Error, "Buffer 'b' already defined");
}

TEST(NnMessages, Containers) {
  EXPECT_THROW_MSG(nn::Sequential()->forward(ones({1})), Error,
                   "[Sequential::forward] cannot call forward() on an empty Sequential.");
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
  EXPECT_THROW_MSG(seq->at<nn::LinearImpl>(1), Error, "[Sequential::at] module 1 is a locus::nn::ReLU.");
  nn::ModuleList list{nn::ReLU()};
  EXPECT_THROW_MSG(list->at<nn::LinearImpl>(0), Error, "[ModuleList::at] module 0 is a locus::nn::ReLU.");
}

TEST(NnMessages, ClipGradNorm) {
  Tensor p = ones({2}).requires_grad_();
  p.set_grad(tensor({1.0, std::numeric_limits<double>::infinity()}).to(kFloat));
  EXPECT_THROW_MSG(nn::utils::clip_grad_norm_(p, 1.0, 2.0, /*error_if_nonfinite=*/true), Error,
                   "[clip_grad_norm_] The total norm of order 2.000000 for gradients from `parameters` is non-finite, "
                   "so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                   "anyway, set `error_if_nonfinite=false`");
}

}  // namespace messages_test
