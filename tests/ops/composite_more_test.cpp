// The composed shape ops of src/ops/composite_more.cpp on every device: values, shapes, dtypes and
// gradients against PyTorch 1.13's (printed by tests/ops/composite_more_cases.py), or against
// central differences (gradcheck), and every error message.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "autograd/gradcheck.h"
#include "testing.h"

using namespace locus;

namespace composite_more_test {
using V = std::vector<double>;
using Vs = std::vector<Tensor>;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

// The gradients of sum(f(inputs) * w) (w as in composite_more_cases.py's grad()) in float64 on `d`.
Vs grads(const std::function<Tensor(const Vs&)>& f, const Vs& inputs, Device d) {
  Vs xs;
  for (const Tensor& x : inputs) xs.push_back(x.to(d, kDouble, false, true).requires_grad_(true));
  Tensor out = f(xs);
  Tensor w = (arange(out.numel(), TensorOptions().dtype(kDouble)) * 0.37 + 0.5).sin().reshape(out.sizes()).to(d);
  (out * w).sum().backward();
  Vs g;
  for (const Tensor& x : xs) g.push_back(x.grad());
  return g;
}

}  // namespace

class CompositeMore : public ::testing::TestWithParam<Device> {
 protected:
  TensorOptions o() const { return device(GetParam()); }
};

TEST_P(CompositeMore, BroadcastTo) {
  Tensor x = tensor({1.0, 2.0, 3.0}, o());
  Tensor b = x.broadcast_to({2, 3});
  EXPECT_VALUES(b, {2, 3}, V{1.0, 2.0, 3.0, 1.0, 2.0, 3.0});
  EXPECT_TRUE(b.is_alias_of(x));  // a view
  EXPECT_VALUES(broadcast_to(x, {2, -1}), {2, 3}, V{1.0, 2.0, 3.0, 1.0, 2.0, 3.0});
  EXPECT_THROW_MSG(x.broadcast_to({2, 4}), Error,
                   "[broadcast_to] the expanded size of the tensor (4) must match the existing size (3) at "
                   "non-singleton dimension 1. Target sizes: [2, 4]. Tensor sizes: [3].");
  EXPECT_THROW_MSG(tensor({{1.0}}, o()).broadcast_to({3}), Error,
                   "[broadcast_to] the number of sizes provided (1) must be greater or equal to the number of "
                   "dimensions in the tensor (2).");
  Vs bt = broadcast_tensors({tensor({{1.0}, {2.0}, {3.0}}, o()), tensor({4.0, 5.0, 6.0, 7.0}, o())});
  ASSERT_EQ(bt.size(), 2u);
  EXPECT_VALUES(bt[0], {3, 4}, V{1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0});
  EXPECT_VALUES(bt[1], {3, 4}, V{4.0, 5.0, 6.0, 7.0, 4.0, 5.0, 6.0, 7.0, 4.0, 5.0, 6.0, 7.0});
  EXPECT_THROW_MSG(broadcast_tensors({x, ones({2, 4}, o())}), Error, "[broadcast_tensors]");
  gradcheck([](const Vs& v) { return v[0].broadcast_to({2, 3}); }, {sample({3})}, GetParam());
  gradcheck([](const Vs& v) { return broadcast_tensors(v)[0] * broadcast_tensors(v)[1]; },
            {sample({2, 1}), sample({3}, 1.)}, GetParam());
}

TEST_P(CompositeMore, MeshgridAndCartesianProd) {
  Tensor a = tensor({1, 2, 3}, o()), b = tensor({4, 5}, o());
  Vs ij = meshgrid({a, b});  // libtorch's default: "ij"
  EXPECT_VALUES(ij[0], {3, 2}, V{1.0, 1.0, 2.0, 2.0, 3.0, 3.0});
  EXPECT_VALUES(ij[1], {3, 2}, V{4.0, 5.0, 4.0, 5.0, 4.0, 5.0});
  EXPECT_EQ(ij[0].dtype(), kLong);
  EXPECT_VALUES(meshgrid({a, b}, "ij")[1], {3, 2}, V{4.0, 5.0, 4.0, 5.0, 4.0, 5.0});
  Vs xy = meshgrid({a, b, tensor(7, o())}, "xy");
  EXPECT_VALUES(xy[0], {2, 3, 1}, V{1.0, 2.0, 3.0, 1.0, 2.0, 3.0});
  EXPECT_VALUES(xy[1], {2, 3, 1}, V{4.0, 4.0, 4.0, 5.0, 5.0, 5.0});
  EXPECT_VALUES(xy[2], {2, 3, 1}, V{7.0, 7.0, 7.0, 7.0, 7.0, 7.0});
  EXPECT_THROW_MSG(meshgrid({a, b}, "foo"), Error,
                   "[meshgrid] indexing must be one of \"xy\" or \"ij\", but received: foo.");
  EXPECT_THROW_MSG(meshgrid({ones({3, 1}, o()), b}), Error,
                   "[meshgrid] expected 0D or 1D tensor in the tensor list but got a 2-D tensor at position 0.");
  EXPECT_THROW_MSG(meshgrid(Vs{}), Error, "[meshgrid] expects a non-empty TensorList.");
  EXPECT_THROW_MSG(meshgrid({ones({3}, o()), b}), Error,
                   "[meshgrid] expects all tensors to have the same dtype, but tensor 0 is float32 and tensor 1 "
                   "is int64.");
  EXPECT_VALUES(cartesian_prod({tensor({1, 2}, o()), tensor({3, 4, 5}, o())}), {6, 2},
                V{1.0, 3.0, 1.0, 4.0, 1.0, 5.0, 2.0, 3.0, 2.0, 4.0, 2.0, 5.0});
  EXPECT_VALUES(cartesian_prod({tensor({1.0, 2.0}, o()), tensor({3.0}, o()), tensor({5.0, 6.0}, o())}), {4, 3},
                V{1.0, 3.0, 5.0, 1.0, 3.0, 6.0, 2.0, 3.0, 5.0, 2.0, 3.0, 6.0});
  EXPECT_TRUE(cartesian_prod({a}).is_same(a));
  EXPECT_THROW_MSG(cartesian_prod({ones({2, 2}, o())}), Error,
                   "[cartesian_prod] expects 1-D tensors, but got shape [2, 2].");
  gradcheck([](const Vs& v) { Vs g = meshgrid(v, "xy"); return g[0] * g[1]; }, {sample({3}), sample({2}, 1.)},
            GetParam());
  gradcheck([](const Vs& v) { return cartesian_prod(v); }, {sample({3}), sample({2}, 1.)}, GetParam());
}

