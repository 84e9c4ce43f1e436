// The Tensor API around the math (tensor API batch, stop 47; scripts/libtorch-diff/tensor_api.cpp
// prints the same cases against libtorch 1.13): in-place view ops, resize_, view(dtype), numpy's
// splits, mT/mH/adjoint, index_put_ with accumulate, result_type, can_cast.
#include <vector>

#include "testing.h"
#include "locus/locus.h"

using namespace locus;
using namespace locus::indexing;

namespace tensor_api_test {

class TensorApi : public testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().device(GetParam()); }
  Tensor m() const { return arange(12, o().dtype(kFloat)).reshape({3, 4}); }
};

TEST_P(TensorApi, InPlaceViewOpsChangeTheShapeNotTheData) {
  Tensor x = m();
  Tensor alias = x;  // another handle to the same tensor sees the change, as in libtorch
  x.t_();
  EXPECT_EQ(alias.sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(values(alias.contiguous().view({-1}).narrow(0, 0, 4)), (std::vector<double>{0, 4, 8, 1}));
  x.transpose_(0, 1);
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 4}));
  x.unsqueeze_(0);
  EXPECT_EQ(x.sizes(), IntArrayRef({1, 3, 4}));
  x.squeeze_(0);
  x.unsqueeze_(2).unsqueeze_(0);
  EXPECT_EQ(x.sizes(), IntArrayRef({1, 3, 4, 1}));
  x.squeeze_();
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 4}));
  x.swapaxes_(0, 1).swapdims_(0, 1);
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 4}));
  x.as_strided_({2, 2}, {1, 2});
  EXPECT_EQ(values(x), (std::vector<double>{0, 2, 1, 3}));
  Tensor g = m().requires_grad_(true) * 1;
  EXPECT_THROW_MSG(g.t_(), Error,
                   "[t_] in-place view ops on a tensor that requires grad are not recorded by locus; use the "
                   "out-of-place form (e.g. x = x.t() for x.t_()).");
}

