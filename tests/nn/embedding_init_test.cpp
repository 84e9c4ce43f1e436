// rnn batch (stop 47): Embedding / EmbeddingBag max_norm (against PyTorch 1.13, tests/nn/embedding_init_cases.py),
// nn::init's eye_, dirac_, orthogonal_, sparse_ and _calculate_fan_in_and_fan_out, clip_grad_value_ on one
// tensor, PackedSequence's to / cpu / pin_memory, and the libtorch printing of RNN, RNNCell, Embedding and
// EmbeddingBag (as scripts/libtorch-diff/rnn_modules.cpp and nn_utils.cpp found it), on every device.
#include <cmath>
#include <sstream>

#include "nn/cases.h"

using namespace locus;

namespace embedding_init_test {
using D = std::vector<double>;

namespace {
// embedding_init_cases.py's output
const D kMaxNormOut = {0.7595969043, 0.3554305954, -0.09684157725, -0.5360066967, -0.8121482516, -0.4956246818,
    -0.1120206364, 0.2867448766, -0.8121482516, -0.4956246818, -0.1120206364, 0.2867448766, 0.3433128935, 0.487936263,
    0.5665197483, 0.5684274433};
const D kMaxNormWeight = {1.262206477, 1.469862092, 1.478578768, 1.287176744, 0.7595969043, 0.3554305954,
    -0.09684157725, -0.5360066967, -1.095087541, -1.391663797, -1.499884886, -1.405103593, -0.8121482516,
    -0.4956246818, -0.1120206364, 0.2867448766, 0.3433128935, 0.487936263, 0.5665197483, 0.5684274433};
const D kMaxNormGrad = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1};
const D kMaxNormL1Out = {0.459165821, 0.534706838, 0.5378777929, 0.4682495117, 0.3492152624, 0.4963250531,
    0.5762595762, 0.5782000691, 0.3492152624, 0.4963250531, 0.5762595762, 0.5782000691};
const D kMaxNormL1Weight = {0.459165821, 0.534706838, 0.5378777929, 0.4682495117, 0.9215613867, 0.4312170185,
    -0.1174905502, -0.6502963241, -1.095087541, -1.391663797, -1.499884886, -1.405103593, -1.120148119, -0.6835858529,
    -0.1545034481, 0.3954902736, 0.3492152624, 0.4963250531, 0.5762595762, 0.5782000691};
const D kBagMaxNormOut = {-0.1551002066, -0.4641086904, -0.7103022401, -0.6005210428, 0.04022500448, 0.6755267861,
    -0.1346490257, -0.5096185497, -0.8156135938};
const D kBagMaxNormWeight = {0.5178958934, 0.6030990612, 0.6066756002, 0.7845069597, 0.5616721439, 0.2628176384,
    -0.09185942505, -0.5084310725, -0.8561889594, -0.560685494, -0.6042865384, -0.5661002347, -0.8477477412,
    -0.5173497618, -0.1169309191, 0.2472266984, 0.5575747663, 0.7924577052};
const D kEye34 = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
const D kDirac423 = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
const D kDirac2332 = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0, 0, 0};

void expect_near(const Tensor& got, const D& want) { nn_cases::expect_near(got, want, 1e-8); }
}  // namespace

class EmbeddingInit : public testing::TestWithParam<Device> {
 protected:
  Tensor table(int64_t n, int64_t d) const {
    return ((arange(n * d, TensorOptions().dtype(kDouble)) * 0.37 + 1).sin() * 1.5).reshape({n, d}).to(GetParam());
  }
  Tensor idx(std::vector<int64_t> v, std::vector<int64_t> shape) const {
    return tensor(v, TensorOptions().dtype(kLong)).reshape(shape).to(GetParam());
  }
};

