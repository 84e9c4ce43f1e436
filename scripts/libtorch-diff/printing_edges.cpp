// Stop 53 probe: printing edges, diffed against libtorch 1.13 (scripts/libtorch-diff/run).
#include HDR
#include <iostream>
int main() {
  std::cout << torch::tensor({1e-5, 1.0, 1e5}) << "\n";
  std::cout << torch::tensor({1234.5f, 0.001f}) << "\n";
  std::cout << torch::tensor({1e10f, -3.f}) << "\n";
  std::cout << torch::tensor({0.1f, 0.25f, -0.5f}) << "\n";
  std::cout << torch::arange(2000).reshape({40, 50}).to(torch::kFloat) / 7 << "\n";
  std::cout << torch::arange(1200) << "\n";
  std::cout << torch::tensor({std::numeric_limits<float>::infinity(), -1.f, std::nanf("")}) << "\n";
  std::cout << torch::tensor({1.f, 2.f}).unsqueeze(0).unsqueeze(0).unsqueeze(0) << "\n";
  std::cout << torch::zeros({0, 3}) << "\n";
  std::cout << torch::tensor(5) << torch::tensor(2.5) << torch::tensor(true) << "\n";
  std::cout << torch::tensor({100000.f, 2.f}) << "\n";
  std::cout << torch::tensor({123456789.f}) << "\n";
  std::cout << torch::tensor({1.f, 2.f}, torch::requires_grad()) << "\n";
  std::cout << torch::tensor({-0.f, 0.f}) << "\n";
  std::cout << torch::tensor({1, -200, 30}, torch::kShort) << torch::tensor({1, 2}, torch::kChar) << "\n";
  std::cout << torch::tensor({0.5, 1.5}, torch::kDouble) << torch::tensor({1e-10, 1.0}, torch::kDouble) << "\n";
  std::cout << torch::ones({2, 2, 2, 2}) << "\n";
  auto t = torch::tensor({1.f, 2.f, 3.f});
  t.print();
  std::cout << t.toString() << " " << t.sizes() << " " << t.strides() << " " << t.scalar_type() << " " << t.device() << "\n";
  std::cout << t.dtype().name() << " " << t.element_size() << " " << t.nbytes() << " " << t.itemsize() << "\n";
  std::cout << torch::kFloat << " " << torch::kCPU << " " << torch::Device("cpu") << " " << t.layout() << "\n";
  std::cout << c10::toString(torch::kFloat) << " " << torch::toString(torch::kLong) << "\n";
}