TEST_P(TensorApi, ResizeKeepsTheBytesAndGrows) {
  Tensor x = arange(6, o().dtype(kLong));
  x.resize_({2, 2});
  EXPECT_EQ(values(x), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_TRUE(x.is_contiguous());
  x.resize_({3, 3});
  EXPECT_EQ(x.sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(values(x.view({-1}).narrow(0, 0, 6)), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  x.resize_as_(zeros({1}));
  EXPECT_EQ(values(x), (std::vector<double>{0}));
  EXPECT_THROW_MSG(x.resize_({-1}), Error, "[resize_] sizes must be non-negative, got [-1].");
}

TEST_P(TensorApi, ViewAsAnotherDtype) {
  Tensor f = tensor({1.0f, -2.0f}, o());
  Tensor i = f.view(kInt);
  EXPECT_EQ(values(i), (std::vector<double>{1065353216, -1073741824}));  // the IEEE bits
  EXPECT_TRUE(i.is_alias_of(f));
  Tensor b = f.view(kByte);
  EXPECT_EQ(b.sizes(), IntArrayRef({8}));
  EXPECT_EQ(values(b.narrow(0, 0, 4)), (std::vector<double>{0, 0, 128, 63}));
  EXPECT_EQ(values(b.view(kFloat)), (std::vector<double>{1.0, -2.0}));
  Tensor l = f.view(kLong);
  EXPECT_EQ(l.sizes(), IntArrayRef({1}));
  EXPECT_THROW_MSG(tensor({1.0f, 2.0f, 3.0f}, o()).view(kDouble), Error,
                   "[view] the last dimension's size (3) and the storage offset (0) must be divisible by 2");
  EXPECT_THROW_MSG(m().t().view(kShort), Error, "[view] to view as a dtype of a different element size, the last "
                                                "dimension must have stride 1; call contiguous() first.");
}

TEST_P(TensorApi, NumpySplitsAndMatrixTransposes) {
  Tensor x = m();
  auto h = x.hsplit(2);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(values(h[1]), (std::vector<double>{2, 3, 6, 7, 10, 11}));
  EXPECT_EQ(values(x.vsplit(std::vector<int64_t>{1})[1]), (std::vector<double>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(x.reshape({3, 2, 2}).dsplit(2)[0].sizes(), IntArrayRef({3, 2, 1}));
  EXPECT_EQ(hsplit(arange(6, o()), 3)[2].numel(), 2);
  EXPECT_THROW_MSG(x.hsplit(3), Error,
                   "[hsplit] attempted to split along dimension 1, but the size of the dimension 4 is not divisible "
                   "by the split_size 3!");
  EXPECT_THROW_MSG(x.dsplit(2), Error,
                   "[dsplit] requires a tensor with at least 3 dimension(s), but got a tensor with 2 dimension(s).");
  EXPECT_EQ(x.mT().sizes(), IntArrayRef({4, 3}));
  EXPECT_EQ(values(x.adjoint().contiguous()), values(x.t().contiguous()));
  EXPECT_THROW_MSG(arange(3, o()).mT(), Error, "[mT] tensor.mT is only supported on matrices or batches of matrices.");
  EXPECT_EQ(values(x.narrow_copy(1, 1, 2)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_TRUE(x.narrow_copy(1, 1, 2).is_contiguous());
  EXPECT_EQ(x.reshape_as(x.t()).sizes(), IntArrayRef({4, 3}));
}

TEST_P(TensorApi, IndexPutWithAccumulate) {
  Tensor c = zeros({4}, o());
  c.index_put_({tensor({int64_t{0}, 0, 3}, o())}, tensor({1.0f, 1.0f, 2.0f}, o()), true);
  EXPECT_EQ(values(c), (std::vector<double>{2, 0, 0, 2}));
  c.index_put_({tensor({int64_t{0}, 0}, o())}, tensor({5.0f, 7.0f}, o()));  // last write wins
  EXPECT_EQ(values(c), (std::vector<double>{7, 0, 0, 2}));
  Tensor b = m();
  b.index_put_({tensor({int64_t{0}, 0}, o()), tensor({int64_t{1}, 1}, o())}, tensor({1.0f, 2.0f}, o()), true);
  EXPECT_EQ(values(b.index({0, 1})), (std::vector<double>{4}));
  Tensor r = m().index_put({std::nullopt, tensor({int64_t{0}}, o())}, tensor({-1.0f}, o()));
  EXPECT_EQ(values(r.select(1, 0)), (std::vector<double>{-1, -1, -1}));
  EXPECT_EQ(values(m().index(std::vector<std::optional<Tensor>>{std::nullopt, tensor({int64_t{3}}, o())})),
            (std::vector<double>{3, 7, 11}));
  EXPECT_THROW_MSG(c.index_put_({Tensor()}, tensor({1.0f}, o()), true), Error,
                   "[index_put_] an index is an undefined tensor; pass std::nullopt for a whole dim.");
}

TEST_P(TensorApi, DtypeQueries) {
  Tensor i = arange(6, o().dtype(kInt));
  EXPECT_EQ(result_type(i, m()), kFloat);
  EXPECT_EQ(result_type(i, 2.5), kFloat);
  EXPECT_EQ(result_type(i, 2), kInt);
  EXPECT_EQ(result_type(tensor(1.0, o().dtype(kDouble)), i), kDouble);  // 0-dim of a higher category
  EXPECT_EQ(result_type(Scalar(1), Scalar(true)), kLong);
  EXPECT_TRUE(can_cast(kInt, kFloat));
  EXPECT_FALSE(can_cast(kFloat, kInt));
  EXPECT_FALSE(can_cast(kInt, kBool));
  EXPECT_TRUE(can_cast(kBool, kByte));
  EXPECT_TRUE(i.is_signed());
  EXPECT_FALSE(i.to(kByte).is_signed());
  EXPECT_FALSE(i.is_sparse());
  EXPECT_EQ(m().itemsize(), 4);
  EXPECT_EQ(i.toType(kDouble).scalar_type(), kDouble);
}

TEST_P(TensorApi, AssigningToATemporaryWritesIntoIt) {
  Tensor x = zeros({2, 3}, o());
  x[0] = tensor({1.0f, 2.0f, 3.0f}, o());        // copy_ into the row
  x[1][2] = 7;                                  // fill_
  x.index({1, Slice(0, 2)}) = -1.5;
  x.index({0, 0}) = x[1][2] * 2;                // an rvalue tensor
  EXPECT_EQ(values(x), (std::vector<double>{14, 2, 3, -1.5, -1.5, 7}));
  x[0] += 1;                                    // compound assignment to a temporary: in place
  x.narrow(1, 1, 2) *= tensor({2.0f, 10.0f}, o());
  x[1][0] -= x[1][1];
  x.index({0, 0}) /= 3;
  EXPECT_EQ(values(x), (std::vector<double>{5, 6, 40, 1.5, -3, 70}));
  Tensor y = x;
  y = zeros({1}, o());  // a named tensor: the handle is rebound, x is untouched
  EXPECT_EQ(x.numel(), 6);
  EXPECT_EQ(y.numel(), 1);
  EXPECT_THROW_MSG(x[0] = ones({4}, o()), Error,
                   "[copy_] the size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
}

LOCUS_INSTANTIATE_DEVICES(TensorApi);

}  // namespace tensor_api_test