TEST_P(EmbeddingInit, EmbeddingMaxNormRenormalisesTheLookedUpRowsInPlace) {
  const Device d = GetParam();
  nn::Embedding e(nn::EmbeddingOptions(5, 4).max_norm(1.0).device(d).dtype(kDouble));
  {
    NoGradGuard g;
    e->weight.copy_(table(5, 4));
  }
  const Tensor y = e(idx({1, 3, 3, 4}, {2, 2}));
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 4}));
  expect_near(y, kMaxNormOut);
  expect_near(e->weight, kMaxNormWeight);  // rows 1, 3, 4 scaled; 0 and 2 (not looked up) kept
  y.sum().backward();
  expect_near(e->weight.grad(), kMaxNormGrad);
  // the functional form, norm_type 1, a repeated index
  const Tensor w = table(5, 4);
  expect_near(nn::functional::embedding(idx({0, 4, 4}, {3}), w,
                                        nn::functional::EmbeddingFuncOptions().max_norm(2.0).norm_type(1.0)),
              kMaxNormL1Out);
  expect_near(w, kMaxNormL1Weight);
  // from_pretrained passes max_norm on
  auto pre = nn::Embedding::from_pretrained(table(5, 4), nn::EmbeddingFromPretrainedOptions().max_norm(1.0));
  expect_near(pre(idx({1, 3, 3, 4}, {2, 2})), kMaxNormOut);
  EXPECT_THROW_MSG(nn::functional::embedding(idx({0}, {1}), table(5, 4),
                                             nn::functional::EmbeddingFuncOptions().max_norm(-1.0)),
                   Error, "[embedding] max_norm must be a non-negative number, got -1.000000.");
}

// PyTorch 1.13: F.embedding(i, arange(12.).view(4, 3), padding_idx=3, scale_grad_by_freq=True)
// with i = [[1, 2, 1], [0, 1, 3]], backward of (out * arange(18.).view(2, 3, 3)).sum().
TEST_P(EmbeddingInit, EmbeddingScaleGradByFreq) {
  const TensorOptions o = TensorOptions().dtype(kDouble).device(GetParam());
  const std::vector<double> want = {9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 0, 0};
  Tensor w = arange(12, o).view({4, 3}).requires_grad_();
  Tensor out = nn::functional::embedding(
      idx({1, 2, 1, 0, 1, 3}, {2, 3}), w,
      nn::functional::EmbeddingFuncOptions().padding_idx(3).scale_grad_by_freq(true));
  EXPECT_STREQ(out.grad_fn()->name().c_str(), "EmbeddingBackward0");
  EXPECT_TRUE(out.equal(w.detach().index_select(0, idx({1, 2, 1, 0, 1, 3}, {6})).view({2, 3, 3})));
  (out * arange(18, o).view({2, 3, 3})).sum().backward();
  expect_near(w.grad(), want);
  // the module and from_pretrained pass it on
  nn::Embedding e(nn::EmbeddingOptions(4, 3).padding_idx(3).scale_grad_by_freq(true).device(GetParam()).dtype(kDouble));
  {
    NoGradGuard g;
    e->weight.copy_(arange(12, o).view({4, 3}));
  }
  (e(idx({1, 2, 1, 0, 1, 3}, {2, 3})) * arange(18, o).view({2, 3, 3})).sum().backward();
  expect_near(e->weight.grad(), want);
  auto pre = nn::Embedding::from_pretrained(
      arange(12, o).view({4, 3}), nn::EmbeddingFromPretrainedOptions().freeze(false).scale_grad_by_freq(true));
  (pre(idx({2, 2}, {2})) * arange(6, o).view({2, 3})).sum().backward();
  expect_near(pre->weight.grad(), {0, 0, 0, 0, 0, 0, 1.5, 2.5, 3.5, 0, 0, 0});
  nn::Embedding sparse(nn::EmbeddingOptions(4, 3).sparse(true).device(GetParam()));
  EXPECT_THROW_MSG(sparse(idx({0}, {1})), Error, "[embedding] sparse=true (sparse gradients) is not supported");
}

