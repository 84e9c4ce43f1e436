// chunk, split, split_with_sizes: views along one dim, as PyTorch's.
#include "testing.h"

using namespace locus;

namespace split_test {

using V = std::vector<double>;

namespace {

class Split : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return TensorOptions().device(GetParam()); }
};

std::vector<int64_t> lengths(const std::vector<Tensor>& ts, int64_t dim) {
  std::vector<int64_t> n;
  for (const Tensor& t : ts) n.push_back(t.size(dim));
  return n;
}

TEST_P(Split, ChunkAndSplitAreViews) {
  Tensor x = arange(10, o()).reshape({2, 5});
  auto c = x.chunk(2, 1);
  EXPECT_EQ(lengths(c, 1), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(c[1]), (V{3, 4, 8, 9}));
  EXPECT_TRUE(c[0].is_alias_of(x));
  EXPECT_EQ(lengths(chunk(arange(6, o()), 4), 0), (std::vector<int64_t>{2, 2, 2}));  // fewer than asked
  EXPECT_EQ(lengths(zeros({0, 3}, o()).chunk(2), 0), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(lengths(x.split(2, -1), 1), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(lengths(split(x, 1), 0), (std::vector<int64_t>{1, 1}));
  auto s = x.split_with_sizes({1, 4}, 1);
  EXPECT_EQ(values(s[1]), (V{1, 2, 3, 4, 6, 7, 8, 9}));
  EXPECT_EQ(lengths(x.split({2, 0, 3}, 1), 1), (std::vector<int64_t>{2, 0, 3}));
  Tensor w = arange(4, o().dtype(kFloat)).requires_grad_();
  auto parts = w.chunk(2);
  (parts[0] * 2 + parts[1] * 3).sum().backward();
  EXPECT_EQ(values(w.grad()), (V{2, 2, 3, 3}));
}

TEST_P(Split, UnbindGivesTheSlicesAsViews) {
  Tensor x = arange(6, o()).reshape({2, 3});
  auto rows = x.unbind();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(values(rows[1]), (V{3, 4, 5}));
  EXPECT_EQ(rows[1].sizes(), IntArrayRef({3}));
  EXPECT_TRUE(rows[0].is_alias_of(x));
  auto cols = unbind(x, -1);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(values(cols[2]), (V{2, 5}));
  EXPECT_TRUE(zeros({0, 2}, o()).unbind().empty());
  Tensor w = arange(4, o().dtype(kFloat)).requires_grad_();
  auto parts = w.unbind();
  (parts[1] * 2 + parts[3] * 5).backward();
  EXPECT_EQ(values(w.grad()), (V{0, 2, 0, 5}));
  EXPECT_THROW_MSG(tensor(1.0, o()).unbind(), Error, "[unbind] dimension specified as 0 but tensor has no dimensions.");
  EXPECT_THROW_MSG(x.unbind(2), Error, "[unbind] dimension out of range");
}

TEST_P(Split, Errors) {
  Tensor x = arange(10, o()).reshape({2, 5});
  EXPECT_THROW_MSG(x.chunk(0), Error, "[chunk] number of chunks must be greater than 0, got 0.");
  EXPECT_THROW_MSG(x.split(0, 1), Error,
                   "[split] split_size can only be 0 if dimension size is 0, and must not be negative; got split_size 0 "
                   "for dimension 1 of size 5.");
  EXPECT_THROW_MSG(x.split_with_sizes({2, 2}, 1), Error,
                   "[split_with_sizes] split sizes [2, 2] add up to 4 but dimension 1 has size 5; they must match.");
  EXPECT_THROW_MSG(full({}, 1.0, o()).chunk(2), Error, "[chunk] expects at least a 1-dimensional tensor.");
}

LOCUS_INSTANTIATE_DEVICES(Split);

}  // namespace

}  // namespace split_test
