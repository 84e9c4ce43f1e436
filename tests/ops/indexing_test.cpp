// Tensor::index / index_put_ (locus/indexing.h); expected values from PyTorch 1.13's x[...].
#include "testing.h"

using namespace locus;
using namespace locus::indexing;

namespace indexing_test {

using V = std::vector<double>;

namespace {

class TensorIndexing : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o(ScalarType t = kFloat) const { return TensorOptions().device(GetParam()).dtype(t); }
  Tensor x() const { return arange(24, o()).reshape({2, 3, 4}); }
  Tensor L(std::vector<int64_t> v) const { return tensor(v, o(kLong)); }
};

TEST_P(TensorIndexing, BasicIndicesAreViews) {
  Tensor a = x();
  Tensor r = a.index({Slice(0, 2), 1});  // x[0:2, 1]
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(values(r), (V{4, 5, 6, 7, 16, 17, 18, 19}));
  EXPECT_TRUE(r.is_alias_of(a));
  EXPECT_EQ(values(a.index({1, -1})), (V{20, 21, 22, 23}));
  Tensor s = a.index({Slice(), Slice(None, None, 2)});  // x[:, ::2]
  EXPECT_EQ(s.sizes(), IntArrayRef({2, 2, 4}));
  EXPECT_EQ(values(s), (V{0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23}));
  EXPECT_EQ(a.index({Ellipsis, None}).sizes(), IntArrayRef({2, 3, 4, 1}));
  EXPECT_EQ(a.index({"...", None}).sizes(), IntArrayRef({2, 3, 4, 1}));
  EXPECT_EQ(values(a.index({None, 0, "...", 1})), (V{1, 5, 9}));
  EXPECT_EQ(a.index({None, 0, "...", 1}).sizes(), IntArrayRef({1, 3}));
  EXPECT_EQ(a.index({true}).sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_EQ(a.index({false}).sizes(), IntArrayRef({0, 2, 3, 4}));
  // with other advanced indices a bool is one too, indexing its new dim by [0] (true) or by
  // nothing (false): they broadcast together and, apart, go to the front (libtorch's shapes)
  EXPECT_EQ(a.index({true, Slice(), true}).sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_EQ(a.index({0, true, Slice(), tensor({1, 2})}).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(a.index({0, true, Slice(1, None, 2), tensor({1, 2})}).sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(values(a.index({"...", 0, true, Slice(1, None, 2), tensor({1, 2})})), (V{5, 6}));
  EXPECT_EQ(a.index({Slice(), true, Slice(), tensor({0, 1})}).sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(a.index({"...", true, Slice(), true}).sizes(), IntArrayRef({1, 2, 3, 4}));
  EXPECT_THROW_MSG(a.index({false, tensor({0, 1})}), Error,
                   "[index] shape mismatch: the index tensors could not be broadcast together with shapes [0], [2]");
  EXPECT_EQ(a.index({}).sizes(), a.sizes());
  EXPECT_EQ(values(a.index({Slice(-1), Slice(1, None), Slice(None, -2)})), (V{16, 17, 20, 21}));
}

TEST_P(TensorIndexing, TensorIndicesCopy) {
  Tensor a = x();
  Tensor m = tensor({{true, false, true}, {false, false, true}}, o(kBool));
  EXPECT_EQ(values(a.index({m})), (V{0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23}));
  EXPECT_EQ(a.index({m}).sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(values(a.index({a > 20})), (V{21, 22, 23}));
  EXPECT_EQ(a.index({L({-1})}).sizes(), IntArrayRef({1, 3, 4}));
  EXPECT_EQ(values(a.index({Slice(), L({2, 0})})), (V{8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15}));
  // non-adjacent index tensors: broadcast dims first
  EXPECT_EQ(values(a.index({L({0, 1}), Slice(), L({3, 1})})), (V{3, 7, 11, 13, 17, 21}));
  EXPECT_EQ(a.index({L({0, 1}), Slice(), L({3, 1})}).sizes(), IntArrayRef({2, 3}));
  // adjacent ones stay in place
  EXPECT_EQ(values(a.index({Slice(), L({0, 2}), L({1, 3})})), (V{1, 11, 13, 23}));
  EXPECT_EQ(a.index({tensor({int64_t{1}, 0}).reshape({2, 1}), L({2, 0})}).sizes(), IntArrayRef({2, 2, 4}));
  // cpu indices for a device tensor are accepted, as libtorch's
  EXPECT_EQ(values(a.index({1, tensor({int64_t{2}}), 0})), (V{20}));
  EXPECT_FALSE(a.index({L({0})}).is_alias_of(a));
}

TEST_P(TensorIndexing, IndexPut) {
  Tensor y = arange(12, o()).reshape({3, 4});
  y.index_put_({y > 5}, 0);
  EXPECT_EQ(values(y), (V{0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0}));
  y = arange(12, o()).reshape({3, 4});
  y.index_put_({Slice(), 0}, tensor({7.0, 8.0, 9.0}, o()));
  EXPECT_EQ(values(y), (V{7, 1, 2, 3, 8, 5, 6, 7, 9, 9, 10, 11}));
  y = zeros({3, 4}, o());
  y.index_put_({L({0, 0, 2}), L({1, 1, 3})}, tensor({1.0, 2.0, 3.0}, o()));  // the last write wins
  EXPECT_EQ(values(y), (V{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}));
  y = zeros({3, 4}, o());
  y.index_put_({1}, ones({1, 4}, o()));
  y.index_put_({"...", 1}, 5);
  EXPECT_EQ(values(y), (V{0, 5, 0, 0, 1, 5, 1, 1, 0, 5, 0, 0}));
  Tensor b = zeros({2, 2}, o(kBool));
  b.index_put_({L({1}), 0}, true);
  EXPECT_EQ(values(b), (V{0, 0, 1, 0}));
  EXPECT_THROW_MSG(y.index_put_({L({0, 1})}, ones({3, 4}, o())), Error,
                   "[index_put_] shape mismatch: value tensor of shape [3, 4] cannot be broadcast to indexing result "
                   "of shape [2, 4].");
}

TEST_P(TensorIndexing, Autograd) {
  Tensor w = arange(6, o()).reshape({2, 3}).requires_grad_();
  (w.index({Slice(), 1}) * 2).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{0, 2, 0, 0, 2, 0}));
  w.mutable_grad() = Tensor();
  w.index({L({0, 0, 1})}).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{2, 2, 2, 1, 1, 1}));
  w.mutable_grad() = Tensor();
  w.index({w > 2}).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{0, 0, 0, 1, 1, 1}));
  EXPECT_THROW_MSG(w.index_put_({0}, 1.0), Error,
                   "[index_put_] a leaf Variable that requires grad is being used in an in-place operation.");
}

TEST_P(TensorIndexing, Errors) {
  Tensor a = x();
  EXPECT_THROW_MSG(a.index({5}), Error, "[index] index 5 is out of bounds for dimension 0 with size 2.");
  EXPECT_THROW_MSG(a.index({0, Slice(), -5}), Error, "[index] index -5 is out of bounds for dimension 2 with size 4.");
  EXPECT_THROW_MSG(a.index({0, 0, 0, 0}), Error,
                   "[index] too many indices for a tensor of dimension 3: 4 dims indexed (None, Ellipsis and bools "
                   "index none). Index at most 3 dims.");
  EXPECT_THROW_MSG(a.index({Slice(), L({3})}), Error, "[index] index 3 is out of bounds for dimension 1 with size 3.");
  EXPECT_THROW_MSG(a.index({"..", 0}), Error, "[index] the only string index is \"...\" (Ellipsis), got \"..\".");
  EXPECT_THROW_MSG(a.index({Ellipsis, 0, Ellipsis}), Error, "[index] an index can only have a single ellipsis ('...').");
  EXPECT_THROW_MSG(a.index({Slice(None, None, -1)}), Error,
                   "[index] slice step must be positive, got -1 for dimension 0; flip() the tensor to step backwards.");
  EXPECT_THROW_MSG(a.index({ones({3}, o(kBool))}), Error,
                   "[index] the shape of the mask [3] does not match the shape of the indexed tensor [2, 3, 4] at "
                   "dimension 0 (3 vs 2).");
  EXPECT_THROW_MSG(a.index({ones({1}, o())}), Error,
                   "[index] tensors used as indices must be long, int, byte or bool tensors, got float32; convert "
                   "with .to(locus::kLong).");
  EXPECT_THROW_MSG(a.index_put_({2}, 0), Error, "[index_put_] index 2 is out of bounds for dimension 0 with size 2.");
}

TEST_P(TensorIndexing, MaskedSelect) {
  Tensor a = tensor({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}, o());
  EXPECT_EQ(values(a.masked_select(a > 0)), (V{1, 3, 5}));
  EXPECT_EQ(values(masked_select(a, tensor({true, false, true}, o(kBool)))), (V{1, 3, -4, -6}));  // broadcast
  EXPECT_THROW_MSG(a.masked_select(a), Error, "[masked_select] expected a bool mask, got float32; compare first (x > 0).");
}

LOCUS_INSTANTIATE_DEVICES(TensorIndexing);

TEST(TensorIndexing, NonzeroAndPrinting) {
  Tensor m = tensor({{0.0, 1.0}, {2.0, 0.0}});
  EXPECT_EQ(values(m.nonzero()), (V{0, 1, 1, 0}));
  EXPECT_EQ(nonzero(zeros({3})).sizes(), IntArrayRef({0, 1}));
  std::ostringstream s;
  // libtorch's spellings: an open stop prints as INT64_MAX, bools in C++'s words
  s << TensorIndex(Slice(1, None, 2)) << " " << TensorIndex(None) << " " << TensorIndex("...") << " " << TensorIndex(3)
    << " " << TensorIndex(true) << " " << std::vector<TensorIndex>{0, Slice()};
  EXPECT_EQ(s.str(), "1:9223372036854775807:2 None ... 3 true (0, 0:9223372036854775807:1)");
}

}  // namespace

}  // namespace indexing_test
