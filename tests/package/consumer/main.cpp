#include <locus/locus.h>

#include <iostream>

int main() {
  locus::Tensor x = locus::arange(6, locus::dtype(locus::kFloat)).view({2, 3});
  locus::Tensor s = x.sum();
  std::cout << "sum=" << s.item<float>() << " device=" << x.device() << "\n";
  return s.item<float>() == 15.0f ? 0 : 1;
}