TEST_P(EmbeddingInit, EmbeddingBagFromPretrained) {
  const Device d = GetParam();
  Tensor w = table(4, 2);
  auto bag = nn::EmbeddingBag::from_pretrained(w, nn::EmbeddingBagFromPretrainedOptions().mode(kSum));
  EXPECT_TRUE(bag->weight.is_same(w));  // the table itself, as PyTorch's
  EXPECT_FALSE(bag->weight.requires_grad());
  EXPECT_EQ(bag->weight.device(), d);
  Tensor out = bag(idx({0, 1, 3}, {1, 3}));
  EXPECT_TRUE(allclose(out, (w[0] + w[1] + w[3]).unsqueeze(0)));
  auto trainable = nn::EmbeddingBag::from_pretrained(table(4, 2), nn::EmbeddingBagFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_TRUE(allclose(trainable(idx({0, 2}, {1, 2})), (table(4, 2)[0] + table(4, 2)[2]).unsqueeze(0) / 2));  // kMean
  EXPECT_THROW_MSG(nn::EmbeddingBag::from_pretrained(table(4, 2).view({8})), Error,
                   "[EmbeddingBag::from_pretrained] Embeddings parameter is expected to be 2-dimensional, got 1 dimensions");
  EXPECT_THROW_MSG(nn::EmbeddingBag(nn::EmbeddingBagOptions(3, 2)._weight(table(4, 2))), Error,
                   "[EmbeddingBag] _weight has shape [4, 2], but the options say [3, 2]");
}

TEST_P(EmbeddingInit, EmbeddingBagMaxNorm) {
  const Device d = GetParam();
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(6, 3).mode(kSum).max_norm(1.0).device(d).dtype(kDouble));
  {
    NoGradGuard g;
    bag->weight.copy_(table(6, 3));
  }
  expect_near(bag(idx({1, 2, 4, 5, 4, 3, 2, 0}, {8}), idx({0, 3, 5}, {3})), kBagMaxNormOut);
  expect_near(bag->weight, kBagMaxNormWeight);
  EXPECT_THROW_MSG(nn::functional::embedding_bag(idx({0, 1}, {2}), table(6, 3),
                                                 nn::functional::EmbeddingBagFuncOptions()
                                                     .offsets(idx({0}, {1}))
                                                     .max_norm(-0.5)),
                   Error, "[embedding_bag] max_norm must be a non-negative number, got -0.500000.");
}

TEST_P(EmbeddingInit, DeterministicInits) {
  const Device d = GetParam();
  expect_near(nn::init::eye_(empty({3, 4}, TensorOptions().device(d))), kEye34);
  expect_near(nn::init::dirac_(empty({4, 2, 3}, TensorOptions().device(d))), kDirac423);
  expect_near(nn::init::dirac_(empty({2, 3, 3, 2}, TensorOptions().device(d))), kDirac2332);
  auto [fan_in, fan_out] = nn::init::_calculate_fan_in_and_fan_out(empty({5, 3, 2, 2}));
  EXPECT_EQ(fan_in, 12);
  EXPECT_EQ(fan_out, 20);
  EXPECT_THROW_MSG(nn::init::eye_(empty({2, 2, 2})), Error,
                   "[eye_] Only tensors with 2 dimensions are supported, got 3.");
  EXPECT_THROW_MSG(nn::init::dirac_(empty({2, 2})), Error,
                   "[dirac_] Only tensors with 3, 4, or 5 dimensions are supported, got 2.");
  EXPECT_THROW_MSG(nn::init::orthogonal_(empty({3})), Error,
                   "[orthogonal_] Only tensors with 2 or more dimensions are supported, got 1.");
  EXPECT_THROW_MSG(nn::init::sparse_(empty({3}), 0.5), Error,
                   "[sparse_] Only tensors with 2 dimensions are supported, got 1.");
}

TEST_P(EmbeddingInit, OrthogonalAndSparse) {
  const Device d = GetParam();
  manual_seed(3);
  Tensor tall = empty({6, 4}, TensorOptions().device(d).dtype(kDouble));
  nn::init::orthogonal_(tall, 2.0);
  EXPECT_TRUE(allclose(tall.t().mm(tall).cpu(), eye(4, TensorOptions().dtype(kDouble)) * 4, 1e-10, 1e-10));
  Tensor wide = empty({2, 3, 2}, TensorOptions().device(d));  // viewed as [2, 6]
  nn::init::orthogonal_(wide);
  const Tensor flat = wide.reshape({2, 6});
  EXPECT_TRUE(allclose(flat.mm(flat.t()).cpu(), eye(2), 1e-5, 1e-5));
  // the same seed gives the same matrix on every device (drawn with randn on the tensor's device)
  manual_seed(3);
  Tensor again = empty({6, 4}, TensorOptions().device(d).dtype(kDouble));
  nn::init::orthogonal_(again, 2.0);
  EXPECT_TRUE(again.equal(tall));
  Tensor s = empty({8, 5}, TensorOptions().device(d));
  nn::init::sparse_(s, 0.3, 0.5);
  const Tensor zeros_per_column = s.eq(0).sum({0}).cpu();
  for (int64_t c = 0; c < 5; ++c) EXPECT_GE(zeros_per_column[c].item<int64_t>(), 3);  // ceil(0.3 * 8)
  EXPECT_GT(s.abs().sum().item<double>(), 0);
}

