// scripts/libtorch-diff: Reductions with dims, scatter/index ops, views, comparisons, rounding, sorting and statistics, norms, linear algebra.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
template <class T> void show(const T& x) { std::cout << x << "\n"; }
template <class... T> void show(const std::tuple<T...>& t) { std::apply([](const auto&... x) { (show(x), ...); }, t); }
template <class T> void show(const std::vector<T>& v) { for (auto& x : v) show(x); }
#define P(expr) std::cout << "--- " #expr "\n"; show(expr);
int main() {
  auto a = torch::arange(12).reshape({3, 4}).to(torch::kFloat) / 3 - 1;
  auto i = torch::arange(12).reshape({3, 4});
  auto m = a > 0;
  P(a.all()); P(m.all(1)); P(m.any(0)); P(a.amax(1)); P(a.amin({0, 1})); P(a.nansum()); P(torch::count_nonzero(a, std::vector<int64_t>{1}));
  P(a.max(0, true)); 
  P(a.std(1, true, true)); P(a.var({0}, false)); P(a.mean(std::vector<int64_t>{0, 1}, true)); P(a.sum(torch::kDouble)); P(i.sum(0, false, torch::kFloat));
  P(a.scatter(1, torch::tensor({{0}, {1}, {2}}), 5.0)); P(torch::zeros({3, 4}).scatter_add(1, torch::tensor({{0, 0}, {1, 1}, {2, 3}}), torch::ones({3, 2})));
  P(a.index_add(0, torch::tensor({0, 0}), torch::ones({2, 4}))); P(a.index_fill(1, torch::tensor({1}), -1)); P(a.masked_select(m));
  P(a.clone().masked_scatter_(m, torch::arange(12).to(torch::kFloat))); P(a.take(torch::tensor({0, 5}))); P(a.put(torch::tensor({0}), torch::tensor({9.f})));
  P(a.squeeze()); P(a.unsqueeze(-1).squeeze(-1)); P(a.permute({1, 0})); P(a.movedim(0, 1)); P(a.swapaxes(0, 1)); P(a.split(2, 1)[1]);
  P(a.tensor_split(3, 1)[0]); P(torch::unbind(a, 0)[1]); P(a.t().contiguous().is_contiguous()); P(a.stride(0)); P(a.new_zeros({2}));
  P(a.new_full({2}, 3)); P(a.new_empty({0}).numel()); P(torch::zeros_like(i, torch::kFloat)); P(torch::full_like(a, 2)); P(torch::empty({2, 0}).sizes());
  P(torch::clamp_min(a, 0)); P(a.clamp_max(0.5)); P(torch::clamp(i, 2, 8)); P(a.addcmul(a, a, 0.5)); P(a.addcdiv(a, a.abs() + 1, 2));
  P(torch::maximum(a, a.flip({1}))); P(torch::minimum(a, torch::zeros_like(a))); P(torch::fmax(a, a)); P(a.pow(torch::tensor(2.0))); P(torch::pow(2, a));
  P(a.exp2()); P(a.expm1()); P(a.log2()); P(a.rsqrt()); P(a.erf()); P(a.trunc()); P(a.frac()); P(torch::atan2(a, a.flip({0})));
  P(a.argsort(1, false)); P(std::get<0>(torch::unique_consecutive(torch::tensor({1, 1, 2, 2, 3})))); P(torch::bincount(torch::tensor({1, 1, 3})));
  P(a.cumsum(0).diff()); P(torch::trace(a.narrow(1, 0, 3))); P(torch::cross(torch::eye(3), torch::ones({3, 3}), 1)); P(torch::kron(torch::eye(2), torch::ones({2, 2})));
  P(a.isfinite()); P(a.isinf().sum()); P(torch::nan_to_num(torch::tensor({NAN, INFINITY, 1.f}))); P(a.sign().to(torch::kInt).abs());
  P(a.type_as(i)); P(i.to(torch::kBool)); P(i.logical_not()); P(m.logical_and(m.flip({1}))); P(m.logical_or(m.flip({0}))); P(m.logical_xor(m));
  P(torch::tensor({1.5, 2.5, -0.5, 0.5}).round()); P(torch::tensor({1.55, 2.45}).round(1));
  P(i.to(torch::kDouble).div(4)); P(i / 4); P(i.div(4, "trunc")); P(i.floor_divide(5)); P(torch::true_divide(i, 5));
  P(a.view(-1).topk(3)); P(a.sort(0, true)); P(a.kthvalue(2, 1)); P(a.mode(1)); P(a.median(1)); P(a.max(1)); P(a.min(0));
  P(a.cummax(1)); P(a.aminmax()); P(torch::std_mean(a, 1)); P(torch::var_mean(a));
  P(a.norm(1, 1)); P(a.norm(2, {0}, true)); P(torch::frobenius_norm(a)); P(a.renorm(2, 0, 1));
  P(torch::histc(a, 4)); P(torch::searchsorted(torch::tensor({1, 3, 5}), torch::tensor({2, 6})));
  P(torch::tril_indices(3, 3)); P(torch::combinations(torch::tensor({1, 2, 3})));
  P(torch::diag_embed(torch::ones({2}))); P(torch::block_diag({torch::ones({1, 1}), torch::ones({2, 2}) * 2}));
  P(torch::cdist(a, a)); P(torch::cosine_similarity(a, a, 1)); P(torch::pairwise_distance(a, a.flip({0})));
  P(torch::matrix_power(torch::eye(2) * 2, 3)); P(torch::det(torch::eye(3) * 2)); P(torch::inverse(torch::eye(2) * 4));
  P(torch::chain_matmul({a, a.t(), a})); P(torch::baddbmm(torch::zeros({1, 3, 3}), a.unsqueeze(0), a.t().unsqueeze(0)));
  P(torch::addmv(torch::zeros({3}), a, torch::ones({4}))); P(torch::mv(a, torch::ones({4}))); P(torch::addr(torch::zeros({2, 2}), torch::ones({2}), torch::ones({2})));
  P(torch::vander(torch::tensor({1, 2, 3})));
}