TEST_P(CompositeMore, Tile) {
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_VALUES(m.tile({2}), {2, 4}, V{1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0});
  EXPECT_VALUES(tile(m, {2, 1, 2}), {2, 2, 4},
                V{1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0});
  EXPECT_THROW_MSG(m.tile({2, -1}), Error, "[tile] repetitions must be non-negative, got [2, -1].");
  gradcheck([](const Vs& v) { return v[0].tile({3, 1, 2}); }, {sample({2, 2})}, GetParam());
}

TEST_P(CompositeMore, Unfold) {
  Tensor x = arange(7.0, o());
  Tensor u = x.unfold(0, 3, 2);
  EXPECT_VALUES(u, {3, 3}, V{0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0});
  EXPECT_TRUE(u.is_alias_of(x));  // a strided view, as PyTorch's
  Tensor m = arange(12.0, o()).view({3, 4});
  EXPECT_VALUES(m.unfold(1, 2, 1), {3, 3, 2},
                V{0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0, 6.0, 7.0, 8.0, 9.0, 9.0, 10.0, 10.0, 11.0});
  EXPECT_VALUES(m.unfold(0, 2, 1), {2, 4, 2},
                V{0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0, 4.0, 8.0, 5.0, 9.0, 6.0, 10.0, 7.0, 11.0});
  EXPECT_VALUES(x.unfold(0, 0, 1), {8, 0}, V{});
  EXPECT_VALUES(tensor(3.0, o()).unfold(0, 1, 1), {1}, V{3.0});
  // of a view that does not start at its storage's beginning
  EXPECT_VALUES(m.select(0, 1).unfold(0, 2, 2), {2, 2}, V{4.0, 5.0, 6.0, 7.0});
  EXPECT_THROW_MSG(arange(5.0, o()).unfold(0, 6, 1), Error,
                   "[unfold] maximum size for tensor at dimension 0 is 5 but size is 6.");
  EXPECT_THROW_MSG(arange(5.0, o()).unfold(0, 2, 0), Error, "[unfold] step is 0 but must be > 0.");
  EXPECT_THROW_MSG(arange(5.0, o()).unfold(0, -1, 1), Error, "[unfold] size is -1 but must be >= 0.");
  EXPECT_THROW_MSG(tensor(3.0, o()).unfold(0, 2, 1), Error,
                   "[unfold] maximum size for tensor at dimension 0 is 1 but size is 2.");
  // overlapping windows: each element's gradient sums over the windows that hold it
  Vs g = grads([](const Vs& v) { return v[0].unfold(0, 3, 1); }, {arange(6.0, TensorOptions().dtype(kDouble)) * 0.5},
               GetParam());
  EXPECT_VALUES(g[0], {6}, V{0.479425538604203, 1.7635605714468956, 2.2724361244033666, 0.12773507348510338,
                             -1.1846301315165584, -0.9898798050735039});
  gradcheck([](const Vs& v) { return v[0].unfold(1, 2, 1); }, {sample({2, 4})}, GetParam());
}

TEST_P(CompositeMore, Diff) {
  Tensor y = tensor({1.0, 4.0, 9.0, 16.0, 25.0}, o());
  EXPECT_VALUES(y.diff(), {4}, V{3.0, 5.0, 7.0, 9.0});
  EXPECT_VALUES(diff(y, 2), {3}, V{2.0, 2.0, 2.0});
  EXPECT_VALUES(diff(y, 5), {0}, V{});
  EXPECT_VALUES(diff(y, 0), {5}, V{1.0, 4.0, 9.0, 16.0, 25.0});
  Tensor yy = tensor({{1.0, 2.0, 4.0}, {7.0, 11.0, 16.0}}, o());
  EXPECT_VALUES(diff(yy, 1, 0, tensor({{0.0, 0.0, 0.0}}, o()), tensor({{1.0, 1.0, 1.0}}, o())), {3, 3},
                V{1.0, 2.0, 4.0, 6.0, 9.0, 12.0, -6.0, -10.0, -15.0});
  EXPECT_VALUES(yy.diff(2, 1, std::nullopt, tensor({{20.0}, {30.0}}, o())), {2, 2}, V{1.0, 14.0, 1.0, 9.0});
  Tensor bd = tensor({true, false, false, true}, o()).diff();
  EXPECT_EQ(bd.dtype(), kBool);
  EXPECT_VALUES(bd, {3}, V{1.0, 0.0, 1.0});
  Tensor ld = tensor({5, 7, 10}, o()).diff(1, -1, tensor({1}, o()));
  EXPECT_EQ(ld.dtype(), kLong);
  EXPECT_VALUES(ld, {3}, V{4.0, 2.0, 3.0});
  EXPECT_THROW_MSG(tensor(3.0, o()).diff(), Error,
                   "[diff] expects input to be at least one-dimensional, got a 0-D tensor.");
  EXPECT_THROW_MSG(y.diff(-1), Error, "[diff] order must be non-negative but got -1.");
  EXPECT_THROW_MSG(yy.diff(1, -1, tensor({1.0, 2.0}, o())), Error,
                   "[diff] expects prepend or append to be the same dimension as input, got 1-D and 2-D.");
  EXPECT_THROW_MSG(yy.diff(1, 1, std::nullopt, ones({3, 1}, o())), Error,
                   "[diff] expects the shape of tensor to prepend or append to match that of input except along "
                   "the differencing dimension; input.size(0) = 2, but got tensor.size(0) = 3.");
  gradcheck([](const Vs& v) { return v[0].diff(2, 0, v[1], v[2]); }, {sample({3, 2}), sample({1, 2}, 1.),
            sample({2, 2}, 2.)}, GetParam());
}