TEST_P(EmbeddingInit, ClipGradValueOnOneTensor) {
  const Device d = GetParam();
  Tensor p = zeros({4}, TensorOptions().device(d).requires_grad(true));
  (p * tensor({-3.0f, -0.2f, 0.4f, 5.0f}).to(d)).sum().backward();
  nn::utils::clip_grad_value_(p, 0.5);
  expect_near(p.grad(), {-0.5, -0.2, 0.4, 0.5});
}

TEST_P(EmbeddingInit, PackedSequenceTo) {
  const Device d = GetParam();
  namespace R = nn::utils::rnn;
  const Tensor a = arange(6, TensorOptions().dtype(kFloat)).reshape({3, 2}), b = ones({1, 2});
  const R::PackedSequence p = R::pack_sequence({b, a}, false);
  const R::PackedSequence moved = p.to(d);
  EXPECT_EQ(moved.data().device(), d);
  EXPECT_EQ(moved.sorted_indices().device(), d);
  EXPECT_EQ(moved.unsorted_indices().device(), d);
  EXPECT_EQ(moved.batch_sizes().device(), Device(kCPU));  // batch_sizes stay on the host, as libtorch's
  EXPECT_EQ(moved.sorted_indices().scalar_type(), kLong);
  EXPECT_FALSE(moved.is_cuda());
  const R::PackedSequence dbl = moved.to(kDouble);
  EXPECT_EQ(dbl.data().scalar_type(), kDouble);
  EXPECT_EQ(dbl.sorted_indices().scalar_type(), kLong);
  // no conversion needed: the same tensors
  EXPECT_TRUE(moved.to(d).data().is_same(moved.data()));
  const R::PackedSequence back = moved.cpu();
  EXPECT_TRUE(back.data().equal(p.data()));
  EXPECT_TRUE(back.unsorted_indices().equal(p.unsorted_indices()));
  expect_near(std::get<0>(R::pad_packed_sequence(moved, true)).cpu(),
              {1, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5});
}

LOCUS_INSTANTIATE_DEVICES(EmbeddingInit);

TEST(EmbeddingInitPrinting, AsLibtorch) {
  std::ostringstream s;
  s << *nn::RNN(nn::RNNOptions(2, 3).nonlinearity(kReLU)) << "\n"
    << *nn::RNNCell(nn::RNNCellOptions(3, 2).nonlinearity(kReLU)) << "\n"
    << *nn::Embedding(nn::EmbeddingOptions(5, 4).max_norm(1.0)) << "\n"
    << *nn::Embedding(nn::EmbeddingOptions(5, 4).padding_idx(1).max_norm(2.5).norm_type(1)) << "\n"
    << *nn::Embedding(nn::EmbeddingOptions(5, 4).scale_grad_by_freq(true).sparse(true)) << "\n"
    << *nn::EmbeddingBag(nn::EmbeddingBagOptions(6, 3)) << "\n"
    << *nn::EmbeddingBag(nn::EmbeddingBagOptions(6, 3).mode(kSum).max_norm(1.0).include_last_offset(true));
  EXPECT_EQ(s.str(),
            "locus::nn::RNN(input_size=2, hidden_size=3, num_layers=1, bias=true, batch_first=false, dropout=0, "
            "bidirectional=false)\n"
            "locus::nn::RNNCell(3, 2, nonlinearity=kReLU)\n"
            "locus::nn::Embedding(num_embeddings=5, embedding_dim=4, max_norm=1)\n"
            "locus::nn::Embedding(num_embeddings=5, embedding_dim=4, padding_idx=1, max_norm=2.5, norm_type=1)\n"
            "locus::nn::Embedding(num_embeddings=5, embedding_dim=4, scale_grad_by_freq=true, sparse=true)\n"
            "locus::nn::EmbeddingBag(num_embeddings=6, embedding_dim=3)\n"
            "locus::nn::EmbeddingBag(num_embeddings=6, embedding_dim=3, max_norm=1, mode=kSum, "
            "include_last_offset=true)");
}

}  // namespace embedding_init_test
