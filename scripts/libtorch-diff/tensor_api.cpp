// scripts/libtorch-diff: The Tensor API around the math: indexing (Slice, Ellipsis, None, masks, index_put_),
// accessors, from_blob, options and metadata queries, in-place view ops, linalg and special functions.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
template <class... T> void show(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (show(x), ...); }, t); }
template <class T> void show(const std::vector<T>& v) { for (auto& x : v) show(x); }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
using namespace torch::indexing;
int main() {
  auto a = torch::arange(24).reshape({2, 3, 4}).to(torch::kFloat) / 4 - 2;
  auto m = torch::arange(12).reshape({3, 4}).to(torch::kFloat) / 3 - 1;
  // indexing
  P(a.index({0})); P(a.index({Slice(), 1})); P(a.index({Ellipsis, 2})); P(a.index({None, 0, Slice(1, None)}).sizes());
  P(a.index({Slice(None, None, 2), Slice(1, 3), Slice(None, -1)})); P(a.index({1, -1, -1})); P(a.index({a > 1}));
  P(a.index({torch::tensor({1, 0}), torch::tensor({2, 0})})); P(a.index({Slice(), torch::tensor({0, 2})}));
  P(m.index({m.sum(1) > 0})); P(a.index({0, Ellipsis, None}).sizes()); P(a.index({"..."}).sizes());
  {
    auto b = m.clone();
    b.index_put_({0}, 5); P(b);
    b.index_put_({Slice(), 1}, torch::tensor({7.f, 8.f, 9.f})); P(b);
    b.index_put_({b > 4}, -1); P(b);
    b.index_put_({torch::tensor({0, 2}), torch::tensor({3, 3})}, torch::tensor({1.5f, 2.5f})); P(b);
    b.index_put_({Ellipsis, 0}, 0.25); P(b);
    b.index_put_({torch::tensor({0, 0}), torch::tensor({1, 1})}, torch::tensor({1.f, 2.f}), true); P(b);
    auto c = torch::zeros({4}); c.index_put_({torch::tensor({0, 0, 3})}, torch::tensor({1.f, 1.f, 2.f}), true); P(c);
    b.index({Slice(0, 2), Slice(0, 2)}).mul_(10); P(b);
    b.index_fill_(0, torch::tensor({1}), 3); P(b);
  }
  // accessors, data pointers, from_blob
  {
    auto acc = m.accessor<float, 2>();
    float s = 0; for (int64_t r = 0; r < acc.size(0); ++r) for (int64_t c = 0; c < acc.size(1); ++c) s += acc[r][c] * (r + 1);
    P(s); P(acc.stride(0)); P(acc.sizes()[1]);
    auto t = m.t(); auto ta = t.accessor<float, 2>(); P(ta[1][2]);
    auto i = torch::arange(6).reshape({2, 3}); auto ia = i.accessor<int64_t, 2>(); P(ia[1][1]);
    float buf[6] = {1, 2, 3, 4, 5, 6};
    auto f = torch::from_blob(buf, {2, 3}); P(f); buf[0] = 10; P(f[0][0].item<float>());
    auto g = torch::from_blob(buf, {3, 2}, {1, 3}); P(g);
    auto h = torch::from_blob(buf, {2}, torch::TensorOptions().dtype(torch::kFloat32)); P(h);
    P(m.data_ptr<float>()[5]); P(*m[2][3].data_ptr<float>());
  }
  // metadata and options
  {
    auto i = torch::arange(6, torch::kInt).reshape({2, 3});
    P(m.options()); P(i.options().dtype()); P(m.element_size()); P(i.nbytes()); P(m.sizes().vec()); P(m.strides());
    P(m.t().is_contiguous()); P(m.t().contiguous().strides()); P(m.storage_offset()); P(m[1].storage_offset()); P(m.is_floating_point());
    P(i.is_floating_point()); P(m.is_signed()); P(m.defined()); P(torch::Tensor().defined()); P(m.ndimension()); P(m.size(-1));
    P(m.scalar_type()); P(m.requires_grad()); P(m.is_leaf()); P(m.is_cuda()); P(m.is_sparse()); P(m.layout()); P(m.itemsize());
    P(torch::ones({2}, torch::dtype(torch::kFloat64).requires_grad(true)).requires_grad());
    P(torch::zeros({2}, torch::TensorOptions().dtype(torch::kLong))); P(torch::empty({2, 2}).fill_(3)); P(i.is_same(i)); P(m.use_count() > 0);
    P(m.sum().item().toFloat()); P(m.sum().item().toDouble()); P(i.sum().item().toLong()); P(i.max().item<int>()); P(m.mean().item<double>());
    P(m.toType(torch::kDouble).dtype()); P(m.to(torch::kDouble).dtype()); P(m.to(m.options().dtype(torch::kHalf)).dtype());
    P(torch::isFloatingType(torch::kHalf)); P(torch::isIntegralType(torch::kInt, false)); P(torch::elementSize(torch::kDouble));
    P(torch::typeMetaToScalarType(m.dtype())); P(torch::promote_types(torch::kInt, torch::kFloat)); P(torch::result_type(i, m));
    P(torch::can_cast(torch::kFloat, torch::kInt));
  }
  // in-place view ops and views
  {
    auto x = m.clone();
    x.t_(); P(x.sizes()); x.transpose_(0, 1); P(x.sizes()); x.unsqueeze_(0); P(x.sizes()); x.squeeze_(); P(x.sizes());
    x.unsqueeze_(1); x.squeeze_(1); P(x.sizes()); x.resize_({2, 6}); P(x.sizes()); x.as_strided_({2, 2}, {1, 2}); P(x);
    P(m.as_strided({2, 2}, {4, 1}, 1)); P(m.view_as(m.t())); P(m.expand_as(torch::zeros({2, 3, 4})).sizes()); P(m.reshape_as(m.t()).sizes());
    P(m.unflatten(1, {2, 2}).sizes()); P(m.diagonal()); P(m.diagonal(1)); P(m.select(1, -1)); P(m.unfold(0, 2, 1).sizes());
    P(m.movedim({0, 1}, {1, 0}).sizes()); P(m.flatten(0, 1).sizes()); P(m.contiguous().data_ptr() == m.data_ptr()); P(m.detach().is_leaf());
    P(m.hsplit(2)[1]); P(m.vsplit(std::vector<int64_t>{1})[1]); P(torch::hstack({m, m}).sizes()); P(torch::vstack({m, m}).sizes()); P(torch::dstack({m, m}).sizes());
    P(torch::column_stack({m, m}).sizes()); P(torch::atleast_2d(torch::tensor(1.f)).sizes()); P(m.rot90(1, {0, 1})); P(m.fliplr()); P(m.flipud());
    P(m.new_ones({2})); P(torch::broadcast_tensors({m, torch::ones({4})})[1].sizes());
    P(m.split_with_sizes({1, 3}, 1)[1]); P(m.chunk(3)[2]); P(m.narrow_copy(1, 1, 2)); P(m.mT().sizes());
    P(m.moveaxis(0, 1).sizes()); P(m.view(torch::kInt).sizes());
  }
  // linalg and special
  {
    auto s = torch::tensor({{4.0, 1.0, 0.5}, {1.0, 3.0, 0.2}, {0.5, 0.2, 2.0}});
    auto r = torch::tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 7.0}});
    P(torch::linalg::norm(s, 2, {}, false, {})); P(torch::linalg::vector_norm(s, 3, {}, false, {})); P(torch::linalg::matrix_norm(s, "fro", {-2, -1}, false, {}));
    P(torch::linalg::matrix_norm(s, 1, {-2, -1}, false, {})); P(torch::linalg::det(s)); P(torch::linalg::slogdet(s)); P(torch::linalg::inv(s));
    P(torch::linalg::solve(s, r, true)); P(torch::logdet(s)); P(torch::linalg::multi_dot({s, s, r}));
    auto v = torch::tensor({0.25, 0.5, 1.5, 3.0});
    P(torch::special::erf(v)); P(torch::special::erfc(v)); P(torch::special::erfinv(v / 4)); P(torch::special::expit(v)); P(torch::special::logit(v / 4));
    P(torch::special::xlogy(v, v)); P(torch::special::xlog1py(v, v)); P(torch::special::entr(v)); P(torch::special::i0(v)); P(torch::special::i0e(v));
    P(torch::special::i1(v)); P(torch::special::i1e(v)); P(torch::special::gammaln(v)); P(torch::special::digamma(v)); P(torch::special::polygamma(2, v));
    P(torch::special::multigammaln(v + 2, 2)); P(torch::special::sinc(v)); P(torch::special::ndtr(v)); P(torch::special::ndtri(v / 4)); P(torch::special::log_ndtr(v));
    P(torch::special::erfcx(v)); P(torch::special::zeta(v + 1, v)); P(torch::special::log_softmax(v, 0, {})); P(torch::special::softmax(v, 0, {}));
    P(torch::special::logsumexp(v, {0}, false)); P(torch::special::round(v)); P(torch::special::exp2(v)); P(torch::special::expm1(v)); P(torch::special::log1p(v));
    P(torch::special::gammainc(v, v)); P(torch::special::gammaincc(v, v)); P(torch::polygamma(3, v)); P(torch::mvlgamma(v + 2, 3)); P(torch::lgamma(v)); P(torch::igamma(v, v));
  }
  return 0;
}