TEST_P(CompositeMore, DiagonalAndDiagEmbed) {
  Tensor t = arange(24.0, o()).view({2, 3, 4});
  Tensor d = t.diagonal(1, 1, 2);
  EXPECT_VALUES(d, {2, 3}, V{1.0, 6.0, 11.0, 13.0, 18.0, 23.0});
  EXPECT_TRUE(d.is_alias_of(t));  // a view
  EXPECT_VALUES(diagonal(t, -1, 2, 0), {3, 2}, V{1.0, 14.0, 5.0, 18.0, 9.0, 22.0});
  EXPECT_VALUES(diagonal(arange(12.0, o()).view({3, 4})), {3}, V{0.0, 5.0, 10.0});
  EXPECT_VALUES(ones({2, 3}, o()).diagonal(5), {0}, V{});
  EXPECT_THROW_MSG(ones({2, 3}, o()).diagonal(0, 1, -1), Error,
                   "[diagonal] diagonal dimensions cannot be identical 1, -1.");
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_VALUES(m.diag_embed(1), {2, 3, 3},
                V{0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0});
  EXPECT_VALUES(diag_embed(m, -1, 0, 2), {3, 2, 3},
                V{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 4.0, 0.0});
  EXPECT_VALUES(diag_embed(tensor({{1.0, 2.0, 3.0}}, o()), 0, 2, 0), {3, 1, 3},
                V{1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0});
  EXPECT_EQ(tensor({1, 2}, o()).diag_embed().dtype(), kLong);
  EXPECT_THROW_MSG(m.diag_embed(0, 1, 1), Error, "[diag_embed] diagonal dimensions cannot be identical 1, 1.");
  Vs g = grads([](const Vs& v) { return diag_embed(v[0], -1, 0, 2); }, {tensor({{0.5, -1.0}, {2.0, 3.0}})},
               GetParam());
  EXPECT_VALUES(g[0], {2, 2}, V{0.40921416967201774, -0.8266821782320363, -0.6353080477042756, 0.13638826994159764});
  gradcheck([](const Vs& v) { return v[0].diagonal(-1, 2, 0); }, {sample({2, 3, 4})}, GetParam());
  gradcheck([](const Vs& v) { return v[0].diag_embed(1, 1, 0); }, {sample({2, 3})}, GetParam());
}

TEST_P(CompositeMore, KronAndCross) {
  Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_VALUES(m.kron(tensor({{0.0, 1.0}, {1.0, 2.0}}, o())), {4, 4},
                V{0.0, 1.0, 0.0, 2.0, 1.0, 2.0, 2.0, 4.0, 0.0, 3.0, 0.0, 4.0, 3.0, 6.0, 4.0, 8.0});
  Tensor k = kron(tensor({1, 2}, o()), tensor({{1, 10}, {100, 1000}}, o()));
  EXPECT_EQ(k.dtype(), kLong);
  EXPECT_VALUES(k, {2, 4}, V{1.0, 10.0, 2.0, 20.0, 100.0, 1000.0, 200.0, 2000.0});
  Tensor kb = kron(tensor({true, false}, o()), tensor({true, true}, o()));
  EXPECT_EQ(kb.dtype(), kBool);
  EXPECT_VALUES(kb, {4}, V{1.0, 1.0, 0.0, 0.0});
  gradcheck([](const Vs& v) { return kron(v[0], v[1]); }, {sample({2, 3}), sample({3}, 1.)}, GetParam());

  Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o()), b = tensor({{7.0, 8.0, 9.0}, {1.0, 0.0, -1.0}}, o());
  EXPECT_VALUES(a.cross(b, 1), {2, 3}, V{-6.0, 12.0, -6.0, -5.0, 10.0, -5.0});
  EXPECT_VALUES(cross(a, b), {2, 3}, V{-6.0, 12.0, -6.0, -5.0, 10.0, -5.0});  // the first dim of size 3
  EXPECT_VALUES(cross(a.t(), b.t(), 0), {3, 2}, V{-6.0, -5.0, 12.0, 10.0, -6.0, -5.0});
  EXPECT_VALUES(cross(a, tensor({{0.0, 0.0, 1.0}}, o()), 1), {2, 3}, V{2.0, -1.0, 0.0, 5.0, -4.0, 0.0});
  EXPECT_THROW_MSG(cross(ones({2, 4}, o()), ones({2, 4}, o())), Error,
                   "[cross] no dimension of size 3 in input [2, 4]; pass dim explicitly.");
  EXPECT_THROW_MSG(cross(ones({3, 4}, o()), ones({3, 4}, o()), 1), Error,
                   "[cross] inputs dimension 1 must have length 3. Got 4 and 4.");
  EXPECT_THROW_MSG(cross(ones({3, 4}, o()), ones({3}, o()), 0), Error,
                   "[cross] inputs must have the same number of dimensions, got 2-D and 1-D.");
  EXPECT_THROW_MSG(cross(ones({3}, o()), ones({3}, o().dtype(kLong))), Error,
                   "[cross] expected both inputs to have the same dtype, but got float32 and int64");
  gradcheck([](const Vs& v) { return cross(v[0], v[1], 0); }, {sample({3, 2}), sample({3, 1}, 1.)}, GetParam());
}

TEST_P(CompositeMore, Tensordot) {
  Tensor a = arange(24.0, o()).view({2, 3, 4}), b = arange(12.0, o()).view({4, 3});
  EXPECT_VALUES(tensordot(a, b, {1, 2}, {1, 0}), {2}, V{440.0, 1232.0});
  EXPECT_VALUES(tensordot(a, b, {2}, {0}), {2, 3, 3},
                V{42.0, 48.0, 54.0, 114.0, 136.0, 158.0, 186.0, 224.0, 262.0, 258.0, 312.0, 366.0, 330.0, 400.0,
                  470.0, 402.0, 488.0, 574.0});
  EXPECT_VALUES(tensordot(arange(6.0, o()).view({2, 3}), arange(4.0, o()).view({1, 4}), {0}, {0}), {3, 4},
                V{0.0, 3.0, 6.0, 9.0, 0.0, 5.0, 10.0, 15.0, 0.0, 7.0, 14.0, 21.0});
  EXPECT_VALUES(tensordot(tensor({1.0, 2.0}, o()), tensor({3.0, 4.0, 5.0}, o()), {}, {}), {2, 3},
                V{3.0, 4.0, 5.0, 6.0, 8.0, 10.0});
  Tensor li = tensordot(tensor({{1, 2}, {3, 4}}, o()), tensor({5, 6}, o()), {1}, {0});
  EXPECT_EQ(li.dtype(), kLong);
  EXPECT_VALUES(li, {2}, V{17.0, 39.0});
  EXPECT_THROW_MSG(tensordot(ones({2, 3}, o()), ones({4, 5}, o()), {1}, {0}), Error,
                   "[tensordot] contracted dimensions need to match, but first has size 3 in dim 1 and second has "
                   "size 4 in dim 0.");
  EXPECT_THROW_MSG(tensordot(ones({2, 3}, o()), ones({3, 5}, o()), {1, 0}, {0}), Error,
                   "[tensordot] both dimension lists should have same length, got [1, 0] and [0].");
  EXPECT_THROW_MSG(tensordot(ones({2, 3}, o()), ones({3, 3}, o()), {1, 1}, {0, 1}), Error,
                   "[tensordot] dim 1 appears multiple times in the list of dims.");
  EXPECT_THROW_MSG(tensordot(ones({2, 3}, o()), ones({3, 5}, o().dtype(kDouble)), {1}, {0}), Error,
                   "[tensordot] expected both tensors to have the same dtype, but got float32 and float64");
  gradcheck([](const Vs& v) { return tensordot(v[0], v[1], {0, 2}, {1, 0}); }, {sample({3, 2, 2}),
            sample({2, 3, 2}, 1.)}, GetParam());
}

