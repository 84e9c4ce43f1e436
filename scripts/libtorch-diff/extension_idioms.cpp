// Stop 53 probe: extension idioms, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
template <typename scalar_t>
scalar_t total(const torch::Tensor& t) {
  scalar_t s = 0;
  auto* p = t.data_ptr<scalar_t>();
  for (int64_t i = 0; i < t.numel(); ++i) s += p[i];
  return s;
}
int main() {
  auto t = torch::arange(6, torch::kFloat).view({2, 3});
  std::cout << t.data<float>()[4] << "\n";
  std::cout << t.toType(torch::kDouble).dtype() << t.type().scalarType() << "\n";
  std::cout << t.to(at::kCPU).is_cpu() << t.is_variable() << "\n";
  auto e = torch::empty_strided({2, 2}, {1, 2});
  std::cout << e.strides() << e.is_contiguous() << "\n";
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "total", [&] { std::cout << total<scalar_t>(t) << "\n"; });
  auto d = t.to(torch::kDouble);
  AT_DISPATCH_FLOATING_TYPES(d.scalar_type(), "total", [&] { std::cout << total<scalar_t>(d) << "\n"; });
  auto l = torch::arange(4);
  AT_DISPATCH_ALL_TYPES(l.scalar_type(), "total", [&] { std::cout << total<scalar_t>(l) << "\n"; });
  std::vector<float> out(100);
  at::parallel_for(0, 100, 10, [&](int64_t b, int64_t e) { for (auto i = b; i < e; ++i) out[i] = i; });
  std::cout << out[99] << "\n";
  {
    c10::InferenceMode guard;
    auto z = torch::ones({2}, torch::requires_grad()) * 2;
    std::cout << z.requires_grad() << "\n";
  }
  std::cout << at::get_num_interop_threads() << "\n";
  std::cout << torch::cuda::device_count() << torch::cuda::cudnn_is_available() << "\n";
  std::cout << t.is_same_size(t) << t.is_floating_point() << t.is_complex() << t.is_signed() << t.has_names() << "\n";
  std::cout << t.sizes().vec().size() << t.size(-1) << t.ndimension() << t.dim() << "\n";
  std::cout << torch::ones({2}).data().requires_grad() << "\n";
  std::cout << t.contiguous().view(-1).narrow(0, 2, 2) << "\n";
  std::cout << torch::isfinite(torch::tensor({1.f, INFINITY})) << "\n";
  std::cout << t.std(1, true, false) << "\n";
  std::cout << torch::max(t, torch::full_like(t, 2.5)) << "\n";
  std::cout << t.clamp(c10::nullopt, 3) << "\n";
  torch::Tensor undefined;
  std::cout << undefined.defined() << "\n";
  std::cout << undefined << "\n";
  std::cout << at::Tensor().defined() << "\n";
  std::cout << torch::scalar_tensor(3.5) << torch::zeros({}, torch::kInt).item().toInt() << "\n";
  torch::Scalar s = t.sum().item();
  std::cout << s << s.toFloat() << s.isFloatingPoint() << "\n";
  std::cout << torch::tensor({1, 2}).to(torch::kFloat).mean().item<double>() << "\n";
}
