// scripts/libtorch-diff: What libtorch programs print besides tensors: dtypes, scalar types, devices, sizes, options, scalars, layouts.
// Built twice by scripts/libtorch-diff/run, with HDR=<torch/torch.h> against libtorch and HDR=<locus/torch.h>
// against locus; the two outputs are compared line by line.
#include HDR
#include <iostream>
int main() {
  auto t = torch::ones({2, 3});
  std::cout << t.dtype() << "|" << t.scalar_type() << "|" << t.device() << "|" << t.sizes() << "|" << t.strides() << "\n";
  std::cout << t.options() << "\n";
  std::cout << torch::kFloat << " " << torch::kLong << " " << torch::kBool << " " << torch::kHalf << " " << torch::kDouble << "\n";
  std::cout << t.sum().item() << " " << torch::tensor(3).item() << " " << torch::tensor(true).item() << "\n";
  std::cout << torch::Device("cpu") << " " << torch::Device(torch::kCUDA, 1) << " " << torch::kCPU << "\n";
  std::cout << t.dtype().name() << " " << t.dtype().itemsize() << " " << t.element_size() << " " << t.nbytes() << "\n";
  std::cout << torch::typeMetaToScalarType(t.dtype()) << " " << (t.dtype() == torch::kFloat) << "\n";
  std::cout << t.toString() << "\n";
  std::cout << torch::nn::functional::relu(t).requires_grad() << " " << t.is_cuda() << " " << t.layout() << "\n";
  std::cout << c10::str("a", 1, 2.5) << "\n";
  std::cout << t.to(torch::kInt).dtype() << " " << t.to(torch::kDouble).dtype() << " " << t.to(torch::kLong).dtype() << " " << t.to(torch::kHalf).dtype() << " " << t.to(torch::kBFloat16).dtype() << " " << t.to(torch::kByte).dtype() << " " << t.to(torch::kChar).dtype() << " " << t.to(torch::kShort).dtype() << " " << t.to(torch::kBool).dtype() << "\n";
}