TEST_P(CompositeMore, Pdist) {  // values and gradient from PyTorch 1.13's torch.pdist
  Tensor x = tensor({{0.0, 1.0, 2.0}, {1.0, -1.0, 0.5}, {0.0, 1.0, 2.0}, {2.0, 0.0, 0.0}}, o());  // rows 0, 2 equal
  EXPECT_VALUES(pdist(x), {6}, V{2.692582368850708, 0.0, 3.0, 2.692582368850708, 1.5, 3.0});
  EXPECT_VALUES(nn::functional::pdist(x, 1), {6}, V{4.5, 0.0, 5.0, 4.5, 2.5, 5.0});
  EXPECT_VALUES(pdist(x, 0), {6}, V{3.0, 0.0, 3.0, 3.0, 3.0, 3.0});
  EXPECT_VALUES(pdist(x, inf), {6}, V{2.0, 0.0, 2.0, 2.0, 1.0, 2.0});
  EXPECT_VALUES(pdist(x, 3), {6},
                V{2.313032388687134, 0.0, 2.571281671524048, 2.313032388687134, 1.285640835762024, 2.571281671524048});
  Tensor xd = x.to(kDouble).requires_grad_();
  (pdist(xd) * arange(1.0, 7.0, o().dtype(kDouble))).sum().backward();
  EXPECT_VALUES(xd.grad(), {4, 3},
                V{-2.3713906763541037, 1.7427813527082074, 2.557086014531156, -1.4763799515628149, -7.04724009687437,
                  -1.1187634059891114, -5.485562705416415, 4.97112541083283, 6.228344058124622, 9.333333333333334,
                  0.3333333333333335, -7.666666666666667});
  EXPECT_EQ(pdist(ones({1, 3}, o())).sizes(), IntArrayRef({0}));
  EXPECT_THROW_MSG(pdist(ones({2, 2, 2}, o())), Error, "[pdist] only supports 2D tensors, got: 3D.");
  EXPECT_THROW_MSG(pdist(ones({2, 2}, o().dtype(kLong))), Error, "[pdist] only supports floating-point dtypes, got: int64.");
  EXPECT_THROW_MSG(pdist(x, -1), Error, "[pdist] only supports non-negative p values, got -1");
}

TEST_P(CompositeMore, Cdist) {
  Tensor x1 = tensor({{0.0, 1.0, 2.0}, {1.0, -1.0, 0.5}}, o());
  Tensor x2 = tensor({{0.0, 1.0, 2.0}, {2.0, 0.0, 0.0}, {-1.0, 1.0, 1.0}}, o());
  EXPECT_VALUES(cdist(x1, x2), {2, 3}, V{0.0, 3.0, 1.4142135381698608, 2.692582368850708, 1.5, 2.872281312942505});
  EXPECT_VALUES(cdist(x1, x2, 1), {2, 3}, V{0.0, 5.0, 2.0, 4.5, 2.5, 4.5});
  EXPECT_VALUES(cdist(x1, x2, 0), {2, 3}, V{0.0, 3.0, 2.0, 3.0, 3.0, 3.0});
  EXPECT_VALUES(cdist(x1, x2, inf), {2, 3}, V{0.0, 2.0, 1.0, 2.0, 1.0, 2.0});
  EXPECT_VALUES(cdist(x1, x2, 0.5), {2, 3},
                V{0.0, 14.656855583190918, 4.0, 13.242018699645996, 7.328427314758301, 12.5});
  EXPECT_VALUES(cdist(x1, x2, 3), {2, 3},
                V{0.0, 2.571281671524048, 1.2599210739135742, 2.313032388687134, 1.285640835762024,
                  2.5263872146606445});
  EXPECT_VALUES(cdist(stack({x1, x1 * 2}), x2.unsqueeze(0)), {2, 2, 3},
                V{0.0, 3.0, 1.4142135381698608, 2.692582368850708, 1.5, 2.872281312942505, 2.2360680103302,
                  4.898979663848877, 3.316624879837036, 3.7416574954986572, 2.2360680103302, 4.242640495300293});
  // gradients, with a zero distance among the pairs (PyTorch gives it a zero gradient)
  const std::vector<std::pair<double, std::pair<V, V>>> want = {
      {2.0,
       {V{0.15921765486483286, 0.254776312341835, 1.1783229042321728, 0.2548864631360559, -1.849242382720646,
          -0.3746969305814333},
        V{-0.37110531254217677, 0.7422106250843535, 0.5566579688132651, 1.1211779282048766, 0.3568489911793716,
          -0.8153652764442734, -1.1641767336635886, 0.4954064541150857, -0.5449186660197315}}},
      {1.0,
       {V{0.18145506242403386, 0.7643289370255051, 1.710112936475044, 0.793267031930425, -2.6281429424940446,
          -0.793267031930425},
        V{-0.9992316344213905, 0.9992316344213905, 0.9992316344213905, 1.6817668923073148, 0.15310901825630474,
          -1.6817668923073148, -1.6572573522403833, 0.7114733527908443, -0.2343106466586946}}},
      {3.0,
       {V{0.13338189654928018, 0.11560617205770936, 1.058231273010955, 0.07759216278112807, -1.7480100305192265,
          -0.30933158444857184},
        V{-0.18676810101273847, 0.7470724040509539, 0.4202282272786615, 1.0174814705807789, 0.43945061029223215,
          -0.6011888838183228, -1.0416874288984488, 0.4458808441183311, -0.5679390320227219}}},
      {0.5,
       {V{-0.17755204957977222, 2.9261776347368658, 3.960688047377928, 2.9312432552779915, -6.83344097080926,
          -3.0139365643948968},
        V{-3.6361623833621883, 2.571155078770842, 2.968914153713238, 4.552722558540157, -0.44257512467555804,
          -5.581464401751413, -3.6702513808761887, 1.7786833819771108, 1.6657987650551438}}}};
  for (const auto& [p, g] : want) {
    SCOPED_TRACE("p = " + std::to_string(p));
    Vs got = grads([p = p](const Vs& v) { return cdist(v[0], v[1], p); }, {x1.cpu(), x2.cpu()}, GetParam());
    EXPECT_VALUES(got[0], {2, 3}, g.first);
    EXPECT_VALUES(got[1], {3, 3}, g.second);
  }
  // the matmul form (more than 25 rows, or compute_mode 1) against the direct one (compute_mode 2)
  Tensor big = (arange(90.0, o()) * 0.37).sin().view({30, 3});
  Tensor direct = cdist(big, x2, 2, 2);
  EXPECT_TRUE(cdist(big, x2).allclose(direct, 1e-4, 1e-4));
  EXPECT_TRUE(cdist(x1, x2, 2, 1).allclose(cdist(x1, x2, 2, 2), 1e-4, 1e-4));
  EXPECT_VALUES(cdist(x1, x2, 2, 1), {2, 3}, V{0.0, 3.0, 1.4142135381698608, 2.692582368850708, 1.5, 2.872281312942505},
                1e-4);
  Vs gm = grads([](const Vs& v) { return cdist(v[0], v[1], 2, 1); }, {x1.cpu(), x2.cpu()}, GetParam());
  EXPECT_VALUES(gm[0], {2, 3}, want[0].second.first);
  EXPECT_VALUES(gm[1], {3, 3}, want[0].second.second);
  gradcheck([](const Vs& v) { return cdist(v[0], v[1]); }, {sample({27, 2}), sample({3, 2}, 1.)}, GetParam());
  EXPECT_THROW_MSG(cdist(ones({2, 3}, o()), ones({4, 4}, o())), Error,
                   "[cdist] X1 and X2 must have the same number of columns. X1: 3 X2: 4.");
  EXPECT_THROW_MSG(cdist(ones({3}, o()), ones({4, 3}, o())), Error,
                   "[cdist] only supports at least 2D tensors, X1 got: 1D.");
  EXPECT_THROW_MSG(cdist(ones({2, 3}, o()), ones({4, 3}, o()), -1), Error,
                   "[cdist] only supports non-negative p values, got -1");
  EXPECT_THROW_MSG(cdist(ones({2, 3}, o().dtype(kLong)), ones({4, 3}, o().dtype(kLong))), Error,
                   "[cdist] only supports floating-point dtypes, X1 got: int64.");
  EXPECT_THROW_MSG(cdist(ones({2, 3}, o().dtype(kDouble)), ones({4, 3}, o())), Error,
                   "[cdist] expected both inputs to have the same dtype, but got float64 and float32.");
  EXPECT_THROW_MSG(cdist(ones({2, 3}, o()), ones({4, 3}, o()), 2, 3), Error,
                   "[cdist] possible modes: None, 0, 1, 2, but was: 3.");
}

TEST_P(CompositeMore, Factories) {
  EXPECT_VALUES(logspace(0, 2, 3, 10.0, o()), {3}, V{1.0, 10.0, 100.0});
  EXPECT_VALUES(logspace(-1, 3, 5, 2, o()), {5}, V{0.5, 1.0, 2.0, 4.0, 8.0});
  Tensor ll = logspace(0, 2, 3, 10.0, o().dtype(kLong));
  EXPECT_EQ(ll.dtype(), kLong);
  EXPECT_EQ(ll.device(), GetParam());
  EXPECT_VALUES(ll, {3}, V{1.0, 10.0, 100.0});
  EXPECT_VALUES(logspace(1, 5, 1, 2.0, o()), {1}, V{2.0});
  EXPECT_VALUES(logspace(0, 1, 0, 10.0, o()), {0}, V{});
  EXPECT_THROW_MSG(logspace(0, 2, -1, 10.0, o()), Error, "[logspace] number of steps must be non-negative, got -1.");
  Tensor tl = tril_indices(3, 4, 1, o().dtype(kLong));
  EXPECT_EQ(tl.dtype(), kLong);
  EXPECT_EQ(tl.device(), GetParam());
  EXPECT_VALUES(tl, {2, 9},
                V{0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 0.0, 1.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0});
  EXPECT_VALUES(triu_indices(4, 3, -1, o().dtype(kLong)), {2, 9},
                V{0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 1.0, 2.0, 2.0});
  EXPECT_VALUES(tril_indices(3, 3, -1), {2, 3}, V{1.0, 2.0, 2.0, 0.0, 0.0, 1.0});
  EXPECT_EQ(tril_indices(3, 3, 0, o().dtype(kInt)).dtype(), kInt);
  EXPECT_THROW_MSG(tril_indices(-1, 3), Error, "[tril_indices] row must be non-negative, got -1.");
  EXPECT_THROW_MSG(triu_indices(3, 3, 0, o().dtype(kFloat)), Error,
                   "[triu_indices] not implemented for float32; the indices need an integer dtype");
  Tensor r = randint_like(ones({200}, o()), 3);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(r.device(), GetParam());
  V rv = values(r);
  EXPECT_EQ(*std::min_element(rv.begin(), rv.end()), 0.0);
  EXPECT_EQ(*std::max_element(rv.begin(), rv.end()), 2.0);
  for (double x : rv) EXPECT_EQ(x, std::floor(x));
}

TEST_P(CompositeMore, VarMeanStdMeanAminmax) {
  Tensor x = tensor({{1.0, 2.0, 4.0}, {3.0, 5.0, 9.0}}, o());
  auto [v, m] = var_mean(x);
  EXPECT_VALUES(v, {}, V{8.0});
  EXPECT_VALUES(m, {}, V{4.0});
  auto [v1, m1] = var_mean(x, {1}, false);
  EXPECT_VALUES(v1, {2}, V{1.5555555820465088, 6.222222328186035});
  EXPECT_VALUES(m1, {2}, V{2.3333332538604736, 5.666666507720947});
  auto [v2, m2] = var_mean(x, {0}, Scalar(0), true);
  EXPECT_VALUES(v2, {1, 3}, V{1.0, 2.25, 6.25});
  EXPECT_VALUES(m2, {1, 3}, V{2.0, 3.5, 6.5});
  EXPECT_VALUES(std::get<0>(var_mean(x, true)), {}, V{8.0});
  auto [s, sm] = std_mean(x);
  EXPECT_VALUES(s, {}, V{2.8284270763397217});
  EXPECT_VALUES(sm, {}, V{4.0});
  auto [s0, sm0] = std_mean(x, {0});
  EXPECT_VALUES(s0, {3}, V{1.4142135381698608, 2.1213202476501465, 3.535533905029297});
  EXPECT_VALUES(sm0, {3}, V{2.0, 3.5, 6.5});
  EXPECT_VALUES(std::get<0>(std_mean(x, {0}, Scalar(0), false)), {3}, V{1.0, 1.5, 2.5});
  EXPECT_VALUES(std::get<1>(std_mean(x, false)), {}, V{4.0});
  gradcheck([](const Vs& t) { auto [a, b] = var_mean(t[0], {1}, true, true); return a + b * 2; }, {sample({2, 3})},
            GetParam());

  Tensor am = tensor({{1.0, 5.0, -2.0}, {3.0, 2.0, 8.0}}, o());
  auto [lo, hi] = am.aminmax();
  EXPECT_VALUES(lo, {}, V{-2.0});
  EXPECT_VALUES(hi, {}, V{8.0});
  auto [lo1, hi1] = aminmax(am, 1, true);
  EXPECT_VALUES(lo1, {2, 1}, V{-2.0, 2.0});
  EXPECT_VALUES(hi1, {2, 1}, V{5.0, 8.0});
  auto [lo0, hi0] = aminmax(am, 0);
  EXPECT_VALUES(lo0, {3}, V{1.0, 2.0, -2.0});
  EXPECT_VALUES(hi0, {3}, V{3.0, 5.0, 8.0});
  EXPECT_VALUES(std::get<1>(aminmax(tensor(3.0, o()), 0, true)), {1}, V{3.0});
  EXPECT_VALUES(std::get<0>(aminmax(ones({2, 0}, o()), 0)), {0}, V{});
  EXPECT_THROW_MSG(aminmax(ones({0}, o())), Error,
                   "[aminmax] cannot compute aminmax over an empty dimension as the operation has no identity.");
  EXPECT_THROW_MSG(aminmax(ones({2, 0}, o()), 1), Error, "[aminmax] expected reduction dim 1 to have non-zero size.");
}

TEST_P(CompositeMore, CummaxCummin) {
  Tensor x = tensor({1.0, 3.0, 3.0, 2.0, kNaN, 5.0, kNaN, 1.0}, o());
  auto [mx, imx] = x.cummax(0);
  EXPECT_VALUES(mx, {8}, V{1.0, 3.0, 3.0, 3.0, kNaN, kNaN, kNaN, kNaN});
  EXPECT_EQ(imx.dtype(), kLong);
  EXPECT_VALUES(imx, {8}, V{0.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0});  // ties: the last index
  auto [mn, imn] = cummin(x, -1);
  EXPECT_VALUES(mn, {8}, V{1.0, 1.0, 1.0, 1.0, kNaN, kNaN, kNaN, kNaN});
  EXPECT_VALUES(imn, {8}, V{0.0, 0.0, 0.0, 0.0, 4.0, 4.0, 6.0, 6.0});
  Tensor c = tensor({{2, 1, 2, 3, 0}, {5, 5, 4, 6, 6}}, o());
  auto [cv, ci] = cummax(c, 1);
  EXPECT_EQ(cv.dtype(), kLong);
  EXPECT_VALUES(cv, {2, 5}, V{2.0, 2.0, 2.0, 3.0, 3.0, 5.0, 5.0, 5.0, 6.0, 6.0});
  EXPECT_VALUES(ci, {2, 5}, V{0.0, 0.0, 2.0, 3.0, 3.0, 0.0, 1.0, 1.0, 3.0, 4.0});
  auto [dv, di] = c.cummin(0);
  EXPECT_VALUES(dv, {2, 5}, V{2.0, 1.0, 2.0, 3.0, 0.0, 2.0, 1.0, 2.0, 3.0, 0.0});
  EXPECT_VALUES(di, {2, 5}, V{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
  auto [bv, bi] = tensor({true, false, true}, o()).cummax(0);
  EXPECT_EQ(bv.dtype(), kBool);
  EXPECT_VALUES(bv, {3}, V{1.0, 1.0, 1.0});
  EXPECT_VALUES(bi, {3}, V{0.0, 0.0, 2.0});
  auto [sv, si] = tensor(5.0, o()).cummax(0);
  EXPECT_VALUES(sv, {}, V{5.0});
  EXPECT_VALUES(si, {}, V{0.0});
  EXPECT_VALUES(std::get<1>(ones({0, 2}, o()).cummin(0)), {0, 2}, V{});
  // longer than a few scan steps, against a running maximum computed here
  Tensor r = (arange(37.0, o()) * 1.7).sin();
  V rv = values(r), want_v, want_i;
  for (size_t i = 0; i < rv.size(); ++i) {
    if (i == 0 || rv[i] >= want_v.back()) want_v.push_back(rv[i]), want_i.push_back(static_cast<double>(i));
    else want_v.push_back(want_v.back()), want_i.push_back(want_i.back());
  }
  EXPECT_VALUES(std::get<0>(r.cummax(0)), {37}, want_v);
  EXPECT_VALUES(std::get<1>(r.cummax(0)), {37}, want_i);
  Tensor cg = tensor({{0.5, 2.0, 2.0, -1.0, 3.0}, {1.0, 0.0, 4.0, 4.0, 4.0}});
  EXPECT_VALUES(grads([](const Vs& v) { return std::get<0>(v[0].cummax(1)); }, {cg}, GetParam())[0], {2, 5},
                V{0.479425538604203, 0.7643289370255051, 1.9450156338709295, 0.0, 0.9174379552818098,
                  1.120687522462862, 0.0, 0.05156976839853464, -0.3130543591029702, -0.6353080477042756});
  EXPECT_VALUES(grads([](const Vs& v) { return std::get<0>(v[0].cummin(1)); }, {cg}, GetParam())[0], {2, 5},
                V{2.189538475079247, 0.0, 0.0, 1.9166695897032002, 0.0, 0.7114733527908443, -0.4875784687366934,
                  0.0, 0.0, 0.0});
}

TEST_P(CompositeMore, Logcumsumexp) {
  EXPECT_VALUES(tensor({0.5, -1.0, 2.0, 0.0, 3.0, -2.0, 1.0}, o()).logcumsumexp(0), {7},
                V{0.5, 0.7014132738113403, 2.2413113117218018, 2.3423495292663574, 3.41743803024292,
                  3.4218666553497314, 3.5069022178649902});
  EXPECT_VALUES(logcumsumexp(tensor({-1000.0, 0.0, -inf, 1000.0}, o()), 0), {4}, V{-1000.0, 0.0, 0.0, 1000.0});
  EXPECT_VALUES(logcumsumexp(tensor({-inf, -inf, 1.0}, o()), 0), {3}, V{-inf, -inf, 1.0});
  EXPECT_VALUES(logcumsumexp(tensor({{1.0, 2.0}, {3.0, -4.0}, {0.0, 0.0}}, o()), 0), {3, 2},
                V{1.0, 2.0, 3.1269280910491943, 2.0024757385253906, 3.1698460578918457, 2.1291089057922363});
  EXPECT_VALUES(logcumsumexp(tensor(2.0, o()), 0), {}, V{2.0});
  EXPECT_THROW_MSG(tensor({1, 2}, o()).logcumsumexp(0), Error,
                   "[logcumsumexp] expected a floating-point input, got int64; convert it with .to(kFloat) first.");
  Tensor cg = tensor({{0.5, 2.0, 2.0, -1.0, 3.0}, {1.0, 0.0, 4.0, 4.0, 4.0}});
  EXPECT_VALUES(grads([](const Vs& v) { return v[0].logcumsumexp(1); }, {cg}, GetParam())[0], {2, 5},
                V{0.8528921253675602, 1.6737611200338007, 1.048865289705529, 0.031039066106900964,
                  0.4996504635686559, 0.9951909359020182, 0.10437386592545081, -0.3101597790497071,
                  -0.35844143590552635, -0.20706870281808407});
}

TEST_P(CompositeMore, RotAndFlips) {
  Tensor r = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, o());
  EXPECT_VALUES(r.rot90(), {3, 2}, V{3.0, 6.0, 2.0, 5.0, 1.0, 4.0});
  EXPECT_VALUES(rot90(r, 2), {2, 3}, V{6.0, 5.0, 4.0, 3.0, 2.0, 1.0});
  EXPECT_VALUES(rot90(r, 3), {3, 2}, V{4.0, 1.0, 5.0, 2.0, 6.0, 3.0});
  EXPECT_VALUES(rot90(r, -1), {3, 2}, V{4.0, 1.0, 5.0, 2.0, 6.0, 3.0});
  EXPECT_VALUES(rot90(r, 4), {2, 3}, V{1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
  EXPECT_VALUES(rot90(arange(8.0, o()).view({2, 2, 2}), 1, {2, 0}), {2, 2, 2},
                V{4.0, 0.0, 6.0, 2.0, 5.0, 1.0, 7.0, 3.0});
  EXPECT_THROW_MSG(rot90(r, 1, {0, 0}), Error,
                   "[rot90] expected rotation dims to be different, but got dim0 = 0 and dim1 = 0.");
  EXPECT_THROW_MSG(rot90(r, 1, {0}), Error, "[rot90] expected total rotation dims == 2, but got dims = 1.");
  EXPECT_THROW_MSG(rot90(ones({2}, o())), Error, "[rot90] expected total dims >= 2, but got total dims = 1.");
  EXPECT_VALUES(r.fliplr(), {2, 3}, V{3.0, 2.0, 1.0, 6.0, 5.0, 4.0});
  EXPECT_VALUES(flipud(r), {2, 3}, V{4.0, 5.0, 6.0, 1.0, 2.0, 3.0});
  EXPECT_THROW_MSG(fliplr(ones({2}, o())), Error, "[fliplr] input must be >= 2-d, got 1-d.");
  EXPECT_THROW_MSG(tensor(2.0, o()).flipud(), Error, "[flipud] input must be >= 1-d, got 0-d.");
  gradcheck([](const Vs& v) { return v[0].rot90(1) * 2 + v[0].rot90(3).flipud(); }, {sample({2, 2})}, GetParam());
}

TEST_P(CompositeMore, AtleastAndStacks) {
  Tensor s = tensor(5.0, o()), v = tensor({1.0, 2.0}, o()), m = tensor({{1.0, 2.0}, {3.0, 4.0}}, o());
  EXPECT_VALUES(atleast_1d(s), {1}, V{5.0});
  EXPECT_TRUE(atleast_1d(v).is_same(v));
  EXPECT_VALUES(atleast_2d(s), {1, 1}, V{5.0});
  EXPECT_VALUES(atleast_2d(v), {1, 2}, V{1.0, 2.0});
  EXPECT_TRUE(atleast_2d(m).is_same(m));
  EXPECT_VALUES(atleast_3d(s), {1, 1, 1}, V{5.0});
  EXPECT_VALUES(atleast_3d(v), {1, 2, 1}, V{1.0, 2.0});
  EXPECT_VALUES(atleast_3d(m), {2, 2, 1}, V{1.0, 2.0, 3.0, 4.0});
  Vs l = atleast_2d(Vs{s, v});
  EXPECT_VALUES(l[1], {1, 2}, V{1.0, 2.0});
  EXPECT_EQ(atleast_1d(Vs{s, v}).size(), 2u);
  EXPECT_EQ(atleast_3d(Vs{m})[0].dim(), 3);

  EXPECT_VALUES(block_diag({m, tensor(7, o()), tensor({8.0, 9.0, 10.0}, o())}), {4, 6},
                V{1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0,
                  0.0, 0.0, 0.0, 8.0, 9.0, 10.0});
  Tensor bi = block_diag({tensor({{1, 2}}, o()), tensor({{3}, {4}}, o())});
  EXPECT_EQ(bi.dtype(), kLong);
  EXPECT_VALUES(bi, {3, 3}, V{1.0, 2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 4.0});
  EXPECT_EQ(block_diag({tensor({1}, o().dtype(kInt)), tensor(2, o())}).dtype(), kInt);
  EXPECT_EQ(block_diag({}).sizes(), IntArrayRef({1, 0}));
  EXPECT_THROW_MSG(block_diag({ones({2, 2, 2}, o())}), Error,
                   "[block_diag] input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions.");
  gradcheck([](const Vs& t) { return block_diag(t); }, {sample({2, 2}), sample({3}, 1.)}, GetParam());

  Tensor h2 = tensor({3.0, 4.0}, o());
  EXPECT_VALUES(hstack({v, h2}), {4}, V{1.0, 2.0, 3.0, 4.0});
  EXPECT_VALUES(hstack({m, m}), {2, 4}, V{1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0});
  EXPECT_VALUES(vstack({v, h2}), {2, 2}, V{1.0, 2.0, 3.0, 4.0});
  EXPECT_VALUES(row_stack({v, h2}), {2, 2}, V{1.0, 2.0, 3.0, 4.0});
  EXPECT_VALUES(dstack({v, h2}), {1, 2, 2}, V{1.0, 3.0, 2.0, 4.0});
  EXPECT_VALUES(column_stack({v, m, tensor({5.0, 6.0}, o())}), {2, 4}, V{1.0, 1.0, 2.0, 5.0, 2.0, 3.0, 4.0, 6.0});
  EXPECT_THROW_MSG(hstack({}), Error, "[hstack] expects a non-empty TensorList.");
  EXPECT_THROW_MSG(vstack({}), Error, "[vstack] expects a non-empty TensorList.");
  EXPECT_THROW_MSG(dstack({}), Error, "[dstack] expects a non-empty TensorList.");
  EXPECT_THROW_MSG(column_stack({}), Error, "[column_stack] expects a non-empty TensorList.");
  EXPECT_THROW_MSG(row_stack({}), Error, "[row_stack] expects a non-empty TensorList.");
}

TEST_P(CompositeMore, Trapezoid) {
  Tensor y = tensor({{1.0, 4.0, 9.0, 16.0}, {2.0, 3.0, 5.0, 7.0}}, o());
  EXPECT_VALUES(trapezoid(y), {2}, V{21.5, 12.5});
  EXPECT_VALUES(trapezoid(y, 0.5), {2}, V{10.75, 6.25});
  EXPECT_VALUES(trapezoid(y, tensor({0.0, 1.0, 3.0, 6.0}, o())), {2}, V{53.0, 28.5});
  EXPECT_VALUES(trapezoid(y, tensor({{0.0, 1.0, 2.0, 3.0}, {1.0, 3.0, 2.0, 5.0}}, o()), 0), {4},
                V{1.5, 7.0, 0.0, 23.0});
  Tensor tl = trapezoid(tensor({1, 2, 3}, o()));
  EXPECT_EQ(tl.dtype(), kFloat);
  EXPECT_VALUES(tl, {}, V{4.0});
  EXPECT_VALUES(trapz(y, 2.0, 0), {4}, V{3.0, 7.0, 14.0, 23.0});
  EXPECT_VALUES(trapz(y, tensor({0.0, 1.0, 3.0, 6.0}, o())), {2}, V{53.0, 28.5});
  EXPECT_VALUES(trapezoid(ones({3, 0}, o())), {3}, V{0.0, 0.0, 0.0});
  EXPECT_THROW_MSG(trapezoid(ones({3}, o()), ones({2}, o())), Error,
                   "[trapezoid] there must be one `x` value for each sample point: x has 2 but y has 3 along dim 0.");
  EXPECT_THROW_MSG(trapezoid(y, Scalar(true)), Error, "[trapezoid] currently, we only support dx as a real number.");
  EXPECT_THROW_MSG(trapezoid(tensor({true, false}, o())), Error,
                   "[trapezoid] received a bool input for `x` or `y`, but bool is not supported");
  Vs g = grads([](const Vs& v) { return trapezoid(v[0], v[1]); },
               {y.cpu(), tensor({0.0, 1.0, 3.0, 6.0})}, GetParam());
  EXPECT_VALUES(g[0], {2, 4}, V{0.2397127693021015, 0.7191383079063045, 1.1985638465105075, 0.7191383079063045,
                                0.38216446851275254, 1.1464934055382576, 1.9108223425637627, 1.1464934055382576});
  EXPECT_VALUES(g[1], {4}, V{-3.1093861890742702, -3.06419555995507, -4.405211105676228, 10.578792854705569});
  gradcheck([](const Vs& v) { return trapezoid(v[0], Scalar(0.3), 0); }, {sample({3, 2})}, GetParam());
}

// Each accelerator against cpu (CI has two OpenCL devices, so this runs there).
TEST(CompositeMoreDevices, MismatchNamesTheArgument) {
  int checked = 0;
  for (const Device& d : test_devices()) {
    if (d.is_cpu()) continue;
    SCOPED_TRACE(d.str());
    Tensor s = ones({3}, device(d)), c = ones({3});
    EXPECT_THROW_MSG(broadcast_tensors({s, c}), DeviceMismatchError, "[broadcast_tensors] Expected all tensors");
    EXPECT_THROW_MSG(meshgrid({s, c}), DeviceMismatchError, "[meshgrid] Expected all tensors");
    EXPECT_THROW_MSG(s.diff(1, 0, c), DeviceMismatchError, "Argument 'prepend' is on cpu");
    EXPECT_THROW_MSG(s.kron(c), DeviceMismatchError, "Argument 'other' is on cpu");
    EXPECT_THROW_MSG(s.cross(c), DeviceMismatchError, "Argument 'other' is on cpu");
    EXPECT_THROW_MSG(tensordot(s, c, {0}, {0}), DeviceMismatchError, "Argument 'other' is on cpu");
    EXPECT_THROW_MSG(cdist(ones({2, 3}, device(d)), ones({2, 3})), DeviceMismatchError,
                     "Argument 'x2' is on cpu");
    EXPECT_THROW_MSG(block_diag({s, c}), DeviceMismatchError, "[block_diag] Expected all tensors");
    EXPECT_THROW_MSG(trapezoid(s, c), DeviceMismatchError, "Argument 'x' is on cpu");
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "needs a device besides cpu (CI exposes two OpenCL devices)";
}

LOCUS_INSTANTIATE_DEVICES(CompositeMore);

}  // namespace composite_more_test
